"""The static check stays linear in the size of a file (benchmarks/scaling.py times the
full series; here the work is counted, which a loaded machine cannot blur): four times
the traced functions, elif branches or call sites cost about four times the Python
function calls, not sixteen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tflint import engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import scaling  # noqa: E402

#: a linear analysis gives about 4 (a little less: the fixed cost of a file); before
#: the analysis was made linear these sizes gave 5.3 (functions), 14.9 (branches) and
#: 8.3 (calls)
MAX_RATIO = 5.0


def _calls_to_lint(source: str) -> int:
    """Python-level function calls made while linting ``source`` (deterministic)."""
    count = 0

    def profiler(frame, event, arg):  # noqa: ANN001
        nonlocal count
        if event == "call":
            count += 1

    def run() -> None:
        sys.setprofile(profiler)
        try:
            diags = engine.lint_source(source, "scaling.py")
        finally:
            sys.setprofile(None)
        assert not [d for d in diags if d.code in ("TFL001", "TFL002")], diags[:1]

    engine._on_big_stack(run)
    return count


@pytest.mark.parametrize("series, small", [("functions", 100), ("branches", 40), ("calls", 400)])
def test_four_times_the_input_is_about_four_times_the_work(series: str, small: int) -> None:
    make = scaling.SERIES[series][0]
    small_calls = _calls_to_lint(make(small))
    big_calls = _calls_to_lint(make(4 * small))
    assert big_calls / small_calls <= MAX_RATIO, (series, small_calls, big_calls)
