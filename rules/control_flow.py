"""AutoGraph control flow: TensorFlow loops and conditionals that Python state cannot
cross, Python loops that unroll, and tf.functions that call themselves."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from tflint import fixes
from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic import target_names, Ctx, FunctionInfo, SemanticModel, dotted_name

#: a Python loop with more constant iterations than this is worth a TensorFlow loop
LARGE_UNROLL = 100

_ACCUMULATORS = frozenset({"append", "extend", "insert"})
_LIST_FACTORIES = frozenset({"list", "collections.deque", "deque"})
_DICT_FACTORIES = frozenset({"dict", "collections.defaultdict", "defaultdict", "collections.OrderedDict",
                             "OrderedDict"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


# ---------------------------------------------------------------------------------------
# small tree helpers (only run on candidates, never on the whole file)


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes below ``node`` (itself included), not entering nested functions/classes."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for c in reversed(n.children):
            if not isinstance(c, _SCOPES):
                stack.append(c)


def _bindings(node: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """(name, binding node) for every name bound in the subtree (nested scopes excluded)."""
    for n in _walk(node):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                for name in target_names(t.target):
                    yield name, n
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            if not (isinstance(n, cst.AnnAssign) and n.value is None):
                for name in target_names(n.target):
                    yield name, n
        elif isinstance(n, cst.For):
            for name in target_names(n.target):
                yield name, n
        elif isinstance(n, cst.NamedExpr):
            for name in target_names(n.target):
                yield name, n
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            for name in target_names(n.asname.name):
                yield name, n
        elif isinstance(n, cst.ExceptHandler) and n.name is not None:
            yield from ((x, n) for x in target_names(n.name.name))
        elif isinstance(n, (cst.Import, cst.ImportFrom)) and not isinstance(n.names, cst.ImportStar):
            for a in n.names:
                if a.asname is not None and isinstance(a.asname.name, cst.Name):
                    yield a.asname.name.value, n
                else:
                    yield (dotted_name(a.name) or "").split(".")[0], n
    # nested defs/classes bind their names
    for n in _walk(node):
        for c in n.children:
            if isinstance(c, (cst.FunctionDef, cst.ClassDef)):
                yield c.name.value, c


def _assigned_in(node: cst.CSTNode) -> set[str]:
    return {n for n, _ in _bindings(node)}


def _name_nodes(node: cst.CSTNode) -> Iterator[cst.Name]:
    """Name nodes that denote variables: not ``x.attr``'s ``attr``, not ``f(key=...)``'s ``key``."""
    skip: set[int] = set()
    for n in _walk(node):
        if isinstance(n, cst.Attribute):
            skip.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            skip.add(id(n.keyword))
        elif isinstance(n, cst.Name) and id(n) not in skip:
            yield n


def _names_read(node: cst.CSTNode) -> set[str]:
    return {n.value for n in _name_nodes(node)}


def _is_tensor_test(sem: SemanticModel, test: cst.BaseExpression, fn: FunctionInfo | None) -> bool:
    """A condition AutoGraph turns into ``tf.cond``/``tf.while_loop`` (``and``/``or``/``not``
    of tensors included)."""
    if isinstance(test, cst.BooleanOperation):
        return _is_tensor_test(sem, test.left, fn) or _is_tensor_test(sem, test.right, fn)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _is_tensor_test(sem, test.expression, fn)
    return sem.is_tensor(test, fn)


def _local_owner(name: str, fn: FunctionInfo | None) -> FunctionInfo | None:
    """The traced function that binds ``name`` locally (not global, not a closure over
    eager code: TFL105 reports those)."""
    if fn is None:
        return None
    for f in fn.scope_chain():
        if name in f.globals_ or name in f.nonlocals:
            return None
        if name in f.param_names or name in f.bound:
            return f if f.traced else None
    return None


def _container_kind(owner: FunctionInfo, name: str) -> str | None:
    """"list" or "dict" when every value bound to ``name`` is a list/dict display or factory."""
    kinds = set()
    values = owner.assigns.get(name, ())
    if not values:
        return None
    for v in values:
        if isinstance(v, (cst.List, cst.ListComp)):
            kinds.add("list")
        elif isinstance(v, (cst.Dict, cst.DictComp)):
            kinds.add("dict")
        elif isinstance(v, cst.Call) and (dotted_name(v.func) or "") in _LIST_FACTORIES:
            kinds.add("list")
        elif isinstance(v, cst.Call) and (dotted_name(v.func) or "") in _DICT_FACTORIES:
            kinds.add("dict")
        elif isinstance(v, cst.BinaryOperation) and isinstance(v.left, cst.Name) and v.left.value == name:
            continue  # `x += [...]` as recorded by the model
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def _strip_int(e: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(e, cst.Call) and dotted_name(e.func) == "int" and e.args:
        return e.args[0].value
    return e


def _root_param(name: str, fn: FunctionInfo) -> bool:
    """``name`` is an unassigned parameter of a tf.function itself (a graph input)."""
    for f in fn.scope_chain():
        if name in f.param_names:
            return f.tf_function
        if name in f.bound:
            return False
    return False


def surely_tensor(sem: SemanticModel, e: cst.BaseExpression, fn: FunctionInfo | None, depth: int = 0,
                  known: dict[str, bool] | None = None) -> bool:
    """Stricter than ``sem.is_tensor``: a tensor by evidence from TensorFlow calls or the
    inputs of a tf.function, never only because a helper's parameter is guessed to be one
    (helpers are often given lists of tensors, which their loops iterate in Python).
    ``known`` gives the answer for some names (the targets of the loops around the node)."""
    if known and isinstance(e, cst.Name) and e.value in known:
        return known[e.value]
    if fn is None or depth > 10 or not sem.is_tensor(e, fn):
        return False
    d = depth + 1
    if known:
        return _surely_known(sem, e, fn, d, known)
    if isinstance(e, cst.Name):
        name = e.value
        if _root_param(name, fn):
            return True
        for f in fn.scope_chain():
            if name in f.param_names or name in f.bound:
                if any(surely_tensor(sem, v, f, d) for v in f.assigns.get(name, ())):
                    return True
                return any(surely_iterates_tensors(sem, it, f, d) for it in f.loop_targets.get(name, ()))
        return False
    if isinstance(e, cst.Call):
        if _returns_python_list(sem, e):
            return False
        if sem.qualified_startswith(e.func, ("tensorflow.", "keras.ops.", "keras.backend.")):
            return True
        return isinstance(e.func, cst.Attribute) and surely_tensor(sem, e.func.value, fn, d)
    if isinstance(e, (cst.Subscript, cst.Attribute)):
        return surely_tensor(sem, e.value, fn, d)
    if isinstance(e, cst.BinaryOperation):
        return surely_tensor(sem, e.left, fn, d) or surely_tensor(sem, e.right, fn, d)
    if isinstance(e, cst.UnaryOperation):
        return surely_tensor(sem, e.expression, fn, d)
    if isinstance(e, cst.Comparison):
        return surely_tensor(sem, e.left, fn, d) or any(surely_tensor(sem, c.comparator, fn, d)
                                                        for c in e.comparisons)
    if isinstance(e, cst.IfExp):
        return surely_tensor(sem, e.body, fn, d) or surely_tensor(sem, e.orelse, fn, d)
    return False


def _surely_known(sem: SemanticModel, e: cst.BaseExpression, fn: FunctionInfo, d: int,
                  known: dict[str, bool]) -> bool:
    """:func:`surely_tensor` where names of ``known`` have a fixed answer."""
    names = {n.value for n in _name_nodes(e)}
    fixed = names & set(known)
    if not fixed:
        return surely_tensor(sem, e, fn, d)
    if any(known[n] for n in fixed):
        return True
    # judge the other names alone: replace the known ones by a Python constant
    class _Sub(cst.CSTTransformer):
        def leave_Name(self, orig: cst.Name, upd: cst.Name) -> cst.BaseExpression:
            return cst.Integer("0") if orig.value in fixed else upd

    return surely_tensor(sem, e.visit(_Sub()), fn, d)  # type: ignore[arg-type]


def surely_iterates_tensors(sem: SemanticModel, it: cst.BaseExpression, fn: FunctionInfo | None,
                            depth: int = 0) -> bool:
    if fn is None or depth > 10:
        return False
    d = depth + 1
    if isinstance(it, cst.Call):
        if sem.resolves_to(it.func, {"tensorflow.range"}):
            return True
        if _returns_python_list(sem, it):
            return False
        name = dotted_name(it.func)
        if name == "range" and "range" not in sem.imports:
            return any(surely_tensor(sem, _strip_int(a.value), fn, d) for a in it.args)
        if name in ("enumerate", "zip", "iter", "reversed"):
            return any(surely_iterates_tensors(sem, a.value, fn, d) for a in it.args if a.keyword is None)
    if fn.traced and sem.is_dataset_expr(it, fn):
        return True
    return surely_tensor(sem, it, fn, d)


#: TensorFlow functions that return a Python list (or nest) of tensors: a loop over their
#: result is a Python loop
_LIST_RETURNING = frozenset({"unstack", "split", "meshgrid", "gradients", "dynamic_partition", "unique_with_counts",
                             "flatten", "flatten_up_to", "map_structure", "pack_sequence_as", "trainable_variables",
                             "global_variables", "get_collection", "make_parallel", "while_loop", "while_loop_v2"})


def _returns_python_list(sem: SemanticModel, call: cst.Call) -> bool:
    q = sem.qualified_startswith(call.func, ("tensorflow.", "keras."))
    if q is not None:
        return q.startswith("tensorflow.nest.") or q.rsplit(".", 1)[-1] in _LIST_RETURNING
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in ("gradient", "unstack", "split")


def _surely_tf_test(sem: SemanticModel, test: cst.BaseExpression, fn: FunctionInfo | None,
                    known: dict[str, bool] | None = None) -> bool:
    if isinstance(test, cst.BooleanOperation):
        return _surely_tf_test(sem, test.left, fn, known) or _surely_tf_test(sem, test.right, fn, known)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _surely_tf_test(sem, test.expression, fn, known)
    return surely_tensor(sem, test, fn, known=known)


def surely_tf_loop(sem: SemanticModel, loop: cst.For | cst.While, fn: FunctionInfo | None) -> bool:
    """A loop that is a graph loop by strong evidence (see :func:`surely_tensor`)."""
    if not sem.loop_is_tensorflow(loop, fn):
        return False
    if isinstance(loop, cst.For):
        return surely_iterates_tensors(sem, loop.iter, fn)
    return _surely_tf_test(sem, loop.test, fn)


def _tf_loop_outside_binding(sem: SemanticModel, name: str, ctx: Ctx) -> cst.For | cst.While | None:
    """The innermost enclosing TensorFlow loop of ``ctx`` that ``name`` is not rebound in
    (so the same Python object crosses its iterations); None when a loop on the way
    rebinds it (a fresh container per iteration) or there is no TensorFlow loop."""
    for loop in ctx.loops():
        node = loop.node
        if name in _assigned_in(node.body):
            return None
        if surely_tf_loop(sem, node, ctx.fn):
            return node
    return None


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _in_py_function(sem: SemanticModel, ctx: Ctx) -> bool:
    return sem.in_py_function_arg(ctx) or (ctx.fn is not None and ctx.fn.py_function_target)


# ---------------------------------------------------------------------------------------
# TFL506


class RecursiveTfFunction(Rule):
    """A `tf.function` calls itself, directly or through functions of the same module.

    ## What it does
    Flags a call inside a `tf.function` (or inside a function it calls in the same module)
    that invokes that same `tf.function` again: by its name, through the name bound to
    `tf.function(g)`, or as `self.method(...)` when the method is the `tf.function`.

    ## Why is this bad?
    Recursive `tf.function`s are not supported. With a tensor argument, AutoGraph traces
    both branches of the base-case `if`, so tracing recurses until it fails with
    `RecursionError: maximum recursion depth exceeded` (wrapped in a `StagingError`). With
    Python arguments it traces one new graph per recursion depth, and with
    `autograph=False` it can deadlock (tensorflow/tensorflow#35540).

    ## Example
    ```python
    @tf.function
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return n
    ```

    ## Use instead
    ```python
    @tf.function
    def countdown(n):
        while n > 0:
            n -= 1
        return n
    ```
    A plain Python helper that recurses on Python values (unrolled while tracing) is fine.

    ## References
    - [Better performance with tf.function: Recursive tf.functions are not supported](https://www.tensorflow.org/guide/function#recursive_tffunctions_are_not_supported)
    """

    CODE = "TFL506"
    NAME = "recursive-tf-function"
    MESSAGE = "tf.function `{fn}` calls itself{via}: recursive tf.functions are not supported; use a loop"
    SEVERITY = Severity.ERROR
    PITFALLS = ("P35",)
    VALID = (
        '''import tensorflow as tf

def depth_sum(x, depth):
    if depth == 0:          # Python recursion on a Python int: unrolled while tracing
        return x
    return x + depth_sum(x, depth - 1)

@tf.function
def f(x):
    return depth_sum(x, 3)

@tf.function
def g(x):
    return f(x) + 1         # another tf.function: fine
''',
        '''import tensorflow as tf

class Tree(tf.Module):
    @tf.function
    def __call__(self, x):
        return self.child(x)    # another object's method, not this one

    def walk(self, x):
        return self.walk(x - 1) if x > 0 else x   # eager recursion
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def countdown(n):
    if n > 0:
        return countdown(n - 1)  # TFL506
    return n
''',
        '''import tensorflow as tf

class Solver(tf.Module):
    @tf.function
    def solve(self, x):
        return self.refine(x)

    def refine(self, x):
        if tf.reduce_max(x) > 1.0:
            return self.solve(x / 2)  # TFL506
        return x
''',
        '''import tensorflow as tf

def _walk(x):
    return walk(x - 1)  # TFL506

walk = tf.function(_walk)
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        if ctx.fn is None or _in_py_function(sem, ctx):
            return
        target = _called_tf_function(sem, node, ctx)
        if target is None:
            return
        # the caller is the tf.function itself, a function nested in it, or a function
        # it reaches through calls in this module
        path = _reaches(sem, target, ctx.fn)
        if path is None:
            return
        owners = {id(f) for f in target.scope_chain()} - {id(target)}
        if any(id(f) in owners for f in path + list(ctx.fn.scope_chain())):
            return  # the path runs through the function that creates it: a new tf.function each time
        via = "" if not path else " through " + " → ".join(f"`{f.name}`" for f in path)
        self.report(node, self.MESSAGE.format(fn=target.name, via=via), ctx=ctx)


def _called_tf_function(sem: SemanticModel, call: cst.Call, ctx: Ctx) -> FunctionInfo | None:
    callee = sem.resolve_callee(call, ctx.fn)
    if callee is not None:
        return callee if callee.tf_function else None
    if isinstance(call.func, cst.Name):
        from tflint.rules.retracing import tf_function_callee

        return tf_function_callee(sem, call, ctx)
    return None


def _reaches(sem: SemanticModel, start: FunctionInfo, caller: FunctionInfo) -> list[FunctionInfo] | None:
    """Functions on a call path from ``start`` to ``caller`` (excluding ``start``), [] when
    ``caller`` is ``start`` or nested in it; None when ``start`` never reaches ``caller``."""
    if any(f is start for f in caller.scope_chain()):
        return []
    seen = {id(start)}
    frontier: list[tuple[FunctionInfo, list[FunctionInfo]]] = [(start, [])]
    while frontier:
        f, path = frontier.pop(0)
        bodies = [f] + _all_nested(f)
        for b in bodies:
            for call, cctx in b.calls:
                callee = sem.resolve_callee(call, cctx.fn)
                if callee is None or id(callee) in seen or callee.tf_function:
                    continue
                seen.add(id(callee))
                p = path + [callee]
                if any(g is callee for g in caller.scope_chain()):
                    return p
                frontier.append((callee, p))
    return None


def _all_nested(f: FunctionInfo) -> list[FunctionInfo]:
    out: list[FunctionInfo] = []
    stack = list(f.nested)
    while stack:
        n = stack.pop()
        if n.cls is None:
            out.append(n)
            stack.extend(n.nested)
    return out


# ---------------------------------------------------------------------------------------
# TFL501 / TFL502


class ListAppendInTfLoop(Rule):
    """A Python list collects tensors inside a TensorFlow loop.

    ## What it does
    In traced code, flags `L.append(t)`, `L.extend(...)` and `L.insert(...)` with a tensor
    argument inside a TensorFlow loop (`for` over `tf.range`, a tensor or a dataset,
    `range(<tensor>)`, or `while <tensor condition>`) when the list `L` is a local list
    created before that loop. Lists filled in a Python loop (`for i in range(3)`) and
    lists created afresh in each iteration are fine and are not flagged; lists bound
    outside the traced function are TFL105's.

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
        owner = _local_owner(name, ctx.fn)
        if owner is None or _container_kind(owner, name) != "list" or _in_py_function(sem, ctx):
            return
        if _tf_loop_outside_binding(sem, name, ctx) is None:
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
                targets.extend(_flat(t.target))
            value = node.value
            if not sem.is_tensor(value, ctx.fn):
                return
        elif isinstance(node, cst.AugAssign):
            targets.append(node.target)
        elif isinstance(node, cst.Del):
            targets.extend(_flat(node.target))
        for t in targets:
            if not (isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name)):
                continue
            if all(isinstance(e.slice, cst.Index) and _literal_key(e.slice.value) for e in t.slice):
                continue
            name = t.value.value
            owner = _local_owner(name, ctx.fn)
            kind = _container_kind(owner, name) if owner is not None else None
            if kind is None or _in_py_function(sem, ctx):
                continue
            if _tf_loop_outside_binding(sem, name, ctx) is None:
                continue
            self.report(t, self.MESSAGE.format(target=_code(t), kind=kind), ctx=ctx)

    visit_AugAssign = visit_Assign
    visit_Del = visit_Assign


def _flat(t: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from _flat(e.value)
    elif isinstance(t, cst.StarredElement):
        yield from _flat(t.value)
    else:
        yield t


# ---------------------------------------------------------------------------------------
# TFL403

#: parameter-name words that announce an iteration count large enough to matter
_COUNT_WORDS = ("step", "iter", "epoch", "sample", "time", "length", "seq_len", "max_len", "horizon")


class PythonLoopUnrolled(Rule):
    """A Python loop with a large or data-dependent trip count in traced code.

    ## What it does
    In traced code, flags a Python `for` loop (one AutoGraph does not turn into a graph
    loop) whose body builds TensorFlow ops, when its trip count is large or comes from
    data:
    - `range(N)` with a literal `N` above `LARGE_UNROLL` (100);
    - `range(x.shape[i])` (or `x.get_shape()[i]`, `x.shape.as_list()[i]`) of a tensor
      `x`: the static size of a data dimension, such as the sequence length;
    - `range(n)` where `n` is a parameter of the traced function whose name announces an
      iteration count (`num_steps`, `n_iter`, `max_length`, `epochs`, `horizon`, ...).

    Small constant unrolls (`range(3)`), loops over `self.layers`, over a tuple of heads or
    scales, and `range(len(python_list))` are deliberate and often faster than a graph
    loop; they are not flagged. Loops over `tf.range`, tensors, datasets and
    `range(<tensor>)` are graph loops already.

    ## Why is this bad?
    A Python loop runs while tracing and copies its body into the graph once per
    iteration. Tracing time and graph size grow with the trip count (TensorFlow warns
    only after 50,000 iterations: "Large unrolled loop detected"); a shape-derived bound
    also retraces for every new input length.

    ## Example
    ```python
    @tf.function
    def rnn(cell, x, state):
        for t in range(x.shape[1]):
            out, state = cell(x[:, t], state)
        return out
    ```

    ## Use instead
    ```python
    @tf.function
    def rnn(cell, x, state):
        out = tf.zeros_like(state)
        for t in tf.range(tf.shape(x)[1]):
            out, state = cell(x[:, t], state)
        return out
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
    MESSAGE = "Python loop over {what} is unrolled into the graph {why}; use `tf.range` for a graph loop"
    SEVERITY = Severity.PERF
    PITFALLS = ("P19",)
    VALID = (
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
def rnn(cell, x, state):
    for t in range(x.shape[1]):  # TFL403
        out, state = cell(x[:, t], state)
    return state

@tf.function
def simulate(x, num_steps):
    for _ in range(num_steps):  # TFL403
        x = x + tf.random.normal(tf.shape(x))
    return x
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
def rnn(cell, x, state):
    for t in tf.range(tf.shape(x)[1]):  # TFL403
        out, state = cell(x[:, t], state)
    return state

@tf.function
def simulate(x, num_steps):
    for _ in tf.range(num_steps):  # TFL403
        x = x + tf.random.normal(tf.shape(x))
    return x
'''),
    )

    def visit_For(self, node: cst.For, ctx: Ctx) -> None:
        sem = self.sem
        fn = ctx.fn
        if fn is None or sem.loop_is_tensorflow(node, fn) or _in_py_function(sem, ctx):
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
        self.report(node, self.MESSAGE.format(what=f"`{_code(it)}`", why=why), ctx=ctx,
                    fix=fixes.range_to_tf_range(self, it, ctx))

    def _large(self, args: list[cst.BaseExpression], fn: FunctionInfo) -> str | None:
        stop = args[0] if len(args) == 1 else args[1]
        if isinstance(stop, cst.Integer):
            start = int(args[0].value, 0) if len(args) > 1 and isinstance(args[0], cst.Integer) else 0
            step = int(args[2].value, 0) if len(args) == 3 and isinstance(args[2], cst.Integer) else 1
            n = (int(stop.value, 0) - start) // (step or 1)
            return f"{n} times" if n > LARGE_UNROLL else None
        if self._static_dim(stop, fn):
            return "once per element of a data dimension (and retraced for every new size)"
        if isinstance(stop, cst.Name) and stop.value in fn.param_names and stop.value not in fn.assigns:
            low = stop.value.lower()
            if any(w in low for w in _COUNT_WORDS):
                return f"`{stop.value}` times"
        return None

    def _static_dim(self, e: cst.BaseExpression, fn: FunctionInfo) -> bool:
        """``x.shape[i]``, ``x.get_shape()[i]``, ``x.shape.as_list()[i]`` of a tensor ``x``."""
        if not isinstance(e, cst.Subscript):
            return False
        base = e.value
        if isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and \
                base.func.attr.value in ("as_list", "get_shape"):
            base = base.func.value if base.func.attr.value == "as_list" else base
        if isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and base.func.attr.value == "get_shape":
            return self.sem.is_tensor(base.func.value, fn)
        if isinstance(base, cst.Attribute) and base.attr.value == "shape":
            return self.sem.is_tensor(base.value, fn)
        return False

    def _builds_ops(self, loop: cst.For, fn: FunctionInfo) -> bool:
        sem = self.sem
        for n in _walk(loop.body):
            if isinstance(n, cst.Call) and (sem.qualified_startswith(n.func, ("tensorflow.", "keras."))
                                            or sem.is_tensor(n, fn)):
                return True
        return False


# ---------------------------------------------------------------------------------------
# TFL503


class TensorBreakInPythonLoop(Rule):
    """`break` or `return` under a tensor condition inside a Python loop.

    ## What it does
    In traced code, flags `break` and `return` statements that sit under an `if` whose
    condition is a tensor, inside a loop that stays a Python loop (`for i in range(3)`,
    `for x in python_list`, `while True`). `continue` is not flagged: AutoGraph 2.21
    lowers it to a conditional inside the body, which works in Python loops (checked).

    ## Why is this bad?
    AutoGraph turns the tensor `if` into `tf.cond` and the `break`/`return` into a flag
    that becomes a tensor; a Python loop cannot stop on a tensor, so tracing fails with
    `NotImplementedError: break and return statements which depend on a TF condition are
    not supported in Python for loops. Did you intend to make it a TF loop?` (for `while`
    loops: "The condition of while loop started as non-Tensor, then changed to Tensor").

    ## Example
    ```python
    @tf.function
    def first_above(x, threshold):
        for i in range(10):
            if x[i] > threshold:
                break
        return i
    ```

    ## Use instead
    ```python
    @tf.function
    def first_above(x, threshold):
        for i in tf.range(10):
            if x[i] > threshold:
                break
        return i
    ```

    ## Fix safety
    Turning `range` into `tf.range` is unsafe: the body may rely on a Python loop index.

    ## References
    - [AutoGraph reference: break statements](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md#break-statements)
    - [AutoGraph limitations: consistency of control flow types](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types)
    """

    CODE = "TFL503"
    NAME = "tensor-break-in-python-loop"
    MESSAGE = ("`{stmt}` depends on a tensor condition inside a Python loop: AutoGraph cannot stop a Python "
               "loop on a tensor (NotImplementedError); make it a TF loop (`tf.range`, `while <tensor>`)")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P20",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    for i in range(3):
        if i == 2:                   # Python condition: fine
            break
        if x[i] > 0:
            continue                 # continue works in Python loops
        x = x + 1
    for i in tf.range(3):
        if x[i] > 0:                 # TF loop: converted
            break
    return x
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    for i in range(3):
        if tf.reduce_sum(x) > 10.0:
            break  # TFL503
        x = x * 2
    return x

@tf.function
def g(x):
    while True:
        x = x - 1
        if x < 0:
            return x  # TFL503
''',
    )
    FIXED = (
        (0, '''import tensorflow as tf

@tf.function
def f(x):
    for i in tf.range(3):
        if tf.reduce_sum(x) > 10.0:
            break  # TFL503
        x = x * 2
    return x

@tf.function
def g(x):
    while True:
        x = x - 1
        if x < 0:
            return x  # TFL503
'''),
    )

    def visit_Break(self, node: cst.Break, ctx: Ctx) -> None:
        self._check(node, ctx, "break")

    def visit_Return(self, node: cst.Return, ctx: Ctx) -> None:
        self._check(node, ctx, "return")

    def _check(self, node: cst.CSTNode, ctx: Ctx, stmt: str) -> None:
        sem = self.sem
        fn = ctx.fn
        if fn is None or _in_py_function(sem, ctx):
            return
        tensor_if = False
        known: dict[str, bool] = {}
        for c in ctx.loops():
            if isinstance(c.node, cst.For):
                v = surely_iterates_tensors(sem, c.node.iter, fn)
                for t in target_names(c.node.target):
                    known.setdefault(t, v)
        for c in ctx.within_function():
            n = c.node
            if isinstance(n, cst.If) and c.field in ("body", "orelse") and not tensor_if:
                tensor_if = _surely_tf_test(sem, n.test, fn, known)
            elif isinstance(n, (cst.For, cst.While)) and c.field == "body":
                if tensor_if and not sem.loop_is_tensorflow(n, fn):
                    self.report(node, self.MESSAGE.format(stmt=stmt), ctx=ctx,
                                fix=fixes.loop_range_to_tf_range(self, n, ctx))
                    return
                if stmt == "break":
                    return  # break only leaves the innermost loop
            elif isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return


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
        params = {p.name.value for p in _lambda_params(lam)}
        free = _names_read(lam.body) - params
        if not free:
            return
        start = sem.position(node).end
        for loop in _walk(fn.node.body):
            if not isinstance(loop, (cst.For, cst.While)):
                continue
            lpos = sem.position(loop)
            if (lpos.start.line, lpos.start.column) < (start.line, start.column):
                continue
            hit = free & _assigned_in(loop.body)
            if isinstance(loop, cst.For):
                hit -= set(target_names(loop.target))
                hit |= free & set(target_names(loop.target))
            if not hit or not surely_tf_loop(sem, loop, fn):
                continue
            if self._called_after(lname, lpos.end, fn):
                var = sorted(hit)[0]
                self.report(node, self.MESSAGE.format(lam=lname, var=var, line=lpos.start.line), ctx=ctx)
                return

    def _called_after(self, name: str, end, fn: FunctionInfo) -> bool:
        for n in _walk(fn.node.body):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name:
                p = self.sem.position(n).start
                if (p.line, p.column) > (end.line, end.column):
                    return True
        return False


def _lambda_params(lam: cst.Lambda) -> list[cst.Param]:
    ps = lam.params
    out = list(ps.posonly_params) + list(ps.params) + list(ps.kwonly_params)
    if isinstance(ps.star_arg, cst.Param):
        out.append(ps.star_arg)
    if ps.star_kwarg is not None:
        out.append(ps.star_kwarg)
    return out


# ---------------------------------------------------------------------------------------
# TFL504


class DefinedInOneBranch(Rule):
    """A name defined in only one branch of a tensor `if`, or carried undefined into a TF loop.

    ## What it does
    In traced code, flags an `if` whose condition is a tensor when a name assigned in one
    branch is not assigned in the other, was not defined before the `if`, and is read
    after it. Branches that end in `return`/`raise`/`break`/`continue` do not need the
    name. Python conditions (`if training:`, `if mask is None:`) are not flagged: only
    the branch taken is traced. Names used only inside the branch are fine. Likewise
    flags such an `if`, written directly in the function body, when only one branch
    ends in `return` and the other path reaches the end of the function with no
    `return` (TensorFlow 2.21: `ValueError: the else branch must also have a return
    statement.`); an `if` followed by a `return` is fine, AutoGraph makes it the else
    branch.

    Also flags a TensorFlow loop (over `tf.range`, a tensor, a Dataset, or a `while` on a
    tensor) whose body reads a name before assigning it, when nothing outside the loop
    defines that name: the value is carried from the previous iteration and has none on
    entry. A name first assigned in the loop and only read after it is fine on TF 2.21.

    ## Why is this bad?
    AutoGraph turns the `if` into `tf.cond`, which needs every value that flows out of it
    on both paths. Tracing fails with `ValueError: 'y' must also be initialized in the
    else branch`. A TensorFlow loop likewise needs every loop-carried value before it
    starts (`UnboundLocalError: 's' is used before assignment` inside AutoGraph's error).

    ## Example
    ```python
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            y = x * 2
        return y
    ```

    ## Use instead
    ```python
    @tf.function
    def f(x):
        y = tf.zeros_like(x)
        if tf.reduce_sum(x) > 0:
            y = x * 2
        return y
    ```

    ## References
    - [AutoGraph limitations: undefined and None values in TensorFlow](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#undefined-and-none-values-in-tensorflow)
    - [AutoGraph reference: if statements](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/control_flow.md#if-statements)
    """

    CODE = "TFL504"
    NAME = "defined-in-one-branch"
    MESSAGE = ("`{name}` is defined only in the {branch} branch of this tensor `if` and used after it: tf.cond "
               "needs it on both paths; define it before the `if` or in the {other} branch")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P21", "P22")
    LOOP_MESSAGE = ("`{name}` is carried from one iteration of this TensorFlow loop to the next but is not defined "
                    "before the loop: AutoGraph needs its value on entry; initialise it before the loop")
    RETURN_MESSAGE = ("only the {branch} branch of this tensor `if` returns, the other path runs off the end of the "
                      "function: tf.cond needs a return on both paths; add a `return` in the {other} branch or "
                      "after the `if`")
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x, training=False):
    y = tf.zeros_like(x)
    if tf.reduce_sum(x) > 0:
        y = x * 2                    # defined before the if
    if training:                     # Python condition: only one branch is traced
        z = x + 1
    else:
        w = x
    if tf.reduce_sum(x) > 1:
        tmp = x * 3                  # local to the branch
        y = y + tmp
    if tf.reduce_sum(x) > 2:
        v = x
    else:
        v = -x                       # defined in both branches
    return y + v
''',
        '''import tensorflow as tf

@tf.function
def clip_or_negate(x):
    if tf.reduce_sum(x) > 0:
        return tf.minimum(x, 1.0)    # the code after the if is the else branch
    return -x

@tf.function
def checked(x, strict=False):
    if strict:                       # Python condition
        return x
    tf.debugging.assert_all_finite(x, "x")
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:  # TFL504
        y = x * 2
    return y

@tf.function
def g(x):
    if x > 0:  # TFL504
        scale = 2.0
    else:
        offset = 1.0
    return x * scale
''',
        '''import tensorflow as tf

@tf.function
def f(n):
    for i in tf.range(n):  # TFL504
        if i > 0:
            s = s + i
        else:
            s = i
    return s
''',
        '''import tensorflow as tf

@tf.function
def positive_part(x):
    if tf.reduce_sum(x) > 0:  # TFL504
        return x

@tf.function
def log_or_zero(x):
    if x > 0:  # TFL504
        y = tf.math.log(x)
    else:
        return tf.zeros_like(x)
    tf.print(y)
''',
    )

    def visit_For(self, node: cst.For | cst.While, ctx: Ctx) -> None:
        """P22: a name read before it is (definitely) assigned in the body of a TensorFlow
        loop, assigned in the body, and bound nowhere else in the function: its value must
        come from the previous iteration, and there is none on entry. A name first
        assigned in the loop and only read after it is fine on TF 2.21."""
        sem = self.sem
        fn = ctx.fn
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or _in_py_function(sem, ctx):
            return
        if not surely_tf_loop(sem, node, fn):
            return
        inside = {id(n) for n in _walk(node)}
        outside = {n for n, b in _bindings(fn.node.body) if id(b) not in inside}
        candidates = _assigned_in(node.body) - outside - fn.param_names
        if isinstance(node, cst.For):
            candidates -= set(target_names(node.target))
        candidates = {n for n in candidates
                      if not any(n in f.globals_ or n in f.nonlocals for f in fn.scope_chain())}
        if not candidates:
            return
        hit = _first_unassigned_read(node.body.body, set(), candidates)[0]  # type: ignore[union-attr]
        if hit is not None:
            self.report(node, self.LOOP_MESSAGE.format(name=hit), ctx=ctx)

    visit_While = visit_For

    def visit_If(self, node: cst.If, ctx: Ctx) -> None:
        sem = self.sem
        fn = ctx.fn
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or _in_py_function(sem, ctx):
            return
        if not _surely_tf_test(sem, node.test, fn):
            return
        returning = _one_branch_returns(node, fn.node)
        if returning is not None:
            other = "else" if returning == "true" else "true"
            self.report(node, self.RETURN_MESSAGE.format(branch=returning, other=other), ctx=ctx)
            return
        body_names = _assigned_in(node.body)
        else_block = node.orelse
        else_names = _assigned_in(else_block) if else_block is not None else set()
        candidates = [(n, "true", "else") for n in sorted(body_names - else_names) if not _exits(else_block)]
        if else_block is not None and not _exits(node.body):
            candidates += [(n, "else", "true") for n in sorted(else_names - body_names)]
        if not candidates:
            return
        pos = sem.position(node)
        start, end = (pos.start.line, pos.start.column), (pos.end.line, pos.end.column)
        for name, branch, other in candidates:
            if any(name in f.globals_ or name in f.nonlocals for f in fn.scope_chain()) or name in fn.param_names:
                continue
            if self._defined_before(name, start, fn) or not self._read_after(name, end, fn):
                continue
            self.report(node, self.MESSAGE.format(name=name, branch=branch, other=other), ctx=ctx)
            return

    def _defined_before(self, name: str, start: tuple[int, int], fn: FunctionInfo) -> bool:
        for n, b in _bindings(fn.node.body):
            if n == name:
                p = self.sem.position(b).start
                if (p.line, p.column) < start:
                    return True
        return False

    def _read_after(self, name: str, end: tuple[int, int], fn: FunctionInfo) -> bool:
        """The first mention of ``name`` after the ``if`` reads it (is not a plain rebinding)."""
        first: tuple[tuple[int, int], cst.Name] | None = None
        for n in _name_nodes(fn.node.body):
            if n.value == name:
                p = self.sem.position(n).start
                key = (p.line, p.column)
                if key > end and (first is None or key < first[0]):
                    first = (key, n)
        if first is None:
            return False
        stores = {id(t) for s in _walk(fn.node.body) if isinstance(s, cst.Assign)
                  for tg in s.targets for t in _walk(tg.target)}
        if id(first[1]) not in stores:
            return True
        # `y = y + 1` reads first; `y = x` rebinds
        for s in _walk(fn.node.body):
            if isinstance(s, cst.Assign) and any(first[1] is t for tg in s.targets for t in _walk(tg.target)):
                return name in _names_read(s.value)
        return False


def _first_unassigned_read(stmts, defined: set[str], candidates: set[str]) -> tuple[str | None, set[str]]:
    """Walk statements in execution order; return the first candidate name read while
    not yet definitely assigned, and the names definitely assigned afterwards."""
    defined = set(defined)

    def reads(node: cst.CSTNode | None) -> str | None:
        if node is None:
            return None
        hit = sorted((_names_read(node) & candidates) - defined)
        return hit[0] if hit else None

    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    hit = reads(small.value)
                    if hit:
                        return hit, defined
                    for t in small.targets:
                        defined |= set(target_names(t.target))
                elif isinstance(small, cst.AugAssign):
                    hit = reads(small.value) or reads(small.target)
                    if hit:
                        return hit, defined
                elif isinstance(small, cst.AnnAssign):
                    hit = reads(small.value)
                    if hit:
                        return hit, defined
                    if small.value is not None:
                        defined |= set(target_names(small.target))
                else:
                    hit = reads(small)
                    if hit:
                        return hit, defined
        elif isinstance(stmt, cst.If):
            hit = reads(stmt.test)
            if hit:
                return hit, defined
            hit, d1 = _first_unassigned_read(stmt.body.body, defined, candidates)
            if hit:
                return hit, defined
            orelse = stmt.orelse
            if orelse is None:
                d2 = defined
            elif isinstance(orelse, cst.If):
                hit, d2 = _first_unassigned_read([orelse], defined, candidates)
            else:
                hit, d2 = _first_unassigned_read(orelse.body.body, defined, candidates)
            if hit:
                return hit, defined
            defined = d1 & d2
        elif isinstance(stmt, (cst.For, cst.While)):
            hit = reads(stmt.iter if isinstance(stmt, cst.For) else stmt.test)
            if hit:
                return hit, defined
            inner = set(defined)
            if isinstance(stmt, cst.For):
                inner |= set(target_names(stmt.target))
            hit, _ = _first_unassigned_read(stmt.body.body, inner, candidates)
            if hit:
                return hit, defined
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                hit = reads(item.item)
                if hit:
                    return hit, defined
            hit, defined = _first_unassigned_read(stmt.body.body, defined, candidates)
            if hit:
                return hit, defined
        else:
            # try/match/nested definitions: too many paths to judge; stop looking
            return None, defined
    return None, defined


def _one_branch_returns(node: cst.If, fn: cst.FunctionDef) -> str | None:
    """``"true"``/``"else"``: that branch of ``node``, a statement of the function body
    itself, ends in ``return``, while the other branch and every statement after the
    ``if`` hold no ``return``, so the other path falls off the end of the function."""
    stmts = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    index = next((i for i, st in enumerate(stmts) if st is node), None)
    if index is None or any(_holds(st, (cst.Return, cst.Raise)) for st in stmts[index + 1:]):
        return None
    if _ends_in_return(node.body) and not _holds(node.orelse, cst.Return):
        return "true"
    if isinstance(node.orelse, cst.Else) and _ends_in_return(node.orelse.body) and not _holds(node.body, cst.Return):
        return "else"
    return None


def _holds(node: cst.CSTNode | None, kinds: type | tuple[type, ...]) -> bool:
    """Is there a statement of ``kinds`` in ``node`` (nested functions left out)?"""
    return node is not None and any(isinstance(n, kinds) for n in _walk(node))


def _ends_in_return(block: cst.BaseSuite) -> bool:
    stmts = block.body
    last = stmts[-1] if stmts else None
    if isinstance(block, cst.SimpleStatementSuite):
        return isinstance(last, cst.Return)
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)


def _exits(block: cst.CSTNode | None) -> bool:
    """Does the block end by leaving (``return``, ``raise``, ``break``, ``continue``)?"""
    if block is None:
        return False
    if isinstance(block, cst.If):
        return _exits(block.body) and _exits(block.orelse)
    body = getattr(block, "body", None)
    stmts = getattr(body, "body", body) if not isinstance(block, cst.IndentedBlock) else block.body
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Return, cst.Raise, cst.Break, cst.Continue)) for s in last.body)
    if isinstance(last, cst.If):
        return _exits(last.body) and _exits(last.orelse)
    return False
