"""Verifier cases: the pipeline is built by a helper module; this module never names the
data API, so the verifier must notice from its imports that eager mode needs tf.data's
debug mode.
"""

import _pipelines
import tensorflow as tf

NOISY = _pipelines.noisy_numbers()
DOUBLED = _pipelines.doubled_numbers()


@tf.function
def bug_sum_noisy():
    total = tf.constant(0.0)
    for v in NOISY:
        total += v
    return total


@tf.function
def ok_sum_doubled():
    total = tf.constant(0.0)
    for v in DOUBLED:
        total += v
    return total
