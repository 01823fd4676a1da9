"""Call patterns that make TensorFlow trace a new graph again and again."""

from __future__ import annotations

import libcst as cst

from tflint import fixes
from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic import Ctx, FunctionInfo, SemanticModel, dotted_name

#: a Python loop with at most this many iterations traces at most this many graphs:
#: a handful of graphs is a deliberate specialization, not a retracing problem
SMALL_LOOP = 5
#: distinct literal values at one argument position before it counts as "varying"
LITERAL_VARIANTS = 3

_RANGE_LIKE = frozenset({"range", "trange", "tqdm.trange", "tqdm.auto.trange"})


def tf_function_callee(sem: SemanticModel, call: cst.Call, ctx: Ctx) -> FunctionInfo | None:
    """The tf.function of this module that ``call`` invokes: a decorated function or
    method, or a name bound to ``tf.function(f)``."""
    callee = sem.resolve_callee(call, ctx.fn)
    if callee is not None and callee.tf_function:
        return callee
    if isinstance(call.func, cst.Name):
        name = call.func.value
        scopes = list(ctx.fn.scope_chain()) if ctx.fn is not None else []
        values = next((f.assigns[name] for f in scopes if name in f.assigns), None)
        if values is None:
            values = sem.module_assigns.get(name, ())
        for v in values:
            if isinstance(v, cst.Call) and sem.is_tf_function_expr(v.func) and v.args:
                target = sem.resolve_callee(cst.Call(func=v.args[0].value), ctx.fn) \
                    if isinstance(v.args[0].value, (cst.Name, cst.Attribute)) else None
                if target is not None and target.tf_function:
                    return target
    return None


def _range_bound(it: cst.BaseExpression) -> int | None:
    """The constant iteration count of ``range(N)``/``range(a, b)``, else None."""
    if isinstance(it, cst.Call) and dotted_name(it.func) in _RANGE_LIKE:
        nums = [a.value for a in it.args if a.keyword is None]
        if all(isinstance(n, cst.Integer) for n in nums) and 1 <= len(nums) <= 3:
            vals = [int(n.value, 0) for n in nums]  # type: ignore[union-attr]
            if len(vals) == 1:
                return vals[0]
            step = vals[2] if len(vals) == 3 else 1
            return max(0, (vals[1] - vals[0]) // (step or 1))
    return None


class PythonScalarArgument(Rule):
    """A Python number, bool or string that varies per call is passed to a tf.function.

    ## What it does
    At call sites of `tf.function`s defined in the same module (without an
    `input_signature`), flags arguments that are Python values changing from call to call:
    the loop variable of a Python `range`/`enumerate` loop (or arithmetic on it), a step or
    epoch counter incremented in the loop, and literals that take at least
    `LITERAL_VARIANTS` (3) distinct values at the same argument position across the
    module's call sites. Loops over at most `SMALL_LOOP` (5) constant iterations and
    `training=True`/`False`-style flags are not flagged.

    ## Why is this bad?
    Python values are part of a tf.function's trace key: every new value traces and
    compiles a new graph. A training loop that passes `step` traces once per step; after
    five retraces TensorFlow only logs a warning.

    ## Example
    ```python
    @tf.function
    def train_step(x, step):
        ...

    for step in range(10000):
        train_step(batch, step)
    ```

    ## Use instead
    ```python
    for step in range(10000):
        train_step(batch, tf.constant(step))
    ```
    or give the function an `input_signature` with a `tf.TensorSpec([], tf.int64)`.

    ## Fix safety
    Wrapping the argument in `tf.constant(...)` is unsafe: the parameter may drive Python
    control flow or shapes inside the function.

    ## References
    - [Better performance with tf.function: Controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
    - [Rules of tracing](https://www.tensorflow.org/guide/function#rules_of_tracing)
    """

    CODE = "TFL401"
    NAME = "python-scalar-argument"
    MESSAGE = ("`{arg}` is a Python value that changes per call: `{fn}` traces a new graph for every value; "
               "pass a tensor (`tf.constant(...)`) or set an input_signature")
    SEVERITY = Severity.PERF
    TRACED_ONLY = False
    PITFALLS = ("P31",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def train_step(x, training):
    return x * 2 if training else x

@tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)])
def scaled(x, step):
    return x * tf.cast(step, tf.float32)

for step in range(1000):
    train_step(tf.constant(1.0), training=True)
    train_step(tf.constant(1.0), training=False)
    scaled(tf.constant(1.0), step)
    train_step(tf.constant(1.0), tf.constant(step))
for i in range(3):
    train_step(tf.constant(1.0), i)     # three graphs, on purpose
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def train_step(x, step):
    return x * tf.cast(step, tf.float32)

for epoch in range(100):
    train_step(tf.constant(1.0), epoch)  # TFL401
''',
        '''import tensorflow as tf

@tf.function
def f(x, lr):
    return x * lr

def run(batches):
    step = 0
    for batch in batches:
        f(batch, 0.1 * step)  # TFL401
        step += 1
''',
        '''import tensorflow as tf

@tf.function
def resize(x, size):
    return tf.image.resize(x, [size, size])

a = resize(tf.zeros([1, 8, 8, 3]), 32)  # TFL401
b = resize(tf.zeros([1, 8, 8, 3]), 64)  # TFL401
c = resize(tf.zeros([1, 8, 8, 3]), 128)  # TFL401
''',
    )
    FIXED = (
        (0, '''import tensorflow as tf

@tf.function
def train_step(x, step):
    return x * tf.cast(step, tf.float32)

for epoch in range(100):
    train_step(tf.constant(1.0), tf.constant(epoch))  # TFL401
'''),
        (1, '''import tensorflow as tf

@tf.function
def f(x, lr):
    return x * lr

def run(batches):
    step = 0
    for batch in batches:
        f(batch, tf.constant(0.1 * step))  # TFL401
        step += 1
'''),
        (2, '''import tensorflow as tf

@tf.function
def resize(x, size):
    return tf.image.resize(x, [size, size])

a = resize(tf.zeros([1, 8, 8, 3]), tf.constant(32))  # TFL401
b = resize(tf.zeros([1, 8, 8, 3]), tf.constant(64))  # TFL401
c = resize(tf.zeros([1, 8, 8, 3]), tf.constant(128))  # TFL401
'''),
    )

    def finish(self) -> None:
        sem = self.sem
        counters: dict[int, frozenset[str]] = {}
        literal_sites: dict[tuple[int, str], list[tuple[cst.BaseExpression, str, Ctx, FunctionInfo]]] = {}
        for call, ctx in sem.all_calls:
            if sem.is_traced(ctx):
                continue  # inside a graph the call is inlined into the caller's trace
            callee = tf_function_callee(sem, call, ctx)
            if callee is None or callee.has_input_signature:
                continue
            for key, arg in (sem.bound_args(call, callee, partial=True) or {}).items():
                value = arg.value
                lit = _literal(value)
                if lit is not None:
                    literal_sites.setdefault((id(callee), key), []).append((value, lit, ctx, callee))
                    continue
                name = self._varying_name(value, ctx, counters)
                if name is not None:
                    self.report(value, self.MESSAGE.format(arg=_code(value), fn=callee.name), ctx=None,
                                fix=self._fix(value, ctx))
        for sites in literal_sites.values():
            if len({lit for _, lit, _, _ in sites}) >= LITERAL_VARIANTS:
                for value, lit, ctx, callee in sites:
                    self.report(value, self.MESSAGE.format(arg=_code(value), fn=callee.name),
                                fix=self._fix(value, ctx))

    @fixes.offered_only_if_built
    def _fix(self, value: cst.BaseExpression, ctx: Ctx):
        """Wrap the argument in ``tf.constant(...)`` (unsafe: the parameter may drive
        Python control flow, shapes or a Python-typed computation in the function)."""
        tf_mod = fixes.tensorflow_module(self.sem, ctx)
        if tf_mod is None:
            return None
        alias, imports = tf_mod
        inner = fixes.operand(value)
        new = fixes.call(f"{alias}.constant", [cst.Arg(inner)])
        return self.replace(value, new, safe=False, imports=imports,
                            title=f"Pass `{alias}.constant({_code(inner)})`")

    @staticmethod
    def _varying_name(value: cst.BaseExpression, ctx: Ctx,
                      memo: dict[int, frozenset[str]] | None = None) -> str | None:
        """A name in ``value`` that changes on every iteration of an enclosing loop.
        ``memo`` keeps each loop's counters, so 10,000 call sites in one loop body do
        not each rescan the body."""
        names = _names_in(value)
        if not names:
            return None
        for loop in ctx.loops():
            node = loop.node
            if isinstance(node, cst.For):
                targets = _loop_counter_targets(node)
                hit = names & targets
                if hit:
                    return next(iter(hit))
            counters = memo.get(id(node)) if memo is not None else None
            if counters is None:
                counters = _counters(node)
                if memo is not None:
                    memo[id(node)] = counters
            for n in names:
                if n in counters:
                    return n
        return None


def _loop_counter_targets(node: cst.For) -> set[str]:
    it = node.iter
    bound = _range_bound(it)
    if bound is not None and bound <= SMALL_LOOP:
        return set()
    if isinstance(it, cst.Call):
        fname = dotted_name(it.func) or ""
        if fname in _RANGE_LIKE and isinstance(node.target, cst.Name):
            return {node.target.value}
        if fname in ("enumerate",) and isinstance(node.target, cst.Tuple) and node.target.elements:
            first = node.target.elements[0].value
            if isinstance(first, cst.Name):
                return {first.value}
    return set()


def _counters(loop: cst.CSTNode) -> frozenset[str]:
    """Names counted by ``name += <number>`` directly in the loop body."""
    body = getattr(loop, "body", None)
    stmts = getattr(body, "body", ())
    out = set()
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and \
                        isinstance(small.value, (cst.Integer, cst.Float)):
                    out.add(small.target.value)
    return frozenset(out)


def _names_in(value: cst.BaseExpression) -> set[str]:
    """Names a scalar expression is computed from: ``step``, ``lr * step``, ``int(step)``."""
    if isinstance(value, cst.Name):
        return {value.value} if value.value not in ("True", "False", "None") else set()
    if isinstance(value, cst.BinaryOperation):
        return _names_in(value.left) | _names_in(value.right)
    if isinstance(value, cst.UnaryOperation):
        return _names_in(value.expression)
    if isinstance(value, cst.Call) and dotted_name(value.func) in ("int", "float", "str", "bool") and value.args:
        return _names_in(value.args[0].value)
    return set()


def _literal(value: cst.BaseExpression) -> str | None:
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return value.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) and \
            isinstance(value.expression, (cst.Integer, cst.Float)):
        return "-" + value.expression.value
    return None


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


class TfFunctionCreatedInLoop(Rule):
    """A `tf.function` is created inside a loop (or per call) and called there.

    ## What it does
    Flags `tf.function(g)` calls and `@tf.function` definitions inside a loop body when the
    new function is called in the same loop (`tf.function(g)(x)`, or `f = tf.function(g)`
    followed by `f(x)`), and functions that create and call a `tf.function` every time they
    run when they themselves are called inside a loop. Creating one function per item and
    storing it (the guide's "one tf.function per optimizer") and cached creation under a
    first-call guard are not flagged.

    ## Why is this bad?
    Every `tf.function` object keeps its own traces. A new one per iteration traces and
    compiles the graph again on every iteration — the first cause TensorFlow names in its
    retracing warning: "(1) creating @tf.function repeatedly in a loop".

    ## Example
    ```python
    for x in batches:
        y = tf.function(preprocess)(x)
    ```

    ## Use instead
    ```python
    preprocess_fn = tf.function(preprocess)
    for x in batches:
        y = preprocess_fn(x)
    ```

    ## References
    - [Better performance with tf.function: Controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
    """

    CODE = "TFL402"
    NAME = "tf-function-created-in-loop"
    MESSAGE = ("a new tf.function is created {where}: each one traces its graph again; "
               "create it once outside the loop")
    SEVERITY = Severity.PERF
    TRACED_ONLY = False
    PITFALLS = ("P32",)
    VALID = (
        '''import tensorflow as tf

def preprocess(x):
    return x * 2

preprocess_fn = tf.function(preprocess)
steps = []
for opt in ("sgd", "adam"):
    steps.append(tf.function(preprocess))   # one function per optimizer, kept
for x in range(10):
    preprocess_fn(tf.constant(x))

class Runner:
    def __init__(self):
        self._fn = None

    def run(self, x):
        if self._fn is None:
            self._fn = tf.function(preprocess)
        return self._fn(x)
''',
    )
    INVALID = (
        '''import tensorflow as tf

def preprocess(x):
    return x * 2

for i in range(100):
    y = tf.function(preprocess)(tf.constant(i))  # TFL402
''',
        '''import tensorflow as tf

def run_epoch(model, batches):
    @tf.function
    def step(x):  # TFL402
        return model(x)

    for x in batches:
        step(x)

def train(model, batches):
    for epoch in range(10):
        run_epoch(model, batches)
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        if not (sem.is_tf_function_expr(node.func) and node.args):
            return
        if sem.enclosing_guard(ctx) is not None:
            return
        loop = next(ctx.loops(), None)
        if loop is None:
            return
        if self._called_in_loop(node, ctx, loop):
            self.report(node, self.MESSAGE.format(where="in every iteration of this loop"), ctx=None)

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Ctx) -> None:
        sem = self.sem
        info = sem.function_of(node)
        if info is None or not any(sem.is_tf_function_expr(d.decorator.func if isinstance(d.decorator, cst.Call)
                                                          else d.decorator) for d in node.decorators):
            return
        if sem.enclosing_guard(ctx) is not None:
            return
        name = node.name.value
        loop = next(ctx.loops(), None)
        if loop is not None:
            if self._name_called_within(name, loop.node, ctx.fn):
                self.report(node.name, self.MESSAGE.format(where="in every iteration of this loop"))
            return
        factory = ctx.fn
        if factory is None or factory.traced or not self._name_called_within(name, factory.node, factory):
            return
        for call, cctx in sem.all_calls:
            if sem.resolve_callee(call, cctx.fn) is factory and next(cctx.loops(), None) is not None:
                self.report(node.name, self.MESSAGE.format(
                    where=f"on every call of `{factory.name}`, which is called in a loop (line {sem.line_of(call)})"))
                return

    def _called_in_loop(self, node: cst.Call, ctx: Ctx, loop: Ctx) -> bool:
        # tf.function(g)(x): the created function is called right away
        for call, cctx in self.sem.all_calls:
            if call.func is node:
                return True
        # f = tf.function(g); f(x) in the same loop
        fn = ctx.fn
        names = {n for n, vals in (fn.assigns.items() if fn is not None else self.sem.module_assigns.items())
                 if any(v is node for v in vals)}
        return any(self._name_called_within(n, loop.node, fn) for n in names)

    def _name_called_within(self, name: str, container: cst.CSTNode, fn: FunctionInfo | None) -> bool:
        for call, cctx in self.sem.all_calls:
            if isinstance(call.func, cst.Name) and call.func.value == name and \
                    any(c.node is container for c in cctx.ancestors()):
                return True
        return False


class NewPythonObjectArgument(Rule):
    """A new container of changing numbers, or a new object, passed per loop iteration.

    ## What it does
    Flags, inside loops outside traced code: (1) arguments of a call to a tf.function of
    this module that are list, tuple or dict displays holding a Python number that changes
    per iteration (`f([float(i), 1.0])`), and (2) a class of this module that has a
    `tf.function` method, instantiated in the loop and that method called on the new
    instance (`Model().predict_step(x)`). Containers of tensors are not flagged: they are
    traced by structure, not by value. Off by default: a loop with a handful of
    iterations traces a handful of graphs on purpose.

    ## Why is this bad?
    The Python values inside a container are part of the trace key, like a bare Python
    number (TFL401): every new value traces a new graph. A `tf.function` method keeps its
    traces per instance, so a new instance per iteration traces again every time. Observed
    on TensorFlow 2.21: 6 calls with new float lists give 6 traces and the retracing
    warning.

    ## Example
    ```python
    @tf.function
    def f(pair):
        return pair[0] * pair[1]

    for i in range(100):
        f([float(i), 1.0])
    ```

    ## Use instead
    ```python
    @tf.function
    def f(pair):
        return pair[0] * pair[1]

    for i in range(100):
        f(tf.constant([float(i), 1.0]))
    ```
    and create objects with `tf.function` methods once, outside the loop.

    ## References
    - [Better performance with tf.function: Rules of tracing](https://www.tensorflow.org/guide/function#rules_of_tracing)
    """

    CODE = "TFL404"
    NAME = "new-python-object-argument"
    MESSAGE = "{what}: each iteration traces `{fn}` again; {advice}"
    SEVERITY = Severity.PERF
    DEFAULT_ON = False
    TRACED_ONLY = False
    PITFALLS = ("P34",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(pair):
    return pair[0] * pair[1]

class Model(tf.Module):
    @tf.function
    def step(self, x):
        return x * 2

model = Model()
for i in range(100):
    f([tf.constant(float(i)), tf.constant(1.0)])   # tensors: traced by structure
    f([1.0, 2.0])                                  # the same values every time
    model.step(tf.constant(1.0))                   # one instance
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(pair):
    return pair[0] * pair[1]

for i in range(100):
    f([float(i), 1.0])  # TFL404
''',
        '''import tensorflow as tf

class Model(tf.Module):
    @tf.function
    def predict_step(self, x):
        return x * 2

def run(batches):
    for x in batches:
        Model().predict_step(x)  # TFL404
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        if next(ctx.loops(), None) is None or sem.is_traced(ctx):
            return
        callee = tf_function_callee(sem, node, ctx)
        if callee is not None and not callee.has_input_signature:
            for a in node.args:
                if isinstance(a.value, (cst.List, cst.Tuple, cst.Dict)):
                    elements = [e.value for e in getattr(a.value, "elements", ())]
                    if any(PythonScalarArgument._varying_name(e, ctx) for e in elements):
                        self.report(a.value, self.MESSAGE.format(
                            what="a new container of changing Python numbers", fn=callee.name,
                            advice="pass a tensor (`tf.constant([...])`)"))
            return
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) and \
                isinstance(func.value.func, cst.Name) and func.value.func.value in sem.classes:
            method = sem.method_of(sem.classes[func.value.func.value], func.attr.value)
            if method is not None and method.tf_function:
                self.report(node, self.MESSAGE.format(
                    what=f"a new `{func.value.func.value}` per iteration", fn=method.name,
                    advice="create the object once, outside the loop"))
