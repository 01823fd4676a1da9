"""What ruff users expect of ``tflint check``: stdin, --add-noqa, extend-ignore,
per-directory config, .gitignore, --show-fixes, colour, the summary line, JUnit and
GitLab output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import BAD_SRC, GOOD_SRC, write
from tflint.output import use_color

IO_SRC = (
    "import tensorflow as tf\nimport time\n@tf.function\ndef f(x):\n"
    "    print(x)\n    t = time.time()\n    return x + t\n"
)  # TFL101 (fixable) at 5:5, TFL102 at 6:9


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> io.StringIO:
    """Feed ``data`` to standard input; return a stdout whose bytes can be read."""

    class Out(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.buffer = io.BytesIO()

    class In:
        buffer = io.BytesIO(data)

    monkeypatch.setattr(sys, "stdin", In())
    out = Out()
    monkeypatch.setattr(sys, "stdout", out)
    return out


# ------------------------------------------------------------------ stdin


def test_stdin_dash(project: Path, run, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _stdin(monkeypatch, BAD_SRC.encode())
    from tflint.cli import main

    assert main(["check", "-"]) == 1
    assert out.getvalue().startswith("-:4:5: TFL101 [*] ")


def test_stdin_filename_uses_that_files_config(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tflint.cli import main

    write(project, "sub/pyproject.toml", "[tool.tflint]\nper-file-ignores = {'quiet_*.py' = ['TFL101']}\n")
    out = _stdin(monkeypatch, BAD_SRC.encode())
    assert main(["check", "--stdin-filename", "sub/loud.py"]) == 1
    assert out.getvalue().startswith("sub/loud.py:4:5: TFL101")
    out = _stdin(monkeypatch, BAD_SRC.encode())
    assert main(["check", "--stdin-filename", "sub/quiet_a.py", "-"]) == 0
    assert out.getvalue() == ""


def test_stdin_fix_writes_the_fixed_source_to_stdout(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from tflint.cli import main

    out = _stdin(monkeypatch, IO_SRC.encode())
    assert main(["check", "--fix", "--stdin-filename", "a.py"]) == 1  # TFL102 is left
    assert out.buffer.getvalue() == IO_SRC.replace("    print(x)", "    tf.print(x)").encode()
    err = capsys.readouterr().err
    assert "a.py:6:9: TFL102" in err and "Fixed 1 finding" in err
    assert not (project / "a.py").exists()


def test_stdin_notebook_by_its_name(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tflint.cli import main

    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": BAD_SRC}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    out = _stdin(monkeypatch, json.dumps(nb).encode())
    assert main(["check", "--stdin-filename", "nb.ipynb"]) == 1
    assert out.getvalue().startswith("nb.ipynb:cell 1:4:5: TFL101")


@pytest.mark.parametrize("data, rc, expected", [
    (b"", 0, ""),
    (b"\xff\xfe\x00bad", 1, "-:1:1: TFL001 "),
])
def test_stdin_empty_or_undecodable(project: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, rc: int,
                                    expected: str) -> None:
    from tflint.cli import main

    out = _stdin(monkeypatch, data)
    assert main(["check", "-"]) == rc
    assert out.getvalue().startswith(expected) and (expected or out.getvalue() == "")


def test_stdin_cannot_be_mixed_with_paths(project: Path, run) -> None:
    r = run("check", "-", "a.py")
    assert r.rc == 2 and "cannot be mixed" in r.err


def test_stdin_through_a_real_pipe(project: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tflint", "check", "--fix", "--stdin-filename", "x.py"],
                          input=BAD_SRC.encode(), capture_output=True, timeout=120, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == BAD_SRC.replace("    print(x)", "    tf.print(x)").encode()


# ------------------------------------------------------------------ --add-noqa


def test_add_noqa_silences_every_finding_and_keeps_codes(project: Path, run) -> None:
    src = IO_SRC.replace("    t = time.time()\n", "    t = (time.time()  # noqa: E501\n         + 1)\n")
    src += 'def g():\n    return """\n    text"""\n'
    path = write(project, "a.py", src)
    r = run("check", "--add-noqa", "a.py")
    assert r.rc == 0 and "Added noqa comments for 2 findings in 1 file." in r.err
    new = path.read_text()
    assert "    print(x)  # noqa: TFL101\n" in new
    assert "    t = (time.time()  # noqa: E501, TFL102\n" in new
    assert new.replace("  # noqa: TFL101", "").replace(", TFL102", "") == src
    r = run("check", "a.py")
    assert (r.rc, r.out) == (0, "")
    assert run("check", "--add-noqa", "a.py").rc == 0 and path.read_text() == new  # idempotent


def test_add_noqa_on_multi_line_string_statement(project: Path, run) -> None:
    src = ("import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x, '''a\n    b''')\n    return x\n")
    path = write(project, "a.py", src)
    assert run("check", "--add-noqa", "a.py").rc == 0
    assert "    b''')  # noqa: TFL101\n" in path.read_text()
    assert run("check", "a.py").out == ""


def test_add_noqa_in_a_notebook(project: Path, run) -> None:
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": BAD_SRC.splitlines(keepends=True)}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    text = json.dumps(nb, indent=1) + "\n"
    path = write(project, "nb.ipynb", text)
    assert run("check", "--add-noqa", "nb.ipynb").rc == 0
    assert path.read_text() == text.replace('"    print(x)\\n"', '"    print(x)  # noqa: TFL101\\n"')
    assert run("check", "nb.ipynb").out == ""


def test_add_noqa_reports_what_a_comment_cannot_silence(project: Path, run) -> None:
    path = write(project, "a.py", "import tensorflow as tf\ndef f(:\n")
    r = run("check", "--add-noqa", "a.py")
    assert r.rc == 1 and "a.py:2:7: TFL001" in r.out
    assert path.read_text() == "import tensorflow as tf\ndef f(:\n"


# ------------------------------------------------------------------ config


def test_extend_ignore_flag_and_key(project: Path, run) -> None:
    write(project, "a.py", IO_SRC)
    codes = lambda r: sorted(line.split()[1] for line in r.out.splitlines())  # noqa: E731
    assert codes(run("check", "a.py")) == ["TFL101", "TFL102"]
    assert codes(run("check", "--extend-ignore", "TFL101", "a.py")) == ["TFL102"]
    write(project, "pyproject.toml", "[tool.tflint]\nextend-ignore = ['TFL102']\n")
    assert codes(run("check", "a.py")) == ["TFL101"]
    # --ignore replaces the config's ignore list, extend-ignore still adds
    assert codes(run("check", "--ignore", "TFL101", "a.py")) == []
    assert run("check", "--extend-ignore", "TFL999", "a.py").rc == 2


def test_nearest_config_governs_the_files_under_it(project: Path, run) -> None:
    write(project, "pyproject.toml", "[tool.tflint]\nignore = ['TFL102']\n")
    write(project, "a.py", IO_SRC)
    write(project, "sub/pyproject.toml", "[tool.tflint]\nignore = ['TFL101']\n")
    write(project, "sub/b.py", IO_SRC)
    write(project, "other/setup.cfg", "[tflint]\nselect = TFL1\nignore = TFL101,TFL102\n")
    write(project, "other/c.py", IO_SRC)
    write(project, "plain/pyproject.toml", "[tool.black]\n")  # no tflint section: passed over
    write(project, "plain/d.py", IO_SRC)
    r = run("check", ".")
    rows = sorted((line.split(":")[0], line.split()[1]) for line in r.out.splitlines())
    assert rows == [("a.py", "TFL101"), ("plain/d.py", "TFL101"), ("sub/b.py", "TFL102")], r.out
    # --config and --isolated: one config for everything
    rows = run("check", "--isolated", ".").out.count("TFL10")
    assert rows == 8


def test_nested_config_excludes_its_own_files(project: Path, run) -> None:
    write(project, "sub/pyproject.toml", "[tool.tflint]\nextend-exclude = ['gen_*.py']\n")
    write(project, "sub/gen_a.py", BAD_SRC)
    write(project, "sub/b.py", BAD_SRC)
    assert [line.split(":")[0] for line in run("check", ".").out.splitlines()] == ["sub/b.py"]


def test_broken_nested_config_is_an_error_for_its_files(project: Path, run) -> None:
    write(project, "sub/pyproject.toml", "[tool.tflint]\nbogus = 1\n")
    write(project, "sub/b.py", BAD_SRC)
    write(project, "a.py", BAD_SRC)
    r = run("check", ".")
    assert r.rc == 2 and "unknown key 'bogus'" in r.err and r.out.startswith("a.py:4:5: TFL101")


# ------------------------------------------------------------------ .gitignore


def test_gitignore_is_respected_in_walks(project: Path, run) -> None:
    (project / ".git").mkdir()
    write(project, ".gitignore", "generated/\n*_pb2.py\n!keep_pb2.py\n")
    write(project, "src/.gitignore", "local.py\n")
    for name in ("a.py", "generated/g.py", "x_pb2.py", "keep_pb2.py", "src/local.py", "src/b.py"):
        write(project, name, BAD_SRC)
    files = lambda r: sorted(line.split(":")[0] for line in r.out.splitlines())  # noqa: E731
    assert files(run("check", ".")) == ["a.py", "keep_pb2.py", "src/b.py"]
    assert files(run("check", "src")) == ["src/b.py"]
    # a folder named on the command line is checked even when git ignores it (as ruff does)
    assert files(run("check", "generated")) == ["generated/g.py"]
    assert len(files(run("check", "--no-respect-gitignore", "."))) == 6
    # a file named on the command line is checked, unless --force-exclude
    assert files(run("check", "x_pb2.py")) == ["x_pb2.py"]
    assert files(run("check", "--force-exclude", "x_pb2.py", "generated/g.py", "a.py")) == ["a.py"]


def test_gitignore_outside_a_repository_is_not_read(project: Path, run) -> None:
    write(project, ".gitignore", "*.py\n")
    write(project, "a.py", BAD_SRC)
    assert run("check", ".").out.startswith("a.py:4:5: TFL101")


# ------------------------------------------------------------------ output


def test_show_fixes(project: Path, run) -> None:
    write(project, "a.py", IO_SRC)
    r = run("check", "--show-fixes", "a.py")
    assert "a.py:5:5: TFL101 [*] " in r.out and "\n  fix (safe): " in r.out
    r = run("check", "--fix", "--show-fixes", "a.py")
    assert "Fixed 1 finding in 1 file; 1 finding remaining.\n- a.py:\n    1 × TFL101\n" in r.err


def test_summary_line(project: Path, run) -> None:
    write(project, "a.py", IO_SRC)
    assert run("check", "a.py").err.splitlines()[0] == "Found 2 findings (1 fixable) in 1 file (1 checked)."
    write(project, "a.py", GOOD_SRC)
    assert run("check", "a.py").err == "All checks passed!\n"


def test_color(project: Path, run, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, "a.py", BAD_SRC)
    assert "\x1b[" not in run("check", "a.py").out  # not a terminal
    colored = run("check", "--color", "always", "a.py").out
    assert "\x1b[31m" in colored and "TFL101" in colored

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert use_color("auto", Tty()) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color("auto", Tty()) is False and use_color("always", Tty()) is True
    assert use_color("never", Tty()) is False


def test_junit_output(project: Path, run) -> None:
    write(project, "a.py", IO_SRC)
    write(project, "b.py", GOOD_SRC)
    (project / "broken.py").symlink_to("nowhere.py")  # exists, cannot be read
    r = run("check", "--output-format", "junit", "a.py", "b.py", "broken.py")
    root = ET.fromstring(r.out)
    assert root.tag == "testsuites" and root.get("failures") == "2" and root.get("errors") == "1"
    cases = root.findall(".//testcase")
    assert [c.get("name") for c in cases[:2]] == ["TFL101 at a.py:5:5", "TFL102 at a.py:6:9"]
    assert cases[0].find("failure").get("type") == "TFL101"  # type: ignore[union-attr]
    r = run("check", "--output-format", "junit", "b.py")
    assert r.rc == 0 and ET.fromstring(r.out).find(".//testcase").get("name") == "No findings"  # type: ignore[union-attr]


def test_gitlab_output(project: Path, run) -> None:
    write(project, "a.py", IO_SRC + "@tf.function\ndef g(x):\n    print(x)\n    return x\n")
    issues = json.loads(run("check", "--output-format", "gitlab", "a.py").out)
    assert [i["check_name"] for i in issues] == ["TFL101", "TFL102", "TFL101"]
    assert issues[0]["location"] == {"path": "a.py", "lines": {"begin": 5, "end": 5}}
    assert issues[0]["severity"] == "info" and issues[1]["severity"] in ("major", "critical", "minor", "info")
    assert len({i["fingerprint"] for i in issues}) == 3
    # the fingerprint does not depend on the line: code added above keeps the identity
    write(project, "a.py", "\n\n" + IO_SRC + "@tf.function\ndef g(x):\n    print(x)\n    return x\n")
    moved = json.loads(run("check", "--output-format", "gitlab", "a.py").out)
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in issues]


def test_stdin_diff_and_force_excluded_stdin(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tflint.cli import main

    out = _stdin(monkeypatch, BAD_SRC.encode())
    assert main(["check", "--diff", "--stdin-filename", "a.py"]) == 1
    assert "-    print(x)\n+    tf.print(x)\n" in out.getvalue()
    # an excluded name with --force-exclude: --fix passes the source through untouched
    out = _stdin(monkeypatch, BAD_SRC.encode())
    assert main(["check", "--fix", "--force-exclude", "--extend-exclude", "gen_*.py",
                 "--stdin-filename", "gen_a.py"]) == 0
    assert out.buffer.getvalue() == BAD_SRC.encode() and out.getvalue() == ""


def test_stdin_add_noqa_writes_to_stdout_not_to_the_file(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tflint.cli import main

    path = write(project, "a.py", GOOD_SRC)  # the named file exists: it must not be touched
    out = _stdin(monkeypatch, BAD_SRC.encode())
    assert main(["check", "--add-noqa", "--stdin-filename", "a.py"]) == 0
    assert out.buffer.getvalue() == BAD_SRC.replace("print(x)\n", "print(x)  # noqa: TFL101\n").encode()
    assert path.read_text() == GOOD_SRC
