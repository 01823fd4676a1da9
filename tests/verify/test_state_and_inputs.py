"""In-process units that need TensorFlow: state snapshot/restore, example declarations,
input synthesis, retrace explanations."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import pytest

tf = pytest.importorskip("tensorflow")

from tflint.verify import discover, replay, retrace, synth  # noqa: E402
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
    exs = synth.from_signature(sig)
    shapes = [args[0].shape for _label, args in exs]
    assert shapes == [(2, 3), (3, 3), (2, 3), (3, 3)]  # two sizes for the unknown dim
    floats = [args[0].numpy() for _label, args in exs]
    assert (floats[0] > 0).all() and (floats[1] < 0).all()
    assert (floats[2] < 0).any() and (floats[2] > 0).any() and (floats[3] == 0).all()
    assert all(args[1].numpy() != 0 for _l, args in exs[:3])  # ints that are not zero
    scalar_bool = synth.from_signature([tf.TensorSpec([], tf.bool)])
    # both values; the value profiles say nothing more about a bool: no duplicates
    assert [bool(a[0].numpy()) for _l, a in scalar_bool] == [True, False]
    assert "positive" in exs[0][0] and "float32[2x3]" in exs[0][0]


def test_synthesize_from_annotations_defaults_and_code() -> None:
    def f(x, n: int, scale: float = 1.0, training=False, mode="sum",
          noise: Optional[float] = None):
        if mode == "noisy" and n > 7:
            return x
        return x

    exs = synth.from_parameters(f, bound=False)
    calls = [(args, kwargs) for _label, args, kwargs in exs]
    assert len(exs) <= synth.MAX_EXAMPLES
    ns = [args[1] for args, _kw in calls]
    assert ns[0] == 3  # a non-zero int first
    kw = [k for _a, k in calls]
    assert {"training": True} in kw  # the non-default keyword
    assert any(k.get("mode") == "noisy" for k in kw)  # the string the code compares with
    assert all(isinstance(a[0], tf.Tensor) for a, _k in calls)
    every = synth.from_parameters(lambda x, n=0: x, bound=False)
    assert len({str(k) for _l, _a, k in every}) > 1
    many = synth.parameters(f, bound=False)
    assert [p.kind for p in many] == ["tensor", "int", "float", "bool", "str", "float"]


def test_retrace_explanation_names_every_changed_argument() -> None:
    def f(x: Any, step: Any, cfg: Any = None) -> Any:
        return x

    @dataclasses.dataclass
    class Params:
        lr: float
        decay: float

    s1 = retrace.signature(f, None, (tf.constant([1.0]), 1), {"cfg": {"lr": 0.1, "n": 2}})
    s2 = retrace.signature(f, None, (tf.constant([1.0]), 2), {"cfg": {"lr": 0.2, "n": 2}})
    _i, changes = retrace.explain([s1], s2)
    got = {c.path: c.change for c in changes}
    assert got == {"step": "Python int value 1 -> 2", "cfg['lr']": "Python float value 0.1 -> 0.2"}
    assert all("tf.constant" in c.fix for c in changes)
    s3 = retrace.signature(f, None, (tf.constant([1.0, 2.0]), 1), {"cfg": {"lr": 0.1, "n": 2}})
    i, changes = retrace.explain([s2, s1], s3)
    assert i == 1 and [c.path for c in changes] == ["x"]  # the closest earlier trace
    assert changes[0].change.startswith("shape") and "reduce_retracing=True" in changes[0].fix
    _i, changes = retrace.explain([s1], s3, reduce_retracing=True)
    assert "already on" in changes[0].fix
    p1 = retrace.signature(f, None, (tf.constant(1.0), tf.constant(1)), {"cfg": Params(0.1, 1)})
    p2 = retrace.signature(f, None, (tf.constant(1.0), 1), {"cfg": Params(0.1, 2)})
    _i, changes = retrace.explain([p1], p2)
    got = {c.path: c.change for c in changes}
    assert got["cfg.decay"] == "Python int value 1 -> 2"
    assert "tf.Tensor(int32" in got["step"] and "Python int" in got["step"]
    assert retrace.suggest_signature([s1, s3]) is None  # Python values: no signature helps
    t1 = retrace.signature(lambda x: x, None, (tf.zeros([2, 3]),), {})
    t2 = retrace.signature(lambda x: x, None, (tf.zeros([4, 3]),), {})
    assert retrace.suggest_signature([t1, t2]) == \
        "input_signature=[tf.TensorSpec([None, 3], tf.float32)]"


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
