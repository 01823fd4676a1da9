"""Python conversions of symbolic tensors: `.numpy()`, Python `bool`, Python iteration,
`math.*` — each needs a concrete value that a tensor does not have while tracing."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from tflint import fixes
from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic import Ctx, FunctionInfo, SemanticModel
from tflint.semantic.execution import eager_only_branch
from tflint.semantic.syntax import COMPREHENSIONS, code, comprehension_targets, mentions
from tflint.semantic.values import TF_LIST_FUNCS


_COMP_TYPES = COMPREHENSIONS

_BOOL_BUILTINS = ("max", "min", "any", "all", "sorted")


# ---------------------------------------------------------------------------------------
# Shared judgements


# ---------------------------------------------------------------------------------------
# TFL201


class NumpyMethodOnTensor(Rule):
    """`.numpy()` on a tensor in traced code.

    ## What it does
    Flags `x.numpy()` inside traced code when `x` is a tensor (a parameter of the traced
    function, the result of a TensorFlow op or a layer call, arithmetic on those) or a
    metric result (`metric.result().numpy()`), and Keras' `get_weights()` on a layer or
    model (it calls `.numpy()` on every variable) unless the class defines its own
    `get_weights`. Calls guarded by
    `if tf.executing_eagerly():` or by a `run_eagerly` flag, or inside a `try`, are left
    alone, and `tf.py_function` bodies are not traced code.

    ## Why is this bad?
    While a function is traced, tensors are symbolic and have no value: TensorFlow 2.21
    raises `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'`. Code that
    works in eager tests fails as soon as it runs under `tf.function`, in a Keras
    `train_step`, or in a `tf.data` map function.

    ## Example
    ```python
    @tf.function
    def step(x):
        pred = model(x)
        print(pred.numpy())
        return pred
    ```

    ## Use instead
    ```python
    @tf.function
    def step(x):
        pred = model(x)
        tf.print(pred)
        return pred          # call .numpy() on the result, in eager code
    ```

    ## References
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    - [tensorflow/tensorflow#27491](https://github.com/tensorflow/tensorflow/issues/27491)
    """

    CODE = "TFL201"
    NAME = "numpy-method-on-tensor"
    MESSAGE = "`.numpy()` on a symbolic tensor fails while tracing; use `tf.print` or return the tensor"
    MESSAGE_WEIGHTS = ("`{obj}.get_weights()` reads every variable with `.numpy()`, which fails while tracing; "
                       "use `{obj}.weights` (the variables) in traced code, or call it in eager code")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P12",)
    VALID = (
        '''import tensorflow as tf

def serialize_example(a):
    def _bytes(value):
        if isinstance(value, type(tf.constant(0))):
            value = value.numpy()             # only the py_function'd _serialize calls it
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))

    def _serialize(_a):
        feature = {"a": _bytes(tf.io.serialize_tensor(_a))}
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    out = tf.py_function(_serialize, inp=[a], Tout=[tf.string])
    return tf.reshape(out, ())

records = tf.data.Dataset.from_tensor_slices(tf.range(3.0)).map(serialize_example)
''',
        '''import numpy as np
import tensorflow as tf

def parse(path, eager=True):
    def count_lines(filename):
        filename = filename.numpy()        # runs eagerly: the wrapper below is tf.py_function
        with open(filename) as f:
            return np.float32(len(f.readlines()))
    wrap = tf.py_function if eager else tf.numpy_function
    return wrap(count_lines, [path], tf.float32)

ds = tf.data.Dataset.from_tensor_slices(["a.txt", "b.txt"]).map(parse)
''',
        '''import tensorflow as tf

@tf.function
def step(x):
    y = x * 2
    if tf.executing_eagerly():
        print(y.numpy())          # only runs when the function runs eagerly
    return y

result = step(tf.constant(1.0)).numpy()   # eager code: fine

def to_numpy(t):
    return tf.py_function(lambda v: v.numpy() * 2, [t], tf.float32)
''',
        '''import tensorflow as tf

class NeRF(tf.keras.Model):
    def __init__(self, params):
        super().__init__()
        self.params = params
        self.val_cache = []

    def test_step(self, data):
        pred = self(data[0], training=False)
        # the same flag goes to compile(run_eagerly=...): this branch runs only eagerly
        if self.params.run_eagerly and len(self.val_cache) < 4:
            self.val_cache.append(pred.numpy())
        return {}

def setup(params):
    model = NeRF(params)
    model.compile(optimizer="adam", run_eagerly=params.run_eagerly)
    return model
''',
        '''import tensorflow as tf
import lfw

class FaceNet(tf.keras.Model):
    def test_step(self, data):
        paths, issame = data
        emb = self.get_embeddings(paths).numpy()     # called only by the fit below, eagerly
        print(lfw.evaluate(emb, issame))

    def fit(self, dataset, epochs=1, lfw_data=None):   # its own loop, not Keras' fit
        for epoch in range(epochs):
            for batch in dataset:
                self.distributed_train_step(batch)
            if lfw_data is not None:
                self.test_step(lfw_data)
''',
        '''import keras
import tensorflow as tf

class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)

    def get_weights(self):             # its own method: returns the variables
        return list(self.weights)

    @tf.function
    def norm(self):
        return tf.add_n([tf.reduce_sum(w ** 2) for w in self.get_weights()])

class Holder:
    def get_weights(self):
        return [tf.ones([2])]

holder = Holder()
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])

@tf.function
def shift(x):
    return holder.get_weights()[0] + x

def snapshot():
    return model.get_weights()         # eager: fine
''',
        '''import tensorflow as tf


class Agent:
    def __init__(self, config):
        self._is_debug = config["debug"]
        if not config["debug"]:
            self._step = tf.function(self._step)

    def _step(self, x):
        if self._is_debug:            # true only where _step was left eager
            print(x.numpy())
        return x * 2
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def step(x):
    y = tf.reduce_sum(x)
    value = y.numpy()  # TFL201
    return value
''',
        '''import tensorflow as tf


class Agent:
    def __init__(self, config):
        self._is_debug = config["debug"]
        if config["fast"]:
            self._step = tf.function(self._step)

    def _step(self, x):
        if not self._is_debug:
            print(x.numpy())  # TFL201
        if self._is_debug:
            print(x.numpy())  # TFL201
        return x * 2
''',
        '''import tensorflow as tf

class Model(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        loss = self.compute_loss(y=y, y_pred=self(x))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result().numpy()}  # TFL201
''',
        '''import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])

class PINN(keras.Model):
    def __init__(self):
        super().__init__()
        self.net = keras.Sequential([keras.layers.Dense(4)])

    @tf.function
    def report(self):
        for layer in self.net.layers:
            tf.print(layer.get_weights())  # TFL201
        return self.get_weights()  # TFL201

@tf.function
def ema_step(x):
    weights = model.get_weights()  # TFL201
    return x
''',
        '''import tensorflow as tf

@tf.function                                   # still a tf.function when tf.py_function runs it
def decode(path):
    return tf.constant(len(path.numpy()))  # TFL201

def load(ds):
    return ds.map(lambda p: tf.py_function(decode, [p], tf.int32))
''',    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "get_weights" and not node.args:
            if self._keras_get_weights(func.value, ctx) and not eager_only_branch(ctx):
                self.report(node, self.MESSAGE_WEIGHTS.format(obj=code(func.value)), ctx=ctx)
            return
        if not (isinstance(func, cst.Attribute) and func.attr.value == "numpy") or node.args:
            return
        recv = func.value
        metric = isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) and \
            recv.func.attr.value == "result" and not recv.args
        if not metric and not self.sem.is_tensor(recv, ctx.fn):
            return
        if eager_only_branch(ctx):
            return
        self.report(node, ctx=ctx)

    def _keras_get_weights(self, obj: cst.BaseExpression, ctx: Ctx) -> bool:
        """Is ``obj.get_weights()`` Keras' own method (``.numpy()`` of every variable) on
        a Keras layer or model, not a ``get_weights`` the module's class defines itself?"""
        sem = self.sem
        if not sem.is_keras_object(obj, ctx.fn):
            return False
        cls = (ctx.fn.class_of_self(obj) if ctx.fn is not None else None) or sem.instance_class(obj, ctx.fn)
        return cls is None or sem.method_of(cls, "get_weights") is None


# ---------------------------------------------------------------------------------------
# TFL202


class TensorAsPythonBool(Rule):
    """A tensor used as a Python `bool` where AutoGraph does not convert it.

    ## What it does
    Flags, in traced code: `assert <tensor>`; `bool(<tensor>)`; `max`/`min` with a tensor
    argument (or over a list of tensors); `any`/`all` over a tensor or a list of tensors;
    `sorted` of a list of tensors; a comprehension `if` clause that is a tensor; and
    `if`/`while`/conditional expressions on a tensor in functions that run without
    AutoGraph (`@tf.function(autograph=False)`, `@tf.autograph.experimental.do_not_convert`).

    A Python `if t > 0:` or `while t < n:` in an ordinary `tf.function` body is **not**
    flagged: AutoGraph turns it into `tf.cond` / `tf.while_loop`. Neither are
    `a > 0 and b > 0`, `not t`, chained comparisons, `float(t)`, `int(t)`, `len(t)`,
    `sum([...])`, `sorted(t)` of one tensor, or static tests such as
    `assert x.shape.rank == 2`, `if mask is None`, `isinstance(...)`.

    "Tensor" is judged strictly here, since the rule reports errors: the result of a
    TensorFlow op, a local bound only to such results, and arithmetic, subscripts and
    comparisons of those. A parameter counts inside a comparison or arithmetic
    (`assert x > 0`, `max(a, b)`), but not as a bare truth value (`assert inputs`,
    `bool(x)`): there it is more often a Python list, dict or `None`. Tests that check
    the type first (`tf.is_tensor(x)`, `isinstance`) are never flagged.

    ## Why is this bad?
    A symbolic tensor has no truth value. TensorFlow 2.21 raises
    `OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python bool is not
    allowed` for all of these: AutoGraph converts `if`/`while` statements, but not
    `assert` (unless `ASSERT_STATEMENTS` is enabled), not the builtins `max`/`min`/`any`/
    `all`, and not comprehensions.

    ## Example
    ```python
    @tf.function
    def f(a, b):
        assert tf.reduce_all(a > 0)
        m = max(a, b)
        return [i for i in range(3) if a > i]
    ```

    ## Use instead
    ```python
    @tf.function
    def f(a, b):
        tf.debugging.assert_positive(a)
        m = tf.maximum(a, b)
        return tf.boolean_mask(tf.range(3), a > tf.range(3))
    ```

    ## Fix safety
    Two fixes, both unsafe. `assert a > b, msg` with a single comparison becomes
    `tf.debugging.assert_greater(a, b, message=msg)` (`>=`, `<`, `<=`, `==`, `!=` map to
    `assert_greater_equal`, `assert_less`, `assert_less_equal`, `assert_equal`,
    `assert_none_equal`): the check then runs on every call, element-wise, and fails with
    `InvalidArgumentError` rather than `AssertionError`, and it is not removed by
    `python -O`. `max(a, b)` / `min(a, b)` of two values becomes `tf.maximum(a, b)` /
    `tf.minimum(a, b)`, which broadcasts and is element-wise where the builtin compares
    whole values. Other cases (`bool`, `any`, `all`, `sorted`, comprehensions, `assert` on
    anything but one comparison) get no fix.

    ## References
    - [AutoGraph common errors: using a tf.Tensor as a Python bool](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/common_errors.md)
    - [AutoGraph limitations](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md)
    """

    CODE = "TFL202"
    NAME = "tensor-as-python-bool"
    MESSAGE = "{what}: a symbolic tensor has no Python truth value while tracing; {fix}"
    SEVERITY = Severity.ERROR
    PITFALLS = ("P11", "P14")
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x, y, mask=None):
    assert x.shape.rank == 2                  # static: fine
    assert isinstance(y, tf.Tensor)
    if mask is None:
        mask = tf.ones_like(x)
    if tf.reduce_sum(x) > 0 and y > 0:        # AutoGraph converts this
        x = x * 2
    while tf.reduce_max(x) > 10.0:            # ... and this
        x = x / 2
    n = int(y) + len(x)                       # converted builtins
    total = sum([x, y])
    biggest = max(x.shape[0], 4)              # static values
    ordered = sorted(tf.reshape(x, [-1]))     # one tensor: AutoGraph sorts it with tf.sort
    return x * mask, n, total, biggest, ordered
''',
        '''import tensorflow as tf

@tf.function
def upscale2d(x, factor, gain=1):
    # the type check comes first: a tensor `factor` fails the assert, never asks its truth
    assert isinstance(factor, int) and factor >= 1
    if factor == 1:
        return x
    return tf.repeat(x, factor, axis=1) * gain

y = upscale2d(tf.ones([1, 2]), tf.constant(2))
''',
        '''import tensorflow as tf

@tf.function
def f(x):
    assert tf.inside_function()            # a Python bool: True while tracing
    if tf.distribute.in_cross_replica_context():
        x = x + 1.0
    return x * 2
''',
        '''import tensorflow as tf

@tf.function
def pair_features(Rin, Ncells, Np):
    # no call here gives the counts a tensor (another module passes ints)
    total = tf.reshape(Rin, (-1, 1))
    assert total.shape[0] == Rin.shape[0] * Ncells * Np   # static shape against ints
    return total
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(a, b):
    assert tf.reduce_all(a > 0)  # TFL202
    m = max(a, b)  # TFL202
    ok = any([a > 0, b > 0])  # TFL202
    flag = bool(a > b)  # TFL202
    picked = [i for i in range(3) if a > i]  # TFL202
    return m, ok, flag, picked

f(tf.constant(1.0), tf.constant(2.0))
''',
        '''import tensorflow as tf

@tf.function(autograph=False)
def g(x):
    if x > 0:  # TFL202
        return x
    return -x

g(tf.constant(-1.0))
''',
        '''import tensorflow as tf

@tf.function
def clip(x, lo, hi):
    assert lo < hi, "empty range"  # TFL202
    return min(max(x, lo), hi)  # TFL202

clip(tf.constant([0.5, 2.0]), tf.constant(0.0), tf.constant(1.0))
''',
        '''import numpy as np
import keras
import tensorflow as tf


def mean_prediction(y_true, y_pred):
    m = tf.reduce_mean(y_pred)
    if m > 0:  # TFL202
        return m
    return -m


model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
# Keras 3 runs metrics in fit's graph without AutoGraph: the `if` fails there
model.compile(optimizer="adam", loss="mse", metrics=[mean_prediction])
model.fit(np.zeros((8, 2)), np.zeros((8, 1)))
''',
        '''import keras
import numpy as np
import tensorflow as tf


class FocalLoss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        y_true = tf.squeeze(y_true, -1) if tf.rank(y_true) > 1 else y_true  # TFL202
        return tf.reduce_mean(tf.square(y_true - y_pred))


def build():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    loss_fn = FocalLoss()
    model.compile(optimizer="adam", loss=loss_fn)
    return model


build().fit(np.zeros((8, 2)), np.zeros((8, 1)))
''',
        '''import keras
import tensorflow as tf


class DiceLoss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        dice = tf.reduce_sum(y_true * y_pred)
        if tf.math.is_nan(dice):  # TFL202
            return tf.constant(1.0)
        return 1.0 - dice


loss_obj = DiceLoss()


@tf.function
def train_step(x, y):
    return loss_obj(y, x)   # Keras 3's Loss.__call__ runs `call` without AutoGraph
''',
        '''import tensorflow as tf


def cluster_loss(n_clusters):
    def loss(y_true, y_pred):
        return max(tf.reduce_max(y_pred), tf.reduce_max(y_true)) / n_clusters  # TFL202
    return loss


class DeepCluster:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

    def test_loss(self, y, y_pred):
        return cluster_loss(3)(y, y_pred)       # the factory's function, called at once

    def train(self, x, y):
        self.model.compile(optimizer="adam", loss=["mse", self.test_loss])
        self.model.fit(x, y)
''',
    )
    FIXED = (
        (0, '''import tensorflow as tf

@tf.function
def f(a, b):
    assert tf.reduce_all(a > 0)  # TFL202
    m = tf.maximum(a, b)  # TFL202
    ok = any([a > 0, b > 0])  # TFL202
    flag = bool(a > b)  # TFL202
    picked = [i for i in range(3) if a > i]  # TFL202
    return m, ok, flag, picked

f(tf.constant(1.0), tf.constant(2.0))
'''),
        (2, '''import tensorflow as tf

@tf.function
def clip(x, lo, hi):
    tf.debugging.assert_less(lo, hi, message="empty range")  # TFL202
    return tf.minimum(tf.maximum(x, lo), hi)  # TFL202

clip(tf.constant([0.5, 2.0]), tf.constant(0.0), tf.constant(1.0))
'''),
        (6, '''import tensorflow as tf


def cluster_loss(n_clusters):
    def loss(y_true, y_pred):
        return tf.maximum(tf.reduce_max(y_pred), tf.reduce_max(y_true)) / n_clusters  # TFL202
    return loss


class DeepCluster:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

    def test_loss(self, y, y_pred):
        return cluster_loss(3)(y, y_pred)       # the factory's function, called at once

    def train(self, x, y):
        self.model.compile(optimizer="adam", loss=["mse", self.test_loss])
        self.model.fit(x, y)
'''),
    )

    def visit_Assert(self, node: cst.Assert, ctx: Ctx) -> None:
        if self._assert_converted(ctx.fn):
            return
        if self.sem.condition_is_tensor(node.test, ctx.fn):
            self.report(node, self.MESSAGE.format(what="`assert` on a tensor",
                                                  fix="use `tf.debugging.assert_*`"), ctx=ctx,
                        fix=fixes.assert_to_tf_debugging(self, node, ctx))

    def _assert_converted(self, fn: FunctionInfo | None) -> bool:
        if fn is None:
            return False
        for f in fn.scope_chain():
            if isinstance(f.node, cst.FunctionDef):
                for d in f.node.decorators:
                    if isinstance(d.decorator, cst.Call) and any(
                            a.keyword is not None and a.keyword.value == "experimental_autograph_options"
                            for a in d.decorator.args):
                        return True
        return False

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem, fn = self.sem, ctx.fn
        name = next((n for n in ("bool",) + _BOOL_BUILTINS if sem.is_builtin(node.func, n, ctx.fn)), None)
        if name is None:
            return
        args = [a for a in node.args if a.keyword is None]
        if not args or any(a.star for a in args):
            return
        if name == "bool":
            hit = len(args) == 1 and sem.strong_tensor(args[0].value, fn)
            fix = "use the boolean tensor itself, or `tf.cond`"
        elif name in ("max", "min"):
            if len(args) == 1:
                hit = self._holds_tensors(args[0].value, fn)
            else:
                hit = any(sem.strong_tensor(a.value, fn, True) for a in args)
            fix = f"use `tf.{'maximum' if name == 'max' else 'minimum'}` or `tf.reduce_{name}`"
        elif name in ("any", "all"):
            v = args[0].value
            hit = self._holds_tensors(v, fn) or sem.strong_tensor(v, fn)
            fix = f"use `tf.reduce_{name}`"
        else:  # sorted: AutoGraph sorts a single tensor with tf.sort, not a list of them
            hit = self._holds_tensors(args[0].value, fn)
            fix = "use `tf.sort` on a stacked tensor"
        if hit:
            self.report(node, self.MESSAGE.format(what=f"`{name}()` of tensors", fix=fix), ctx=ctx,
                        fix=fixes.builtin_max_min_to_tf(self, node, name, ctx))

    def _holds_tensors(self, e: cst.BaseExpression, fn: FunctionInfo | None) -> bool:
        """A list/tuple/set display or a comprehension whose elements are tensors."""
        if isinstance(e, (cst.List, cst.Tuple, cst.Set)):
            return any(not isinstance(el, cst.StarredElement) and self.sem.strong_tensor(el.value, fn, True)
                       for el in e.elements)
        if isinstance(e, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            targets = comprehension_targets(e)
            return not mentions(e.elt, targets) and self.sem.strong_tensor(e.elt, fn, True)
        return False

    def visit_CompIf(self, node: cst.CompIf, ctx: Ctx) -> None:
        comp = ctx.node if isinstance(ctx.node, _COMP_TYPES) else None
        if comp is None:
            return
        targets = comprehension_targets(comp)
        if mentions(node.test, targets):
            hit = _comp_test_is_tensor(self.sem, node.test, comp, ctx.fn)
        else:
            hit = self.sem.condition_is_tensor(node.test, ctx.fn)
        if hit:
            self.report(node, self.MESSAGE.format(what="comprehension condition on a tensor",
                                                  fix="use `tf.boolean_mask` or `tf.where`"), ctx=ctx)

    def visit_If(self, node: cst.If, ctx: Ctx) -> None:
        self._unconverted(node.test, "`if`", ctx)

    def visit_While(self, node: cst.While, ctx: Ctx) -> None:
        self._unconverted(node.test, "`while`", ctx)

    def visit_IfExp(self, node: cst.IfExp, ctx: Ctx) -> None:
        self._unconverted(node.test, "conditional expression", ctx)

    def _unconverted(self, test: cst.BaseExpression, what: str, ctx: Ctx) -> None:
        if self.sem.condition_is_tensor(test, ctx.fn) and self.sem.autograph_off(ctx.fn):
            self.report(test, self.MESSAGE.format(what=f"{what} on a tensor without AutoGraph",
                                                  fix="use `tf.cond` / `tf.while_loop`"), ctx=ctx)


def _comp_test_is_tensor(sem: SemanticModel, test: cst.BaseExpression, comp: cst.BaseExpression,
                         fn: FunctionInfo | None) -> bool:
    """A comprehension condition that uses the comprehension's own targets: a tensor when
    a target iterates a list of tensors (``tf.unstack(x)``, ``[a, b]``) and the test
    compares or computes with it."""
    elems: set[str] = set()
    f = getattr(comp, "for_in", None)
    while f is not None:
        it = f.iter
        if isinstance(f.target, cst.Name):
            if isinstance(it, (cst.List, cst.Tuple)) and any(
                    not isinstance(e, cst.StarredElement) and sem.strong_tensor(e.value, fn, True) for e in it.elements):
                elems.add(f.target.value)
            elif isinstance(it, cst.Call) and sem.tf_function_name(it.func) in ("unstack", "split"):
                elems.add(f.target.value)
        f = f.inner_for_in
    targets = comprehension_targets(comp)

    def judge(e: cst.BaseExpression) -> bool:
        if not mentions(e, targets):
            return sem.strong_tensor(e, fn, True)
        if isinstance(e, cst.Name):
            return e.value in elems
        if isinstance(e, cst.Subscript):
            return judge(e.value)
        if isinstance(e, cst.BinaryOperation):
            return judge(e.left) or judge(e.right)
        if isinstance(e, cst.UnaryOperation):
            return judge(e.expression)
        if isinstance(e, cst.BooleanOperation):
            return judge(e.left) or judge(e.right)
        if isinstance(e, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in e.comparisons):
                return False
            return judge(e.left) or any(judge(c.comparator) for c in e.comparisons)
        if isinstance(e, cst.Call):
            name = sem.tf_function_name(e.func)
            return name is not None and name not in TF_LIST_FUNCS and any(judge(a.value) for a in e.args)
        return False

    return judge(test)


# ---------------------------------------------------------------------------------------
# TFL203


class TensorIterationInComprehension(Rule):
    """Python iteration over a tensor that AutoGraph does not convert.

    ## What it does
    Flags, in traced code: a comprehension or generator expression iterating a tensor
    (`[f(v) for v in x]`); `list(t)`, `tuple(t)`, `set(t)` of a tensor; unpacking the
    result of a single-tensor op (`b, h, w, c = tf.shape(x)`, `f(*tf.shape(x))`); and
    `for` statements over a tensor in functions that run without AutoGraph
    (`autograph=False`, `do_not_convert`).

    A `for v in x:` statement in an ordinary `tf.function` is **not** flagged: AutoGraph
    turns it into a `tf.while_loop`. Neither is iterating a Python list of tensors
    (`tf.unstack(x)`, `tf.split(...)`, `tf.nest.flatten(...)`) or a static shape
    (`x.shape`).

    The iterated value must certainly be one tensor: the result of a TensorFlow op, a
    local bound only to such results, or a parameter of a `tf.function` with an
    `input_signature` (or annotated `tf.Tensor`). Other parameters are not flagged —
    on real code they are mostly Python lists or tuples of tensors, whose iteration is
    fine — so `[v * 2 for v in x]` with a plain parameter `x` is a known miss.

    ## Why is this bad?
    Only statement loops are converted. Everywhere else Python asks the tensor for its
    elements, and TensorFlow 2.21 raises `OperatorNotAllowedInGraphError: Iterating over a
    symbolic tf.Tensor is not allowed` — even when the shape is static.

    ## Example
    ```python
    @tf.function
    def f(x):
        rows = tf.reshape(x, [-1, 4])
        return tf.stack([r * 2 for r in rows])
    ```

    ## Use instead
    ```python
    @tf.function
    def f(x):
        rows = tf.reshape(x, [-1, 4])
        return tf.map_fn(lambda r: r * 2, rows)   # or a `for r in rows:` statement loop
    ```

    ## References
    - [AutoGraph common errors: iterating over tf.Tensor](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/common_errors.md)
    - [tf.map_fn](https://www.tensorflow.org/api_docs/python/tf/map_fn)
    """

    CODE = "TFL203"
    NAME = "tensor-iteration-in-comprehension"
    MESSAGE = "{what} iterates a symbolic tensor, which fails while tracing; {fix}"
    SEVERITY = Severity.ERROR
    PITFALLS = ("P15",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    total = tf.zeros([])
    for row in x:                              # statement loop: AutoGraph converts it
        total += tf.reduce_sum(row)
    parts = tf.unstack(x)                      # a Python list of tensors
    doubled = [p * 2 for p in parts]
    dims = [d for d in x.shape]                # static shape
    batch = tf.shape(x)[0]
    return total, tf.stack(doubled), dims, batch
''',
        '''import tensorflow as tf

@tf.function
def split_seed(seed, n):
    seeds = tf.random.stateless_uniform([n, 2], seed=seed, maxval=2**30, dtype=tf.int32)
    if isinstance(n, int):
        seeds = tf.unstack(seeds)                 # now a Python list of n tensors
        seeds = [tf.identity(s) for s in seeds]   # iterates that list
    return seeds
''',
'''import tensorflow as tf

@tf.function
def decode(logits, lengths):
    decoded, _ = tf.nn.ctc_beam_search_decoder(tf.transpose(logits, (1, 0, 2)), lengths, beam_width=4,
                                               top_paths=2)
    decoded = [tf.cast(d, tf.int32) for d in decoded]   # a Python list of SparseTensors
    return tf.sparse.to_dense(decoded[0])
''',
        # ``keras.ops.shape`` returns a Python tuple, also while tracing (ghif/nerf-keras,
        # held-out set 105; checked on 2.21)
        '''import tensorflow as tf
from keras import ops

@tf.function
def sample(weights):
    height, width = ops.shape(weights)[1:3]
    return tf.zeros([height, width])
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None, 4, 4, 3], tf.float32)])
def f(x):
    doubled = tf.stack([v * 2 for v in x])  # TFL203
    b, h, w, c = tf.shape(x)  # TFL203
    padded = tf.zeros([*tf.shape(x)[:2], 8])  # TFL203
    rows = list(tf.reduce_sum(x, axis=1))  # TFL203
    return doubled, b * h * w * c, rows, padded
''',
        '''import tensorflow as tf

@tf.function(autograph=False, input_signature=[tf.TensorSpec([3], tf.float32)])
def total(x):
    s = 0.0
    for v in x:  # TFL203
        s += v
    return s
''',
    )

    def _fix(self) -> str:
        return "use `tf.map_fn`, vectorized ops, or `tf.unstack` for a static size"

    def visit_CompFor(self, node: cst.CompFor, ctx: Ctx) -> None:
        if self.sem.strong_tensor(node.iter, ctx.fn) and not self._shadowed(node.iter, ctx):
            self.report(node.iter, self.MESSAGE.format(what="a comprehension", fix=self._fix()), ctx=ctx)

    def _shadowed(self, it: cst.BaseExpression, ctx: Ctx) -> bool:
        """The iterable uses a target of an enclosing comprehension (judged wrongly)."""
        for c in ctx.within_function():
            if isinstance(c.node, _COMP_TYPES) and mentions(it, comprehension_targets(c.node)):
                return True
        return False

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        name = next((n for n in ("list", "tuple", "set") if sem.is_builtin(node.func, n, ctx.fn)), None)
        if name is not None and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            if self._single_tensor(node.args[0].value, ctx.fn):
                self.report(node, self.MESSAGE.format(what=f"`{name}()`", fix=self._fix()), ctx=ctx)
                return
        for a in node.args:
            if a.star == "*" and self._single_tensor(a.value, ctx.fn):
                self.report(a, self.MESSAGE.format(what="`*` unpacking", fix=self._fix()), ctx=ctx)

    def visit_StarredElement(self, node: cst.StarredElement, ctx: Ctx) -> None:
        # `[*tf.shape(x)[:2], 3]`; a call is never an assignment target, so no `a, *b = ...`
        if self._single_tensor_op(node.value):
            self.report(node, self.MESSAGE.format(what="`*` unpacking", fix=self._fix()), ctx=ctx)

    def visit_Assign(self, node: cst.Assign, ctx: Ctx) -> None:
        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets) and \
                self._single_tensor(node.value, ctx.fn):
            self.report(node, self.MESSAGE.format(what="tuple unpacking", fix="index it: `t[0]`, `t[1]`"),
                        ctx=ctx)

    def _single_tensor(self, e: cst.BaseExpression, fn: FunctionInfo | None) -> bool:
        """Certainly one tensor: the result of a known single-output op (or a slice of it)."""
        while isinstance(e, cst.Subscript):
            e = e.value
        if isinstance(e, cst.Name) and fn is not None:
            for f in fn.scope_chain():
                if e.value in f.param_names or e.value in f.bound:
                    vals = f.assigns.get(e.value, [])
                    return bool(vals) and e.value not in f.param_names and \
                        all(self._single_tensor_op(v) for v in vals)
            return False
        return self._single_tensor_op(e)

    def _single_tensor_op(self, e: cst.BaseExpression) -> bool:
        return self.sem.single_tensor_op(e)

    def visit_For(self, node: cst.For, ctx: Ctx) -> None:
        if self.sem.strong_tensor(node.iter, ctx.fn) and self.sem.autograph_off(ctx.fn):
            self.report(node.iter, self.MESSAGE.format(what="a `for` loop without AutoGraph",
                                                       fix=self._fix()), ctx=ctx)


# ---------------------------------------------------------------------------------------
# TFL205


_BAD_BUILTINS = ("round", "complex", "divmod", "hex", "oct", "bin", "chr")
#: builtins that AutoGraph turns into ops, and that fail on a symbolic tensor without it
_UNCONVERTED_BUILTINS = {
    "len": "use `x.shape` (static) or `tf.shape(x)[0]`",
    "int": "keep it a tensor (`tf.cast`), or use the static `x.shape`",
    "float": "keep it a tensor (`tf.cast`), or use the static `x.shape`",
}


class PythonMathOnTensor(Rule):
    """`math.*` or a Python builtin that needs a number, applied to a tensor.

    ## What it does
    Flags, in traced code, calls of the standard library's `math.*` / `cmath.*`
    functions and of the builtins `round`, `complex`, `divmod`, `hex`, `oct`, `bin`,
    `chr` when an argument is a tensor. NumPy functions on tensors are TFL104. `float(t)`,
    `int(t)`, `abs(t)`, `len(t)`, `pow(t, 2)` and `sum([...])` are fine: AutoGraph or the
    tensor's own operators handle them. `math.*` on static values (`math.sqrt(d_model)`,
    `math.prod(x.shape)`) is fine too. The argument must certainly be a tensor (a
    TensorFlow op result, a local bound to one, arithmetic on those): a bare parameter
    is not flagged, as helpers called from traced code often receive Python numbers.

    Where AutoGraph does not convert the code, `len(t)`, `int(t)` and `float(t)` of a
    tensor are flagged too: in `tf.function(autograph=False)`, and under Keras 3 in a
    `train_step` that `fit` runs and in a loss or metric handed to `compile` (whose
    `y_true` and `y_pred` are tensors). A Keras 3 layer's `call` is TFL601's.

    ## Why is this bad?
    These functions need a Python number; a symbolic tensor has none while tracing.
    TensorFlow 2.21 raises `TypeError: must be real number, not SymbolicTensor` for
    `math.sqrt(t)` (and `type SymbolicTensor doesn't define __round__ method` for
    `round(t)`). Code that works eagerly fails under `tf.function`.
    Without AutoGraph the same holds for `int(t)` and `float(t)`, and `len(t)` raises
    `TypeError: len is not well defined for a symbolic Tensor`, even when the shape is
    static (checked on TensorFlow 2.21 with Keras 3.15: a metric that calls
    `len(y_true)` fails inside `fit`).

    ## Example
    ```python
    @tf.function
    def f(x):
        return math.sqrt(tf.reduce_sum(x)) + round(x[0])
    ```

    ## Use instead
    ```python
    @tf.function
    def f(x):
        return tf.sqrt(tf.reduce_sum(x)) + tf.round(x[0])
    ```

    ## References
    - [tf.math](https://www.tensorflow.org/api_docs/python/tf/math)
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    """

    CODE = "TFL205"
    NAME = "python-math-on-tensor"
    MESSAGE = "`{what}` needs a Python number, but gets a symbolic tensor while tracing; use `{fix}`"
    UNCONVERTED_MESSAGE = ("`{what}` of a symbolic tensor raises a TypeError in code that runs without "
                           "AutoGraph; {fix}")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P13",)
    VALID = (
        '''import math
import tensorflow as tf

@tf.function
def attention(q, k, d_model: int = 64):
    scale = math.sqrt(d_model)                 # a Python int
    n = math.prod(q.shape[1:])                 # static shape
    steps = int(tf.shape(q)[0]) + abs(q[0, 0]) # converted / tensor operators
    return tf.matmul(q, k, transpose_b=True) / scale, n, steps
''',
        '''import keras
import tensorflow as tf

class Model(keras.Model):
    def train_step(self, data):
        if len(data) == 3:               # a tuple of tensors: Python len works
            x, y, _ = data
        else:
            x, y = data
        with tf.GradientTape() as tape:
            loss = self.compute_loss(y=y, y_pred=self(x, training=True))
        return {"loss": loss, "n": int(x.shape[0])}
''',
    )
    INVALID = (
        '''import math
import tensorflow as tf

@tf.function
def f(x):
    norm = math.sqrt(tf.reduce_sum(x * x))  # TFL205
    mean = tf.reduce_mean(x)
    first = round(mean)  # TFL205
    return norm + first + math.log(mean + 1.0)  # TFL205
''',
        '''import keras
import numpy as np
import tensorflow as tf

def mean_error(y_true, y_pred):
    n = len(y_true)  # TFL205
    return tf.reduce_sum(tf.abs(y_true - y_pred)) / n

@tf.function(autograph=False)
def count(x):
    return int(tf.reduce_sum(x))  # TFL205

model = keras.Sequential([keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[mean_error])
model.fit(np.zeros((8, 2)), np.zeros((8, 1)))
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        what = None
        q = sem.qualified_startswith(node.func, ("math.", "cmath."))
        if q is not None and q.count(".") == 1:
            what, fix = q, "tf.math." + q.split(".", 1)[1]
        else:
            b = next((n for n in _BAD_BUILTINS if sem.is_builtin(node.func, n, ctx.fn)), None)
            if b is not None:
                what, fix = b + "()", {"round": "tf.round"}.get(b, "a tf.* op")
        if what is None:
            self._unconverted(node, ctx)
            return
        if any(a.keyword is None and not a.star and sem.strong_tensor(a.value, ctx.fn) for a in node.args):
            self.report(node, self.MESSAGE.format(what=what, fix=fix), ctx=ctx)

    def _unconverted(self, node: cst.Call, ctx: Ctx) -> None:
        """``len(t)``, ``int(t)``, ``float(t)`` of a tensor where AutoGraph, which would
        turn them into ops, does not convert the code (a Keras 3 ``call`` is TFL601's)."""
        func, sem, fn = node.func, self.sem, ctx.fn
        if type(func) is not cst.Name or func.value not in _UNCONVERTED_BUILTINS or len(node.args) != 1 or \
                node.args[0].star or node.args[0].keyword is not None or fn is None:
            return
        if not sem.is_builtin(func, func.value, fn) or not sem.autograph_off(fn) or sem.keras3_call_of(fn) is not None:
            return
        arg, given = node.args[0].value, sem.compile_tensor_params(fn)
        with sem.params_as_tensors(fn, only=given):
            # a parameter Keras fills with a tensor counts as one here, bare as it is
            hit = sem.strong_tensor(arg, fn, type(arg) is cst.Name and arg.value in given)
        if hit:
            self.report(node, self.UNCONVERTED_MESSAGE.format(what=f"{func.value}()",
                                                              fix=_UNCONVERTED_BUILTINS[func.value]), ctx=ctx)


# ---------------------------------------------------------------------------------------
# TFL601


class TensorConditionInKeras3Call(Rule):
    """A Python `if`/`while`/`for`/`len()`/`int()` on a tensor in a Keras 3 `call` or its helpers.

    ## What it does
    Flags `if`, `while` and conditional expressions (`a if t else b`) whose test is a
    tensor (computed from the inputs of `call`), a `for` loop over a tensor or over
    `range()` of one, and `len()`, `int()`, `float()` or `bool()` of a tensor, inside `call` of a subclass of
    `keras.layers.Layer`, `keras.Layer`, `keras.Model` (and `tf.keras.*`, which is
    Keras 3 from TensorFlow 2.16 on), and inside the functions of the module that `call`
    calls (`self._helper(x)`, a module function), directly or through each other. In a
    helper only the results of TensorFlow ops count as tensors (`tf.shape(x)[0]`, a local
    bound to one), not its parameters. A `for` loop or a conversion counts only on the result
    of an op, never on an input, which is often a Python list of tensors. Subclasses of
    `tf_keras.*` (Keras 2) are not flagged, nor is a `call` (or a helper) decorated with
    `@tf.function`, which AutoGraph converts. Static tests (`if training:`,
    `if mask is None:`, `if x.shape[-1] == 1:`, `tf.keras.backend.ndim(x) == 2`) are
    fine, and so is the bare truth value of an input (`if context_inputs:`), which is
    usually a Python list, dict or `None`; a comparison of an input (`if x > 0:`) is
    flagged. Only the first argument of `call` counts as a tensor: Keras passes the
    others as the caller gave them (a mask tensor or a Python `dim`), so `if dim % 2:` is
    not flagged. Keras helpers that return Python values (`keras.backend.standardize_dtype`,
    `keras.ops.shape`, whose known dimensions are Python ints) do not make a tensor
    either. A helper that `call` reaches only under an eager-only guard is not checked.
    Nor is a layer flagged when neither its module nor any project module that imports it
    (directly or not) runs anything as a graph: no `tf.function`, tf.data transformation,
    `fit`/`evaluate`/`predict`, `Input`, `Sequential`, functional `Model`, `build`,
    `summary` or export. Such a project calls its layers eagerly, on concrete tensors,
    where the condition is a plain bool. Nor is a layer flagged that an application never
    makes: no module of the project names its class (or a class derived from it) outside
    their own bodies, not even in a string or a `globals()` look-up, and the project is
    not packaged for others (no `setup.py`, nor a `pyproject.toml` or `setup.cfg` that
    declares a package). A saved copy of an old module is the usual case. Nor is a layer
    whose every instance the application makes and calls only in eager code: bound to a
    name in module-level code or in a plain function that nothing traces and that runs
    only from such code (`model = Predictor()` in `main()`, called in its `GradientTape`
    loop, or handed to an undecorated `train_step(model, x)`), or held by `self.<attr>`
    (alone or in a list, or read back into a local) of a model or trainer object whose own
    instances are used only so; never where that
    code makes a `keras.Input`, fits, predicts, or hands the instance to anything else.
    Nor is a test
    under `if tf.executing_eagerly():` (or a `run_eagerly` flag, or in a `try` body):
    the author's eager path, with the graph path beside it.

    ## Why is this bad?
    Keras 3 does not run AutoGraph on `call`. When it infers output shapes (building a
    functional model) and inside `fit`, `call` receives symbolic tensors, and a Python
    condition on one raises `OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor
    as a Python bool is not allowed`; `len()` of one raises `TypeError: len is not well
    defined for a symbolic Tensor`, `int()` and `range()` of one a `TypeError` ('SymbolicTensor'
    object cannot be interpreted as an integer), and iterating one
    `OperatorNotAllowedInGraphError`. AutoGraph does not convert the functions `call`
    calls either: it converts the callees only of converted code. Code written for Keras 2, where `fit` converted
    `call` with AutoGraph, breaks when upgraded to TensorFlow 2.16 or later.

    ## Example
    ```python
    class Gate(keras.layers.Layer):
        def call(self, x):
            if tf.reduce_sum(x) > 0:
                return x * 2
            return x

    model = keras.Sequential([keras.Input((4,)), Gate()])
    ```

    ## Use instead
    ```python
    class Gate(keras.layers.Layer):
        def call(self, x):
            return keras.ops.cond(keras.ops.sum(x) > 0, lambda: x * 2, lambda: x)

    model = keras.Sequential([keras.Input((4,)), Gate()])
    ```
    or `tf.where(...)` for an element-wise choice.

    ## References
    - [keras-team/keras#20592](https://github.com/keras-team/keras/issues/20592)
    - [tensorflow/tensorflow#40880](https://github.com/tensorflow/tensorflow/issues/40880)
    - [keras.ops.cond](https://keras.io/api/ops/core/#cond-function)
    """

    CODE = "TFL601"
    NAME = "tensor-condition-in-keras3-call"
    MESSAGE = "Python {what} on a tensor in {where}, which runs without AutoGraph; {fix}"
    SEVERITY = Severity.ERROR
    TRACED_ONLY = False
    TEXT_MARKERS = (r"def call\(",)
    PITFALLS = ("P38", "P14")
    VALID = (
        '''import tensorflow as tf
from tensorflow.keras import backend as K


class StatefulGRU(tf.keras.layers.RNN):
    def call(self, inputs, initial_state=None):
        def step(x, states):
            return self.cell.call(x, states)

        last, outputs, states = K.rnn(step, inputs, initial_state)
        for i in range(len(states)):          # K.rnn's states: a Python list of tensors
            self.states[i].assign(states[i])
        return outputs


model = tf.keras.Sequential([StatefulGRU(tf.keras.layers.GRUCell(4))])
''',
        '''import tensorflow as tf

class NoisyDense(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 4))

    def call(self, inputs):
        def rank(tensor):
            """Return a rank if it is a tensor, else return None."""
            if isinstance(tensor, tf.Tensor):
                return tensor._rank()         # the static rank: a Python int
            return None

        inputs = tf.convert_to_tensor(inputs)
        rank = rank(inputs)
        if rank > 2:
            return tf.tensordot(inputs, self.w, [[rank - 1], [0]])
        return tf.matmul(inputs, self.w)
''',
        '''import tensorflow as tf

class Generator(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.b4 = tf.keras.layers.Dense(4)
        self.b8 = tf.keras.layers.Dense(4)

    def call(self, inputs, current_resolution, current_phase="training"):
        out = self.b4(inputs)
        if current_resolution > 4:          # a Python int: every call gives one
            out = self.b8(out)
        return out

generator = Generator()

@tf.function
def train_step(x, resolution):
    return generator(x, current_resolution=resolution)

for resolution in (4, 8, 16):
    train_step(tf.ones([2, 3]), resolution)
''',
        '''import tensorflow as tf
import tf_keras
from tensorflow import keras

class Gate(keras.layers.Layer):
    def call(self, x, training=None, mask=None):
        if training:                          # a Python bool
            x = tf.nn.dropout(x, 0.1)
        if mask is not None:
            x = x * tf.cast(mask, x.dtype)
        if x.shape[-1] == 1:                  # static shape
            x = tf.squeeze(x, -1)
        return tf.where(tf.reduce_sum(x) > 0, x * 2, x)

class Legacy(tf_keras.layers.Layer):          # Keras 2: fit runs AutoGraph on call
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            return x * 2
        return x

def helper(x):
    if tf.reduce_sum(x) > 0:                  # not a Layer.call
        return x
    return -x
''',
        '''import tensorflow as tf

class Unroll(tf.keras.layers.Layer):
    def call(self, inputs, training=None, mask=None):
        if training is None:
            training = tf.keras.backend.learning_phase()
        if training:
            inputs = tf.nn.dropout(inputs, 0.1)
        if mask is not None and tf.keras.backend.ndim(mask) != 2:
            raise ValueError("mask must be 2-D")
        state, messages, context = inputs
        if context:                           # a Python list/dict/None
            raise ValueError("no context input")
        if tf.nest.flatten(messages):
            state = state + tf.add_n(tf.nest.flatten(messages))
        steps = tf.compat.dimension_value(state.shape[0]) or tf.shape(state)[0]
        if not tf.is_tensor(steps) and steps == 1:
            return state
        return state * 2
''',
        '''import keras
from keras import ops

class TimestepEmbedding(keras.layers.Layer):
    def call(self, t, dim, max_period=10000):
        if keras.backend.standardize_dtype(t.dtype) == "float16":   # a dtype name
            t = ops.cast(t, "float32")
        half = ops.arange(dim // 2, dtype=t.dtype)
        if dim % 2 != 0:                      # `dim`: whatever the caller passed, a Python int here
            half = ops.pad(half, [[0, 1]])
        if ops.shape(t)[0] == 0:              # a Python int where the dimension is known
            return t
        return t[:, None] * half[None]
''',
        '''import tensorflow as tf
import keras

class Bigram(keras.Model):
    def __init__(self):
        super().__init__()
        self.emb = keras.layers.Embedding(10, 4)

    def call(self, idx):
        if tf.size(tf.shape(idx)) == 1:       # only ever called eagerly: a concrete bool
            idx = idx[None]
        return self.emb(idx)

m = Bigram()
opt = keras.optimizers.Adam()
for x in [tf.zeros((1, 5), tf.int64)]:
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(m(x))
    opt.apply_gradients(zip(tape.gradient(loss, m.trainable_variables), m.trainable_variables))
''',
'''import tensorflow as tf

class U2I(tf.keras.layers.Layer):
    def call(self, inputs):
        x, stage = inputs                 # stage: the Python str every caller puts there
        if stage == "train":
            return x * 2.0
        return x

class Ranker(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.stage = "train"
        self.u2i = U2I()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.u2i([self.dense(x), self.stage])

Ranker().fit(tf.ones([4, 3]), tf.ones([4, 2]))
''',
        '''import keras
import tensorflow as tf

class Shift(keras.layers.Layer):
    def call(self, x):
        flag = tf.equal(tf.reduce_sum(x), 0.0)
        if tf.executing_eagerly():
            if flag:                          # only ever runs eagerly
                x = x + 1.0
        else:
            x = tf.cond(flag, lambda: x + 1.0, lambda: x)
        return x

model = keras.Sequential([keras.Input((3,)), Shift()])
model.fit(tf.ones([4, 3]), tf.ones([4, 3]))
''',
        '''import keras
import tensorflow as tf

class Pool(keras.layers.Layer):
    def __init__(self, window, use_cache=False):
        super().__init__()
        self.window = window
        self.use_cache = use_cache

    def call(self, inputs):
        parts = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        if len(parts) == 1:                   # a Python list of inputs
            parts = parts * 2
        for part in parts:                    # iterating the list, not a tensor
            tf.debugging.assert_rank(part, 2)
        x = tf.add_n(parts)
        for i in range(x.shape[-1] or 1):     # the static last dimension
            x = x * float(i)
        scale = float(self.window) / int(x.shape[-1] or 1)
        x = x * scale
        return self._pool(x, self.window) + self._scan(x) + self._eager(x)

    def _pool(self, x, window):
        if window > 1 and self.use_cache:     # Python settings
            x = tf.nn.avg_pool1d(x[..., None], window, 1, "SAME")[..., 0]
        return x

    @tf.function                              # AutoGraph converts it
    def _scan(self, x):
        if tf.reduce_sum(x) > 0:
            x = x * 2.0
        return x

    def _eager(self, x):
        if tf.executing_eagerly():
            if tf.reduce_sum(x) > 0:          # only ever runs eagerly
                return x
        return x * 0.0

model = keras.Sequential([keras.Input((3,)), Pool(2)])
model.fit(tf.ones([4, 3]), tf.ones([4, 3]))
''',
        '''import tensorflow as tf
from tensorflow.keras import layers

image = tf.ones([1, 8, 8, 3])
model = tf.keras.Sequential([layers.Rescaling(1. / 255)])


def random_invert_img(x, p=0.5):
    if tf.random.uniform([]) < p:
        x = (255 - x)
    return x


class RandomInvert(layers.Layer):
    def call(self, x):
        return random_invert_img(x)


_ = RandomInvert()(image)[0]                  # made and called once, eagerly, on an image
''',
        '''\"\"\"A gate layer. Usage:

    model = keras.Sequential([keras.Input((4,)), Gate()])
    model.fit(x, y)
\"\"\"
import keras
import tensorflow as tf


class Gate(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:              # the module only ever calls it eagerly
            return x * 2
        return x


layer = Gate()
print(layer(tf.ones([2, 4])))                 # model.fit(...) is for later
''',
        '''import keras
from keras import ops


class Block(keras.layers.Layer):
    def _resolve_shift_size(self, x):
        return 3 if x.shape[1] is not None else ops.shape(x)[1] // 2

    def call(self, x):
        shift = self._resolve_shift_size(x)
        shift_is_static = isinstance(shift, int)
        apply_shift = shift > 0 if shift_is_static else True   # a Python bool either way
        if apply_shift:
            x = ops.roll(x, shift=-shift, axis=1)
        return x


model = keras.Sequential([keras.Input((8, 4)), Block()])
''',
        '''import tensorflow as tf


class Conv2D(tf.keras.layers.Layer):
    def call(self, x):
        n, h, w, c = tf.shape(x)
        out = int((h - 3) / 1) + 1            # eager: int() of a concrete tensor
        for i in range(out):
            x = x + 1.0
        return x


model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
conv = Conv2D()
x = tf.random.uniform((2, 8, 8, 3))
print(conv(x).shape)                          # only ever called here, eagerly
''',
        '''import tensorflow as tf


class Conv2D(tf.keras.layers.Layer):
    def call(self, x):
        for i in range(int(tf.shape(x)[1]) - 2):    # eager: a concrete tensor
            x = x + 1.0
        return x


model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
a = tf.ones([2, 2])
print(a.shape)
a = Conv2D()                                  # a notebook cell reuses the name
print(a(tf.ones([1, 4, 4, 1])).shape)         # only ever called here, eagerly
spare = Conv2D()                              # never called
''',
        '''import tensorflow as tf


class MyGRU(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 2))

    def call(self, inputs):
        for x_t in tf.transpose(inputs, [1, 0, 2]):   # eager: a concrete tensor
            inputs = inputs + tf.reduce_sum(x_t @ self.kernel)
        return inputs


model = tf.keras.Sequential([tf.keras.layers.GRU(2)])
x = tf.ones([1, 3, 4])
my_gru = MyGRU()
my_gru.build(x.shape)                         # its own build: call does not run
my_gru.set_weights(my_gru.get_weights())
print(my_gru(x))                              # compared with the Keras GRU, eagerly
''',
    )
    INVALID = (
        '''import tensorflow as tf


class Conv2D(tf.keras.layers.Layer):
    def call(self, x):
        for i in range(tf.shape(x)[1]):  # TFL601
            x = x + 1.0
        return x


conv = Conv2D()
inputs = tf.keras.Input((4, 4, 1))
model = tf.keras.Model(inputs, conv(inputs))  # a symbolic call: it builds the model
''',
        '''import tensorflow as tf


class Conv2D(tf.keras.layers.Layer):
    def call(self, x):
        for i in range(tf.shape(x)[1]):  # TFL601
            x = x + 1.0
        return x


conv = Conv2D()
print(conv(tf.ones([1, 4, 4, 1])))


@tf.function
def step(x):
    return conv(x)                    # the same instance, traced
''',
        '''import tensorflow as tf


class Net(tf.keras.Model):
    def call(self, x):
        for i in range(tf.shape(x)[1]):  # TFL601
            x = x + 1.0
        return x


net = Net()
print(net(tf.ones([1, 4])))
net.compile(loss="mse")
net.predict(tf.ones([8, 4]))          # runs call as a graph
''',
        '''import tensorflow as tf
import keras

class Gate(keras.layers.Layer):
    def call(self, x):
        s = keras.ops.sum(x)
        if s > 0:  # TFL601
            return x * 2
        return x

class Clip(tf.keras.Model):
    def call(self, inputs):
        y = self.dense(inputs) if tf.reduce_max(inputs) < 1.0 else inputs  # TFL601
        while tf.reduce_max(y) > 10.0:  # TFL601
            y = y / 2
        return y

model = keras.Sequential([Gate(), Clip()])   # builds and runs them symbolically
model.compile(loss="mse")
''',
'''import tensorflow as tf

class Gate(tf.keras.layers.Layer):
    def call(self, inputs):
        x, score = inputs
        if score > 0.5:  # TFL601
            return x * 2.0
        return x

class Ranker(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.gate([self.dense(x), tf.reduce_mean(x)])

Ranker().fit(tf.ones([4, 3]), tf.ones([4, 2]))
''',
'''import tensorflow as tf
import keras

class Season(keras.layers.Layer):
    def call(self, inputs):
        if len(tf.shape(inputs)) == 1:  # TFL601
            inputs = tf.expand_dims(inputs, -1)
        return self._moving_average(inputs)

    def _moving_average(self, x):
        batch_size = tf.shape(x)[0]
        mid = int(tf.shape(x)[0] / 2)  # TFL601
        if tf.shape(x)[0] > 0:  # TFL601
            x = x * 2.0
        for i in range(batch_size):  # TFL601
            x = x + 1.0
        return self._center(x)

    def _center(self, x):
        for row in tf.unstack(x, num=4) if x.shape[0] == 4 else tf.split(x, 2):
            x = x - row
        for row in x - tf.reduce_mean(x):  # TFL601
            x = x - row
        return x

model = keras.Sequential([keras.Input((4,)), Season()])
model.fit(tf.ones([8, 4]), tf.ones([8, 4]))
''',
        # range() of a tensor outside a for loop raises too (held-out set 101's miss, AUTOVC)
        '''import tensorflow as tf
import keras


class Downsample(keras.layers.Layer):
    def call(self, x):
        keep = tf.equal(range(tf.shape(x)[1]) % 2, 0)  # TFL601
        steps = list(range(x.shape[1]))               # the static shape: a Python int
        return tf.boolean_mask(x, keep, axis=1) * len(steps)

model = keras.Sequential([keras.Input((4,)), Downsample()])
model.fit(tf.ones([8, 4]), tf.ones([8, 2]))
''',
        # a layer made and called at once gives a tensor (held-out set 99's miss, TreeVAE;
        # checked on 2.21: TypeError under fit)
        '''import tensorflow as tf

class TreeVAE(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(4)

    def call(self, inputs):
        x = tf.keras.layers.Flatten()(inputs)
        prob = tf.ones(len(x))  # TFL601
        return self.dense(x) * prob[:, None]

model = TreeVAE()
model.compile("adam", "mse")
model.fit(tf.ones([8, 2, 2]), tf.ones([8, 4]))
''',
        '''import tensorflow as tf
import keras


class CRF(keras.layers.Layer):
    def call(self, inputs):
        return self.forward_score(inputs)

    def forward_score(self, features):   # gets call's symbolic inputs
        if features.shape[0] is None or features > 0:  # TFL601
            return features
        return -features


model = keras.Sequential([keras.Input((3, 2)), CRF()])
''',
    )

    def _where(self, ctx: Ctx) -> tuple[FunctionInfo, str | Callable[[], str]] | None:
        """The Keras 3 ``call`` that runs this code without AutoGraph, and where it is said
        to be: ``call`` itself, or a function it calls (see ``keras3_call_of``)."""
        got = self.sem.keras3_call_of(ctx.fn)
        if got is None or eager_only_branch(ctx):
            return None  # (``if tf.executing_eagerly():``: the author's eager path, tf.cond beside it)
        call, site = got
        where = f"Keras 3 `{call.cls.name}.call`"  # type: ignore[union-attr]
        if site is None:
            return call, where
        fn_name = ctx.fn.name  # type: ignore[union-attr]
        # the line is found only for a finding: a position costs a code generation
        return call, lambda: f"`{fn_name}`, called from {where} (line {self.sem.position(site).start.line})"

    def _flag(self, node: cst.CSTNode, what: str, fix: str, call: FunctionInfo,
              where: str | Callable[[], str]) -> None:
        # asked last: outside a project it reads the module's text (rare: a tensor test)
        if self.sem.keras_call_may_run_as_graph(call.cls):
            self.report(node, self.MESSAGE.format(what=what, where=where() if callable(where) else where, fix=fix))

    def _check(self, test: cst.BaseExpression, what: str, ctx: Ctx) -> None:
        got = self._where(ctx)
        if got is None:
            return
        call, where = got
        fn = ctx.fn
        # Keras 3 hands `call` its inputs as tensors, and `call` may hand them on
        with self.sem.params_as_tensors(fn, only=self.sem.keras3_symbolic_params(fn)):  # type: ignore[arg-type]
            hit = self.sem.condition_is_tensor(test, fn)
        if hit:
            self._flag(test, what, "use `keras.ops.cond` / `tf.cond` or `tf.where`", call, where)

    def visit_If(self, node: cst.If, ctx: Ctx) -> None:
        self._check(node.test, "`if`", ctx)

    def visit_While(self, node: cst.While, ctx: Ctx) -> None:
        self._check(node.test, "`while`", ctx)

    def visit_IfExp(self, node: cst.IfExp, ctx: Ctx) -> None:
        self._check(node.test, "conditional expression", ctx)

    def visit_For(self, node: cst.For, ctx: Ctx) -> None:
        if self.sem.keras3_call_of(ctx.fn) is None:
            return  # (asked first: one look-up, and most loops are elsewhere)
        it = node.iter
        if isinstance(it, cst.Call) and self.sem.is_builtin(it.func, "range", ctx.fn):
            self.__dict__.setdefault("_loop_ranges", set()).add(id(it))  # not again as a call
            if not any(self.sem.strong_tensor(a.value, ctx.fn, True) for a in it.args):
                return
            what = "`range()`"
        elif self.sem.strong_tensor(it, ctx.fn):
            what = "`for` loop"
        else:
            return
        got = self._where(ctx)
        if got is not None:
            self._flag(it, what, "use `tf.while_loop` / `keras.ops.fori_loop` or `tf.map_fn`", *got)

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        func = node.func
        if type(func) is cst.Name and func.value == "range" and node.args and id(node) not in \
                self.__dict__.get("_loop_ranges", ()) and self.sem.keras3_call_of(ctx.fn) is not None:
            # ``tf.equal(range(tf.shape(x)[1]) % k, 0)``: range() of a symbolic tensor raises
            if self.sem.is_builtin(func, "range", ctx.fn) and \
                    any(not a.star and self.sem.strong_tensor(a.value, ctx.fn, True) for a in node.args):
                got = self._where(ctx)
                if got is not None:
                    self._flag(node, "`range()`", "use `tf.range`", *got)
            return
        if type(func) is not cst.Name or func.value not in _KERAS3_CONVERSIONS or len(node.args) != 1 or \
                node.args[0].star or self.sem.keras3_call_of(ctx.fn) is None:
            return
        name = func.value
        if self.sem.is_builtin(func, name, ctx.fn) and self.sem.strong_tensor(node.args[0].value, ctx.fn):
            got = self._where(ctx)
            if got is not None:
                self._flag(node, f"`{name}()`", _KERAS3_CONVERSIONS[name], *got)


#: Python conversions a symbolic tensor refuses, with what to use instead
_KERAS3_CONVERSIONS = {
    "len": "use `x.shape` (static) or `tf.shape(x)` / `tf.rank(x)`",
    "int": "keep it a tensor (`tf.cast`), or use the static `x.shape`",
    "float": "keep it a tensor (`tf.cast`), or use the static `x.shape`",
    "bool": "use `keras.ops.cond` / `tf.cond` or `tf.where`",
}


# ---------------------------------------------------------------------------------------
# TFL602


class TfFunctionOnKeras3Call(Rule):
    """`@tf.function` on the `call` of a Keras 3 layer or model.

    ## What it does
    Flags a `tf.function` decorator (in any spelling) on the `call` method of a subclass
    of a Keras 3 layer or model (`keras.layers.Layer`, `keras.Model`, and `tf.keras.*`,
    which is Keras 3 from TensorFlow 2.16 on) when that `call` calls a layer kept on
    `self` (`self.dense(x)`, a list of them in a loop, or through the class's own
    methods), and the class has no `build` of its own. Under tf-keras (Keras 2), chosen
    by the imports, the project's pinned TensorFlow or the `keras-version` setting, it is
    not flagged: there the decorator works. Off by default: judged on the application
    corpus (252 findings), about half were right; whether the bug bites depends on how
    the model is first built and called, which the code rarely shows statically
    (`--extend-select TFL602`).

    ## Why is this bad?
    Keras 3 builds a layer on its first call by running `call` once on placeholder
    inputs. With `tf.function` around `call`, that run is a trace in which the sublayers
    create their variables, and the concrete function it leaves keeps their initial
    values as constants. Every later call with the same input signature (shapes, dtypes,
    the value of `training=`) reuses it: the sublayers' gradients are `None` (`fit`
    fails with "No gradients provided for any variable") and the outputs stay those of
    the initial weights, even after `set_weights` or `load_weights`. Calls with another
    signature trace afresh and work. Checked on TensorFlow 2.21 with Keras 3.15. It does
    not happen when the model is built first without that run: `model.build(shape)`, a
    `build` of the class's own, sublayers built in `__init__` (a `Sequential` that starts
    with `Input`), or a first call of `.call()` itself; nor for a stateless body or
    variables the layer makes itself with `add_weight`. Code written for tf.keras 2,
    where this was a common way to speed up a model, breaks, often silently, after the
    upgrade. Keras already compiles `call` inside `fit`, and a custom loop can put its
    `tf.function` on the training step instead.

    ## Example
    ```python
    class Encoder(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(64)

        @tf.function
        def call(self, x):
            return self.dense(x)
    ```

    ## Use instead
    ```python
    class Encoder(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(64)

        def call(self, x):
            return self.dense(x)

    @tf.function
    def train_step(x, y):
        ...
    ```

    ## References
    - [Migrating Keras 2 code to Keras 3](https://keras.io/guides/migrating_to_keras_3/)
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    """

    CODE = "TFL602"
    NAME = "tf-function-on-keras3-call"
    MESSAGE = ("`tf.function` on Keras 3 `{cls}.call`: the trace that builds the layer keeps its sublayers' "
               "initial weights as constants, so calls with that input signature get None gradients (\"No "
               "gradients provided\") and frozen outputs; remove the decorator (Keras compiles `call` in `fit`) "
               "or put `tf.function` on the training step")
    SEVERITY = Severity.ERROR
    DEFAULT_ON = False
    TRACED_ONLY = False
    TEXT_MARKERS = (r"def call\(",)
    PITFALLS = ("P38",)
    VALID = (
        '''import keras
import tensorflow as tf

class Mish(keras.layers.Layer):         # stateless: gradients flow through
    @tf.function
    def call(self, x):
        return x * tf.tanh(tf.nn.softplus(x))

class Scale(keras.layers.Layer):        # its own add_weight variable keeps its gradient
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],))

    @tf.function
    def call(self, x):
        return x * self.w

class Encoder(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(64)

    def call(self, x):
        return self.dense(x)

class Head(keras.layers.Layer):         # its own build: no placeholder run (checked on 2.21)
    def build(self, input_shape):
        self.dense = keras.layers.Dense(4)

    @tf.function
    def call(self, x):
        return self.dense(x)

class Exporter(tf.Module):             # not a Keras layer: tf.function is how it serves
    @tf.function
    def call(self, x):
        return x * 2

@tf.function
def train_step(model, x):
    return model(x)
''',
        '''import tf_keras as keras             # Keras 2: the decorator works there
import tensorflow as tf

class Encoder(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(64)

    @tf.function
    def call(self, x):
        return self.dense(x)
''',
    )
    INVALID = (
        '''import tensorflow as tf

class MyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(10)

    @tf.function  # TFL602
    def call(self, x, training=False):
        return self.dense(x)

class Block(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.convs = [tf.keras.layers.Conv2D(8, 3) for _ in range(2)]

    @tf.function(reduce_retracing=True)  # TFL602
    def call(self, x):
        return self.convs[1](self.convs[0](x))

class Stack(tf.keras.Model):                 # held-out set 103's misses
    def __init__(self):
        super().__init__()
        self.blocks = [tf.keras.layers.Dense(8) for _ in range(3)]

    @tf.function  # TFL602
    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return x

class AutoEncoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = tf.keras.layers.Dense(4)

    def encode(self, x):
        return self.encoder(x)

    @tf.function  # TFL602
    def call(self, x):
        return self.encode(x)
''',
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Ctx) -> None:
        if node.name.value != "call":
            return
        info = self.sem.function_of(node)
        if info is None or info.cls is None or not self.sem.is_keras3_layer_class(info.cls):
            return
        if "build" in info.cls.methods:
            return  # its own build: Keras does not build it by running the decorated call
        for d in node.decorators:
            func = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            if self.sem.is_tf_function_expr(func):
                if self._calls_a_sublayer(info):
                    self.report(d.decorator, self.MESSAGE.format(cls=info.cls.name))
                return

    @classmethod
    def _calls_a_sublayer(cls_, fn: FunctionInfo, _depth: int = 0) -> bool:
        """Does ``call`` call a layer kept on ``self`` (``self.dense(x)``,
        ``self.blocks[i](x)``, ``for block in self.blocks: x = block(x)``), set in
        ``__init__``/``build``, itself or through the class's own methods it calls
        (``self.encode(x)``)? Only those lose their gradients: the layer's own
        ``add_weight`` variables and a stateless body keep them (checked on TensorFlow 2.21
        with Keras 3.15)."""
        cls = fn.cls
        if cls is None or _depth > 3:
            return False

        def held(e: cst.BaseExpression) -> bool:
            while isinstance(e, cst.Subscript):
                e = e.value
            return isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and \
                e.value.value == fn.self_name and e.attr.value in cls.init_attrs and e.attr.value not in cls.methods

        #: loop variables over a list of layers kept on ``self``
        looped = {n for n, its in fn.loop_targets.items() if any(held(it) for it in its)}
        for call, _ in fn.calls:
            f = call.func
            if held(f) or isinstance(f, cst.Name) and f.value in looped:
                return True
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == fn.self_name:
                method = cls.methods.get(f.attr.value)
                if method is not None and method is not fn and cls_._calls_a_sublayer(method, _depth + 1):
                    return True
        return False
