"""tf.functions that behave the same eagerly and as graphs: `tflint verify` passes them.

Each is the fixed version of a function in ``divergent.py``.
"""

import tensorflow as tf


# tf.print runs on every call, in both modes.
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def loss(x):
    tf.print("loss is", x)
    return tf.reduce_sum(x * x)


# State lives in a tf.Variable, so the graph updates it on every call.
steps = tf.Variable(0, dtype=tf.int32)


@tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
def count_steps(x):
    steps.assign_add(1)
    return x * steps


# A tf.Module whose state is all variables: a running mean.
class RunningMean(tf.Module):
    def __init__(self):
        self.total = tf.Variable(0.0)
        self.count = tf.Variable(0.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def update(self, batch):
        self.total.assign_add(tf.reduce_sum(batch))
        self.count.assign_add(tf.cast(tf.size(batch), tf.float32))
        return self.total / self.count


running_mean = RunningMean()


# Local Python lists that are stacked are fine: they are rebuilt on every trace.
@tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
def powers(x):
    parts = []
    for i in range(3):
        parts.append(x ** i)
    return tf.stack(parts)


# Random numbers from a seeded stateless op: the same in every mode.
@tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
def noise(seed):
    return tf.random.stateless_uniform([4], seed=seed)


# Correct, but retraced: a Python number, a dtype and a shape change each force a new graph.
# The verifier reports which argument caused each retrace and the fix to consider.
@tf.function
def scale_by(x, factor):
    return x * factor


TFLINT_EXAMPLES = {
    "scale_by": [
        (tf.constant([1.0, 2.0]), 2),
        (tf.constant([1.0, 2.0]), 3),
        (tf.constant([1, 2]), 3),
        (tf.constant([1.0, 2.0, 3.0]), 3),
    ],
}
