"""The static check never imports or runs the code it reads.

The checked file writes a marker file as soon as any part of it runs: at module level,
in a decorator expression, in a default argument, in a class body and under
``if __name__ == "__main__"``. It is linted through every front-end (the engine, the CLI
in-process and as ``python -m tflint``, and flake8); the marker must never appear. A
control run executes the file for real to prove the marker mechanism works.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from tflint.config import Settings
from tflint.engine import lint_source

TEMPLATE = """\
open({marker!r}, "w").write("module level")

import tensorflow as tf


def touch(tag):
    open({marker!r}, "a").write(tag)
    return lambda f: f


@touch("decorator")
@tf.function
def step(x, scale=touch("default")):
    print(x)
    return x * 2


class Model(tf.keras.Model):
    touch("class body")

    def train_step(self, data):
        print(data)
        return {{}}


if __name__ == "__main__":
    touch("main")
"""


@pytest.fixture
def booby_trapped(project: Path) -> tuple[Path, Path]:
    """(the file to check, the marker it would write). The file sits in the CWD under an
    importable name, so an accidental ``import trap`` would find it."""
    marker = project / "EXECUTED"
    src = project / "trap.py"
    src.write_text(TEMPLATE.format(marker=str(marker)))
    return src, marker


def _assert_findings(codes: list[str]) -> None:
    # linting really happened: both print calls in traced code were seen
    assert codes.count("TFL101") == 2, codes


def test_the_marker_works(project: Path, booby_trapped: tuple[Path, Path]) -> None:
    """Control: running the file does write the marker (TensorFlow need not be installed,
    the first line runs before the import)."""
    src, marker = booby_trapped
    subprocess.run([sys.executable, str(src)], cwd=project, capture_output=True, timeout=120)
    assert marker.exists()


def test_engine_does_not_execute(booby_trapped: tuple[Path, Path]) -> None:
    src, marker = booby_trapped
    diags = lint_source(src.read_bytes(), str(src), Settings(select=["TFL"]))
    _assert_findings([d.code for d in diags])
    assert not marker.exists()


def test_cli_does_not_execute(booby_trapped: tuple[Path, Path], run: Callable[..., Any]) -> None:
    src, marker = booby_trapped
    for jobs in ("1", "2"):
        r = run("check", "-j", jobs, "--output-format", "json", str(src), str(src.parent))
        assert r.rc == 1, r.err
        _assert_findings([d["code"] for d in json.loads(r.out) if d["filename"] == str(src)])
        assert not marker.exists()


def test_cli_subprocess_does_not_execute(project: Path, booby_trapped: tuple[Path, Path]) -> None:
    src, marker = booby_trapped
    proc = subprocess.run(
        [sys.executable, "-m", "tflint", "check", "--output-format", "json", src.name, "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    _assert_findings([d["code"] for d in json.loads(proc.stdout)])
    assert not marker.exists()


def test_flake8_does_not_execute(project: Path, booby_trapped: tuple[Path, Path]) -> None:
    src, marker = booby_trapped
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "TFL", src.name],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    _assert_findings([line.split()[1] for line in proc.stdout.splitlines()])
    assert not marker.exists()
