"""Verifier cases: examples drawn from an iterator or a random source, and outputs that are
partly random by design. Replaying the same drawn values in every mode must neither hide a
bug nor call a correct function nondeterministic.
"""

import random

import numpy as np
import tensorflow as tf

feed = iter([float(i) for i in range(1, 200)])
logged = []


@tf.function
def bug_iter_fed(x):
    return x + random.random()


@tf.function
def bug_random_fed(x):
    return x + np.random.uniform()


@tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
def bug_partly_random(x):
    # element 0 is random by design; element 1 is a Python random frozen at trace time
    return tf.stack([x + tf.random.uniform([]), x + random.random()])


@tf.function
def bug_iter_logged(x):
    logged.append(1)
    return x * 2.0


@tf.function
def ok_iter_fed(x):
    return x * 2.0


@tf.function
def ok_random_fed(x):
    return tf.reduce_sum(x) * 3.0


@tf.function
def ok_numpy_fed(x):
    return tf.reduce_mean(x)


@tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
def ok_partly_random(x):
    return tf.stack([x + tf.random.uniform([]), x * 2.0])


TFLINT_EXAMPLES = {
    "bug_iter_fed": [lambda: (tf.constant(next(feed)),)],
    "bug_random_fed": [lambda: (tf.random.uniform([3]),)],
    "bug_iter_logged": [lambda: (tf.constant([next(feed)]),)],
    "ok_iter_fed": [lambda: (tf.constant(next(feed)),)],
    "ok_random_fed": [lambda: (tf.random.normal([4]),)],
    "ok_numpy_fed": [lambda: (np.random.rand(3).astype("float32"),)],
}
