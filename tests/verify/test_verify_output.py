"""What the verifier prints: hints chosen by the reason of a difference, static findings in
called helpers, every call's values, the inputs tried, NOT PROVEN (no TensorFlow needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tflint.verify import explain, report
from tflint.verify.model import Divergence, FunctionResult


def _result(*divs: Divergence, **kw: object) -> FunctionResult:
    base = dict(name="f", file="", line=0, status="divergent", devices=["CPU:0"],
                tried=["x=float32[2] positive, n=3"], examples=1, calls=3)
    base.update(kw)
    return FunctionResult(divergences=list(divs), **base)  # type: ignore[arg-type]


def test_hints_follow_the_reason_not_the_function() -> None:
    dtype = Divergence("return", "return", 1, 1, "a", "b", "dtype differs (int32 vs float32)")
    assert "dtype" in explain.annotate(_result(dtype)).hints[0]
    shape = Divergence("return", "return", 1, 1, "a", "b", "shape differs ((2,) vs (3,))")
    assert "tf.shape" in explain.annotate(_result(shape)).hints[0]
    graph_only = Divergence("exception", "exception", 1, 1, "no exception",
                            "TypeError: bool of a tensor", "raised in one mode only")
    assert "only as a graph" in explain.annotate(_result(graph_only)).hints[0]
    eager_only = Divergence("exception", "exception", 1, 1, "InvalidArgumentError: index",
                            "no exception", "raised in one mode only")
    assert "prunes" in explain.annotate(_result(eager_only)).hints[0]
    frozen = Divergence("return", "return", 1, 2, "1", "2", "values differ")
    assert "frozen" in explain.annotate(_result(frozen)).hints[0]


def test_static_finding_in_a_helper_of_another_module(tmp_path: Path) -> None:
    pytest.importorskip("tflint.engine")
    helper = tmp_path / "helpers.py"
    helper.write_text("import numpy as np\nimport tensorflow as tf\n\n\n@tf.function\n"
                      "def jitter(x):\n    return x + np.random.uniform()\n")
    r = _result(Divergence("return", "return", 1, 2, "1", "2", "values differ"),
                related=[{"name": "jitter", "file": str(helper), "line": 5, "end_line": 7}])
    r = explain.annotate(r)
    assert r.static_rules == ["TFL103 in jitter (helpers.py:5)"]
    text = report.format_summary([r])
    assert "flags TFL103 in jitter (helpers.py:5) here" in text


def test_every_call_and_the_inputs_are_shown() -> None:
    d = Divergence("return", "return", 1, 2, "2", "1", "values differ", calls=[
        {"call": 1, "eager": "1", "graph": "1", "differs": False},
        {"call": 2, "eager": "2", "graph": "1", "differs": True},
        {"call": 3, "eager": "3", "graph": "1", "differs": True}])
    text = report.format_summary([_result(d)])
    assert "inputs: x=float32[2] positive, n=3" in text
    assert "      call 1  eager: 1" in text and "    * call 3  eager: 3" in text


def test_flagged_but_not_proven(tmp_path: Path) -> None:
    pytest.importorskip("tflint.engine")
    mod = tmp_path / "m.py"
    mod.write_text("import numpy as np\nimport tensorflow as tf\n\n\n@tf.function\n"
                   "def f(x):\n    return x + np.random.uniform()\n")
    r = explain.annotate(_result(status="ok", file=str(mod), line=5, end_line=7))
    assert r.not_proven and r.static_rules == ["TFL103"]
    text = report.format_summary([r])
    assert "OK, NOT PROVEN: `tflint check` flags TFL103" in text
    assert "tried: x=float32[2] positive, n=3" in text
    assert "1 flagged by `tflint check` but not proven" in text
