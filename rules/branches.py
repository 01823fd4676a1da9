"""Tensor-dependent branches that Python control flow cannot express: `break`/`return`
on a tensor in a Python loop, names defined in only one branch of a tensor `if`."""

from __future__ import annotations

import bisect
import functools

import libcst as cst

from tflint import fixes
from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic import target_names, Ctx, FunctionInfo
from tflint.semantic.syntax import assigned_in, bindings, child_nodes, name_nodes, names_read, outer_names_read, walk_scope


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
        if fn is None or sem.in_py_function(ctx):
            return
        tensor_if = False
        known: dict[str, bool] = {}
        for c in ctx.loops():
            if isinstance(c.node, cst.For):
                v = sem.surely_iterates_tensors(c.node.iter, fn)
                for t in target_names(c.node.target):
                    known.setdefault(t, v)
        for c in ctx.within_function():
            n = c.node
            if isinstance(n, cst.If) and c.field in ("body", "orelse") and not tensor_if:
                tensor_if = sem.surely_tf_test(n.test, fn, known)
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
# TFL504


class DefinedInOneBranch(Rule):
    """A name defined in only one branch of a tensor `if`, or carried undefined into a TF loop.

    ## What it does
    In traced code, flags an `if` whose condition is a tensor when a name assigned in one
    branch is not assigned in the other, was not defined before the `if`, and is read
    after it. Branches that end in `return`/`raise`/`break`/`continue` do not need the
    name. Python conditions (`if training:`, `if mask is None:`) are not flagged: only
    the branch taken is traced; nor is the bare truth of a parameter (`if train_all:`)
    unless the function has an `input_signature`: such flags are Python values far more
    often than tensors. Names used only inside the branch are fine. Likewise
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
def update_targets(step, online, target, critic, critic_target):
    if step % 100 == 0:
        for src, dest in zip(online, target):       # `dest` is bound only here ...
            dest.assign(src)
    if step % 1000 == 0:
        for src, dest in zip(critic, critic_target):  # ... and only rebound after
            dest.assign(src)
    return step + 1
''',
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
        '''import tensorflow as tf

@tf.function
def train_one_epoch(model, optimizer, loss_fn, ds):
    for x, y in ds:
        with tf.GradientTape() as tape:      # defines tape in every iteration
            loss = loss_fn(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
''',
'''import tensorflow as tf

class MelGAN(tf.Module):
    def __init__(self, config):
        self.update_every = config.training.update_every   # not known here, a Python int

    @tf.function
    def train_step(self, x, train_all):
        if train_all:                    # a bare flag: a Python bool by every call below
            siam = x * 2.0
        y = x + 1.0
        if train_all:
            y = y + siam
        return y

    def train(self, batches):
        for i, x in enumerate(batches):
            self.train_step(x, i % self.update_every == 0)
''',
        '''import tensorflow as tf

metrics = {"loss": tf.keras.metrics.Mean()}

@tf.function
def train(n):
    for _ in tf.range(n):
        loss = {"loss": tf.constant(2.0)}
        loss = {name: value * 1.0 for name, value in loss.items()}   # the comprehension's own names
        for name, value in loss.items():                              # bound here before any read
            metrics[name].update_state(value)
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

g(tf.constant(1.0))
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

log_or_zero(tf.constant(2.0))
''',
    )

    def visit_For(self, node: cst.For | cst.While, ctx: Ctx) -> None:
        """P22: a name read before it is (definitely) assigned in the body of a TensorFlow
        loop, assigned in the body, and bound nowhere else in the function: its value must
        come from the previous iteration, and there is none on entry. A name first
        assigned in the loop and only read after it is fine on TF 2.21."""
        sem = self.sem
        fn = ctx.fn
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or sem.in_py_function(ctx):
            return
        if not sem.surely_tf_loop(node, fn):
            return
        inside = {id(n) for n in walk_scope(node)}
        outside = {n for n, b in self._index(fn).bindings if id(b) not in inside}
        candidates = self._assigned(node.body) - outside - fn.param_names
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
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or sem.in_py_function(ctx):
            return
        if not sem.surely_tf_test(node.test, fn) or not sem.condition_is_tensor(node.test, fn):
            return
        index = self._index(fn)
        returning = _one_branch_returns(node, index)
        if returning is not None:
            other = "else" if returning == "true" else "true"
            self.report(node, self.RETURN_MESSAGE.format(branch=returning, other=other), ctx=ctx)
            return
        body_names = self._assigned(node.body)
        else_block = node.orelse
        else_names = self._assigned(else_block) if else_block is not None else frozenset()
        candidates = [(n, "true", "else") for n in sorted(body_names - else_names)
                      if not _exits(else_block, self._exits_cache)]
        if else_block is not None and not _exits(node.body, self._exits_cache):
            candidates += [(n, "else", "true") for n in sorted(else_names - body_names)]
        if not candidates:
            return
        start, end = index.span(node)
        for name, branch, other in candidates:
            if any(name in f.globals_ or name in f.nonlocals for f in fn.scope_chain()) or name in fn.param_names:
                continue
            if index.defined_before(name, start) or not index.read_after(name, end):
                continue
            self.report(node, self.MESSAGE.format(name=name, branch=branch, other=other), ctx=ctx)
            return

    # Each function body is indexed once and each elif chain summed once: every `if` of a
    # function (and every link of a chain of 1,000 `elif`) asks the same questions, and
    # rescanning the body for each made the rule quadratic.

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._indexes: dict[int, _FunctionIndex] = {}
        self._exits_cache: dict[int, bool] = {}
        self._assigned_cache: dict[int, frozenset[str]] = {}

    def _index(self, fn: FunctionInfo) -> "_FunctionIndex":
        found = self._indexes.get(id(fn))
        if found is None:
            found = self._indexes[id(fn)] = _FunctionIndex(fn.node)  # type: ignore[arg-type]
        return found

    def _assigned(self, node: cst.CSTNode) -> frozenset[str]:
        """Names bound in ``node``; an elif chain is summed from its last link up."""
        cache = self._assigned_cache
        found = cache.get(id(node))
        if found is not None:
            return found
        chain: list[cst.If] = []
        link: cst.CSTNode | None = node
        while isinstance(link, cst.If) and id(link) not in cache:
            chain.append(link)
            link = link.orelse
        if link is None:
            tail: frozenset[str] = frozenset()
        else:
            tail = cache.get(id(link)) or frozenset(assigned_in(link))
            cache[id(link)] = tail
        for c in reversed(chain):
            tail = frozenset(assigned_in(c.test) | assigned_in(c.body)) | tail
            cache[id(c)] = tail
        return cache[id(node)]


class _FunctionIndex:
    """What TFL504 asks of one function body, computed once and only when asked: where
    each name is bound and mentioned, which mentions are assignment targets, and which
    top-level statements are followed by a ``return``. Places are compared by the order
    of the walk (source order), not by line and column: computing those would cost a
    code generation of the whole file."""

    def __init__(self, fn: cst.FunctionDef) -> None:
        self._body = fn.body
        self.stmts = tuple(self._body.body) if isinstance(self._body, cst.IndentedBlock) else ()
        self.position_of = {id(st): i for i, st in enumerate(self.stmts)}

    @functools.cached_property
    def bindings(self) -> list[tuple[str, cst.CSTNode]]:
        return list(bindings(self._body))

    @functools.cached_property
    def last_exit(self) -> int:
        """Index of the last top-level statement holding a ``return``/``raise`` (-1: none);
        found from the end, so usually at the first look."""
        for i in range(len(self.stmts) - 1, -1, -1):
            if _holds(self.stmts[i], (cst.Return, cst.Raise)):
                return i
        return -1

    @functools.cached_property
    def _order(self) -> dict[int, int]:
        """id(node) -> its place in a source-order walk of the body (nested functions and
        classes get a place, their bodies do not)."""
        return self._places[0]

    @functools.cached_property
    def _places(self) -> tuple[dict[int, int], dict[int, int]]:
        """The places of every node, and of the last node inside each (one walk: an elif
        chain must not be walked again for each of its links)."""
        order: dict[int, int] = {}
        last: dict[int, int] = {}
        stack: list[tuple[cst.CSTNode, bool]] = [(self._body, False)]
        while stack:
            n, done = stack.pop()
            if done:
                last[id(n)] = len(order) - 1
                continue
            order[id(n)] = len(order)
            stack.append((n, True))
            if n is not self._body and isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.extend((c, False) for c in reversed(child_nodes(n)))
        return order, last

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """The places of ``node`` and of the last node inside it."""
        order, last = self._places
        return order[id(node)], last[id(node)]

    @functools.cached_property
    def _first_binding(self) -> dict[str, int]:
        out: dict[str, int] = {}
        order = self._order
        for n, b in self.bindings:
            key = order.get(id(b), 1 << 62)
            if key < out.get(n, 1 << 62):
                out[n] = key
        return out

    @functools.cached_property
    def _mentions(self) -> dict[str, list[tuple[int, cst.Name]]]:
        out: dict[str, list[tuple[int, cst.Name]]] = {}
        order = self._order
        for n in name_nodes(self._body):
            out.setdefault(n.value, []).append((order[id(n)], n))
        for v in out.values():
            v.sort(key=lambda m: m[0])
        return out

    @functools.cached_property
    def _store_of(self) -> dict[int, cst.Assign | cst.For]:
        """id(Name that is an assignment or ``for`` target) -> its Assign or For."""
        out: dict[int, cst.Assign | cst.For] = {}
        for s in walk_scope(self._body):
            if isinstance(s, cst.Assign):
                for tg in s.targets:
                    for t in walk_scope(tg.target):
                        out.setdefault(id(t), s)
            elif isinstance(s, cst.For):
                for t in walk_scope(s.target):
                    out.setdefault(id(t), s)
        return out

    def defined_before(self, name: str, start: int) -> bool:
        first = self._first_binding.get(name)
        return first is not None and first < start

    def read_after(self, name: str, end: int) -> bool:
        """The first mention of ``name`` after the ``if`` reads it (is not a plain rebinding)."""
        mentions = self._mentions.get(name, [])
        i = bisect.bisect_right(mentions, end, key=lambda m: m[0])
        if i == len(mentions):
            return False
        first = mentions[i][1]
        assign = self._store_of.get(id(first))
        if assign is None:
            return True
        # `y = y + 1` reads first; `y = x` rebinds; `for src, dest in zip(c, d):` rebinds
        return name in names_read(assign.iter if isinstance(assign, cst.For) else assign.value)


def _first_unassigned_read(stmts, defined: set[str], candidates: set[str]) -> tuple[str | None, set[str]]:
    """Walk statements in execution order; return the first candidate name read while
    not yet definitely assigned, and the names definitely assigned afterwards."""
    defined = set(defined)

    def reads(node: cst.CSTNode | None) -> str | None:
        if node is None:
            return None
        hit = sorted((outer_names_read(node) & candidates) - defined)
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
                if item.asname is not None:  # ``with tf.GradientTape() as tape`` defines tape
                    defined = defined | set(target_names(item.asname.name))
            hit, defined = _first_unassigned_read(stmt.body.body, defined, candidates)
            if hit:
                return hit, defined
        else:
            # try/match/nested definitions: too many paths to judge; stop looking
            return None, defined
    return None, defined


def _one_branch_returns(node: cst.If, fn: _FunctionIndex) -> str | None:
    """``"true"``/``"else"``: that branch of ``node``, a statement of the function body
    itself, ends in ``return``, while the other branch and every statement after the
    ``if`` hold no ``return``, so the other path falls off the end of the function."""
    index = fn.position_of.get(id(node))
    if index is None or fn.last_exit > index:
        return None
    if _ends_in_return(node.body) and not _holds(node.orelse, cst.Return):
        return "true"
    if isinstance(node.orelse, cst.Else) and _ends_in_return(node.orelse.body) and not _holds(node.body, cst.Return):
        return "else"
    return None


def _holds(node: cst.CSTNode | None, kinds: type | tuple[type, ...]) -> bool:
    """Is there a statement of ``kinds`` in ``node`` (nested functions left out)?"""
    return node is not None and any(isinstance(n, kinds) for n in walk_scope(node))


def _ends_in_return(block: cst.BaseSuite) -> bool:
    stmts = block.body
    last = stmts[-1] if stmts else None
    if isinstance(block, cst.SimpleStatementSuite):
        return isinstance(last, cst.Return)
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)


def _exits(block: cst.CSTNode | None, memo: dict[int, bool] | None = None) -> bool:
    """Does the block end by leaving (``return``, ``raise``, ``break``, ``continue``)?
    An elif chain is followed link by link (no recursion on its length); ``memo`` keeps
    the answer for every link, so each link of a chain is judged once."""
    if block is None:
        return False
    if isinstance(block, cst.If):
        chain: list[cst.If] = []
        link: cst.CSTNode | None = block
        while isinstance(link, cst.If) and (memo is None or id(link) not in memo):
            chain.append(link)
            link = link.orelse
        if isinstance(link, cst.If):
            result = memo[id(link)]  # type: ignore[index]
        else:
            result = _exits(link, memo)
        for c in reversed(chain):
            result = result and _exits(c.body, memo)
            if memo is not None:
                memo[id(c)] = result
        return result
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
