"""In-process units that need TensorFlow: state snapshot/restore, example declarations,
input synthesis, retrace explanations."""

from __future__ import annotations

from typing import Any

import pytest

tf = pytest.importorskip("tensorflow")

from tflint.verify import discover, replay  # noqa: E402
from tflint.verify.state import StateTracker, unwrap_function  # noqa: E402

history: list[Any] = []
settings: dict[str, Any] = {"n": 1}
stream = iter([1, 2, 3])
total = 0


class Obj:
    def __init__(self) -> None:
        self.count = 0
        self.items: list[int] = []


def touch(o: Obj) -> None:
    global total
    history.append(1)
    settings["n"] += 1
    next(stream)
    total += 5
    o.count += 1
    o.items.append(1)
    o.extra = True  # type: ignore[attr-defined]


def test_snapshot_restore_puts_python_state_back() -> None:
    o = Obj()
    tracker = StateTracker(None, touch, [("arg0", o)])
    labels = {s.label for s in tracker.slots}
    assert {"global history", "global settings", "global stream", "global total",
            "arg0.count", "arg0.items"} <= labels
    lst, it = history, stream
    snap = tracker.snapshot()
    touch(o)
    touch(o)
    tracker.restore(snap)
    assert history == [] and history is lst  # restored in place: identity kept
    assert settings == {"n": 1}
    assert next(stream) == 1 and stream is not it  # iterator rewound (a fresh copy)
    assert total == 0
    assert o.count == 0 and o.items == [] and not hasattr(o, "extra")


def test_variables_of_self_are_restored() -> None:
    class M(tf.Module):
        def __init__(self) -> None:
            self.v = tf.Variable(1.0)
            self.flag = 0

        @tf.function
        def __call__(self) -> Any:
            return self.v.read_value()

    m = M()
    inst, py = unwrap_function(m.__call__)
    assert inst is m and py.__name__ == "__call__"
    tracker = StateTracker(inst, py, [])
    assert list(tracker.variables) == ["self.v"]
    snap = tracker.snapshot()
    m.v.assign(5.0)
    m.flag = 3
    tracker.restore(snap)
    assert float(m.v) == 1.0 and m.flag == 0


def test_example_declaration_forms() -> None:
    x = tf.constant(1.0)
    exs = discover.normalize_examples(
        [(x,), ((x,), {"training": True}), {"args": (x,), "kwargs": {"k": 2}},
         lambda: (x, 3)], "f")
    got = [e.make() for e in exs]
    assert got[0] == ((x,), {})
    assert got[1] == ((x,), {"training": True})
    assert got[2] == ((x,), {"k": 2})
    assert got[3] == ((x, 3), {}) and exs[3].static is False


def test_synthesize_from_input_signature() -> None:
    sig = [tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int64),
           tf.TensorSpec([2], tf.bool), tf.TensorSpec([None], tf.string)]
    assert discover._has_unknown_dims(sig)
    a = discover.synthesize(sig, 2)
    b = discover.synthesize(sig, 3)
    assert a[0].shape == (2, 3) and b[0].shape == (3, 3)
    assert a[1].dtype == tf.int64 and a[2].dtype == tf.bool and a[3].shape == (2,)


def test_retrace_explanation_names_the_argument() -> None:
    def f(x: Any, step: Any) -> Any:
        return x

    s1 = replay._signature(f, None, (tf.constant([1.0]), 1), {})
    s2 = replay._signature(f, None, (tf.constant([1.0]), 2), {})
    s3 = replay._signature(f, None, (tf.constant([1.0, 2.0]), 1), {})
    arg, change, fix = replay.explain_retrace([s1], s2)
    assert arg == "step" and "Python value 1 -> 2" in change and "tf.constant" in fix
    arg, change, fix = replay.explain_retrace([s1, s2], s3)
    assert arg == "x" and change.startswith("shape") and "reduce_retracing" in fix


def test_observe_counts_traces_and_detects_divergence() -> None:
    log: list[int] = []

    @tf.function
    def f(x: Any) -> Any:
        log.append(1)
        return x + len(log)

    inst, py = unwrap_function(f)
    cand = replay.Candidate("f", lambda: f._clone(None), inst, py,
                            examples=[replay.Example("e", lambda: ((tf.constant(1),), {}))])
    rec = replay.observe(cand, calls=3, devices=["/device:CPU:0"])
    from tflint.verify.compare import build_result

    r = build_result(rec)
    assert r.status == "divergent" and r.traces.count == 1
    assert log == []  # the closure list was restored after the replay
