"""When a line runs: traced or eager, why it is traced, guards and escapes from the graph."""

from __future__ import annotations

import ast
from typing import Callable, Iterator

import libcst as cst

from tflint.semantic.names import DYNAMIC_LOOKUPS, INIT_SCOPE_NAMES, KERAS_COMPILE_REASON, KERAS_STEP_REASON, PY_FUNCTION_NAMES, RUN_EAGERLY_NAMES, TF_FUNCTION_NAMES, _subexpressions, dotted_name, is_container_value, is_first_call_test, is_python_literal, target_names
from tflint.semantic import lattice as lat
from tflint.semantic.objects import Ctx, FunctionInfo
from tflint.semantic.syntax import COMPREHENSIONS, assigned_in, child_nodes, code, comprehension_targets, flat_targets, name_nodes, names_read, walk_scope


#: ``keras.Input`` in its spellings (``tf.keras.Input`` is normalized to these)
_KERAS_INPUTS = frozenset({"keras.Input", "keras.layers.Input"})
#: the functional model's constructor
_KERAS_FUNCTIONAL = frozenset({"keras.Model", "keras.models.Model"})


class ExecutionJudgements:
    """Mixed into :class:`SemanticModel`."""

    _autograph_off_targets: tuple[frozenset[str], frozenset[int]] | None
    _ancestor_memo: dict[str, dict[int, bool]]
    _attr_reads: dict[str, tuple[str | None, str | None, int] | None]

    def is_traced(self, ctx: Ctx) -> bool:
        """Is code at ``ctx`` run while TensorFlow traces a graph?"""
        if ctx._traced is not None:
            return ctx._traced
        result = False
        fn = ctx.fn
        boundary = self._function_boundary(ctx)
        if boundary is not None and boundary.field == "params":
            # a default value or an annotation: evaluated once, where the function is
            # defined (``def __call__(self, t, g=tf.Variable(0.0))``), not when it runs
            result = boundary.parent is not None and boundary.parent.node is not None and \
                self.is_traced(boundary.parent)
        elif fn is not None and fn.traced:
            result = not self._any_within_function(ctx, "init_scope", lambda c: isinstance(c.node, cst.With) and
                                                   c.field == "body" and self._is_init_scope(c.node))
            if result and fn.wrapped_at and not fn.tf_function_decorated and fn.via is None:
                result = not self._any_within_function(ctx, "unwrapped", lambda c: self._taken_only_unwrapped(c, fn))
            if result:
                result = not self._any_within_function(ctx, "dead default", lambda c: self._dead_default_branch(c, fn))
            if result:
                result = not self._any_within_function(ctx, "none when traced", lambda c: self._none_when_traced(c, fn))
        ctx._traced = result
        return result

    def _dead_default_branch(self, c: Ctx, fn: FunctionInfo) -> bool:
        """Is ``c`` the body of ``if p is None:`` (or ``if p is None or q is None:``) on
        parameters that every call of ``fn`` fills with a value that is never ``None``
        (:meth:`param_never_none`)? Then that body never runs, traced or not."""
        if not (isinstance(c.node, cst.If) and c.field == "body"):
            return False
        names = _none_tested_params(c.node.test, fn)
        return bool(names) and all(self.param_never_none(fn, n) for n in names)  # type: ignore[attr-defined]

    def _none_when_traced(self, c: Ctx, fn: FunctionInfo) -> bool:
        """Is ``c`` the body of ``if p is not None:`` (or ``if p:``) on a parameter that
        every call of ``fn`` made while tracing leaves ``None`` (or ``False``, for ``if p:``;
        :meth:`param_off_when_traced`:
        ``generate(..., seed=None)`` from a ``test_step``, ``generate(seed)`` only from
        eager code)? Then that body runs only eagerly."""
        if not (isinstance(c.node, cst.If) and c.field == "body"):
            return False
        name = _not_none_tested_param(c.node.test, fn)
        return name is not None and self.param_off_when_traced(  # type: ignore[attr-defined]
            fn, name, none_only=not isinstance(c.node.test, cst.Name))

    def _function_boundary(self, ctx: Ctx) -> Ctx | None:
        """The context of the innermost function or lambda around ``ctx`` (its ``body``
        or its ``params``), remembered per context; None at module level."""
        memo = self.__dict__.setdefault("_boundaries", {})
        path: list[Ctx] = []
        c: Ctx | None = ctx
        got: Ctx | None = None
        while c is not None and c.node is not None:
            hit = memo.get(id(c), False)
            if hit is not False:
                got = hit
                break
            if isinstance(c.node, (cst.FunctionDef, cst.Lambda)) and c.field in ("body", "params"):
                got = c
                break
            path.append(c)
            c = c.parent
        for p in path:
            memo[id(p)] = got
        return got

    def _taken_only_unwrapped(self, c: Ctx, fn: FunctionInfo) -> bool:
        """Is ``c`` the branch of an ``if`` in ``fn`` taken only when ``fn`` is not wrapped
        in ``tf.function``? Every call that wraps it (``self.step = tf.function(self.step)``
        under ``if not config["debug"]:``) runs only when a condition is false, and the
        branch runs only when the same condition is true: the same code, or ``self.flag``
        where ``__init__`` sets ``self.flag`` to it once (``if self._is_debug:
        x.numpy()``). Then the branch runs only eagerly (held-out set 69's debug paths)."""
        if not isinstance(c.node, cst.If):
            return False
        test = c.node.test
        neg = _negated(test)
        if c.field == "body" and neg is None:
            needed = test
        elif c.field == "orelse" and neg is not None:
            needed = neg
        else:
            return False
        texts = {code(needed)}
        if isinstance(needed, cst.Attribute) and isinstance(needed.value, cst.Name) and \
                needed.value.value == fn.self_name and fn.cls is not None:
            values = fn.cls.init_attrs.get(needed.attr.value, [])
            if len(values) == 1:
                texts.add(code(values[0]))
        return all(texts & _conditions_against(w) for w in fn.wrapped_at)

    def _any_within_function(self, ctx: Ctx, key: str, test: Callable[[Ctx], bool],
                             across_functions: bool = False) -> bool:
        """``any(test(c) for c in ctx.within_function())`` (with ``across_functions``, over
        every enclosing context), remembered per context: a context's answer is its own
        test or its parent's, so the nodes of deeply nested code (a 1,000-link elif chain)
        do not each walk the whole nesting again."""
        memo = self._ancestor_memo.setdefault(key, {})
        path: list[Ctx] = []
        result = False
        c: Ctx | None = ctx
        while c is not None and c.node is not None:
            if not across_functions and isinstance(c.node, (cst.FunctionDef, cst.Lambda)) and \
                    c.field in ("body", "params"):
                break
            known = memo.get(id(c))
            if known is not None:
                result = known
                break
            path.append(c)
            c = c.parent
        for c in reversed(path):
            result = result or test(c)
            memo[id(c)] = result
        return result

    def _is_init_scope(self, node: cst.With) -> bool:
        for item in node.items:
            e = item.item
            if isinstance(e, cst.Call) and self.resolves_to(e.func, INIT_SCOPE_NAMES):
                return True
        return False

    def context_note(self, ctx: Ctx) -> str | None:
        """Why code at ``ctx`` is traced, when it is not simply inside an
        ``@tf.function``: "in `helper`, called from `train_step` (line 40), which Keras
        runs under tf.function". A longer chain is shortened to its two ends: "in `h`,
        called from `g` (line 8), …, called from `train_step` (line 40), which ..."."""
        fn = ctx.fn
        if fn is None:
            return None
        chain: list[str] = []
        f: FunctionInfo | None = fn
        seen: set[int] = set()
        while f is not None and f.root_reason is None and id(f) not in seen:
            seen.add(id(f))
            if f.via is not None:
                caller, call = f.via
                chain.append(f"called from `{caller.name}` (line {self.line_of(call)})")
                f = caller
            elif f.parent is not None and f.parent.traced:
                chain.append(f"nested in `{f.parent.name}`")
                f = f.parent
            else:
                break
        if f is None or f.root_reason is None:
            return None
        if not chain and f.root_reason == "tf.function":
            return None
        reason = {"tf.function": "which runs under tf.function"}.get(f.root_reason, f.root_reason)
        if len(chain) > 2:  # the nearest caller and the root, not a chain of 2,000 helpers
            chain = [chain[0], "…", chain[-1]]
        if chain:
            return f"in `{fn.name}`, " + ", ".join(chain) + f", {reason}"
        name = f"{fn.cls.name}.{fn.name}" if fn.cls is not None and reason == KERAS_COMPILE_REASON else fn.name
        return f"`{name}`, {reason}" if reason.startswith("which") else f"`{name}` {reason}"

    def python_loops(self, ctx: Ctx) -> Iterator[Ctx]:
        """The loops around ``ctx`` (within its function, innermost first) that run as
        Python loops. The body of a ``tf.range``, tensor or dataset loop in traced code is
        traced once: what it creates is created once per trace, not per iteration."""
        for loop in ctx.loops():
            node = loop.node
            if isinstance(node, cst.For) and isinstance(node.iter, cst.Call) and \
                    self.resolves_to(node.iter.func, {"tensorflow.range"}):
                continue  # written as a graph loop
            if self.loop_is_tensorflow(node, ctx.fn):
                continue
            yield loop

    def iteration_names(self, ctx: Ctx) -> set[str]:
        """Names that take a new value in each iteration of the loops and comprehensions
        around ``ctx`` (within its function): their targets, and the counters of ``while``
        loops (a name the condition reads and the body rebinds, ``while c < n: ...; c += 1``,
        or one the body steps, ``caps += 1`` in ``while True:``)."""
        out: set[str] = set()
        for c in ctx.within_function():
            node = c.node
            if isinstance(node, cst.For) and c.field == "body":
                out.update(target_names(node.target))
            elif isinstance(node, cst.While) and c.field == "body":
                out.update(names_read(node.test) & assigned_in(node.body))
                out.update(n.target.value for n in walk_scope(node.body)  # ``caps += 1`` in ``while True:``
                           if type(n) is cst.AugAssign and type(n.target) is cst.Name)  # type: ignore[attr-defined]
            elif isinstance(node, COMPREHENSIONS):
                out.update(comprehension_targets(node))
        return out

    def traced_only_by_tf_data(self, fn: FunctionInfo | None) -> bool:
        """Is ``fn`` traced only because it is (or is called from, or nested in) a
        callable given to a tf.data transformation? Such a graph is traced when the
        transformation is called, so it never outlives the Python state it read."""
        root = next((f for f in self.trace_chain(fn) if f.root_reason is not None), None)
        return root is not None and root.root_reason.startswith("passed to `Dataset.")  # type: ignore[union-attr]

    @staticmethod
    def trace_chain(fn: FunctionInfo | None) -> Iterator[FunctionInfo]:
        """``fn``, then the function that made it traced (its first traced caller, or the
        traced function it is nested in), and so on up to the graph root."""
        seen: set[int] = set()
        f = fn
        while f is not None and id(f) not in seen:
            seen.add(id(f))
            yield f
            if f.root_reason is not None:
                return
            f = f.via[0] if f.via is not None else f.parent if f.parent is not None and f.parent.traced else None

    def loop_is_tensorflow(self, loop: cst.For | cst.While, fn: FunctionInfo | None) -> bool:
        """A loop AutoGraph turns into a graph loop (``tf.while_loop`` or a Dataset
        loop); every other loop in traced code is Python and is unrolled while tracing.
        Without AutoGraph (``autograph=False``, a Keras 3 step) no loop is converted."""
        if fn is None or not fn.traced or self.autograph_off(fn):
            return False
        if isinstance(loop, cst.For):
            return self.iterates_tensors(loop.iter, fn) and not _element_called(loop)
        return self.is_tensor(loop.test, fn)


    def enclosing_guard(self, ctx: Ctx) -> cst.If | None:
        """An enclosing ``if`` (within the function) whose body runs only the first time:
        ``if self.v is None``, ``if not self.built``, ``if key not in self._cache``,
        ``if not hasattr(self, "v")``. Only the ``body`` branch counts."""
        for c in ctx.within_function():
            if isinstance(c.node, cst.If) and c.field == "body" and (
                    is_first_call_test(c.node.test) or
                    # in eager code only: traced, the flag is cleared while tracing and the
                    # graph keeps the branch (set 41's NoisyStudent ``if self.initial:``)
                    not (ctx.fn is not None and ctx.fn.traced) and _clears_its_flag(c.node)):
                return c.node
        fn = ctx.fn
        if fn is not None and isinstance(fn.node, cst.Lambda) and fn.ctx is not None:
            # a lambda written under the guard (``tf.nest.map_structure(lambda w:
            # tf.Variable(...), weights)`` in ``if self.grad_sum is None:``, set 125)
            return self.enclosing_guard(fn.ctx)
        if fn is not None and fn.root_reason is None and fn.via_guard is not None:
            return fn.via_guard  # only ever called under a guard: `if self.x is None: self._make_x()`
        return None

    def in_type_dispatch(self, ctx: Ctx) -> bool:
        """Is ``ctx`` inside an ``if`` that checks the type of a value (``isinstance``,
        ``tf.is_tensor``, ``tensor_util.is_tf_type``, ``hasattr``)? Such code handles
        tensors and Python values in separate branches, and the tensor judgement, which
        does not follow the narrowing, must not be trusted there."""
        for c in ctx.within_function():
            if isinstance(c.node, (cst.If, cst.IfExp)) and c.field in ("body", "orelse"):
                test = c.node.test
                for n in _subexpressions(test):
                    if isinstance(n, cst.Call):
                        last = (dotted_name(n.func) or "").rsplit(".", 1)[-1]
                        if last in ("isinstance", "issubclass", "is_tensor", "is_tf_type", "hasattr", "is_symbolic_tensor",
                                    "is_keras_tensor", "is_sparse", "is_ragged"):
                            return True
        return False

    def dead_code(self, ctx: Ctx) -> bool:
        """Is ``ctx`` in the branch of an ``if`` that a constant rules out: ``if False:``,
        or ``if FLAG:`` / ``if not FLAG:`` where ``FLAG`` is a module-level constant
        that the module binds once and never rebinds (``DEBUG = False``, TF Probability's
        ``JAX_MODE = False``)? Such code never runs as the module stands, so nothing in it
        is reported. Nested functions count: a ``def`` inside a dead branch is dead."""
        return self._any_within_function(ctx, "dead", self._ruled_out, across_functions=True)

    def after_a_traced_exit(self, node: cst.CSTNode, ctx: Ctx) -> bool:
        """Is ``node`` below an ``if`` at the top of its (traced) function that returns or
        raises, and whose test every trace finds true: ``if not is_synthesis: return
        super().call(inputs)`` where every traced call leaves ``is_synthesis`` False? The
        rest of the function runs only in the eager calls that pass True, never while
        tracing."""
        fn = ctx.fn
        if fn is None or not fn.traced:
            return False
        line = None
        for f in fn.scope_chain():
            end = self._traced_exit_line(f)
            if end is not None:
                line = self.line_of(node) if line is None else line  # type: ignore[attr-defined]
                if line > end:
                    return True
        return False

    def _traced_exit_line(self, fn: FunctionInfo) -> int | None:
        memo = self._exit_lines  # type: ignore[attr-defined]
        if id(fn) in memo:
            return memo[id(fn)]
        memo[id(fn)] = None
        if not fn.traced or not isinstance(fn.node, cst.FunctionDef) or not isinstance(fn.node.body, cst.IndentedBlock):
            return None
        for stmt in fn.node.body.body:
            if isinstance(stmt, cst.If) and stmt.orelse is None and _ends_in_exit(stmt.body) and \
                    self._constant_truth(stmt.test, fn) is True:
                memo[id(fn)] = self.position(stmt).end.line  # type: ignore[attr-defined]
                break
        return memo[id(fn)]

    def _ruled_out(self, c: Ctx) -> bool:
        if type(c.node) is not cst.If or c.field not in ("body", "orelse"):
            return False
        truth = self._constant_truth(c.node.test, c.fn)  # type: ignore[union-attr]
        return truth is not None and truth is (c.field == "orelse")

    def _constant_truth(self, test: cst.BaseExpression, fn: FunctionInfo | None) -> bool | None:
        negate = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negate, test = not negate, test.expression
        if isinstance(test, cst.Name):
            if fn is not None and fn.traced and test.value in fn.param_names and test.value not in fn.assigns:
                truth = self._traced_truth(fn, test.value, {})
                return None if truth is None else truth is not negate
            if test.value not in ("True", "False", "None") and any(
                    test.value in f.param_names or test.value in f.bound or test.value in f.globals_
                    for f in (fn.scope_chain() if fn is not None else ())):
                return None  # a local, a parameter, or a global this function rebinds
            value = self.value_of(test, None)  # type: ignore[attr-defined]
        elif isinstance(test, (cst.Integer, cst.Float, cst.SimpleString)):
            value = self.value_of(test, None)  # type: ignore[attr-defined]
        elif isinstance(test, cst.Attribute) and fn is not None and self._set_once_per_instance(test, fn):
            value = self.value_of(test, fn)  # type: ignore[attr-defined]
        else:
            return None
        if not value.has_const or value.kind != lat.Kind.CONST:
            return None
        return bool(value.const) is not negate

    def _set_once_per_instance(self, test: cst.Attribute, fn: FunctionInfo) -> bool:
        """Is ``test`` a flag ``self.attr`` of a method's own instance that only
        ``__init__`` sets, once, and is every instance of the class made in this module,
        by calls that the value model can read (:meth:`_made_only_here`)? Then what the
        constructor calls pass decides it for every instance: ``if self.use_bias:`` where
        every ``PartialConv(...)`` of the project passes ``use_bias=False`` (set 117)."""
        owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
        if owner is None or owner.cls is None or not isinstance(test.value, cst.Name) or \
                test.value.value != owner.self_name:
            return False
        cls = owner.cls
        init = cls.methods.get("__init__")
        if init is None or len(cls.init_attrs.get(test.attr.value, ())) != 1:
            return False
        # stored nowhere else: not in another method, not on another object (``layer.flag =``);
        # another class's own ``self.flag`` in its ``__init__`` is another object's
        if any(f is not init and not (own and f.name == "__init__" and f.cls is not cls)  # type: ignore[attr-defined]
               for f, own in self.attr_stores.get(test.attr.value, ())):  # type: ignore[attr-defined]
            return False
        return self._made_only_here(cls)

    def _made_only_here(self, cls) -> bool:
        """Is every instance of the module class ``cls`` made by a call ``Cls(...)`` of
        this module: no class of the module derives from it, the class is not registered
        by a decorator, its name is used for nothing else here (:meth:`_named_only_at`),
        no ``setattr`` may change its attributes, and no other module of the project,
        which is not packaged for others, names it? False without a project (a lone
        file's classes are there for someone)."""
        memo = self.__dict__.setdefault("_made_here", {})
        if id(cls) not in memo:
            memo[id(cls)] = False
            memo[id(cls)] = self._made_only_here_uncached(cls)
        return memo[id(cls)]

    def _made_only_here_uncached(self, cls) -> bool:
        if self.project is None or self._family(cls) != {cls.name} or cls.node.decorators:  # type: ignore[attr-defined]
            return False
        sites = [call for call, _ in self.constructor_sites(cls)]  # type: ignore[attr-defined]
        if not sites or any(isinstance(c.func, cst.Name) and c.func.value == "setattr"
                            for c, _ in self.all_calls):  # type: ignore[attr-defined]
            return False
        if not self._named_only_at({cls.name}, {id(c.func) for c in sites}):
            return False
        # last: it reads and parses the modules that import this one
        return self.project.never_used_elsewhere({cls.name})  # type: ignore[attr-defined]

    def _traced_truth(self, fn: FunctionInfo, name: str, seen: dict) -> bool | None:
        """The truth of parameter ``name`` of ``fn`` in every trace: what the calls made in
        traced code give it (a constant, the default, or a parameter of the caller passed
        on, judged the same way), when they agree; None when any is unknown or they
        differ. ``set_param(layer)`` from a tf.function, with ``def set_param(layer,
        actual=False)``: ``if actual:`` is never taken while tracing, whatever eager
        calls pass (Autoslim's export path passes True)."""
        key = (id(fn), name)
        if key in seen:
            return seen[key]  # known, or None while it is being judged (a cycle)
        if fn.tf_function or len(seen) > 8:
            return None
        seen[key] = None
        seen[key] = got = self._traced_truth_of(fn, name, seen)
        return got

    def _traced_truth_of(self, fn: FunctionInfo, name: str, seen: dict) -> bool | None:
        elsewhere = self.traced_from_other_modules(fn)  # type: ignore[attr-defined]
        if fn.root_reason is not None and not elsewhere:
            return None
        param = next((p for p in fn.params if p.name.value == name), None)
        if param is None or param.star:
            return None
        default = None if param.default is None else self._literal_truth(param.default)
        truths: set[bool | None] = set()
        sites = [(call, ctx, False) for call, ctx in self.call_sites(fn)]  # type: ignore[attr-defined]
        if fn.cls is not None and fn.name in ("call", "__call__"):
            # ``self.conv(x)`` with ``self.conv = Conv1D(...)``: the layer's calls leave out ``self``
            sites += [(call, ctx, True) for call, ctx in self.instance_calls(fn.cls)]  # type: ignore[attr-defined]
        for call, ctx, on_instance in sites:
            if not self.is_traced(ctx):
                continue
            bound = self.bound_args(call, fn, constructor=on_instance)  # type: ignore[attr-defined]
            if bound is None:
                return None
            arg = bound.get(name)
            passed = None if arg is None else self.passed_on_param(arg.value, ctx.fn)  # type: ignore[attr-defined]
            if arg is None:
                truths.add(default)
            elif passed is not None:
                truths.add(self._traced_truth(ctx.fn, passed, seen))  # type: ignore[arg-type]
            else:
                truths.add(self._literal_truth(arg.value))
        if elsewhere:
            params = [p.name.value for p in fn.params if p.star not in ("*", "**")]
            for site in self.traced_external_call_sites(fn):  # type: ignore[attr-defined]
                if site.unpacks:
                    return None
                info = site.arg_for(params, name)
                if info is None:
                    truths.add(default)
                elif info.kind in ("literal", "flag"):
                    try:
                        truths.add(bool(ast.literal_eval(info.text)))
                    except (ValueError, SyntaxError):
                        return None
                else:
                    return None
        if len(truths) != 1:
            return None
        return truths.pop()

    @staticmethod
    def _literal_truth(e: cst.BaseExpression) -> bool | None:
        if isinstance(e, cst.Name) and e.value in ("True", "False", "None"):
            return e.value == "True"
        if isinstance(e, cst.Integer):
            return int(e.value, 0) != 0 if e.value.isdigit() or e.value.startswith("0") else None
        return None

    def in_py_function_arg(self, ctx: Ctx) -> bool:
        return self._any_within_function(ctx, "py_function_arg", lambda c: isinstance(c.node, cst.Call) and
                                         c.field == "args" and self.resolves_to(c.node.func, PY_FUNCTION_NAMES))

    def in_py_function(self, ctx: Ctx) -> bool:
        return self.in_py_function_arg(ctx) or (ctx.fn is not None and ctx.fn.py_function_target)

    def _decorators_turn_off_autograph(self, fn: FunctionInfo) -> bool:
        if not isinstance(fn.node, cst.FunctionDef):
            return False
        for d in fn.node.decorators:
            e = d.decorator
            call = e if isinstance(e, cst.Call) else None
            func = e.func if isinstance(e, cst.Call) else e
            if any(q.endswith("autograph.experimental.do_not_convert") for q in self.qualified(func)):
                return True
            if call is not None and self.is_tf_function_expr(func) and autograph_false(call):
                return True
        return False

    def autograph_off(self, fn: FunctionInfo | None) -> bool:
        """Does ``fn`` run traced without AutoGraph: ``@tf.function(autograph=False)``,
        ``tf.function(f, autograph=False)``, ``@do_not_convert``, a Keras 3 step, or
        nested in / only called from such a function (AutoGraph converts callees only of
        converted code)?"""
        names, lambdas = self._autograph_false_targets()
        for f in self.trace_chain(fn):
            if f.name == "call" and f.cls is not None and self.is_keras_loss_class(f.cls, keras3=True):
                return True  # Keras 3's ``Loss.__call__`` runs it unconverted
            if self._decorators_turn_off_autograph(f):
                return True
            if isinstance(f.node, cst.FunctionDef) and f.name in names and f.cls is None:
                return True
            if id(f.node) in lambdas:
                return True
            if f.root_reason == KERAS_STEP_REASON:
                # Keras 3 runs the steps through a function marked do_not_convert
                return f.cls is not None and self.is_keras3_layer_class(f.cls)
            if f.root_reason == KERAS_COMPILE_REASON:
                # and the losses and metrics the steps call with them
                return self.keras3_in_use()
        return False

    def _module_loops(self) -> list[cst.For | cst.While]:
        """The loops of module-level code: at module level, or under module-level ``if``s."""
        memo = self.__dict__.get("_module_loops_memo")
        if memo is None:
            memo = []
            todo = list(self.module.body)  # type: ignore[attr-defined]
            while todo:
                stmt = todo.pop()
                if isinstance(stmt, (cst.For, cst.While)):
                    memo.append(stmt)
                elif isinstance(stmt, cst.If):
                    todo.extend(stmt.body.body)
                    if isinstance(stmt.orelse, cst.Else):
                        todo.extend(stmt.orelse.body.body)
            self.__dict__["_module_loops_memo"] = memo
        return memo

    def bound_in_module_loops(self) -> set[str]:
        """The names that the body of a module-level loop binds (see :meth:`_module_loops`)."""
        return {n for loop in self._module_loops() for n in assigned_in(loop.body)}

    def rebound_in_calling_loop(self, name: str, fn: FunctionInfo) -> cst.CSTNode | None:
        """The assignment of ``name`` in a module-level loop (at module level, or under a
        module-level ``if`` such as ``if __name__ == "__main__":``) whose body also calls
        ``fn``'s module-level function by name (``rnd = np.random.randint(2)`` then
        ``train_step(inputs)`` in each iteration): from the second iteration on, the
        graph traced in the first keeps the first value. None when there is none."""
        root = fn
        while root.parent is not None:
            root = root.parent
        if root.cls is not None:
            return None
        for loop in self._module_loops():
            assign = calls = None
            for n in walk_scope(loop.body):
                t = type(n)
                if t is cst.Assign and assign is None and any(
                        isinstance(x, cst.Name) and x.value == name
                        for tg in n.targets for x in walk_scope(tg.target)):  # type: ignore[attr-defined]
                    assign = n
                elif t is cst.Call and isinstance(n.func, cst.Name) and n.func.value == root.name:  # type: ignore[attr-defined]
                    calls = n
            if assign is not None and calls is not None:
                return assign
        return None

    def run_eagerly_switch(self, expr: cst.BaseExpression) -> bool | None:
        """True for ``tf.config.run_functions_eagerly(True)`` (in its spellings), False for
        ``(False)``, None for anything else."""
        if isinstance(expr, cst.Call) and expr.args and isinstance(expr.args[0].value, cst.Name) and \
                expr.args[0].value.value in ("True", "False") and \
                self.resolves_to(expr.func, RUN_EAGERLY_NAMES):  # type: ignore[attr-defined]
            return expr.args[0].value.value == "True"
        return None

    def callback_sets_model_attr(self, attr: str, model: str) -> tuple[str | None, str, int] | None:
        """Where a Keras callback sets ``self.model.<attr>`` in a hook that ``fit`` runs
        after tracing the train step (``on_train_batch_begin``, ``on_epoch_end``, ...):
        (the other file relative to the project root, or None for this one; ``Cls.hook``;
        line), or None, unless some module names both the callback class and ``model``,
        the model class (a script that fits one with the other). The project's modules are
        asked through its index; a file outside a project answers for itself."""
        if self.project is not None:  # type: ignore[attr-defined]
            return self.project.callback_sets_model_attr(attr, model)  # type: ignore[attr-defined]
        from tflint.semantic.project import fits_with, summarize

        sets = self.__dict__.get("_own_model_sets")
        if sets is None:
            code = self.module.code  # type: ignore[attr-defined]
            got = summarize(code, "m") if "Callback" in code else None
            sets = self.__dict__["_own_model_sets"] = got.model_sets if got is not None else []
        for a, hook, line in sets:
            if a == attr:
                tree = self.__dict__.get("_ast_module")
                if tree is None:
                    try:
                        tree = self.__dict__["_ast_module"] = ast.parse(self.module.code)  # type: ignore[attr-defined]
                    except (SyntaxError, ValueError, RecursionError):
                        return None
                if fits_with(tree, model, hook.split(".")[-2]):
                    return None, hook, line
        return None

    def param_steers_python(self, fn: FunctionInfo, name: str) -> bool:
        """Does parameter ``name`` of ``fn`` steer Python control flow in its body: an
        ``if``/``while`` test or a conditional expression that reads it and is no tensor
        test (``if rotation_count != 0:``), when it is a setting with a literal default?
        A few fixed literals for it, each at a call site of its own, select a graph each by
        design: a tensor there would turn the branch into a ``tf.cond`` the code may not be
        written for."""
        memo = self.__dict__.setdefault("_steers", {})
        key = (id(fn), name)
        if key not in memo:
            param = next((p for p in fn.params if p.name.value == name), None)
            # a setting with a default (``rotation_count=0``), not the data a demo passes
            # as ``g(3)``, ``g(-3)``, ``g(0)`` to show what the function does with it
            got = param is not None and param.default is not None and is_python_literal(param.default)
            if not got:
                memo[key] = False
                return False
            got = False
            stack: list[cst.CSTNode] = [fn.node.body]
            while stack and not got:
                n = stack.pop()
                if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                    continue
                if isinstance(n, (cst.If, cst.While, cst.IfExp)):
                    # (a Python test: ``tf.random.uniform([]) < p`` becomes a tf.cond)
                    got = any(isinstance(m, cst.Name) and m.value == name for m in walk_scope(n.test)) and \
                        not self.is_tensor_test(n.test, fn)  # type: ignore[attr-defined]
                stack.extend(child_nodes(n))
            memo[key] = got
        return memo[key]

    def param_indexes_a_python_sequence(self, fn: FunctionInfo, name: str) -> bool:
        """Does ``fn`` index a Python list, tuple or dict with its parameter ``name``
        (``self.blocks_weights[block_id]``, the attribute a list display or a constructor
        parameter annotated ``list[...]``; a module-level table)? A tensor cannot index
        one, so the parameter must stay a Python value, and a trace per value is the design
        (kmkolasinski/keras-llm-light, held-out set 113)."""
        if name in fn.assigns or name in fn.loop_targets or not isinstance(fn.node, cst.FunctionDef):
            return False  # rebound in the body: the index may be something else
        for n in walk_scope(fn.node.body):
            if not (isinstance(n, cst.Subscript) and len(n.slice) == 1 and isinstance(n.slice[0].slice, cst.Index)
                    and isinstance(n.slice[0].slice.value, cst.Name) and n.slice[0].slice.value.value == name):
                continue
            if self._python_sequence(n.value, fn):
                return True
        return False

    def _python_sequence(self, e: cst.BaseExpression, fn: FunctionInfo) -> bool:
        if isinstance(e, cst.Name):
            values = self.module_assigns.get(e.value, []) if self.binding_of(e.value, fn) == ("module", None) else []  # type: ignore[attr-defined]
            return bool(values) and all(is_container_value(v) or isinstance(v, cst.Tuple) for v in values)
        owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
        if not (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and owner is not None and
                e.value.value == owner.self_name and owner.cls is not None):
            return False
        values = owner.cls.init_attrs.get(e.attr.value)
        init = owner.cls.methods.get("__init__")
        if not values or init is None or not isinstance(init.node, cst.FunctionDef):
            return False
        annotated = {p.name.value: p.annotation.annotation for p in init.params if p.annotation is not None}
        for v in values:
            if is_container_value(v) or isinstance(v, cst.Tuple):
                continue
            note = annotated.get(v.value) if isinstance(v, cst.Name) else None
            head = note.value if isinstance(note, cst.Subscript) else note
            last = (dotted_name(head) or "").rsplit(".", 1)[-1] if head is not None else ""
            if last not in _SEQUENCE_ANNOTATIONS:
                return False
        return True

    def in_test_code(self, ctx: Ctx) -> bool:
        """Is ``ctx`` test code: in a module that uses a test framework, a test module
        (``test_*.py``, ``*_test.py``), or a function named ``test*`` or a method of a class
        named ``Test*``/``*Test`` (:func:`~tflint.semantic.project.is_test_caller`)? A test
        calls a function with a few fixed values on purpose, to check what each gives."""
        from tflint.semantic.project import is_test_caller, uses_a_test_framework

        text = self.__dict__.get("_test_framework_text")
        if text is None:
            # what the module imports and its classes' bases say of a test framework (no
            # need to print the module back to text); "" when they say nothing of one
            parts = [f"import {q}" for qs in self.imports.values() for q in qs]  # type: ignore[attr-defined]
            parts += [d for c in self.classes.values() for b in c.bases  # type: ignore[attr-defined]
                      for d in (dotted_name(b) or "",)]
            text = "\n".join(parts)
            text = self.__dict__["_test_framework_text"] = text if uses_a_test_framework(text) else ""
        if not text:
            return False
        names = []
        f = ctx.fn
        while f is not None:
            names.append(f.name)
            if f.cls is not None:
                names.append(f.cls.name)
            f = f.parent
        return is_test_caller(self.path, ".".join(reversed(names)) or None, text)  # type: ignore[attr-defined]

    def calls_run_eagerly_at(self, node: cst.CSTNode, ctx: Ctx) -> bool:
        """Do tf.functions called at ``node`` run as plain Python, tracing nothing: after
        ``tf.config.run_functions_eagerly(True)`` at module level, or after a statement
        ``tf.config.run_functions_eagerly(True)`` of the body that holds ``node`` (a
        function's, or the module's) with no ``run_functions_eagerly(False)`` between
        (``def init(): tf.config.run_functions_eagerly(True); ...; (False)``)?"""
        if self.functions_run_eagerly:  # type: ignore[attr-defined]
            return True
        fn = ctx.fn
        if fn is None:
            body = self.module.body  # type: ignore[attr-defined]
        elif isinstance(fn.node, cst.FunctionDef) and isinstance(fn.node.body, cst.IndentedBlock):
            body = fn.node.body.body
        else:
            return False
        memo = self.__dict__.setdefault("_eager_toggles", {})
        toggles = memo.get(id(body))
        if toggles is None:
            toggles = memo[id(body)] = []
            for stmt in body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        switch = self.run_eagerly_switch(small.value) if isinstance(small, cst.Expr) else None
                        if switch is not None:
                            toggles.append((self.line_of(stmt), switch))  # type: ignore[attr-defined]
        if not toggles:
            return False
        line = self.line_of(node)  # type: ignore[attr-defined]
        state = False
        for at, on in toggles:
            if at < line:
                state = on
        return state

    def created_once(self, ctx: Ctx) -> bool:
        """Does code at ``ctx`` run only on the first trace: under a first-call guard
        (``if self.v is None:``), in ``__init__``/``build``, or in a ``@once`` function?"""
        if self.enclosing_guard(ctx) is not None:  # type: ignore[attr-defined]
            return True
        fn: FunctionInfo | None = ctx.fn
        while fn is not None:
            if fn.name in ("__init__", "build", "_build", "_create_variables", "_initialize"):
                return True
            if isinstance(fn.node, cst.FunctionDef):
                for d in fn.node.decorators:
                    e = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
                    last = e.attr.value if isinstance(e, cst.Attribute) else (e.value if isinstance(e, cst.Name) else "")
                    if last in ("once", "run_once", "lru_cache", "cache", "cached_property"):
                        return True
            fn = fn.parent if fn.root_reason is None else None
        return False

    def set_up_before_the_loop(self, node: cst.CSTNode, ctx: Ctx | None, sites: list[tuple[cst.Call, Ctx]]) -> bool:
        """Is ``node`` (at ``ctx``: ``self.BATCH_SIZE = 16`` in ``train()``) before, and
        outside, the loop in which every call of ``sites`` (the class's tf.functions) is
        made: the setup of that loop, done before anything is traced with it?"""
        if ctx is None or next(ctx.loops(), None) is not None:
            return False
        line = self.line_of(node)  # type: ignore[attr-defined]
        return all(next(x.loops(), None) is not None and self.line_of(c) > line for c, x in sites)  # type: ignore[attr-defined]

    def resampled_in_a_loop(self, cls, rebinds: list[tuple[cst.CSTNode, cst.BaseExpression | None, FunctionInfo,
                                                             Ctx | None]],
                            traced: FunctionInfo, attr: str | None = None) -> tuple[str, str] | None:
        """``self.attr`` rebound (``rebinds``: statement, value, method, context) to a new
        Python value or tensor in an eager loop of the class that also calls the
        tf.function that reads it in ``traced``, directly or through a method of the class
        that rebinds it (``self.get_collocations()`` before ``train_step()`` in each
        epoch): the graph traced on the first call keeps the first value. A value computed
        by arithmetic from the attribute itself (:meth:`updates_itself`) counts as such a
        value. Where it is rebound, and the tf.function called; or None."""
        if any(v is not None and _of_static_shapes(v) for _, v, _, _ in rebinds):
            # ``self.wgp_shape = [y.shape[0], 1, 1]`` before ``step(y)``: it follows the
            # static shape of what the loop passes, and a new shape traces anew
            return None
        for _, v, method, _ in rebinds:
            if v is None or self.python_value_kind(v, method) != "py" and \
                    not self.value_of(v, method).is_tensor and \
                    not (attr is not None and self.updates_itself(v, method, attr)):  # type: ignore[attr-defined]
                return None
        rebinders = {id(m): (node, m) for node, _, m, _ in rebinds}
        for e in self.functions:  # type: ignore[attr-defined]
            if e.cls is not cls or e.traced or e.name in ("__init__", "build"):
                continue
            steps: dict[int, tuple[cst.CSTNode, FunctionInfo]] = {}  # loop -> the tf.function it calls
            changes: dict[int, str] = {}  # loop -> where it rebinds
            for call, ctx in e.calls:
                callee = self.resolve_callee(call, e)  # type: ignore[attr-defined]
                if callee is None:
                    continue
                if callee.root_reason == "tf.function" and _reaches(callee, traced):
                    for loop in ctx.loops():
                        if not _holds_def(loop.node, callee):  # a function made in the loop is traced anew
                            steps.setdefault(id(loop.node), (loop.node, callee))
                elif id(callee) in rebinders:
                    node, m = rebinders[id(callee)]
                    for loop in ctx.loops():
                        changes.setdefault(id(loop.node), f"rebound in `{m.name}` (line {self.line_of(node)}), "  # type: ignore[attr-defined]
                                                          f"which `{e.name}` calls")
            for node, _, m, rctx in rebinds:
                if m is e and rctx is not None:
                    for loop in rctx.loops():
                        changes.setdefault(id(loop.node), f"rebound in `{e.name}` (line {self.line_of(node)})")  # type: ignore[attr-defined]
            for key, (loop_node, callee) in steps.items():
                if key in changes:
                    return changes[key], callee.name
        return None

    def object_attr_set_in_loop(self, read: cst.Attribute, fn: FunctionInfo,
                                stores: dict[tuple[str, str], list[tuple[cst.CSTNode, Ctx]]]
                                ) -> tuple[int, str, str, str | None] | None:
        """``obj.attr`` read in the traced function ``fn``, where ``obj`` is a module-level
        settings object (:meth:`settings_object`) read as the global or handed to the
        tf.function as an argument at every call (then it must also be hashable: a generic
        object is matched by identity, and a change of its attributes traces nothing new),
        and eager code sets ``obj.attr`` (``stores``: (global, attr) -> statements with their
        contexts) in a loop that also calls the tf.function, directly or through a function
        of the module that calls it. The graph traced on the first call keeps the first
        value. (the line that sets it, the global's name, the tf.function, the parameter
        it came through or None); or None."""
        if not isinstance(read.value, cst.Name):
            return None
        name, attr = read.value.value, read.attr.value
        via: str | None = None
        got = self.binding_of(name, fn)  # type: ignore[attr-defined]
        if got == ("module", None):
            g = name
        elif got == ("param", fn):
            g = self._global_passed_as(fn, name)  # type: ignore[assignment]
            if g is None:
                return None
            via = name
        else:
            return None
        sets = stores.get((g, attr))
        if not sets or not self.settings_object(g, hashable=via is not None):
            return None
        for call, ctx in self.all_calls:  # type: ignore[attr-defined]
            loops = list(ctx.loops())
            if not loops or self.is_traced(ctx):  # type: ignore[attr-defined]
                continue
            callee = self.resolve_callee(call, ctx.fn)  # type: ignore[attr-defined]
            root = self._root_reached(callee, fn) if callee is not None else None
            if root is None:
                continue
            for loop in loops:
                if _holds_def(loop.node, root):
                    continue  # a function made in the loop is traced anew
                for node, sctx in sets:
                    if any(lp.node is loop.node for lp in sctx.loops()):
                        return self.line_of(node), g, root.name, via  # type: ignore[attr-defined]
        return None

    def _root_reached(self, callee: FunctionInfo, fn: FunctionInfo) -> FunctionInfo | None:
        """The tf.function that calling ``callee`` runs and whose trace runs ``fn``:
        ``callee`` itself, or one that an eager function of the module calls (two calls
        deep: ``fit_epoch(...)`` in the loop, ``train_step(...)`` in ``fit_epoch``), when
        ``fn`` is that tf.function or what it calls (a few calls deep)."""
        todo, seen = [(callee, 0)], set()
        while todo:
            f, depth = todo.pop()
            if id(f) in seen:
                continue
            seen.add(id(f))
            if f.root_reason == "tf.function":
                if self._calls_reach(f, fn):
                    return f
                continue
            if depth >= 2 or f.traced:
                continue
            for c, _ in f.calls:
                g = self.resolve_callee(c, f)  # type: ignore[attr-defined]
                if g is not None:
                    todo.append((g, depth + 1))
        return None

    def _calls_reach(self, f: FunctionInfo, fn: FunctionInfo) -> bool:
        """Is ``fn`` the function ``f`` or one that ``f`` calls, a few calls deep?"""
        todo, seen = [(f, 0)], set()
        while todo:
            g, depth = todo.pop()
            if g is fn:
                return True
            if id(g) in seen or depth >= 4:
                continue
            seen.add(id(g))
            for c, _ in g.calls:
                h = self.resolve_callee(c, g)  # type: ignore[attr-defined]
                if h is not None:
                    todo.append((h, depth + 1))
        return False

    def _global_passed_as(self, fn: FunctionInfo, param: str, depth: int = 0) -> str | None:
        """The module global that every call of ``fn`` in this module passes for
        ``param`` (``train_step(x, y, ScalingParameters)``), directly or through a
        parameter of the calling function that its own calls fill so (a few calls deep),
        when it is one name bound at module level; None otherwise, or when another module
        calls ``fn`` or it is handed on."""
        if depth > 4 or self.external_call_sites(fn) or self.passed_as_argument(fn.name):  # type: ignore[attr-defined]
            return None
        names = set()
        sites = self.call_sites(fn)  # type: ignore[attr-defined]
        if not sites:
            return None
        for call, ctx in sites:
            bound = self.bound_args(call, fn)  # type: ignore[attr-defined]
            arg = bound.get(param) if bound is not None else None
            if arg is None or not isinstance(arg.value, cst.Name):
                return None
            where = self.binding_of(arg.value.value, ctx.fn)  # type: ignore[attr-defined]
            if where == ("module", None):
                names.add(arg.value.value)
            elif where is not None and where[0] == "param" and where[1] is not None and where[1] is not fn:
                # the caller's parameter, or that of a function around it (a closure)
                got = self._global_passed_as(where[1], arg.value.value, depth + 1)
                if got is None:
                    return None
                names.add(got)
            else:
                return None
        return names.pop() if len(names) == 1 else None

    def settings_object(self, name: str, hashable: bool) -> bool:
        """Is the module global ``name`` bound once, to a plain Python object that holds
        settings: an instance of a class of this module with no base but ``object``, no
        decorator and no ``__eq__``/``__hash__``/``__tf_tracing_type__``/``__getattr__``/
        ``__setattr__`` of its own, or (unless ``hashable`` is asked: tf.function refuses
        them as arguments) a ``types.SimpleNamespace`` or what ``parse_args()`` returns?"""
        values = self.module_assigns.get(name, ())  # type: ignore[attr-defined]
        if len(values) != 1 or not isinstance(values[0], cst.Call):
            return False
        func = values[0].func
        if isinstance(func, cst.Name) and func.value in self.classes:  # type: ignore[attr-defined]
            cls = self.classes[func.value]  # type: ignore[attr-defined]
            if cls.node.decorators or any(not (isinstance(b, cst.Name) and b.value == "object") for b in cls.bases):
                return False
            return not any(m in cls.methods for m in ("__eq__", "__hash__", "__tf_tracing_type__",
                                                       "__getattr__", "__setattr__"))
        if hashable:
            return False
        return self.resolves_to(func, {"types.SimpleNamespace", "argparse.Namespace"}) or \
            isinstance(func, cst.Attribute) and func.attr.value == "parse_args"  # type: ignore[attr-defined]

    @staticmethod
    def follows_static_shapes(v: cst.BaseExpression) -> bool:
        """Is ``v`` made only of static shapes and literals (``[y.shape[0], 1, 1]``)? Set
        before a tf.function is called with ``y``, it is what the trace sees: a new shape
        traces anew, with the new value."""
        return _of_static_shapes(v)

    def updates_itself(self, v: cst.BaseExpression, method: FunctionInfo, attr: str) -> bool:
        """Is ``v``, rebinding ``self.attr`` in ``method``, arithmetic on the attribute's
        own value (``self.temperature - step``, ``max(0.1, self.tau * decay)``), or a
        parameter of ``method`` that every call of it in this module, from a method of the
        class, fills with such an expression (``self.set_temperature(self.temperature -
        step)``)? Arithmetic gives a number, an array or a tensor, never a state object:
        each is a new value, and a graph traced before keeps the old one."""
        if self._arithmetic_on(v, method, attr):
            return True
        if not isinstance(v, cst.Name) or self.binding_of(v.value, method) != ("param", method):  # type: ignore[attr-defined]
            return False
        sites = self.call_sites(method)  # type: ignore[attr-defined]
        for call, ctx in sites:
            args = self.bound_args(call, method)  # type: ignore[attr-defined]
            got = args.get(v.value) if args is not None else None
            if got is None or ctx.fn is None or ctx.fn.cls is not method.cls or \
                    not self._arithmetic_on(got.value, ctx.fn, attr):
                return False
        return bool(sites)

    def _arithmetic_on(self, e: cst.BaseExpression, fn: FunctionInfo, attr: str, depth: int = 0) -> bool:
        """``e`` is arithmetic (operators, builtin ``max``/``min``/``round``) with
        ``self.attr`` of ``fn``'s ``self`` among its operands."""
        if depth > 3:
            return False

        def own(x: cst.BaseExpression) -> bool:
            return isinstance(x, cst.Attribute) and isinstance(x.value, cst.Name) and \
                x.value.value == fn.self_name and x.attr.value == attr

        if isinstance(e, cst.UnaryOperation):
            return own(e.expression) or self._arithmetic_on(e.expression, fn, attr, depth + 1)
        if isinstance(e, cst.BinaryOperation):
            return any(own(x) or self._arithmetic_on(x, fn, attr, depth + 1) for x in (e.left, e.right))
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in ("max", "min", "round") and \
                self.is_builtin(e.func, e.func.value, fn):  # type: ignore[attr-defined]
            return any(own(a.value) or self._arithmetic_on(a.value, fn, attr, depth + 1) for a in e.args if not a.star)
        return False

    def is_keras_layer_call(self, fn: FunctionInfo | None) -> bool:
        """Is ``fn`` the ``call`` method of a Keras layer or model class of this module
        (which Keras runs on every call of an instance, and traces under ``fit``)?"""
        return fn is not None and fn.name == "call" and fn.cls is not None and self.is_keras_layer_class(fn.cls)

    def is_keras_layer_class(self, cls, _seen: frozenset[int] = frozenset()) -> bool:
        """A subclass (in this module) of a Keras layer or model, of any Keras version:
        calling an instance runs its ``call``."""
        if id(cls) in _seen:
            return False
        for b in cls.bases:
            for q in self.qualified(b):
                if q.startswith("keras."):
                    last, mod = q.rsplit(".", 1)[-1], q.rsplit(".", 1)[0]
                    if last in ("Layer", "Model", "Sequential") or mod.endswith((".layers", ".models")):
                        return True
            if isinstance(b, cst.Name) and b.value in self.classes and \
                    self.is_keras_layer_class(self.classes[b.value], _seen | {id(cls)}):
                return True
        return False

    def _imports_tf_keras(self) -> bool:
        """The module runs Keras 2: it imports ``tf_keras``, or calls an API that only
        Keras 2 has (``tf.keras.optimizers.legacy.Adam``: Keras 3 refuses it), as code
        written for TensorFlow 2.15 and older does."""
        got = self._keras2_memo  # type: ignore[attr-defined]
        if got is None:
            got = any(q == "tf_keras" or q.startswith("tf_keras.") for qs in self.imports.values() for q in qs) or \
                any(self.qualified_startswith(call.func, _KERAS2_ONLY_APIS) is not None  # type: ignore[attr-defined]
                    for call, _ in self.all_calls)  # type: ignore[attr-defined]
            self._keras2_memo = got
        return got

    def _autograph_false_targets(self) -> tuple[frozenset[str], frozenset[int]]:
        """What ``tf.function(f, autograph=False)`` calls of the file wrap: names, and ids
        of lambdas. Scanned once per file, not once per function asked about."""
        if self._autograph_off_targets is None:
            names: set[str] = set()
            lambdas: set[int] = set()
            for call, _ in self.all_calls:
                if call.args and autograph_false(call) and self.resolves_to(call.func, TF_FUNCTION_NAMES):
                    a = call.args[0].value
                    if isinstance(a, cst.Name):
                        names.add(a.value)
                    elif isinstance(a, cst.Lambda):
                        lambdas.add(id(a))
            self._autograph_off_targets = (frozenset(names), frozenset(lambdas))
        return self._autograph_off_targets

    def raw_qualified(self, expr: cst.BaseExpression) -> set[str]:
        d = dotted_name(expr)
        if d is None:
            return set()
        head, _, rest = d.partition(".")
        return {b + "." + rest if rest else b for b in self.imports.get(head, ())}

    def keras3_in_use(self) -> bool:
        """Whether ``tf.keras``/``keras`` here is Keras 3: ``keras-version = 3``, or "auto"
        (from the project's pins, see :mod:`.pins`, else TensorFlow 2.21's default) and the
        module does not use ``tf_keras``."""
        if self.keras_version == "auto":
            return not self._imports_tf_keras()
        return self.keras_version == "3"

    def is_keras_loss_class(self, cls, keras3: bool = False, _seen: frozenset[int] = frozenset()) -> bool:
        """A subclass (in this module) of ``keras.losses.Loss``: calling an instance runs
        its ``call``. With ``keras3``, only a Keras 3 loss (as :meth:`is_keras3_layer_class`
        decides): its ``__call__`` runs ``call`` without AutoGraph, where Keras 2 converts it
        (checked on TensorFlow 2.21: ``if tf.math.is_nan(dice):`` in a loss's ``call``,
        called from a tf.function, raises ``OperatorNotAllowedInGraphError``)."""
        if id(cls) in _seen or keras3 and self.keras_version == "2":
            return False
        for b in cls.bases:
            for q in (self.raw_qualified(b) if keras3 else self.qualified(b)):
                if not (q.endswith(".Loss") and ".losses" in q):
                    continue
                if keras3 and self._keras3_name(q) or \
                        not keras3 and q.startswith(("keras.", "tensorflow.keras.", "tf_keras.")):
                    return True
            if isinstance(b, cst.Name) and b.value in self.classes and \
                    self.is_keras_loss_class(self.classes[b.value], keras3, _seen | {id(cls)}):
                return True
        return False

    def _keras3_name(self, q: str) -> bool:
        """Is the qualified name ``q`` (as written, before Keras spellings are unified) a
        Keras 3 name: ``keras.*``, or ``tf.keras.*`` unless the module runs ``tf_keras``
        as ``tf.keras``, and no Keras 2 internal path (``.engine.``, ``.legacy.``)?"""
        if q.startswith("tensorflow.keras.") and self.keras_version == "auto" and self._imports_tf_keras():
            return False
        return q.startswith(_KERAS3_PREFIXES) and not any(p in q for p in _KERAS2_PARTS)

    def is_keras3_layer_class(self, cls, _seen: frozenset[int] = frozenset()) -> bool:
        """A subclass of a Keras 3 layer or model: ``keras.*`` or, in TF >= 2.16,
        ``tf.keras.*`` (``tf_keras`` is Keras 2 and runs AutoGraph on ``call`` and the
        steps). ``keras-version = 2`` in the config makes every class Keras 2; in "auto",
        a module that imports ``tf_keras`` uses it as ``tf.keras`` too."""
        if id(cls) in _seen or self.keras_version == "2":
            return False
        for b in cls.bases:
            for q in self.raw_qualified(b):
                if self._keras3_name(q):
                    last = q.rsplit(".", 1)[-1]
                    mod = q.rsplit(".", 1)[0]
                    if last in ("Layer", "Model", "Sequential") or mod.endswith((".layers", ".models")):
                        return True
            if isinstance(b, cst.Name) and b.value in self.classes:
                if self.is_keras3_layer_class(self.classes[b.value], _seen | {id(cls)}):
                    return True
        return False

    def may_run_after(self, fn: FunctionInfo, stmt: cst.CSTNode) -> bool:
        """Whether ``fn`` (a function of this module, or one nested in it) may run after
        the module-level statement ``stmt``. False only when nothing else can reach it:
        its module-level function is referred to only by direct calls at module level,
        all before ``stmt``, never inside a function, class or lambda (code that may run
        at any time) nor passed on, and no other module can call it (a notebook, or a
        script of a project that no module imports). A notebook that demonstrates a
        pitfall and moves on rebinds its globals for the next cell's example. Uses of the
        name after a later module-level ``def`` of it, and in functions that bind the name
        themselves, are uses of another function."""
        root = fn
        while root.parent is not None:
            root = root.parent
        if root.cls is not None or not isinstance(root.node, cst.FunctionDef):
            return True
        name = root.name
        body = list(self.module.body)
        i = next((k for k, s in enumerate(body) if s is root.node), None)
        redefined = i is not None and any(type(s) is cst.FunctionDef and s.name.value == name  # type: ignore[attr-defined]
                                          for s in body[i + 1:])
        if not redefined and not self.all_uses_in_view():
            return True  # another module may import it and call it later (it imports the last ``def``)
        if redefined and i is not None and self._replaced_before_reuse(root, body, i, stmt):
            return False
        after = seen_root = False
        top_level = {id(s) for s in body}
        stack: list[tuple[cst.CSTNode, bool, bool]] = [(self.module, False, False)]
        while stack:
            node, in_scope, callee = stack.pop()
            if node is stmt:
                after = True
            t = type(node)
            if t is cst.Name:
                if node.value == name and (in_scope or after or not callee):  # type: ignore[attr-defined]
                    return True
                continue
            if node is root.node:
                seen_root = True
                continue  # its own body and name
            if t is cst.FunctionDef:
                if seen_root and id(node) in top_level and node.name.value == name:  # type: ignore[attr-defined]
                    return False  # a later cell's new ``def`` of the name: what follows calls that one
                info = self.function_of(node)
                if info is not None and name in info.bound and name not in info.globals_:
                    continue  # its own local of that name (a nested ``def train_step``)
            kids = child_nodes(node)
            scope = in_scope or t in _SCOPE_TYPES
            for k in reversed(kids):
                if t is cst.Attribute and k is node.attr:  # type: ignore[attr-defined]
                    continue
                if t is cst.Arg and k is node.keyword:  # type: ignore[attr-defined]
                    continue
                stack.append((k, scope, t is cst.Call and k is node.func))  # type: ignore[attr-defined]
        return False

    def _replaced_before_reuse(self, root: FunctionInfo, body: list[cst.CSTNode], i: int, stmt: cst.CSTNode) -> bool:
        """Is the module-level function ``root`` (statement ``i`` of ``body``) defined anew
        at module level after ``stmt`` before anything can run the old one: between ``stmt``
        and the new ``def`` no module-level statement names it, nor a module-level function
        whose body looks it up (``train()`` calling ``train_step``), and those are named
        nowhere else (not in other functions, not handed on), nor is the old function
        handed on before? A notebook that rebinds a setting and then defines its
        ``train_step`` again before training again (set 116): the old graph never runs
        with the new value."""
        name = root.name
        at = next((k for k, top in enumerate(body) if top is stmt or any(n is stmt for n in _subexpressions(top))), None)
        if at is None or at < i:
            return False
        new = next((k for k in range(at + 1, len(body)) if type(body[k]) is cst.FunctionDef and
                    body[k].name.value == name), None)  # type: ignore[attr-defined]
        if new is None:
            return False
        lookups: set[str] = set()  # module-level functions whose bodies look the name up
        for k, top in enumerate(body):
            if k == i or k >= new:
                continue
            if type(top) is cst.FunctionDef:
                info = self.function_of(top)
                if any(n.value == name for n in name_nodes(top)) and \
                        not (info is not None and name in info.bound and name not in info.globals_):
                    lookups.add(top.name.value)  # type: ignore[attr-defined]
            elif type(top) is cst.ClassDef and any(n.value == name for n in name_nodes(top)):
                return False  # a method may keep it or run it at any time
        for k, top in enumerate(body):
            if k == i or k >= new or type(top) is cst.FunctionDef and top.name.value in lookups:  # type: ignore[attr-defined]
                continue
            for n, in_call in _names_with_call_role(top):
                if n == name and (at < k or not in_call):
                    return False  # run after the rebinding, or handed on before it
                if n in lookups and (at <= k or type(top) is cst.FunctionDef or not in_call):
                    return False  # a function that runs it, called (or handed on) before the new ``def``
        return True

    def eager_read_of_traced_store(self, attr: str) -> tuple[str | None, str | None, int] | None:
        """Where eager code may read a tensor that traced code of this file stored on an
        attribute named ``attr`` (``self.last = x`` in a tf.function, ``print(m.last)``
        after it): the first such read as (the other file's relative path, or None for
        this file; the reading function's name, or None at module level; the line), or
        None when no read is known to see it. Outside its trace the stored value is a
        symbolic graph tensor, so such a read fails; reads in traced code belong to a
        trace and see a value of that trace. Not counted: reads in ``__init__``/``build``
        (they run before any trace), and every eager read when eager code outside them
        also stores a value computed at run time on the attribute (``self.fake =
        self.generator(z)`` before each call): which store a read sees depends on the
        order of the eager calls, which is not known here. In other files of the project
        only module-level reads count (a script's ``print(head.cls_prob)``): whether a read
        inside one of their functions runs traced is not known here."""
        if attr not in self._attr_reads:
            self._attr_reads[attr] = self._eager_read(attr)
        return self._attr_reads[attr]

    def runs_once(self, fn: FunctionInfo) -> bool:
        """Whether the module-level ``@tf.function`` ``fn`` runs exactly once: every use of
        its name is in this file (:meth:`all_uses_in_view`: a notebook, or a script no
        module imports) and that use is one direct call in module-level code, outside any
        loop, comprehension, function or class (a notebook that defines a function, calls
        it once and moves on). Its one trace is then its one run: a value drawn or read
        while tracing is the one an eager run would see."""
        if fn.parent is not None or fn.cls is not None or not fn.tf_function_decorated or \
                not isinstance(fn.node, cst.FunctionDef) or not self.all_uses_in_view():
            return False
        memo = self.__dict__.setdefault("_runs_once", {})
        got = memo.get(id(fn))
        if got is None:
            got = memo[id(fn)] = self._called_once_at_top(fn)
        return got

    def traced_only_to_export(self, fn: FunctionInfo | None) -> bool:
        """Whether the traced function ``fn`` is traced only to be exported: every graph
        root of this module is a module-level tf.function (``f = tf.function(forward)``, or
        decorated) used only through ``f.get_concrete_function(spec)``, whose concrete
        function is handed on (to ``TFLiteConverter.from_concrete_functions``,
        ``tf.saved_model.save``) and never called here, and no other module of the project
        imports this one (a file checked alone is judged by itself). The one trace builds the
        exported graph: a value drawn while tracing (``np.random.random(shape)`` for a
        mock-up model's weights) is a constant of it, as meant (set 119: a TFLite converter
        test)."""
        if fn is None or not fn.traced or self.project is not None and not self.all_uses_in_view():  # type: ignore[attr-defined]
            return False
        memo = self.__dict__.get("_exported_only")
        if memo is None:
            roots = [f for f in self.functions if f.root_reason is not None]  # type: ignore[attr-defined]
            memo = self.__dict__["_exported_only"] = bool(roots) and self._roots_only_exported(roots)
        return memo

    def _roots_only_exported(self, roots: list[FunctionInfo]) -> bool:
        names: set[str] = set()  # the tf.function objects
        inner: dict[str, int] = {}  # a wrapped function's name -> id of the call that may name it
        wrapping_stmts: list[cst.CSTNode] = []
        methods: set[str] = set()  # tf.function methods (``module.serve``, a serving signature)
        for r in roots:
            if r.root_reason != "tf.function" or r.parent is not None:
                return False
            if r.cls is not None:
                if not r.tf_function_decorated or r.name.startswith("__"):
                    return False
                methods.add(r.name)
                continue
            if r.tf_function_decorated:
                names.add(r.name)
                continue
            wrapping = [st for st in self.module.body  # type: ignore[attr-defined]
                        if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and
                        isinstance(st.body[0], cst.Assign) and len(st.body[0].targets) == 1 and
                        isinstance(st.body[0].targets[0].target, cst.Name) and
                        isinstance(st.body[0].value, cst.Call) and st.body[0].value.args and
                        self.resolves_to(st.body[0].value.func, TF_FUNCTION_NAMES) and  # type: ignore[attr-defined]
                        (st.body[0].value.args[0].value is r.node or
                         isinstance(st.body[0].value.args[0].value, cst.Name) and
                         st.body[0].value.args[0].value.value == r.name)]
            if len(wrapping) != 1 or len(r.wrapped_at) != 1:
                return False
            assign = wrapping[0].body[0]
            wrapping_stmts.append(wrapping[0])
            names.add(assign.targets[0].target.value)  # type: ignore[attr-defined]
            if isinstance(r.node, cst.FunctionDef):
                inner[r.name] = id(assign.value.args[0].value)  # type: ignore[attr-defined]
        concrete: set[str] = set()  # names bound to a concrete function
        called: set[str] = set()
        exported: set[str] = set()
        live = set(names)
        for top in self.module.body:  # type: ignore[attr-defined]
            # a later binding of the name (``with open(path, "wb") as f:``) is another object
            rebound = assigned_in(top) & live if not any(top is w for w in wrapping_stmts) else set()
            if not isinstance(top, cst.SimpleStatementLine):
                live -= rebound  # (a ``with``/``for`` target is bound before the body runs)
            if not self._only_exported_in(top, live, methods, inner, concrete, called, exported):
                return False
            live -= rebound
        # each exported at least once (a tf.function nothing uses is not an export)
        return bool(names or methods) and exported >= names | methods and not concrete & called and \
            not names & called

    @staticmethod
    def _only_exported_in(top: cst.CSTNode, names: set[str], methods: set[str], inner: dict[str, int],
                          concrete: set[str], called: set[str], exported: set[str]) -> bool:
        """Is every use in ``top`` of the tf.function objects ``names`` (and of the
        tf.function ``methods`` of the module's classes, on any object) an export: a
        ``get_concrete_function`` call, or the object handed on (``signatures={"serving_default":
        module.serve}``), never called? Names bound to what is handed on go to ``concrete``,
        the names called to ``called``: the two must not meet; ``exported`` gets each
        object exported."""
        stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(top, ())]
        while stack:
            node, up = stack.pop()
            t = type(node)
            if t is cst.Call and type(node.func) is cst.Name:  # type: ignore[attr-defined]
                called.add(node.func.value)  # type: ignore[attr-defined]
            if t is cst.Attribute and node.attr.value in methods:  # type: ignore[attr-defined]
                parent = up[-1] if up else None
                if type(parent) is cst.Attribute and parent.attr.value == "get_concrete_function" and \
                        len(up) > 1 and type(up[-2]) is cst.Call and up[-2].func is parent:  # type: ignore[attr-defined]
                    holder = up[-3] if len(up) > 2 else None
                elif type(parent) is cst.Call and parent.func is node:  # type: ignore[attr-defined]
                    return False  # ``module.serve(x)``: run here
                else:
                    holder = parent  # the function object itself, handed on
                if not _handed_on(holder, concrete):
                    return False
                exported.add(node.attr.value)  # type: ignore[attr-defined]
                stack.append((node.value, up + (node,)))  # type: ignore[attr-defined]
                continue
            if t is cst.Name:
                value = node.value  # type: ignore[attr-defined]
                if value in inner and id(node) != inner[value] and not (up and type(up[-1]) is cst.FunctionDef):
                    return False  # the wrapped function is also run or handed on as itself
                if value in names:
                    parent = up[-1] if up else None
                    if type(parent) is cst.AssignTarget:
                        continue  # ``f = tf.function(forward)``
                    if type(parent) is cst.FunctionDef:
                        continue  # its ``def``
                    if not (type(parent) is cst.Attribute and parent.attr.value == "get_concrete_function" and  # type: ignore[attr-defined]
                            len(up) > 1 and type(up[-2]) is cst.Call and up[-2].func is parent):  # type: ignore[attr-defined]
                        return False
                    if not _handed_on(up[-3] if len(up) > 2 else None, concrete):
                        return False  # ``f.get_concrete_function(spec)(x)``: run here
                    exported.add(value)
                continue
            stack.extend((k, up + (node,)) for k in child_nodes(node))
        return True

    def _called_once_at_top(self, fn: FunctionInfo) -> bool:
        name = fn.name
        uses = 0
        stack: list[tuple[cst.CSTNode, bool]] = [(self.module, False)]
        while stack:
            node, inside = stack.pop()
            t = type(node)
            if node is fn.node:
                continue
            if t is cst.Call and type(node.func) is cst.Name and node.func.value == name:  # type: ignore[attr-defined]
                uses += 1
                if inside or uses > 1:
                    return False
                stack.extend((a, inside) for a in node.args)  # type: ignore[attr-defined]
                continue
            if t is cst.Name:
                if node.value == name:  # type: ignore[attr-defined]
                    return False  # passed on, stored, rebound: it may run again
                continue
            inner = inside or t in _RUNS_AGAIN
            for k in child_nodes(node):
                if t is cst.Attribute and k is node.attr or t is cst.Arg and k is node.keyword:  # type: ignore[attr-defined]
                    continue
                stack.append((k, inner))
        return uses == 1

    def in_layer_call_run_as_graph(self, ctx: Ctx) -> bool:
        """Is ``ctx`` in the ``call`` of a Keras layer or model class (or a function nested
        in it, or one of the module's functions it calls: ``_one_image_pooling``), in a
        file whose layers may be called with symbolic tensors
        (:meth:`keras_layers_may_run_as_graph`)? ``fit``, a functional model and every
        tf.function that calls the layer run that code as a graph, whichever Keras
        converts it."""
        fn = ctx.fn
        if fn is None:
            return False
        calls = self._calls_of_call("_layer_calls", self.is_keras_layer_class)
        return any(id(f) in calls for f in fn.scope_chain()) and not eager_only_branch(ctx) and \
            self.keras_layers_may_run_as_graph()  # type: ignore[attr-defined]

    def keras_layers_may_run_as_graph(self) -> bool:
        """Whether this file's Keras layers may be called with symbolic tensors: this file,
        or a project module that imports it (directly or not), runs a graph root or Keras'
        compiled loops and symbolic builds (``fit``, ``predict``, ``Input``,
        ``Sequential``, ``build``, ...: :func:`~tflint.semantic.project.may_run_keras_graph`).
        A project with none of them calls its layers eagerly, on concrete tensors, where a
        Python ``if`` on a tensor works. A file outside any project is judged by its own text."""
        got = self.__dict__.get("_keras_graph")
        if got is None:
            from tflint.semantic.project import may_run_keras_graph, without_prose

            got = self.project.keras_graph_reaching() if self.project is not None else \
                may_run_keras_graph(without_prose(self.module.code), self.wrappers)
            self.__dict__["_keras_graph"] = got
        return got

    def keras3_call_of(self, fn: FunctionInfo | None) -> tuple[FunctionInfo, cst.Call | None] | None:
        """The ``call`` of a Keras 3 layer or model that runs ``fn`` without AutoGraph:
        ``(fn, None)`` for such a ``call`` itself (not a ``tf.function``), ``(call, site)``
        for a function of this module that it calls, directly or through other such
        functions (``site`` the call in the ``call`` method), outside an eager-only branch.
        AutoGraph converts the callees only of converted code, and Keras 3 never converts
        ``call``; a ``tf.function`` callee is converted, a ``py_function`` one runs eagerly."""
        return self._calls_of_call("_keras3_calls", self.is_keras3_layer_class).get(id(fn)) if fn is not None else None

    def keras3_symbolic_params(self, fn: FunctionInfo | None) -> frozenset[str]:
        """The parameters of ``fn`` that hold the symbolic inputs Keras 3 gives a layer's
        ``call`` (:meth:`keras3_call_of`): the inputs parameter of ``call`` itself, and of
        a function ``call`` hands them to directly and unchanged
        (``return self.forward_score(inputs)``), the parameter they bind. The other
        arguments of ``call`` are whatever the caller passed (a mask tensor, or a Python
        ``dim``): only the inputs are sure."""
        got = self.keras3_call_of(fn)
        if got is None or fn is None:
            return frozenset()
        call, site = got
        inputs = [p.name.value for p in call.params[1:2] if p.star not in ("*", "**")]
        if fn is call:
            return frozenset(inputs)
        if site is None or not inputs or inputs[0] in call.assigns or \
                self.resolve_callee(site, call) is not fn:  # type: ignore[attr-defined]
            return frozenset()
        bound = self.bound_args(site, fn, partial=True) or {}  # type: ignore[attr-defined]
        return frozenset(p for p, a in bound.items() if isinstance(a.value, cst.Name) and a.value.value == inputs[0])

    def compile_tensor_params(self, fn: FunctionInfo | None) -> frozenset[str]:
        """The parameters of a loss or metric handed to ``compile`` that Keras fills with
        tensors: ``y_true`` and ``y_pred`` of a loss or metric function, of a loss class's
        ``call`` and of a metric's ``update_state`` (its first two parameters after
        ``self``; ``sample_weight`` may be None)."""
        if fn is None or fn.root_reason != KERAS_COMPILE_REASON:
            return frozenset()
        params = [p for p in fn.params if p.star not in ("*", "**")]
        if fn.cls is not None and params and params[0].name.value == fn.self_name:
            params = params[1:]
        return frozenset(p.name.value for p in params[:2] if p.star == "")

    def keras_call_of(self, fn: FunctionInfo | None) -> tuple[FunctionInfo, cst.Call | None] | None:
        """As :meth:`keras3_call_of`, for the ``call`` of a layer or model of any Keras
        version: the code ``fit`` and ``predict`` run inside their graph."""
        return self._calls_of_call("_keras_calls", self.is_keras_layer_class).get(id(fn)) if fn is not None else None

    def _calls_of_call(self, key: str, of_class: Callable) -> dict[int, tuple[FunctionInfo, cst.Call | None]]:
        memo = self.__dict__.get(key)
        if memo is None:
            memo = {}
            work: list[FunctionInfo] = []
            for cls in self.classes.values():
                f = cls.methods.get("call")
                if f is not None and isinstance(f.node, cst.FunctionDef) and not f.tf_function and of_class(cls):
                    memo[id(f)] = (f, None)
                    work.append(f)
            while work:
                f = work.pop()
                root, site = memo[id(f)]
                for call, ctx in f.calls:
                    if eager_only_branch(ctx) or self.in_py_function_arg(ctx):
                        continue
                    callee = self.resolve_callee(call, ctx.fn)  # type: ignore[attr-defined]
                    if callee is None or id(callee) in memo or callee.tf_function or \
                            callee.py_function_target or callee.name in ("__init__", "build", "call"):
                        continue
                    memo[id(callee)] = (root, site or call)
                    work.append(callee)
            self.__dict__[key] = memo
        return memo

    def keras_call_may_run_as_graph(self, cls) -> bool:
        """May the ``call`` of the Keras class ``cls`` get symbolic tensors: this module or
        one that imports it may run Keras layers as a graph (:meth:`keras_layers_may_run_as_graph`),
        something makes an instance (:meth:`class_never_used`), and not only module-level
        code that calls it eagerly (:meth:`instances_called_only_eagerly`)? Asked for a
        finding only: the last two may read other modules."""
        return self.keras_layers_may_run_as_graph() and not self.class_never_used(cls) and \
            not self.instances_called_only_eagerly(cls)

    def instances_live_per_trace(self, cls) -> bool:
        """Is every instance of the module class ``cls`` made within a trace? True when
        ``cls`` and the module's classes derived from it are constructed only in traced
        code (``p = DetectionInputProcessor(image)`` in a ``Dataset.map`` parser), their
        names are used for nothing else, and no other module of the project calls them:
        then state the methods keep on ``self`` lives for one trace, like a local."""
        memo = self.__dict__.setdefault("_per_trace_classes", {})
        if id(cls) not in memo:
            memo[id(cls)] = self._instances_live_per_trace(cls)
        return memo[id(cls)]

    def instances_live_per_call(self, cls) -> bool:
        """Is every instance of the module class ``cls`` (and of the module's classes
        derived from it) a local of the function call that makes it: bound to a local name
        (``mlp = MLP()`` in ``train()``) that the function neither returns nor declares
        global, the names used for nothing else, and no other module calling them? Then
        no instance outlives the call, and each new one traces its ``tf.function`` methods
        anew, with the module globals of that moment (an experiment script that rebinds a
        setting between calls of ``train()``)."""
        memo = self.__dict__.setdefault("_per_call_classes", {})
        if id(cls) not in memo:
            memo[id(cls)] = self._instances_only(cls, self._local_to_the_call)
        return memo[id(cls)]

    def call_builds_a_functional_model(self, cls) -> bool:
        """Does ``call`` of the Keras class ``cls`` only ever build the graph of a
        functional model? A method of the class other than ``call`` runs ``self.call`` on
        a ``keras.Input`` and returns the ``keras.Model`` of the two (``def model(self):
        inputs = keras.Input(shape); return keras.Model(inputs, self.call(inputs))``), and
        every instance of the class is made only to call such a method at once
        (``UNet(2).model(shape)``, or ``net = UNet(2)`` followed by ``net =
        net.model(shape)``), here and in no other module. Then ``call`` runs once, on
        symbolic inputs, and the layers it constructs are that model's own (checked on
        TensorFlow 2.21: they are in ``model.weights`` and ``fit`` trains them)."""
        from tflint.semantic.project import builder_consumed_calls

        memo = self.__dict__.setdefault("_functional_builders", {})
        got = memo.get(id(cls))
        if got is None:
            builders = frozenset(name for name, m in cls.methods.items() if name != "call" and self._builds_functional(m))
            got = bool(builders) and self._made_only_as(cls, builder_consumed_calls(builders), unmade=True) or \
                self._call_builds_from_a_shape(cls)
            memo[id(cls)] = got
        return got

    def _call_builds_from_a_shape(self, cls) -> bool:
        """Is ``call`` of ``cls`` itself a builder: it makes ``keras.Input(shape=inputs)``
        from its own inputs parameter and returns a ``keras.Model``
        (``model = Encoder()((128, 128, 3))``, set 89)? It is given a shape, never a
        tensor, and each call builds a new functional model with its own layers."""
        call = cls.methods.get("call")
        if call is None or call.self_name is None:
            return False
        named = [p.name.value for p in call.params if not p.star]
        if len(named) < 2:
            return False
        shape = named[1]
        makes_input = any(isinstance(v, cst.Call) and self.resolves_to(v.func, _KERAS_INPUTS) and  # type: ignore[attr-defined]
                          any(isinstance(a.value, cst.Name) and a.value.value == shape and
                              (a.keyword is None or a.keyword.value == "shape") for a in v.args)
                          for vs in call.assigns.values() for v in vs)
        return makes_input and bool(call.returns) and all(
            isinstance(r, cst.Call) and self.resolves_to(r.func, _KERAS_FUNCTIONAL) for r in call.returns)  # type: ignore[attr-defined]

    def _builds_functional(self, m: FunctionInfo) -> bool:
        if m.self_name is None:
            return False
        inputs = {n for n, vs in m.assigns.items()
                  if any(isinstance(v, cst.Call) and self.resolves_to(v.func, _KERAS_INPUTS) for v in vs)}  # type: ignore[attr-defined]
        runs_call = any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "call" and
                        isinstance(c.func.value, cst.Name) and c.func.value.value == m.self_name and
                        any(isinstance(a.value, cst.Name) and a.value.value in inputs for a in c.args)
                        for c, _ in m.calls)
        return runs_call and any(isinstance(r, cst.Call) and self.resolves_to(r.func, _KERAS_FUNCTIONAL)  # type: ignore[attr-defined]
                                 for r in m.returns)

    def instances_called_only_eagerly(self, cls) -> bool:
        """Is every instance of the module class ``cls`` (and of the module's classes derived
        from it) made in module-level code and only called there: at once,
        ``Invert()(image)``, or through a module-level name that nothing but module-level
        calls reads (``conv = Conv2D(...)``, then ``conv(x)``; or never: ``a = Conv2D()``)?
        The class names are used for nothing else here, and the other modules of the
        project use them only so too (``encoder = Encoder(boxes)`` in a training script,
        then ``encoder(labels)`` in its loop: :func:`~tflint.semantic.project.eager_instance_calls`).
        Then its ``call`` runs only eagerly, on the concrete values given it there (a
        tutorial cell that shows what a custom layer does to one image). Never where the
        module makes a symbolic ``keras.Input``: a layer called at module level there may
        be building a functional model. In a project, also when every instance is made
        and used only in eager code of any function, directly or through the models that
        hold it (:class:`~tflint.semantic.instances.EagerUses`: ``model = Predictor()``
        in ``main()``, called in its ``GradientTape`` loop)."""
        from tflint.semantic.project import eager_instance_calls

        memo = self.__dict__.setdefault("_called_eagerly_classes", {})
        if id(cls) not in memo:
            family = self._family(cls)
            memo[id(cls)] = self._made_only_as(cls, eager_instance_calls) or \
                self.project is not None and bool(family) and self.project.instances_only_eager(family)  # type: ignore[attr-defined]
        return memo[id(cls)]

    def _made_only_as(self, cls, accept, unmade: bool = False) -> bool:
        """Is every call that makes an instance of ``cls`` (or of the module's classes
        derived from it), here and in the other modules of the project, one that
        ``accept`` gives (:data:`~tflint.semantic.project.InstanceUses`), with the class
        names used for nothing else and the instances' module-level names read by no
        other module? Asked for a finding only: it parses this module once more, as
        ``ast``, and reads the modules that import it. ``unmade``: a class the project
        never makes counts, even in a package for others (a class whose own method builds
        its functional model: that method is how it is meant to be used)."""
        family = self._family(cls)
        if not family:
            return False
        sites = [call for call, _ in self.all_calls  # type: ignore[attr-defined]
                 if isinstance(call.func, cst.Name) and call.func.value in family]
        bound: set[str] = set()
        if sites:
            tree = self.__dict__.get("_ast_module")
            if tree is None:
                try:
                    tree = ast.parse(self.module.code)  # type: ignore[attr-defined]
                except (SyntaxError, ValueError, RecursionError):
                    return False
                self.__dict__["_ast_module"] = tree
            made = accept(tree, family)
            keys = [(self.position(c.func).start.line, c.func.value) for c in sites]  # type: ignore[attr-defined]
            if any(k not in made for k in keys):
                return False
            bound = {b for b in (made[k] for k in keys) if b is not None}
        if not self._named_only_at(family, {id(call.func) for call in sites}):
            return False
        if self.project is None:  # type: ignore[attr-defined]
            return bool(sites)
        # last: it reads and parses the modules that import this one
        return self.project.used_elsewhere_only_as(family, accept, bool(sites) or unmade, bound)  # type: ignore[attr-defined]

    @staticmethod
    def _local_to_the_call(call: cst.Call, ctx: Ctx) -> bool:
        fn = ctx.fn
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            return False
        name = next((n for n, values in fn.assigns.items() if any(v is call for v in values)), None)
        if name is None or name in fn.globals_:
            return False
        return not any(_hands_out(r, name) for r in fn.returns)

    def _instances_live_per_trace(self, cls) -> bool:
        return self._instances_only(cls, lambda call, ctx: self.is_traced(ctx))  # type: ignore[attr-defined]

    def _instances_only(self, cls, where: Callable[[cst.Call, Ctx], bool]) -> bool:
        """Is ``cls`` (with the module's classes derived from it) constructed only at
        call sites that ``where`` accepts, its names used for nothing else, and called by
        no other module of the project?"""
        family = self._family(cls)
        if not family:
            return False
        sites = [(call, ctx) for call, ctx in self.all_calls  # type: ignore[attr-defined]
                 if isinstance(call.func, cst.Name) and call.func.value in family]
        if not sites or not all(where(call, ctx) for call, ctx in sites) or \
                not self._named_only_at(family, {id(call.func) for call, _ in sites}):
            return False
        # last, as it may summarize the modules that import this one
        return not any(self.external_call_sites(name) for name in family)  # type: ignore[attr-defined]

    def _named_only_at(self, family: set[str], allowed: set[int]) -> bool:
        """Is every mention of the class names ``family`` in this module one of the
        ``allowed`` nodes (the calls that make instances), a base of a class, or inside
        the family's own bodies? Else they are handed around as values, or annotate."""
        classes = self.classes  # type: ignore[attr-defined]
        allowed = allowed | {id(b) for c in classes.values() for b in c.bases if isinstance(b, cst.Name)}
        allowed.update(id(c.node.name) for c in classes.values())
        # (the family's own bodies may name it: ``InputProcessor.__init__(self, ...)``)
        stack: list[cst.CSTNode] = [b for b in self.module.body  # type: ignore[attr-defined]
                                    if not (type(b) is cst.ClassDef and b.name.value in family)]
        while stack:
            n = stack.pop()
            if type(n) is cst.Name and n.value in family and id(n) not in allowed:  # type: ignore[attr-defined]
                return False
            if type(n) is cst.Attribute:
                stack.append(n.value)  # type: ignore[attr-defined]
                continue
            stack.extend(child_nodes(n))
        return True

    def _family(self, cls) -> set[str]:
        """The names of the module class ``cls`` and of the module's classes derived from
        it, directly or not; empty when ``cls`` is not a top-level class of the module."""
        classes = self.classes  # type: ignore[attr-defined]
        if classes.get(cls.name) is not cls:
            return set()
        family = {cls.name}
        grew = True
        while grew:
            grew = False
            for c in classes.values():
                if c.name not in family and any(isinstance(b, cst.Name) and b.value in family for b in c.bases):
                    family.add(c.name)
                    grew = True
        return family

    def class_never_used(self, cls) -> bool:
        """Is the module class ``cls`` dead code of an application: neither it nor a class
        of the module derived from it is named anywhere outside their own bodies (no call,
        no subclass, no ``custom_objects`` string, no ``globals()`` look-up), in this module
        or in any module of the project that imports it, and the project is not packaged
        for others to use? Then no instance of it is ever made. False without a project
        (a lone file's classes are there for someone)."""
        memo = self.__dict__.setdefault("_unused_classes", {})
        if id(cls) not in memo:
            memo[id(cls)] = True  # a cycle of classes naming each other makes none used
            memo[id(cls)] = self._class_never_used(cls)
        return memo[id(cls)]

    def _class_never_used(self, cls) -> bool:
        if self.project is None:  # type: ignore[attr-defined]
            return False
        family = self._family(cls)
        if not family:
            return False
        body = self.module.body  # type: ignore[attr-defined]
        own = [b for b in body if type(b) is cst.ClassDef and b.name.value in family]
        if any(b.decorators for b in own) and (self.project is None or self.project.may_be_loaded()):  # type: ignore[attr-defined]
            return False  # ``@register_keras_serializable()``: made by name when a model loads
        for top in body:
            if any(top is o for o in own) or not self._names_any(top, family):
                continue
            # named in another class of the module: used only if that class is
            other = self.classes.get(top.name.value) if type(top) is cst.ClassDef else None  # type: ignore[attr-defined]
            if other is None or other.node is not top or not self.class_never_used(other):
                return False
        # last: it reads and parses the modules that import this one
        return self.project.never_used_elsewhere(family)  # type: ignore[attr-defined]

    @staticmethod
    def _names_any(node: cst.CSTNode, names: set[str]) -> bool:
        """Does ``node`` name one of ``names`` (or a dynamic look-up), or hold one as a string?"""
        stack: list[cst.CSTNode] = [node]
        while stack:
            n = stack.pop()
            t = type(n)
            if t is cst.Name and (n.value in names or n.value in DYNAMIC_LOOKUPS):  # type: ignore[attr-defined]
                return True
            if t is cst.SimpleString:
                try:
                    if n.evaluated_value in names:  # type: ignore[attr-defined]
                        return True
                except (ValueError, SyntaxError, TypeError):
                    return True
            stack.extend(child_nodes(n))
        return False

    def counts_from_a_reset(self, node: cst.CSTNode, target: cst.BaseExpression, ctx: Ctx) -> bool:
        """``self.epoch = 0`` as an earlier statement of the same function, then ``self.epoch
        += 1`` by a Python value in Python loops only (no TensorFlow loop or tensor ``if``
        around it): the trace runs the count from its start, so the attribute ends as an eager
        call leaves it. The reset may also come from every caller: each method of the class
        that calls this one first sets ``self.attr`` (itself, or through a method it calls,
        ``self.initialize_decoder_states()``); then the attribute is per-call state of the
        trace. A tensor kept so must not be read by eager code."""
        fn = ctx.fn
        if fn is None or not isinstance(target, cst.Attribute) or not isinstance(target.value, cst.Name) or \
                not isinstance(fn.node, cst.FunctionDef) or not isinstance(fn.node.body, cst.IndentedBlock):
            return False
        attr, base = target.attr.value, target.value.value
        if self.is_tensor(node.value, fn):  # type: ignore[attr-defined]
            return base == fn.self_name and self.reset_by_every_caller(fn, attr) and \
                self.eager_read_of_traced_store(attr) is None and not self._in_tensorflow_loop(ctx, fn)
        if base == fn.self_name and self.reset_by_every_caller(fn, attr):
            return not self._in_tensorflow_loop(ctx, fn)
        line = self.line_of(node)  # type: ignore[attr-defined]
        reset = False
        stmts = list(fn.node.body.body)
        while stmts:
            stmt = stmts.pop(0)
            if self.line_of(stmt) >= line and not isinstance(stmt, cst.With):  # type: ignore[attr-defined]
                break
            if isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock):
                stmts[:0] = list(stmt.body.body)  # ``with strategy.scope():`` runs its body once
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and is_python_literal(small.value) and any(
                            isinstance(t.target, cst.Attribute) and t.target.attr.value == attr and
                            isinstance(t.target.value, cst.Name) and t.target.value.value == base
                            for t in small.targets):
                        reset = True
        if not reset:
            return False
        return not self._in_tensorflow_loop(ctx, fn)

    def _in_tensorflow_loop(self, ctx: Ctx, fn: FunctionInfo) -> bool:
        """Is ``ctx`` within a TensorFlow loop or under a tensor ``if`` of ``fn``?"""
        for c in ctx.within_function():
            if isinstance(c.node, (cst.For, cst.While)) and self.loop_is_tensorflow(c.node, fn):  # type: ignore[attr-defined]
                return True
            if isinstance(c.node, (cst.If, cst.While)) and self.is_tensor_test(c.node.test, fn):  # type: ignore[attr-defined]
                return True
        return False

    def tf_function_callee(self, call: cst.Call, ctx: Ctx) -> FunctionInfo | None:
        """The tf.function of this module that ``call`` invokes: a decorated function or
        method, or a name bound to ``tf.function(f)``. None for one with a decorator above
        its ``@tf.function``: the call's arguments reach the tf.function only through that
        wrapper (``typed_np_function`` turns Python lists into NumPy arrays first)."""
        got = self._tf_function_callee(call, ctx)
        return None if got is not None and got.outer_decorated else got

    def _tf_function_callee(self, call: cst.Call, ctx: Ctx) -> FunctionInfo | None:
        callee = self.resolve_callee(call, ctx.fn)
        if callee is not None and callee.tf_function and (callee.tf_function_decorated or not _names_fn(call, callee)):
            defs = self.module_function_defs.get(callee.name, ()) if callee.parent is None and callee.cls is None else ()
            if ctx.fn is not None and not all(info.tf_function for _, info in defs):
                # a notebook that redefines ``add`` as a tf.function in a later cell: a function
                # calls whichever ``add`` is bound when it runs, which may be the plain one
                return None
            return callee
        func = call.func
        if callee is None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            # ``agent.update(x, step)`` on ``agent = Agent()``: a tf.function method of a class here
            method = self.instance_method(func, ctx.fn)
            if method is not None and method.tf_function_decorated:
                return method
        if callee is None and isinstance(func, (cst.Name, cst.Attribute)):
            # ``sched(step)`` on ``sched = WarmUp(...)``: a class here whose ``__call__`` is a tf.function
            cls = self.instance_class(func, ctx.fn)
            method = self.method_of(cls, "__call__") if cls is not None else None
            if method is not None and method.tf_function_decorated:
                return method
        if isinstance(call.func, cst.Name):
            name = call.func.value
            scopes = list(ctx.fn.scope_chain()) if ctx.fn is not None else []
            values = next((f.assigns[name] for f in scopes if name in f.assigns), None)
            if values is None:
                values = self.module_assigns.get(name, ())
            for v in values:
                if isinstance(v, cst.Call) and self.is_tf_function_expr(v.func) and v.args:
                    target = self.resolve_callee(cst.Call(func=v.args[0].value), ctx.fn) \
                        if isinstance(v.args[0].value, (cst.Name, cst.Attribute)) else None
                    if target is not None and target.tf_function:
                        return target
        return None

    def autograph_converts(self, fn: FunctionInfo) -> bool:
        """Does AutoGraph convert ``fn`` when it is traced: not turned off
        (:meth:`autograph_off`), and no Keras 3 ``Layer.call`` (which Keras 3 traces
        unconverted)?"""
        return not self.autograph_off(fn) and not (
            fn.cls is not None and self.is_keras_layer_call(fn) and self.is_keras3_layer_class(fn.cls))

    def under_converted_tensor_condition(self, ctx: Ctx) -> bool:
        """Is ``ctx`` in a branch of an ``if`` (or the body of a ``while``) whose test is
        surely a tensor, in a function AutoGraph converts? AutoGraph traces both branches
        of such an ``if``, so Python code in either runs while tracing, whatever the
        condition turns out to be, and never when the graph runs."""
        fn = ctx.fn
        if fn is None or not self.autograph_converts(fn):
            return False
        return any(isinstance(c.node, (cst.If, cst.While)) and c.field in ("body", "orelse") and
                   self.surely_tf_test(c.node.test, fn) for c in ctx.within_function())  # type: ignore[attr-defined]

    def reset_by_every_caller(self, fn: FunctionInfo, attr: str) -> bool:
        """Is ``fn`` a method that only other methods of its class call (``self.decode(x)``),
        each of them setting ``self.attr`` anew before the call, in a statement of a block
        around it: an assignment, or a call of a method of the class that assigns it in its
        own body (``self.initialize_decoder_states()``)? Then every call of the class's
        entry starts ``self.attr`` afresh, and what ``fn`` does to it lasts one call."""
        if fn.cls is None or not fn.self_name:
            return False
        memo = self.__dict__.setdefault("_caller_resets", {})
        key = (id(fn), attr)
        if key not in memo:
            sites = self.call_sites(fn)  # type: ignore[attr-defined]
            memo[key] = bool(sites) and all(
                ctx.fn is not None and ctx.fn is not fn and ctx.fn.cls is fn.cls and
                self._set_before(call, ctx, attr) for call, ctx in sites)
        return memo[key]

    def _set_before(self, call: cst.Call, ctx: Ctx, attr: str) -> bool:
        """Does a simple statement before ``call``, in a block around it within the calling
        method, set ``self.attr`` (directly or through a method of the class)?"""
        caller = ctx.fn
        line = self.line_of(call)  # type: ignore[attr-defined]
        blocks: list[cst.CSTNode] = []
        for c in ctx.within_function():
            block = getattr(c.node, c.field, None)
            if isinstance(block, cst.IndentedBlock):
                blocks.append(block)
        if isinstance(caller.node, cst.FunctionDef) and isinstance(caller.node.body, cst.IndentedBlock):
            blocks.append(caller.node.body)
        for block in blocks:
            for stmt in block.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                if self.line_of(stmt) >= line:  # type: ignore[attr-defined]
                    break
                if self._sets_attr(stmt, attr, caller):
                    return True
                for small in stmt.body:
                    value = small.value if isinstance(small, cst.Expr) else None
                    if isinstance(value, cst.Call):
                        callee = self.resolve_callee(value, caller)  # type: ignore[attr-defined]
                        if callee is not None and callee.cls is caller.cls and \
                                isinstance(callee.node, cst.FunctionDef) and \
                                isinstance(callee.node.body, cst.IndentedBlock) and \
                                any(self._sets_attr(st, attr, callee) for st in callee.node.body.body):
                            return True
        return False

    @staticmethod
    def _sets_attr(stmt: cst.CSTNode, attr: str, fn: FunctionInfo) -> bool:
        """``self.attr = <value not reading self.attr>`` as a simple statement of ``fn``."""
        def fresh(value: cst.BaseExpression) -> bool:
            return not any(isinstance(n, cst.Attribute) and n.attr.value == attr and
                           isinstance(n.value, cst.Name) and n.value.value == fn.self_name
                           for n in walk_scope(value))
        return _assigns_self_attr(stmt, attr, fn, fresh)

    def fresh_container_before(self, fn: FunctionInfo, attr: str, node: cst.CSTNode) -> bool:
        """Does ``fn``, before the statement holding ``node``, bind ``self.attr`` to a new
        list or dict, directly or through a method it calls (``self.reset_losses()`` with
        ``self.losses = {...}``)? Then the container that ``node`` changes was made in the
        same trace: it lives for that trace, as a local would."""
        body = fn.node.body.body if isinstance(fn.node, cst.FunctionDef) and \
            isinstance(fn.node.body, cst.IndentedBlock) else ()
        line = self.line_of(node)  # type: ignore[attr-defined]
        for stmt in body:
            if self.line_of(stmt) >= line:  # type: ignore[attr-defined]
                return False
            if self._binds_fresh(stmt, attr, fn):
                return True
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    call = small.value if isinstance(small, cst.Expr) else None
                    if isinstance(call, cst.Call):
                        callee = self.resolve_callee(call, fn)  # type: ignore[attr-defined]
                        if callee is not None and callee.cls is not None and isinstance(callee.node, cst.FunctionDef) \
                                and any(self._binds_fresh(st, attr, callee) for st in callee.node.body.body):
                            return True
        return False

    @staticmethod
    def _binds_fresh(stmt: cst.CSTNode, attr: str, fn: FunctionInfo) -> bool:
        """``self.attr = {...}`` (or a list) as a statement of ``fn``."""
        return _assigns_self_attr(stmt, attr, fn, is_container_value)

    def is_configuration_setter(self, setter: str) -> bool:
        """Is the module function ``setter`` a library's setting setter, ``def
        set_swap_memory(value): global SWAP_MEMORY; SWAP_MEMORY = value``: its body only
        declares globals and binds them from its parameters (a docstring aside,
        ``bool(value)`` allowed), this module is one that other modules of the project
        import, nothing in it calls the setter, and no other module calls it in a loop or in
        traced code? Such a setting is made once, before the model is built (deel-lip's
        ``set_stop_grad_spectral``), not changed between calls."""
        f = self.module_functions.get(setter)  # type: ignore[attr-defined]
        if f is None or not isinstance(f.node, cst.FunctionDef) or not isinstance(f.node.body, cst.IndentedBlock):
            return False
        if self.project is None or not self.project.imported_elsewhere():  # type: ignore[attr-defined]
            return False
        memo = self.__dict__.setdefault("_setter_memo", {})
        if setter not in memo:
            memo[setter] = self._pure_setter(f) and not self.call_sites(f) and \
                not any(c.in_loop or c.in_traced_code for c in self.external_call_sites(f))  # type: ignore[attr-defined]
        return memo[setter]

    @staticmethod
    def _pure_setter(f: FunctionInfo) -> bool:
        body = list(f.node.body.body)  # type: ignore[union-attr]
        sets = False
        for i, stmt in enumerate(body):
            if not isinstance(stmt, cst.SimpleStatementLine):
                return False
            for small in stmt.body:
                if isinstance(small, cst.Global) or i == 0 and isinstance(small, cst.Expr) and \
                        isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue
                if not isinstance(small, cst.Assign) or len(small.targets) != 1 or \
                        not isinstance(small.targets[0].target, cst.Name) or \
                        small.targets[0].target.value not in f.globals_:
                    return False
                v = small.value
                if isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and \
                        v.func.value in ("bool", "int", "float", "str") and len(v.args) == 1:
                    v = v.args[0].value
                if not (isinstance(v, cst.Name) and v.value in f.param_names):
                    return False
                sets = True
        return sets

    def runs_only_before(self, setter: str, fn: FunctionInfo) -> bool:
        """Does the module-level function ``setter`` run only before ``fn`` exists: every
        use of its name is a direct call in module-level code outside loops, above the
        statement that defines ``fn`` (its outermost function or class), and no other
        module can call it (``apply_hyperparameters(args)`` at start-up, before the
        classes and tf.functions that read the globals it sets are defined)?"""
        if setter not in self.module_functions or not self.all_uses_in_view():  # type: ignore[attr-defined]
            return False
        memo = self.__dict__.setdefault("_start_up_memo", {})
        if setter not in memo:
            memo[setter] = self._start_up_calls(setter)
        last = memo[setter]
        if last is None:
            return False
        top = fn
        while top.parent is not None:
            top = top.parent
        return last < self.line_of(top.cls.node if top.cls is not None else top.node)  # type: ignore[attr-defined]

    def _start_up_calls(self, setter: str) -> int | None:
        """The line of the last call of the module function ``setter`` when every use of
        its name is a direct call in module-level code outside loops; else None."""
        calls: set[int] = set()
        last = 0
        for call, ctx in self.all_calls:  # type: ignore[attr-defined]
            if isinstance(call.func, cst.Name) and call.func.value == setter:
                if ctx.fn is not None or ctx.cls is not None or next(ctx.loops(), None) is not None:
                    return None
                calls.add(id(call.func))
                last = max(last, self.line_of(call))  # type: ignore[attr-defined]
        definition = self.module_functions[setter].node  # type: ignore[attr-defined]
        if not calls or not all(id(n) in calls or n is definition.name
                                for n in name_nodes(self.module) if n.value == setter):  # type: ignore[attr-defined]
            return None
        return last

    def sets_once_at_start(self, setter: str, value: cst.BaseExpression | None) -> bool:
        """Does the module function ``setter`` (a script's ``main()``) bind a global to
        ``value`` once, before anything it runs could trace: ``setter`` is called once, in
        module-level code outside loops, and no other module can call it; the binding is a
        statement of its own body (not in a loop or a branch), and no statement before it
        calls a function or class of this module (``category_n = args["category_n"]`` after
        the argument parsing, before the model is built and fitted)? Every trace then sees
        the value it sets."""
        f = self.module_functions.get(setter)  # type: ignore[attr-defined]
        if value is None or f is None or not isinstance(f.node, cst.FunctionDef) or \
                not isinstance(f.node.body, cst.IndentedBlock) or \
                self.project is not None and not self.all_uses_in_view():  # type: ignore[attr-defined]
            return False  # (a file checked alone is judged by itself)
        if self._start_up_calls(setter) is None or \
                sum(1 for c, _ in self.all_calls if isinstance(c.func, cst.Name) and c.func.value == setter) != 1:  # type: ignore[attr-defined]
            return False
        # the module's own statements up to its call of ``setter``, then the setter's up to the binding
        for body, fn in ((self.module.body, None), (f.node.body.body, f)):  # type: ignore[attr-defined]
            for stmt in body:
                if stmt is f.node:
                    continue
                if fn is None and any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and
                                      n.func.value == setter for n in _subexpressions(stmt)):
                    break
                if fn is not None and any(n is value for n in _subexpressions(stmt)):
                    return isinstance(stmt, cst.SimpleStatementLine)
                if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and self._runs_project_code(stmt, fn):
                    return False  # may already build and trace
        return False

    def _runs_project_code(self, stmt: cst.CSTNode, fn: FunctionInfo | None) -> bool:
        return any(isinstance(n, cst.Call) and (self.resolve_callee(n, fn) is not None or  # type: ignore[attr-defined]
                                                isinstance(n.func, cst.Name) and n.func.value in self.classes)  # type: ignore[attr-defined]
                   for n in _subexpressions(stmt))

    def all_uses_in_view(self) -> bool:
        """Whether every use of this module's names is in this file: a notebook, or a
        script of a project that no other module imports."""
        return self.path.endswith(".ipynb") or self.project is not None and not self.project.imported_elsewhere()

    def _eager_read(self, attr: str) -> tuple[str | None, str | None, int] | None:
        stores: set[int] = set()
        stack: list[tuple[cst.CSTNode, FunctionInfo | None]] = [(self.module, None)]
        reads: list[tuple[cst.CSTNode, FunctionInfo | None]] = []
        while stack:
            node, fn = stack.pop()
            t = type(node)
            if t is cst.Assign or t is cst.AnnAssign:
                targets = [a.target for a in node.targets] if t is cst.Assign else [node.target]  # type: ignore[attr-defined]
                mine = False
                for target in targets:
                    for e in flat_targets(target):
                        stores.add(id(e))
                        mine = mine or type(e) is cst.Attribute and e.attr.value == attr  # type: ignore[attr-defined]
                value = node.value  # type: ignore[attr-defined]
                if mine and value is not None and _eager_outside_setup(fn) and not is_python_literal(value) and \
                        not _reset_before_the_steps(fn):
                    return None  # eager code refreshes it too: which value a read sees is not known
            elif t is cst.Attribute and node.attr.value == attr and id(node) not in stores:  # type: ignore[attr-defined]
                if _eager_outside_setup(fn) and not self._maybe_library_hook(fn) and not _handed_out(fn) and \
                        not self._called_before(fn, node.value, self.line_of(node)):  # type: ignore[attr-defined]
                    reads.append((node, fn))
            inner = self.function_of(node) if t is cst.FunctionDef or t is cst.Lambda else None  # type: ignore[attr-defined]
            outer = {id(d) for d in node.decorators} if t is cst.FunctionDef else ()  # type: ignore[attr-defined]
            for k in reversed(child_nodes(node)):
                stack.append((k, inner if inner is not None and id(k) not in outer else fn))
        if reads:
            node, fn = min(reads, key=lambda r: self.line_of(r[0]))
            return None, fn.name if fn is not None else None, self.line_of(node)
        if self.project is not None and not self.all_uses_in_view():
            got = self.project.eager_read_elsewhere(attr)
            if got is not None:
                return got[0], None, got[1]
        return None

    def _called_before(self, fn: FunctionInfo | None, receiver: cst.BaseExpression, line: int) -> bool:
        """Does the eager code that reads ``receiver.attr`` at ``line`` call ``receiver``
        itself on an earlier line of the same function (``enc, _ = self.encoder(x)`` and
        then ``self.encoder.embedded``)? That call runs the object eagerly and stores a
        value of its own, so the read sees it rather than a trace's tensor."""
        if type(receiver) not in (cst.Name, cst.Attribute):
            return False
        stack: list[cst.CSTNode] = [fn.node if fn is not None else self.module]
        while stack:
            node = stack.pop()
            t = type(node)
            if t is cst.Call and node.func.deep_equals(receiver) and self.line_of(node) < line:  # type: ignore[attr-defined]
                return True
            if t in _SCOPE_TYPES and (fn is None or node is not fn.node):
                continue
            stack.extend(child_nodes(node))
        return False

    def _maybe_library_hook(self, fn: FunctionInfo | None) -> bool:
        """A method that nothing in this module calls, of a class derived from a library
        class other than ``tf.Module`` or a Keras layer or model (``Decoder.initialize``,
        run by ``dynamic_decode`` within the caller's trace): whether it runs traced or
        eagerly is not known here."""
        if fn is None or fn.cls is None or self.call_sites(fn):  # type: ignore[attr-defined]
            return False
        cls = fn.cls
        if self.is_keras_layer_class(cls) or fn.root_reason == KERAS_COMPILE_REASON:
            return False  # (Keras's own calls of a compiled metric's methods are known)
        for b in cls.bases:
            if isinstance(b, cst.Name) and (b.value in self.classes or b.value == "object"):  # type: ignore[attr-defined]
                continue
            if any(q in ("tensorflow.Module", "tensorflow.compat.v2.Module") for q in self.qualified(b)):  # type: ignore[attr-defined]
                continue
            return True
        return False


def _element_called(loop: cst.For) -> bool:
    """Does the body call what the loop binds (``for model in checkpoints:
    model(x)``)? A tensor is not callable, so the loop runs over Python objects."""
    names = {t.value for t in flat_targets(loop.target) if isinstance(t, cst.Name)}
    if not names:
        return False
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        n = stack.pop()
        if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in names:  # type: ignore[attr-defined]
            return True
        stack.extend(child_nodes(n))
    return False


def _reset_before_the_steps(fn: FunctionInfo | None) -> bool:
    """The ``reset_state`` of a metric handed to ``compile``: Keras calls it at the start
    of each epoch, before the steps whose trace stores on the attribute, so the order of
    the stores is known and the trace's comes last."""
    return fn is not None and fn.name in ("reset_state", "reset_states") and fn.cls is not None and \
        any(m.root_reason == KERAS_COMPILE_REASON for m in fn.cls.methods.values())


def _eager_outside_setup(fn: FunctionInfo | None) -> bool:
    """Code that runs eagerly after objects are set up: module level, an eager function
    other than ``__init__``/``build``, or the ``result`` of a metric handed to ``compile``,
    which Keras also calls eagerly at the end of each epoch for the logs (set 120: a
    tensor that ``update_state`` kept on ``self`` reached the history as a graph tensor)."""
    if fn is None:
        return True
    if fn.name == "result" and fn.cls is not None and fn.root_reason == KERAS_COMPILE_REASON:
        return True
    return not fn.traced and fn.name not in ("__init__", "build")



_SCOPE_TYPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _handed_out(fn: FunctionInfo | None) -> bool:
    """Is ``fn`` a nested function that the function defining it hands out rather than
    only calls (``return loss_fn``, ``self.loss_wrapper(loss_fn)``, ``compile(loss=loss_fn)``)?
    Whoever gets it calls it, maybe within a trace (a loss function Keras runs in the
    compiled train step): it is no known eager code."""
    if fn is None or fn.parent is None or not isinstance(fn.node, cst.FunctionDef):
        return False
    name = fn.name
    stack: list[cst.CSTNode] = [fn.parent.node]
    while stack:
        node = stack.pop()
        if node is fn.node:
            continue
        t = type(node)
        if t is cst.Call and type(node.func) is cst.Name and node.func.value == name:  # type: ignore[attr-defined]
            stack.extend(node.args)  # type: ignore[attr-defined]
            continue
        if t is cst.Name and node.value == name:  # type: ignore[attr-defined]
            return True
        if t is cst.Attribute:
            stack.append(node.value)  # type: ignore[attr-defined]
            continue
        stack.extend(child_nodes(node))
    return False


def _hands_out(r: cst.BaseExpression, name: str) -> bool:
    """Does ``return r`` give the object ``name`` itself (``return m``, ``return m, opt``)?"""
    if isinstance(r, cst.Name):
        return r.value == name
    if isinstance(r, (cst.Tuple, cst.List)):
        return any(_hands_out(e.value, name) for e in r.elements)
    return False


#: annotations of a Python container (``list[list[tf.Variable]]``, ``Sequence[int]``)
_SEQUENCE_ANNOTATIONS = frozenset({"list", "List", "tuple", "Tuple", "dict", "Dict", "Sequence", "Mapping"})
#: code in these may run more than once (or at any time, for functions and classes)
_RUNS_AGAIN = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While, cst.ListComp,
                         cst.SetComp, cst.DictComp, cst.GeneratorExp})

#: words of a guard that says its branch is for eager runs: ``tf.executing_eagerly()``,
#: ``tf.config.functions_run_eagerly()``, and a flag named ``run_eagerly`` (the one that
#: also goes to ``compile(run_eagerly=...)``)
_EAGER_CHECKS = ("executing_eagerly", "inside_function", "executing_eagerly_outside_functions", "run_eagerly")


def autograph_false(call: cst.Call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "autograph" and isinstance(a.value, cst.Name)
               and a.value.value == "False" for a in call.args)


def _count_names(node: cst.CSTNode, name: str) -> int:
    """How many ``Name`` nodes under ``node`` spell ``name`` (an attribute's name too)."""
    n = 0
    stack: list[cst.CSTNode] = [node]
    while stack:
        x = stack.pop()
        if type(x) is cst.Name and x.value == name:  # type: ignore[attr-defined]
            n += 1
        stack.extend(child_nodes(x))
    return n


def _negated(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """``X`` of ``not X``, else None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression
    return None


def _conditions_against(ctx: Ctx) -> set[str]:
    """The code of each condition whose truth keeps code at ``ctx`` from running, within
    its function: ``X`` of an enclosing ``if not X:`` body, or of an ``if X:`` whose
    ``else`` (or ``elif``) holds it."""
    out: set[str] = set()
    for c in ctx.within_function():
        if isinstance(c.node, cst.If):
            neg = _negated(c.node.test)
            if c.field == "body" and neg is not None:
                out.add(code(neg))
            elif c.field == "orelse" and neg is None:
                out.add(code(c.node.test))
    return out


def _not_none_tested_param(test: cst.BaseExpression, fn: FunctionInfo) -> str | None:
    """The parameter of ``fn`` that ``test`` is: ``p is not None`` or ``p`` itself."""
    if isinstance(test, cst.Name) and test.value in fn.param_names:
        return test.value
    return _compared_with_none(test, fn, cst.IsNot)


def _compared_with_none(test: cst.BaseExpression, fn: FunctionInfo, op: type) -> str | None:
    """The parameter of ``fn`` that ``test`` compares with ``None`` by ``op`` (``cst.Is``:
    ``p is None``; ``cst.IsNot``: ``p is not None``)."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.comparisons[0].operator, op) and isinstance(test.left, cst.Name) and \
            isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None" and \
            test.left.value in fn.param_names:
        return test.left.value
    return None


def _none_tested_params(test: cst.BaseExpression, fn: FunctionInfo) -> list[str] | None:
    """The parameters of ``fn`` that ``test`` compares with ``is None``, when it is one
    such comparison or an ``or`` of them (each must hold for the body to be dead)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        left, right = _none_tested_params(test.left, fn), _none_tested_params(test.right, fn)
        return left + right if left and right else None
    name = _compared_with_none(test, fn, cst.Is)
    return [name] if name is not None else None


def eager_only_branch(ctx: Ctx) -> bool:
    """Code guarded by ``if tf.executing_eagerly():`` (or in its ``else`` when negated), by
    a ``run_eagerly`` flag, or in a ``try`` body: the author knows it may not run in a graph."""
    for c in ctx.within_function():
        if isinstance(c.node, (cst.Try,)) and c.field == "body":
            return True
        if isinstance(c.node, cst.With) and c.field == "body" and any(
                "eager_mode" in code(item.item) for item in c.node.items):
            return True
        if isinstance(c.node, (cst.If, cst.IfExp)) and c.field in ("body", "orelse"):
            text = cst.Module(body=[]).code_for_node(c.node.test)
            if any(w in text for w in _EAGER_CHECKS) or "hasattr(" in text and "numpy" in text:
                return True
    return False


_KERAS3_PREFIXES = ("keras.", "tensorflow.keras.")


_KERAS2_PARTS = (".engine.", ".legacy.", "keras.src.engine", "tensorflow.keras.src")


def _ends_in_exit(block: cst.BaseSuite) -> bool:
    """Does the block end in ``return`` or ``raise``?"""
    if isinstance(block, cst.IndentedBlock):
        last = block.body[-1] if block.body else None
        small = last.body if isinstance(last, cst.SimpleStatementLine) else ()
    else:
        small = block.body  # type: ignore[attr-defined]
    return bool(small) and isinstance(small[-1], (cst.Return, cst.Raise))


#: APIs that only Keras 2 has: a module that calls one was written for Keras 2
_KERAS2_ONLY_APIS = ("tensorflow.keras.optimizers.legacy.", "keras.optimizers.legacy.")


def _reaches(root: FunctionInfo, fn: FunctionInfo) -> bool:
    """Is ``fn`` the tf.function ``root`` itself, a function nested in it, or traced
    because ``root`` calls it (followed through a few callers)?"""
    f: FunctionInfo | None = fn
    for _ in range(8):
        if f is None:
            return False
        if f is root or root in f.scope_chain():
            return True
        f = f.via[0] if f.via is not None else None
    return False


def _of_static_shapes(e: cst.BaseExpression) -> bool:
    """Is ``e`` made only of static shapes (``y.shape``, ``y.shape[0]``) and literals,
    with at least one shape (``[y.shape[0], 1, 1]``, ``x.shape[1] // 2``)?"""
    shapes = 0
    stack: list[cst.BaseExpression] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Integer, cst.Float)) or isinstance(n, cst.Name) and n.value == "None":
            continue
        if isinstance(n, cst.Attribute) and n.attr.value == "shape":
            shapes += 1
            continue
        if isinstance(n, cst.Subscript) and isinstance(n.value, cst.Attribute) and n.value.attr.value == "shape":
            shapes += 1
            continue
        if isinstance(n, (cst.List, cst.Tuple)):
            stack.extend(el.value for el in n.elements)
            continue
        if isinstance(n, cst.BinaryOperation):
            stack.extend((n.left, n.right))
            continue
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in ("int", "len", "tuple", "list"):
            stack.extend(a.value for a in n.args)
            continue
        return False
    return shapes > 0


def _holds_def(loop: cst.CSTNode, fn: FunctionInfo) -> bool:
    """Is ``fn``'s definition inside ``loop``?"""
    return any(c is fn.node for n in walk_scope(loop) for c in child_nodes(n))


def _assigns_self_attr(stmt: cst.CSTNode, attr: str, fn: FunctionInfo,
                       accept: Callable[[cst.BaseExpression], bool]) -> bool:
    """Is ``stmt`` a simple statement of ``fn`` that assigns ``self.attr`` a value ``accept``
    takes?"""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return any(isinstance(small, cst.Assign) and accept(small.value) and any(
        isinstance(t.target, cst.Attribute) and t.target.attr.value == attr and
        isinstance(t.target.value, cst.Name) and t.target.value.value == fn.self_name
        for t in small.targets) for small in stmt.body)


def _names_fn(call: cst.Call, fn: FunctionInfo) -> bool:
    """Does ``call`` name ``fn`` itself (``f(x)``, ``self.f(x)``)? For a function wrapped
    by a ``tf.function(f)`` call, not a decorator, that is a plain Python call: only the
    name bound to the wrapper (``g = tf.function(f)``; ``f = tf.function(f)`` rebinds it)
    runs the graph."""
    func = call.func
    got = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    return got == fn.name


def _names_with_call_role(node: cst.CSTNode) -> Iterator[tuple[str, bool]]:
    """The names ``node`` reads (not ``x.attr``'s ``attr``, not keywords), each with
    whether it is the function of a call (``train(ds)``) rather than a value handed on."""
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        n, called = stack.pop()
        t = type(n)
        if t is cst.Name:
            yield n.value, called  # type: ignore[attr-defined]
            continue
        for k in child_nodes(n):
            if t is cst.Attribute and k is n.attr or t is cst.Arg and k is n.keyword:  # type: ignore[attr-defined]
                continue
            stack.append((k, t is cst.Call and k is n.func))  # type: ignore[attr-defined]


def _handed_on(holder: cst.CSTNode | None, concrete: set[str]) -> bool:
    """Is a function object (or its concrete function) whose parent is ``holder`` handed
    on: an argument, a list or dict element, or bound to a name (added to ``concrete``,
    which must then never be called)?"""
    if type(holder) is cst.Assign and len(holder.targets) == 1 and \
            type(holder.targets[0].target) is cst.Name:  # type: ignore[attr-defined]
        concrete.add(holder.targets[0].target.value)  # type: ignore[attr-defined]
        return True
    return type(holder) in (cst.Arg, cst.Element, cst.DictElement)


def _clears_its_flag(node: cst.If) -> bool:
    """``if self.is_virgin: ...; self.is_virgin = False``: the block turns off the flag
    it tests, so it runs once (set 124's first-call setup)."""
    test = node.test
    if not isinstance(test, (cst.Name, cst.Attribute)) or not isinstance(node.body, cst.IndentedBlock):
        return False
    text = code(test)
    for stmt in node.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Name) and \
                        small.value.value == "False" and any(code(t.target) == text for t in small.targets):
                    return True
    return False
