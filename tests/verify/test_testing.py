"""Retrace budgets: ``tflint.testing.max_traces`` and ``@pytest.mark.tflint_max_traces``."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

tf = pytest.importorskip("tensorflow")

from tflint.testing import TraceBudgetExceeded, max_traces  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Params:
    lr: float
    decay: float


@tf.function
def scale(x: Any, factor: Any, cfg: Any = None) -> Any:
    return x * factor


def test_within_budget_passes_and_counts_only_traces_inside() -> None:
    scale(tf.constant([1.0]), 2.0)  # traced before: does not count
    with max_traces(scale, limit=1) as log:
        for _ in range(3):
            scale(tf.constant([5.0]), 7.0)
    assert len(log.traces(scale)) == 1


def test_every_changed_argument_is_explained_against_the_closest_trace() -> None:
    with pytest.raises(TraceBudgetExceeded) as err:
        with max_traces(scale=1):
            scale(tf.constant([1.0]), 2, cfg={"lr": 0.1})
            scale(tf.constant([1.0, 2.0]), 2, cfg={"lr": 0.1})
            scale(tf.constant([1.0]), 3, cfg={"lr": 0.2})
            scale(tf.constant([1.0]), tf.constant(3.0), cfg=Params(0.1, 0.5))
    msg = str(err.value)
    assert "`scale` traced 4 times (budget 1)" in msg
    assert "trace 2, against trace 1:\n    x: shape (1,) -> (2,)" in msg
    # trace 3 is closest to trace 1 (x and the rest as before): two changes, both named
    assert "trace 3, against trace 1:" in msg
    assert "factor: Python int value 2 -> 3" in msg and "cfg['lr']: Python float value" in msg
    assert "trace 4, against trace 1:\n    factor: Python int 2 -> tf.Tensor(float32, shape=[])" \
        in msg
    assert "cfg: dict with keys 'lr' -> Params(...)" in msg
    assert "reduce_retracing=True" in msg and "tf.constant" in msg


def test_reduce_retracing_already_on_and_the_signature_that_stops_it() -> None:
    @tf.function(reduce_retracing=True)
    def f(x: Any) -> Any:
        return x + 1

    with pytest.raises(TraceBudgetExceeded) as err:
        with max_traces(f, limit=1):
            f(tf.zeros([2, 3]))
            f(tf.zeros([4, 3], tf.int32))
    msg = str(err.value)
    assert "dtype float32 -> int32" in msg
    with pytest.raises(TraceBudgetExceeded) as err:
        with max_traces(f, limit=1):
            f(tf.zeros([2, 5]))
            f(tf.zeros([4, 5]))
    msg = str(err.value)
    assert "already on" in msg
    assert "input_signature=[tf.TensorSpec([None, 5], tf.float32)]" in msg


def test_a_new_object_is_named() -> None:
    class Box:
        pass

    @tf.function
    def g(x: Any, box: Any) -> Any:
        return x

    with pytest.raises(TraceBudgetExceeded, match=r"box: a new .*Box object"):
        with max_traces(limit=1):
            g(tf.constant(1.0), Box())
            g(tf.constant(1.0), Box())


def test_failing_block_is_not_masked() -> None:
    with pytest.raises(ZeroDivisionError):
        with max_traces(scale, limit=1):
            scale(tf.constant([1.0]), 11)
            scale(tf.constant([1.0]), 12)
            1 / 0


def test_bad_budget_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="budget"):
        max_traces(step=0)


def test_pytest_marker(tmp_path: Path) -> None:
    (tmp_path / "test_budget.py").write_text(textwrap.dedent("""
        import pytest
        import tensorflow as tf

        @tf.function
        def step(x, n):
            return x * n

        @pytest.mark.tflint_max_traces(step=1)
        def test_retraces():
            for n in (1, 2):
                step(tf.constant(1.0), n)

        @pytest.mark.tflint_max_traces(step=2)
        def test_within():
            for n in (1, 2, 2):
                step(tf.constant(1.0), n)

        def test_unmarked():
            for n in (1, 2, 3):
                step(tf.constant(1.0), n)
    """))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "1 failed, 2 passed" in out
    assert "TraceBudgetExceeded" in out and "n: Python int value 1 -> 2" in out
