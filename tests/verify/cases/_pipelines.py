"""Dataset helpers used by data_cases.py (a helper module: not a case itself)."""

import random

import tensorflow as tf


def noisy_numbers():
    # the Python random is drawn once, when tf.data traces the map function
    return tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32) + random.random())


def doubled_numbers():
    return tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32) * 2.0)
