"""User code that raises, hangs, exhausts memory or kills the interpreter costs one target,
not the run. One CLI run over several misbehaving modules, shared by the tests."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from tflint.verify.cli import main

pytest.importorskip("tensorflow")

MODULES = {
    "raises_at_import.py": "raise RuntimeError('broken on purpose')\n",
    "hangs.py": """
        import time
        import tensorflow as tf

        @tf.function
        def stuck():
            time.sleep(3600)
            return tf.constant(1)

        @tf.function
        def after_stuck():
            return tf.constant(3)
    """,
    "exits.py": """
        import os
        import tensorflow as tf

        @tf.function
        def bye():
            os._exit(7)

        @tf.function
        def fine():
            return tf.constant(2)
    """,
    "segfaults.py": """
        import ctypes
        import tensorflow as tf

        @tf.function
        def crash():
            ctypes.string_at(0)
    """,
    "hogs_memory.py": """
        import tensorflow as tf

        @tf.function
        def hog():
            blob = bytearray(64 * 1024 ** 3)
            return tf.constant(len(blob))
    """,
    "crashes.py": "import os\nimport tensorflow as tf\n" + "".join(
        f"\n@tf.function\ndef f{i}():\n    os._exit(3)\n" for i in range(5))
    + "\n@tf.function\ndef last():\n    return tf.constant(1)\n",
    "needs_inputs.py": """
        import tensorflow as tf

        class Config:
            pass

        @tf.function
        def add(x, y):
            return x + y

        @tf.function
        def configured(x, cfg: Config):
            return x

        class Holder(tf.Module):
            @tf.function
            def method(self):
                return tf.constant(1)
    """,
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("bad-modules")
    for name, src in MODULES.items():
        (d / name).write_text(textwrap.dedent(src))
    report = d.parent / "bad-report.json"
    rc = main([str(d / n) for n in MODULES] + [
        "--timeout", "40", "--memory-limit", "8192", "-j", "2", "-q",
        "--report-json", str(report)])
    data = json.loads(report.read_text())
    return {"rc": rc, "by_name": {r["name"]: r for r in data}, "dir": d}


def test_run_goes_on_and_fails(results: dict[str, Any]) -> None:
    assert results["rc"] == 1


def test_import_error_is_reported_for_the_target(results: dict[str, Any]) -> None:
    r = next(v for k, v in results["by_name"].items() if k.endswith("raises_at_import.py"))
    assert r["status"] == "error"
    assert "RuntimeError: broken on purpose" in r["reason"]


def test_hang_is_a_timeout_of_that_function_only(results: dict[str, Any]) -> None:
    r = results["by_name"]["stuck"]
    assert r["status"] == "timeout"
    assert results["by_name"]["after_stuck"]["status"] == "ok"


def test_os_exit_is_reported_and_the_module_resumes(results: dict[str, Any]) -> None:
    r = results["by_name"]["bye"]
    assert r["status"] == "error" and "status 7" in r["reason"]
    # the reason is not TensorFlow's start-up banner
    assert "oneDNN" not in r["reason"] and "cpu_feature_guard" not in r["reason"]
    assert results["by_name"]["fine"]["status"] == "ok"


def test_segfault_is_reported(results: dict[str, Any]) -> None:
    r = results["by_name"]["crash"]
    assert r["status"] == "error" and "SIGSEGV" in r["reason"]


def test_memory_exhaustion_is_reported(results: dict[str, Any]) -> None:
    r = results["by_name"]["hog"]
    assert r["status"] == "error"
    assert "MemoryError" in r["reason"] or "memory" in r["reason"]


def test_many_crashing_functions_are_all_reported(results: dict[str, Any]) -> None:
    # more crashes than there used to be restarts: none is dropped, the last one still runs
    assert [results["by_name"][f"f{i}"]["status"] for i in range(5)] == ["error"] * 5
    assert results["by_name"]["last"]["status"] == "ok"
