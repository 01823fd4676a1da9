"""The flake8 plugin against the ``tflint check`` CLI: same findings, same places.

The parity tests run the real ``flake8`` in a subprocess (the plugin is found through
its ``flake8.extension`` entry point, as users get it) and ``tflint check --output-format
json`` in-process, and compare (code, line, column) sets, noqa included. Tests that need
to change the rule registry run flake8 in-process, so that a monkeypatch reaches it.
"""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import libcst as cst
import pytest

from tflint import registry
from tflint.diagnostics import Severity
from tflint.flake8_plugin import Plugin
from tflint.rule import Rule

from test_execution import KERAS3_STEP  # one Keras 3 train_step for both front-ends

#: one TFL101 at line 4, column 5 (1-based)
BAD_SRC = "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.py"))

Finding = tuple[str, int, int]  # code, line, 1-based column

#: small files for noqa parity: (name, source). Each has findings that a comment
#: silences and findings that it must not silence.
NOQA_CASES = {
    "noqa_bare.py": (
        "import time\n"
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def f(x):\n"
        "    print(x)  # noqa\n"
        "    t = time.time()  # NOQA\n"
        "    print(x)\n"
        "    return x, t\n"
    ),
    "noqa_codes.py": (
        "import time\n"
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def f(x):\n"
        "    print(x)  # noqa: TFL101\n"
        "    print(x, tf.constant(time.time()))  # noqa: TFL101\n"  # TFL102 still shown
        "    t = time.time()  # noqa:TFL101,TFL102\n"
        "    u = time.time()  # noqa: TFL1\n"  # prefix
        "    print(\n"
        "        x)  # noqa: TFL101\n"  # NL inside brackets: a noqa here does not reach line 11
        "    print('x', \\\n"
        "          x)  # noqa: TFL101\n"  # a backslash joins the lines: silenced
        "    return x, t, u\n"
    ),
    "noqa_other.py": (
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def f(x):\n"
        "    print(x)  # noqa: E501\n"
        "    print(x)  # noqa:E501 W291\n"
        "    print(x)  #noqa\n"  # no space after '#': not a noqa for flake8
        "    return x\n"
    ),
    "noqa_file.py": (
        "# flake8: noqa\n"
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def f(x):\n"
        "    print(x)\n"
        "    return x\n"
    ),
    # columns count characters, not bytes; tabs count one
    "columns.py": (
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def f(x):\n"
        '\ts = "é€"; print(s, x)\n'
        "\treturn x\n"
    ),
}


def flake8_findings(files: Iterable[Path], *args: str, cwd: Path) -> dict[Path, set[Finding]]:
    """Run the real flake8 and collect TFL findings per resolved file path."""
    files = list(files)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            "--format=%(code)s|%(row)d|%(col)d|%(path)s",
            *args,
            *map(str, files),
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
    out: dict[Path, set[Finding]] = {f.resolve(): set() for f in files}
    for line in proc.stdout.splitlines():
        code, row, col, path = line.split("|", 3)
        if code.startswith("TFL"):
            out[(cwd / path).resolve()].add((code, int(row), int(col)))
    return out


def cli_findings(
    run: Callable[..., Any], files: Iterable[Path], *args: str
) -> dict[Path, set[Finding]]:
    files = list(files)
    r = run("check", "--isolated", "-j", "1", "--output-format", "json", *args, *map(str, files))
    assert r.rc in (0, 1), (r.rc, r.err)
    out: dict[Path, set[Finding]] = {f.resolve(): set() for f in files}
    for item in json.loads(r.out):
        out[Path(item["filename"]).resolve()].add(
            (item["code"], item["location"]["row"], item["location"]["column"])
        )
    return out


@pytest.fixture
def noqa_files(project: Path) -> list[Path]:
    paths = []
    for name, text in NOQA_CASES.items():
        p = project / name
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    # a BOM and CRLF line endings must not shift lines or columns in either front-end
    crlf = project / "bom_crlf.py"
    crlf.write_bytes(b"\xef\xbb\xbf" + NOQA_CASES["noqa_codes.py"].replace("\n", "\r\n").encode())
    paths.append(crlf)
    return paths


def test_plugin_is_registered_with_flake8(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert re.search(r"\btflint: \d", proc.stdout), proc.stdout


@pytest.mark.parametrize("select", [[], ["--select", "TFL"]], ids=["default", "select-TFL"])
def test_parity_with_cli(
    project: Path, noqa_files: list[Path], run: Callable[..., Any], select: list[str]
) -> None:
    files = FIXTURES + noqa_files
    via_flake8 = flake8_findings(files, *select, cwd=project)
    via_cli = cli_findings(run, files, *select)
    for f in files:
        assert via_flake8[f.resolve()] == via_cli[f.resolve()], f.name
    # the comparison is not vacuous: every fixture has findings, and the noqa cases
    # keep exactly the findings their comments do not silence
    for f in FIXTURES:
        assert via_cli[f.resolve()], f.name
    by_name = {f.name: via_cli[f.resolve()] for f in noqa_files}
    assert by_name["noqa_bare.py"] == {("TFL101", 9, 5)}
    assert by_name["noqa_codes.py"] == {("TFL102", 8, 26), ("TFL101", 11, 5)}
    assert by_name["bom_crlf.py"] == by_name["noqa_codes.py"]
    assert by_name["noqa_other.py"] == {("TFL101", 6, 5), ("TFL101", 7, 5), ("TFL101", 8, 5)}
    assert by_name["noqa_file.py"] == set()
    assert by_name["columns.py"] == {("TFL101", 6, 12)}  # characters, a tab is one


def test_flake8_checks_still_run_alongside(project: Path) -> None:
    p = project / "mixed.py"
    p.write_text("import os\n" + BAD_SRC + "x = 1 \n")
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", str(p.name)],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    codes = {line.split()[1] for line in proc.stdout.splitlines()}
    assert {"F401", "E302", "W291", "TFL101"} <= codes, proc.stdout
    assert proc.returncode == 1


# ------------------------------------------------------------------ default-off codes


class _OffByDefault(Rule):
    """Test-only rule, registered through a monkeypatch: reports every call of `print`
    in traced code, but only when selected."""

    CODE = "TFL999"
    NAME = "test-only-off-by-default"
    MESSAGE = "test-only rule"
    SEVERITY = Severity.INFO
    DEFAULT_ON = False

    def visit_Call(self, node: cst.Call, ctx) -> None:  # type: ignore[no-untyped-def]
        if isinstance(node.func, cst.Name) and node.func.value == "print":
            self.report(node, ctx=ctx)


def _off_rule_case(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, set[int]]:
    """A default-off code, a source that triggers it, and the lines it is reported on.
    Uses a real default-off rule (and its INVALID example) when one exists."""
    for rule in registry.all_rules():
        if not rule.DEFAULT_ON and rule.INVALID:
            src = rule.INVALID[0]
            lines = {
                i
                for i, line in enumerate(src.splitlines(), 1)
                if re.search(rf"#\s*{rule.CODE}\b", line)
            }
            return rule.CODE, src, lines
    real = registry.all_rules()
    monkeypatch.setattr(registry, "all_rules", lambda: real + (_OffByDefault,))
    return _OffByDefault.CODE, BAD_SRC, {4}


def _flake8_in_process(
    capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, list[tuple[str, int]]]:
    from flake8.main.cli import main as flake8_main

    capsys.readouterr()
    rc = flake8_main(["--isolated", "--jobs", "1", "--format=%(code)s|%(row)d", *argv])
    out = capsys.readouterr().out
    found = []
    for line in out.splitlines():
        code, row = line.split("|")
        found.append((code, int(row)))
    return rc, found


def test_default_off_codes_stay_off_unless_selected(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    run: Callable[..., Any],
) -> None:
    code, src, lines = _off_rule_case(monkeypatch)
    assert code in registry.default_off_codes()
    p = project / "off.py"
    p.write_text(src)

    def off_lines(found: list[tuple[str, int]]) -> set[int]:
        return {row for c, row in found if c == code}

    _, found = _flake8_in_process(capsys, str(p))
    assert off_lines(found) == set(), found
    other_family = "TFL3" if not code.startswith("TFL3") else "TFL1"  # a prefix that does not cover it
    _, found = _flake8_in_process(capsys, "--select", other_family, str(p))
    assert off_lines(found) == set(), found
    _, found = _flake8_in_process(capsys, "--extend-select", code, str(p))
    assert off_lines(found) == lines, found
    _, found = _flake8_in_process(capsys, "--select", code, str(p))
    assert off_lines(found) == lines, found
    _, found = _flake8_in_process(capsys, "--select", "TFL", str(p))  # explicit prefix
    assert off_lines(found) == lines, found

    # and the CLI agrees in each case
    def cli_lines(*args: str) -> set[int]:
        r = run("check", "--isolated", "-j", "1", "--output-format", "json", *args, str(p))
        return {d["location"]["row"] for d in json.loads(r.out or "[]") if d["code"] == code}

    assert cli_lines() == set()
    assert cli_lines("--select", other_family) == set()
    assert cli_lines("--extend-select", code) == lines
    assert cli_lines("--select", code) == lines
    assert cli_lines("--select", "TFL") == lines


# ------------------------------------------------------------------ never raises


def test_syntax_error_is_e999_from_flake8_not_a_crash(project: Path) -> None:
    """flake8 calls AST plugins only for files ``ast`` can parse: on a syntax error
    flake8 itself reports E999 and carries on with the other files."""
    (project / "broken.py").write_text("import tensorflow as tf\ndef f(:\n    pass\n")
    (project / "py2.py").write_text('import tensorflow as tf\nprint "hello"\n')
    (project / "good.py").write_text(BAD_SRC)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            "--select",
            "E9,TFL",
            "broken.py",
            "py2.py",
            "good.py",
        ],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1
    lines = sorted(proc.stdout.splitlines())
    assert [(line.split(":")[0], line.split(": ")[1].split()[0]) for line in lines] == [
        ("broken.py", "E999"),
        ("good.py", "TFL101"),
        ("py2.py", "E999"),
    ], lines


def test_plugin_reports_tfl001_for_unparsable_lines() -> None:
    lines = ["import tensorflow as tf\n", "def f(:\n", "    pass\n"]
    results = list(Plugin(None, lines, "broken.py").run())
    assert [(r[0], r[2].split()[0]) for r in results] == [(2, "TFL001")]
    assert all(r[3] is Plugin for r in results)


def test_plugin_turns_any_exception_into_tfl002(
    monkeypatch: pytest.MonkeyPatch, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import tflint.engine

    def boom(*args: object, **kwargs: object) -> list:
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(tflint.engine, "lint_source", boom)
    results = list(Plugin(None, BAD_SRC.splitlines(True), "x.py").run())
    assert len(results) == 1
    line, col, text, _ = results[0]
    assert (line, col) == (1, 0) and text.startswith("TFL002 ") and "engine exploded" in text

    # through flake8 itself: a finding, not an aborted run
    p = project / "x.py"
    p.write_text(BAD_SRC)
    rc, found = _flake8_in_process(capsys, "--select", "TFL", str(p))
    assert (rc, found) == (1, [("TFL002", 1)])


def test_plugin_survives_odd_lines() -> None:
    assert list(Plugin(None, [], "empty.py").run()) == []
    results = list(Plugin(None, [b"not text\n"], "bytes.py").run())  # type: ignore[list-item]
    assert [r[2].split()[0] for r in results] == ["TFL002"]


def test_plugin_columns_are_zero_based() -> None:
    results = list(Plugin(None, BAD_SRC.splitlines(True), "x.py").run())
    assert [(r[0], r[1], r[2].split()[0]) for r in results] == [(4, 4, "TFL101")]


def test_tf_function_wrappers_from_tflint_config(project: Path) -> None:
    """A wrapper declared in [tool.tflint] is honoured by flake8 too (both front-ends
    must see the same traced code), and flake8's own option overrides it."""
    (project / "pyproject.toml").write_text('[tool.tflint]\ntf-function-wrappers = ["compiled"]\n')
    (project / "w.py").write_text(
        "import tensorflow as tf\nfrom utils import compiled\n\n\n"
        "@compiled\ndef f(x):\n    print(x)\n    return x\n"
    )

    def codes(*args: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "flake8", "--select", "TFL", *args, "w.py"],
            capture_output=True,
            text=True,
            cwd=project,
            timeout=120,
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        return [line.split()[1] for line in proc.stdout.splitlines()]

    assert codes() == ["TFL101"]
    assert codes("--tf-function-wrappers", "other") == []


def test_keras_version_from_tflint_config(project: Path) -> None:
    """``keras-version = "2"`` in [tool.tflint] reaches the flake8 plugin: under Keras 2,
    fit converts train_step with AutoGraph, so a Python `if` on a tensor there is fine."""
    (project / "m.py").write_text(textwrap.dedent(KERAS3_STEP))

    def codes() -> list[str]:
        proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "TFL", "m.py"],
                              capture_output=True, text=True, cwd=project, timeout=120)
        assert "Traceback" not in proc.stderr, proc.stderr
        return [line.split()[1] for line in proc.stdout.splitlines()]

    assert codes() == ["TFL202", "TFL203"]
    (project / "pyproject.toml").write_text('[tool.tflint]\nkeras-version = "2"\n')
    assert codes() == []

