"""Verifier cases: bugs that only show on non-degenerate inputs, and correct neighbours.

Functions named ``bug_*`` diverge between eager and graph; ``ok_*`` do not. No inputs are
declared: the verifier must find values (non-zero ints, positive, negative and mixed floats,
both bools, the values the code compares against) from signatures, annotations, defaults
and the code itself.
"""

import random

import numpy as np
import tensorflow as tf

appended = []


@tf.function
def bug_scaled_random(n: int):
    # n == 0 hides it: 0 * anything is 0 in both modes
    return tf.constant(1.0) * (n * random.random())


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def bug_positive_branch(x):
    if tf.reduce_sum(x) > 0:
        return x * np.random.uniform()
    return x


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def bug_mixed_signs(x):
    if tf.reduce_min(x) < 0.0 and tf.reduce_max(x) > 0.0:
        return x + random.random()
    return x


@tf.function(input_signature=[tf.TensorSpec([], tf.bool)])
def bug_false_branch(flag):
    if flag:
        return tf.constant(0.0)
    return tf.constant(random.random())


@tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
def bug_nonzero_int(k):
    if k != 0:
        return tf.cast(k, tf.float32) * random.random()
    return tf.constant(0.0)


@tf.function
def bug_count_appends(x, n: int):
    for _ in range(n):
        appended.append(1)
    return x * float(n)


@tf.function
def bug_negative_scale(x, scale: float):
    if scale < 0:
        return x * random.random()
    return x * scale


@tf.function
def bug_threshold(x, steps: int = 1):
    if steps > 3:
        return x + random.random()
    return x


@tf.function
def bug_mode_string(x, mode="sum"):
    if mode == "noisy":
        return x + np.random.uniform()
    return x


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def ok_square_sum(x):
    return tf.reduce_sum(x * x)


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def ok_relu_branch(x):
    if tf.reduce_sum(x) > 0:
        return tf.nn.relu(x)
    return -x


@tf.function
def ok_int_power(x, n: int):
    return x ** float(n)


@tf.function
def ok_scale(x, scale: float = 1.0):
    if scale < 0:
        return -x * scale
    return x * scale


@tf.function
def ok_mode_string(x, mode="sum"):
    if mode == "mean":
        return tf.reduce_mean(x)
    return tf.reduce_sum(x)


@tf.function(input_signature=[tf.TensorSpec([], tf.bool), tf.TensorSpec([None], tf.float32)])
def ok_bool_select(flag, x):
    if flag:
        return x + 1.0
    return x - 1.0


class LazyDense(tf.Module):
    """Creates its weight on the first call (the lazy-build pattern)."""

    def __init__(self):
        super().__init__()
        self.w = None

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([3, 2]))
        return tf.matmul(x, self.w)


ok_lazy = LazyDense()
