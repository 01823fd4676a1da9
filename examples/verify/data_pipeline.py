"""A tf.data pipeline whose `map` function draws from NumPy: the same "random" offset for
every element, for ever (P37 + P08, flagged by TFL103).

`tf.config.run_functions_eagerly(True)` does not make tf.data functions eager, so the
verifier runs this module's eager mode in a separate process with
`tf.data.experimental.enable_debug_mode()`: there `_jitter` runs per element and the
difference shows.
"""

import numpy as np
import tensorflow as tf


def _jitter(x):
    return x + np.random.randint(0, 1000)


# Built once, at import: `_jitter` is traced here and its offset frozen into the dataset.
offsets = tf.data.Dataset.range(4).map(_jitter)


@tf.function
def jittered_batch():
    return offsets.batch(4).get_single_element()


# The fix: a TensorFlow random op inside `map` runs per element in both modes.
def _tf_jitter(x):
    return x + tf.random.stateless_uniform([], seed=[1, 2], maxval=1000, dtype=tf.int64)


doubled = tf.data.Dataset.range(4).map(lambda x: x * 2)


@tf.function
def doubled_batch():
    return doubled.batch(4).get_single_element()
