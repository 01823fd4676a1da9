"""End to end: ``tflint verify`` on the bundled examples, against real TensorFlow.

One CLI run (shared by every test here) verifies all example modules on two logical CPU
devices, so the multi-device path runs on a machine without a GPU.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tflint.verify.cli import main

pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def run(examples_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("verify-examples")
    files = sorted(str(p) for p in examples_dir.glob("*.py"))
    before = sorted(p.name for p in examples_dir.iterdir())
    rc = main(files + ["--logical-cpus", "2", "-j", "2", "-q",
                       "--report-json", str(out / "r.json"), "--junit-xml", str(out / "r.xml")])
    after = sorted(p.name for p in examples_dir.iterdir())
    report = json.loads((out / "r.json").read_text())
    return {"rc": rc, "report": report, "by_name": {r["name"]: r for r in report},
            "xml": ET.parse(out / "r.xml"), "before": before, "after": after}


def first(run: dict[str, Any], name: str) -> dict[str, Any]:
    r = run["by_name"][name]
    assert r["status"] == "divergent", r
    return r["divergences"][0]


def test_exit_code_is_1_because_examples_diverge(run: dict[str, Any]) -> None:
    assert run["rc"] == 1


def test_report_has_the_required_fields(run: dict[str, Any]) -> None:
    for r in run["report"]:
        assert {"name", "file", "line", "status", "divergences", "traces"} <= set(r)
        assert r["status"] in ("ok", "divergent", "nondeterministic", "skipped", "error",
                               "timeout")
        assert not Path(r["file"]).is_absolute()


def test_print_side_effect(run: dict[str, Any]) -> None:
    d = first(run, "noisy_loss")
    assert (d["kind"], d["call"]) == ("output", 2)
    assert d["eager"].startswith("1 line") and d["graph"].startswith("0 line")


def test_numpy_and_python_random(run: dict[str, Any]) -> None:
    d = first(run, "jitter")
    assert (d["kind"], d["call"]) == ("return", 2)


def test_outer_list_mutation_leaks_a_graph_tensor(run: dict[str, Any]) -> None:
    r = run["by_name"]["record"]
    kinds = {(d["kind"], d["path"]) for d in r["divergences"]}
    assert ("leak", "state global history[0]") in kinds
    assert ("state", "state global history") in kinds
    assert ("return", "return") in kinds


def test_global_rebinding(run: dict[str, Any]) -> None:
    r = run["by_name"]["count_calls"]
    assert {"return", "state"} <= {d["kind"] for d in r["divergences"]}


def test_attribute_guard_on_tf_module(run: dict[str, Any]) -> None:
    r = run["by_name"]["accumulator.__call__"]
    d = r["divergences"][0]
    assert (d["kind"], d["call"]) == ("return", 2)
    assert "1" in d["eager"] and "2" in d["graph"]  # [1, 1, 1] eager vs [1, 2, 3] graph
    assert any(x["path"] == "variable self.total" for x in r["divergences"])


def test_python_iterator(run: dict[str, Any]) -> None:
    r = run["by_name"]["next_scale"]
    paths = {d["path"]: d for d in r["divergences"]}
    assert "position 2" in paths["state global schedule"]["eager"]
    assert "position 1" in paths["state global schedule"]["graph"]


def test_stale_global_with_callable_example(run: dict[str, Any]) -> None:
    d = first(run, "scaled_update")
    assert (d["kind"], d["call"]) == ("return", 2)


def test_tf_data_map_with_numpy_random_needs_debug_mode(run: dict[str, Any]) -> None:
    r = run["by_name"]["jittered_batch"]
    assert r["status"] == "divergent"
    assert any("enable_debug_mode" in h for h in r["hints"])
    assert run["by_name"]["doubled_batch"]["status"] == "ok"


def test_keras_train_step(run: dict[str, Any]) -> None:
    assert run["by_name"]["model.train_step"]["status"] == "ok"
    r = run["by_name"]["warmup_model.train_step"]
    assert r["status"] == "divergent"
    assert {d["kind"] for d in r["divergences"]} >= {"variable", "return"}


def test_clean_functions_pass_on_every_device(run: dict[str, Any]) -> None:
    for name in ("loss", "count_steps", "running_mean.update", "powers", "noise", "scale_by"):
        r = run["by_name"][name]
        assert r["status"] == "ok", r
        assert len(r["devices"]) == 2


def test_input_signature_with_unknown_dims_gives_two_sizes(run: dict[str, Any]) -> None:
    r = run["by_name"]["running_mean.update"]
    assert r["inputs"] == "input_signature" and r["examples"] == 4
    assert {t.split()[0] for t in r["tried"]} == {"float32[2]", "float32[3]"}
    assert r["traces"]["count"] == 1  # the signature covers both sizes


def test_retraces_are_explained(run: dict[str, Any]) -> None:
    tr = run["by_name"]["scale_by"]["traces"]
    assert tr["count"] == 4
    changes = [(x["argument"], x["changes"][0]["change"].split()[0]) for x in tr["retraces"]]
    assert changes == [("factor", "Python"), ("x", "dtype"), ("x", "shape")]
    assert tr["retraces"][1]["change"] == "x: dtype float32 -> int32"
    assert "tf.constant" in tr["retraces"][0]["fix"]
    assert "reduce_retracing" in tr["retraces"][2]["fix"]


def test_static_rule_is_named_when_check_flags_the_function(run: dict[str, Any]) -> None:
    pytest.importorskip("tflint.engine")
    assert "TFL101" in run["by_name"]["noisy_loss"]["static_rules"]
    assert "TFL107" in run["by_name"]["accumulator.__call__"]["static_rules"]


def test_junit_xml(run: dict[str, Any]) -> None:
    suite = run["xml"].getroot().find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["record"].find("failure") is not None
    assert cases["loss"].find("failure") is None
    assert int(suite.get("failures", "0")) == sum(
        1 for r in run["report"] if r["status"] == "divergent")


def test_nothing_written_into_the_user_tree(run: dict[str, Any]) -> None:
    assert run["before"] == run["after"]
