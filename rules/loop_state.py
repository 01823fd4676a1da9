"""Python state that cannot cross the iterations of a TensorFlow loop: lists and dicts
accumulated in the loop, lambdas that close over a loop variable."""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic import Ctx, target_names
from tflint.semantic.syntax import assigned_in, code, flat_targets, names_read, walk_scope
from tflint.semantic.values import container_kind, local_owner


_ACCUMULATORS = frozenset({"append", "extend", "insert"})


# ---------------------------------------------------------------------------------------
# TFL501 / TFL502


class ListAppendInTfLoop(Rule):
    """A Python list collects tensors inside a TensorFlow loop.

    ## What it does
    In traced code, flags `L.append(t)`, `L.extend(...)` and `L.insert(...)` with a tensor
    argument inside a TensorFlow loop (`for` over `tf.range`, a tensor or a dataset,
    `range(<tensor>)`, or `while <tensor condition>`) when the list `L` is a local list
    created before that loop. Lists filled in a Python loop (`for i in range(3)`, or over
    a parameter such as a list of gradients, unless the function's `input_signature` or
    its calls make it a tensor) and lists created afresh in each iteration are fine and
    are not flagged; lists bound outside the traced function are TFL105's.

    ## Why is this bad?
    AutoGraph runs the body of a TensorFlow loop once, to trace it into a
    `tf.while_loop`. The list gets one element, a tensor of the loop's inner graph, and
    using it after the loop fails: `InaccessibleTensorError: <tf.Tensor 'while/...'> is
    out of scope and cannot be used here`.

    ## Example
    ```python
    @tf.function
    def f(n):
        out = []
        for i in tf.range(n):
            out.append(i * 2)
        return tf.stack(out)
    ```

    ## Use instead
    ```python
    @tf.function
    def f(n):
        out = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            out = out.write(i, i * 2)
        return out.stack()
    ```

    ## References
    - [AutoGraph limitations: Python collections in TensorFlow control flow](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#python-collections-in-tensorflow-control-flow)
    - [Better performance with tf.function: Accumulating values in a loop](https://www.tensorflow.org/guide/function#accumulating_values_in_a_loop)
    """

    CODE = "TFL501"
    NAME = "list-append-in-tf-loop"
    MESSAGE = ("`{name}.{meth}(...)` inside a TensorFlow loop: the body is traced once, so the list gets one "
               "out-of-scope tensor; use tf.TensorArray")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P24",)
    VALID = (
        '''import tensorflow as tf

class Runner:
    @tf.function
    def run_train_step(self, data_batch):
        with tf.GradientTape() as tape:
            loss = self.model(data_batch)
        var_list = self.model.trainable_variables
        grads = tape.gradient(loss, var_list)
        if self._amp_enabled:
            grads = self.optimizer.get_unscaled_gradients(grads)
        updated_grads = []
        for var, grad in zip(var_list, grads):     # zip over Python lists: a Python loop
            updated_grads.append(tf.zeros_like(var) if grad is None else grad)
        grads, _ = tf.clip_by_global_norm(updated_grads, 1.0)
        return grads

    def dataset(self, files):
        return tf.data.Dataset.zip(files).map(self.decode_batch)

    @tf.function
    def decode_batch(self, labels, categorical_features):
        temp = []
        for dtype, feature in zip(self._categorical_types, categorical_features):
            temp.append(tf.cast(tf.io.decode_raw(feature, dtype), tf.int32))  # zip: Python
        categorical_features = tf.concat(temp, axis=1)
        return categorical_features, labels
''',
        '''import tensorflow as tf

def tracin(dataset, model_checkpoints):
    @tf.function
    def run(batch, checkpoints):
        outs = []
        for model in checkpoints:                 # called below: Python objects, a Python loop
            outs.append(model(batch["x"])[:, 0])
        return tf.reduce_sum(tf.stack(outs, axis=-1), axis=-1)
    return [run(b, model_checkpoints) for b in dataset]
''',
        '''import tensorflow as tf

@tf.function
def f(x):
    parts = []
    for i in range(3):              # Python loop: unrolled, three real tensors
        parts.append(x * i)
    return tf.stack(parts)

@tf.function
def g(n):
    out = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        row = []                    # a fresh list in every iteration
        row.append(tf.cast(i, tf.float32))
        out = out.write(i, tf.add_n(row))
    return out.stack()
''',
        '''import tensorflow as tf

@tf.function
def average_gradients(tower_grads):        # every caller passes a Python list
    avg = []
    for tgrads in zip(*tower_grads):       # a Python loop, unrolled
        grads = [tf.expand_dims(g, 0) for g in tgrads]
        avg.append(tf.reduce_mean(tf.concat(grads, 0), 0))
    return avg

tower = []
for i in range(2):
    tower.append([tf.ones(3) * i, tf.ones(2) * i])
average_gradients(tower)
''',
'''import tensorflow as tf

step_counter = tf.Variable(5)

@tf.function
def noisy(grads, clip=None):
    if clip is not None:
        grads = [tf.clip_by_value(g, -clip, clip) for g in grads]
    if tf.less_equal(3, step_counter):
        new = []
        for g in grads:                       # a Python list of gradients: unrolled
            new.append(g + tf.random.normal(tf.shape(g)))
        grads = new
    return grads
''',
        '''import tensorflow as tf

weights = [tf.Variable(1.0), tf.Variable(2.0)]


@tf.function
def clipped_grads(x):
    with tf.GradientTape() as tape:
        loss = x * weights[0] * weights[1]
    grads, norm = tf.clip_by_global_norm(tape.gradient(loss, weights), 0.5)
    out = []
    for g in grads:                           # a Python list of tensors: unrolled
        out.append(tf.where(tf.math.is_finite(g), g, tf.zeros_like(g)))
    return out
''',
        '''import tensorflow as tf

@tf.function
def pair_differences(Rin, Ncells, Np):
    # no call here gives the counts a tensor: another module passes ints from its
    # configuration, and the loops unroll
    R = tf.reshape(Rin, (Rin.shape[0], Ncells, Np))
    out = []
    for i in range(Ncells * Np):
        out.append(tf.expand_dims(R[:, i // Np, i % Np], -1))
    assert R.shape[1] == Ncells               # static shape against an int
    return tf.concat(out, axis=1)
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(n):
    out = []
    for i in tf.range(n):
        out.append(i * 2)  # TFL501
    return tf.stack(out)
''',
        '''import tensorflow as tf

@tf.function
def total(dataset):
    losses = []
    for x in dataset:
        losses.append(tf.reduce_sum(x))  # TFL501
    return tf.add_n(losses)
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        f = node.func
        if not (isinstance(f, cst.Attribute) and f.attr.value in _ACCUMULATORS and isinstance(f.value, cst.Name)):
            return
        sem = self.sem
        if not node.args or not any(sem.is_tensor(a.value, ctx.fn) for a in node.args):
            return
        name = f.value.value
        owner = local_owner(name, ctx.fn)
        if owner is None or container_kind(owner, name) != "list" or sem.in_py_function(ctx):
            return
        if sem.tf_loop_outside_binding(name, ctx) is None:
            return
        self.report(node, self.MESSAGE.format(name=name, meth=f.attr.value), ctx=ctx)


def _literal_key(e: cst.BaseExpression) -> bool:
    if isinstance(e, (cst.Integer, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus) and isinstance(e.expression,
                                                                                                cst.Integer):
        return True
    return False


class ContainerWriteInTfLoop(Rule):
    """A Python dict or list is written with a computed key inside a TensorFlow loop.

    ## What it does
    In traced code, flags `d[k] = t`, `d[k] += t` and `del d[k]` inside a TensorFlow loop
    when `d` is a local dict or list created before the loop and the key `k` is not a
    literal (a name, an expression, a tensor). Writes with literal keys
    (`state["count"] += 1`, `acc[0] = x`) are fine: AutoGraph carries those entries as
    loop variables.

    ## Why is this bad?
    AutoGraph can only carry container entries whose key it sees in the source. An entry
    written under a computed key is not a loop variable: its value is a tensor of the
    loop's inner graph, and reading it after (or in the next iteration of) the loop fails
    with `InaccessibleTensorError: ... is out of scope and cannot be used here`.

    ## Example
    ```python
    @tf.function
    def f(n):
        d = {"a": tf.constant(0), "b": tf.constant(0)}
        for i in tf.range(n):
            for key in d:
                d[key] += i
        return d
    ```

    ## Use instead
    ```python
    @tf.function
    def f(n):
        d = {"a": tf.constant(0), "b": tf.constant(0)}
        for i in tf.range(n):
            d = {key: value + i for key, value in d.items()}  # a new dict, same keys
        return d
    ```

    ## References
    - [AutoGraph limitations: Python collections of fixed structure with dynamic index](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#python-collections-of-fixed-structure-with-dynamic-index)
    """

    CODE = "TFL502"
    NAME = "container-write-in-tf-loop"
    MESSAGE = ("`{target}` is written with a computed key inside a TensorFlow loop: AutoGraph cannot carry it "
               "across iterations (out-of-scope tensor); rebuild the {kind} each iteration or use a TensorArray")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P25",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def build(mask):                        # no visible caller: a Python list or a tensor, unknown
    d = {}
    for idx, val in enumerate(mask):
        if val < 0:
            d[str(val)] = tf.ones([1])
    return d

def decode(serialized, spec):
    ex = tf.io.parse_single_example(serialized, spec)   # a dict of tensors: a Python loop
    features = {}
    for name in ex:
        features[name] = ex[name]
    return features

ds = tf.data.TFRecordDataset("train.tfrecord").map(lambda s: decode(s, {}))
''',
        '''import tensorflow as tf

@tf.function
def f(n):
    state = {"count": tf.constant(0), "total": tf.constant(0)}
    for i in tf.range(n):
        state["count"] += 1                 # literal keys: carried by AutoGraph
        state["total"] = state["total"] + i
        state = {k: v * 1 for k, v in state.items()}
    return state

@tf.function
def g(x):
    outs = {}
    for name in ["a", "b"]:                 # Python loop: unrolled
        outs[name] = x * 2
    return outs
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(n):
    d = {"a": tf.constant(0), "b": tf.constant(0)}
    for i in tf.range(n):
        for key in d:
            d[key] += i  # TFL502
    return d
''',
        '''import tensorflow as tf

@tf.function
def g(x, n):
    slots = [tf.zeros([3]) for _ in range(4)]
    for i in tf.range(n):
        slots[i % 4] = slots[i % 4] + x  # TFL502
    return slots
''',
    )

    def visit_Assign(self, node: cst.CSTNode, ctx: Ctx) -> None:
        sem = self.sem
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            for t in node.targets:
                targets.extend(flat_targets(t.target))
            value = node.value
            if not sem.is_tensor(value, ctx.fn):
                return
        elif isinstance(node, cst.AugAssign):
            targets.append(node.target)
        elif isinstance(node, cst.Del):
            targets.extend(flat_targets(node.target))
        for t in targets:
            if not (isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name)):
                continue
            if all(isinstance(e.slice, cst.Index) and _literal_key(e.slice.value) for e in t.slice):
                continue
            name = t.value.value
            owner = local_owner(name, ctx.fn)
            kind = container_kind(owner, name) if owner is not None else None
            if kind is None or sem.in_py_function(ctx):
                continue
            if sem.tf_loop_outside_binding(name, ctx) is None:
                continue
            self.report(t, self.MESSAGE.format(target=code(t), kind=kind), ctx=ctx)

    visit_AugAssign = visit_Assign
    visit_Del = visit_Assign


# ---------------------------------------------------------------------------------------
# TFL505


class LambdaCapturesLoopVariable(Rule):
    """A lambda defined before a TensorFlow loop reads a name the loop reassigns.

    ## What it does
    In traced code, flags `l = lambda: ... a ...` when a later TensorFlow loop of the same
    function reassigns `a` and `l` is called after that loop. A nested `def` is not
    flagged: AutoGraph handles those.

    ## Why is this bad?
    AutoGraph rewrites the loop into a `tf.while_loop` whose results are bound to fresh
    names; the lambda keeps reading the value `a` had before the loop. The result is
    silently wrong: on TF 2.21 the example returns 0, where Python semantics give 2.

    ## Example
    ```python
    @tf.function
    def f():
        a = tf.constant(0)
        read_a = lambda: tf.identity(a)
        for i in tf.range(3):
            a = i
        return read_a()
    ```

    ## Use instead
    ```python
    @tf.function
    def f():
        a = tf.constant(0)
        for i in tf.range(3):
            a = i
        return tf.identity(a)
    ```
    or pass the value as an argument: `read = lambda v: tf.identity(v)`; `read(a)`.

    ## References
    - [AutoGraph limitations: variables closed over by lambda functions](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#variables-closed-over-by-lambda-functions)
    """

    CODE = "TFL505"
    NAME = "lambda-captures-loop-variable"
    MESSAGE = ("lambda `{lam}` reads `{var}`, which the TensorFlow loop at line {line} reassigns: called after "
               "the loop it still sees the old value; pass `{var}` as an argument")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P27",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    a = tf.constant(0)
    read = lambda v: tf.identity(v)      # gets the value as an argument
    for i in tf.range(3):
        a = i
        y = tf.cond(a > 1, lambda: a, lambda: -a)   # called right away, in the loop
    return read(a) + y

@tf.function
def g():
    a = tf.constant(0)
    read = lambda: tf.identity(a)
    for i in range(3):                   # Python loop: plain Python semantics
        a = a + i
    return read()
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f():
    a = tf.constant(0)
    read_a = lambda: tf.identity(a)  # TFL505
    for i in tf.range(3):
        a = i
    return read_a()
''',
    )

    def visit_Assign(self, node: cst.Assign, ctx: Ctx) -> None:
        sem = self.sem
        fn = ctx.fn
        if fn is None or not isinstance(node.value, cst.Lambda) or len(node.targets) != 1 or \
                not isinstance(node.targets[0].target, cst.Name) or not isinstance(fn.node, cst.FunctionDef):
            return
        lam = node.value
        lname = node.targets[0].target.value
        info = sem.function_of(lam)
        if info is None:
            return
        params = info.param_names
        free = names_read(lam.body) - params
        if not free:
            return
        # in source order (the walk's), without positions: a file whose lambdas find
        # nothing never pays for computing them
        after = False
        nodes = list(walk_scope(fn.node.body))
        for i, loop in enumerate(nodes):
            if loop is node:
                after = True
                continue
            if not after or not isinstance(loop, (cst.For, cst.While)):
                continue
            hit = free & assigned_in(loop.body)
            if isinstance(loop, cst.For):
                hit -= set(target_names(loop.target))
                hit |= free & set(target_names(loop.target))
            if not hit or not sem.surely_tf_loop(loop, fn):
                continue
            inside = {id(n) for n in walk_scope(loop)}
            if self._called(lname, (n for n in nodes[i + 1:] if id(n) not in inside)):
                var = sorted(hit)[0]
                self.report(node, self.MESSAGE.format(lam=lname, var=var, line=sem.line_of(loop)), ctx=ctx)
                return

    @staticmethod
    def _called(name: str, nodes: Iterable[cst.CSTNode]) -> bool:
        return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name for n in nodes)
