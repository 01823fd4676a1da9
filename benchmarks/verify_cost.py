"""What does ``pytest --tflint-verify`` cost? Runs a small TensorFlow test suite plainly and
under the verifier and prints the ratio of wall-clock times (goal: at most 2 for the test
phase, start-up excluded).

    python benchmarks/verify_cost.py [--repeat N]

The suite (written to a temporary folder) is a typical small project's: a few tf.functions
with and without input_signature, a tf.Module with variables, a Keras model trained with
``fit``, and tests that call the functions several times with several inputs. The script
also reports the ratio of the test phase alone (total minus the cost of starting Python,
pytest and TensorFlow, measured by a run that selects no test), because start-up dominates
small suites and is paid once either way.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SUITE = {
    "model_lib.py": """
        import keras
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 16], tf.float32)])
        def normalize(x):
            mean = tf.reduce_mean(x, axis=0)
            std = tf.math.reduce_std(x, axis=0) + 1e-6
            return (x - mean) / std

        @tf.function
        def pairwise_distances(a, b):
            diff = tf.expand_dims(a, 1) - tf.expand_dims(b, 0)
            return tf.sqrt(tf.reduce_sum(diff * diff, axis=-1) + 1e-12)

        @tf.function
        def smooth_l1(pred, target, delta=1.0):
            err = tf.abs(pred - target)
            return tf.reduce_mean(tf.where(err < delta, 0.5 * err ** 2 / delta, err - 0.5 * delta))

        class Scaler(tf.Module):
            def __init__(self, dim):
                self.scale = tf.Variable(tf.ones([dim]))
                self.shift = tf.Variable(tf.zeros([dim]))

            @tf.function
            def __call__(self, x):
                return x * self.scale + self.shift

            @tf.function
            def fit_step(self, x, target, lr):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self(x) - target))
                grads = tape.gradient(loss, [self.scale, self.shift])
                self.scale.assign_sub(lr * grads[0])
                self.shift.assign_sub(lr * grads[1])
                return loss

        def make_model():
            model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"),
                                      keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
            return model
    """,
    "test_functions.py": """
        import numpy as np
        import tensorflow as tf
        import model_lib as m

        def test_normalize_shapes():
            for n in (4, 8, 32):
                x = tf.random.stateless_normal([n, 16], seed=[n, 1])
                y = m.normalize(x)
                assert y.shape == (n, 16)
                np.testing.assert_allclose(tf.reduce_mean(y, 0).numpy(), 0, atol=1e-4)

        def test_distances():
            a = tf.random.stateless_normal([10, 3], seed=[1, 2])
            d = m.pairwise_distances(a, a)
            np.testing.assert_allclose(np.diag(d.numpy()), 0, atol=1e-3)
            d2 = m.pairwise_distances(a, a[:4])
            assert d2.shape == (10, 4)

        def test_smooth_l1():
            p = tf.constant([0.0, 1.0, 3.0])
            assert float(m.smooth_l1(p, tf.zeros(3))) > 0
            assert float(m.smooth_l1(p, p)) == 0.0
    """,
    "test_training.py": """
        import numpy as np
        import tensorflow as tf
        import model_lib as m

        def test_scaler_learns():
            s = m.Scaler(16)
            x = tf.random.stateless_normal([64, 16], seed=[3, 4])
            target = 2.0 * x + 1.0
            first = float(s.fit_step(x, target, tf.constant(0.1)))
            for _ in range(50):
                last = float(s.fit_step(x, target, tf.constant(0.1)))
            assert last < first

        def test_keras_fit():
            model = m.make_model()
            x = np.random.RandomState(0).randn(256, 16).astype("float32")
            y = x.sum(axis=1, keepdims=True)
            hist = model.fit(x, y, epochs=3, batch_size=32, verbose=0)
            assert hist.history["loss"][-1] < hist.history["loss"][0]
            assert model.predict(x[:8], verbose=0).shape == (8, 1)
    """,
}


def _run(folder: Path, args: list[str]) -> float:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], cwd=folder, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 5):
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-2000:])
        raise SystemExit(f"benchmark suite failed (exit {proc.returncode}) with {args}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=2, help="runs per variant; the best is kept")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tflint-verify-cost-") as tmp:
        folder = Path(tmp)
        for name, src in SUITE.items():
            (folder / name).write_text(textwrap.dedent(src))
        startup = min(_run(folder, ["-k", "no_test_has_this_name"])
                      for _ in range(args.repeat))
        plain = min(_run(folder, []) for _ in range(args.repeat))
        verified = min(_run(folder, ["--tflint-verify"]) for _ in range(args.repeat))
    ratio = verified / plain
    phase = (verified - startup) / max(plain - startup, 1e-9)
    print(f"start-up (python + pytest + collection, no test run): {startup:6.2f} s")
    print(f"plain pytest:                                          {plain:6.2f} s")
    print(f"pytest --tflint-verify:                                {verified:6.2f} s")
    print(f"ratio (total wall clock):                              {ratio:6.2f}x")
    print(f"ratio (test phase, start-up excluded):                 {phase:6.2f}x  (goal <= 2)")
    return 0 if phase <= 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
