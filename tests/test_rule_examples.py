"""Every rule's own VALID / INVALID examples are its tests.

For each rule in ``all_rules()``: a VALID example gives no finding of that rule, and for
an INVALID example the lines reported for that rule (the rule selected alone) are
exactly the lines that carry a ``# <CODE>`` comment. A rule that stops reporting (a
visitor that returns early, a handler name that no longer matches a node type) or
starts reporting on correct code fails here.
"""

from __future__ import annotations

import re

import pytest

from markers import read_markers

from tflint import codes
from tflint.config import Settings
from tflint.diagnostics import Severity
from tflint.engine import lint_source
from tflint.registry import all_rules
from tflint.rule import CODE_RE, NAME_RE, Rule

RULES = all_rules()


def _marked_lines(source: str, code: str) -> set[int]:
    """Lines whose comment marks ``code`` (tests/markers.py: real comments only)."""
    expected, _missed = read_markers(source)
    return {line for line, c in expected if c == code}


def _lint(rule: type[Rule], source: str):
    """Run the engine with only ``rule`` selected (plus the engine's own codes, so that
    an example that does not parse, or crashes the rule, is seen)."""
    diags = lint_source(source, f"<{rule.CODE} example>", Settings(select=[rule.CODE, "TFL001", "TFL002"]))
    engine = [d for d in diags if d.code in ("TFL001", "TFL002")]
    assert not engine, f"{rule.CODE} example did not run cleanly: {[(d.code, d.message) for d in engine]}"
    return [d for d in diags if d.code == rule.CODE]


def _examples(kind: str):
    for rule in RULES:
        for i, src in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, src, id=f"{rule.CODE}-{kind.lower()}-{i}")


def test_there_are_rules() -> None:
    assert len(RULES) >= 11, [r.CODE for r in RULES]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_rule_has_examples(rule: type[Rule]) -> None:
    assert len(rule.VALID) >= 1, f"{rule.CODE} has no VALID example"
    assert len(rule.INVALID) >= 1, f"{rule.CODE} has no INVALID example"
    for src in rule.INVALID:
        assert _marked_lines(src, rule.CODE), f"{rule.CODE}: an INVALID example marks no line with '# {rule.CODE}'"
    for src in rule.VALID:
        assert not _marked_lines(src, rule.CODE), f"{rule.CODE}: a VALID example carries a '# {rule.CODE}' mark"


@pytest.mark.parametrize(("rule", "source"), list(_examples("VALID")))
def test_valid_example_gives_no_finding(rule: type[Rule], source: str) -> None:
    found = _lint(rule, source)
    assert not found, "\n".join(f"line {d.line}: {d.message}" for d in found)


@pytest.mark.parametrize(("rule", "source"), list(_examples("INVALID")))
def test_invalid_example_reports_exactly_the_marked_lines(rule: type[Rule], source: str) -> None:
    want = _marked_lines(source, rule.CODE)
    found = _lint(rule, source)
    got = {d.line for d in found}
    assert got == want, (f"{rule.CODE}: reported lines {sorted(got)}, marked lines {sorted(want)}\n"
                         + "\n".join(f"  line {d.line}: {d.message}" for d in found))
    for d in found:
        assert d.name == rule.NAME and d.severity is rule.SEVERITY
        assert d.message.strip() and "{" not in d.message, f"unformatted message: {d.message!r}"


@pytest.mark.parametrize(("rule", "source"), list(_examples("INVALID")))
def test_invalid_example_is_silent_when_the_rule_is_ignored(rule: type[Rule], source: str) -> None:
    diags = lint_source(source, "<example>", Settings(select=["TFL"], extend_select=[rule.CODE], ignore=[rule.CODE]))
    assert rule.CODE not in {d.code for d in diags}


# ------------------------------------------------------------------ metadata


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_rule_metadata(rule: type[Rule]) -> None:
    assert CODE_RE.match(rule.CODE), rule.CODE
    assert NAME_RE.match(rule.NAME), rule.NAME
    assert isinstance(rule.SEVERITY, Severity) and rule.SEVERITY.value in {s.value for s in Severity}
    assert isinstance(rule.DEFAULT_ON, bool)
    assert rule.MESSAGE.strip(), f"{rule.CODE} has no MESSAGE"
    assert all(re.fullmatch(r"P\d{2}", p) for p in rule.PITFALLS), rule.PITFALLS
    assert rule.handlers() or rule.finish is not Rule.finish, f"{rule.CODE} has no visit_* handler"
    assert (rule.__doc__ or "").strip(), f"{rule.CODE} has no docstring"
    if rule.CODE.startswith("TFL9"):
        assert not rule.DEFAULT_ON, "TFL9xx rules are opinionated and off by default"


def test_codes_and_names_are_unique() -> None:
    codes = [r.CODE for r in RULES]
    names = [r.NAME for r in RULES]
    assert len(set(codes)) == len(codes), codes
    assert len(set(names)) == len(names), names
    assert not {"TFL001", "TFL002"} & set(codes), "TFL001/TFL002 are the engine's codes"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_rule_matches_the_code_table(rule: type[Rule]) -> None:
    """Codes are never renumbered: the class agrees with tflint/codes.toml on name,
    severity, default and pitfalls."""
    table = codes.by_code()
    assert rule.CODE in table, f"{rule.CODE} is not in tflint/codes.toml"
    e = table[rule.CODE]
    assert (rule.NAME, rule.SEVERITY.value, rule.DEFAULT_ON) == (e.name, e.severity, e.default)
    assert tuple(rule.PITFALLS) == e.pitfalls


def test_every_code_in_the_table_is_reported_by_someone() -> None:
    """A table entry is a rule class or an engine code: no stale code, no stray one."""
    from tflint.registry import ENGINE_CODES

    rule_codes = {r.CODE for r in RULES}
    for e in codes.table():
        assert (e.code in ENGINE_CODES) if e.engine else (e.code in rule_codes), e.code
    assert len({e.code for e in codes.table()}) == len(codes.table())


def test_marked_lines_reads_comments_not_strings() -> None:
    src = 's = "# TFL101"\nprint(s)  # TFL101\nx = 1  # not TFL1010\n'
    assert _marked_lines(src, "TFL101") == {2}


#: the imports the short docstring examples leave out, as the docs pages show them
_DOC_EXAMPLE_IMPORTS = (
    "import math\nimport os\nimport random\nimport time\n"
    "import numpy as np\nimport tensorflow as tf\nimport keras\n"
)


def _docstring_code(rule: type[Rule], section: str) -> list[str]:
    from tflint.docs import rule_docstring, split_docstring

    _, sections = split_docstring(rule_docstring(rule))
    body = dict(sections).get(section, "")
    return re.findall(r"```python\n(.*?)```", body, re.S)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_docs_example_is_flagged_and_use_instead_is_not(rule: type[Rule]) -> None:
    """The "Example" a rule's page shows is code the rule flags, and its "Use instead"
    is code the rule leaves alone: a reader who tries either gets what the page says."""
    examples = _docstring_code(rule, "Example")
    assert examples, f"{rule.CODE}: no python block under 'Example'"
    for code in examples:
        assert _lint(rule, _DOC_EXAMPLE_IMPORTS + code), f"{rule.CODE}: its docs Example is not flagged:\n{code}"
    for code in _docstring_code(rule, "Use instead"):
        found = _lint(rule, _DOC_EXAMPLE_IMPORTS + code)
        assert not found, f"{rule.CODE}: its docs 'Use instead' is flagged: {found}"
