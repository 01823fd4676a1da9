"""Realistic TensorFlow files with inline expectations, linted with every rule selected.

Each file in ``tests/fixtures/`` marks its findings with trailing comments, in the one
marker style of ``tests/markers.py``:

* ``# TFL101`` (or ``# TFL101, TFL105``): a finding that starts on this line must be
  reported;
* ``# TFL105 (missed): why``: an honest known miss, a finding tflint should report but
  does not yet. The test asserts it is still missed, so whoever teaches a rule to see it
  must drop the ``(missed)``.

Every other line must stay clean: the set of (line, code) reported must equal the
``expect`` set exactly, so a false positive fails the test as surely as a miss.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from markers import read_markers

from tflint.config import Settings
from tflint.engine import lint_source
from tflint.registry import all_codes

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_FILES = sorted(FIXTURES.glob("*.py"))


#: the rules of issue 2 that the fixtures must exercise (TFL001/TFL002 are tested elsewhere)
ISSUE_RULES = {
    "TFL101",
    "TFL102",
    "TFL103",
    "TFL104",
    "TFL105",
    "TFL106",
    "TFL107",
    "TFL301",
    "TFL302",
    "TFL401",
    "TFL402",
}


def expectations(text: str) -> tuple[set[tuple[int, str]], set[tuple[int, str]]]:
    """(expected, missed) as sets of (line, code), from comment tokens only."""
    return read_markers(text)


def reported(path: Path) -> set[tuple[int, str]]:
    diags = lint_source(path.read_bytes(), str(path), Settings(select=["TFL"]))
    return {(d.line, d.code) for d in diags}


def test_there_are_fixtures() -> None:
    assert len(FIXTURE_FILES) >= 4, FIXTURE_FILES


def test_expectation_parser() -> None:
    text = (
        "x = 1  # TFL101\n"
        "y = 2  # TFL101, TFL105: two findings\n"
        "s = '# TFL999'\n"
        "z = 3  # TFL106 (missed): why it is missed\n"
        "w = 4  # see TFL107\n"
    )
    expected, missed = expectations(text)
    assert expected == {(1, "TFL101"), (2, "TFL101"), (2, "TFL105")}
    assert missed == {(4, "TFL106")}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture(path: Path) -> None:
    expected, missed = expectations(path.read_text(encoding="utf-8"))
    assert expected, f"{path.name} has no `# CODE` marker"
    known = set(all_codes())
    unknown = {c for _, c in expected | missed} - known
    assert not unknown, f"{path.name}: unknown codes in expectations: {sorted(unknown)}"
    got = reported(path)

    now_found = sorted(got & missed)
    assert not now_found, (
        f"{path.name}: known misses are now reported {now_found}; "
        "turn their `# miss:` into `# expect:`"
    )
    false_positives = sorted(got - expected)
    misses = sorted(expected - got)
    assert not false_positives and not misses, (
        f"{path.name}: reported but not expected (false positives): {false_positives}; "
        f"expected but not reported: {misses}"
    )


def test_fixtures_cover_every_rule_of_the_issue() -> None:
    codes: set[str] = set()
    for path in FIXTURE_FILES:
        expected, _ = expectations(path.read_text(encoding="utf-8"))
        codes |= {c for _, c in expected}
    assert ISSUE_RULES <= codes, f"no fixture expects {sorted(ISSUE_RULES - codes)}"


def test_fixtures_contain_the_false_positive_traps() -> None:
    """The correct code the rules must not flag is part of the fixtures on purpose: keep
    at least one instance of each trap of PITFALLS.md that the issue names."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in FIXTURE_FILES)
    traps = {
        "P01 trace-time print of a shape": r'print\("Tracing[^\n]*\.shape\)',
        "P13 NumPy on a static shape": r"np\.prod\(x\.shape",
        "P02 local list stacked": r"tf\.stack\(parts\)",
        "P16 guarded variable creation": r"if self\.\w+ is None:\n\s+self\.\w+ = tf\.Variable",
        "P05 tf.Variable.assign": r"\.assign(_add)?\(",
        "P31 training flags": r"training=False",
        "tf.py_function body": r"tf\.py_function\(",
        "tf.init_scope block": r"with tf\.init_scope\(\):",
        "for x in dataset": r"for x, y in dataset:",
        "P32 cached tf.function": r"if self\._fn is None:",
        "P17 state in build": r"def build\(self, input_shape\)",
    }
    absent = [name for name, pattern in traps.items() if not re.search(pattern, text)]
    assert not absent, f"fixtures lost their false-positive traps: {absent}"
