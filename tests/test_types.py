"""The type checker is part of the test command: mypy, configured in pyproject.toml
([tool.mypy]), checks the tflint package. The semantic model, the verifier and the rules
are not type-clean yet and are excluded there; everything else must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(ROOT)
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, out + err
    assert "Success" in out
