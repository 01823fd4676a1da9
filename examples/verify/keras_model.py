"""Keras models with custom `train_step`s (Keras runs them under tf.function in `fit`).

`model` is correct. `warmup_model` keeps its warm-up state in a Python attribute: the
guard is evaluated once, at trace time, so the compiled step always uses the warm-up
learning-rate scale (P05, flagged by TFL107). The verifier calls each `train_step` eagerly
and as a graph from the same weights, optimizer state and metrics.
"""

import keras
import tensorflow as tf


class Regressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
        self.loss_tracker = keras.metrics.Mean(name="loss")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}


class WarmupRegressor(Regressor):
    def __init__(self):
        super().__init__()
        self.warmup_steps_left = 1

    def train_step(self, data):
        x, y = data
        scale = 1.0
        if self.warmup_steps_left > 0:  # Python state: read once, when traced
            self.warmup_steps_left -= 1
            scale = 0.1
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = [g * scale for g in tape.gradient(loss, self.trainable_variables)]
        self.optimizer.apply(grads, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}


def _make(cls):
    m = cls()
    m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1))
    m(tf.zeros([1, 2]))  # create the weights before the first step
    return m


model = _make(Regressor)
warmup_model = _make(WarmupRegressor)

_batch = (tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[1.0], [2.0]]))

TFLINT_EXAMPLES = {
    "model.train_step": [(_batch,)],
    "warmup_model.train_step": [(_batch,)],
}
