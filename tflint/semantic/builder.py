"""Building the model: one hand-written walk over the libcst tree.

It is built by one traversal of the libcst tree (:func:`build`), done by a hand-written
walk over the dataclass fields that hold child nodes — about 15x cheaper than libcst's
visitor machinery, which rebuilds every node. The same walk records the nodes rules asked
for, with their context (:class:`Ctx`), so the engine can dispatch rules afterwards,
once the whole module is known (a function may be wrapped in ``tf.function`` at the
bottom of the file).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

import libcst as cst

from tflint.semantic.model import SemanticModel
from tflint.semantic.names import (COMPILE_CALLABLES, DATASET_METHODS, KERAS_COMPILE_REASON,
                                   KERAS_STEP_METHODS, KERAS_STEP_REASON, LOSS_METRIC_METHODS,
                                   PLAIN_DECORATORS, PY_FUNCTION_NAMES, REGEX_COMPILE, dotted_name,
                                   target_names)
from tflint.semantic.objects import ClassInfo, Ctx, FunctionInfo
from tflint.semantic.project import ProjectView
from tflint.semantic.syntax import child_nodes, flat_targets, is_node_type, node_fields as _fields

# The walk

_PLANS: dict[type, tuple[tuple[str, ...], bool]] = {}

_CONTEXT_TYPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.If, cst.Else, cst.For, cst.While,
                  cst.With, cst.Try, cst.ExceptHandler, cst.Finally, cst.ListComp, cst.SetComp,
                  cst.DictComp, cst.GeneratorExp, cst.Call, cst.IfExp, cst.BooleanOperation)
if hasattr(cst, "TryStar"):
    _CONTEXT_TYPES += (cst.TryStar,)  # type: ignore[attr-defined]

# ---------------------------------------------------------------------------------------
# Building the model


def build(module: cst.Module, path: str, wrappers: Iterable[str],
          interests: dict[type, list[Callable]] | None = None,
          events: list | None = None, keras_version: str = "auto",
          project: ProjectView | None = None) -> SemanticModel:
    """Walk the module once, build the model and record ``(node, ctx)`` for every node
    whose type is in ``interests`` into ``events``. Then finalize traced code.
    ``keras_version`` ("auto", "2" or "3") says which Keras runs the module's models;
    ``project`` is what the rest of the project says of this file (functions traced
    from other modules, call sites in them); without it the file stands alone."""
    sem = SemanticModel(module=module, path=path, wrappers=frozenset(wrappers), keras_version=keras_version,
                        project=project)
    _Builder(sem, interests or {}, events if events is not None else []).run()
    _finalize(sem)
    return sem


def _worth_pushing(t: type, interests: dict[type, list[Callable]]) -> bool:
    """A node type the walk must visit: one with children, a hook or a rule's interest.
    Names, numbers and strings that nothing asks for (a third of the nodes) are never
    pushed; values that are not nodes (strings, sentinels) never are either."""
    return is_node_type(t) and (bool(_fields(t)) or t in interests or t in _HOOKS)


class _Builder:
    def __init__(self, sem: SemanticModel, interests: dict[type, list[Callable]], events: list) -> None:
        self.sem = sem
        self.interests = interests
        self.events = events

    def run(self) -> None:
        sem = self.sem
        root = Ctx(None, "", None, None, None)
        sem.root_ctx = root
        interests = self.interests
        events = self.events
        plans = _PLANS
        #: per type of field value: whether to walk it (see _worth_pushing)
        push: dict[type, bool] = {}
        # iterative DFS; children pushed reversed so they pop in source order. Type
        # checks go through per-type caches: isinstance against libcst's abstract base
        # classes was a third of the walk's time.
        stack: list[tuple[cst.CSTNode, Ctx]] = [(sem.module, root)]
        while stack:
            node, ctx = stack.pop()
            t = type(node)
            if t in interests:
                events.append((node, ctx))
            hook = _HOOKS.get(t)
            if hook is not None:
                ctx = hook(self, node, ctx) or ctx
            plan = plans.get(t)
            if plan is None:
                plan = plans[t] = (_fields(t), issubclass(t, _CONTEXT_TYPES))
            names, is_context = plan
            pending: list[tuple[cst.CSTNode, Ctx]] = []
            for name in names:
                v = getattr(node, name)
                if v is None:
                    continue
                cctx = self._child_ctx(node, name, ctx) if is_context else ctx
                tv = type(v)
                if tv is tuple or tv is list:
                    for c in v:
                        tc = type(c)
                        p = push.get(tc)
                        if p is None:
                            p = push[tc] = _worth_pushing(tc, interests)
                        if p:
                            pending.append((c, cctx))
                else:
                    p = push.get(tv)
                    if p is None:
                        p = push[tv] = _worth_pushing(tv, interests)
                    if p:
                        pending.append((v, cctx))
            pending.reverse()
            stack.extend(pending)

    def _child_ctx(self, node: cst.CSTNode, name: str, ctx: Ctx) -> Ctx:
        # ``type(...) is``: libcst's node classes are ABCs, and isinstance against them
        # goes through ABCMeta on this hot path (called for every field of every call)
        fn, cls = ctx.fn, ctx.cls
        t = type(node)
        if (t is cst.FunctionDef or t is cst.Lambda) and name in ("body", "params"):
            fn = self.sem._fn_by_node[id(node)]
            cls = None
        elif t is cst.ClassDef and name == "body":
            cls = self.sem.classes_by_node[id(node)]
        return Ctx(node, name, ctx, fn, cls)

    # -- hooks: each returns an optional new ctx for the node's children

    def on_import(self, node: cst.Import, ctx: Ctx) -> None:
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind_import(alias.asname.name.value, full, ctx)
            else:
                head = full.split(".")[0]
                self._bind_import(head, head, ctx)

    def on_import_from(self, node: cst.ImportFrom, ctx: Ctx) -> None:
        if node.relative or node.module is None:
            mod = None
        else:
            mod = dotted_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            # a project module's library imports come along (``from utils import *``
            # where utils.py says ``import tensorflow as tf``); the file's own win
            if self.sem.project is not None and ctx.fn is None:
                frm = dotted_name(node.module) if node.module is not None else None
                for local, q in self.sem.project.star_imported(frm, len(node.relative)).items():
                    if local not in self.sem.imports:
                        self._bind_import(local, q, ctx)
            return
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
            if mod is not None:
                self._bind_import(local, f"{mod}.{name}", ctx)
            elif ctx.fn is not None:
                ctx.fn.bound.add(local)

    def _bind_import(self, local: str, qname: str, ctx: Ctx) -> None:
        self.sem.imports.setdefault(local, set()).add(qname)
        if ctx.fn is not None:
            ctx.fn.bound.add(local)

    def on_function(self, node: cst.FunctionDef | cst.Lambda, ctx: Ctx) -> None:
        sem = self.sem
        is_def = isinstance(node, cst.FunctionDef)
        name = node.name.value if is_def else "<lambda>"
        cls = ctx.cls if (ctx.node is not None and isinstance(ctx.node, cst.ClassDef)) else None
        info = FunctionInfo(node=node, name=name, parent=ctx.fn, cls=cls, ctx=ctx)
        ps = node.params
        all_params = list(ps.posonly_params) + list(ps.params) + list(ps.kwonly_params)
        if isinstance(ps.star_arg, cst.Param):
            all_params.append(ps.star_arg)
        if ps.star_kwarg is not None:
            all_params.append(ps.star_kwarg)
        info.params = all_params
        info.param_names = {p.name.value for p in all_params}
        sem.functions.append(info)
        sem._fn_by_node[id(node)] = info
        if ctx.fn is not None:
            ctx.fn.nested.append(info)
            if is_def:
                ctx.fn.bound.add(name)
        elif cls is None and is_def:
            if any(type(c.node) is cst.If and c.field == "body" and _is_main_guard(c.node.test)  # type: ignore[attr-defined]
                   for c in ctx.ancestors()):
                sem.main_only.add(id(info))
            sem.module_functions[name] = info
            # with how many calls came before it: a module-level call of ``name`` runs
            # the definition in effect there (a notebook redefines ``f`` cell after cell)
            sem.module_function_defs.setdefault(name, []).append((len(sem.all_calls), info))
        if cls is not None and is_def:
            cls.methods[name] = info

    def on_class(self, node: cst.ClassDef, ctx: Ctx) -> None:
        sem = self.sem
        info = ClassInfo(node=node, name=node.name.value, bases=[a.value for a in node.bases if a.keyword is None])
        sem.classes_by_node[id(node)] = info
        if ctx.fn is None and ctx.cls is None:
            sem.classes[info.name] = info
        if ctx.fn is not None:
            ctx.fn.bound.add(info.name)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, ctx: Ctx) -> None:
        fn = ctx.fn
        if type(target) is cst.Attribute and target.attr.value == "run_eagerly" and \
                isinstance(value, cst.Name) and value.value == "True":
            self.sem.run_eagerly_sets.append((target.value, fn))  # ``gan.run_eagerly = True``
        names = list(target_names(target))
        self._store_attributes(target, fn)
        if value is not None and type(target) in (cst.Tuple, cst.List):
            for n, path in _target_paths(target, ()):
                self.sem.unpacked[(id(value), n)] = path
        loop = next(ctx.loops(), None)
        if value is not None and loop is not None:
            bound = fn.loop_bound if fn is not None else self.sem.module_loop_bound if ctx.cls is None else None
            if bound is not None:
                for n in names:
                    bound.setdefault(n, []).append(loop.node)
        single = isinstance(target, cst.Name)
        if fn is None:
            if ctx.cls is None:
                for n in names:
                    lst = self.sem.module_assigns.setdefault(n, [])
                    if value is not None and single:
                        lst.append(value)
                    elif value is None or not single:
                        lst.append(cst.Name("__unknown__"))
            return
        for n in names:
            if n in fn.globals_:
                self.sem.globally_rebound.add(n)
                continue
            if n in fn.nonlocals:
                continue
            fn.bound.add(n)
            if value is not None:
                # an element unpacked from a tensor-valued tuple is judged like the whole
                fn.assigns.setdefault(n, []).append(value)
        # self.attr = value inside __init__/build: remember what the attribute holds
        if isinstance(target, cst.Attribute) and fn.cls is not None and fn.name in ("__init__", "build") and \
                isinstance(target.value, cst.Name) and target.value.value == fn.self_name and value is not None:
            fn.cls.init_attrs.setdefault(target.attr.value, []).append(value)

    def _store_attributes(self, target: cst.BaseExpression, fn: FunctionInfo | None) -> None:
        for a in flat_targets(target):
            if type(a) is not cst.Attribute:
                continue
            own = fn is not None and isinstance(a.value, cst.Name) and a.value.value == fn.self_name
            self.sem.attr_stores.setdefault(a.attr.value, []).append((fn, own))

    def on_assign(self, node: cst.Assign, ctx: Ctx) -> None:
        for t in node.targets:
            self._bind(t.target, node.value, ctx)

    def on_ann_assign(self, node: cst.AnnAssign, ctx: Ctx) -> None:
        if node.value is not None:
            self._bind(node.target, node.value, ctx)

    def on_aug_assign(self, node: cst.AugAssign, ctx: Ctx) -> None:
        self._store_attributes(node.target, ctx.fn)
        if isinstance(node.target, cst.Name):
            fn = ctx.fn
            n = node.target.value
            if fn is None:
                if ctx.cls is None:
                    self.sem.module_assigns.setdefault(n, []).append(
                        cst.BinaryOperation(node.target, _binary_operator(node.operator), node.value))
            elif n in fn.globals_:
                self.sem.globally_rebound.add(n)
            elif n not in fn.nonlocals:
                fn.bound.add(n)
                fn.assigns.setdefault(n, []).append(cst.BinaryOperation(node.target, _binary_operator(node.operator), node.value))
            loop = next(ctx.loops(), None)
            if loop is not None:
                bound = fn.loop_bound if fn is not None else self.sem.module_loop_bound if ctx.cls is None else None
                if bound is not None:
                    bound.setdefault(n, []).append(loop.node)

    def on_for(self, node: cst.For, ctx: Ctx) -> None:
        self._bind(node.target, None, ctx)
        if ctx.fn is not None:
            for n in target_names(node.target):
                ctx.fn.loop_targets.setdefault(n, []).append(node.iter)
        elems = ctx.fn.loop_elems if ctx.fn is not None else self.sem.module_loop_elems \
            if ctx.cls is None else None
        if elems is not None:
            for n, path in _target_paths(node.target, ()):
                elems.setdefault(n, []).append((node.iter, path))

    def on_with(self, node: cst.With, ctx: Ctx) -> None:
        for item in node.items:
            if item.asname is not None:
                self._bind(item.asname.name, None, ctx)

    def on_named_expr(self, node: cst.NamedExpr, ctx: Ctx) -> None:
        self._bind(node.target, node.value, ctx)

    def on_global(self, node: cst.Global, ctx: Ctx) -> None:
        if ctx.fn is not None:
            ctx.fn.globals_.update(n.name.value for n in node.names)

    def on_nonlocal(self, node: cst.Nonlocal, ctx: Ctx) -> None:
        if ctx.fn is not None:
            ctx.fn.nonlocals.update(n.name.value for n in node.names)

    def on_except(self, node: cst.ExceptHandler, ctx: Ctx) -> None:
        if node.name is not None:
            self._bind(node.name.name, None, ctx)

    def on_return(self, node: cst.Return, ctx: Ctx) -> None:
        if ctx.fn is not None and node.value is not None:
            ctx.fn.returns.append(node.value)

    def on_call(self, node: cst.Call, ctx: Ctx) -> None:
        self.sem.call_index[id(node)] = len(self.sem.all_calls)
        self.sem.all_calls.append((node, ctx))
        if ctx.fn is not None:
            ctx.fn.calls.append((node, ctx))


_HOOKS: dict[type, Callable] = {
    cst.Import: _Builder.on_import,
    cst.ImportFrom: _Builder.on_import_from,
    cst.FunctionDef: _Builder.on_function,
    cst.Lambda: _Builder.on_function,
    cst.ClassDef: _Builder.on_class,
    cst.Assign: _Builder.on_assign,
    cst.AnnAssign: _Builder.on_ann_assign,
    cst.AugAssign: _Builder.on_aug_assign,
    cst.For: _Builder.on_for,
    cst.With: _Builder.on_with,
    cst.NamedExpr: _Builder.on_named_expr,
    cst.Global: _Builder.on_global,
    cst.Nonlocal: _Builder.on_nonlocal,
    cst.ExceptHandler: _Builder.on_except,
    cst.Call: _Builder.on_call,
    cst.Return: _Builder.on_return,
}


def _binary_operator(op: cst.BaseAugOp) -> cst.BaseBinaryOp:
    """``+=`` -> ``+``: an augmented assignment is recorded as the binary operation it does."""
    name = type(op).__name__
    cls = getattr(cst, name[:-len("Assign")], None) if name.endswith("Assign") else None
    return cls() if cls is not None else cst.Add()


def _target_paths(t: cst.BaseExpression, path: tuple[int, ...]) -> Iterator[tuple[str, tuple[int, ...]]]:
    """Each name of a loop target with its position: ``i, (x, y)`` gives ``i`` (0,),
    ``x`` (1, 0), ``y`` (1, 1); a starred name gets no position past the star."""
    if isinstance(t, cst.Name):
        yield t.value, path
    elif isinstance(t, (cst.Tuple, cst.List)):
        for i, e in enumerate(t.elements):
            if isinstance(e, cst.StarredElement):
                yield from ((n, path + (-1,)) for n in target_names(e.value))
            else:
                yield from _target_paths(e.value, path + (i,))


def _decorator_expr(d: cst.Decorator) -> tuple[cst.BaseExpression, cst.Call | None]:
    e = d.decorator
    if isinstance(e, cst.Call):
        return e.func, e
    return e, None


#: decorators that hand the call's arguments on as they are (as written)
_PLAIN_DECORATORS = PLAIN_DECORATORS | {"abc.abstractmethod", "functools.wraps", "wraps"}


def _has_kw(call: cst.Call | None, name: str) -> bool:
    return call is not None and any(a.keyword is not None and a.keyword.value == name and
                                    not (isinstance(a.value, cst.Name) and a.value.value == "None")
                                    for a in call.args)


_SHOW_CODE = frozenset({"tensorflow.autograph.to_code", "tensorflow.autograph.to_graph"})


def _only_shown_as_code(sem: SemanticModel, fns: list[FunctionInfo]) -> list[FunctionInfo]:
    """The module-level tf.functions of ``fns`` that are never called, only shown: every
    mention of the name but its ``def`` reads ``f.python_function`` or is the argument
    of ``tf.autograph.to_code``/``to_graph``, and no other module of the project names it.
    They are never traced (a course cell that prints AutoGraph's converted source of
    ``fizzbuzz``, held-out set 104). One walk over the module for all of them."""
    if not fns:
        return []
    by_name = {f.name: f for f in fns}
    defs = {id(f.node) for f in fns}
    shown: set[str] = set()
    other: set[str] = set()
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(sem.module, None)]
    while stack:
        n, parent = stack.pop()
        if type(n) is cst.Name:
            name = n.value  # type: ignore[attr-defined]
            if name in by_name and not (parent is not None and id(parent) in defs):
                if isinstance(parent, cst.Attribute) and parent.value is n and parent.attr.value == "python_function":
                    shown.add(name)
                elif not isinstance(parent, cst.Arg):  # an argument is judged with its call
                    other.add(name)
            continue
        if type(n) is cst.Call:
            for a in n.args:  # type: ignore[attr-defined]
                if isinstance(a.value, cst.Name) and a.value.value in by_name:
                    if sem.resolves_to(n.func, _SHOW_CODE):  # type: ignore[attr-defined]
                        shown.add(a.value.value)
                    else:
                        other.add(a.value.value)
        stack.extend((c, n) for c in child_nodes(n))
    names = shown - other
    if not names or sem.project is None:
        return []
    return [by_name[n] for n in sorted(names) if sem.project.never_used_elsewhere({n})]


def _wrappers_under_tf_function(sem: SemanticModel, fn: FunctionInfo, py_wrappers) -> None:
    """A decorator of this module written below ``@tf.function`` (applied first) whose
    function returns a function it defines: ``tf.function`` traces that wrapper, and a
    ``time.time()`` or ``print`` in it runs once per trace (set 118's ``@timing_dec``)."""
    if not fn.tf_function_decorated or fn.ctx is None:
        return
    below = False
    for d in fn.node.decorators:  # type: ignore[union-attr]
        expr, call = _decorator_expr(d)
        if sem.is_tf_function_expr(expr):
            below = True
            continue
        if not below or call is not None or (dotted_name(expr) or "") in _PLAIN_DECORATORS or \
                sem.resolves_to(expr, PY_FUNCTION_NAMES) or _is_py_function_wrapper(sem, expr, py_wrappers):
            continue
        wrapper = _callable_target(sem, cst.Call(func=expr), fn.ctx, factories=True)
        if wrapper is not None and wrapper.root_reason is None and not wrapper.py_function_target:
            wrapper.root_reason = f"wraps `{fn.name}` in the `@{dotted_name(expr)}` decorator, which `@tf.function` traces"


def _finalize(sem: SemanticModel) -> None:
    """Mark graph roots, then close over callees and nested functions."""
    py_wrappers = _py_function_wrappers(sem)
    # 1. decorators
    for fn in sem.functions:
        if isinstance(fn.node, cst.FunctionDef):
            above = False  # a decorator above this one (applied after it, around it)
            for d in fn.node.decorators:
                expr, call = _decorator_expr(d)
                if sem.is_tf_function_expr(expr):
                    fn.outer_decorated = above
                    fn.tf_function = True
                    fn.tf_function_decorated = True
                    fn.root_reason = "tf.function"
                    fn.has_input_signature = _has_kw(call, "input_signature")
                elif sem.resolves_to(expr, PY_FUNCTION_NAMES) or _is_py_function_wrapper(sem, expr, py_wrappers):
                    fn.py_function_target = True  # @tf.py_function(Tout=...), @numpy_op
                if (dotted_name(expr) or "") not in _PLAIN_DECORATORS:
                    above = True
            _wrappers_under_tf_function(sem, fn, py_wrappers)
    for fn in _only_shown_as_code(sem, [f for f in sem.functions if f.tf_function_decorated and f.parent is None
                                         and f.cls is None]):
        fn.root_reason = None
    # 2. wrapping calls and tf.data / py_function arguments
    eager_in_functions = switched_off = False
    for call, ctx in sem.all_calls:
        func = call.func
        if sem.is_tf_function_expr(func) and call.args:
            target = _callable_target(sem, call.args[0].value, ctx)
            if target is not None:
                target.tf_function = True
                target.wrapped_at.append(ctx)
                target.root_reason = target.root_reason or "tf.function"
                if _has_kw(call, "input_signature") or len(call.args) > 1 and call.args[1].keyword is None:
                    target.has_input_signature = True
            continue
        switch = sem.run_eagerly_switch(call)
        if switch is False:
            switched_off = True
        elif switch and ctx.fn is None:
            sem.functions_run_eagerly = True
            continue
        elif switch and _statement_of_body(call, ctx.fn):
            eager_in_functions = True
            continue
        if sem.resolves_to(func, PY_FUNCTION_NAMES) or _is_py_function_wrapper(sem, func, py_wrappers) or \
                _py_function_alias(sem, func, ctx):
            for a in call.args:
                if a.keyword is None or a.keyword.value in ("func", "f"):
                    t = _callable_target(sem, a.value, ctx, factories=True)
                    if t is not None:
                        t.py_function_target = True
                    break
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in DATASET_METHODS:
            pos = DATASET_METHODS[func.attr.value]
            arg = _dataset_fn_arg(call, pos)
            if arg is not None and sem.is_dataset_expr(func.value, ctx.fn):
                t = _callable_target(sem, arg, ctx, factories=True)
                for t in [t] if t is not None else loop_functions(sem, arg, ctx.fn):
                    if t.root_reason is None:
                        t.root_reason = f"passed to `Dataset.{func.attr.value}`, which always traces it as a graph"
    if sem.project is not None and not sem.functions_run_eagerly and any(
            sem.project.switches_eager_on(q) for cls in sem.classes.values() for b in cls.bases
            for q in sem.qualified(b)):
        # ``class PINN(NN)`` with ``NN.__init__`` in another module switching eager on
        sem.functions_run_eagerly = True
    if sem.project is not None and not sem.functions_run_eagerly and (
            any(f.root_reason == "tf.function" for f in sem.functions) or
            any(m in cls.methods for cls in sem.classes.values() for m in KERAS_STEP_METHODS)) and \
            sem.project.runs_eagerly():
        # every entry point that imports this module switches eager on, or a module it
        # imports does so when it is imported
        sem.functions_run_eagerly = True
    if eager_in_functions and not switched_off:
        # ``tf.config.run_functions_eagerly(True)`` as a statement of a function's body (a
        # constructor, a ``setup()`` run before the work), never switched off in the module:
        # the module means its tf.functions to run as Python
        sem.functions_run_eagerly = True
    # 3. Keras *_step overrides, unless the module only ever calls them itself
    called_directly = _steps_called_only_directly(sem)
    for cls in sem.classes.values():
        if any(m in cls.methods for m in KERAS_STEP_METHODS) and sem.is_keras_model_class(cls):
            for m in KERAS_STEP_METHODS:
                f = cls.methods.get(m)
                if f is not None and f.root_reason is None and (id(cls), m) not in called_directly and \
                        _keras_can_call(f):
                    f.root_reason = KERAS_STEP_REASON
    # 3a. losses and metrics handed to ``compile``: ``fit``/``evaluate`` call them in their graph
    for f in _compiled_losses_and_metrics(sem):
        if f.root_reason is None and not f.py_function_target:
            f.root_reason = KERAS_COMPILE_REASON
    # 3b. functions that traced code in another module of the project calls
    if sem.project is not None:
        for name, via in sem.project.traced_from_elsewhere().items():
            f = sem.function_named(name)
            if f is not None and f.root_reason is None and not f.py_function_target and not f.traced:
                f.root_reason = via.describe()
    # 4. closure over calls and nesting; with ``tf.config.run_functions_eagerly(True)`` at
    # module level, tf.functions and Keras steps run as Python: only tf.data still traces
    # (a ``@tf.function`` that ``tf.py_function`` runs is still a tf.function: it traces)
    work = [f for f in sem.functions if f.root_reason is not None and
            not (f.py_function_target and not f.tf_function_decorated) and
            not (sem.functions_run_eagerly and f.root_reason in ("tf.function", KERAS_STEP_REASON, KERAS_COMPILE_REASON))]
    for f in work:
        f.traced = True
    while work:
        f = work.pop()
        only_py = _names_only_py_functions_use(sem, f) if any(n.py_function_target for n in f.nested) else set()
        for nested in f.nested:
            if not nested.traced and not nested.py_function_target and nested.cls is None and \
                    nested.name not in only_py:
                nested.traced = True
                work.append(nested)
        for call, ctx in f.calls:
            if not sem.is_traced(ctx) and ctx.fn is f:
                continue
            callee = sem.resolve_callee(call, ctx.fn) or _instance_call(sem, call, ctx) or \
                _replica_fn(sem, call, ctx)
            for callee in [callee] if callee is not None else loop_functions(sem, call.func, ctx.fn):
                if not callee.traced and not callee.py_function_target and \
                        callee.name not in ("__init__", "build"):
                    callee.traced = True
                    callee.via = (f, call)
                    callee.via_guard = sem.enclosing_guard(ctx)
                    work.append(callee)
                elif callee.traced and callee.via_guard is not None and sem.enclosing_guard(ctx) is None:
                    callee.via_guard = None  # also called unguarded
        # contexts cached before all roots were known must be recomputed
    for _, ctx in sem.all_calls:
        ctx._traced = None


def _statement_of_body(call: cst.Call, fn: FunctionInfo) -> bool:
    """Is ``call`` a statement of ``fn``'s own body, run whenever ``fn`` runs (not under
    an ``if``, a loop or a ``try``)?"""
    body = fn.node.body if isinstance(fn.node, cst.FunctionDef) else None
    return isinstance(body, cst.IndentedBlock) and any(
        isinstance(st, cst.SimpleStatementLine) and any(isinstance(sm, cst.Expr) and sm.value is call for sm in st.body)
        for st in body.body)


def _names_only_py_functions_use(sem: SemanticModel, f: FunctionInfo) -> set[str]:
    """Names that ``f``'s body uses only inside its nested ``py_function`` targets (a helper
    ``_bytes`` that only the ``tf.py_function``'d ``_serialize`` calls): functions of those
    names run in Python with the target, not in ``f``'s trace."""
    inside: set[str] = set()
    outside: set[str] = set()
    stack: list[tuple[cst.CSTNode, bool]] = [(k, False) for k in child_nodes(f.node)]
    while stack:
        n, in_py = stack.pop()
        t = type(n)
        if t is cst.Name:
            (inside if in_py else outside).add(n.value)  # type: ignore[attr-defined]
            continue
        if t is cst.FunctionDef or t is cst.Lambda:
            info = sem.function_of(n)
            in_py = in_py or (info is not None and info.py_function_target)
            if t is cst.FunctionDef:
                stack.extend((k, in_py) for k in child_nodes(n) if k is not n.name)  # type: ignore[attr-defined]
                continue
        stack.extend((k, in_py) for k in child_nodes(n))
    return inside - outside


#: the Keras entry point that runs each step method under tf.function
_STEP_ENTRY = {"train_step": ("fit",), "test_step": ("fit", "evaluate"), "predict_step": ("predict",)}


def _instance_call(sem: SemanticModel, call: cst.Call, ctx: Ctx) -> FunctionInfo | None:
    """``model(x)`` where ``model`` is an instance of a class of this module: its
    ``call`` (a Keras layer or model) or ``__call__``; ``obj.method(x)`` on such an
    instance: that method."""
    func = call.func
    if not isinstance(func, (cst.Name, cst.Attribute)):
        return None
    # ``self(x, training=True)`` in a ``train_step``: the class's own ``call``
    cls = (ctx.fn.class_of_self(func) if ctx.fn is not None else None) or sem.instance_class(func, ctx.fn)
    if cls is None:
        if isinstance(func, cst.Attribute) and isinstance(func.value, (cst.Name, cst.Attribute)):
            # ``self.scheduler.step()`` with ``self.scheduler = LrScheduler()``: the method
            return sem.instance_method(func, ctx.fn)
        return None
    method = sem.method_of(cls, "__call__")
    if method is None and (sem.is_keras_layer_class(cls) or sem.is_keras_loss_class(cls)):
        method = sem.method_of(cls, "call")
    return method


def _compiled_losses_and_metrics(sem: SemanticModel) -> list[FunctionInfo]:
    """The functions of this module that ``model.compile(loss=..., metrics=[...])`` hands
    Keras (a name, a factory's inner function, an element of a list or dict display), and
    the methods Keras calls on an instance of a loss or metric class of the module
    (``loss=FocalLoss()``): ``fit`` and ``evaluate`` trace them with the step (checked on
    TensorFlow 2.21: a loss's ``print`` runs at trace only, and Keras 3 runs them without
    AutoGraph, so a metric's Python ``if`` on a tensor fails inside ``fit``). Only where
    this module or one importing it runs ``fit``/``evaluate``/``*_on_batch``, and not
    for a ``compile(..., run_eagerly=...)``."""
    compiles = [(call, ctx) for call, ctx in sem.all_calls
                if isinstance(call.func, cst.Attribute) and call.func.attr.value == "compile" and
                any(a.keyword is not None and a.keyword.value in COMPILE_CALLABLES for a in call.args) and
                not any(a.keyword is not None and a.keyword.value == "run_eagerly" for a in call.args) and
                not sem.resolves_to(call.func, REGEX_COMPILE) and not _own_compile(sem, call.func, ctx)]
    if not compiles or _tf1_graph_code(sem):
        return []
    use = sem.project.keras_step_use() if sem.project is not None else None
    if use is None:
        from tflint.semantic.project import keras_step_use_text

        use = keras_step_use_text(sem.module.code)
    if not use.entries or use.eager_compiles:
        return []
    out: list[FunctionInfo] = []
    for call, ctx in compiles:
        todo = [a.value for a in call.args if a.keyword is not None and a.keyword.value in COMPILE_CALLABLES]
        while todo:
            e = todo.pop()
            if isinstance(e, (cst.List, cst.Tuple)):
                todo.extend(el.value for el in e.elements)
                continue
            if isinstance(e, cst.Dict):
                todo.extend(el.value for el in e.elements if isinstance(el, cst.DictElement))
                continue
            if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and sem.binding_of(e.func.value, ctx.fn) is None \
                    and e.func.value in sem.classes:
                cls = sem.classes[e.func.value]
                out.extend(m for name in LOSS_METRIC_METHODS for m in [sem.method_of(cls, name)] if m is not None)
                continue
            made = sem.constructed_classes(e, ctx.fn) if isinstance(e, cst.Name) else None
            if made:  # ``loss_fn = FocalLoss(gamma=g)`` then ``compile(loss=loss_fn)``
                out.extend(m for c in made if isinstance(c, ClassInfo)
                           for name in LOSS_METRIC_METHODS for m in [sem.method_of(c, name)] if m is not None)
                continue
            t = _callable_target(sem, e, ctx, factories=True)
            if t is not None and (t.cls is None or isinstance(e, cst.Attribute) and _loss_like_method(t)):
                out.append(t)  # a function, or a bound method (``loss=self.test_loss``, set 126)
    return out


def _loss_like_method(fn: FunctionInfo) -> bool:
    """A method Keras can call as a loss or metric: it takes ``y_true`` and ``y_pred`` after
    ``self``, and is no property (``metrics=self.metrics_for_keras``, a lazy property that
    returns metric objects, set 67)."""
    if not isinstance(fn.node, cst.FunctionDef) or fn.name in ("__init__", "build") or any(
            "property" in (dotted_name(d.decorator) or "").lower() for d in fn.node.decorators):
        return False
    params = fn.node.params
    return len(params.params) + len(params.posonly_params) >= 3 or isinstance(params.star_arg, cst.Param)


def _own_compile(sem: SemanticModel, func: cst.Attribute, ctx: Ctx) -> bool:
    """Is ``model.compile`` a method of this module's classes, none a Keras model (a
    NumPy ``ScratchNet`` with its own ``compile(loss=SquaredError())`` and ``fit``; held-out
    set 82)?"""
    made = sem.constructed_classes(func.value, ctx.fn)
    return bool(made) and all(isinstance(c, ClassInfo) and not sem.is_keras_model_class(c) for c in made)  # type: ignore[union-attr]


#: TensorFlow 1 names that TensorFlow 2 has only under ``tf.compat.v1``
_TF1_ONLY = frozenset({"tensorflow.Session", "tensorflow.InteractiveSession", "tensorflow.placeholder",
                       "tensorflow.get_variable", "tensorflow.variable_scope"})


def _tf1_graph_code(sem: SemanticModel) -> bool:
    """Does the module call TensorFlow 1 names (``tf.Session``, ``tf.placeholder``,
    ``tf.train.AdamOptimizer()``)? It runs on TensorFlow 1, where Keras builds one graph
    from what ``compile`` is given, no ``tf.function`` (a 2018 notebook whose IoU metric
    applies NumPy to the symbolic tensors, and trains; held-out set 12)."""
    for call, _ in sem.all_calls:
        for q in sem.qualified(call.func):
            if q in _TF1_ONLY or q.startswith("tensorflow.train.") and q.endswith("Optimizer"):
                return True
    return False


def _steps_called_only_directly(sem: SemanticModel) -> set[tuple[int, str]]:
    """(id(class), step method) for the steps the module calls itself
    (``model.train_step(batch)`` in a Python loop) and never through the Keras method that
    traces them (``fit``) on an instance that may be of that class: they run eagerly. A
    ``fit`` on a model the module knows to be of another class (``tf.keras.Model(...)``
    from a helper, another model class) does not run them. Also the steps of a model
    compiled with ``run_eagerly=True`` (or given ``model.run_eagerly = True``), and of a
    class that overrides ``fit`` itself (the
    steps its own ``fit`` calls included). In a project, the modules that import this one
    count too: their direct step calls when none of them (nor this module) runs a step
    through ``fit``/``evaluate``/``*_on_batch``, and their ``compile`` calls when every
    one says ``run_eagerly=True``."""
    direct: set[str] = set()
    entries: list[tuple[str, frozenset | None]] = []
    eager: list[frozenset | None] = []
    for obj, fn in sem.run_eagerly_sets:
        # ``model.run_eagerly = True`` (or ``self.run_eagerly = True`` in the class): as
        # ``compile(..., run_eagerly=True)``
        cls = fn.class_of_self(obj) if fn is not None else None
        eager.append(frozenset({cls}) if cls is not None else sem.constructed_classes(obj, fn))
    for call, ctx in sem.all_calls:
        func = call.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            in_class = ctx.fn is not None and any(f.cls is not None for f in ctx.fn.scope_chain())
            if name in _STEP_ENTRY and not in_class:
                direct.add(name)  # ``model.train_step(batch)`` from a script or a plain function
            elif name in ("fit", "evaluate", "predict"):
                entries.append((name, sem.constructed_classes(func.value, ctx.fn)))
            elif name == "compile" and any(a.keyword is not None and a.keyword.value == "run_eagerly" and
                                           isinstance(a.value, cst.Name) and a.value.value == "True"
                                           for a in call.args):
                eager.append(sem.constructed_classes(func.value, ctx.fn))
    # the modules that import this one hold its models too (``model.compile(...,
    # run_eagerly=True)`` in ``train.py``, ``agent.train_step()`` in ``main.py``); their text
    # is read only for a module that defines a step
    use = sem.project.keras_step_use() if sem.project is not None and any(
        m in cls.methods for cls in sem.classes.values() for m in KERAS_STEP_METHODS) else None
    out: set[tuple[int, str]] = set()
    for cls in sem.classes.values():
        if use is not None and use.eager_compiles and use.eager_compiles == use.compiles:
            # every ``compile`` of the module and its importers says ``run_eagerly=True``
            out.update((id(cls), m) for m in KERAS_STEP_METHODS)
            continue
        if use is not None and not use.entries:
            # steps called as plain methods, and nothing in reach runs one under tf.function
            out.update((id(cls), m) for m in use.direct if m in cls.methods)
        if any(kinds is None or any(isinstance(k, ClassInfo) and _derives_from(sem, k, cls) for k in kinds)
               for kinds in eager):
            # ``model.compile(..., run_eagerly=True)``: fit runs the steps as Python (a model
            # of unknown class may be any of the module's)
            out.update((id(cls), m) for m in KERAS_STEP_METHODS)
            continue
        for m in KERAS_STEP_METHODS:
            # a class that overrides every Keras method that would run the step (``fit``
            # for ``train_step``) without calling Keras' own: Keras never runs the step
            entry = _STEP_ENTRY.get(m, ())
            if entry and all(e in cls.methods and not _calls_super(cls.methods[e], e) for e in entry):
                out.add((id(cls), m))
            # a class whose own ``fit`` (not Keras') calls ``self.test_step(...)`` itself:
            # the step belongs to that Python loop, not to Keras' ``evaluate``
            elif m in cls.methods and "fit" in cls.methods and not _calls_super(cls.methods["fit"], "fit") \
                    and _calls_self_method(cls.methods["fit"], m):
                out.add((id(cls), m))
        for m in direct:
            if m in cls.methods and not any(
                    e in _STEP_ENTRY[m] and (kinds is None or any(
                        isinstance(k, ClassInfo) and _derives_from(sem, k, cls) for k in kinds))
                    for e, kinds in entries):
                out.add((id(cls), m))
    return out


def _keras_can_call(fn) -> bool:
    """Can Keras call this step as it does, ``step(data)``? A ``train_step(self, input,
    target)`` with two required parameters is the class's own method of that name,
    called by the code that wrote it."""
    required = [p for p in fn.params if not p.star and p.default is None]
    return len(required) <= 2 or any(p.star == "*" for p in fn.params)


def _calls_self_method(fn, name: str) -> bool:
    """Does ``fn`` call ``self.name(...)``?"""
    return any(isinstance(call.func, cst.Attribute) and call.func.attr.value == name and
               isinstance(call.func.value, cst.Name) and call.func.value.value == "self" for call, _ in fn.calls)


def _calls_super(fn, name: str) -> bool:
    """Does ``fn`` call ``super().name(...)`` (or ``super(Cls, self).name(...)``)?"""
    for call, _ in fn.calls:
        f = call.func
        if isinstance(f, cst.Attribute) and f.attr.value == name and isinstance(f.value, cst.Call) and \
                isinstance(f.value.func, cst.Name) and f.value.func.value == "super":
            return True
    return False


def _derives_from(sem: SemanticModel, cls: ClassInfo, base: ClassInfo, _depth: int = 0) -> bool:
    """``cls`` is ``base`` or a subclass of it defined in this module."""
    if cls is base:
        return True
    if _depth > 8:
        return False
    return any(isinstance(b, cst.Name) and b.value in sem.classes and
               _derives_from(sem, sem.classes[b.value], base, _depth + 1) for b in cls.bases)


def _py_function_wrappers(sem: SemanticModel) -> set[str]:
    """Module functions that wrap the function they are given in ``tf.py_function`` /
    ``tf.numpy_function`` (``def numpy_op(f): return lambda x: tf.numpy_function(f, [x], ...)``):
    what they wrap runs as Python, eagerly, never traced."""
    out: set[str] = set()
    for name, fn in sem.module_functions.items():
        if not fn.params or fn.params[0].star:
            continue
        first = fn.params[0].name.value
        todo = [fn]
        while todo:
            f = todo.pop()
            todo.extend(f.nested)
            for call, _ in f.calls:
                if sem.resolves_to(call.func, PY_FUNCTION_NAMES):
                    arg = next((a for a in call.args if a.keyword is None or a.keyword.value in ("func", "f")), None)
                    if arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == first:
                        out.add(name)
    return out


def _is_py_function_wrapper(sem: SemanticModel, expr: cst.BaseExpression, wrappers: set[str]) -> bool:
    return isinstance(expr, cst.Name) and expr.value in wrappers and expr.value in sem.module_functions


def _dataset_fn_arg(call: cst.Call, pos: int | None) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value in ("map_func", "predicate", "reduce_func", "scan_func",
                                                         "key_func", "window_reduce_func"):
            return a.value
    positional = [a for a in call.args if a.keyword is None]
    if pos is not None and len(positional) > pos:
        return positional[pos].value
    return None


def _py_function_alias(sem: SemanticModel, func: cst.BaseExpression, ctx: Ctx) -> bool:
    """A name every binding of which is ``tf.py_function`` / ``tf.numpy_function`` (``wrap =
    tf.py_function``, or one of them chosen by ``if``): calling it runs the function
    eagerly, as the real name would."""
    if not isinstance(func, cst.Name):
        return False
    values = list(sem._bindings_of(func.value, ctx.fn)[1])
    flat: list[cst.BaseExpression] = []
    while values:
        v = values.pop()
        if isinstance(v, cst.IfExp):  # ``tf.py_function if eager else tf.numpy_function``
            values += [v.body, v.orelse]
        else:
            flat.append(v)
    return bool(flat) and all(sem.resolves_to(v, PY_FUNCTION_NAMES) for v in flat)


def _replica_fn(sem: SemanticModel, call: cst.Call, ctx: Ctx) -> FunctionInfo | None:
    """The function a distribution strategy runs on each replica, called from traced code
    (``strategy.run(self.train_step, args=(x,))`` in a tf.function): traced with its
    caller, as a call would be."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in _REPLICA_RUNS and call.args):
        return None
    if "strategy" not in (dotted_name(func.value) or "").lower() and \
            not any(q.startswith("tensorflow.distribute.") for q in sem.qualified(func.value)):
        return None
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "fn"), call.args[0])
    return _callable_target(sem, arg.value, ctx) if arg.keyword is None or arg.keyword.value == "fn" else None


#: the methods of a distribution strategy (or its ``extended``) that run a function per replica
_REPLICA_RUNS = frozenset({"run", "experimental_run_v2", "call_for_each_replica"})


def _callable_target(sem: SemanticModel, expr: cst.BaseExpression, ctx: Ctx,
                     factories: bool = False) -> FunctionInfo | None:
    """The function of this module that ``expr`` (an argument) denotes: a lambda, a name,
    ``self.method`` or ``functools.partial(f, ...)``; with ``factories``, also the inner
    function that a call of a factory of this module returns (``py_func(get_loader(),
    ...)`` with ``def get_loader(): def load(path): ...; return load``)."""
    if isinstance(expr, cst.Lambda):
        return sem.function_of(expr)
    if isinstance(expr, cst.Call):
        d = dotted_name(expr.func) or ""
        if d in ("functools.partial", "partial") and expr.args:
            return _callable_target(sem, expr.args[0].value, ctx, factories)
        if factories:
            factory = sem.resolve_callee(expr, ctx.fn)
            if factory is not None and isinstance(factory.node, cst.FunctionDef) and factory.returns:
                inner = {id(t): t for r in factory.returns if isinstance(r, cst.Name)
                         for t in [sem.resolve_callee(cst.Call(func=r), factory)] if t is not None}
                if len(inner) == 1 and len(factory.returns) == len([r for r in factory.returns
                                                                    if isinstance(r, cst.Name)]):
                    got = next(iter(inner.values()))
                    return got if got.parent is factory else None
        return None
    if isinstance(expr, (cst.Name, cst.Attribute)):
        got = sem.resolve_callee(cst.Call(func=expr), ctx.fn)
        if got is None and factories and isinstance(expr, cst.Name):
            # ``load = self._make_loader(...)`` then ``py_func(load, ...)``; or a module's
            # ``load_function = load_train_image()`` handed to ``ds.map`` anywhere
            binding = sem.binding_of(expr.value, ctx.fn)
            values = ctx.fn.assigns.get(expr.value, []) if binding is not None and binding[0] == "local" and \
                ctx.fn is not None else sem.module_assigns.get(expr.value, []) if binding == ("module", None) else []
            if len(values) == 1 and isinstance(values[0], cst.Call):
                return _callable_target(sem, values[0], ctx, factories)
        return got
    return None


def loop_functions(sem: SemanticModel, expr: cst.BaseExpression, fn: FunctionInfo | None) -> list[FunctionInfo]:
    """The functions of this module that a loop variable ``expr`` takes, when its every
    binding is a ``for`` over a list or tuple display naming them: ``for aug in [flip,
    jitter]: ds = ds.map(aug)``, or ``for name, aug in [("flip", flip), ...]``. Empty for
    anything else (a name also assigned, a parameter, a loop over another iterable)."""
    if not isinstance(expr, cst.Name):
        return []
    name = expr.value
    binding = sem.binding_of(name, fn)
    if binding is None:
        return []
    owner = binding[1]
    if owner is not None:
        if owner.assigns.get(name) or name in owner.param_names:
            return []
        elems = owner.loop_elems.get(name, [])
    else:
        elems = sem.module_loop_elems.get(name, [])
        if len(sem.module_assigns.get(name, ())) != len(elems):
            return []  # also bound otherwise
    out: dict[int, FunctionInfo] = {}
    for it, path in elems:
        if not isinstance(it, (cst.List, cst.Tuple)):
            return []
        for el in it.elements:
            if not isinstance(el, cst.Element):
                return []
            v: cst.BaseExpression = el.value
            for i in path:
                if not (isinstance(v, (cst.List, cst.Tuple)) and i < len(v.elements) and
                        isinstance(v.elements[i], cst.Element)):
                    return []
                v = v.elements[i].value
            if isinstance(v, (cst.Name, cst.Attribute)):
                got = sem.resolve_callee(cst.Call(func=v), owner)
                if got is not None:
                    out[id(got)] = got
    return list(out.values())


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round): code that runs only as a script,
    never when another module imports this one."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and
            isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return any(isinstance(e, cst.Name) and e.value == "__name__" for e in sides) and \
        any(isinstance(e, cst.SimpleString) and e.evaluated_value == "__main__" for e in sides)
