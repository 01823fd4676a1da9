"""`tflint check` over the real-code corpus (../shared/corpus, ~5,000 files of TensorFlow
library code from PyPI): no crash, no TFL002, no file left out.

The corpus is fetched once into ``$TFLINT_CORPUS`` or ``<repo>/.corpus-cache`` (git-
ignored) with ``fetch_corpus.sh --no-tensorflow``; later runs reuse it. The findings of
the last run are written next to it (``last-findings.json``) for reading them by hand.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.corpus

REPO = Path(__file__).resolve().parents[1]
FETCH = REPO.parent / "shared" / "corpus" / "fetch_corpus.sh"
#: written after a complete fetch; holds the number of .py files the fetch reported
STAMP = ".tflint-fetched"


def corpus_dir() -> Path:
    return Path(os.environ.get("TFLINT_CORPUS") or REPO / ".corpus-cache")


def _summary_file_count(dest: Path) -> int | None:
    """Total .py files in the fetch script's SUMMARY.tsv (its TOTAL row)."""
    try:
        rows = (dest / "SUMMARY.tsv").read_text().splitlines()
    except OSError:
        return None
    for row in rows:
        cells = row.split("\t")
        if cells[0] == "TOTAL":
            return int(cells[1])
    return None


def _py_files(src: Path) -> list[Path]:
    return sorted(p for p in src.rglob("*.py") if p.is_file())


def fetch(dest: Path) -> Path:
    """Fetch the corpus unless a previous fetch completed and its files are all there."""
    src = dest / "src"
    stamp = dest / STAMP
    expected = _summary_file_count(dest)
    if stamp.is_file() and expected and stamp.read_text().strip() == str(expected) \
            and len(_py_files(src)) == expected:
        return src
    # PIP_USE_PEP517: tf2rl ships only an sdist whose setup.py imports TensorFlow when it
    # is installed (it is, with the verify extra) and fails on TF 2.21; an isolated PEP 517
    # build of its metadata does not see the installed TensorFlow.
    env = {**os.environ, "PIP_USE_PEP517": "1"}
    r = subprocess.run(["bash", str(FETCH), str(dest), "--no-tensorflow"], env=env,
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, f"fetch_corpus.sh failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    expected = _summary_file_count(dest)
    assert expected, "fetch_corpus.sh wrote no SUMMARY.tsv"
    stamp.write_text(f"{expected}\n")
    return src


@pytest.fixture(scope="module")
def corpus_src() -> Path:
    if not FETCH.is_file():
        pytest.skip(f"the corpus scripts are absent ({FETCH.parent.parent.name}/corpus/fetch_corpus.sh "
                    "next to the repository): cannot fetch the real-code corpus")
    return fetch(corpus_dir())


@pytest.fixture(scope="module")
def run(corpus_src: Path) -> tuple[subprocess.CompletedProcess, list[dict]]:
    r = subprocess.run(
        [sys.executable, "-m", "tflint", "check", "-j2", "--isolated", "--output-format", "json", str(corpus_src)],
        cwd=REPO, capture_output=True, text=True, timeout=1800)
    findings = json.loads(r.stdout) if r.stdout.strip() else []
    counts = collections.Counter(d["code"] for d in findings)
    (corpus_src.parent / "last-findings.json").write_text(json.dumps(
        {"counts": dict(sorted(counts.items())), "findings": findings}, indent=1))
    return r, findings


def test_no_crash(run) -> None:
    r, _ = run
    assert r.returncode in (0, 1), f"exit {r.returncode}:\n{r.stderr[-4000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-4000:]
    errors = [line for line in r.stderr.splitlines() if ": error:" in line]
    assert not errors, "files not linted:\n" + "\n".join(errors[:20])


def test_no_internal_error(run) -> None:
    _, findings = run
    bad = [f"{d['filename']}:{d['location']['row']}: {d['message']}" for d in findings if d["code"] == "TFL002"]
    assert not bad, "\n".join(bad[:20])


def test_every_corpus_file_parses(run) -> None:
    """All corpus files are valid Python 3 (fetch_corpus.sh checks it with ast.parse)."""
    _, findings = run
    bad = [f"{d['filename']}: {d['message']}" for d in findings if d["code"] == "TFL001"]
    assert not bad, "\n".join(bad[:20])


def test_every_file_is_linted(corpus_src: Path, run) -> None:
    """Discovery finds every .py file of the corpus (none lost to default excludes such as
    a package folder named `build`), and the run reported no file it could not lint."""
    from tflint.config import Settings
    from tflint.files import discover

    on_disk = {os.path.abspath(p) for p in _py_files(corpus_src)}
    assert len(on_disk) == _summary_file_count(corpus_src.parent)
    found = discover([str(corpus_src)], Settings())
    assert not found.missing and not found.unreadable
    assert {os.path.abspath(f) for f in found.files} == on_disk
    r, _ = run
    assert ": error:" not in r.stderr
