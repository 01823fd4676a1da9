"""`tflint check examples/` on the bundled training code reports every rule of the core
families, exactly on the lines the examples mark, and nothing on the correct code around
them. (examples/verify/ belongs to the verifier: linted, but nothing is required of it.)
"""

from __future__ import annotations


import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markers import read_markers

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

#: the rules of the static engine's first issue: each must show up in the examples
REQUIRED = {"TFL101", "TFL102", "TFL103", "TFL104", "TFL105", "TFL106", "TFL107",
            "TFL301", "TFL302", "TFL401", "TFL402"}

#: a reported line carries a trailing comment "# TFLxxx: why" (tests/markers.py)


def _own_examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.py"))


def _marks(path: Path) -> set[tuple[str, int, str]]:
    expected, missed = read_markers(path.read_text(encoding="utf-8"))
    assert not missed, f"{path.name}: examples show what tflint reports, no known misses"
    return {(path.name, line, code) for line, code in expected}


@pytest.fixture(scope="module")
def report() -> tuple[int, list[dict], str]:
    """One real run, as a user would type it (from the repository root)."""
    r = subprocess.run([sys.executable, "-m", "tflint", "check", "examples/", "--output-format", "json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    return r.returncode, json.loads(r.stdout or "[]"), r.stderr


def _own(findings: list[dict]) -> list[dict]:
    return [d for d in findings if Path(d["filename"]).parent.name == "examples"]


def test_examples_exist() -> None:
    names = {p.name for p in _own_examples()}
    assert {"train_loop.py", "keras_model.py", "input_pipeline.py", "stateful_module.py"} <= names


def test_check_exits_1_with_findings(report) -> None:
    rc, findings, stderr = report
    assert rc == 1, stderr
    assert findings
    assert not {d["code"] for d in findings} & {"TFL001", "TFL002"}, findings


def test_every_core_rule_is_shown(report) -> None:
    _, findings, _ = report
    shown = {d["code"] for d in _own(findings)}
    assert REQUIRED <= shown, f"not shown by examples/*.py: {sorted(REQUIRED - shown)}"


def test_findings_are_exactly_the_marked_lines(report) -> None:
    """Precision and recall on realistic code: every marked line is reported with its
    code, and nothing else in examples/*.py is (the rest of the code is correct)."""
    _, findings, _ = report
    got = {(Path(d["filename"]).name, d["location"]["row"], d["code"]) for d in _own(findings)}
    want = set().union(*(_marks(p) for p in _own_examples()))
    assert {c for _, _, c in want} >= REQUIRED
    assert got == want, (f"reported but not marked: {sorted(got - want)}\n"
                         f"marked but not reported: {sorted(want - got)}")


def test_examples_are_never_imported(tmp_path: Path) -> None:
    """The examples import TensorFlow; checking them must not (it is a static check)."""
    code = ("import sys, tflint.cli; rc = tflint.cli.main(['check', '-q', 'examples/']); "
            "print(rc, 'tensorflow' in sys.modules, any(m.startswith(('train_loop', 'keras_model')) "
            "for m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.stdout.split()[-3:] == ["1", "False", "False"], r.stdout + r.stderr


def _readme_sample() -> list[str]:
    """The lines of the README's sample output block (after `$ tflint check examples/`)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```(?:console|text)?\n\$ tflint check examples/\n(.*?)```", text, re.S)
    assert m, "README.md has no ```console block starting with `$ tflint check examples/`"
    return [line for line in m.group(1).splitlines() if line.strip()]


def test_readme_output_is_real() -> None:
    """Every line of the README's sample output is printed by tflint today."""
    r = subprocess.run([sys.executable, "-m", "tflint", "check", "examples/"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    real = set((r.stdout + r.stderr).splitlines())
    sample = _readme_sample()
    assert len(sample) >= 5
    # examples/verify/ and the summary line belong to the verifier's examples, which change
    # on their own schedule; the lines of examples/*.py must be exact
    stale = [line for line in sample if line not in real and not line.startswith(("Found ", "examples/verify/"))]
    assert any(line.startswith("examples/train_loop.py:") for line in sample)
    assert not stale, "README.md sample output is stale; paste the output of `tflint check examples/`:\n" + \
        "\n".join(stale)
