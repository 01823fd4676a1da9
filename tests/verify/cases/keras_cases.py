"""Verifier cases: Keras ``train_step`` overrides with no declared batch. The verifier must
synthesize one from the model's input shape instead of skipping the model.
"""

import random

import keras
import tensorflow as tf


class Plain(keras.Model):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.hidden = keras.layers.Dense(4, kernel_initializer="ones")
        self.drop = keras.layers.Dropout(dropout)
        self.out = keras.layers.Dense(1, kernel_initializer="ones")
        self.loss_tracker = keras.metrics.Mean(name="loss")

    def call(self, x, training=False):
        return self.out(self.drop(self.hidden(x), training=training))

    def _step(self, x, y, scale):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y)) * scale
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    def train_step(self, data):
        x, y = data
        return self._step(x, y, 1.0)


class Counting(Plain):
    def __init__(self):
        super().__init__()
        self.steps_done = 0

    def train_step(self, data):
        x, y = data
        self.steps_done += 1  # Python state: once per trace
        return self._step(x, y, 1.0)


class NoisyLoss(Plain):
    def train_step(self, data):
        x, y = data
        return self._step(x, y, 1.0 + random.random())  # frozen when traced


def _make(cls, *args):
    m = cls(*args)
    m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01))
    m.build((None, 3))
    return m


bug_counting = _make(Counting)
bug_noisy_loss = _make(NoisyLoss)
ok_plain = _make(Plain)
ok_dropout = _make(Plain, 0.5)
