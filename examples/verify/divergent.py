"""tf.functions that give different results as graphs than eagerly, one per silent pitfall.

`tflint verify examples/verify/divergent.py` proves each of them divergent. Every function
has a comment naming the static rule that flags the same code. The module does not import
tflint: the inputs for functions without an ``input_signature`` are declared in the plain
``TFLINT_EXAMPLES`` mapping at the bottom.
"""

import random

import numpy as np
import tensorflow as tf


# P01 / TFL101: print runs once, while tracing; eagerly it prints on every call.
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def noisy_loss(x):
    print("loss is", x)
    return tf.reduce_sum(x * x)


# P08 / TFL103: np.random / random are drawn once at trace time and baked into the graph.
@tf.function
def jitter(x):
    return x + np.random.uniform() + random.random()


# P02 / TFL105: appending to an outer list runs once per trace (and leaks a graph tensor).
history = []


@tf.function
def record(x):
    history.append(x * 2)
    return x + len(history)


# P03 / TFL106: rebinding a global in traced code runs once, at trace time.
calls_seen = 0


@tf.function
def count_calls(x):
    global calls_seen
    calls_seen += 1
    return x * calls_seen


# P05 / TFL107: the `self.counter` guard is evaluated at trace time; the assign_add is
# recorded unconditionally, so the graph adds on every call (eager: only on the first).
class Accumulator(tf.Module):
    def __init__(self):
        self.total = tf.Variable(0.0)
        self.counter = 0

    @tf.function
    def __call__(self):
        if self.counter == 0:
            self.counter += 1
            self.total.assign_add(1.0)
        return self.total.read_value()


accumulator = Accumulator()


# P07 / TFL108: next() on a Python iterator advances once per trace.
schedule = iter([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])


@tf.function
def next_scale(x):
    return x * next(schedule)


# P04 / TFL109: the graph keeps the value `learning_rate` had when it was traced. The
# example below is a callable: it runs before every call, like a training loop that
# decays the global learning rate between steps.
learning_rate = 1.0


@tf.function
def scaled_update(grad):
    return grad * learning_rate


def _decay_then_call():
    global learning_rate
    learning_rate = learning_rate * 0.5
    return (tf.constant([1.0, 2.0]),)


TFLINT_EXAMPLES = {
    "jitter": [(tf.constant([1.0, 2.0, 3.0]),)],
    "record": [(tf.constant(1),)],
    "count_calls": [(tf.constant(10),)],
    "next_scale": [(tf.constant(2.0),)],
    "scaled_update": [_decay_then_call],
}
