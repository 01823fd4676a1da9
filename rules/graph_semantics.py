"""Python semantics that a graph does not keep: iterators, captured globals, TensorArray
writes, pruned ops and ``try/except`` around ops that fail only when the graph runs."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic import Ctx, FunctionInfo, dotted_name
from tflint.semantic.project import where as where_in
from tflint.semantic.values import is_generator, self_attr_values
from tflint.semantic.syntax import COMPREHENSIONS, child_nodes, comprehension_targets, walk_scope

# ---------------------------------------------------------------------------------------
# shared helpers


def _walk(node: cst.CSTNode, into_functions: bool = False) -> Iterator[cst.CSTNode]:
    """Every node below ``node`` (not into nested functions, lambdas and classes)."""
    stack = child_nodes(node)
    while stack:
        n = stack.pop()
        yield n
        if not into_functions and isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(child_nodes(n))


# ---------------------------------------------------------------------------------------
# TFL108


_CONTAINER_CALLS = frozenset({"list", "tuple", "range", "dict", "set", "sorted", "reversed", "enumerate", "zip",
                              "map", "filter"})


class PythonIteratorInTracedCode(Rule):
    """`next()` on a Python iterator or generator created outside traced code.

    ## What it does
    Flags `next(it)` in traced code when `it` is a Python iterator bound outside the traced
    function: `iter(<list, tuple, range, dict, NumPy array>)`, a generator expression, a
    call of a generator function of the module, or an `itertools` iterator, held in a module
    global, a variable of an enclosing function, an attribute set in `__init__`, or passed
    as an argument by a call in the same module. Iterators over a `tf.data.Dataset`
    (`next(iter(dataset))`, `iter(ds)`) are TensorFlow iterators and are fine, and so is an
    iterator created and consumed within the same trace. A `next()` whose value only
    builds a name (in an f-string, `"%d" % ...`, `str(...)` or a `name=` argument, as in
    `name=f"block_{next(_ids)}"`) is static structure and is not flagged either.

    ## Why is this bad?
    `next()` runs once, while the function is traced; the value it returned is frozen into
    the graph as a constant. Every later call returns that same first element
    (`1, 1, 1` instead of `1, 2, 3`) and the iterator only advances when the function
    retraces.

    ## Example
    ```python
    learning_rates = iter([0.1, 0.05, 0.01])

    @tf.function
    def step(x):
        return x * next(learning_rates)
    ```

    ## Use instead
    ```python
    learning_rates = iter(tf.data.Dataset.from_tensor_slices([0.1, 0.05, 0.01]))

    @tf.function
    def step(x):
        return x * next(learning_rates)   # a tf.data iterator advances in the graph
    ```
    Or take the value outside and pass it in as a tensor: `step(x, tf.constant(lr))`.

    ## References
    - [Better performance with tf.function: Using Python iterators and generators](https://www.tensorflow.org/guide/function#using_python_iterators_and_generators)
    """

    CODE = "TFL108"
    NAME = "python-iterator-in-traced-code"
    MESSAGE = ("`next()` on {what} runs once while tracing: every call gets the same element; "
               "use a tf.data iterator or pass the value in")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P07",)
    VALID = (
        '''import itertools
import tensorflow as tf

dataset = tf.data.Dataset.range(10).batch(2)
batches = iter(dataset)

@tf.function
def step(it):
    return next(it) * 2

@tf.function
def first():
    return next(iter(dataset))          # a fresh tf.data iterator

@tf.function
def g():
    return next(batches)                # a tf.data iterator advances in the graph

@tf.function
def static_structure(x):
    sizes = iter([4, 8])                # created and consumed within one trace
    return tf.reshape(x, [next(sizes), next(sizes)])

_ids = itertools.count()

@tf.function
def named(x):
    with tf.name_scope(f"block_{next(_ids)}"):
        return tf.identity(x, name="out_%d" % next(_ids))

step(iter(dataset))
''',
    )
    INVALID = (
        '''import itertools
import tensorflow as tf

learning_rates = iter([0.1, 0.05, 0.01])
counter = itertools.count()

def noise():
    while True:
        yield 0.1

source = noise()

@tf.function
def step(x):
    y = x * next(learning_rates)  # TFL108
    return y + next(source) + next(counter)  # TFL108

@tf.function
def consume(it):
    return next(it)  # TFL108

values = iter([1, 2, 3])
consume(values)
consume(values)
''',
        '''import tensorflow as tf

class Schedule(tf.Module):
    def __init__(self):
        self.rates = (r for r in [0.1, 0.01])

    @tf.function
    def __call__(self, x):
        return x * next(self.rates)  # TFL108
''',
    )

    def __init__(self, sem, sink) -> None:
        super().__init__(sem, sink)
        #: expressions that only build a name (f-strings, `name=`, `"%d" % ...`, `str()`)
        self._naming: set[int] = set()

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression, ctx: Ctx) -> None:
        self._naming.add(id(node.expression))

    def visit_Arg(self, node: cst.Arg, ctx: Ctx) -> None:
        if node.keyword is not None and node.keyword.value in ("name", "scope", "name_or_scope", "prefix"):
            self._naming.add(id(node.value))

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx: Ctx) -> None:
        if isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or \
                isinstance(node.right, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            self._naming.add(id(node.left))
            self._naming.add(id(node.right))
            if isinstance(node.right, cst.Tuple):
                self._naming.update(id(e.value) for e in node.right.elements)

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        if isinstance(node.func, cst.Name) and node.func.value == "str" or \
                isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
            self._naming.update(id(a.value) for a in node.args)
            return
        if id(node) in self._naming:
            return  # a counter used for unique names: static structure, fine
        if not sem.is_builtin(node.func, "next", ctx.fn) or not node.args:
            return
        arg = node.args[0].value
        what = self._captured_iterator(arg, ctx.fn)
        if what is not None:
            self.report(node, self.MESSAGE.format(what=what), ctx=ctx)

    def _captured_iterator(self, expr: cst.BaseExpression, fn: FunctionInfo | None) -> str | None:
        sem = self.sem
        if isinstance(expr, cst.Attribute):
            vals = self_attr_values(expr, fn)
            if vals:
                return self._judge(vals, None, f"`{dotted_name(expr)}`")
            return None
        if not isinstance(expr, cst.Name):
            return None
        found = sem.bound_values(expr.value, fn)
        if found is None:
            return None
        kind, owner, vals = found
        if kind == "module":
            return self._judge(vals, None, f"`{expr.value}`")
        if kind == "local":
            if owner is None or owner.traced:
                return None  # created in the same trace
            return self._judge(vals, owner, f"`{expr.value}`")
        # a parameter of a traced function: look at what the module passes
        assert owner is not None
        if not owner.traced:
            return None
        return self._passed_iterator(owner, expr.value)

    def _passed_iterator(self, callee: FunctionInfo, param: str) -> str | None:
        sem = self.sem
        positional = [p for p in callee.params if p.star not in ("*", "**")]
        idx = next((i for i, p in enumerate(positional) if p.name.value == param), None)
        if idx is None:
            return None
        if callee.self_name is not None and callee.cls is not None:
            idx -= 1  # self.method(...) or obj.method(...) passes self implicitly
        for call, cctx in sem.all_calls:
            if not isinstance(call.func, cst.Name) or call.func.value != callee.name:
                if not isinstance(call.func, cst.Attribute) or call.func.attr.value != callee.name:
                    continue
            if sem.resolve_callee(call, cctx.fn) is not callee:
                continue
            arg = None
            pos = [a for a in call.args if a.keyword is None and not a.star]
            if 0 <= idx < len(pos):
                arg = pos[idx].value
            for a in call.args:
                if a.keyword is not None and a.keyword.value == param:
                    arg = a.value
            if not isinstance(arg, cst.Name):
                continue
            found = sem.bound_values(arg.value, cctx.fn)
            if found is None:
                continue
            kind, owner, vals = found
            if kind == "param" or (owner is not None and owner.traced):
                continue
            what = self._judge(vals, owner, f"`{param}`")
            if what is not None:
                return what[:-1] + f", passed as `{arg.value}` on line {sem.line_of(call)})"
        return None

    def _judge(self, vals: list[cst.BaseExpression], fn: FunctionInfo | None, label: str) -> str | None:
        """Describe the Python iterator these bindings hold; None unless every known
        binding is one (a name that may also hold a tf.data iterator is left alone)."""
        kinds = [self._iterator_kind(v, fn) for v in vals]
        if not kinds or any(k is None for k in kinds):
            return None
        return f"{label} ({kinds[0]})"

    def _iterator_kind(self, v: cst.BaseExpression, fn: FunctionInfo | None) -> str | None:
        sem = self.sem
        if isinstance(v, cst.GeneratorExp):
            return "a Python generator"
        if not isinstance(v, cst.Call):
            return None
        if sem.is_builtin(v.func, "iter", fn) and len(v.args) == 1:
            inner = v.args[0].value
            if self._python_iterable(inner, fn, 0):
                return "a Python iterator"
            return None
        q = sem.qualified_startswith(v.func, ("itertools.",))
        if q is not None:
            return f"a Python `{q}` iterator"
        callee = sem.resolve_callee(v, fn)
        if callee is not None and is_generator(callee):
            return f"a Python generator (`{callee.name}()`)"
        return None

    def _python_iterable(self, e: cst.BaseExpression, fn: FunctionInfo | None, depth: int) -> bool:
        """A Python container (never a Dataset or a tensor)."""
        sem = self.sem
        if depth > 4:
            return False
        if isinstance(e, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp,
                          cst.GeneratorExp, cst.SimpleString)):
            return True
        if isinstance(e, cst.Call):
            if isinstance(e.func, cst.Name) and e.func.value in _CONTAINER_CALLS and \
                    sem.is_builtin(e.func, e.func.value, fn):
                return not any(sem.is_dataset_expr(a.value, fn) or sem.is_tensor(a.value, fn) for a in e.args)
            if sem.qualified_startswith(e.func, ("numpy.",)):
                return True
            if isinstance(e.func, cst.Attribute) and e.func.attr.value in ("items", "keys", "values") and \
                    not e.args:
                return True
            return False
        if isinstance(e, cst.Name):
            found = sem.bound_values(e.value, fn)
            if found is None or found[0] == "param":
                return False
            kind, owner, vals = found
            return bool(vals) and all(self._python_iterable(x, owner, depth + 1) for x in vals)
        return False


# ---------------------------------------------------------------------------------------
# TFL109


def _is_main_guard(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.If) or not isinstance(node.test, cst.Comparison):
        return False
    t = node.test
    texts = {dotted_name(t.left)} | {dotted_name(c.comparator) if not isinstance(c.comparator, cst.SimpleString)
                                     else "<str>" for c in t.comparisons}
    return "__name__" in texts


class StaleCapturedGlobal(Rule):
    """Traced code reads a module global that the module rebinds later.

    ## What it does
    Flags a read, in traced code, of a module-level name that holds a Python value (a
    number, string, bool, list, dict, tuple or NumPy array) and is rebound after the
    traced function is defined: reassigned by a later module-level statement, used as
    the target of a module-level `for` loop, or assigned through `global` in a function.
    Names that are only ever bound once (constants, `UPPER_CASE` settings), modules,
    functions, classes, `tf.Variable`s, `tf.constant`s and Keras objects are not flagged,
    nor are alternative definitions at import time (`try/except ImportError`, `if`/`else`)
    or a lazy initialisation under `if _x is None:`. Nor is a latch that only guards
    traced code (`if not _initialized: raise RuntimeError(...)`, or an `assert`), when
    the functions that set it through `global` all set it to one constant: a trace
    before it is set raises, so every graph holds the value it keeps.

    The same goes for `self.<attr>` read in a traced method when an eager method of the
    class rebinds it to a Python value and also calls a `tf.function` method of the class
    (a training loop that keeps a moving average on `self` between steps). A setter that
    runs before anything is traced (`compile(...)`) calls no traced method and is not
    flagged. Likewise an attribute that an eager loop of the class rebinds to a new
    Python value or tensor, directly or through a method of the class it calls there,
    while the same loop calls the `tf.function` that reads it (collocation points
    resampled each epoch before `train_step()`, a temperature annealed by arithmetic on
    its own value, `self.set_temperature(self.temperature - step)`); a `tf.function` created inside that
    loop is traced anew and is not flagged. And an attribute that the traced step of a Keras
    model reads while a callback of the project sets `self.model.<attr>` in a hook that `fit`
    runs between steps (`on_train_batch_begin`, `on_epoch_end`, ...): a fade-in `alpha` or a
    regulariser's switch stays at the value of the first trace (not flagged when the model
    runs eagerly, `compile(run_eagerly=True)`). Likewise an attribute of a module-level
    settings object (an instance of a plain class of the module, a `SimpleNamespace`, what
    `parse_args()` returns) that eager code sets in the loop that calls the `tf.function`
    reading it, as the global or through the object passed as an argument at every call: a
    Python object argument is matched by identity, so changing its attributes traces nothing
    new. Not flagged for a class that defines `__eq__`/`__hash__` (a new value traces anew)
    or `__tf_tracing_type__`, nor for a `tf.function` made in the loop. In a notebook, or a script that no
    module of the project imports, a rebinding after which the function never runs again
    (it is only called directly at module level, and every call comes before) is not
    flagged: a guide that shows a pitfall and moves on to the next example. Nor is a
    library module's setting that only its setter changes (`def set_swap_memory(v):
    global SWAP_MEMORY; SWAP_MEMORY = v`), when the module never calls the setter and the
    rest of the project calls it only outside loops and traced code: it is configured
    once, before the model is built.

    ## Why is this bad?
    A Python value read in traced code is copied into the graph as a constant when the
    function is traced. Rebinding the global later does not retrace the function: it keeps
    computing with the old value, silently.

    ## Example
    ```python
    scale = 1.0

    @tf.function
    def f(x):
        return x * scale

    f(tf.constant(2.0))    # 2.0
    scale = 10.0
    f(tf.constant(2.0))    # still 2.0
    ```

    ## Use instead
    ```python
    scale = tf.Variable(1.0)

    @tf.function
    def f(x):
        return x * scale   # the graph reads the variable's current value

    scale.assign(10.0)
    ```
    Or pass the value in as a tensor argument (`f(x, tf.constant(scale))`).

    ## References
    - [Better performance with tf.function: Depending on Python global and free variables](https://www.tensorflow.org/guide/function#depending_on_python_global_and_free_variables)
    """

    CODE = "TFL109"
    NAME = "stale-captured-global"
    MESSAGE = ("`{name}` is a Python value captured when the function is traced, but the module rebinds it "
               "({where}): the graph keeps the old value; use a tf.Variable or pass it as a tensor argument")
    ATTR_MESSAGE = ("`{name}` is a Python value captured when the method is traced, but it is {where}: the "
                    "graph keeps the old value; keep it in a tf.Variable or pass it as a tensor argument")
    LOOP_ATTR_MESSAGE = ("`{name}` is captured when `{step}` is traced, but it is {where} in the loop that calls "
                         "`{step}`: every call after the first runs the graph with the first value; pass it as an "
                         "argument or keep it in a tf.Variable and assign to it")
    OBJECT_ARG_MESSAGE = ("`{name}` is captured when `{step}` is traced, but the loop that calls `{step}` sets "
                          "`{glob}.{attr}` (line {line}) on the object it passes as `{param}`: a Python object argument "
                          "is matched by identity, so changing its attributes traces nothing new and the graph keeps "
                          "the first value; pass the value as a tensor argument or keep it in a tf.Variable")
    CALLBACK_MESSAGE = ("`{name}` is captured when `{step}` is traced, but the callback `{hook}` sets it on the "
                        "model ({at}) while `fit` runs: the step is traced once, so every batch runs with the "
                        "first value; keep it in a tf.Variable and assign to it")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P04",)
    TRACED_ONLY = False
    VALID = (
        '''import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras

category_n = 1


def all_loss(y_true, y_pred):
    heatmap = y_true[..., :category_n]          # read when fit traces the loss, after main set it
    return tf.reduce_mean(tf.square(heatmap - y_pred[..., :category_n]))


def create_model():
    return keras.Sequential([keras.layers.Dense(category_n + 4)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--category_n", type=int, default=1)
    args = vars(ap.parse_args())
    global category_n
    category_n = args["category_n"]             # once, before anything is built or traced
    model = create_model()
    model.compile(optimizer="adam", loss=all_loss)
    model.fit(np.zeros((8, 3)), np.zeros((8, 5)))


if __name__ == "__main__":
    main()
''',
        '''import tensorflow as tf

BATCH_SIZE = 256
ds = tf.data.Dataset.range(4)


@tf.function
def train_step(x):
    return tf.reduce_sum(tf.random.normal([BATCH_SIZE, 100])) + tf.cast(x, tf.float32)


def train(ds):
    for batch in ds:
        train_step(batch)      # looks train_step up when it runs


train(ds)
BATCH_SIZE = 128               # a notebook's next experiment: the old train_step never runs again


@tf.function
def train_step(x):
    return tf.reduce_sum(tf.random.normal([BATCH_SIZE, 100])) + tf.cast(x, tf.float32)


train(ds)
''',
        '''import tensorflow as tf

b_size = 2

@tf.function
def mc_step(y):
    return y + tf.reduce_sum(tf.ones((b_size, 3)))

y = mc_step(tf.constant(0.0))
b_size = 5                                    # a later cell: new settings, then a new mc_step

class Solver:
    def solve(self):
        @tf.function
        def mc_step(y):                       # its own local of that name
            return y
        for i in range(3):
            mc_step(tf.constant(1.0))

@tf.function
def mc_step(y):                               # traced with b_size == 5
    return y * tf.reduce_sum(tf.ones((b_size, 3)))

y = mc_step(tf.constant(1.0))                 # calls the new function
''',
        '''import tensorflow as tf

BATCH_SIZE = 32                               # an earlier experiment's setting
BATCH_SIZE = 256

@tf.function
def train_step(images):
    noise = tf.random.normal([BATCH_SIZE, 100])
    return images + tf.reduce_mean(noise)

for _ in range(3):
    train_step(tf.zeros([4]))
BATCH_SIZE = 256                              # a later cell sets the value it was traced with
train_step(tf.zeros([4]))
''',
        '''import tensorflow as tf

loss_func = 1

class MLP(tf.Module):
    def loss(self, x):
        if loss_func == 1:
            return tf.reduce_mean(tf.abs(x))
        return tf.reduce_mean(tf.square(x))

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return self.loss(x)

def train():
    mlp = MLP()                               # a new instance, traced anew, on every call
    return mlp(tf.constant([1.0, 2.0]))

for i in [1, 2, 3]:
    loss_func = i
    train()
''',
        '''import tensorflow as tf

x = tf.ones([4, 3])
for rep in range(3):                          # each repetition: new weights, then a new step
    weights = [tf.Variable(tf.ones([3, 1]))]

    @tf.function
    def step(x):
        return tf.matmul(x, weights[0])

    for i in range(10):
        step(x)

for rep in range(3):                          # the next experiment does the same
    weights = [tf.Variable(tf.zeros([3, 1]))]

    @tf.function
    def step(x):
        return tf.matmul(x, weights[0]) + 1.0

    step(x)
''',
        '''import tensorflow as tf

try:
    import scipy
    HAVE_SCIPY = True
except ImportError:
    HAVE_SCIPY = False

EPSILON = 1e-6
scale = tf.Variable(1.0)
_table = None

def get_table():
    global _table
    if _table is None:
        _table = {"a": 1}
    return _table

@tf.function
def f(x):
    if HAVE_SCIPY:
        x = x + 1
    return x * scale + EPSILON + _table["a"]

scale.assign(10.0)
''',
        '''import tensorflow as tf

factor = 2.0
factor = 3.0      # rebound before anything is traced

@tf.function
def f(x, factor=0.5):
    return x * factor

def g():
    factor = 4.0  # a local, not the global
    return factor
''',
        '''import tensorflow as tf

n_steps = 5
ds = tf.data.Dataset.range(20).window(n_steps, drop_remainder=True)
ds = ds.flat_map(lambda w: w.batch(n_steps))   # traced now, with n_steps == 5
n_steps = 100                                  # the next map traces anew

learning_rate = 0.1
W = tf.Variable(1.0)

@tf.function
def step(g):
    W.assign_sub(g * learning_rate)

step(tf.constant(1.0))
learning_rate = 0.1                            # the same value again
''',
        '''import tensorflow as tf

class GAN(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.gp_weight = 10.0
        self.step_var = tf.Variable(0)

    def compile(self, optimizer, gp_weight):
        super().compile()
        self.optimizer_ = optimizer
        self.gp_weight = gp_weight               # set once, before fit traces anything

    @tf.function
    def train_step(self, data):
        self.step_var.assign_add(1)
        return {"loss": tf.reduce_mean(data) * self.gp_weight}

    def reset(self):
        self.step_var = tf.Variable(0)           # an object, not a Python value
        return self.train_step(tf.zeros([2]))


class Optimizer(tf.Module):
    def __init__(self):
        self._index = {}

    def _key(self, v):
        return v.name

    @tf.function
    def apply(self, v):
        return self._index[self._key(v)]

    def rebuild(self, var_list):
        self._index = {}
        for i, v in enumerate(var_list):
            self._index[self._key(v)] = i        # _key runs here as plain Python
''',
'''import numpy as np
import tensorflow as tf

class PINN:
    def __init__(self, net):
        self.net = net
        self.points = None

    def resample(self):
        self.points = tf.convert_to_tensor(np.random.rand(64, 2))

    def train(self, epochs):
        for epoch in range(epochs):
            @tf.function                      # a new function each epoch: traced anew
            def step():
                return tf.reduce_sum(self.net(self.points))
            self.resample()
            step()

    def evaluate(self):
        self.resample()                       # not in a loop that calls the step

    def fit(self, epochs):
        @tf.function
        def step():
            return tf.reduce_sum(self.net(self.points))
        self.resample()                       # once, before the loop
        for epoch in range(epochs):
            step()
''',
'''import tensorflow as tf

class Trainer:
    def __init__(self, model, make_data):
        self.model = model
        self.make_data = make_data
        self.batch = None

    def refresh(self):
        self.batch = self.make_data()         # not known to be a Python value or a tensor

    @tf.function
    def step(self):
        return tf.reduce_mean(self.model(self.batch))

    def run(self, n):
        for _ in range(n):
            self.refresh()
            self.step()
''',
'''import tensorflow as tf

class Colorizer(tf.Module):
    def __init__(self):
        self.disc_patch = (4, 4, 1)

    @tf.function
    def train_step(self, x):
        return tf.zeros((self.batch_size,) + self.disc_patch) + tf.reduce_mean(x)

    def train(self, patch, batches):
        self.batch_size = 16                  # set up once, before the loop ...
        self.disc_patch = (patch, patch, 1)
        for x in batches:                     # ... that makes every traced call
            self.train_step(x)
''',
        '''import tensorflow as tf

@tf.function
def train_step(x):
    return x * scale

if __name__ == "__main__":
    for iteration in range(100):
        scale = 2.0                          # the same value in every iteration
        train_step(tf.constant(1.0))
    for epoch in range(3):
        shift = epoch * 0.1                  # bound in a loop that calls no tf.function
    evaluate(tf.constant(1.0))

@tf.function
def evaluate(x):
    return x + shift
''',
        '''import tensorflow as tf
_initialized = False


def _assert_initialized():
    if not _initialized:         # a trace before initialize() raises
        raise RuntimeError("call initialize() first")


def replica_batch_size():
    _assert_initialized()
    return 4


def initialize():
    global _initialized
    _initialized = True


initialize()


@tf.function
def step(x):
    return tf.reshape(x, (replica_batch_size(), -1))


for _ in range(3):
    step(tf.ones([4, 2]))
''',
        '''import keras
import tensorflow as tf


class FadeIn(keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.model.alpha.assign(min(1.0, batch / 100))   # a variable: read by the graph
        self.model.note = batch                          # read by no step


class GAN(keras.Model):
    def __init__(self):
        super().__init__()
        self.alpha = tf.Variable(0.0, trainable=False)
        self.dense = keras.layers.Dense(1)

    def train_step(self, data):
        y = self.alpha * self.dense(data) + (1 - self.alpha) * data
        return {"y": tf.reduce_mean(y)}


class Eager(keras.Model):
    def __init__(self):
        super().__init__()
        self.beta = 0.0

    def train_step(self, data):
        return {"y": tf.reduce_mean(data) * self.beta}


class Anneal(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        self.model.beta = epoch / 10


gan = GAN()
gan.compile(optimizer="adam")
gan.fit(tf.zeros([8, 1]), epochs=2, callbacks=[FadeIn()])
model = Eager()
model.compile(optimizer="adam", run_eagerly=True)     # the step runs as Python: no trace
model.fit(tf.zeros([8, 1]), epochs=2, callbacks=[Anneal()])
''',
        '''import tensorflow as tf


class Schedule:
    def __init__(self):
        self.lr = tf.Variable(0.1)


class Key:
    def __init__(self, scale):
        self.scale = scale

    def __eq__(self, other):                  # equal by value: a new value traces anew
        return isinstance(other, Key) and other.scale == self.scale

    def __hash__(self):
        return hash(self.scale)


class Settings:
    pass


S = Schedule()
K = Key(1.0)
cfg = Settings()
cfg.width = 4


@tf.function
def step(x, key):
    return x * S.lr * key.scale


for width in (4, 8):
    cfg.width = width                         # set up before the loop that trains
for epoch in range(10):
    S.lr.assign(0.1 / (epoch + 1))            # a variable: the graph reads its value
    K.scale = epoch / 10
    step(tf.constant(1.0), K)
    @tf.function
    def probe(x):                             # made in the loop: traced anew each time
        return x * cfg.width
    cfg.width = epoch
    probe(tf.constant(1.0))
''',
        '''import tensorflow as tf


class GAN(tf.Module):
    def __init__(self, data):
        self.data = data
        self.wgp_shape = [1, 1]

    @tf.function(input_signature=[tf.TensorSpec([1, 8], tf.float32)])
    def step(self, y):
        return tf.random.uniform(self.wgp_shape) * y

    def train(self):
        for y in self.data:
            self.wgp_shape = [y.shape[0], 1]     # follows the shape the trace sees
            self.step(y)
''',
        '''import tensorflow as tf

class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.is_virgin = True
        self.d = tf.keras.layers.Dense(2)

    @tf.function
    def _call(self, args):
        return self.d(tf.concat([args[i] for i in range(self.n_vars)], -1))

    def call(self, *args):
        if self.is_virgin:                   # set once, before the first trace
            self.n_vars = int(len(args))
            self.is_virgin = False
        return self._call(args)
''',
    )
    INVALID = (
        '''import tensorflow as tf

scale = 1.0
threshold = 0.5

def set_threshold(value):
    global threshold
    threshold = value

@tf.function
def f(x):
    y = x * scale  # TFL109
    return tf.where(y > threshold, y, 0.0)  # TFL109

f(tf.constant(2.0))
scale = 10.0
f(tf.constant(2.0))
''',
        '''import tensorflow as tf

@tf.function
def step(x):
    return x * lr  # TFL109

for lr in [0.1, 0.01]:
    step(tf.constant(1.0))
''',
        '''import numpy as np
import tensorflow as tf

class GAN(tf.Module):
    def __init__(self):
        self.pl_mean = 0.0

    @tf.function
    def train_step(self, x):
        return tf.reduce_mean(x) - self.pl_mean  # TFL109

    def train(self, x):
        d = self.train_step(x)
        self.pl_mean = 0.99 * self.pl_mean + 0.01 * np.mean(d)
''',
        '''from contextlib import contextmanager

import tensorflow as tf

class Policy(tf.Module):
    def __init__(self):
        self._deterministic = False

    @contextmanager
    def evaluation_mode(self):
        self._deterministic = True
        yield
        self._deterministic = False

    @tf.function
    def actions(self, obs):
        if self._deterministic:  # TFL109
            return obs * 0.0
        return obs + tf.random.normal(tf.shape(obs))
''',
        '''import tensorflow as tf

class PPOPenalty:
    def __init__(self, model, beta=0.5, factor=1.5):
        self.model = model
        self.beta = beta               # a Python float: every caller leaves the default
        self.factor = factor

    def update(self, batches, kl, target):
        for d in batches:
            self._step(d)
        if kl > target:
            self.beta *= self.factor   # the graph of _step keeps the first beta
        else:
            self.beta /= self.factor

    @tf.function
    def _step(self, d):
        return tf.reduce_mean(self.model(d)) - self.beta  # TFL109

agent = PPOPenalty(tf.keras.layers.Dense(1))
''',
'''import numpy as np
import tensorflow as tf

class PINN:
    def __init__(self, net):
        self.net = net
        self.resample()

    def resample(self):
        self.points = tf.convert_to_tensor(np.random.rand(64, 2))

    def train(self, epochs):
        @tf.function
        def step():
            return tf.reduce_sum(self.net(self.points))  # TFL109
        for epoch in range(epochs):
            self.resample()
            step()
''',
        '''import numpy as np
import tensorflow as tf

@tf.function
def train_step(x):
    return x * 2.0 if rnd == 0 else x * 3.0  # TFL109

if __name__ == "__main__":
    for iteration in range(100):
        rnd = np.random.randint(2)           # a new draw per iteration; the graph keeps the first
        train_step(tf.constant(1.0))
''',
        '''import tensorflow as tf

_warm = False


def warm_up():
    global _warm
    _warm = True


@tf.function
def step(x):
    if _warm:  # TFL109
        return x * 2.0
    return x


step(tf.ones([2]))
warm_up()
step(tf.ones([2]))
''',
        '''import tensorflow as tf


class GumbelGAN:
    def __init__(self):
        self.temperature = 0.2

    def train(self, dataset, epochs):
        step = self.temperature / epochs
        for epoch in range(epochs):
            for batch in dataset:
                self.train_step(batch)
            self.set_temperature(self.temperature - step)   # annealed after each epoch

    @tf.function
    def train_step(self, batch):
        return tf.nn.softmax(batch / self.temperature)  # TFL109

    def set_temperature(self, temperature):
        self.temperature = temperature
''',
        '''import random
import keras
import tensorflow as tf


class FadeIn(keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.model.alpha = min(1.0, batch / 100)
        self.model.m = random.randint(0, 3)


class GAN(keras.Model):
    def __init__(self):
        super().__init__()
        self.alpha = 0.0
        self.m = 0
        self.dense = keras.layers.Dense(1)

    def train_step(self, data):
        y = self.alpha * self.dense(data) + (1 - self.alpha) * data  # TFL109
        if self.m > 1:  # TFL109
            y = y * 2
        return {"y": tf.reduce_mean(y)}


gan = GAN()
gan.compile(optimizer="adam")
gan.fit(tf.zeros([8, 1]), epochs=2, callbacks=[FadeIn()])
''',
        '''import tensorflow as tf


class Params:
    pass


P = Params()
P.coef = 1.0


@tf.function
def step(x):
    return x * P.coef  # TFL109


@tf.function
def step_with(x, params):
    return x * params.coef  # TFL109


for epoch in range(10):
    P.coef = epoch / 10                       # a new value per epoch; the graphs keep 1.0
    step(tf.constant(1.0))
    step_with(tf.constant(1.0), P)
''',
    )

    def __init__(self, sem, sink) -> None:
        super().__init__(sem, sink)
        #: names that can be rebound at all: bound twice at module level, bound by a
        #: module-level ``for``/``with``/unpacking, or assigned through ``global``
        self._candidates = {n for n, vs in sem.module_assigns.items()
                            if len(vs) > 1 or any(_is_unknown(v) for v in vs)} | sem.globally_rebound
        if sem.module_assigns:
            self._candidates |= sem.bound_in_module_loops() & sem.module_assigns.keys()
        #: name -> [(read node, ctx)]
        self._reads: dict[str, list[tuple[cst.Name, Ctx]]] = {}
        #: name -> [(statement node, value or None, how)]: late module-level rebinding
        self._module_rebinds: dict[str, list[tuple[cst.CSTNode, cst.BaseExpression | None, str]]] = {}
        #: name -> [(value, guarded, function name)]
        self._global_assigns: dict[str, list[tuple[cst.BaseExpression | None, bool, str]]] = {}
        #: (id(class), attribute) -> [(statement, value or None, method)]: ``self.attr = v``
        #: in an eager method of the class (not ``__init__``/``build``)
        self._attr_rebinds: dict[tuple[int, str], list[tuple[cst.CSTNode, cst.BaseExpression | None,
                                                             FunctionInfo]]] = {}
        #: id(statement) -> its context, for the statements of ``_attr_rebinds``
        self._rebind_ctx: dict[int, Ctx] = {}
        #: (name, attribute) -> [(statement, context)]: ``P.coef = v`` in eager code, on a
        #: name that is not local there
        self._object_sets: dict[tuple[str, str], list[tuple[cst.CSTNode, Ctx]]] = {}

    # -- collect

    def _collect_reads(self) -> None:
        """Reads of candidate names in traced functions (walked only when the file has a
        candidate: most files have none, and visiting every Name would cost more)."""
        sem = self.sem
        for fn in sem.functions:
            if not fn.traced:
                continue
            ctx = Ctx(None, "", None, fn, fn.cls)
            body = fn.node.body if isinstance(fn.node, cst.FunctionDef) else fn.node.body
            defaults = [p.default for p in fn.params if p.default is not None]
            for root in [body, *defaults]:
                nodes = [root] if isinstance(root, cst.Name) else _walk(root)
                for n in nodes:
                    if isinstance(n, cst.Name) and n.value in self._candidates:
                        self._read(n, ctx)

    def _read(self, node: cst.Name, ctx: Ctx) -> None:
        name = node.value
        if self.sem.binding_of(name, ctx.fn) != ("module", None):
            return
        if any(name in f.globals_ for f in ctx.fn.scope_chain()):  # type: ignore[union-attr]
            return  # TFL106's territory
        self._reads.setdefault(name, []).append((node, ctx))

    def visit_Assign(self, node: cst.CSTNode, ctx: Ctx) -> None:
        value = getattr(node, "value", None)
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        else:
            targets = [node.target]  # type: ignore[attr-defined]
        if isinstance(node, cst.AugAssign):
            value = None
        if ctx.fn is not None and ctx.fn.cls is not None and not ctx.fn.traced and \
                ctx.fn.name not in ("__init__", "build") and self.sem.enclosing_guard(ctx) is None:
            # (set once under a first-call guard: ``if self.is_virgin: self.n_vars = ...``)
            for t in targets:
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and \
                        t.value.value == ctx.fn.self_name:
                    self._attr_rebinds.setdefault((id(ctx.fn.cls), t.attr.value), []).append(
                        (node, getattr(node, "value", None), ctx.fn))  # ``+= 1``: judged by its operand
                    self._rebind_ctx[id(node)] = ctx
        if ctx.fn is None or not ctx.fn.traced:
            for t in targets:
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and \
                        (ctx.fn is None or t.value.value not in ctx.fn.bound and t.value.value not in ctx.fn.param_names):
                    # ``P.coef = epoch / 10`` on a module-level object, in eager code
                    self._object_sets.setdefault((t.value.value, t.attr.value), []).append((node, ctx))
        if ctx.fn is not None and not ctx.fn.globals_:
            return
        for t in targets:
            for n in _target_name_nodes(t):
                single = isinstance(t, cst.Name)
                self._record_binding(n.value, node, value if single else None, ctx,
                                     "augmented" if isinstance(node, cst.AugAssign) else "assigned")

    visit_AugAssign = visit_Assign
    visit_AnnAssign = visit_Assign

    def visit_For(self, node: cst.For, ctx: Ctx) -> None:
        single = isinstance(node.target, cst.Name)
        item: cst.BaseExpression | None = None
        it = node.iter
        if single and isinstance(it, (cst.List, cst.Tuple, cst.Set)) and it.elements:
            item = it.elements[0].value
        elif single and isinstance(it, cst.Call) and dotted_name(it.func) == "range":
            item = cst.Integer("0")
        for n in _target_name_nodes(node.target):
            self._record_binding(n.value, node, item, ctx, "a `for` loop target")

    def _record_binding(self, name: str, node: cst.CSTNode, value: cst.BaseExpression | None, ctx: Ctx,
                        how: str) -> None:
        fn = ctx.fn
        if fn is not None:
            if name in fn.globals_:
                guarded = self.sem.enclosing_guard(ctx) is not None
                self._global_assigns.setdefault(name, []).append((value, guarded, fn.name))
            return
        if ctx.cls is not None:
            return
        # module level: a rebinding that can follow a call only if it is not a
        # conditional alternative (if/else, try/except) of the definition
        for c in ctx.ancestors():
            if isinstance(c.node, (cst.Try, cst.ExceptHandler, cst.Finally, cst.Else)) or \
                    (isinstance(c.node, cst.If) and not _is_main_guard(c.node)):
                if not isinstance(c.node, cst.Else) or not _else_of_loop(c):
                    return
        self._module_rebinds.setdefault(name, []).append((node, value, how))

    # -- judge

    def finish(self) -> None:
        if self._attr_rebinds:
            self._stale_attributes()
        self._set_by_callbacks()
        if self._object_sets:
            self._settings_objects()
        sem = self.sem
        if not self._candidates:
            return
        self._collect_reads()
        for name, reads in self._reads.items():
            if name in sem.imports or name in sem.module_functions or name in sem.classes:
                continue
            first = sem.module_assigns.get(name, ())
            if not first:
                continue
            kinds = [sem.python_value_kind(v) for v in first if not _is_unknown(v)]
            glob = [g for g in self._global_assigns.get(name, ()) if not g[1]]
            kinds += [sem.python_value_kind(v) for v, _, _ in glob if v is not None]
            kinds += [sem.python_value_kind(v) for _, v, _ in self._module_rebinds.get(name, ()) if v is not None]
            if "obj" in kinds or "py" not in kinds:
                continue
            if self._always_same_constant(name, glob):
                continue  # rebound to the value it had: the graph cannot go stale
            latch = self._latch_value(name)
            for node, ctx in reads:
                if id(node) in self._not_reads(ctx.fn):
                    continue
                if latch is not None and _raises_unless_latched(node, ctx.fn, latch[0]):
                    continue  # a trace before the latch is set raises: every graph has the latched value
                if sem.traced_only_by_tf_data(ctx.fn):
                    continue  # each transformation traces anew, with the value of that moment
                # a setter that only start-up code runs, before the function exists, sets
                # the value its traces capture (``apply_hyperparameters(args)`` at line 379)
                # and so does a setting's setter that nothing calls in a loop or a trace
                live = [g for g in glob if not sem.runs_only_before(g[2], ctx.fn)  # type: ignore[arg-type]
                        and not sem.is_configuration_setter(g[2]) and not sem.sets_once_at_start(g[2], g[0])]
                where = self._rebinding(name, ctx, live)
                if where is not None:
                    self.report(node, self.MESSAGE.format(name=name, where=where), ctx=ctx)

    def _stale_attributes(self) -> None:
        """``self.attr`` read in a traced method while an eager method of the class that
        calls a traced method rebinds it to a Python value between calls (a training
        loop's moving average kept on ``self``): the graph keeps the value it was traced
        with."""
        sem = self.sem
        for fn in sem.functions:
            owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
            if not fn.traced or owner is None or owner.self_name is None or sem.traced_only_by_tf_data(fn):
                continue
            cls = owner.cls
            for n in _walk(fn.node.body):
                if not (isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and
                        n.value.value == owner.self_name):
                    continue
                rebinds = self._attr_rebinds.get((id(cls), n.attr.value))
                if not rebinds or id(n) in self._attr_stores(fn):
                    continue
                where = self._attr_rebinding(cls, n.attr.value, rebinds)
                ctx = Ctx(None, "", None, fn, fn.cls)
                if where is not None:
                    self.report(n, self.ATTR_MESSAGE.format(name=f"{owner.self_name}.{n.attr.value}", where=where),
                                ctx=ctx)
                    continue
                got = sem.resampled_in_a_loop(cls, [(node, v, m, self._rebind_ctx.get(id(node)))
                                                    for node, v, m in rebinds], fn, n.attr.value)
                if got is not None:
                    self.report(n, self.LOOP_ATTR_MESSAGE.format(name=f"{owner.self_name}.{n.attr.value}",
                                                                 where=got[0], step=got[1]), ctx=ctx)

    def _settings_objects(self) -> None:
        """``P.coef`` read in traced code, with ``P`` a module-level settings object (read
        as the global, or handed to the tf.function at every call) whose attribute eager
        code sets in the loop that calls the tf.function: the graph keeps the first value."""
        sem = self.sem
        names = {n for n, _ in self._object_sets}
        attrs = {a for _, a in self._object_sets}
        for fn in sem.functions:
            if not fn.traced or sem.traced_only_by_tf_data(fn):
                continue
            told: set[str] = set()
            stores = self._attr_stores(fn)
            for n in _walk(fn.node.body):
                if not (isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name)) or id(n) in stores:
                    continue
                text = f"{n.value.value}.{n.attr.value}"
                if n.attr.value not in attrs or text in told or (n.value.value not in names and not fn.param_names):
                    continue  # (only an attribute some eager code sets can be stale)
                got = sem.object_attr_set_in_loop(n, fn, self._object_sets)
                if got is None:
                    continue
                told.add(text)
                line, g, step, via = got
                if via is None:
                    msg = self.LOOP_ATTR_MESSAGE.format(name=text, where=f"set at line {line}", step=step)
                else:
                    msg = self.OBJECT_ARG_MESSAGE.format(name=text, step=step, param=via, glob=g, attr=n.attr.value,
                                                         line=line)
                self.report(n, msg, ctx=Ctx(None, "", None, fn, fn.cls))

    def _set_by_callbacks(self) -> None:
        """``self.attr`` read in the traced code of a Keras model's step while a callback
        sets ``self.model.attr`` in a hook that ``fit`` runs between steps (a fade-in
        ``alpha``, a switch for a regulariser): ``fit`` traces the step once, so every
        batch runs with the value of the first trace."""
        sem = self.sem
        for fn in sem.functions:
            owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
            if not fn.traced or owner is None or owner.self_name is None or \
                    not sem.is_keras_model_class(owner.cls) or sem.traced_only_by_tf_data(fn):
                continue
            stores = self._attr_stores(fn)
            told: set[str] = set()
            for n in _walk(fn.node.body):
                if not (isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and
                        n.value.value == owner.self_name) or id(n) in stores or n.attr.value in told:
                    continue
                got = sem.callback_sets_model_attr(n.attr.value, owner.cls.name)
                if got is None:
                    continue
                told.add(n.attr.value)  # one finding per attribute and step
                path, hook, line = got
                at = where_in(path, line) if path is not None else f"line {line}"
                self.report(n, self.CALLBACK_MESSAGE.format(name=f"{owner.self_name}.{n.attr.value}", hook=hook,
                                                            at=at, step=fn.name),
                            ctx=Ctx(None, "", None, fn, fn.cls))

    def _attr_rebinding(self, cls, attr: str, rebinds) -> str | None:
        sem = self.sem
        init = cls.methods.get("__init__") or cls.methods.get("build")
        values = [(v, init) for v in cls.init_attrs.get(attr, ())] + \
            [(v, method) for _, v, method in rebinds if v is not None]
        kinds = {sem.python_value_kind(v, fn) for v, fn in values}
        if "obj" in kinds or "none" in kinds or "py" not in kinds or any(v is None for _, v, _ in rebinds):
            return None
        if any(sem.follows_static_shapes(v) for _, v, _ in rebinds):
            return None  # ``[y.shape[0], 1]`` before ``step(y)``: what the trace sees
        for node, _, method in rebinds:
            # a tf.function of the class: calling it runs its graph (a helper that traced
            # code also calls runs as plain Python when an eager method calls it)
            sites = [(c, x) for c, x in method.calls if (callee := sem.resolve_callee(c, method)) is not None
                     and callee.root_reason == "tf.function" and callee.cls is cls]
            called = [c for c, _ in sites]
            if called and sem.set_up_before_the_loop(node, self._rebind_ctx.get(id(node)), sites):
                continue
            if called:
                return (f"rebound in `{method.name}` (line {sem.line_of(node)}), which calls "
                        f"`{called[0].func.attr.value}`")  # type: ignore[attr-defined]
            if isinstance(method.node, cst.FunctionDef) and any(
                    sem.resolves_to(d.decorator, {"contextlib.contextmanager"}) for d in method.node.decorators):
                # ``with policy.evaluation_mode(): ...``: set around the code it wraps,
                # which calls the traced methods, by then traced with the other value
                return (f"rebound in `{method.name}` (line {sem.line_of(node)}), a context manager "
                        f"that changes it around the code it wraps")
        return None

    def _attr_stores(self, fn: FunctionInfo) -> set[int]:
        """Attribute nodes assigned to (not read) in ``fn``."""
        cache = self.__dict__.setdefault("_attr_stores_cache", {})
        got = cache.get(id(fn.node))
        if got is None:
            got = cache[id(fn.node)] = {id(n.target) for n in _walk(fn.node, into_functions=True)
                                        if isinstance(n, (cst.AssignTarget, cst.AnnAssign))}
        return got

    def _always_same_constant(self, name: str, glob) -> bool:
        """Every binding of the module-level ``name`` is the same Python constant."""
        sem = self.sem
        values = [v for v in sem.module_assigns.get(name, ())] + [v for v, _, _ in glob]
        if not values or any(v is None for v in values):
            return False
        consts = [sem.value_of(v, None) for v in values]
        return all(c.has_const for c in consts) and len({repr(c.const) for c in consts}) == 1

    def _latch_value(self, name: str) -> tuple[object] | None:
        """``_initialized = False`` at module level, then only ``global _initialized;
        _initialized = True`` in functions: a latch that, once set, keeps one value. That
        value (in a 1-tuple), or None when ``name`` is rebound any other way."""
        sem = self.sem
        sets = self._global_assigns.get(name, ())
        if len(sem.module_assigns.get(name, ())) != 1 or self._module_rebinds.get(name, [None])[1:] or not sets or \
                any(v is None for v, _, _ in sets):
            return None
        consts = [sem.value_of(v, None) for v, _, _ in sets]
        if not all(c.has_const for c in consts) or len({repr(c.const) for c in consts}) != 1:
            return None
        return (consts[0].const,)

    def _not_reads(self, fn: FunctionInfo | None) -> set[int]:
        """Names in ``fn`` that are not reads of a variable: attribute names, keyword
        argument names and comprehension targets (computed only for files with a candidate)."""
        cache = self.__dict__.setdefault("_not_reads_cache", {})
        key = id(fn.node) if fn is not None else 0
        hit = cache.get(key)
        if hit is not None:
            return hit
        out: set[int] = set()
        if fn is not None:
            for n in _walk(fn.node, into_functions=True):
                if isinstance(n, cst.Attribute):
                    out.add(id(n.attr))
                elif isinstance(n, cst.Arg) and n.keyword is not None:
                    out.add(id(n.keyword))
                elif isinstance(n, COMPREHENSIONS):
                    names = comprehension_targets(n)
                    out.update(id(x) for x in _walk(n, into_functions=True)
                               if isinstance(x, cst.Name) and x.value in names)
        cache[key] = out
        return out

    def _rebinding(self, name: str, ctx: Ctx, glob) -> str | None:
        sem = self.sem
        if glob:
            return f"assigned through `global` in `{glob[0][2]}`"
        root = ctx.fn
        while root is not None and root.parent is not None:
            root = root.parent
        if root is None:
            return None
        if root.cls is not None and sem.instances_live_per_call(root.cls):
            return None  # each call of the function that makes one traces a new instance
        def_line = sem.line_of(root.node)
        for node, value, how in self._module_rebinds.get(name, ()):
            if value is not None and sem.python_value_kind(value) == "obj":
                return None
        if _rebound_before_in_same_loop(sem, root, name, def_line):
            return None  # each iteration binds it and then defines a new function over it
        rebinds = self._module_rebinds.get(name, ())
        before = [(v, how) for n, v, how in rebinds if sem.line_of(n) < def_line]
        # the value bound when the function was defined, when every module-level binding
        # of the name is a plain unconditional assignment
        at_def = sem.value_of(before[-1][0], None) if before and before[-1][0] is not None and all(
            how == "assigned" for _, _, how in rebinds) and             len(sem.module_assigns.get(name, ())) == len(rebinds) else None
        for node, value, how in rebinds:
            line = sem.line_of(node)
            if line > def_line and (how != "assigned" or self._is_rebinding(name, node)) and \
                    sem.may_run_after(root, node):
                if at_def is not None and at_def.has_const and value is not None and how == "assigned":
                    v = sem.value_of(value, None)
                    if v.has_const and repr(v.const) == repr(at_def.const):
                        continue  # a later cell sets it again to the value it had when traced
                return f"{how} on line {line}" if how != "assigned" else f"reassigned on line {line}"
        node = sem.rebound_in_calling_loop(name, root)
        if node is not None:  # type: ignore[attr-defined]
            return f"reassigned on line {sem.line_of(node)}, in every iteration of the loop that calls `{root.name}`"
        return None

    def _is_rebinding(self, name: str, node: cst.CSTNode) -> bool:
        """A module-level assignment after the first one."""
        firsts = self._module_rebinds.get(name, ())
        return bool(firsts) and firsts[0][0] is not node or len(self.sem.module_assigns.get(name, ())) > 1


def _raises_unless_latched(read: cst.Name, fn: FunctionInfo | None, latched: object) -> bool:
    """Is ``read`` the test of an ``if`` whose body only raises (``if not _initialized:
    raise RuntimeError(...)``) or of an ``assert``, and does the test pass (no raise) only
    with the ``latched`` value? Then tracing before the latch is set fails, and every
    graph that exists was traced with the value the name keeps from then on."""
    if fn is None:
        return False

    def holds(test: cst.BaseExpression) -> bool | None:
        """The test's truth with the name latched; None when not a test of ``read``."""
        if test is read:
            return bool(latched)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            got = holds(test.expression)
            return None if got is None else not got
        if isinstance(test, cst.Comparison) and test.left is read and len(test.comparisons) == 1 and \
                isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None":
            op = test.comparisons[0].operator
            if isinstance(op, cst.Is):
                return latched is None
            if isinstance(op, cst.IsNot):
                return latched is not None
        return None

    for n in _walk(fn.node):
        if isinstance(n, cst.Assert):
            if holds(n.test) is True:
                return True
        elif isinstance(n, cst.If) and n.orelse is None and isinstance(n.body, cst.IndentedBlock) and \
                all(isinstance(st, cst.SimpleStatementLine) and all(isinstance(x, cst.Raise) for x in st.body)
                    for st in n.body.body):
            if holds(n.test) is False:
                return True
    return False


def _rebound_before_in_same_loop(sem, root, name: str, def_line: int) -> bool:
    """Is the definition of ``root`` in a loop body that assigns ``name`` earlier in the
    same iteration (``ws = [tf.Variable(...)]`` then ``@tf.function def step(): ... ws``)?
    Every binding then comes with a function of its own (a notebook's repetitions)."""
    loop = next((c.node for c in root.ctx.ancestors() if isinstance(c.node, (cst.For, cst.While))
                 and c.field == "body"), None) if root.ctx is not None else None
    if loop is None:
        return False
    for n in walk_scope(loop.body):
        if type(n) is cst.Assign and sem.line_of(n) < def_line and \
                any(isinstance(t.target, cst.Name) and t.target.value == name for t in n.targets):  # type: ignore[attr-defined]
            return True
    return False


def _else_of_loop(c: Ctx) -> bool:
    return c.parent is not None and isinstance(c.parent.node, (cst.For, cst.While))


def _is_unknown(v: cst.BaseExpression) -> bool:
    return isinstance(v, cst.Name) and v.value == "__unknown__"


def _target_name_nodes(t: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(t, cst.Name):
        yield t
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from _target_name_nodes(e.value)
    elif isinstance(t, cst.StarredElement):
        yield from _target_name_nodes(t.value)


# ---------------------------------------------------------------------------------------
# TFL110

_TA_UPDATES = frozenset({"write", "scatter", "unstack", "split"})


class DiscardedTensorArrayWrite(Rule):
    """`ta.write(...)` whose result is thrown away.

    ## What it does
    Flags an expression statement `ta.write(...)`, `ta.scatter(...)`, `ta.unstack(...)`
    or `ta.split(...)` when `ta` is a `tf.TensorArray` (created with `tf.TensorArray(...)`,
    returned by another TensorArray method, annotated as one, or given to a `tf.while_loop`
    body through its `loop_vars`), anywhere in the file: the code may work when it runs
    eagerly and break once it is traced. Not in a method of a class whose every instance
    the project makes and uses only in eager code: there the write happens in place.

    ## Why is this bad?
    TensorArray methods are functional: they return a new TensorArray and leave the old
    one unchanged in a graph. Eagerly the write happens in place, so the bug survives
    eager tests; in a `tf.function` the writes are lost and `ta.stack()` returns an empty
    tensor, with no error.

    ## Example
    ```python
    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta.write(i, i * i)
        return ta.stack()
    ```

    ## Use instead
    ```python
    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, i * i)
        return ta.stack()
    ```

    ## Fix safety
    The fix assigns the result back (`ta = ta.write(...)`). It is safe: the eager
    behaviour is unchanged and the graph gets the written array.

    ## References
    - [tf.TensorArray](https://www.tensorflow.org/api_docs/python/tf/TensorArray)
    - [AutoGraph reference: limitations](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md)
    """

    CODE = "TFL110"
    NAME = "discarded-tensorarray-write"
    MESSAGE = ("the result of `{call}` is discarded: TensorArray methods return a new array, so in a graph "
               "the write is lost; assign it back (`{target} = {call}`)")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P18",)
    TRACED_ONLY = False
    #: it looks at the whole file, traced or not: every TensorArray it can know of is
    #: made (or named) in the file itself
    TEXT_MARKERS = (r"TensorArray",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def squares(n):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        ta = ta.write(i, i * i)
    return ta.stack()

def save(f, text):
    f.write(text)            # a file, not a TensorArray
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def squares(n):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        ta.write(i, i * i)  # TFL110
    return ta.stack()

class Buffer(tf.Module):
    def __init__(self):
        self.frames = tf.TensorArray(tf.float32, size=4)

    @tf.function
    def fill(self, x: tf.Tensor, out: tf.TensorArray):
        self.frames.unstack(x)  # TFL110
        out.write(0, x)  # TFL110
        return out
''',
        '''import tensorflow as tf

@tf.function
def gather_rows(x):
    def body(i, acc):
        acc.write(i, x[i])  # TFL110
        return i + 1, acc

    acc = tf.TensorArray(tf.float32, size=3)
    _, acc = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), acc])
    return acc.stack()
''',
        '''import tensorflow as tf

class Doubler(tf.keras.layers.Layer):
    def call(self, x):
        def body(i, out):
            out.write(i, x[i] * 2.0)  # TFL110
            return i + 1, out

        out = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
        _, out = tf.while_loop(lambda i, o: i < tf.shape(x)[0], body, [0, out])
        return out.stack()

model = tf.keras.Sequential([tf.keras.Input((3,)), Doubler()])
model.compile("adam", "mse")
''',
    )
    FIXED = (
        (0, '''import tensorflow as tf

@tf.function
def squares(n):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        ta = ta.write(i, i * i)  # TFL110
    return ta.stack()

class Buffer(tf.Module):
    def __init__(self):
        self.frames = tf.TensorArray(tf.float32, size=4)

    @tf.function
    def fill(self, x: tf.Tensor, out: tf.TensorArray):
        self.frames = self.frames.unstack(x)  # TFL110
        out = out.write(0, x)  # TFL110
        return out
'''),
        (1, '''import tensorflow as tf

@tf.function
def gather_rows(x):
    def body(i, acc):
        acc = acc.write(i, x[i])  # TFL110
        return i + 1, acc

    acc = tf.TensorArray(tf.float32, size=3)
    _, acc = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), acc])
    return acc.stack()
'''),
        (2, '''import tensorflow as tf

class Doubler(tf.keras.layers.Layer):
    def call(self, x):
        def body(i, out):
            out = out.write(i, x[i] * 2.0)  # TFL110
            return i + 1, out

        out = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
        _, out = tf.while_loop(lambda i, o: i < tf.shape(x)[0], body, [0, out])
        return out.stack()

model = tf.keras.Sequential([tf.keras.Input((3,)), Doubler()])
model.compile("adam", "mse")
'''),
    )

    def visit_Expr(self, node: cst.Expr, ctx: Ctx) -> None:
        call = node.value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in _TA_UPDATES and call.args):
            return
        recv = call.func.value
        if not self.sem.is_tensorarray(recv, ctx.fn) or self._only_eager(ctx):
            return  # eagerly the write happens in place
        target = dotted_name(recv)
        text = cst.Module(body=[]).code_for_node(call)
        short = text if len(text) <= 40 else f"{target}.{call.func.attr.value}(...)"
        fix = None
        if target is not None:
            # `ta.write(i, x)` -> `ta = ta.write(i, x)`, built from the statement's own nodes
            new = cst.Assign(targets=[cst.AssignTarget(target=recv)], value=call)
            fix = self.replace(node, new, safe=True, title=f"Assign the result back to `{target}`")
        self.report(node, self.MESSAGE.format(call=short, target=target or "ta"), ctx=ctx, fix=fix)

    def _only_eager(self, ctx: Ctx) -> bool:
        """Known to run only eagerly: untraced code of a method of a class whose every
        instance the project makes (one at least: a class nothing makes may be someone
        else's to use) and uses only in eager code (a ``tf.Module`` whose
        ``@tf.function`` is commented out, driven from ``main()``). Other untraced code may
        be traced by what tflint cannot follow (a loss object called in another module's
        train step), and the write is lost there."""
        sem = self.sem
        fn = ctx.fn
        if fn is None or sem.is_traced(ctx) or sem.in_layer_call_run_as_graph(ctx):
            return False
        owner = next((f.cls for f in fn.scope_chain() if f.cls is not None), None)
        return owner is not None and not sem.class_never_used(owner) and sem.instances_called_only_eagerly(owner)


# ---------------------------------------------------------------------------------------
# TFL111

#: TensorFlow namespaces whose functions are pure ops (their only effect is the result)
_PURE_PREFIXES = ("tensorflow.math.", "tensorflow.linalg.", "tensorflow.strings.", "tensorflow.sparse.",
                  "tensorflow.signal.", "tensorflow.bitwise.", "tensorflow.dtypes.", "tensorflow.ragged.",
                  "tensorflow.image.", "tensorflow.nn.")
#: top-level ``tf.<name>`` functions that are not pure ops: effects, control flow,
#: Python-side utilities
_NOT_PURE_TOP = frozenset({"print", "group", "no_op", "cond", "case", "switch_case", "while_loop", "map_fn",
                           "scan", "foldl", "foldr", "vectorized_map", "py_function", "numpy_function",
                           "function", "control_dependencies", "name_scope", "device", "init_scope",
                           "custom_gradient", "recompute_grad", "get_logger", "executing_eagerly",
                           "get_static_value", "is_tensor", "register_tensor_conversion_function",
                           "load_op_library", "load_library", "py_func", "make_template", "while_loop_v2",
                           "timestamp", "tuple", "stop_gradient", "guarantee_const"})


def _pure_op(q: str) -> bool:
    last = q.rsplit(".", 1)[-1]
    if last[:1].isupper() or last.startswith("_") or "assert" in last or "random" in last or \
            "dropout" in last or "assign" in last or "update" in last or "summary" in last:
        return False
    if q.startswith(_PURE_PREFIXES):
        return True
    if q in ("tensorflow.io.decode_raw", "tensorflow.io.parse_tensor", "tensorflow.io.decode_json_example"):
        return True
    head, _, _ = q.rpartition(".")
    return head == "tensorflow" and last not in _NOT_PURE_TOP


class UnusedOpResult(Rule):
    """A pure TensorFlow op whose result is not used.

    ## What it does
    Flags an expression statement in traced code that calls a pure TensorFlow op
    (`tf.gather`, `tf.ensure_shape`, `tf.math.*`, `tf.linalg.*`, `tf.strings.*`,
    `tf.nn.*`, ...) and throws its result away. Stateful ops run anyway (automatic control
    dependencies) and are not flagged: `tf.print`, `tf.debugging.assert_*`, `tf.Assert`,
    `tf.debugging.check_numerics` (a stateful op in TensorFlow 2.21), `tf.summary.*`,
    `assign*`, random ops, `tf.timestamp`, TensorArray writes (TFL110), control flow
    (`tf.cond`, `tf.while_loop`, ...), `tf.py_function`, nor calls of your own functions.

    Off by default: a discarded result is sometimes intended (a leftover debugging line,
    a call kept for its static shape checks at trace time).

    ## Why is this bad?
    Graphs execute non-strictly: an op whose output nothing depends on is pruned and never
    runs. A shape check such as `tf.ensure_shape(x, [None, 3])` or an out-of-range
    `tf.gather` that raises eagerly is silently skipped inside `tf.function`.

    ## Example
    ```python
    @tf.function
    def f(x):
        tf.ensure_shape(x, [None, 3])
        return x * 2
    ```

    ## Use instead
    ```python
    @tf.function
    def f(x):
        x = tf.ensure_shape(x, [None, 3])
        return x * 2
    ```
    Or use `tf.debugging.assert_*`, which are stateful and always run.

    ## References
    - [Introduction to graphs: Non-strict execution](https://www.tensorflow.org/guide/intro_to_graphs#non-strict_execution)
    """

    CODE = "TFL111"
    NAME = "unused-op-result"
    MESSAGE = "the result of `{op}` is unused: the op is pruned from the graph and never runs (its checks too)"
    SEVERITY = Severity.INFO
    DEFAULT_ON = False
    PITFALLS = ("P10",)
    VALID = (
        '''import tensorflow as tf

def helper(x):
    return x

@tf.function
def f(x, v):
    tf.print("x:", x)
    tf.debugging.assert_positive(x)
    v.assign_add(x)
    helper(x)
    tf.debugging.check_numerics(x, "nan")   # a stateful op: kept, it runs
    x = tf.ensure_shape(x, [None])
    return x * 2

tf.reduce_sum([1.0])   # eager code runs every op
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    tf.ensure_shape(x, [None, 3])  # TFL111
    tf.gather(x, [5])  # TFL111
    tf.math.log(x)  # TFL111
    return x * 2
''',
    )

    def visit_Expr(self, node: cst.Expr, ctx: Ctx) -> None:
        call = node.value
        if not isinstance(call, cst.Call):
            return
        for q in self.sem.qualified(call.func):
            if _pure_op(q):
                self.report(node, self.MESSAGE.format(op=dotted_name(call.func)), ctx=ctx)
                return


# ---------------------------------------------------------------------------------------
# TFL204

_BROAD = frozenset({"Exception", "BaseException"})
#: ops whose failures are static (or which do not fail): a broad handler around them
#: catches trace-time errors on purpose
_CONVERSIONS = frozenset({"print", "constant", "convert_to_tensor", "cast", "reshape", "ensure_shape", "identity",
                          "shape", "rank", "size", "zeros", "ones", "zeros_like", "ones_like", "fill",
                          "expand_dims", "squeeze", "stack", "concat"})

def _only_raises(h: cst.ExceptHandler) -> bool:
    """A handler that only re-raises (adding context to trace-time errors, perhaps after
    logging) swallows nothing."""
    body = h.body.body if isinstance(h.body, cst.IndentedBlock) else ()
    if not body or not all(isinstance(st, cst.SimpleStatementLine) for st in body):
        return False
    small = [x for st in body for x in st.body]  # type: ignore[attr-defined]
    return isinstance(small[-1], cst.Raise) and all(isinstance(x, (cst.Expr, cst.Pass)) for x in small[:-1])


def _ends_python_loop(h: cst.ExceptHandler) -> bool:
    """A handler that only leaves a Python loop (``while True: try: v = tf.reduce_sum(v,
    axis=1) except: break``): the loop probes shapes until tracing raises, a trace-time
    error by its nature, since a runtime one could not end a Python loop of the trace."""
    body = h.body.body if isinstance(h.body, cst.IndentedBlock) else ()
    small = [x for st in body if isinstance(st, cst.SimpleStatementLine) for x in st.body]
    return len(small) == len(body) > 0 and isinstance(small[-1], cst.Break) and \
        all(isinstance(x, (cst.Expr, cst.Pass)) for x in small[:-1])


class TryExceptInTracedCode(Rule):
    """`try/except` for runtime errors around TensorFlow ops in traced code.

    ## What it does
    Flags a `try` statement in traced code whose body calls TensorFlow ops and which has a
    handler for errors that ops raise when the graph runs: `tf.errors.*`
    (`InvalidArgumentError`, `OutOfRangeError`, ...), `Exception`, `BaseException` or a
    bare `except:`. Handlers for Python errors raised while tracing (`ImportError`,
    `ValueError`, `TypeError`, `KeyError`, `AttributeError`, ...) are fine, and so is a
    `try` whose body only does Python work, a broad handler that only re-raises
    (it adds context to trace-time errors and swallows nothing), and one that only
    `break`s out of a Python loop (a loop that probes shapes until tracing raises).

    ## Why is this bad?
    While tracing, TensorFlow ops only build the graph; they fail later, when the graph
    runs, outside the `try`. The `except` branch never runs for a runtime error: it is
    dead code, and the error (`InvalidArgumentError: ... Tensor had NaN values`)
    propagates out of the function. A broad `except Exception` only catches trace-time
    mistakes, which usually hides a bug rather than handling a bad input.

    ## Example
    ```python
    @tf.function
    def safe_log(x):
        try:
            y = tf.debugging.check_numerics(tf.math.log(x), "bad input")
        except tf.errors.InvalidArgumentError:
            y = tf.zeros_like(x)
        return y
    ```

    ## Use instead
    ```python
    @tf.function
    def safe_log(x):
        y = tf.math.log(x)
        return tf.where(tf.math.is_finite(y), y, tf.zeros_like(y))
    ```

    ## References
    - [AutoGraph reference: error handling](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/error_handling.md)
    - [Introduction to graphs: Non-strict execution](https://www.tensorflow.org/guide/intro_to_graphs#non-strict_execution)
    """

    CODE = "TFL204"
    NAME = "try-except-in-traced-code"
    MESSAGE = ("{what} around TensorFlow ops in traced code never sees their runtime errors: ops fail "
               "when the graph runs, outside the `try`; handle the case in the graph (tf.where, tf.cond) or "
               "catch the error around the call in eager code")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P11",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    try:
        import scipy.special as sp      # a trace-time Python error
    except ImportError:
        sp = None
    try:
        y = tf.reshape(x, [-1, 4])      # static shape errors are raised while tracing
    except ValueError:
        y = x
    try:
        n = int(x.shape[0])
    except TypeError:
        n = None
    return y, n
''',
        '''import tensorflow as tf

@tf.function
def gradient_norms(grads):
    def full_reduce(v):
        v = tf.abs(v)
        while True:                      # sum axis 1 away until the rank runs out:
            try:                         # the error is raised while tracing
                v = tf.reduce_sum(v, axis=1)
            except:
                break
        return v
    return [full_reduce(g) for g in grads]
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    try:  # TFL204
        y = tf.debugging.check_numerics(tf.math.log(x), "bad input")
    except tf.errors.InvalidArgumentError:
        y = tf.zeros_like(x)
    return y

@tf.function
def parse(line):
    try:  # TFL204
        return tf.strings.to_number(line)
    except Exception:
        return tf.constant(0.0)
''',
    )

    def visit_Try(self, node: cst.Try, ctx: Ctx) -> None:
        what, broad = self._runtime_handler(node)
        if what is None:
            return
        if not self._body_has_op(node, ctx, broad):
            return
        text = "a bare `except:`" if what == ":" else f"`except {what}`"
        self.report(node, self.MESSAGE.format(what=text), ctx=ctx)

    def _runtime_handler(self, node: cst.Try) -> tuple[str | None, bool]:
        """The first handler for runtime errors, and whether it is a broad one."""
        broad: str | None = None
        for h in node.handlers:
            if h.type is None:
                if not _only_raises(h) and not _ends_python_loop(h):
                    broad = broad or ":"
                continue
            types = [e.value for e in h.type.elements] if isinstance(h.type, cst.Tuple) else [h.type]
            for t in types:
                for q in self.sem.qualified(t):
                    if q.startswith(("tensorflow.errors.", "tensorflow.python.framework.errors",
                                     "tensorflow.compat.v1.errors.", "tensorflow.compat.v2.errors.")):
                        return dotted_name(t) or q, False
                if isinstance(t, cst.Name) and t.value in _BROAD and t.value not in self.sem.imports and \
                        not _only_raises(h) and not _ends_python_loop(h):
                    broad = broad or t.value
        return broad, True

    def _body_has_op(self, node: cst.Try, ctx: Ctx, broad: bool) -> bool:
        fn = ctx.fn
        if fn is None:
            return False
        for call, cctx in fn.calls:
            if not any(c.node is node and c.field == "body" for c in cctx.within_function()):
                continue
            if self._is_op(call, broad):
                return True
        return False

    def _is_op(self, call: cst.Call, broad: bool) -> bool:
        """A TensorFlow op that can fail when the graph runs. For a broad handler, ops
        whose usual failures are static (conversion, reshape, cast) do not count."""
        q = self.sem.op_of(call)
        if q is not None and q.rsplit(".", 1)[-1] != "print":
            # a broad handler in TensorFlow's own graph-building code catches trace-time
            # failures on purpose: count only public ops there
            return not (broad and (q.rsplit(".", 1)[-1] in _CONVERSIONS or q.startswith("tensorflow.python.")))
        f = call.func
        return not broad and isinstance(f, cst.Attribute) and f.attr.value == "get_next" and not call.args
