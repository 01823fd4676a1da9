"""Shared fixtures for the verifier tests.

Tests that need TensorFlow use ``pytest.importorskip("tensorflow")`` only as a guard for
machines without the ``verify`` extra; CI installs it, so they run there. The expensive
end-to-end runs (child processes importing TensorFlow) are module-scoped and shared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "verify"


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture()
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path
