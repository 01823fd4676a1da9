"""The rule pages in docs/rules/ are generated from the rule classes and committed:
these tests fail when a page is stale or missing, or a docstring lacks a section."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tflint import docs
from tflint.registry import all_rules
from tflint.rule import Rule

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = ROOT / "docs" / "rules"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_docstring_has_the_required_sections(rule: type[Rule]) -> None:
    problems = docs.docstring_problems(docs.rule_docstring(rule))
    assert not problems, f"{rule.CODE}: " + "; ".join(problems)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_committed_page_is_up_to_date(rule: type[Rule]) -> None:
    page = RULES_DIR / f"{rule.CODE}.md"
    assert page.is_file(), f"{page.relative_to(ROOT)} is missing: run `python -m tflint.docs`"
    assert page.read_text(encoding="utf-8") == docs.render_rule(rule), (
        f"{page.relative_to(ROOT)} is stale: run `python -m tflint.docs`")


def test_no_stale_page_at_all() -> None:
    """Covers the index, the engine codes' pages and pages of codes that were removed."""
    assert docs.stale_pages(RULES_DIR) == []


def test_check_mode_exit_status(tmp_path: Path) -> None:
    """`python -m tflint.docs --check` exits 1 on a stale tree, 0 once written."""
    out = tmp_path / "rules"
    cmd = [sys.executable, "-m", "tflint.docs", "--dir", str(out)]
    r = subprocess.run(cmd + ["--check"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and "TFL101.md" in r.stdout
    assert subprocess.run(cmd, capture_output=True, cwd=ROOT).returncode == 0
    assert subprocess.run(cmd + ["--check"], capture_output=True, cwd=ROOT).returncode == 0
    # edit one page by hand: --check notices, and a run restores it
    page = out / "TFL101.md"
    page.write_text(page.read_text() + "hand edit\n")
    (out / "TFL999.md").write_text("# a removed rule\n")
    r = subprocess.run(cmd + ["--check"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1
    assert "TFL101.md" in r.stdout and "TFL999.md" in r.stdout and "TFL102.md" not in r.stdout
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    assert docs.stale_pages(out) == [] and not (out / "TFL999.md").exists()


def test_page_shape() -> None:
    rule = all_rules()[0]
    page = docs.render_rule(rule)
    lines = page.splitlines()
    assert lines[0] == f"# {rule.CODE}: {rule.NAME}"
    assert f"**Severity:** {rule.SEVERITY.value}" in lines[2]
    assert ("**Default:** on" if rule.DEFAULT_ON else "**Default:** off") in lines[2]
    headings = [l for l in lines if l.startswith("## ")]
    assert headings[:2] == ["## What it does", "## Why is this bad?"]
    assert headings[-2:] == ["## Examples flagged", "## Examples not flagged"]
    # every example appears verbatim in a python block
    for ex in rule.INVALID + rule.VALID:
        assert "```python\n" + ex.strip("\n") + "\n```" in page


def test_index_lists_every_code() -> None:
    index = (RULES_DIR / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\[(TFL\d{3})\]\(TFL\d{3}\.md\)", index))
    assert linked == {r.CODE for r in all_rules()} | {"TFL001", "TFL002"}


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ("Summary.\n\n## What it does\nx\n\n## Example\nx\n\n## Use instead\nx\n\n## References\nx",
         "missing section '## Why is this bad?'"),
        ("## What it does\nx\n## Why is this bad?\nx\n## Example\nx\n## Use instead\nx\n## References\nx",
         "no summary line"),
        ("S.\n## Why is this bad?\nx\n## What it does\nx\n## Example\nx\n## Use instead\nx\n## References\nx",
         "out of order"),
        ("S.\n## What it does\nx\n## Why is this bad?\nx\n## Example\nx\n## Use instead\n\n## References\nx",
         "'## Use instead' is empty"),
        ("S.\n## What it does\nx\n## Why is this bad?\nx\n## Example\nx\n## Use instead\nx\n## Notes\nx\n"
         "## References\nx", "unknown section '## Notes'"),
    ],
)
def test_docstring_problems_are_found(doc: str, problem: str) -> None:
    assert any(problem in p for p in docs.docstring_problems(doc)), docs.docstring_problems(doc)


def test_headings_inside_code_blocks_are_not_sections() -> None:
    doc = ("S.\n\n## What it does\nx\n\n## Why is this bad?\nx\n\n## Example\n```python\n## not a heading\n"
           "x = 1\n```\n\n## Use instead\nx\n\n## Fix safety\nx\n\n## References\nx")
    assert docs.docstring_problems(doc) == []
    _, sections = docs.split_docstring(doc)
    assert [t for t, _ in sections] == list(docs._ORDER)


def _setup_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, re.S)


def test_readme_has_exactly_two_one_line_setup_commands() -> None:
    blocks = _setup_commands()
    assert len(blocks) == 2, blocks
    assert all(b.count("\n") == 1 for b in blocks), blocks
    install_and_check, install_and_test = (b.strip() for b in blocks)
    assert install_and_check.startswith('pip install -e ".[verify]"') and "tflint check examples/" in install_and_check
    assert install_and_test == 'pip install -e ".[dev,verify]" && pytest'


def test_ci_runs_the_second_setup_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in ci
    commands = [line for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert commands[-1] == _setup_commands()[1].strip()


@pytest.mark.parametrize(("pytest_status", "want"), [(0, 0), (1, 1), (5, 5)])
def test_ci_fails_when_pytest_fails_or_collects_nothing(tmp_path: Path, pytest_status: int, want: int) -> None:
    """.ci/run with stand-in `pip` and `pytest`: pytest's status is the job's, so exit 5
    (no tests collected) fails CI like a test failure does."""
    import os

    for name, status in (("pip", 0), ("pytest", pytest_status)):
        stub = tmp_path / name
        stub.write_text(f"#!/bin/sh\necho {name} \"$@\" >> '{tmp_path}/calls'\nexit {status}\n")
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    r = subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True)
    assert r.returncode == want, r.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ['pip install -e .[dev,verify]', "pytest"]
