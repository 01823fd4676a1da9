"""Shared helpers for the front-end tests: tiny TF sources and an in-process CLI runner."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

#: one TFL101 at line 4, column 5 (1-based) in text output
BAD_SRC = "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"
#: the same function, correct: no finding
GOOD_SRC = "import tensorflow as tf\n@tf.function\ndef f(x):\n    tf.print(x)\n    return x\n"


@dataclass
class Run:
    rc: int
    out: str
    err: str


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder that is the CWD, with an empty ``[tool.tflint]`` table so
    the upward config search stops there and never reads a config elsewhere on disk."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.tflint]\n")
    return tmp_path


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Run ``tflint`` in-process and capture what it prints."""
    from tflint.cli import main

    def _run(*argv: str) -> Run:
        capsys.readouterr()
        rc = main(list(argv))
        captured = capsys.readouterr()
        return Run(rc, captured.out, captured.err)

    return _run


def write(root: Path, rel: str, text: str | bytes) -> Path:
    """Write a file below ``root``, creating folders; bytes are written as they are."""
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p
