"""``pytest --tflint-verify`` and ``tflint verify TESTS_DIR``, in real pytest subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def tf_env() -> dict[str, str]:
    import os

    return dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")


SUITE = {
    "mylib.py": """
        import tensorflow as tf

        seen = []

        @tf.function
        def remember(x):
            seen.append(x)
            return x * 2

        @tf.function
        def double(x):
            return x * 2

        class Counter(tf.Module):
            def __init__(self):
                self.n = tf.Variable(0)

            @tf.function
            def bump(self, by):
                self.n.assign_add(by)
                return self.n.read_value()
    """,
    "test_mylib.py": """
        import tensorflow as tf
        import mylib

        def test_double():
            assert int(mylib.double(tf.constant(2))) == 4
            assert int(mylib.double(tf.constant(2))) == 4  # same input: recorded once
            assert int(mylib.double(tf.constant(3))) == 6

        def test_counter():
            c = mylib.Counter()
            assert int(c.bump(tf.constant(2))) == 2
            assert int(c.bump(tf.constant(2))) == 4  # same input, another state
    """,
    "more.py": """
        import random

        import keras
        import tensorflow as tf

        @tf.function
        def preprocess(x):  # only ever called by Dataset.map, i.e. while tracing
            return x + random.random()

        @tf.function
        def inner(x):  # only ever called from another tf.function
            return x * random.random()

        @tf.function
        def outer(x):
            return inner(x) + 1.0

        NOISY = tf.data.Dataset.range(3).map(lambda i: tf.cast(i, tf.float32)
                                             + random.random())

        @tf.function
        def noisy_total():
            total = tf.constant(0.0)
            for v in NOISY:
                total += v
            return total

        class Counting(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(1)
                self.steps_done = 0

            def call(self, x):
                return self.dense(x)

            def train_step(self, data):
                x, y = data
                self.steps_done += 1  # Python state: once per trace
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self(x) - y))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply(grads, self.trainable_variables)
                return {"loss": loss}
    """,
    "test_more.py": """
        import numpy as np
        import tensorflow as tf
        import more

        def test_map():
            ds = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 2])).map(more.preprocess)
            assert len(list(ds)) == 4

        def test_nested():
            assert more.outer(tf.ones([2])).shape == (2,)

        def test_data_helper():
            assert float(more.noisy_total()) > 0

        def test_fit():
            m = more.Counting()
            m.compile(optimizer="sgd", loss="mse")
            m.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), batch_size=4,
                  epochs=1, verbose=0)
    """,
    "test_failing.py": """
        def test_fails_on_its_own():
            assert 1 + 1 == 3
    """,
    "test_divergent.py": """
        import tensorflow as tf
        import mylib

        def test_remember():
            assert int(mylib.remember(tf.constant(1))) == 2
    """,
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("suite")
    for name, src in SUITE.items():
        (d / name).write_text(textwrap.dedent(src))
    return d


def _pytest(suite: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=suite, capture_output=True, text=True, env=tf_env(), timeout=300)


def test_plugin_is_inert_without_the_flag(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\ndef test_no_tf():\n    assert 'tensorflow' not in sys.modules\n")
    proc = _pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "tflint verify" not in proc.stdout


def test_clean_suite_passes(suite: Path) -> None:
    pytest.importorskip("tensorflow")
    report = suite / "clean.json"
    proc = _pytest(suite, "test_mylib.py", "--tflint-verify", "--tflint-verify-logical-cpus",
                   "2", "--tflint-verify-report-json", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tflint verify: eager vs graph" in proc.stdout
    data = {r["name"]: r for r in json.loads(report.read_text())}
    assert data["double"]["status"] == "ok"
    assert data["double"]["examples"] == 2  # two distinct inputs out of three calls
    assert data["double"]["devices"] == ["/device:CPU:0", "/device:CPU:1"]
    assert data["Counter.bump"]["status"] == "ok"
    assert data["Counter.bump"]["examples"] == 2  # deduplicated by inputs and state
    # the replay restored the counter's variable: the test's own value was not disturbed
    assert "remember" not in data


def test_divergence_fails_the_session(suite: Path) -> None:
    pytest.importorskip("tensorflow")
    report = suite / "all.json"
    proc = _pytest(suite, "--tflint-verify", "--tflint-verify-report-json", str(report))
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "1 failed, 7 passed" in out  # the tests themselves ran untouched
    assert "remember: DIVERGENT" in out
    assert "test_divergent.py::test_remember" in out
    assert "test(s) failed on their own: test_failing.py::test_fails_on_its_own" in out
    data = {r["name"]: r for r in json.loads(report.read_text())}
    # a tf.function traced only by Dataset.map, one called only by another tf.function
    assert data["preprocess"]["status"] == "divergent"
    assert data["inner"]["status"] == "divergent"
    assert data["outer"]["status"] == "divergent"
    # a Keras train_step that fit ran, replayed on fit's first batch
    r = data["Counting.train_step"]
    assert r["status"] == "divergent" and "first batch of train" in r["tried"][0]
    assert r["divergences"][0]["path"] == "state self.steps_done"
    # tf.data built at import: only the debug-mode pass shows it
    r = data["noisy_total"]
    assert r["status"] == "divergent"
    assert any("enable_debug_mode" in h for h in r["hints"])


def test_tflint_verify_on_a_tests_folder(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tensorflow")
    from tflint.verify.cli import main

    monkeypatch.chdir(suite)
    report = suite / "folder.json"
    rc = main([str(suite), "-q", "--report-json", str(report)])
    assert rc == 1
    data = {r["name"]: r for r in json.loads(report.read_text())}
    assert data["remember"]["status"] == "divergent"
    assert data["double"]["status"] == "ok"
    # the same verdicts as pytest --tflint-verify
    same = json.loads((suite / "all.json").read_text())
    assert {r["name"]: r["status"] for r in same} == {
        n: r["status"] for n, r in data.items() if n != str(suite)}
    # and the failing test is not hidden by the divergences
    failed = data[str(suite)]
    assert failed["status"] == "error" and "test_fails_on_its_own" in failed["reason"]


def test_a_device_that_does_not_exist_is_a_usage_error(suite: Path) -> None:
    pytest.importorskip("tensorflow")
    proc = _pytest(suite, "test_divergent.py", "--tflint-verify",
                   "--tflint-verify-devices", "GPU:0")
    assert proc.returncode == 4, proc.stdout
    assert "no device 'GPU:0'" in proc.stdout
