"""The per-file TensorFlow model: which code is traced, what names resolve to, and cheap
judgements ("is this expression a tensor?") that every rule shares.

It is built by one traversal of the libcst tree (:func:`build`), done by a hand-written
walk over the dataclass fields that hold child nodes — about 15x cheaper than libcst's
visitor machinery, which rebuilds every node. The same walk records the nodes rules asked
for, with their context (:class:`Ctx`), so the engine can dispatch rules afterwards,
once the whole module is known (a function may be wrapped in ``tf.function`` at the
bottom of the file).
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import libcst as cst

# ---------------------------------------------------------------------------------------
# Qualified names

TF_FUNCTION_NAMES = frozenset(
    {
        "tensorflow.function",
        "tensorflow.compat.v2.function",
        "tensorflow.compat.v1.function",
        "tensorflow.__internal__.function",
        "tensorflow.python.eager.def_function.function",
        "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
    }
)
PY_FUNCTION_NAMES = frozenset(
    {
        "tensorflow.py_function",
        "tensorflow.numpy_function",
        "tensorflow.compat.v1.py_func",
        "tensorflow.compat.v1.py_function",
        "tensorflow.compat.v1.numpy_function",
        "tensorflow.compat.v2.py_function",
        "tensorflow.compat.v2.numpy_function",
        "tensorflow.python.ops.script_ops.py_func",
        "tensorflow.python.ops.script_ops.eager_py_func",
        "tensorflow.python.ops.script_ops.numpy_function",
    }
)
INIT_SCOPE_NAMES = frozenset({"tensorflow.init_scope", "tensorflow.python.framework.ops.init_scope"})
KERAS_MODEL_BASES = frozenset({"keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential",
                               "keras.engine.training.Model", "keras.src.models.model.Model",
                               "keras.src.engine.training.Model"})
KERAS_STEP_METHODS = ("train_step", "test_step", "predict_step")
DATASET_METHODS = {"map": 0, "filter": 0, "flat_map": 0, "interleave": 0, "reduce": 1, "scan": 1,
                   "group_by_window": None, "parallel_interleave": 0}
#: methods only tf.data datasets have; a receiver chain containing one is a dataset
DATASET_ONLY_METHODS = frozenset({"batch", "padded_batch", "shuffle", "prefetch", "unbatch", "cache",
                                  "from_tensor_slices", "from_tensors", "from_generator", "list_files",
                                  "repeat", "take", "skip", "shard", "with_options", "rebatch",
                                  "ragged_batch", "bucket_by_sequence_length", "map_with_legacy_function"})

_KERAS_PREFIXES = ("tensorflow.keras.", "tensorflow.python.keras.", "tf_keras.", "keras.")


def canonical(qname: str) -> str:
    """Map the many spellings of Keras to ``keras.*`` so rules test one name."""
    for p in _KERAS_PREFIXES:
        if qname.startswith(p):
            return "keras." + qname[len(p):]
    return qname


# ---------------------------------------------------------------------------------------
# Model objects


@dataclass(eq=False)
class ClassInfo:
    node: cst.ClassDef
    name: str
    bases: list[cst.BaseExpression]
    methods: dict[str, "FunctionInfo"] = field(default_factory=dict)
    #: attribute -> values assigned as ``self.attr = value`` in __init__/build
    init_attrs: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)


@dataclass(eq=False)
class FunctionInfo:
    node: cst.FunctionDef | cst.Lambda
    name: str
    parent: "FunctionInfo | None"
    cls: ClassInfo | None  # set when this is a method (directly in a class body)
    ctx: "Ctx"  # context of the def itself
    params: list[cst.Param] = field(default_factory=list)
    param_names: set[str] = field(default_factory=set)
    #: names bound in the function body (assignment, for, with, import, def, ...)
    bound: set[str] = field(default_factory=set)
    globals_: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    #: simple ``name = value`` assignments, for the tensor judgement
    assigns: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    #: (call node, ctx) of every call made directly in this function
    calls: list[tuple[cst.Call, "Ctx"]] = field(default_factory=list)
    nested: list["FunctionInfo"] = field(default_factory=list)
    #: values of the function's ``return`` statements
    returns: list[cst.BaseExpression] = field(default_factory=list)
    #: name -> iterables of the ``for`` loops that bind it (loop targets)
    loop_targets: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # -- filled by finalize()
    tf_function: bool = False  # itself wrapped by tf.function (or a configured wrapper)
    has_input_signature: bool = False
    traced: bool = False
    root_reason: str | None = None  # why it is a graph root, e.g. "decorated with @tf.function"
    via: "tuple[FunctionInfo, cst.Call] | None" = None  # traced because this caller calls it
    via_guard: cst.If | None = None  # ... and that call sits under a first-call guard
    py_function_target: bool = False

    @property
    def is_method(self) -> bool:
        return self.cls is not None

    @property
    def self_name(self) -> str | None:
        if self.cls is None or not self.params:
            return None
        if isinstance(self.node, cst.FunctionDef):
            for d in self.node.decorators:
                if isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod":
                    return None
        return self.params[0].name.value

    def scope_chain(self) -> Iterator["FunctionInfo"]:
        f: FunctionInfo | None = self
        while f is not None:
            yield f
            f = f.parent


class Ctx:
    """Where a node sits: the enclosing compound node, which field of it, and the
    enclosing context. A persistent linked list, one object per (context node, field)."""

    __slots__ = ("node", "field", "parent", "fn", "cls", "_traced")

    def __init__(self, node: cst.CSTNode | None, field: str, parent: "Ctx | None",
                 fn: FunctionInfo | None, cls: ClassInfo | None) -> None:
        self.node = node
        self.field = field
        self.parent = parent
        self.fn = fn
        self.cls = cls
        self._traced: bool | None = None

    def ancestors(self) -> Iterator["Ctx"]:
        c: Ctx | None = self
        while c is not None and c.node is not None:
            yield c
            c = c.parent

    def within_function(self) -> Iterator["Ctx"]:
        """Ancestors up to (and excluding) the innermost function or lambda."""
        for c in self.ancestors():
            if isinstance(c.node, (cst.FunctionDef, cst.Lambda)) and c.field in ("body", "params"):
                return
            yield c

    def loops(self) -> Iterator["Ctx"]:
        """Enclosing loop bodies within the current function (innermost first)."""
        for c in self.within_function():
            if isinstance(c.node, (cst.For, cst.While)) and c.field == "body":
                yield c


# ---------------------------------------------------------------------------------------
# The walk

_SKIP_FIELD_PARTS = ("whitespace", "lpar", "rpar", "comma", "semicolon", "colon", "equal", "star",
                     "lbracket", "rbracket", "lbrace", "rbrace", "header", "footer", "leading_lines",
                     "lines_after_decorators", "operator", "asynchronous", "newline", "dot",
                     "first_line", "empty_lines", "default_indent", "default_newline", "encoding")
_FIELDS: dict[type, tuple[str, ...]] = {}
_IS_NODE: dict[type, bool] = {}
_PLANS: dict[type, tuple[tuple[str, ...], bool]] = {}

_CONTEXT_TYPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.If, cst.Else, cst.For, cst.While,
                  cst.With, cst.Try, cst.ExceptHandler, cst.Finally, cst.ListComp, cst.SetComp,
                  cst.DictComp, cst.GeneratorExp, cst.Call, cst.IfExp, cst.BooleanOperation)
if hasattr(cst, "TryStar"):
    _CONTEXT_TYPES += (cst.TryStar,)  # type: ignore[attr-defined]

# fields in the order they appear in the source, where the dataclass order differs
_ORDER = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
}


def _fields(t: type) -> tuple[str, ...]:
    f = _FIELDS.get(t)
    if f is None:
        names = _ORDER.get(t) or tuple(x.name for x in dataclasses.fields(t))
        f = tuple(n for n in names if not any(p in n for p in _SKIP_FIELD_PARTS) or n == "operator_")
        _FIELDS[t] = f
    return f


def dotted_name(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while type(expr) is cst.Attribute:  # not isinstance: see _Builder._child_ctx
        parts.append(expr.attr.value)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is cst.Name:
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


def is_python_literal(expr: cst.BaseExpression) -> bool:
    """A number, string, ``True``/``False``/``None``, or a tuple/list/set/dict display
    of those: a Python value, never a tensor."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                         cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, (cst.Minus, cst.Plus)) and is_python_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and is_python_literal(e.value) for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(isinstance(e, cst.DictElement) and is_python_literal(e.key) and is_python_literal(e.value)
                   for e in expr.elements)
    return False


def target_names(t: cst.BaseExpression) -> Iterator[str]:
    """Names bound by an assignment or loop target (``a``, ``a, (b, *c)``)."""
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from target_names(e.value)
    elif isinstance(t, cst.StarredElement):
        yield from target_names(t.value)


@dataclass(eq=False)
class SemanticModel:
    module: cst.Module
    path: str
    wrappers: frozenset[str] = frozenset()
    #: local name -> qualified names it may stand for (several for conditional imports)
    imports: dict[str, set[str]] = field(default_factory=dict)
    functions: list[FunctionInfo] = field(default_factory=list)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    module_functions: dict[str, FunctionInfo] = field(default_factory=dict)
    #: module-level name -> every value bound to it at module level
    module_assigns: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    #: names assigned through ``global`` in some function
    globally_rebound: set[str] = field(default_factory=set)
    #: every call in the file with its context (rules and the retracing analysis use it)
    all_calls: list[tuple[cst.Call, Ctx]] = field(default_factory=list)
    root_ctx: Ctx | None = None
    _positions: object = None
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
    _traced_call_sites: dict[int, list[cst.Call]] | None = None

    # ----------------------------------------------------------------- name resolution

    def qualified(self, expr: cst.BaseExpression) -> set[str]:
        """Qualified names a Name/Attribute chain may refer to, through the file's
        imports. Never resolves a Call (``tf.function(f)(x)`` is not ``tf.function``)."""
        d = dotted_name(expr)
        if d is None:
            return set()
        head, _, rest = d.partition(".")
        bases = self.imports.get(head)
        if not bases:
            return set()
        return {canonical(b + "." + rest if rest else b) for b in bases}

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
        """CodeRange of a node; computed for the whole file on first use only, so files
        without findings never pay for it."""
        if self._positions is None:
            from libcst.metadata import PositionProvider

            # the provider's code generation alone: MetadataWrapper would first walk the
            # whole tree with a visitor, which costs as much again
            provider = PositionProvider()
            provider._gen_impl(self.module)
            self._positions = provider._computed
        return self._positions[node]  # type: ignore[index]

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    # ----------------------------------------------------------------- traced code

    def function_of(self, node: cst.CSTNode) -> FunctionInfo | None:
        return self._fn_by_node.get(id(node))

    def is_traced(self, ctx: Ctx) -> bool:
        """Is code at ``ctx`` run while TensorFlow traces a graph?"""
        if ctx._traced is not None:
            return ctx._traced
        result = False
        fn = ctx.fn
        if fn is not None and fn.traced:
            result = True
            for c in ctx.within_function():
                if isinstance(c.node, cst.With) and c.field == "body" and self._is_init_scope(c.node):
                    result = False
                    break
        ctx._traced = result
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
        runs under tf.function"."""
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
        if chain:
            return f"in `{fn.name}`, " + ", ".join(chain) + f", {reason}"
        return f"`{fn.name}`, {reason}" if reason.startswith("which") else f"`{fn.name}` {reason}"

    # ----------------------------------------------------------------- tensor judgement

    def is_tensor(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Cheap intra-procedural guess: may ``expr`` be a symbolic tensor while tracing?

        Tensors: parameters of traced functions (unless their default or annotation is a
        Python scalar/str/None, or they are ``self``/``cls``), results of ``tf.*`` calls,
        arithmetic, subscripts and most methods on tensors, locals assigned from those.
        Not tensors: ``.shape``, ``.dtype``, ``.name``, ``.ndim``, ``len(...)``,
        ``isinstance``, comparisons with ``None``, literals.
        """
        if _depth > 12:
            return False
        d = _depth + 1
        if isinstance(expr, cst.Name):
            return fn is not None and self._name_is_tensor(expr.value, fn, d)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in _STATIC_ATTRS:
                return False
            if expr.attr.value in ("T", "real", "imag", "values", "indices", "dense_shape"):
                return self.is_tensor(expr.value, fn, d)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_tensor(expr.value, fn, d)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_tensor(expr.left, fn, d) or self.is_tensor(expr.right, fn, d)
        if isinstance(expr, cst.UnaryOperation):
            return not isinstance(expr.operator, cst.Not) and self.is_tensor(expr.expression, fn, d)
        if isinstance(expr, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons):
                return False
            return self.is_tensor(expr.left, fn, d) or any(
                self.is_tensor(c.comparator, fn, d) for c in expr.comparisons)
        if isinstance(expr, cst.Call):
            return self._call_is_tensor(expr, fn, d)
        if isinstance(expr, cst.FormattedString):
            return any(isinstance(p, cst.FormattedStringExpression) and self.is_tensor(p.expression, fn, d)
                       for p in expr.parts)
        if isinstance(expr, cst.IfExp):
            return self.is_tensor(expr.body, fn, d) or self.is_tensor(expr.orelse, fn, d)
        return False

    def _call_is_tensor(self, call: cst.Call, fn: FunctionInfo | None, d: int) -> bool:
        func = call.func
        for q in self.qualified(func):
            if q.startswith(("tensorflow.nest.", "tensorflow.python.util.nest.")):
                # structure utilities: a tensor only if what they map or pack is one
                if q.endswith("map_structure") and call.args and isinstance(call.args[0].value, cst.Lambda):
                    lam = self.function_of(call.args[0].value)
                    return self.is_tensor(call.args[0].value.body, lam, d)  # type: ignore[union-attr]
                return any(self.is_tensor(a.value, fn, d) for a in call.args)
            if q.startswith(("tensorflow.", "keras.ops.", "keras.backend.")):
                last = q.rsplit(".", 1)[-1]
                if last[:1].isupper() and last not in ("SparseTensor", "IndexedSlices", "RaggedTensor"):
                    return False  # a constructor: tables, initializers, specs, optimizers
                return last not in _TF_NON_TENSOR_FUNCS
            if q in ("builtins.len", "len"):
                return False
            return False  # another library (numpy, math, ...): judged by the rules
        if isinstance(func, cst.Name):
            if func.value in _BUILTIN_NON_TENSOR:
                return False
            if func.value in ("float", "int", "bool", "str"):
                return False
            if func.value in ("abs", "max", "min", "sum", "round", "pow"):
                return any(self.is_tensor(a.value, fn, d) for a in call.args)
            # a user function given a tensor (positionally: ``name=`` and other options
            # say nothing) most likely returns one
            return any(self.is_tensor(a.value, fn, d) for a in call.args if a.keyword is None)
        if isinstance(func, cst.Attribute):
            meth = func.attr.value
            if meth in _NON_TENSOR_METHODS:
                return False
            if self.is_tensor(func.value, fn, d):
                return True
            # layer/model call through self: self.dense(x)
            if isinstance(func.value, cst.Name) and fn is not None and func.value.value == fn.self_name:
                return any(self.is_tensor(a.value, fn, d) for a in call.args)
        return False

    @contextlib.contextmanager
    def params_as_tensors(self, fn: FunctionInfo, only: frozenset[str] | None = None) -> Iterator[None]:
        """Within the block, :meth:`is_tensor` judges the parameters of ``fn`` (or those
        named in ``only``) as it judges those of traced functions, although ``fn`` is not
        traced: Keras 3 runs ``Layer.call`` on symbolic tensors without AutoGraph.
        Answers are cached apart, per ``fn`` and ``only``."""
        saved = self._params_fn, self._params_only, self._tensor_cache
        self._params_fn, self._params_only = fn, only
        self._tensor_cache = self._params_caches.setdefault((id(fn), only), {})
        try:
            yield
        finally:
            self._params_fn, self._params_only, self._tensor_cache = saved

    def _name_is_tensor(self, name: str, fn: FunctionInfo, d: int) -> bool:
        key = (id(fn), name)
        hit = self._tensor_cache.get(key)
        if hit is not None:
            return hit
        self._tensor_cache[key] = False  # break cycles
        result = False
        owner = next((f for f in fn.scope_chain() if name in f.param_names or name in f.bound), None)
        if owner is not None:
            if name in owner.param_names and name not in owner.assigns:
                result = self._judged_as_traced(owner, name) and self._param_is_tensor(owner, name)
            else:
                result = any(self.is_tensor(v, owner, d) for v in owner.assigns.get(name, ()))
                if not result and name in owner.loop_targets:
                    result = any(self.iterates_tensors(it, owner, d) for it in owner.loop_targets[name])
                if not result and name in owner.param_names:
                    result = self._judged_as_traced(owner, name) and self._param_is_tensor(owner, name)
        self._tensor_cache[key] = result
        return result

    def _judged_as_traced(self, owner: FunctionInfo, param: str) -> bool:
        if owner.traced:
            return True
        return owner is self._params_fn and (self._params_only is None or param in self._params_only)

    def iterates_tensors(self, it: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Does a ``for`` over ``it`` run as a TensorFlow loop, binding tensors?
        Iterating a tensor, ``tf.range(...)``, a Dataset (or ``iter(ds)``), and
        ``range(<tensor>)`` / ``range(int(<tensor>))``, which AutoGraph converts.
        ``enumerate``/``zip`` over those count too."""
        d = _depth + 1
        if d > 12:
            return False
        if isinstance(it, cst.Call):
            if self.resolves_to(it.func, {"tensorflow.range"}):
                return True
            name = dotted_name(it.func)
            if name == "range" and "range" not in self.imports:
                return any(self.is_tensor(_strip_int(a.value), fn, d) for a in it.args)
            if name in ("enumerate", "zip", "iter", "reversed") and it.args:
                return any(self.iterates_tensors(a.value, fn, d) for a in it.args if a.keyword is None)
        if fn is not None and fn.traced and self.is_dataset_expr(it, fn):
            return True
        return self.is_tensor(it, fn, d)

    def loop_is_tensorflow(self, loop: cst.For | cst.While, fn: FunctionInfo | None) -> bool:
        """A loop AutoGraph turns into a graph loop (``tf.while_loop`` or a Dataset
        loop); every other loop in traced code is Python and is unrolled while tracing."""
        if fn is None or not fn.traced:
            return False
        if isinstance(loop, cst.For):
            return self.iterates_tensors(loop.iter, fn)
        return self.is_tensor(loop.test, fn)

    def is_rebound_global(self, name: str) -> bool:
        """Is the module-level ``name`` bound more than once: reassigned at module level,
        a module-level loop target, or assigned through ``global`` in a function?"""
        return name in self.globally_rebound or len(self.module_assigns.get(name, ())) > 1

    def _param_is_tensor(self, fn: FunctionInfo, name: str) -> bool:
        if name == fn.self_name or name in ("self", "cls"):
            return False
        for p in fn.params:
            if p.name.value != name:
                continue
            if p.star in ("*", "**"):
                return False
            ann = p.annotation.annotation if p.annotation else None
            if ann is not None:
                text = dotted_name(ann) or ""
                if text in ("int", "float", "bool", "str", "None", "dict", "list", "tuple") or \
                        text.endswith(("Config", "Params", "Mode")):
                    return False
            dv = p.default
            if isinstance(dv, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString,
                               cst.Dict, cst.List, cst.Tuple, cst.Lambda)):
                return False
            if isinstance(dv, cst.Name) and dv.value in ("None", "True", "False"):
                return False
            if name in _PYTHON_PARAM_NAMES or name.endswith(_PYTHON_PARAM_SUFFIXES) or \
                    name.startswith(("num_", "is_", "use_", "n_")):
                return False
            return not self._only_given_python_literals(fn, name)
        return False

    def _only_given_python_literals(self, fn: FunctionInfo, name: str) -> bool:
        """``fn`` is traced only because traced code calls it, and every such call gives
        parameter ``name`` a Python literal (``helper(3.0)``) or leaves it out: while
        tracing, the parameter holds that Python value, not a tensor."""
        if fn.root_reason is not None or fn.via is None:
            return False
        sites = self.traced_call_sites(fn)
        if not sites:
            return False
        for call in sites:
            bound = self.bound_args(call, fn)
            if bound is None:
                return False
            arg = bound.get(name)
            if arg is not None and not is_python_literal(arg.value):
                return False
        return True

    def traced_call_sites(self, fn: FunctionInfo) -> list[cst.Call]:
        """The calls of ``fn`` (plain or ``self.method``) made in traced functions."""
        if self._traced_call_sites is None:
            sites: dict[int, list[cst.Call]] = {}
            for caller in self.functions:
                if caller.traced:
                    for call, _ in caller.calls:
                        callee = self.resolve_callee(call, caller)
                        if callee is not None:
                            sites.setdefault(id(callee), []).append(call)
            self._traced_call_sites = sites
        return self._traced_call_sites.get(id(fn), [])

    @staticmethod
    def bound_args(call: cst.Call, callee: FunctionInfo, partial: bool = False) -> dict[str, cst.Arg] | None:
        """The call's arguments by the parameter of ``callee`` they bind (``self`` left
        out for ``obj.method(...)`` calls; positionals past the named parameters as
        ``#N``). When the call unpacks ``*args``/``**kwargs``: None, or with ``partial``
        the arguments before the first unpacking."""
        names = [p.name.value for p in callee.params if p.star not in ("*", "**")]
        if callee.self_name is not None and isinstance(call.func, cst.Attribute):
            names = names[1:]
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

    # ----------------------------------------------------------------- helpers for rules

    def enclosing_guard(self, ctx: Ctx) -> cst.If | None:
        """An enclosing ``if`` (within the function) whose body runs only the first time:
        ``if self.v is None``, ``if not self.built``, ``if key not in self._cache``,
        ``if not hasattr(self, "v")``. Only the ``body`` branch counts."""
        for c in ctx.within_function():
            if isinstance(c.node, cst.If) and c.field == "body" and is_first_call_test(c.node.test):
                return c.node
        fn = ctx.fn
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
                        if last in ("isinstance", "is_tensor", "is_tf_type", "hasattr", "is_symbolic_tensor",
                                    "is_keras_tensor", "is_sparse", "is_ragged"):
                            return True
        return False

    def in_py_function_arg(self, ctx: Ctx) -> bool:
        for c in ctx.within_function():
            if isinstance(c.node, cst.Call) and c.field == "args" and self.resolves_to(c.node.func, PY_FUNCTION_NAMES):
                return True
        return False

    def module_binding_is_container(self, name: str) -> bool:
        return any(is_container_value(v) for v in self.module_assigns.get(name, ()))

    def resolve_callee(self, call: cst.Call, fn: FunctionInfo | None) -> FunctionInfo | None:
        """The function of this module a call invokes: a plain name (nested, then module
        level) or ``self.method`` (the class, then its bases defined in this module)."""
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
            return self.module_functions.get(name)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and fn is not None:
            owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
            if owner is not None and func.value.value == owner.self_name:
                return self.method_of(owner.cls, func.attr.value)  # type: ignore[arg-type]
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
        return False

    def _bindings_of(self, name: str, fn: FunctionInfo | None) -> tuple[FunctionInfo | None, list[cst.BaseExpression]]:
        """The innermost scope that assigns ``name`` (None: the module) and its values."""
        for f in fn.scope_chain() if fn is not None else ():
            if name in f.assigns:
                return f, f.assigns[name]
        return None, self.module_assigns.get(name, [])

    def _from_other_library(self, value: cst.BaseExpression, fn: FunctionInfo | None, _depth: int) -> bool:
        """Does ``value`` come from a call into an imported library other than TensorFlow
        and Keras (``grain.MapDataset.source(...)``, ``torch.utils.data.DataLoader(...)``),
        directly or through the names it was assigned from?"""
        if _depth > 8:
            return False
        if isinstance(value, cst.Call):
            func = value.func
            while isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
                func = func.value.func  # grain.MapDataset.source(...).map(...)
            names = self.qualified(func)
            return bool(names) and all(q.split(".")[0] not in _TF_TOP_MODULES or
                                       _OTHER_DATA_LIBRARIES.intersection(q.split(".")) for q in names)
        if isinstance(value, cst.Name):
            owner, values = self._bindings_of(value.value, fn)
            return any(self._from_other_library(v, owner, _depth + 1) for v in values)
        return False

    def is_dataset_expr(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Is ``expr`` (the receiver of ``.map``) a ``tf.data.Dataset``?"""
        if _depth > 8:
            return False
        root = expr
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and \
                (root.func.attr.value in DATASET_METHODS or root.func.attr.value in DATASET_ONLY_METHODS):
            root = root.func.value  # ds.shuffle(...).batch(...) -> ds
        if self._from_other_library(root, fn, _depth + 1):
            return False  # `grain.MapDataset.source(...)`: not tf.data, whatever its methods
        while True:
            if isinstance(expr, cst.Call):
                if self.qualified_startswith(expr.func, ("tensorflow.data.", "tensorflow.compat.v2.data.",
                                                         "tensorflow.compat.v1.data.")):
                    return True
                f = expr.func
                if isinstance(f, cst.Attribute):
                    if f.attr.value in DATASET_ONLY_METHODS or f.attr.value in DATASET_METHODS:
                        if f.attr.value in DATASET_ONLY_METHODS:
                            return True
                        expr = f.value
                        continue
                return False
            if isinstance(expr, cst.Name):
                n = expr.value
                owner, values = self._bindings_of(n, fn)
                if n in ("ds", "dataset", "datasets") or n.endswith(("_ds", "_dataset")) or \
                        n.startswith(("ds_", "dataset_")):
                    return True
                return any(self.is_dataset_expr(v, owner, _depth + 1) for v in values)
            if isinstance(expr, cst.Attribute):
                a = expr.attr.value
                return a in ("dataset", "ds") or a.endswith(("_ds", "_dataset"))
            return False


#: top-level modules whose datasets may be tf.data ones
_TF_TOP_MODULES = frozenset({"tensorflow", "keras", "tf_keras", "tensorflow_datasets", "tensorflow_io"})
#: data libraries that Keras 3 also wraps (``keras.src.utils.module_utils.grain``)
_OTHER_DATA_LIBRARIES = frozenset({"grain", "torch", "jax", "pandas"})
_STATIC_ATTRS = frozenset({"shape", "dtype", "name", "ndim", "rank", "device", "graph", "op",
                           "trainable", "built", "__class__", "__name__"})
_TF_NON_TENSOR_FUNCS = frozenset({"TensorShape", "as_dtype", "executing_eagerly", "get_static_value",
                                  # Keras helpers that return Python values (dtype names, flags)
                                  "standardize_dtype", "standardize_shape", "result_type",
                                  "is_float_dtype", "is_int_dtype", "floatx", "epsilon",
                                  "image_data_format", "is_keras_tensor", "backend",
                                  "is_tensor", "Variable", "TensorArray", "name_scope", "device",
                                  "control_dependencies", "GradientTape", "TensorSpec", "DType",
                                  "get_logger", "Module", "function", "init_scope", "print",
                                  "is_symbolic_tensor", "convert_to_tensor_or_indexed_slices"})
_BUILTIN_NON_TENSOR = frozenset({"len", "isinstance", "issubclass", "hasattr", "getattr", "type", "id",
                                 "repr", "callable", "range", "enumerate", "zip", "list", "tuple", "dict",
                                 "set", "sorted", "print", "iter", "next", "super", "object", "vars"})
_NON_TENSOR_METHODS = frozenset({"get_shape", "as_list", "numpy", "is_fully_defined", "format", "join",
                                 "startswith", "endswith", "keys", "items", "values", "get", "copy",
                                 "lower", "upper", "split", "strip", "replace", "assign", "assign_add",
                                 "assign_sub", "append", "extend", "update", "pop"})
_PYTHON_PARAM_NAMES = frozenset({"training", "mode", "name", "axis", "config", "params", "hparams",
                                 "reuse", "scope", "verbose", "dtype", "shape", "kwargs", "args", "options",
                                 "strategy", "model", "optimizer", "layer", "loss_fn", "fn", "func",
                                 "callback", "logger", "is_training", "mask_value", "seed", "data_format",
                                 "padding", "activation", "step_fn", "metric", "metrics"})
_PYTHON_PARAM_SUFFIXES = ("_fn", "_func", "_config", "_name", "_size", "_dim", "_dims", "_rate",
                          "_type", "_mode", "_layer", "_model", "_params", "_shape", "_axis", "_flag")


def _subexpressions(e: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``e`` and every node below it (for small expressions only)."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def _strip_int(e: cst.BaseExpression) -> cst.BaseExpression:
    """``int(t)`` inside ``range(...)``: AutoGraph still converts the loop."""
    if isinstance(e, cst.Call) and dotted_name(e.func) == "int" and e.args:
        return e.args[0].value
    return e


def is_container_value(v: cst.BaseExpression) -> bool:
    if isinstance(v, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    if isinstance(v, cst.Call):
        d = dotted_name(v.func) or ""
        return d in ("list", "dict", "set", "collections.defaultdict", "defaultdict", "collections.OrderedDict",
                     "OrderedDict", "collections.deque", "deque", "collections.Counter", "Counter")
    return False


def is_first_call_test(test: cst.BaseExpression) -> bool:
    """Tests that make a block run once: ``x is None``, ``not x``, ``not hasattr(...)``,
    ``key not in cache``, ``not self.built``, and conjunctions containing one."""
    if isinstance(test, cst.BooleanOperation):
        return is_first_call_test(test.left) or is_first_call_test(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        return isinstance(inner, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    if isinstance(test, cst.Comparison):
        for c in test.comparisons:
            if isinstance(c.operator, (cst.Is, cst.Equal)) and isinstance(c.comparator, cst.Name) and \
                    c.comparator.value in ("None", "False"):
                return True
            if isinstance(c.operator, cst.NotIn):
                return True
        return False
    if isinstance(test, cst.Call):
        d = dotted_name(test.func) or ""
        return d.endswith(("is_first_call", "first_call")) or d == "getattr"
    return False


# ---------------------------------------------------------------------------------------
# Building the model


def build(module: cst.Module, path: str, wrappers: Iterable[str],
          interests: dict[type, list[Callable]] | None = None,
          events: list | None = None) -> SemanticModel:
    """Walk the module once, build the model and record ``(node, ctx)`` for every node
    whose type is in ``interests`` into ``events``. Then finalize traced code."""
    sem = SemanticModel(module=module, path=path, wrappers=frozenset(wrappers))
    _Builder(sem, interests or {}, events if events is not None else []).run()
    _finalize(sem)
    return sem


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
        is_node = _IS_NODE
        plans = _PLANS
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
                flag = is_node.get(tv)
                if flag is None:
                    flag = is_node[tv] = issubclass(tv, cst.CSTNode)
                if flag:
                    pending.append((v, cctx))
                elif tv is tuple or tv is list:
                    for c in v:
                        tc = type(c)
                        f = is_node.get(tc)
                        if f is None:
                            f = is_node[tc] = issubclass(tc, cst.CSTNode)
                        if f:
                            pending.append((c, cctx))
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
            sem.module_functions[name] = info
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
        names = list(target_names(target))
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

    def on_assign(self, node: cst.Assign, ctx: Ctx) -> None:
        for t in node.targets:
            self._bind(t.target, node.value, ctx)

    def on_ann_assign(self, node: cst.AnnAssign, ctx: Ctx) -> None:
        if node.value is not None:
            self._bind(node.target, node.value, ctx)

    def on_aug_assign(self, node: cst.AugAssign, ctx: Ctx) -> None:
        if isinstance(node.target, cst.Name):
            fn = ctx.fn
            n = node.target.value
            if fn is None:
                if ctx.cls is None:
                    self.sem.module_assigns.setdefault(n, []).append(
                        cst.BinaryOperation(node.target, cst.Add(), node.value))
            elif n in fn.globals_:
                self.sem.globally_rebound.add(n)
            elif n not in fn.nonlocals:
                fn.bound.add(n)
                fn.assigns.setdefault(n, []).append(cst.BinaryOperation(node.target, cst.Add(), node.value))

    def on_for(self, node: cst.For, ctx: Ctx) -> None:
        self._bind(node.target, None, ctx)
        if ctx.fn is not None:
            for n in target_names(node.target):
                ctx.fn.loop_targets.setdefault(n, []).append(node.iter)

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


def _decorator_expr(d: cst.Decorator) -> tuple[cst.BaseExpression, cst.Call | None]:
    e = d.decorator
    if isinstance(e, cst.Call):
        return e.func, e
    return e, None


def _has_kw(call: cst.Call | None, name: str) -> bool:
    return call is not None and any(a.keyword is not None and a.keyword.value == name and
                                    not (isinstance(a.value, cst.Name) and a.value.value == "None")
                                    for a in call.args)


def _finalize(sem: SemanticModel) -> None:
    """Mark graph roots, then close over callees and nested functions."""
    # 1. decorators
    for fn in sem.functions:
        if isinstance(fn.node, cst.FunctionDef):
            for d in fn.node.decorators:
                expr, call = _decorator_expr(d)
                if sem.is_tf_function_expr(expr):
                    fn.tf_function = True
                    fn.root_reason = "tf.function"
                    fn.has_input_signature = _has_kw(call, "input_signature")
    # 2. wrapping calls and tf.data / py_function arguments
    for call, ctx in sem.all_calls:
        func = call.func
        if sem.is_tf_function_expr(func) and call.args:
            target = _callable_target(sem, call.args[0].value, ctx)
            if target is not None:
                target.tf_function = True
                target.root_reason = target.root_reason or "tf.function"
                if _has_kw(call, "input_signature") or len(call.args) > 1 and call.args[1].keyword is None:
                    target.has_input_signature = True
            continue
        if sem.resolves_to(func, PY_FUNCTION_NAMES):
            for a in call.args:
                if a.keyword is None or a.keyword.value in ("func", "f"):
                    t = _callable_target(sem, a.value, ctx)
                    if t is not None:
                        t.py_function_target = True
                    break
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in DATASET_METHODS:
            pos = DATASET_METHODS[func.attr.value]
            arg = _dataset_fn_arg(call, pos)
            if arg is not None and sem.is_dataset_expr(func.value, ctx.fn):
                t = _callable_target(sem, arg, ctx)
                if t is not None and t.root_reason is None:
                    t.root_reason = f"passed to `Dataset.{func.attr.value}`, which always traces it as a graph"
    # 3. Keras *_step overrides
    for cls in sem.classes.values():
        if any(m in cls.methods for m in KERAS_STEP_METHODS) and sem.is_keras_model_class(cls):
            for m in KERAS_STEP_METHODS:
                f = cls.methods.get(m)
                if f is not None and f.root_reason is None:
                    f.root_reason = "which Keras runs under tf.function"
    # 4. closure over calls and nesting
    work = [f for f in sem.functions if f.root_reason is not None and not f.py_function_target]
    for f in work:
        f.traced = True
    while work:
        f = work.pop()
        for nested in f.nested:
            if not nested.traced and not nested.py_function_target and nested.cls is None:
                nested.traced = True
                work.append(nested)
        for call, ctx in f.calls:
            if not sem.is_traced(ctx) and ctx.fn is f:
                continue
            callee = sem.resolve_callee(call, ctx.fn)
            if callee is not None and not callee.traced and not callee.py_function_target and \
                    callee.name not in ("__init__", "build"):
                callee.traced = True
                callee.via = (f, call)
                callee.via_guard = sem.enclosing_guard(ctx)
                work.append(callee)
            elif callee is not None and callee.traced and callee.via_guard is not None and \
                    sem.enclosing_guard(ctx) is None:
                callee.via_guard = None  # also called unguarded
        # contexts cached before all roots were known must be recomputed
    for _, ctx in sem.all_calls:
        ctx._traced = None


def _dataset_fn_arg(call: cst.Call, pos: int | None) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value in ("map_func", "predicate", "reduce_func", "scan_func",
                                                         "key_func", "window_reduce_func"):
            return a.value
    positional = [a for a in call.args if a.keyword is None]
    if pos is not None and len(positional) > pos:
        return positional[pos].value
    return None


def _callable_target(sem: SemanticModel, expr: cst.BaseExpression, ctx: Ctx) -> FunctionInfo | None:
    """The function of this module that ``expr`` (an argument) denotes: a lambda, a name,
    ``self.method`` or ``functools.partial(f, ...)``."""
    if isinstance(expr, cst.Lambda):
        return sem.function_of(expr)
    if isinstance(expr, cst.Call):
        d = dotted_name(expr.func) or ""
        if d in ("functools.partial", "partial") and expr.args:
            return _callable_target(sem, expr.args[0].value, ctx)
        return None
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return sem.resolve_callee(cst.Call(func=expr), ctx.fn)
    return None
