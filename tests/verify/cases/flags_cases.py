"""Verifier cases: bugs on the non-default path of a flag or keyword (``training=True``, a
bool argument, an optional value), and correct functions with the same shapes.

``bug_*`` diverge, ``ok_*`` do not; no inputs are declared.
"""

import random
from typing import Optional

import tensorflow as tf

steps_seen = []


@tf.function
def bug_training_path(x, training=False):
    if training:
        return x * random.random()
    return x


@tf.function
def bug_training_state(x, training: bool = False):
    if training:
        steps_seen.append(1)
    return x + 1.0


@tf.function
def bug_bool_positional(x, clip: bool):
    if not clip:
        return x + random.random()
    return tf.clip_by_value(x, 0.0, 1.0)


@tf.function
def bug_verbose_kw(x, *, verbose=False):
    if verbose:
        print("x =", x)
    return x * 2.0


@tf.function
def bug_optional_noise(x, noise: Optional[float] = None):
    if noise is not None:
        return x + noise * random.random()
    return x


class Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.updates = 0

    @tf.function
    def __call__(self, x, training=False):
        if training:
            self.updates += 1
        return x * 1.0


bug_counter = Counter()


@tf.function
def ok_training_dropout(x, training=False):
    if training:
        x = tf.nn.dropout(x, rate=0.5)
    return x


class VarCounter(tf.Module):
    def __init__(self):
        super().__init__()
        self.updates = tf.Variable(0)

    @tf.function
    def __call__(self, x, training=False):
        if training:
            self.updates.assign_add(1)
        return x * 1.0


ok_var_counter = VarCounter()


@tf.function
def ok_verbose_tfprint(x, verbose=False):
    if verbose:
        tf.print("x =", x)
    return x * 2.0


@tf.function
def ok_optional_bias(x, bias: Optional[float] = None):
    if bias is not None:
        return x + bias
    return x


@tf.function
def ok_noise(x):
    # legitimately random: a TensorFlow op, fresh on every call in both modes
    return x + tf.random.uniform(tf.shape(x))


rng = tf.random.Generator.from_seed(7)


@tf.function
def ok_generator_noise(x):
    return x + rng.normal(tf.shape(x))


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def ok_stateless_noise(x):
    return x + tf.random.stateless_normal(tf.shape(x), seed=[1, 2])
