"""A Keras model with a custom `train_step` / `test_step`, trained with `fit`.

Keras compiles `train_step` and `test_step` with tf.function, so they and everything they
call in this module are traced code even without a decorator. Lines that tflint reports
carry a trailing comment naming the code; all other lines are correct.

`python examples/keras_model.py` (needs TensorFlow) stops with the error TFL302 predicts
("tf.function only supports singleton tf.Variables created on the first call"). Delete
the two `r2` lines and it trains, then prints "steps: 39 python counter: 2": the
`tf.Variable` counted every step, the Python attribute (TFL107) counted the traces.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow import keras


class ResidualBlock(keras.layers.Layer):
    """Creates its weights in `build`, the place Keras reserves for it."""

    def __init__(self, units: int, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units, activation="relu")

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(input_shape[-1],), initializer="ones")
        self.projection = None
        if input_shape[-1] != self.units:
            self.projection = keras.layers.Dense(self.units, use_bias=False)

    def call(self, inputs):
        shortcut = inputs if self.projection is None else self.projection(inputs)
        return shortcut + self.dense(inputs * self.scale)


class Regressor(keras.Model):
    def __init__(self, hidden: int = 32):
        super().__init__()
        self.block1 = ResidualBlock(hidden)
        self.block2 = ResidualBlock(hidden)
        self.head = keras.layers.Dense(1)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae = keras.metrics.MeanAbsoluteError(name="mae")
        self.steps_seen = tf.Variable(0, trainable=False, dtype=tf.int64)
        self.batches_seen = 0

    def call(self, inputs, training=False):
        return self.head(self.block2(self.block1(inputs)))

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae]

    def compute_loss_and_update(self, x, y):
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = tf.reduce_mean(tf.square(y - pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return loss, pred

    def train_step(self, data):
        x, y = data
        loss, pred = self.compute_loss_and_update(x, y)
        self.loss_tracker.update_state(loss)
        self.mae.update_state(y, pred)
        self.steps_seen.assign_add(1)  # a tf.Variable: updated on every step
        self.batches_seen += 1  # TFL107: a Python int, changed once per trace
        r2 = keras.metrics.R2Score()  # TFL302: new variables on every trace
        r2.update_state(y, pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae.result(), "r2": r2.result()}

    def test_step(self, data):
        x, y = data
        pred = self(x, training=False)
        self.loss_tracker.update_state(tf.reduce_mean(tf.square(y - pred)))
        self.mae.update_state(y, pred)
        return {m.name: m.result() for m in self.metrics}


def make_data(n: int = 512):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 8)).astype("float32")
    y = (x @ rng.normal(size=(8, 1)) + 0.1 * rng.normal(size=(n, 1))).astype("float32")
    return x, y


def main() -> None:
    x, y = make_data()
    model = Regressor()
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    history = model.fit(x, y, batch_size=32, epochs=3, validation_split=0.2, verbose=2)
    print("final loss:", history.history["loss"][-1])  # eager code: prints real numbers
    print("steps:", int(model.steps_seen.numpy()), "python counter:", model.batches_seen)


if __name__ == "__main__":
    main()
