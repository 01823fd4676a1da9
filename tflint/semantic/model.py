"""The per-file TensorFlow model: one object that every rule asks (which code is traced,
what names resolve to, what a value is). Its judgements live in mixins, one concern per
module: :mod:`.values` (what an expression is), :mod:`.execution` (when a line runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import libcst as cst
from libcst._position import CodeRange

from tflint.semantic.execution import ExecutionJudgements
from tflint.semantic.names import KERAS_MODEL_BASES, TF_FUNCTION_NAMES, canonical, dotted_name, is_container_value
from tflint.semantic.objects import ClassInfo, Ctx, FunctionInfo
from tflint.semantic.project import ExternalCall, ProjectView
from tflint.semantic.syntax import name_nodes
from tflint.semantic.values import ValueFlow, ValueJudgements


_NO_NAMES: frozenset[str] = frozenset()
#: questions for one node's position answered alone before every range is computed
_SINGLE_POSITIONS = 3


@dataclass(eq=False)
class SemanticModel(ValueFlow, ValueJudgements, ExecutionJudgements):
    module: cst.Module
    path: str
    wrappers: frozenset[str] = frozenset()
    #: which Keras runs the module's models: "auto" (from the imports), "2" or "3"
    keras_version: str = "auto"
    #: ``tf.config.run_functions_eagerly(True)`` at module level
    functions_run_eagerly: bool = False
    #: (object, enclosing function) of each ``model.run_eagerly = True``
    run_eagerly_sets: list = field(default_factory=list)
    #: what the rest of the project says of this file (None: the file stands alone)
    project: ProjectView | None = None
    #: local name -> qualified names it may stand for (several for conditional imports)
    imports: dict[str, set[str]] = field(default_factory=dict)
    functions: list[FunctionInfo] = field(default_factory=list)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    module_functions: dict[str, FunctionInfo] = field(default_factory=dict)
    #: name -> every module-level definition of it, in source order, each with the
    #: number of calls before it (see :meth:`resolve_callee`)
    module_function_defs: dict[str, list[tuple[int, FunctionInfo]]] = field(default_factory=dict)
    #: ids of the module-level functions defined under ``if __name__ == "__main__":``
    main_only: set[int] = field(default_factory=set)
    #: id(call) -> its place among ``all_calls`` (source order)
    call_index: dict[int, int] = field(default_factory=dict)
    #: module-level name -> every value bound to it at module level
    module_assigns: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    #: module-level loop targets and names assigned in module-level loops (see FunctionInfo)
    module_loop_elems: dict[str, list[tuple[cst.BaseExpression, tuple[int, ...]]]] = field(default_factory=dict)
    module_loop_bound: dict[str, list[cst.CSTNode]] = field(default_factory=dict)
    #: (id(value), name) -> position of ``name`` in the tuple target the value is unpacked
    #: into (``loss, grads = ...`` gives ``grads`` (1,))
    unpacked: dict[tuple[int, str], tuple[int, ...]] = field(default_factory=dict)
    #: the value model's memo: (id(expr), id(fn)) -> Value (see :mod:`.values`)
    _values: dict = field(default_factory=dict)
    _returns: dict = field(default_factory=dict)
    _params: dict = field(default_factory=dict)
    #: answers of the value model computed past its depth limit: kept only for the
    #: question being answered (see ValueFlow._remember), with the count of cuts so far
    #: and how many questions are open
    _cut_memo: dict = field(default_factory=dict)
    _cuts: int = 0
    _open: int = 0
    _all_sites: dict | None = None
    #: attribute name -> (the function that stores it, or None at module or class level;
    #: whether the store is on that function's own ``self``), for every ``x.attr = ...``,
    #: ``x.attr += ...`` and ``for x.attr in ...`` of the file
    attr_stores: dict[str, list[tuple[object, bool]]] = field(default_factory=dict)
    #: names assigned through ``global`` in some function
    globally_rebound: set[str] = field(default_factory=set)
    #: every call in the file with its context (rules and the retracing analysis use it)
    all_calls: list[tuple[cst.Call, Ctx]] = field(default_factory=list)
    root_ctx: Ctx | None = None
    _positions: object = None
    #: id(node) -> (node, CodeRange) for ranges computed one node at a time
    _position_memo: dict[int, tuple[cst.CSTNode, CodeRange]] = field(default_factory=dict)
    #: id(function) -> {id(node): parent} over its body, built on first use
    _parent_maps: dict[int, dict[int, cst.CSTNode]] = field(default_factory=dict)
    _single_positions: int = 0
    #: id(expr) -> qualified(expr); asked only once the walk has read every import
    _qualified_memo: dict[int, tuple[cst.BaseExpression, frozenset[str]]] = field(default_factory=dict)
    _fn_by_node: dict[int, FunctionInfo] = field(default_factory=dict)
    classes_by_node: dict[int, ClassInfo] = field(default_factory=dict)
    _tensor_cache: dict[tuple[int, str], bool] = field(default_factory=dict)
    #: a function whose parameters are judged as tensors although it is not traced (see
    #: :meth:`params_as_tensors`), and the caches kept for each such function
    _params_fn: FunctionInfo | None = None
    _params_only: frozenset[str] | None = None
    _params_caches: dict[tuple[int, frozenset[str] | None], dict[tuple[int, str], bool]] = \
        field(default_factory=dict)
    #: id(function) -> the calls of it made in traced code, built on first use
    _traced_call_sites: dict[int, list[tuple[cst.Call, FunctionInfo]]] | None = None
    #: names passed as call arguments anywhere in the file, built on first use
    _passed_names: frozenset[str] | None = None
    #: what ``tf.function(f, autograph=False)`` calls wrap (names, lambda ids), built on first use
    _autograph_off_targets: tuple[frozenset[str], frozenset[int]] | None = None
    #: per judgement, id(ctx) -> answer of ExecutionJudgements._any_within_function
    _ancestor_memo: dict[str, dict[int, bool]] = field(default_factory=dict)
    #: id(class) -> the calls of its instances (see ``instance_calls``)
    _instance_calls: dict[int, list] | None = None
    #: id(function) -> ids of its nodes used only as an op seed (see ``used_only_as_seed``)
    _seed_nodes: dict[int, set[int]] = field(default_factory=dict)
    #: attribute name -> eager_read_of_traced_store(name)
    _attr_reads: dict[str, Any] = field(default_factory=dict)
    #: id(function) -> last line of the early exit every trace takes (see ``after_a_traced_exit``)
    _exit_lines: dict[int, int | None] = field(default_factory=dict)
    #: whether the module runs Keras 2 (see ``_imports_tf_keras``), found on first use
    _keras2_memo: bool | None = None

    # ----------------------------------------------------------------- name resolution

    def qualified(self, expr: cst.BaseExpression) -> frozenset[str]:
        """Qualified names a Name/Attribute chain may refer to, through the file's
        imports. Never resolves a Call (``tf.function(f)(x)`` is not ``tf.function``)."""
        got = self._qualified_memo.get(id(expr))
        if got is None or got[0] is not expr:
            # the node is kept with its answer, so its id cannot be reused by another
            got = self._qualified_memo[id(expr)] = (expr, self._qualify(expr))
        return got[1]

    def _qualify(self, expr: cst.BaseExpression) -> frozenset[str]:
        d = dotted_name(expr)
        if d is None:
            return _NO_NAMES
        head, _, rest = d.partition(".")
        bases = self.imports.get(head)
        if not bases:
            return _NO_NAMES
        if head in self.module_function_defs:
            # also a function of the module (``def load(f)`` and, in a later notebook
            # cell, ``from numpy import load``): which one a call sees depends on when it
            # runs, so the name is no library's for sure (a class's bases are read where
            # the class is defined: ``class MODEL(Model)`` before a later ``class Model``)
            return _NO_NAMES
        return frozenset(canonical(b + "." + rest if rest else b) for b in bases)

    def resolves_to(self, expr: cst.BaseExpression, names: Iterable[str] | frozenset[str]) -> bool:
        q = self.qualified(expr)
        return bool(q) and any(n in names for n in q)

    def qualified_startswith(self, expr: cst.BaseExpression, prefixes: tuple[str, ...]) -> str | None:
        for q in self.qualified(expr):
            if q.startswith(prefixes):
                return q
        return None

    def is_tf_function_expr(self, expr: cst.BaseExpression) -> bool:
        """``tf.function`` in any spelling, or a configured wrapper decorator."""
        if self.resolves_to(expr, TF_FUNCTION_NAMES):
            return True
        if self.wrappers:
            d = dotted_name(expr)
            if d in self.wrappers or any(q in self.wrappers for q in self.qualified(expr)):
                return True
        return False

    # ----------------------------------------------------------------- positions

    def position(self, node: cst.CSTNode):
        """CodeRange of a node. The first few questions are answered for the node alone
        (:mod:`.positions`: one code generation that stops only there); a file that asks
        more gets every node's range at once, so files without findings never pay for
        them and files with a few pay little."""
        got = self._position_memo.get(id(node))
        if got is not None:
            return got[1]
        if self._positions is None and self._single_positions < _SINGLE_POSITIONS:
            self._single_positions += 1
            return self.positions_of([node])[id(node)]
        if self._positions is None:
            from libcst.metadata import PositionProvider

            # the provider's code generation alone: MetadataWrapper would first walk the
            # whole tree with a visitor, which costs as much again
            provider = PositionProvider()
            provider._gen_impl(self.module)
            self._positions = provider._computed
        return self._positions[node]  # type: ignore[index]

    def positions_of(self, nodes: Iterable[cst.CSTNode]) -> "dict[int, CodeRange]":
        """id(node) -> CodeRange for each node of the file among ``nodes`` (one code
        generation for all of them; nodes not in the file are left out)."""
        nodes = list(nodes)
        out: dict[int, CodeRange] = {}
        todo = []
        for n in nodes:
            got = self._position_memo.get(id(n))
            if got is not None:
                out[id(n)] = got[1]
            elif self._positions is not None:
                if n in self._positions:  # type: ignore[operator]
                    out[id(n)] = self._positions[n]  # type: ignore[index]
            else:
                todo.append(n)
        if todo:
            from tflint.semantic.positions import positions_of

            found = positions_of(self.module, todo)
            for n in todo:
                if id(n) in found:
                    out[id(n)] = found[id(n)]
                    self._position_memo[id(n)] = (n, found[id(n)])
        return out

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def comments_above(self, node: cst.CSTNode) -> str:
        """The comment lines right above the line of ``node`` (up to the first line that
        is not a comment), joined: what the author says about that line."""
        lines = self.__dict__.get("_source_lines")
        if lines is None:
            lines = self.__dict__["_source_lines"] = self.module.code.splitlines()
        i = self.line_of(node) - 2
        out: list[str] = []
        while 0 <= i < len(lines) and lines[i].lstrip().startswith("#"):
            out.append(lines[i].strip())
            i -= 1
        return "\n".join(reversed(out))

    # ----------------------------------------------------------------- traced code

    def function_of(self, node: cst.CSTNode) -> FunctionInfo | None:
        return self._fn_by_node.get(id(node))

    def is_rebound_global(self, name: str) -> bool:
        """Is the module-level ``name`` bound more than once: reassigned at module level,
        a module-level loop target, or assigned through ``global`` in a function?"""
        return name in self.globally_rebound or len(self.module_assigns.get(name, ())) > 1


    def traced_call_sites(self, fn: FunctionInfo) -> list[tuple[cst.Call, FunctionInfo]]:
        """The calls of ``fn`` (plain or ``self.method``) made in traced functions, each
        with the function that makes it."""
        if self._traced_call_sites is None:
            sites: dict[int, list[tuple[cst.Call, FunctionInfo]]] = {}
            for caller in self.functions:
                if caller.traced:
                    for call, _ in caller.calls:
                        callee = self.resolve_callee(call, caller)
                        if callee is not None:
                            sites.setdefault(id(callee), []).append((call, caller))
            self._traced_call_sites = sites
        return self._traced_call_sites.get(id(fn), [])

    def called_only_while_tracing(self, fn: FunctionInfo) -> bool:
        """Is every use of ``fn``'s name a call made by traced code (a ``Dataset.map``
        function, another tf.function), and is there one? A tf.function called only there is
        traced again within each trace of its callers, wherever it was created, so creating
        it anew costs nothing more (CutMix's ``get_bbox``, defined in the function that
        builds each pipeline and called from the function the pipeline maps)."""
        scope = fn.parent.node if fn.parent is not None else self.module
        calls = self.traced_call_sites(fn)
        if not calls:
            return False
        called = {id(c.func) for c, _ in calls}
        uses = [n for n in name_nodes(scope) if n.value == fn.name and n is not fn.node.name]  # type: ignore[attr-defined]
        return all(id(n) in called for n in uses)

    def passed_as_argument(self, name: str) -> bool:
        """Is ``name`` handed to some call of the file as an argument (``tf.map_fn(f, x)``,
        ``tf.nest.map_structure(f, s)``, ``functools.partial(f, ...)``)? A function so
        handed over is called with what the receiver gives it, not only at its call sites."""
        if self._passed_names is None:
            self._passed_names = frozenset(a.value.value for call, _ in self.all_calls for a in call.args
                                           if type(a.value) is cst.Name)
        return name in self._passed_names

    @staticmethod
    def positional_names(call: cst.Call, callee: FunctionInfo, constructor: bool = False) -> list[str]:
        """The names of ``callee``'s parameters that the call's positional arguments fill,
        in order (``self`` left out for ``obj.method(...)``, ``obj(...)`` and constructor
        calls)."""
        names = [p.name.value for p in callee.params if p.star not in ("*", "**")]
        if callee.self_name is not None and (isinstance(call.func, (cst.Attribute, cst.Name)) or constructor):
            names = names[1:]
        return names

    @staticmethod
    def bound_args(call: cst.Call, callee: FunctionInfo, partial: bool = False,
                   constructor: bool = False) -> dict[str, cst.Arg] | None:
        """The call's arguments by the parameter of ``callee`` they bind (``self`` left
        out for ``obj.method(...)`` calls and for ``obj(...)`` calling the instance's
        ``__call__`` or ``call``; positionals past the named parameters as
        ``#N``). When the call unpacks ``*args``/``**kwargs``: None, or with ``partial``
        the arguments before the first unpacking."""
        names = SemanticModel.positional_names(call, callee, constructor)
        out: dict[str, cst.Arg] = {}
        pos = 0
        for a in call.args:
            if a.star:
                return out if partial else None
            if a.keyword is not None:
                out[a.keyword.value] = a
            else:
                out[names[pos] if pos < len(names) else f"#{pos}"] = a
                pos += 1
        return out

    # ----------------------------------------------------------------- the project

    def function_named(self, qualified: str) -> FunctionInfo | None:
        """The function ``f``, ``Cls.method`` or ``outer.inner`` of this file, as another
        module that imports it sees it."""
        head, *rest = qualified.split(".")
        fn: FunctionInfo | None = self.module_functions.get(head)
        if fn is not None and id(fn) in self.main_only:
            # an importer gets the definition outside ``if __name__ == "__main__":``
            fn = next((f for _, f in reversed(self.module_function_defs.get(head, ()))
                       if id(f) not in self.main_only), None)
        cls = self.classes.get(head) if fn is None else None
        for part in rest:
            if cls is not None:
                fn, cls = cls.methods.get(part), None
            elif fn is not None:
                fn = next((n for n in fn.nested if n.name == part and isinstance(n.node, cst.FunctionDef)), None)
            if fn is None:
                return None
        return fn

    def external_call_sites(self, fn: FunctionInfo | str) -> list[ExternalCall]:
        """Calls of a top-level function (or module-level name) of this file made in the
        other modules of the project that import it; empty without a project."""
        name = fn if isinstance(fn, str) else fn.name
        if self.project is None or (not isinstance(fn, str) and (fn.parent is not None or fn.cls is not None)):
            return []
        return self.project.call_sites(name)

    def weightless_layer_construction(self, call: cst.BaseExpression) -> bool:
        """Is ``call`` the construction of a Keras layer class of the project that owns no
        variable (:meth:`ProjectView.weightless_layer`), given only literals and names?
        ``front_end.MelSpectrogram()`` in a ``Sequential`` built per map trace."""
        if not isinstance(call, cst.Call) or self.project is None or \
                any(not isinstance(a.value, (cst.Name, cst.Attribute, cst.BaseNumber, cst.BaseString)) or a.star
                    for a in call.args):
            return False
        d = dotted_name(call.func)
        return d is not None and self.project.weightless_layer(d)

    def traced_from_other_modules(self, fn: FunctionInfo) -> bool:
        """Is the top-level function ``fn`` called from traced code of another module?"""
        return self.project is not None and fn.parent is None and fn.cls is None and \
            fn.name in self.project.traced_from_elsewhere()

    def traced_external_call_sites(self, fn: FunctionInfo) -> list[ExternalCall]:
        """Calls of a top-level function of this file made in other modules' traced code."""
        if self.project is None or fn.parent is not None or fn.cls is not None:
            return []
        return self.project.traced_call_sites(fn.name)

    def project_file(self) -> str:
        return self.project.relpath if self.project is not None else self.path

    # ----------------------------------------------------------------- helpers for rules


    def module_binding_is_container(self, name: str) -> bool:
        return any(is_container_value(v) for v in self.module_assigns.get(name, ()))

    def resolve_callee(self, call: cst.Call, fn: FunctionInfo | None) -> FunctionInfo | None:
        """The function of this module a call invokes: a plain name (nested, then module
        level), ``self.method`` (the class, then its bases defined in this module) or
        ``super().method`` (the bases defined in this module)."""
        func = call.func
        if isinstance(func, cst.Name):
            name = func.value
            if fn is not None:
                for f in fn.scope_chain():
                    for n in f.nested:
                        if n.name == name and isinstance(n.node, cst.FunctionDef) and n.cls is None:
                            return n
                    if name in f.bound or name in f.param_names:
                        return None  # a local name shadows the module's function
            defs = self.module_function_defs.get(name)
            if fn is not None and defs is not None and any(
                    isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == name
                    for v in self.module_assigns.get(name, ())):
                # ``generator = generator()``: a function runs after the module, when the
                # name holds what the builder returned (a model), not the builder
                return None
            if fn is None and defs is not None and len(defs) > 1:
                # a module-level call runs the last definition above it; a call inside a
                # function runs whichever is bound when it is called (the last one)
                at = self.call_index.get(id(call))
                before = [info for count, info in defs if at is not None and count <= at]
                if before:
                    return before[-1]
            return self.module_functions.get(name)
        if isinstance(func, cst.Attribute) and fn is not None:
            cls = fn.class_of_self(func.value)
            if cls is not None:
                name = func.attr.value
                init = cls.methods.get("__init__")
                if fn.name != "__init__" and init is not None and any(
                        isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == name and
                        isinstance(v.func.value, cst.Name) and v.func.value.value == init.self_name
                        for v in cls.init_attrs.get(name, ())):
                    # ``self.encoder = self.encoder()`` in ``__init__``: later the instance's
                    # attribute, what the builder returned (a model), hides the method
                    return None
                return self.method_of(cls, name)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) and fn is not None and \
                isinstance(func.value.func, cst.Name) and func.value.func.value == "super" and \
                "super" not in self.imports and "super" not in self.module_assigns:
            # ``super().gen()`` in a method: the method of the first base of this module that has it
            owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
            if owner is not None and owner.cls is not None:
                for b in owner.cls.bases:
                    if isinstance(b, cst.Name) and b.value in self.classes:
                        m = self.method_of(self.classes[b.value], func.attr.value, frozenset({id(owner.cls)}))
                        if m is not None:
                            return m
        return None

    def method_of(self, cls: ClassInfo, name: str, _seen: frozenset[int] = frozenset()) -> FunctionInfo | None:
        if id(cls) in _seen:
            return None
        if name in cls.methods:
            return cls.methods[name]
        for b in cls.bases:
            if isinstance(b, cst.Name) and b.value in self.classes:
                m = self.method_of(self.classes[b.value], name, _seen | {id(cls)})
                if m is not None:
                    return m
        return None

    def is_keras_model_class(self, cls: ClassInfo, _seen: frozenset[int] = frozenset()) -> bool:
        if id(cls) in _seen:
            return False
        for b in cls.bases:
            if self.resolves_to(b, KERAS_MODEL_BASES):
                return True
            if isinstance(b, cst.Name) and b.value in self.classes:
                if self.is_keras_model_class(self.classes[b.value], _seen | {id(cls)}):
                    return True
            elif self.project is not None and any(self.project.is_keras_model_class(q) for q in self.qualified(b)):
                return True  # a Keras model class of another module of the project
        return False

