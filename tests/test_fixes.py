"""Autofix: every rule's fixed examples, the fix loop of ``fix_source``, and the CLI's
``--fix`` / ``--unsafe-fixes`` / ``--diff`` with atomic writes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import libcst as cst
import pytest

from tflint import engine, files, fixes
from tflint.config import Settings
from tflint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from tflint.engine import fix_source, lint_source
from tflint.registry import all_rules
from tflint.rule import Rule

RULES = all_rules()


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.write_text(text)
    return p


SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def _fixed_examples():
    for rule in RULES:
        for index, expected in rule.FIXED:
            yield pytest.param(rule, index, expected, id=f"{rule.CODE}-invalid-{index}")


def _only(rule: type[Rule]) -> Settings:
    return Settings(select=[rule.CODE])


# ------------------------------------------------------------------ rule examples


def test_some_rules_have_fixes() -> None:
    fixable = {r.CODE for r in RULES if r.FIXED}
    assert {"TFL101", "TFL103", "TFL401"} <= fixable, fixable


@pytest.mark.parametrize(("rule", "index", "expected"), list(_fixed_examples()))
def test_fixed_example(rule: type[Rule], index: int, expected: str) -> None:
    source = rule.INVALID[index]
    result = fix_source(source, "example.py", _only(rule), unsafe=True)
    assert result.problems == []
    assert result.source == expected
    assert result.applied >= 1 and result.applied_by_code == {rule.CODE: result.applied}
    cst.parse_module(expected)  # the fixed code parses
    again = fix_source(expected, "example.py", _only(rule), unsafe=True)
    assert again.applied == 0 and again.source == expected, "a second run changed the fixed code"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_fixes_in_examples_are_documented_and_tested(rule: type[Rule]) -> None:
    """An INVALID example whose findings carry a fix has a FIXED entry, and the other
    way round; a rule with fixes has a ``## Fix safety`` section that says which."""
    with_fix = set()
    kinds = set()
    for i, src in enumerate(rule.INVALID):
        diags = [d for d in lint_source(src, "x.py", _only(rule)) if d.code == rule.CODE]
        for d in diags:
            if d.fix is not None:
                with_fix.add(i)
                kinds.add(d.fix.applicability)
                assert d.fix.title.strip() and d.fix.edits
    assert {i for i, _ in rule.FIXED} == with_fix
    if with_fix:
        doc = rule.__doc__ or ""
        assert "## Fix safety" in doc
        if Applicability.UNSAFE in kinds:
            assert "unsafe" in doc.split("## Fix safety")[1].split("##")[0]


@pytest.mark.parametrize("rule", [r for r in RULES if r.FIXED], ids=lambda r: r.CODE)
def test_unsafe_fixes_need_the_flag(rule: type[Rule]) -> None:
    for index, expected in rule.FIXED:
        src = rule.INVALID[index]
        diags = [d for d in lint_source(src, "x.py", _only(rule)) if d.fix is not None]
        safe = fix_source(src, "x.py", _only(rule), unsafe=False)
        if all(d.fix.applicability is Applicability.UNSAFE for d in diags):  # type: ignore[union-attr]
            assert safe.applied == 0 and safe.source == src
        else:
            assert safe.applied >= 1


# ------------------------------------------------------------------ TFL101 details

TF_FUNC = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    {}\n    return x\n"


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("print(x)", "tf.print(x)"),
        ('print("x", x, sep=", ", end="\\n")', 'tf.print("x", x, sep=", ", end="\\n")'),
        ("print(x, *rest)", "tf.print(x, *rest)"),
        ("print(x, file=sys.stderr)", None),
        ("print(x, flush=True)", None),
        ("print(x)  # noqa: TFL101", None),
    ],
)
def test_print_fix_is_offered_only_when_safe(line: str, fixed: str | None) -> None:
    src = TF_FUNC.format(line)
    result = fix_source(src, "x.py", Settings(select=["TFL101"]))
    assert result.source == (src if fixed is None else TF_FUNC.format(fixed))


def test_print_fix_uses_the_module_alias() -> None:
    src = "import tensorflow\n\n@tensorflow.function\ndef f(x):\n    print(x)\n    return x\n"
    out = fix_source(src, "x.py", Settings(select=["TFL101"])).source
    assert out == src.replace("    print(x)", "    tensorflow.print(x)")


def test_print_fix_adds_the_import_once_after_the_leading_imports() -> None:
    src = ('"""Doc."""\nfrom __future__ import annotations\nfrom tensorflow import function\n\nX = 1\n\n'
           "@function\ndef f(x):\n    print(x)\n    print(x + 1)\n    return x\n")
    out = fix_source(src, "x.py", Settings(select=["TFL101"])).source
    assert out == src.replace("from tensorflow import function\n",
                              "from tensorflow import function\nimport tensorflow as tf\n") \
        .replace("    print(x)", "    tf.print(x)").replace("    print(x + 1)", "    tf.print(x + 1)")


def test_added_import_goes_below_shebang_cookie_and_header_comments() -> None:
    src = ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# Copyright header\n\n"
           "try:\n    from tensorflow import function\nexcept ImportError:\n    raise\n\n"
           "@function\ndef f(x):\n    print(x)\n    return x\n")
    out = fix_source(src, "x.py", Settings(select=["TFL101"])).source
    want = src.replace("\ntry:\n", "\nimport tensorflow as tf\ntry:\n")
    assert out == want.replace("    print(x)", "    tf.print(x)")


def test_no_print_fix_when_the_name_tf_means_something_else() -> None:
    src = "from tensorflow import function\n\ntf = object()\n\n@function\ndef f(x):\n    print(x)\n    return x\n"
    diags = lint_source(src, "x.py", Settings(select=["TFL101"]))
    assert [d.code for d in diags] == ["TFL101"] and diags[0].fix is None
    assert fix_source(src, "x.py", Settings(select=["TFL101"])).applied == 0


# ------------------------------------------------------------------ the fix loop


def test_newlines_encoding_bom_and_comments_are_kept() -> None:
    body = ("# -*- coding: latin-1 -*-\nimport tensorflow as tf  # caf\xe9\n\n\n@tf.function\n"
            "def f(x):\n\t# a comment\n\tprint(  x  )   # trailing\n\treturn x\n")
    data = body.replace("\n", "\r\n").encode("latin-1")
    result = fix_source(data, "x.py", Settings(select=["TFL101"]))
    assert isinstance(result.source, bytes)
    assert result.source == data.replace(b"\tprint(  x  )", b"\ttf.print(  x  )")

    utf8 = ("\ufeff" + TF_FUNC.format("print(x)  # \u00e9")).encode("utf-8")
    out = fix_source(utf8, "x.py", Settings(select=["TFL101"])).source
    assert out == utf8.replace(b"    print(x)", b"    tf.print(x)") and out.startswith(b"\xef\xbb\xbf")


def test_result_unpacks_as_a_tuple() -> None:
    new, remaining, applied, problems = fix_source(TF_FUNC.format("print(x)"), "x.py")
    assert new == TF_FUNC.format("tf.print(x)") and remaining == [] and applied == 1 and problems == []


def test_nothing_to_fix_returns_the_input_object() -> None:
    src = TF_FUNC.format("tf.print(x)").encode()
    result = fix_source(src, "x.py")
    assert result.source is src and result.applied == 0 and not result.changed


def test_multiline_call_and_parenthesized_node() -> None:
    """Continuation lines keep their indentation (libcst stores it relative to the
    enclosing block, which a detached node has lost) and parentheses are not doubled."""
    src = TF_FUNC.format('(print(\n        "x",\n        x,\n    ))')
    out = fix_source(src, "x.py", Settings(select=["TFL101"])).source
    assert out == TF_FUNC.format('(tf.print(\n        "x",\n        x,\n    ))')
    src = ("import tensorflow as tf\nclass A:\n\t@tf.function\n\tdef f(self, x):\n\t\tif x:\n"
           "\t\t\tprint(x,\n\t\t\t  x)  # c\n\t\treturn x\n").replace("\n", "\r\n")
    out = fix_source(src, "x.py", Settings(select=["TFL101"])).source
    assert out == src.replace("\tprint(", "\ttf.print(")


def _diag(line: int, col: int, end_col: int, content: str, code: str = "TFL101",
          applicability: Applicability = Applicability.SAFE, end_line: int | None = None) -> Diagnostic:
    fix = Fix("t", applicability, (Edit(line, col, end_line or line, end_col, content),))
    return Diagnostic(code=code, name="n", message="m", path="x.py", line=line, column=col,
                      end_line=end_line or line, end_column=end_col, severity=Severity.INFO, fix=fix)


def test_fix_that_breaks_the_file_is_dropped_and_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    src = "a = 1\nb = 2\n"

    def fake_lint(text: str, path: str, settings: Settings, **kw):
        out = []
        if "a = 1" in text:
            out.append(_diag(1, 4, 5, "(", code="TFL901"))  # breaks the file
        if "b = 2" in text:
            out.append(_diag(2, 4, 5, "3", code="TFL902"))  # fine
        return out

    monkeypatch.setattr(engine, "lint_source", fake_lint)
    result = fix_source(src, "x.py")
    assert result.source == "a = 1\nb = 3\n"
    assert result.applied == 1 and result.applied_by_code == {"TFL902": 1}
    assert len(result.problems) == 1 and "TFL901" in result.problems[0] and "does not parse" in result.problems[0]
    assert [d.code for d in result.diagnostics] == ["TFL901"]


def test_overlapping_fixes_take_two_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    src = "x = f(g(1))\n"
    calls = []

    def fake_lint(text: str, path: str, settings: Settings, **kw):
        calls.append(text)
        out = []
        i = text.find("f(")
        if i >= 0:
            out.append(_diag(1, i, len(text) - 1, "F" + text[i + 1:len(text) - 1]))  # outer call
        j = text.find("g(")
        if j >= 0:
            out.append(_diag(1, j, j + 4, "G(1)", code="TFL902"))  # inner call
        return sorted(out, key=lambda d: d.column)

    monkeypatch.setattr(engine, "lint_source", fake_lint)
    result = fix_source(src, "x.py")
    assert result.source == "x = F(G(1))\n"
    assert result.applied == 2 and len(calls) == 3  # outer, then inner, then a clean lint


def test_identical_import_edits_apply_once() -> None:
    spans = [(0, 0, "import tf\n"), (4, 5, "X"), (0, 0, "import tf\n")]
    assert not fixes._overlaps(spans[0], spans[2])
    assert fixes._apply("abc d e\n", spans) == "import tf\nabc X e\n"
    assert fixes._overlaps((3, 3, "a"), (3, 3, "b"))  # two different insertions at one point
    assert fixes._overlaps((3, 3, "a"), (1, 5, "b")) and not fixes._overlaps((1, 3, "a"), (3, 5, "b"))


def test_loop_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_lint(text: str, path: str, settings: Settings, **kw):
        return [_diag(1, 0, 1, "00")]  # always one more fix: the line grows

    monkeypatch.setattr(engine, "lint_source", fake_lint)
    result = fix_source("0\n", "x.py")
    assert result.applied == fixes.MAX_FIX_PASSES and result.source == "0" * (fixes.MAX_FIX_PASSES + 1) + "\n"
    assert any("still apply" in p for p in result.problems)


# ------------------------------------------------------------------ CLI


BAD = TF_FUNC.format('print("x", x)  # keep this comment') + "\n\ndef g(y):\n    return y\n"


def test_cli_fix_writes_atomically_keeps_mode_and_reports_the_rest(project: Path, run) -> None:
    src = "import numpy as np\n" + BAD.replace("return x\n", "return x + np.random.normal(size=())\n", 1)
    p = write(project, "a.py", src)
    p.chmod(0o640)
    r = run("check", "--fix", "a.py")
    assert r.rc == 1, r.err  # the unsafe TFL103 fix is not applied: one finding remains
    assert "TFL103" in r.out and "TFL101" not in r.out
    assert "Fixed 1 finding in 1 file; 1 finding remaining." in r.err
    assert p.read_text() == src.replace('    print("x"', '    tf.print("x"')
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    # no temporary file left (the project index cache is tflint's own, git-ignored folder)
    assert sorted(os.listdir(project)) == [".tflint_cache", "a.py", "pyproject.toml"]

    r = run("check", "--fix", "--unsafe-fixes", "a.py")
    assert r.rc == 0 and r.out == "", r.out + r.err
    assert "tf.random.normal([])" in p.read_text()
    mtime = p.stat().st_mtime_ns
    r = run("check", "--fix", "--unsafe-fixes", "a.py")
    assert r.rc == 0 and p.stat().st_mtime_ns == mtime  # nothing to fix: not rewritten


def test_cli_diff_writes_nothing(project: Path, run) -> None:
    p = write(project, "a.py", BAD)
    r = run("check", "--diff", "a.py")
    assert r.rc == 1
    assert r.out.startswith("--- a.py\n+++ a.py\n@@ ")
    assert '-    print("x", x)  # keep this comment\n+    tf.print("x", x)  # keep this comment\n' in r.out
    assert p.read_text() == BAD
    write(project, "b.py", TF_FUNC.format("tf.print(x)"))
    r = run("check", "--diff", "b.py")
    assert r.rc == 0 and r.out == ""


def test_cli_unsafe_fixes_marks_fixable_findings(project: Path, run) -> None:
    write(project, "a.py", TF_FUNC.format("print(x, file=None)\n    print(x)"))
    r = run("check", "a.py")
    lines = r.out.splitlines()
    # the safe fix is marked by default, the unsafe one only with --unsafe-fixes
    assert "TFL101 [*] " not in lines[0] and "TFL101 [*] " in lines[1], r.out
    assert "[*] 1 fixable with `tflint check --fix`." in r.err
    r = run("check", "--unsafe-fixes", "a.py")
    lines = r.out.splitlines()
    assert "TFL101 [*] " not in lines[0] and "TFL101 [*] " in lines[1], r.out


def test_cli_json_and_sarif_carry_the_fix(project: Path, run) -> None:
    write(project, "a.py", BAD)
    r = run("check", "--output-format", "json", "a.py")
    fix = json.loads(r.out)[0]["fix"]
    assert fix["applicability"] == "safe" and "tf.print" in fix["title"]
    assert fix["edits"] == [{"content": 'tf.print("x", x)', "location": {"row": 5, "column": 5},
                             "end_location": {"row": 5, "column": 18}}]
    r = run("check", "--output-format", "sarif", "a.py")
    log = json.loads(r.out)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    sfix = log["runs"][0]["results"][0]["fixes"][0]
    assert sfix["properties"] == {"applicability": "safe"}
    rep = sfix["artifactChanges"][0]["replacements"][0]
    assert rep == {"deletedRegion": {"startLine": 5, "startColumn": 5, "endLine": 5, "endColumn": 18},
                   "insertedContent": {"text": 'tf.print("x", x)'}}


def test_cli_fix_honours_noqa_and_per_file_ignores(project: Path, run) -> None:
    a = write(project, "a.py", TF_FUNC.format("print(x)  # noqa: TFL101"))
    b = write(project, "b.py", TF_FUNC.format("print(x)"))
    r = run("check", "--fix", "--per-file-ignores", "b.py:TFL101", "a.py", "b.py")
    assert r.rc == 0
    assert a.read_text() == TF_FUNC.format("print(x)  # noqa: TFL101")
    assert b.read_text() == TF_FUNC.format("print(x)")


def test_interrupted_write_leaves_the_file_whole(project: Path, run, monkeypatch: pytest.MonkeyPatch) -> None:
    """--fix writes into the file; a write that fails part way (a full disk) puts the
    original bytes back."""
    p = write(project, "a.py", BAD)
    real_write = os.write
    failed: list[int] = []

    def half_writer(fd: int, data) -> int:  # noqa: ANN001
        if not failed:
            failed.append(fd)
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half_writer)
    r = run("check", "--fix", "a.py")
    assert failed
    assert r.rc == 2 and "cannot write the fixed file: No space left on device" in r.err
    assert p.read_text() == BAD
    assert sorted(set(os.listdir(project)) - {".tflint_cache"}) == ["a.py", "pyproject.toml"]


def test_write_atomic_interrupted_before_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "a.py"
    p.write_bytes(b"old\n")

    def fail(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(str(p), b"new\n")
    assert p.read_bytes() == b"old\n" and os.listdir(tmp_path) == ["a.py"]


def test_write_atomic_follows_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    files.write_atomic(str(link), b"new\n")
    assert link.is_symlink() and real.read_bytes() == b"new\n"
