"""The verifier's goal set: tests/verify/cases/ holds functions that diverge only on
non-degenerate inputs, keyword paths, bool branches, iterator- or random-fed examples, Keras
steps and tf.data built in a helper (``bug_*``), and correct ones, some random by design
(``ok_*``). The measurement is benchmarks/verify_cases.py; this test holds its goals."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tensorflow")

REPO = Path(__file__).resolve().parents[2]


def _load_benchmark() -> Any:
    spec = importlib.util.spec_from_file_location("verify_cases", REPO / "benchmarks" /
                                                  "verify_cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["verify_cases"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured() -> Any:
    bench = _load_benchmark()
    figures, results = bench.measure(jobs=2)
    print("\n".join(figures.lines()))
    return figures, {r.name: r for r in results}


def test_the_case_set_is_big_enough(measured: Any) -> None:
    figures, _ = measured
    assert len(figures.bugs) >= 20 and len(figures.correct) >= 20


def test_at_least_90_percent_of_divergent_cases_are_proven(measured: Any) -> None:
    figures, _ = measured
    assert len(figures.proven) >= 0.9 * len(figures.bugs), figures.lines()


def test_no_false_alarm_and_no_wrong_nondeterministic_label(measured: Any) -> None:
    figures, _ = measured
    assert figures.false_alarms == [] and figures.wrong_nondeterministic == []
    assert figures.unjudged == []


def test_proofs_name_the_inputs_that_expose_them(measured: Any) -> None:
    _, by_name = measured
    r = by_name["bug_false_branch"]
    d = r.divergences[0]
    assert "bool[] False" in r.tried[d.example - 1]
    r = by_name["bug_training_path"]
    assert "training=True" in r.tried[r.divergences[0].example - 1]
    r = by_name["bug_threshold"]
    assert "steps=4" in r.tried[r.divergences[0].example - 1]  # from `steps > 3`


def test_random_by_design_elements_are_excluded_not_labelled(measured: Any) -> None:
    _, by_name = measured
    r = by_name["bug_partly_random"]
    assert "flat index 1" in r.divergences[0].detail
    assert by_name["ok_partly_random"].status == "ok"


def test_keras_models_get_a_synthesized_batch(measured: Any) -> None:
    _, by_name = measured
    r = by_name["ok_plain.train_step"]
    assert r.inputs.startswith("synthesized") and "x=float32[2x3]" in r.tried[0]
