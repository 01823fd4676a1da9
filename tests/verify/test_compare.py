"""Comparison logic on hand-made observations (no TensorFlow needed)."""

from __future__ import annotations

from typing import Any

from tflint.verify.compare import Tolerances, build_result, diffs


def t(values: list[Any], dtype: str = "float32", shape: list[int] | None = None) -> dict:
    return {"t": "tensor", "dtype": dtype, "shape": shape if shape is not None else
            [len(values)], "v": values}


def call(ret: dict | None = None, **kw: Any) -> dict:
    out = {"ret": ret, "exc": None, "vars": {}, "state": {}, "stdout": 0, "logs": 0}
    out.update(kw)
    return out


def record(graph: list, eager: list, graph2: list | None = None, eager2: list | None = None,
           devices: dict[str, list] | None = None) -> dict:
    modes: dict[str, dict[str, list]] = {
        "graph": {"CPU:0": graph}, "graph2": {"CPU:0": graph2 if graph2 is not None else graph},
        "eager": {"CPU:0": eager},
        "eager_reseed": {"CPU:0": eager2 if eager2 is not None else eager},
    }
    devs = ["CPU:0"]
    for dev, calls in (devices or {}).items():
        devs.append(dev)
        modes["graph"][dev] = calls
        modes["graph2"][dev] = calls
        modes["eager"][dev] = calls
        modes["eager_reseed"][dev] = calls
    return {"name": "f", "file": "m.py", "line": 3, "end_line": 9, "calls": len(graph),
            "devices": devs, "examples": [{"label": "e", "modes": modes}]}


def test_same_values_are_ok() -> None:
    same = [call(t([1.0, 2.0])) for _ in range(3)]
    r = build_result(record(same, same))
    assert r.status == "ok" and r.divergences == []


def test_float_tolerance_by_dtype() -> None:
    tol = Tolerances()
    assert not list(diffs(t([1.0]), t([1.0 + 1e-7]), tol))
    assert list(diffs(t([1.0]), t([1.001]), tol))
    # ints are exact
    assert list(diffs(t([1], "int32"), t([2], "int32"), tol))
    # float16 is looser than float32
    assert not list(diffs(t([1.0], "float16"), t([1.0005], "float16"), tol))
    assert list(diffs(t([1.0], "float32"), t([1.0005], "float32"), tol))


def test_structure_dtype_shape_are_compared() -> None:
    tol = Tolerances()
    assert "dtype" in next(diffs(t([1.0]), t([1.0], "float64"), tol))[1]
    assert "shape" in next(diffs(t([1.0, 2.0], shape=[2]), t([1.0, 2.0], shape=[1, 2]), tol))[1]
    a = {"t": "list", "len": 1, "items": [t([1.0])]}
    b = {"t": "list", "len": 2, "items": [t([1.0]), t([1.0])]}
    assert "length" in next(diffs(a, b, tol))[1]


def test_first_differing_call_is_reported_with_both_values() -> None:
    graph = [call(t([1.0])) for _ in range(3)]
    eager = [call(t([1.0])), call(t([2.0])), call(t([3.0]))]
    r = build_result(record(graph, eager))
    assert r.status == "divergent"
    d = r.divergences[0]
    assert (d.kind, d.call, d.path) == ("return", 2, "return")
    assert "2" in d.eager and "1" in d.graph


def test_graph_vs_itself_difference_is_nondeterministic_not_divergent() -> None:
    graph = [call(t([0.1])), call(t([0.2])), call(t([0.3]))]
    graph2 = [call(t([0.7])), call(t([0.8])), call(t([0.9]))]
    eager = [call(t([0.4])), call(t([0.5])), call(t([0.6]))]
    r = build_result(record(graph, eager, graph2=graph2))
    assert r.status == "nondeterministic"
    assert r.nondeterministic == ["return (element 0)"]


def test_outputs_that_follow_the_tf_seed_are_excluded_but_not_nondeterministic() -> None:
    graph = [call(t([0.1])), call(t([0.2])), call(t([0.3]))]
    eager = [call(t([0.4])), call(t([0.5])), call(t([0.6]))]
    reseeded = [call(t([0.9])), call(t([0.8])), call(t([0.7]))]
    rec = record(graph, eager)
    rec["examples"][0]["modes"]["eager_reseed"]["CPU:0"] = reseeded
    r = build_result(rec)
    assert r.status == "ok" and r.nondeterministic == []
    assert r.random_by_design == ["return (element 0)"]


def test_nondeterminism_is_excluded_per_element_not_per_output() -> None:
    # element 0 follows the TensorFlow seed; element 1 is frozen in the graph
    graph = [call(t([0.1, 5.0])), call(t([0.2, 5.0])), call(t([0.3, 5.0]))]
    eager = [call(t([0.4, 5.0])), call(t([0.5, 6.0])), call(t([0.6, 7.0]))]
    reseeded = [call(t([0.9, 5.0])), call(t([0.8, 6.0])), call(t([0.7, 7.0]))]
    rec = record(graph, eager)
    rec["examples"][0]["modes"]["eager_reseed"]["CPU:0"] = reseeded
    r = build_result(rec)
    assert r.status == "divergent"
    d = r.divergences[0]
    assert (d.path, d.call) == ("return", 2) and "flat index 1" in d.detail
    # every call's values are shown, eager and graph side by side
    assert [c["differs"] for c in d.calls] == [False, True, True]
    assert "7" in d.calls[2]["eager"] and "5" in d.calls[2]["graph"]


def test_only_two_eager_runs_that_differ_make_a_nondeterministic_label() -> None:
    same = [call(t([1.0])) for _ in range(3)]
    eager2 = [call(t([1.0])), call(t([2.0])), call(t([1.0]))]
    rec = record(same, same)
    rec["examples"][0]["modes"]["eager2"] = {"CPU:0": eager2}
    r = build_result(rec)
    assert r.status == "nondeterministic" and r.nondeterministic == ["return (element 0)"]


def test_synthesized_inputs_the_function_rejects_are_left_out() -> None:
    bad = [call(None, exc={"type": "InvalidArgumentError", "msg": "shape"}) for _ in range(3)]
    good = [call(t([1.0])) for _ in range(3)]
    rec = record(good, good)
    rec["examples"].append({"label": "x=float32[3] negative", "synthesized": True,
                            "modes": {"graph": {"CPU:0": bad}, "eager": {"CPU:0": bad}}})
    r = build_result(rec)
    assert r.status == "ok" and any("left out" in h for h in r.hints)
    rec["examples"] = rec["examples"][1:]
    r = build_result(rec)
    assert r.status == "skipped" and "InvalidArgumentError" in r.reason


def test_device_tolerance_is_capped_per_dtype() -> None:
    tol = Tolerances()
    assert tol.loosened().get("bfloat16")[0] <= 0.05  # 100 x 1e-2 would check nothing
    assert tol.loosened().get("float16")[0] <= 0.01
    assert tol.loosened().get("float32")[0] > tol.get("float32")[0]
    ref = [call(t([1.0], "bfloat16")) for _ in range(3)]
    other = [call(t([1.5], "bfloat16")) for _ in range(3)]
    r = build_result(record(ref, ref, devices={"CPU:1": other}))
    assert r.status == "divergent" and r.divergences[0].kind == "device"


def test_exception_in_one_mode_only() -> None:
    graph = [call(t([1.0])) for _ in range(3)]
    eager = [call(None, exc={"type": "InvalidArgumentError", "msg": "index 5 out of range"})
             for _ in range(3)]
    r = build_result(record(graph, eager))
    assert r.divergences[0].kind == "exception"
    assert "InvalidArgumentError" in r.divergences[0].eager


def test_raising_in_both_modes_is_an_error_not_a_divergence() -> None:
    bad = [call(None, exc={"type": "ValueError", "msg": "boom"}) for _ in range(3)]
    r = build_result(record(bad, bad))
    assert r.status == "error" and "ValueError: boom" in r.reason


def test_leaked_symbolic_tensor_in_state() -> None:
    leaked = {"t": "list", "len": 1, "items": [{"t": "symbolic", "repr": "<tf.Tensor 'mul:0'>"}]}
    fine = {"t": "list", "len": 1, "items": [t([2.0], shape=[])]}
    graph = [call(t([1.0]), state={"global history": leaked}) for _ in range(3)]
    eager = [call(t([1.0]), state={"global history": fine}) for _ in range(3)]
    r = build_result(record(graph, eager))
    assert [d.kind for d in r.divergences] == ["leak"]
    assert r.divergences[0].path == "state global history[0]"


def test_printed_lines_and_logs() -> None:
    graph = [call(t([1.0]), stdout=1 if i == 0 else 0) for i in range(3)]
    eager = [call(t([1.0]), stdout=1, stdout_first="loss 1") for _ in range(3)]
    r = build_result(record(graph, eager))
    d = r.divergences[0]
    assert (d.kind, d.call) == ("output", 2)
    assert "loss 1" in d.eager


def test_devices_are_compared_with_each_other() -> None:
    base = [call(t([1.0])) for _ in range(3)]
    r = build_result(record(base, base, devices={"CPU:1": [call(t([1.5])) for _ in range(3)]}))
    assert r.status == "divergent"
    d = r.divergences[0]
    assert d.kind == "device" and (d.device, d.other_device) == ("CPU:0", "CPU:1")
    # tiny differences between devices are within the looser device tolerance
    r = build_result(record(base, base,
                            devices={"CPU:1": [call(t([1.0 + 1e-5])) for _ in range(3)]}))
    assert r.status == "ok"


def test_skipped_and_crashed_records_keep_their_status() -> None:
    r = build_result({"name": "g", "status": "skipped", "reason": "no inputs"})
    assert r.status == "skipped" and r.reason == "no inputs"
    r = build_result({"name": "g", "status": "timeout", "reason": "killed"})
    assert r.status == "timeout"


def test_summary_names_a_whole_target_once_and_counts_it_apart() -> None:
    from tflint.verify.model import FunctionResult
    from tflint.verify.report import format_summary

    results = [
        FunctionResult(name="pkg/mod.py", file="pkg/mod.py", line=0, status="error", target="pkg/mod.py",
                       reason="ImportError: no module named foo"),
        FunctionResult(name="step", file="pkg/other.py", line=7, status="ok", target="pkg/other.py",
                       examples=1, calls=3, devices=["CPU:0"]),
    ]
    lines = format_summary(results).splitlines()
    assert lines[0] == "pkg/mod.py: ERROR: ImportError: no module named foo"
    assert lines[1].startswith("pkg/other.py:7: step: OK")
    assert lines[-1] == "tflint verify: 1 function(s) and 1 whole target(s): 1 ok, 1 error"
