"""What a value is in traced code: the tensor judgements every rule asks, and tf.data."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
from typing import Iterator

import libcst as cst

from tflint.semantic.names import DATASET_METHODS, DATASET_ONLY_METHODS, KERAS_STEP_REASON, _strip_int, dotted_name, is_python_literal, scalar_literal
from tflint.semantic.objects import Ctx, FunctionInfo
from tflint.semantic import lattice as lat
from tflint.semantic.keras import KerasConstruction, keras_construction
from tflint.semantic.project import leaves_off
from tflint.semantic.syntax import assigned_in, child_nodes, code, mentions, name_nodes, names_read, walk_scope


#: libraries whose functions give a value (an array, a tensor, a number), never ``None``,
#: but for the few that work in place
_NOT_NONE_LIBRARIES = ("numpy.", "tensorflow.", "math.")
_GIVE_NONE = frozenset({"shuffle", "seed", "set_seed", "print", "assert_equal", "copyto", "put", "place"})
#: builtins whose call makes a value, never ``None``
_VALUE_BUILTINS = frozenset({"int", "float", "str", "bool", "len", "range", "list", "tuple", "dict", "set", "abs",
                             "round", "min", "max", "sum", "sorted", "divmod", "pow", "complex"})

#: :meth:`ValueJudgements.dominating_binding`: only the parameter's own value reaches the use
PARAMETER = object()


class ValueJudgements:
    """Mixed into :class:`SemanticModel`."""

    # ----------------------------------------------------------------- tensor judgement

    def is_tensor(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0,
                  _whole: bool = True) -> bool:
        """Cheap intra-procedural guess: may ``expr`` be a symbolic tensor while tracing?

        Tensors: parameters of traced functions (unless their default, annotation or
        docstring type is a Python scalar/str/None, or they are ``self``/``cls``), results of ``tf.*`` calls,
        arithmetic, subscripts and most methods on tensors, locals assigned from those.
        Not tensors: ``.shape``, ``.dtype``, ``.name``, ``.ndim``, ``len(...)``,
        ``isinstance``, comparisons with ``None``, literals.
        """
        if _depth > 12:
            return False
        value = self.value_of(expr, fn) if _whole else lat.UNKNOWN
        if value.kind and not value.may_be_tensor and type(expr) is not cst.FormattedString:
            # the value model knows it is a Python value or a state object (an f-string is a
            # str, but one that shows a tensor counts as the tensor for the rules)
            return False
        d = _depth + 1
        if isinstance(expr, cst.Name):
            if fn is None or not self._name_is_tensor(expr.value, fn, d):
                return False
            last = self.dominating_binding(expr, fn)
            if last is PARAMETER:
                return self._judged_as_traced(fn, expr.value) and self._param_is_tensor(fn, expr.value, d)
            return last is None or self.is_tensor(last, fn, d)  # type: ignore[arg-type]
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in _STATIC_ATTRS:
                return False
            if expr.attr.value in ("T", "real", "imag", "values", "indices", "dense_shape"):
                return self.is_tensor(expr.value, fn, d)
            if fn is not None and isinstance(expr.value, cst.Name):
                # ``obj.w = tf.gather(...)`` once in this function, then ``print(obj.w)``
                got = self._attribute_assigns(fn).get((expr.value.value, expr.attr.value))
                return got is not None and len(got) == 1 and got[0] is not None and self.is_tensor(got[0], fn, d)
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
            return value.is_tensor or self.is_tensor(expr.body, fn, d) or self.is_tensor(expr.orelse, fn, d)
        return False

    @staticmethod
    def numpy_reads_only_attributes(qualified: str) -> bool:
        """Does the NumPy function ``qualified`` take what it needs from its argument's own
        attributes, without converting it (``np.shape(t)`` is ``t.shape``, ``np.ndim(t)``
        is ``t.ndim``; checked on 2.21 on a symbolic tensor: ``(None, None, 2)``, ``3``)?
        Set 111's time-window ``slice`` map function."""
        return qualified in ("numpy.shape", "numpy.ndim")

    def numpy_reads_a_tensor(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Must NumPy read a symbolic tensor to take ``expr``: a tensor, or a list or
        tuple display, list comprehension or generator with a tensor element (NumPy reads
        each element: ``np.sum([loss_a, loss_b])``, ``np.sum([1.0 if p[i] == y[i] else 0.0
        for i in range(n)])`` where AutoGraph makes each element a ``tf.cond``), or a local
        bound to one (``rewards = [...]``, then ``np.sum(rewards)``)?"""
        if _depth > 6:
            return False
        d = _depth + 1
        if isinstance(expr, (cst.List, cst.Tuple)):
            return any(isinstance(el, cst.Element) and self.numpy_reads_a_tensor(el.value, fn, d)
                       for el in expr.elements)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return self.numpy_reads_a_tensor(expr.elt, fn, d)
        if isinstance(expr, cst.Name) and fn is not None:
            name = expr.value
            last = self.dominating_binding(expr, fn)
            if last is None and len(fn.assigns.get(name, ())) == 1 and name not in fn.param_names and \
                    name not in fn.loop_targets and name not in fn.globals_ and name not in fn.nonlocals:
                last = fn.assigns[name][0]  # its only binding
            if isinstance(last, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):
                return self.numpy_reads_a_tensor(last, fn, d)
        return self.is_tensor(expr, fn)

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
            if q.startswith(("keras.losses.", "keras.activations.", "keras.random.", "keras.metrics.")):
                # functional losses, activations, metrics and random draws return tensors;
                # their classes and registry helpers are Python objects
                last = q.rsplit(".", 1)[-1]
                return q.count(".") == 2 and not last[:1].isupper() and \
                    last not in ("get", "serialize", "deserialize", "SeedGenerator")
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
            callee = self.resolve_callee(call, fn)  # type: ignore[attr-defined]
            if callee is not None and callee.returns and \
                    all(self._returns_python(r, callee, d) for r in callee.returns):
                return False  # ``def rank(t): return t._rank() if ... else None``
            # a user function given a tensor (positionally: ``name=`` and other options
            # say nothing) most likely returns one
            return any(self.is_tensor(a.value, fn, d) for a in call.args if a.keyword is None)
        if isinstance(func, cst.Attribute):
            meth = func.attr.value
            if meth in _NON_TENSOR_METHODS:
                return False
            if self.is_tensor(func.value, fn, d) or self.value_of(call, fn).is_tensor:
                return True  # a method of a tensor, or one the value model knows (``strategy.reduce``)
            # layer/model call through self: self.dense(x)
            if isinstance(func.value, cst.Name) and fn is not None and func.value.value == fn.self_name:
                return any(self.is_tensor(a.value, fn, d) for a in call.args)
        return False

    def _returns_python(self, r: cst.BaseExpression, fn: FunctionInfo, d: int) -> bool:
        """Is what ``return r`` gives surely a Python value: a literal, a static fact of a
        tensor (``t.shape.rank``, ``t._rank()``), or a value the model knows is Python?"""
        if isinstance(r, cst.IfExp):
            return self._returns_python(r.body, fn, d) and self._returns_python(r.orelse, fn, d)
        if is_python_literal(r) or isinstance(r, cst.Name) and r.value == "None":
            return True
        if isinstance(r, cst.Attribute) and r.attr.value in _STATIC_ATTRS | {"ndims"}:
            return True
        if isinstance(r, cst.Call) and isinstance(r.func, cst.Attribute) and r.func.attr.value in _NON_TENSOR_METHODS:
            return True
        return d < 10 and self.value_of(r, fn, d).is_python

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
                result = self._judged_as_traced(owner, name) and self._param_is_tensor(owner, name, d)
            else:
                result = any(self._binding_is_tensor(v, name, owner, d) for v in owner.assigns.get(name, ()))
                if not result and name in owner.loop_targets:
                    result = any(self.iterates_tensors(it, owner, d) for it in owner.loop_targets[name])
                if not result and name in owner.param_names:
                    result = self._judged_as_traced(owner, name) and self._param_is_tensor(owner, name, d)
        self._tensor_cache[key] = result
        return result

    def _binding_is_tensor(self, v: cst.BaseExpression, name: str, owner: FunctionInfo, d: int) -> bool:
        """May ``name``, bound to ``v`` (or to an element of it, when unpacked), be a tensor?"""
        if (id(v), name) not in self.unpacked:  # type: ignore[attr-defined]
            return self.is_tensor(v, owner, d)
        element = self._unpacked_element(v, name, owner)
        if element is not None:
            return element.may_be_tensor
        return self.is_tensor(v, owner, d, _whole=False)  # judged like the whole

    def _unpacked_element(self, v: cst.BaseExpression, name: str, owner: FunctionInfo) -> lat.Value | None:
        """What ``name`` gets when it is unpacked from ``v``, where the model knows it; None
        when ``name`` is not unpacked from ``v`` or the element is unknown."""
        path = self.unpacked.get((id(v), name))  # type: ignore[attr-defined]
        if path is None:
            return None
        element = self.element_of(v, path, owner)
        return element if not element.unknown and element.kind else None

    def _judged_as_traced(self, owner: FunctionInfo, param: str) -> bool:
        if owner.traced:
            return True
        return owner is self._params_fn and (self._params_only is None or param in self._params_only)

    def iterates_tensors(self, it: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Does a ``for`` over ``it`` run as a TensorFlow loop, binding tensors?
        Iterating a tensor, ``tf.range(...)``, a Dataset (or ``iter(ds)``), and
        ``range(<tensor>)`` / ``range(int(<tensor>))``, which AutoGraph converts.
        ``enumerate``/``zip``/``iter`` count only over Datasets."""
        d = _depth + 1
        if d > 12:
            return False
        if isinstance(it, cst.Call):
            if self.resolves_to(it.func, {"tensorflow.range"}):
                return True
            name = dotted_name(it.func)
            if name == "range" and "range" not in self.imports:
                return any(self.is_tensor(b, fn, d) and not self._untold_tf_function_param(b, fn, d)
                           for a in it.args for b in (_strip_int(a.value),))
            if name in ("enumerate", "zip", "iter", "reversed") and it.args:
                # AutoGraph converts these only over Datasets (all of them, for ``zip``);
                # over a Python list they are Python loops, and over a tensor they fail
                # while tracing (checked on TensorFlow 2.21)
                args = [a.value for a in it.args if a.keyword is None]
                return bool(args) and fn is not None and fn.traced and \
                    all(self.is_dataset_expr(_iter_of(a), fn) for a in args)
        if fn is not None and fn.traced and self.is_dataset_expr(it, fn):
            return True
        srcs = self._bindings_of(it.value, fn)[1] if isinstance(it, cst.Name) else [it]
        if srcs and all(isinstance(c, cst.Call) and any(
                q.rsplit(".", 1)[-1] in _FEATURE_DICTS and q.startswith("tensorflow.")
                for q in self.qualified(c.func)) for c in srcs):  # type: ignore[attr-defined]
            return False  # ``tf.io.parse_single_example``: a dict, iterated by its keys in Python
        if self._untold_tf_function_param(it, fn, d):
            # ``for val in mask:`` over a Python list of ints, unrolled
            return False
        return self.is_tensor(it, fn, d)

    def _untold_tf_function_param(self, e: cst.BaseExpression, fn: FunctionInfo | None, d: int) -> bool:
        """Is ``e`` a parameter of the tf.function ``fn``, never rebound, without an input
        signature, that no call of this module fills with a tensor? Then what it holds is
        unknown: a tensor, or a Python value (a list of ints, a count of cells that other
        modules pass as an int from their configuration: ``range(Ncells)`` in set 124's
        coordinate builders is unrolled). Other modules' calls say only literal or not."""
        if isinstance(e, cst.BinaryOperation):  # ``range(Ncells * Np)``
            return any(self._untold_tf_function_param(x, fn, d) for x in (e.left, e.right)) and all(
                self._untold_tf_function_param(x, fn, d) or not self.is_tensor(x, fn, d) for x in (e.left, e.right))
        return isinstance(e, cst.Name) and fn is not None and fn.tf_function and not fn.has_input_signature and \
            e.value in fn.param_names and e.value not in fn.assigns and not self._a_call_gives_a_tensor(fn, e.value, d)


    def _a_call_gives_a_tensor(self, fn: FunctionInfo, name: str, d: int, sites=None,
                               method_call: bool = False) -> bool:
        """Does one of ``sites`` (by default every call of ``fn`` in this module, each with
        its context or calling function) give parameter ``name`` a value that may be a
        tensor, or unpack its arguments so that it may? ``method_call``: the calls leave
        out ``self`` (``layer(x)`` running ``call``)."""
        for call, where in (self.call_sites(fn) if sites is None else sites):
            bound = self.bound_args(call, fn, constructor=method_call)  # type: ignore[attr-defined]
            if bound is None:
                return True
            arg = bound.get(name)
            caller = where.fn if isinstance(where, Ctx) else where
            if arg is not None and not is_python_literal(arg.value) and self.is_tensor(arg.value, caller, d):
                return True
        return False

    def _param_is_tensor(self, fn: FunctionInfo, name: str, d: int = 0) -> bool:
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
            elif documented_python_scalar(fn, name):  # ``dft_length (int): DFT length``
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
            extra = self._layer_call_extra(fn, name, d)
            if extra is not None:
                return extra
            return not self._callers_give_no_tensor(fn, name, d) and not self.param_value(fn, name).is_python
        return False

    def _layer_call_extra(self, fn: FunctionInfo, name: str, d: int) -> bool | None:
        """For a parameter past the first of a Keras layer's or model's ``call``
        (``call(self, inputs, current_resolution, phase)``): whether it may be a tensor,
        judged by what the calls of the layer's instances in this module give it
        (``g(x, current_resolution=res)`` with ``g = G()``), since Keras passes only the
        inputs as tensors and keyword arguments as they are. Without such calls (the layer
        runs inside a ``Sequential``, or another module calls it) nothing is known: not a
        tensor, for the rules. None for any other parameter or function."""
        if not self.is_keras_layer_call(fn):  # type: ignore[attr-defined]
            return None
        named = [p.name.value for p in fn.params if not p.star]
        if len(named) < 3 or name not in named[2:]:
            return None
        return self._a_call_gives_a_tensor(fn, name, d, self.instance_calls(fn.cls), method_call=True)

    def instance_calls(self, cls) -> list[tuple[cst.Call, Ctx]]:
        """Calls of instances of ``cls`` (a class of this module) made in this module:
        ``g(x)`` with ``g = G()``, ``self.g(x)`` with ``self.g = G()`` in ``__init__``."""
        memo = self._instance_calls  # type: ignore[attr-defined]
        if memo is None:
            memo = self._instance_calls = {}  # type: ignore[attr-defined]
            for call, ctx in self.all_calls:  # type: ignore[attr-defined]
                func = call.func
                if type(func) is cst.Name and func.value not in self.classes or \
                        type(func) is cst.Attribute and type(func.value) is cst.Name:  # type: ignore[attr-defined]
                    if type(func) is cst.Name and self.resolve_callee(call, ctx.fn) is not None:  # type: ignore[attr-defined]
                        continue
                    got = self.instance_class(func, ctx.fn)
                    if got is not None:
                        memo.setdefault(id(got), []).append((call, ctx))
        return memo.get(id(cls), [])

    def _callers_give_no_tensor(self, fn: FunctionInfo, name: str, d: int) -> bool:
        """``fn`` is traced only because traced code of this module calls it (or it is
        nested in a traced function and called there), it is never handed to another call,
        and no traced call gives parameter ``name`` a value that may be a tensor: a Python literal
        (``helper(3.0)``), a static attribute (``helper(x.shape)``), anything the tensor
        judgement finds is not one, or nothing (the default). While tracing, the parameter
        holds what its callers give it."""
        if fn.root_reason is not None or d > 6 or self.passed_as_argument(fn.name):  # type: ignore[attr-defined]
            return False  # (far along a chain of helpers: no answer, so the parameter stays a tensor)
        sites = self.traced_call_sites(fn)  # type: ignore[attr-defined]
        if not sites:
            return False  # traced for another reason (nested in a traced function, and never called)
        return not self._a_call_gives_a_tensor(fn, name, d, sites)

    def dominating_binding(self, use: cst.Name, fn: FunctionInfo | None) -> "cst.BaseExpression | object | None":
        """The value of the assignment ``name = value`` that every path to ``use`` (a read
        of ``name`` in ``fn``'s own body) passes last, when one such assignment exists: an
        earlier statement of the same block, or of an enclosing block, with no other binding
        of the name between it and the use. Then that value alone reaches the use, and the
        function's other bindings of the name (``shape = tf.convert_to_tensor(shape)`` a
        few lines later, ``seeds = tf.unstack(seeds)`` just before) say nothing about it.
        :data:`PARAMETER` when the walk reaches the top of the body first: only the
        parameter's value reaches the use. None when the walk meets a loop around the use (a
        later binding comes back through it), a nested function or class, or a conditional
        binding on the way."""
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            return None
        name = use.value
        if name not in fn.assigns or name in fn.globals_ or name in fn.nonlocals:
            return None
        if len(fn.assigns[name]) + (name in fn.param_names) + (name in fn.loop_targets) < 2:
            return None  # one binding: nothing to choose
        parents = self._parents_in(fn)  # type: ignore[attr-defined]
        node: cst.CSTNode = use
        while node is not fn.node:
            parent = parents.get(id(node))
            if parent is None:
                return None
            tp = type(parent)
            if tp in (cst.For, cst.While) and node is parent.body:  # type: ignore[attr-defined]
                return None
            if tp in (cst.FunctionDef, cst.Lambda, cst.ClassDef) and parent is not fn.node:
                return None
            if tp is cst.IndentedBlock or tp is cst.Module:
                body = parent.body  # type: ignore[attr-defined]
                i = next((k for k, st in enumerate(body) if st is node), None)
                if i is None:
                    return None
                for st in reversed(body[:i]):
                    if type(st) is cst.SimpleStatementLine:
                        got = _plain_assignment(st, name)
                        if got is not None:
                            return got
                    if name in assigned_in(st):
                        return None  # bound in a branch, a loop, a with or a try
            node = parent
        return PARAMETER if name in fn.param_names else None

    def python_value_kind(self, v: cst.BaseExpression, fn: FunctionInfo | None = None) -> str:
        """``"py"`` for a Python number/str/bool/container/NumPy value, ``"none"`` for
        None, ``"obj"`` for another object (a call, a lambda, a tf.Variable, a model), else
        ``"unknown"``. Asked of the values a name or attribute is rebound to (TFL109): what the expression itself says,
        and, given the function ``fn`` it is written in, what the value model follows where
        the text says nothing (``self.beta = beta``, a parameter every caller fills with a
        float)."""
        kind = self._written_kind(v)
        if kind != "unknown" or fn is None:
            return kind
        value = self.value_of(v, fn)
        if value.is_python and value.has_const and value.const is None:
            return "none"
        return "py" if value.is_python else "obj" if value.is_tensor or value.kind == lat.Kind.STATE else "unknown"

    def _written_kind(self, v: cst.BaseExpression) -> str:
        if isinstance(v, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                          cst.FormattedString, cst.List, cst.Dict, cst.Tuple, cst.Set, cst.ListComp, cst.DictComp,
                          cst.SetComp)):
            return "py"
        if isinstance(v, cst.Name):
            if v.value == "None":
                return "none"
            if v.value in ("True", "False"):
                return "py"
            return "unknown"
        if isinstance(v, cst.UnaryOperation):
            return self._written_kind(v.expression)
        if isinstance(v, cst.BinaryOperation):
            kinds = {self._written_kind(v.left), self._written_kind(v.right)}
            if "obj" in kinds:
                return "obj"
            return "py" if "py" in kinds else "unknown"
        if isinstance(v, cst.Call):
            if self.qualified_startswith(v.func, ("numpy.",)):
                return "py"
            if isinstance(v.func, cst.Name) and v.func.value in ("int", "float", "str", "bool", "list", "dict",
                                                                  "tuple", "set") and v.func.value not in self.imports:
                return "py"
            return "obj"
        if isinstance(v, (cst.Lambda, cst.GeneratorExp)):
            return "obj"
        return "unknown"

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

    # ----------------------------------------------------------------- stricter judgements

    def _attribute_assigns(self, fn: FunctionInfo) -> dict[tuple[str, str], list[cst.BaseExpression | None]]:
        """(name, attribute) -> the values ``fn``'s own body assigns to ``name.attribute``;
        None for an update whose value is not known on its own (``obj.n += 1``, ``obj.n =
        obj.n + 1``, a target inside an unpacking)."""
        memo = self.__dict__.setdefault("_attr_assign_memo", {})
        got = memo.get(id(fn.node))
        if got is None:
            got = memo[id(fn.node)] = {}
            if isinstance(fn.node, cst.FunctionDef):
                for n in walk_scope(fn.node.body):
                    t = type(n)
                    if t is cst.Assign or t is cst.AugAssign or t is cst.AnnAssign:
                        targets = [tg.target for tg in n.targets] if t is cst.Assign else [n.target]  # type: ignore[attr-defined]
                        for tg in targets:
                            for x in walk_scope(tg):
                                if type(x) is cst.Attribute and type(x.value) is cst.Name:  # type: ignore[attr-defined]
                                    key = (x.value.value, x.attr.value)  # type: ignore[attr-defined]
                                    v = n.value if t is cst.Assign and tg is x else None  # type: ignore[attr-defined]
                                    if v is not None and any(type(m) is cst.Attribute and type(m.value) is cst.Name and
                                                             (m.value.value, m.attr.value) == key for m in walk_scope(v)):  # type: ignore[attr-defined]
                                        v = None  # ``obj.n = obj.n + 1``: reads itself
                                    got.setdefault(key, []).append(v)
        return got

    def renders_a_tensor(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Does Python's text of ``expr`` show a symbolic tensor while tracing: a tensor, a
        tuple, list, set or dict display holding one (``(y, x)``), or an f-string that
        interpolates one (``f"{box_x, box_y}"``)?"""
        if _depth > 6:
            return False
        d = _depth + 1
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return any(not isinstance(el, cst.StarredElement) and self.renders_a_tensor(el.value, fn, d)
                       for el in expr.elements)
        if isinstance(expr, cst.Dict):
            return any(isinstance(el, cst.DictElement) and self.renders_a_tensor(el.value, fn, d)
                       for el in expr.elements)
        if isinstance(expr, cst.FormattedString):
            return any(isinstance(p, cst.FormattedStringExpression) and self.renders_a_tensor(p.expression, fn, d)
                       for p in expr.parts)
        if fn is not None and isinstance(expr, cst.Name) and expr.value in fn.assigns and \
                expr.value not in fn.param_names and \
                all(isinstance(v, cst.Call) and self.tape_gradient(v, fn) for v in fn.assigns[expr.value]):
            return True  # ``gradients = tape.gradient(loss, [w])``: a list of tensors
        return self.is_tensor(expr, fn)

    def tape_gradient(self, call: cst.Call, fn: FunctionInfo) -> bool:
        """Is ``call`` ``tape.gradient(...)`` on a ``tf.GradientTape`` that ``fn`` opens
        (``with tf.GradientTape() as tape:``)? It returns a tensor, or a list of them."""
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "gradient" and
                isinstance(call.func.value, cst.Name)):
            return False
        name = call.func.value.value
        for n in walk_scope(fn.node.body):
            if type(n) is cst.WithItem and isinstance(n.asname, cst.AsName) and \
                    isinstance(n.asname.name, cst.Name) and n.asname.name.value == name and \
                    isinstance(n.item, cst.Call) and self.resolves_to(n.item.func, {"tensorflow.GradientTape"}):
                return True
        return False

    def is_tensor_test(self, test: cst.BaseExpression, fn: FunctionInfo | None) -> bool:
        """A condition AutoGraph turns into ``tf.cond``/``tf.while_loop`` (``and``/``or``/``not``
        of tensors included)."""
        if isinstance(test, cst.BooleanOperation):
            return self.is_tensor_test(test.left, fn) or self.is_tensor_test(test.right, fn)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.is_tensor_test(test.expression, fn)
        return self.is_tensor(test, fn)

    def surely_tensor(self, e: cst.BaseExpression, fn: FunctionInfo | None, depth: int = 0,
                      known: dict[str, bool] | None = None) -> bool:
        """Stricter than ``self.is_tensor``: a tensor by evidence from TensorFlow calls or the
        inputs of a tf.function, never only because a helper's parameter is guessed to be one
        (helpers are often given lists of tensors, which their loops iterate in Python).
        ``known`` gives the answer for some names (the targets of the loops around the node)."""
        if known and isinstance(e, cst.Name) and e.value in known:
            return known[e.value]
        if fn is None or depth > 10 or not self.is_tensor(e, fn):
            return False
        d = depth + 1
        if known:
            return self._surely_known(e, fn, d, known)
        if isinstance(e, cst.Name):
            name = e.value
            last = self.dominating_binding(e, fn)
            if last is not None and last is not PARAMETER:
                return self.surely_tensor(last, fn, d)  # type: ignore[arg-type]
            if root_param(name, fn):
                return True
            for f in fn.scope_chain():
                if name in f.param_names or name in f.bound:
                    if any(self.surely_tensor(v, f, d) for v in f.assigns.get(name, ())):
                        return True
                    return any(self.surely_iterates_tensors(it, f, d) for it in f.loop_targets.get(name, ()))
            return False
        if isinstance(e, cst.Call):
            if self.returns_python_list(e):
                return False
            if self.qualified_startswith(e.func, ("tensorflow.", "keras.ops.", "keras.backend.")):
                return True
            return isinstance(e.func, cst.Attribute) and self.surely_tensor(e.func.value, fn, d)
        if isinstance(e, (cst.Subscript, cst.Attribute)):
            return self.surely_tensor(e.value, fn, d)
        if isinstance(e, cst.BinaryOperation):
            return self.surely_tensor(e.left, fn, d) or self.surely_tensor(e.right, fn, d)
        if isinstance(e, cst.UnaryOperation):
            return self.surely_tensor(e.expression, fn, d)
        if isinstance(e, cst.Comparison):
            return self.surely_tensor(e.left, fn, d) or any(self.surely_tensor(c.comparator, fn, d)
                                                            for c in e.comparisons)
        if isinstance(e, cst.IfExp):
            return self.surely_tensor(e.body, fn, d) or self.surely_tensor(e.orelse, fn, d)
        return False

    def _surely_known(self, e: cst.BaseExpression, fn: FunctionInfo, d: int,
                      known: dict[str, bool]) -> bool:
        """:func:`surely_tensor` where names of ``known`` have a fixed answer."""
        names = {n.value for n in name_nodes(e)}
        fixed = names & set(known)
        if not fixed:
            return self.surely_tensor(e, fn, d)
        if any(known[n] for n in fixed):
            return True
        # judge the other names alone: replace the known ones by a Python constant
        class _Sub(cst.CSTTransformer):
            def leave_Name(self, orig: cst.Name, upd: cst.Name) -> cst.BaseExpression:
                return cst.Integer("0") if orig.value in fixed else upd

        return self.surely_tensor(e.visit(_Sub()), fn, d)  # type: ignore[arg-type]

    def surely_iterates_tensors(self, it: cst.BaseExpression, fn: FunctionInfo | None,
                                depth: int = 0) -> bool:
        if fn is None or depth > 10:
            return False
        d = depth + 1
        if isinstance(it, cst.Call):
            if self.resolves_to(it.func, {"tensorflow.range"}):
                return True
            if self.returns_python_list(it):
                return False
            name = dotted_name(it.func)
            if name == "range" and "range" not in self.imports:
                return any(self.surely_tensor(_strip_int(a.value), fn, d) for a in it.args)
            if name in ("enumerate", "zip", "iter", "reversed"):
                return any(self.surely_iterates_tensors(a.value, fn, d) for a in it.args if a.keyword is None)
        if fn.traced and self.is_dataset_expr(it, fn):
            return True
        if isinstance(it, cst.Name) and it.value in fn.param_names and not fn.has_input_signature and \
                not annotated_tensor(fn, it.value):
            last = self.dominating_binding(it, fn)
            if last is PARAMETER or last is None and all(
                    not self.value_of(v, fn, d).may_be_tensor for v in fn.assigns.get(it.value, ())):
                # ``for g in grads`` over a parameter (rebound, if at all, only to Python
                # lists: ``gradients = [... for g in gradients]``): a Python list far more
                # often than a tensor; a tensor only where the calls of the module give one
                return self.param_value(fn, it.value).is_tensor
        return self.surely_tensor(it, fn, d)

    def reseeded_before(self, node: cst.CSTNode, fn: FunctionInfo, generator: str) -> bool:
        """Is ``node`` (a draw from ``generator``: ``random`` or ``numpy.random``) preceded,
        in ``fn`` and on every path to it, by a statement that seeds that generator with a
        value fixed for the call (``np.random.seed(self.seed)``, ``random.seed(0)``; not a
        parameter, nor a value that varies per iteration)? Then every call draws the same
        numbers anyway: the trace's frozen draw is what the author meant (set 129's
        GraphSAGE neighbour sampling, seeded with a constant)."""
        if not isinstance(fn.node, cst.FunctionDef):
            return False
        parents = self._parents_in(fn)
        child: cst.CSTNode = node
        while child is not fn.node:
            block = parents.get(id(child))
            if block is None:
                return False
            if type(block) is cst.IndentedBlock:
                for stmt in block.body:
                    if stmt is child:
                        break
                    if self._seeds(stmt, fn, generator):
                        return True
            if isinstance(block, (cst.FunctionDef, cst.Lambda)):
                return False
            child = block
        return False

    def _seeds(self, stmt: cst.CSTNode, fn: FunctionInfo, generator: str) -> bool:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if not isinstance(call, cst.Call) or len(call.args) != 1 or call.args[0].star or \
                    generator + ".seed" not in self.qualified(call.func):  # type: ignore[attr-defined]
                continue
            arg = call.args[0].value
            if isinstance(arg, cst.Name) and (arg.value in fn.param_names or arg.value in fn.loop_targets):
                continue
            if not self.value_of(arg, fn).varies and not (isinstance(arg, cst.Name) and arg.value == "None"):
                return True
        return False

    def used_only_as_seed(self, node: cst.CSTNode, fn: FunctionInfo) -> bool:
        """Is ``node``'s value used only as an op's ``seed=``: inside a ``seed=`` argument,
        or assigned to a local name of ``fn`` that is read only in ``seed=`` arguments
        (``seed = int(random.random() * 1234)`` given to two ``tf.image.random_*`` ops so
        that an image and its mask get the same flip)? A constant is what such a seed needs."""
        memo = self._seed_nodes  # type: ignore[attr-defined]
        got = memo.get(id(fn))
        if got is None:
            got = memo[id(fn)] = self._seed_only_nodes(fn)
        return id(node) in got

    def container_only_returned(self, fn: FunctionInfo | None, name: str) -> bool:
        """Does ``fn`` return the container ``name`` of an enclosing scope as its whole
        value at every ``return`` (``inputs['img'] = image; return inputs`` in a map
        function), with that scope mentioning ``name`` nowhere after ``fn``'s definition?
        Then what a trace writes into it is the graph's output structure, filled anew on
        every call, and nothing reads the symbolic tensors left in it."""
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or not fn.returns or \
                not all(isinstance(r, cst.Name) and r.value == name for r in fn.returns):
            return False
        owner = next((f for f in fn.scope_chain() if f is not fn and (name in f.bound or name in f.param_names)), None)
        if owner is None and name not in self.module_assigns:
            return False
        body = owner.node.body.body if owner is not None and isinstance(owner.node, cst.FunctionDef) and \
            isinstance(owner.node.body, cst.IndentedBlock) else self.module.body if owner is None else None
        if body is None:
            return False
        after = None
        for i, st in enumerate(body):
            if st is fn.node:
                after = body[i + 1:]
                break
        if after is None:
            return False  # defined inside another statement: not followed
        stack: list[cst.CSTNode] = list(after)
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Name) and n.value == name:
                return False
            stack.extend(child_nodes(n))
        return True

    def value_unused(self, node: cst.CSTNode, fn: FunctionInfo) -> bool:
        """Is ``node`` the value of ``name = node`` in ``fn`` with ``name`` read nowhere (not
        in ``fn``, not in a function nested in it)? ``batch_z = np.random.uniform(...)``
        left over beside ``tf.random.normal``: the value goes nowhere."""
        parents = self._parents_in(fn)
        parent = parents.get(id(node))
        while isinstance(parent, cst.Attribute) and parent.value is node:
            # ``np.random.uniform(...).astype(np.float32)``: the method's result is the value
            call = parents.get(id(parent))
            if not isinstance(call, cst.Call) or call.func is not parent:
                return False
            node, parent = call, parents.get(id(call))
        if not isinstance(parent, cst.Assign) or parent.value is not node or len(parent.targets) != 1:
            return False
        target = parent.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        name = target.value
        if any(name in f.globals_ or name in f.nonlocals for f in fn.scope_chain()):
            return False
        if sum(1 for n in name_nodes(fn.node) if n.value == name) != _assigned_count(fn, name):
            return False
        work = list(fn.nested)
        while work:
            inner = work.pop()
            if any(n.value == name for n in name_nodes(inner.node)):
                return False
            work.extend(inner.nested)
        return True

    @staticmethod
    def _seed_only_nodes(fn: FunctionInfo) -> set[int]:
        out: set[int] = set()
        # the op seed of a stateful op: drawn once per trace, the op still draws anew on
        # each call. A stateless op's seed is its whole state: frozen, it repeats
        args = [a for n in walk_scope(fn.node) if type(n) is cst.Call and not _stateless(n.func)
                for a in n.args if a.keyword is not None and a.keyword.value in _SEED_KEYWORDS]
        roots: list[cst.CSTNode] = [a.value for a in args]
        # reads that give the value to nothing: the parameter itself, ``seed is None``
        passive = {id(p.name) for p in walk_scope(fn.node) if type(p) is cst.Param}
        passive.update(id(c.left) for c in walk_scope(fn.node) if type(c) is cst.Comparison and
                       all(isinstance(t.operator, (cst.Is, cst.IsNot)) and isinstance(t.comparator, cst.Name)
                           and t.comparator.value == "None" for t in c.comparisons))
        for name in {a.value.value for a in args if isinstance(a.value, cst.Name)}:
            values = fn.assigns.get(name, [])
            reads = [n for n in name_nodes(fn.node) if n.value == name and id(n) not in passive]
            in_seeds = sum(1 for a in args if isinstance(a.value, cst.Name) and a.value.value == name)
            targets = _assigned_count(fn, name)
            if values and targets == len(values) and len(reads) == in_seeds + targets:
                roots.extend(values)
        for r in roots:
            out.update(id(n) for n in walk_scope(r))
        return out

    def returns_python_list(self, call: cst.Call) -> bool:
        q = self.qualified_startswith(call.func, ("tensorflow.", "keras."))
        if q is not None:
            return q.startswith("tensorflow.nest.") or q.rsplit(".", 1)[-1] in _LIST_RETURNING
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in ("gradient", "unstack", "split")

    def surely_tf_test(self, test: cst.BaseExpression, fn: FunctionInfo | None,
                        known: dict[str, bool] | None = None) -> bool:
        if isinstance(test, cst.BooleanOperation):
            return self.surely_tf_test(test.left, fn, known) or self.surely_tf_test(test.right, fn, known)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.surely_tf_test(test.expression, fn, known)
        return self.surely_tensor(test, fn, known=known)

    def surely_tf_loop(self, loop: cst.For | cst.While, fn: FunctionInfo | None) -> bool:
        """A loop that is a graph loop by strong evidence (see :func:`surely_tensor`)."""
        if not self.loop_is_tensorflow(loop, fn):
            return False
        if isinstance(loop, cst.For):
            return self.surely_iterates_tensors(loop.iter, fn)
        return self.surely_tf_test(loop.test, fn)

    def tf_loop_outside_binding(self, name: str, ctx: Ctx) -> cst.For | cst.While | None:
        """The innermost enclosing TensorFlow loop of ``ctx`` that ``name`` is not rebound in
        (so the same Python object crosses its iterations); None when a loop on the way
        rebinds it (a fresh container per iteration) or there is no TensorFlow loop."""
        for loop in ctx.loops():
            node = loop.node
            if name in assigned_in(node.body):
                return None
            if self.surely_tf_loop(node, ctx.fn):
                return node
        return None

    def tf_function_name(self, func: cst.BaseExpression) -> str | None:
        """``unstack`` for ``tf.unstack`` / ``tf.compat.v1.unstack`` / ``tf.math.top_k``..."""
        for q in self.qualified(func):
            if q.startswith(("tensorflow.", "keras.ops.")):
                return q.rsplit(".", 1)[-1]
        return None

    def op_of(self, call: cst.Call) -> str | None:
        """The qualified name of the TensorFlow / Keras op a call adds to the graph (which
        runs on every call of the graph and can fail there), or None for TensorFlow's
        Python-side helpers: classes, ``tf.nest``, ``tf.io.gfile``, ``tf.config``,
        ``tf.autograph``, logging, dtype and shape helpers, ``tf.function`` itself."""
        for q in self.qualified(call.func):
            if not q.startswith(_OP_MODULES):
                continue
            if q.startswith(_NOT_OP_MODULES) or q.startswith("tensorflow.python.") and \
                    not q.startswith(("tensorflow.python.ops.", "tensorflow.python.framework.")):
                return None
            last = q.rsplit(".", 1)[-1]
            if last[:1].isupper() or last in _NOT_OPS or \
                    last.startswith(("get_", "is_", "list_")) and last not in _ELEMENTWISE_TESTS:
                return None
            return q
        return None

    def single_tensor_op(self, e: cst.BaseExpression) -> bool:
        """Is ``e`` (or a subscript of it) the result of a TensorFlow or Keras op that
        surely returns one tensor (:data:`TF_SINGLE_OPS`: ``tf.shape(x)``, ``tf.stack``)?
        Not ``keras.ops.shape``, which returns a Python tuple (checked on 2.21: unpacking
        ``ops.shape(w)[1:3]`` in a tf.function works; ghif/nerf-keras, held-out set 105)."""
        while isinstance(e, cst.Subscript):
            e = e.value
        if not isinstance(e, cst.Call):
            return False
        for q in self.qualified(e.func):  # type: ignore[attr-defined]
            last = q.rsplit(".", 1)[-1]
            if _keras_shape(q):
                continue
            if q.startswith(("tensorflow.", "keras.ops.")) and last in TF_SINGLE_OPS and \
                    ".nest." not in q and ".data." not in q:
                return True
        return False

    def is_op_call(self, call: cst.Call) -> bool:
        """A TensorFlow / Keras op that returns one tensor: ``tf.reduce_sum``, ``tf.math.*``,
        ``keras.ops.*``, ... — not ``tf.io.gfile``, ``tf.config``, ``tf.nest``, list results."""
        if self.op_of(call) is None:
            return False
        for q in self.qualified(call.func):
            last = q.rsplit(".", 1)[-1]
            if last in _NOT_OPS or last in TF_LIST_FUNCS or \
                    last.startswith(("get_", "is_", "list_", "make_")) and last not in _ELEMENTWISE_TESTS:
                return False
            if q.startswith(("keras.ops.", "keras.backend.")):
                if _keras_shape(q):
                    return False  # a tuple in Keras 3: Python ints where the dimension is known
                return self.is_tensor(call, None)
            if q.startswith("tensorflow."):
                rest = q[len("tensorflow."):]
                for p in ("compat.v1.", "compat.v2."):
                    if rest.startswith(p):
                        rest = rest[len(p):]
                head = rest.split(".")[0]
                if "." in rest and head not in _OP_FAMILIES:
                    return False
                return self.is_tensor(call, None)
        return False

    def strong_tensor(self, e: cst.BaseExpression, fn: FunctionInfo | None, _arith: bool = False,
                      _depth: int = 0) -> bool:
        """A stricter tensor judgement for rules that report errors: a TensorFlow op result, a
        local bound to one, arithmetic, subscripts and comparisons of those. A parameter (or
        a name unpacked from one) counts only as an operand of arithmetic or a comparison —
        its bare truthiness or iteration is usually that of a Python list, dict or None."""
        if _depth > 10:
            return False
        d = _depth + 1
        if isinstance(e, cst.Name):
            if fn is None:
                return False
            last = self.dominating_binding(e, fn)
            if last is not None and last is not PARAMETER:
                return self.strong_tensor(last, fn, _arith, d)  # type: ignore[arg-type]
            for f in fn.scope_chain():
                if e.value in f.param_names or e.value in f.bound:
                    # `total = total / 2` keeps what `total` was: judge the other bindings
                    values = [v for v in f.assigns.get(e.value, ()) if not mentions(v, {e.value})]
                    verdicts = [not self._python_element(v, e.value, f) and self.strong_tensor(v, f, _arith, d)
                                for v in values]
                    if e.value in f.param_names:
                        verdicts.append((_arith or f.has_input_signature) and self.is_tensor(e, fn) and
                                        not self._only_other_modules_call(f, e.value, d) or
                                        annotated_tensor(f, e.value))
                    elif not values:
                        verdicts.append(_arith and self.is_tensor(e, fn))
                    return all(verdicts)
            return False
        if isinstance(e, cst.Subscript):
            return self.strong_tensor(e.value, fn, _arith, d)
        if isinstance(e, cst.Attribute):
            return e.attr.value in ("T", "real", "imag") and self.strong_tensor(e.value, fn, _arith, d)
        if isinstance(e, cst.BinaryOperation):
            return self.strong_tensor(e.left, fn, True, d) or self.strong_tensor(e.right, fn, True, d)
        if isinstance(e, cst.UnaryOperation):
            return not isinstance(e.operator, cst.Not) and self.strong_tensor(e.expression, fn, True, d)
        if isinstance(e, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in e.comparisons):
                return False
            return self.strong_tensor(e.left, fn, True, d) or any(
                self.strong_tensor(c.comparator, fn, True, d) for c in e.comparisons)
        if isinstance(e, cst.IfExp):
            if self._checks_a_type(e.test, fn):
                return False  # ``shift > 0 if isinstance(shift, int) else True``: a Python value
            return self.strong_tensor(e.body, fn, _arith, d) or self.strong_tensor(e.orelse, fn, _arith, d)
        if isinstance(e, cst.Call):
            if self.qualified(e.func):
                return self.is_op_call(e)
            if isinstance(e.func, cst.Call) and _single_output_layer(
                    self.qualified_startswith(e.func.func, ("tensorflow.keras.layers.", "keras.layers.",  # type: ignore[attr-defined]
                                                            "tf_keras.layers."))):
                return True  # ``tf.keras.layers.Flatten()(x)``: a layer made and called at once gives a tensor
            if _arith and not isinstance(e.func, cst.Name):
                return self.is_tensor(e, fn)  # a layer call compared or computed with: self.gate(x) > 0
            return False
        return False

    @staticmethod
    def _checks_a_type(test: cst.BaseExpression, fn: FunctionInfo | None = None) -> bool:
        """Does ``test`` check a type anywhere (``isinstance``, ``tf.is_tensor``)? With
        ``fn``, a local bound only to such checks counts too (``static = isinstance(shift,
        int)``). The values such a test picks between are each of the kind it found."""
        if isinstance(test, cst.Name) and fn is not None:
            values = fn.assigns.get(test.value, [])
            return bool(values) and all(_names_a_type_check(code(v)) for v in values)
        return _names_a_type_check(code(test))

    def _python_element(self, v: cst.BaseExpression, name: str, owner: FunctionInfo) -> bool:
        """``name`` unpacked from ``v`` is known to be a Python value (or other non-tensor)."""
        element = self._unpacked_element(v, name, owner)
        return element is not None and not element.may_be_tensor

    def condition_is_tensor(self, test: cst.BaseExpression, fn: FunctionInfo | None) -> bool:
        """Is this condition a tensor: a tensor expression, or ``and``/``or``/``not`` of one?
        A test that checks a type anywhere (``isinstance(f, int) and f >= 1``) is about
        Python values: the type check decides before any tensor's truth is asked."""
        if self._checks_a_type(test):
            return False
        if isinstance(test, cst.BooleanOperation):
            return self.condition_is_tensor(test.left, fn) or self.condition_is_tensor(test.right, fn)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.condition_is_tensor(test.expression, fn)
        return self.strong_tensor(test, fn)

    @staticmethod
    def is_own_update(value: cst.BaseExpression | None, target: cst.BaseExpression) -> bool:
        """Is ``value`` an in-place update of what ``target`` holds, ``self.lam.assign_add(x)``
        for ``self.lam``? A variable's ``assign*``/``scatter*`` methods return the same
        variable (a handle that reads its live value), so binding it back changes nothing."""
        return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value.startswith(("assign", "scatter_")) and \
            code(value.func.value) == code(target)

    def is_static_test(self, test: cst.BaseExpression, fn: FunctionInfo | None) -> bool:
        """Is ``test`` decided by static facts alone: literals, the static shape of a value
        (``x.shape``, ``x.shape[-1]``, ``len(x.shape)``, ``x.ndim``, ``x.shape.rank``,
        ``x.get_shape()``) and parameters annotated as Python scalars (``dim: int``),
        compared or combined? Tracing decides such a test once, from the signature."""
        def shape(e: cst.BaseExpression) -> bool:
            if isinstance(e, cst.Attribute):
                return e.attr.value in ("shape", "ndim") or e.attr.value == "rank" and shape(e.value)
            if isinstance(e, cst.Subscript):
                return shape(e.value)
            if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
                return e.func.attr.value == "get_shape" or e.func.attr.value == "as_list" and shape(e.func.value)
            return False

        def static(e: cst.BaseExpression) -> bool:
            if isinstance(e, (cst.Integer, cst.Float, cst.SimpleString)):
                return True
            if isinstance(e, cst.Name):
                if e.value in ("True", "False", "None"):
                    return True
                return fn is not None and annotated_python_scalar(fn, e.value) and \
                    self.binding_of(e.value, fn) == ("param", fn)
            if isinstance(e, cst.Comparison):
                return static(e.left) and all(static(c.comparator) for c in e.comparisons)
            if isinstance(e, cst.BooleanOperation):
                return static(e.left) and static(e.right)
            if isinstance(e, cst.UnaryOperation):
                return static(e.expression)
            if isinstance(e, cst.BinaryOperation):
                return static(e.left) and static(e.right)
            if isinstance(e, cst.Call) and self.is_builtin(e.func, "len", fn) and len(e.args) == 1:
                return shape(e.args[0].value)
            return shape(e)

        return static(test)

    def is_builtin(self, node: cst.BaseExpression, name: str, fn: FunctionInfo | None) -> bool:
        """``node`` is the builtin ``name``: not imported, defined or bound under that name."""
        if not (isinstance(node, cst.Name) and node.value == name):
            return False
        if name in self.imports or name in self.module_assigns or name in self.module_functions:
            return False
        return fn is None or not any(name in f.bound or name in f.param_names for f in fn.scope_chain())

    def binding_of(self, name: str, fn: FunctionInfo | None):
        """Where ``name`` read in ``fn`` is bound: ("param", f), ("local", f) or ("module", None);
        None for imports, module functions and classes."""
        if fn is not None:
            for f in fn.scope_chain():
                if name in f.globals_:
                    break
                if name in f.param_names and name not in f.assigns:
                    return "param", f
                if name in f.bound or name in f.param_names:
                    return "local", f
        if name in self.imports or name in self.module_functions or name in self.classes:
            return None
        return "module", None

    def is_tensorarray(self, e: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Is ``e`` a ``tf.TensorArray``: made by ``tf.TensorArray(...)``, returned by one of
        its methods that return an array (``ta.write(...)``), kept on ``self`` by
        ``__init__``/``build``, a name bound to one of those, a parameter annotated as one,
        or a parameter of a ``tf.while_loop`` body or condition that the loop gives such an
        array among its ``loop_vars``?"""
        if _depth > 6:
            return False
        if isinstance(e, cst.Call):
            if self.resolves_to(e.func, _TA_NAMES):  # type: ignore[attr-defined]
                return True
            f = e.func
            return isinstance(f, cst.Attribute) and f.attr.value in _TA_RETURNS_TA and \
                self.is_tensorarray(f.value, fn, _depth + 1)
        if isinstance(e, cst.Attribute):
            vals = self_attr_values(e, fn)
            return bool(vals) and any(self.is_tensorarray(v, fn, _depth + 1) for v in vals)  # type: ignore[union-attr]
        if isinstance(e, cst.Name):
            found = self.bound_values(e.value, fn)
            if found is None:
                return False
            kind, owner, vals = found
            if kind == "param":
                assert owner is not None
                for p in owner.params:
                    if p.name.value == e.value and p.annotation is not None:
                        return (dotted_name(p.annotation.annotation) or "").endswith("TensorArray")
                given = self.loop_var_given(owner, e.value)
                return given is not None and self.is_tensorarray(given[0], given[1], _depth + 1)
            return any(self.is_tensorarray(v, owner, _depth + 1) for v in vals)
        return False

    def loop_var_given(self, fn: FunctionInfo, param: str) -> tuple[cst.BaseExpression, FunctionInfo | None] | None:
        """When ``fn`` is the body or condition of a ``tf.while_loop`` of this module whose
        ``loop_vars`` is a list or tuple display, the element it gives the positional
        parameter ``param`` (with the function the loop is called in); None otherwise or
        when two loops give it different ones."""
        memo = self.__dict__.setdefault("_loop_vars_given", {})
        key = (id(fn), param)
        if key in memo:
            return memo[key]
        memo[key] = None
        names = [p.name.value for p in fn.params]
        if param not in names or fn.node.params.star_arg is not None and \
                names.index(param) >= len(fn.node.params.params):
            return None
        index = names.index(param)
        got: tuple[cst.BaseExpression, FunctionInfo | None] | None = None
        for call, ctx in self.all_calls:  # type: ignore[attr-defined]
            if not self.resolves_to(call.func, _WHILE_LOOP_NAMES):  # type: ignore[attr-defined]
                continue
            parts: dict[str, cst.BaseExpression] = {}
            for i, a in enumerate(call.args):
                if a.star:
                    break
                key_name = a.keyword.value if a.keyword is not None else ("cond", "body", "loop_vars")[i] \
                    if i < 3 else None
                if key_name is not None:
                    parts[key_name] = a.value
            loop_vars = parts.get("loop_vars")
            if not any(self._hands_over(parts.get(k), fn, ctx.fn) for k in ("cond", "body")) or \
                    not isinstance(loop_vars, (cst.List, cst.Tuple)):
                continue
            elements = loop_vars.elements
            if any(isinstance(el, cst.StarredElement) for el in elements[:index + 1]) or index >= len(elements):
                return None
            here = (elements[index].value, ctx.fn)
            if got is not None and got[0] is not here[0]:
                return None
            got = here
        memo[key] = got
        return got

    def _hands_over(self, arg: cst.BaseExpression | None, fn: FunctionInfo, caller: FunctionInfo | None) -> bool:
        """Is ``arg`` the function ``fn`` itself (its lambda, or its name as seen from ``caller``)?"""
        if arg is None:
            return False
        if arg is fn.node:
            return True
        return isinstance(arg, (cst.Name, cst.Attribute)) and \
            self.resolve_callee(cst.Call(func=arg), caller) is fn  # type: ignore[attr-defined]

    def bound_values(self, name: str, fn: FunctionInfo | None) -> tuple[str, FunctionInfo | None,
                                                                              list[cst.BaseExpression]] | None:
        b = self.binding_of(name, fn)
        if b is None:
            return None
        kind, owner = b
        if kind == "module":
            return kind, None, list(self.module_assigns.get(name, ()))
        if kind == "local":
            return kind, owner, list(owner.assigns.get(name, ()))  # type: ignore[union-attr]
        return kind, owner, []


def _self_method(func: cst.BaseExpression) -> bool:
    """``self.get_model`` (it may hand back one object kept on ``self``)."""
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"


def _stateless(func: cst.BaseExpression) -> bool:
    """``tf.random.stateless_uniform``, ``tf.image.stateless_random_flip_left_right``..."""
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return "stateless" in name


def _assigned_count(fn: FunctionInfo, name: str) -> int:
    """How many ``name = ...`` targets ``fn``'s own body has (nested functions not counted)."""
    return sum(1 for n in walk_scope(fn.node) if type(n) is cst.AssignTarget and
               isinstance(n.target, cst.Name) and n.target.value == name)


#: TensorFlow functions that return a tuple with a Python list at these places
_LIST_ELEMENTS = {"ctc_beam_search_decoder": (0,), "ctc_beam_search_decoder_v2": (0,), "ctc_greedy_decoder": (0,),
                  "clip_by_global_norm": (0,)}  # ``grads, norm = tf.clip_by_global_norm(...)``: a list
#: keyword arguments that give an op its random seed
_SEED_KEYWORDS = frozenset({"seed", "seed2"})
#: top-level modules whose datasets may be tf.data ones
_TF_TOP_MODULES = frozenset({"tensorflow", "keras", "tf_keras", "tensorflow_datasets", "tensorflow_io"})
#: data libraries that Keras 3 also wraps (``keras.src.utils.module_utils.grain``)
_OTHER_DATA_LIBRARIES = frozenset({"grain", "torch", "jax", "pandas"})
_STATIC_ATTRS = frozenset({"shape", "dtype", "name", "ndim", "rank", "device", "graph", "op", "is_tensor_like",
                           "trainable", "built", "__class__", "__name__"})
#: TensorFlow functions that return a dict of tensors by feature name
_FEATURE_DICTS = frozenset({"parse_single_example", "parse_example", "parse_sequence_example",
                            "parse_single_sequence_example"})
_TF_NON_TENSOR_FUNCS = frozenset({"TensorShape", "as_dtype", "executing_eagerly", "get_static_value",
                                  # the graph being built, the session, graph collections
                                  "get_default_graph", "get_default_session", "get_collection",
                                  "get_collection_ref",
                                  # Python bools about where the code runs
                                  "inside_function", "executing_eagerly_outside_functions",
                                  "in_cross_replica_context", "has_strategy",
                                  # Keras helpers that return Python values (dtype names, flags)
                                  "standardize_dtype", "standardize_shape", "result_type",
                                  "is_float_dtype", "is_int_dtype", "floatx", "epsilon",
                                  "image_data_format", "is_keras_tensor", "backend",
                                  "is_tensor", "Variable", "TensorArray", "name_scope", "device",
                                  "control_dependencies", "GradientTape", "TensorSpec", "DType",
                                  "get_logger", "Module", "function", "init_scope", "print",
                                  "is_symbolic_tensor", "convert_to_tensor_or_indexed_slices",
                                  # static shape helpers: a Python int or None
                                  "dimension_value", "dimension_at_index", "constant_value"})
_BUILTIN_NON_TENSOR = frozenset({"len", "isinstance", "issubclass", "hasattr", "getattr", "type", "id",
                                 "repr", "callable", "range", "enumerate", "zip", "list", "tuple", "dict",
                                 "set", "sorted", "print", "iter", "next", "super", "object", "vars"})
_NON_TENSOR_METHODS = frozenset({"get_shape", "as_list", "numpy", "is_fully_defined", "format", "join",
                                 "startswith", "endswith", "keys", "items", "values", "get", "copy",
                                 "lower", "upper", "split", "strip", "replace", "assign", "assign_add",
                                 "assign_sub", "append", "extend", "update", "pop",
                                 # a tensor's static facts: Python ints, tuples or None
                                 "_rank", "_shape_tuple", "num_elements", "is_compatible_with",
                                 # NumPy array methods a tensor lacks: Python values
                                 "tolist", "item"})
_PYTHON_PARAM_NAMES = frozenset({"training", "mode", "name", "axis", "config", "params", "hparams",
                                 "reuse", "scope", "verbose", "dtype", "shape", "kwargs", "args", "options",
                                 "strategy", "model", "optimizer", "layer", "loss_fn", "fn", "func",
                                 "callback", "logger", "is_training", "mask_value", "seed", "data_format",
                                 "padding", "activation", "step_fn", "metric", "metrics"})
_PYTHON_PARAM_SUFFIXES = ("_fn", "_func", "_config", "_name", "_size", "_dim", "_dims", "_rate",
                          "_type", "_mode", "_layer", "_model", "_params", "_shape", "_axis", "_flag")




def _single_output_layer(q: str | None) -> bool:
    """A Keras layer class (``keras.layers.Flatten``) whose call returns one tensor: not a
    recurrent or attention layer, which may return a list (``return_state``,
    ``return_attention_scores``)."""
    if q is None:
        return False
    last = q.rsplit(".", 1)[-1]
    return last[:1].isupper() and not any(w in last for w in ("RNN", "LSTM", "GRU", "Attention", "Bidirectional",
                                                              "Lambda", "TimeDistributed"))


def local_owner(name: str, fn: FunctionInfo | None) -> FunctionInfo | None:
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


def container_kind(owner: FunctionInfo, name: str) -> str | None:
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
        elif isinstance(v, cst.Call) and (dotted_name(v.func) or "") in LIST_FACTORIES:
            kinds.add("list")
        elif isinstance(v, cst.Call) and (dotted_name(v.func) or "") in DICT_FACTORIES:
            kinds.add("dict")
        elif isinstance(v, cst.BinaryOperation) and isinstance(v.left, cst.Name) and v.left.value == name:
            continue  # `x += [...]` as recorded by the model
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def _as_bool(v: lat.Value) -> lat.Value:
    """A varying value that is a Python bool: two values at most."""
    return lat.Value(v.kind, why=v.why, count=2 if v.count is None else min(v.count, 2))


def _is_bool_expr(e: cst.BaseExpression) -> bool:
    """Is ``e`` surely a bool: a comparison, ``not``, ``True``/``False``, or
    ``and``/``or`` of those?"""
    if isinstance(e, cst.BooleanOperation):
        return _is_bool_expr(e.left) and _is_bool_expr(e.right)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        return True
    return isinstance(e, cst.Comparison) or isinstance(e, cst.Name) and e.value in ("True", "False")


def _iter_of(e: cst.BaseExpression) -> cst.BaseExpression:
    """``iter(ds)`` -> ``ds``."""
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "iter" and e.args:
        return e.args[0].value
    return e


def root_param(name: str, fn: FunctionInfo) -> bool:
    """``name`` is an unassigned parameter of a tf.function itself (a graph input)."""
    for f in fn.scope_chain():
        if name in f.param_names:
            return f.tf_function
        if name in f.bound:
            return False
    return False


#: TensorFlow functions that return a Python list (or nest) of tensors: a loop over their


#: result is a Python loop


_LIST_RETURNING = frozenset({"unstack", "split", "meshgrid", "gradients", "dynamic_partition", "unique_with_counts",
                             "flatten", "flatten_up_to", "map_structure", "pack_sequence_as", "trainable_variables",
                             "global_variables", "get_collection", "make_parallel", "while_loop", "while_loop_v2"})


LIST_FACTORIES = frozenset({"list", "collections.deque", "deque"})


DICT_FACTORIES = frozenset({"dict", "collections.defaultdict", "defaultdict", "collections.OrderedDict",
                             "OrderedDict"})



#: TensorFlow functions that return a Python list/tuple of tensors, not one tensor


TF_LIST_FUNCS = frozenset({"unstack", "split", "meshgrid", "dynamic_partition", "gradients", "shape_n",
                            "trainable_variables", "global_variables", "local_variables", "get_collection",
                            "moving_average_variables", "model_variables", "unique", "unique_with_counts",
                            "moments", "top_k", "while_loop", "cond", "case", "switch_case", "map_fn",
                            "py_function", "numpy_function", "py_func", "eigh", "svd", "qr", "lu",
                            "decode_csv", "identity_n", "tuple", "group", "batch_jacobian", "jacobian",
                            "weighted_moments", "sufficient_statistics", "normalize_moments",
                            "nonzero", "unravel_index", "split_v", "unstack_v", "get_variables",
                            # ``last, outputs, states = K.rnn(step, x, init)``: a tuple, its states a list
                            "rnn", "dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn",
                            "static_bidirectional_rnn", "ctc_decode", "ctc_greedy_decoder",
                            "ctc_beam_search_decoder",
                            "list_files", "glob", "listdir", "walk", "list_physical_devices",
                            "list_logical_devices"})


def _keras_shape(q: str) -> bool:
    """``keras.ops.shape`` / ``keras.backend.shape``: a Python tuple in Keras 3 (Python ints
    where a dimension is known, scalar tensors where not), not one tensor."""
    return q.rsplit(".", 1)[-1] == "shape" and q.startswith(("keras.ops.", "keras.backend."))


#: TensorFlow ops that certainly return a single tensor (unpacking one iterates it)


TF_SINGLE_OPS = frozenset({"shape", "stack", "concat", "reshape", "cast", "range", "constant",
                            "convert_to_tensor", "transpose", "squeeze", "expand_dims", "tile", "gather",
                            "gather_nd", "one_hot", "argmax", "argmin", "matmul", "zeros", "ones", "fill",
                            "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                            "zeros_like", "ones_like", "abs", "exp", "sqrt", "square", "add", "multiply",
                            "subtract", "divide", "clip_by_value", "boolean_mask", "slice",
                            "strided_slice", "sort", "argsort", "cumsum", "size", "rank"})


_OP_FAMILIES = frozenset({"math", "linalg", "nn", "image", "signal", "strings", "random", "sparse", "ragged",
                          "bitwise", "raw_ops", "audio", "sets", "spectral", "experimental"})


#: modules whose functions are graph ops
_OP_MODULES = ("tensorflow.", "keras.ops.", "keras.backend.", "keras.activations.", "keras.losses.",
               "keras.random.")
#: TensorFlow modules of Python-side helpers, not ops
_NOT_OP_MODULES = ("tensorflow.nest.", "tensorflow.python.util.", "tensorflow.python.platform.",
                   "tensorflow.io.gfile.", "tensorflow.compat.v1.logging.", "tensorflow.config.",
                   "tensorflow.saved_model.", "tensorflow.autograph.", "tensorflow.errors.",
                   "tensorflow.dtypes.as_dtype", "tensorflow.experimental.numpy.", "tensorflow.distribute.",
                   "tensorflow.train.", "tensorflow.test.", "tensorflow.sysconfig.", "tensorflow.type_spec",
                   "tensorflow.__internal__.", "tensorflow.summary.")
#: TensorFlow functions that are not ops, wherever they live (with _TF_NON_TENSOR_FUNCS)
_NOT_OPS = frozenset({"load_op_library", "load_library", "py_function", "numpy_function", "no_op",
                      "get_shape", "as_dtype", "function", "init_scope", "device", "control_dependencies",
                      "standardize_dtype", "standardize_shape", "result_type", "is_float_dtype", "is_int_dtype",
                      "executing_eagerly", "get_logger", "get_default_graph", "get_collection", "executing_eagerly", "dimension_value",
                      "ndim", "int_shape", "dtype", "floatx", "epsilon", "learning_phase", "image_data_format",
                      "is_sparse", "is_keras_tensor", "count_params", "is_tensor", "get_static_value",
                      "constant_value", "is_symbolic_tensor", "backend", "name_scope", "variable_scope"})


def annotated_python_scalar(fn: FunctionInfo, name: str) -> bool:
    """Is ``name`` a parameter of ``fn`` annotated ``int``, ``float``, ``bool`` or ``str``?"""
    for p in fn.params:
        if p.name.value == name and p.annotation is not None:
            return code(p.annotation.annotation) in ("int", "float", "bool", "str")
    return False


_DOC_SCALARS = ("int", "float", "bool", "str")
_DOC_NOT_SCALAR = ("tensor", "array", "variable", "tf.", " or ", "|", "list", "tuple")


def documented_python_scalar(fn: FunctionInfo, name: str) -> bool:
    """Does the docstring of ``fn`` give the parameter ``name`` a Python scalar type, in a
    common style (``name (int): ...``, ``name (int) - ...``, ``name: int, ...``,
    ``name : int``, ``:type name: int``), with no tensor or array named beside it?"""
    memo = fn.__dict__.get("_doc_types")
    if memo is None:
        memo = fn.__dict__["_doc_types"] = _doc_types(fn)
    return memo.get(name, False)


def _doc_types(fn: FunctionInfo) -> dict[str, bool]:
    node = fn.node
    if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock) or not node.body.body:
        return {}
    first = node.body.body[0]
    if not (isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Expr) and
            isinstance(first.body[0].value, cst.SimpleString)):
        return {}
    try:
        doc = first.body[0].value.evaluated_value
    except (ValueError, SyntaxError):
        return {}
    if not isinstance(doc, str):
        return {}
    out: dict[str, bool] = {}
    for line in doc.splitlines():
        line = line.strip()
        for p in fn.param_names:
            if p in out:
                continue
            for head in (p + " (", p + "(", p + ":", p + " :", ":type " + p + ":"):
                if line.startswith(head):
                    rest = line[len(head):].lstrip()
                    kind = rest.split(")")[0] if head.endswith("(") else rest
                    word = kind.replace(",", " ").split()[0] if kind.split() else ""
                    low = kind.lower()
                    out[p] = word in _DOC_SCALARS and not any(w in low for w in _DOC_NOT_SCALAR)
                    break
    return out


def annotated_tensor(fn: FunctionInfo, name: str) -> bool:
    for p in fn.params:
        if p.name.value == name and p.annotation is not None:
            return (dotted_name(p.annotation.annotation) or "").endswith(("tf.Tensor", "tensorflow.Tensor"))
    return False


def _names_a_type_check(text: str) -> bool:
    return "is_tensor(" in text or "isinstance(" in text


def _builtin(sem, node: cst.BaseExpression, name: str, ctx: Ctx) -> bool:
    """``node`` is the builtin ``name``: not imported or bound under that name."""
    if not (isinstance(node, cst.Name) and node.value == name):
        return False
    if name in sem.imports or name in sem.module_assigns or name in sem.module_functions:
        return False
    fn = ctx.fn
    return fn is None or not any(name in f.bound or name in f.param_names for f in fn.scope_chain())


#: what ``tf.TensorArray`` resolves to
_TA_NAMES = frozenset({"tensorflow.TensorArray", "tensorflow.compat.v1.TensorArray", "tensorflow.compat.v2.TensorArray",
                       "tensorflow.python.ops.tensor_array_ops.TensorArray"})
#: TensorArray methods that return a TensorArray
_TA_RETURNS_TA = frozenset({"write", "scatter", "unstack", "split", "identity", "grad", "mark_used"})
_WHILE_LOOP_NAMES = frozenset({"tensorflow.while_loop", "tensorflow.compat.v1.while_loop",
                               "tensorflow.compat.v2.while_loop"})


def self_attr_values(expr: cst.BaseExpression, fn: FunctionInfo | None) -> list[cst.BaseExpression] | None:
    """Values assigned in ``__init__``/``build`` to ``self.<attr>`` when ``expr`` is that."""
    cls = fn.class_of_self(expr.value) if isinstance(expr, cst.Attribute) and fn is not None else None
    return None if cls is None else list(cls.init_attrs.get(expr.attr.value, ()))  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------
# The value model: one abstract value per expression (see :mod:`.lattice`)

#: builtins whose result is a Python value whatever they are given
_PY_RESULT_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "isinstance", "issubclass", "hasattr",
                                 "callable", "type", "id", "repr", "range", "enumerate", "zip", "list", "tuple",
                                 "dict", "set", "frozenset", "sorted", "reversed", "format", "ord", "chr",
                                 "hash", "divmod", "hex", "oct", "bin"})
#: builtins whose result is a Python value when their arguments are
_PY_IF_PY_BUILTINS = frozenset({"abs", "max", "min", "sum", "round", "pow", "any", "all"})
#: modules whose functions return Python values (or NumPy values) when given Python values
_PY_MODULES = ("math.", "numpy.", "random.", "os.", "time.", "datetime.", "json.", "re.", "string.",
               "itertools.", "functools.", "collections.", "operator.", "statistics.", "fractions.")
#: modules whose functions return Python values whatever they are given
_ALWAYS_PY_MODULES = ("math.", "os.", "time.", "datetime.", "json.", "re.", "string.")
#: attributes that are Python values (shapes, dtypes, names) on anything
#: ``tf.math`` tests that are ops (a boolean tensor), unlike ``tf.is_tensor`` and the other
#: Python-side ``is_*`` helpers
_ELEMENTWISE_TESTS = frozenset({"is_nan", "is_inf", "is_finite", "is_non_decreasing", "is_strictly_increasing"})

#: TensorFlow 1 functions that update a variable and give it back
_V1_VARIABLE_UPDATES = frozenset({"assign", "assign_add", "assign_sub", "scatter_add", "scatter_sub",
                                  "scatter_update", "scatter_mul", "scatter_div", "scatter_max", "scatter_min",
                                  "scatter_nd_add", "scatter_nd_sub", "scatter_nd_update"})
_STATE_CONSTRUCTORS = (
    ("tensorflow.Variable", "variable"), ("tensorflow.compat.v1.Variable", "variable"),
    ("tensorflow.compat.v2.Variable", "variable"), ("tensorflow.TensorArray", "tensorarray"),
    ("tensorflow.random.Generator", "generator"), ("tensorflow.random.experimental.Generator", "generator"),
    *((f"tensorflow.random{sub}.Generator.{make}", "generator") for sub in ("", ".experimental")
      for make in ("from_seed", "from_non_deterministic_state", "from_state", "from_key_counter")),
    ("tensorflow.data.", "dataset"),
    ("tensorflow.Module", "module"), ("keras.layers.", "layer"), ("keras.Model", "layer"),
    ("keras.models.", "layer"), ("keras.Sequential", "layer"), ("keras.optimizers.", "optimizer"),
    ("keras.metrics.", "metric"), ("keras.losses.", "loss"), ("tensorflow.distribute.", "strategy"),
    ("tensorflow.distribute.get_strategy", "strategy"), ("keras.models.load_model", "layer"),
    ("keras.saving.load_model", "layer"), ("keras.models.clone_model", "layer"),
    ("keras.models.model_from_json", "layer"), ("tensorflow.saved_model.load", "module"),
)
#: methods of a ``tf.distribute`` strategy that run a function on each replica: in a
#: graph on one machine they give what the function returns
_STRATEGY_RUN = frozenset({"run", "experimental_run_v2"})
_BOTTOM = lat.Value(lat.Kind(0))


class ValueFlow:
    """Mixed into :class:`SemanticModel`: :meth:`value_of` answers what an expression is,
    following values through assignments, tuple unpacking, arithmetic, builtins and
    ``math``/NumPy on Python values, ``self`` attributes set in ``__init__``/``build``,
    function returns (one summary per function) and the arguments every call site in the
    module binds. A Python value computed from a loop variable varies per iteration, and
    the value says why. What the model cannot tell is :data:`lattice.UNKNOWN`."""

    def value_of(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> lat.Value:
        key = (id(expr), id(fn))
        memo = self._values  # type: ignore[attr-defined]
        hit = memo.get(key) or self._cut_memo.get(("v", key))  # type: ignore[attr-defined]
        if hit is not None:
            return hit[1]
        if _depth > 24:
            self._cuts += 1  # type: ignore[attr-defined]
            return lat.UNKNOWN
        # the memo holds the node too, so that its id is not reused by a later node
        memo[key] = (expr, _BOTTOM)  # a value defined through itself adds nothing to the join
        return self._remember(memo, key, lambda: (expr, self._value(expr, fn, _depth + 1)), "v")[1]

    def _remember(self, memo: dict, key: object, compute, kind: str):
        """``memo[key] = compute()``, unless the answer was cut at the depth limit: then
        another question, reaching the same expression with more depth left, could know
        more, so it is kept only until the outermost question is answered. Answers thus
        never depend on which question came first."""
        self._open += 1  # type: ignore[attr-defined]
        before = self._cuts  # type: ignore[attr-defined]
        try:
            got = compute()
        finally:
            self._open -= 1  # type: ignore[attr-defined]
        if self._cuts != before:  # type: ignore[attr-defined]
            memo.pop(key, None)
            self._cut_memo[(kind, key)] = got  # type: ignore[attr-defined]
        else:
            memo[key] = got
        if not self._open:  # type: ignore[attr-defined]
            self._cut_memo.clear()  # type: ignore[attr-defined]
        return got

    # ----------------------------------------------------------------- expressions

    def _value(self, e: cst.BaseExpression, fn: FunctionInfo | None, d: int) -> lat.Value:
        t = type(e)
        if t is cst.Integer or t is cst.Float or t is cst.Imaginary or t is cst.SimpleString:
            return lat.const(_literal_value(e))
        if t is cst.ConcatenatedString:
            return lat.CONST
        if t is cst.FormattedString:
            parts = [self.value_of(p.expression, fn, d) for p in e.parts  # type: ignore[attr-defined]
                     if isinstance(p, cst.FormattedStringExpression)]
            return _python_of(parts, lat.CONST) if all(p.is_python for p in parts if p.kind) else lat.OBJECT
        if t is cst.Name:
            last = self.dominating_binding(e, fn)  # type: ignore[arg-type]
            if last is PARAMETER:
                return self.param_value(fn, e.value, d)  # type: ignore[arg-type,attr-defined]
            if last is not None:
                return self.value_of(last, fn, d)  # type: ignore[arg-type]
            return self._name_value(e.value, fn, d)  # type: ignore[attr-defined]
        if t in (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp,
                 cst.GeneratorExp, cst.Lambda):
            return lat.OBJECT
        if t is cst.UnaryOperation:
            inner = self.value_of(e.expression, fn, d)  # type: ignore[attr-defined]
            if isinstance(e.operator, cst.Not):  # type: ignore[attr-defined]
                return inner if inner.is_tensor else _python_of([inner], lat.CONST) if inner.is_python else \
                    lat.UNKNOWN
            return self._combine([inner])
        if t is cst.BinaryOperation:
            return self._combine([self.value_of(e.left, fn, d), self.value_of(e.right, fn, d)])  # type: ignore
        if t is cst.Comparison:
            if any(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in e.comparisons):  # type: ignore
                return lat.CONST
            v = self._combine([self.value_of(e.left, fn, d)] +  # type: ignore[attr-defined]
                              [self.value_of(c.comparator, fn, d) for c in e.comparisons])  # type: ignore
            return _as_bool(v) if v.varies else v  # ``batch == 0``: a Python bool
        if t is cst.BooleanOperation:
            v = self._combine([self.value_of(e.left, fn, d), self.value_of(e.right, fn, d)])  # type: ignore
            return _as_bool(v) if v.varies and _is_bool_expr(e) else v  # ``it == 0 and epoch == 0``
        if t is cst.IfExp:
            if fn is not None and fn.traced and self.surely_tf_test(e.test, fn) and \
                    self.autograph_converts(fn):  # type: ignore[attr-defined]
                # ``1.0 if pred[i] == labels[i] else 0.0``: AutoGraph makes it a ``tf.cond``
                return lat.TENSOR
            return self.value_of(e.body, fn, d).join(self.value_of(e.orelse, fn, d))  # type: ignore
        if t is cst.Attribute:
            return self._attribute_value(e, fn, d)  # type: ignore[arg-type]
        if t is cst.Subscript:
            return self._subscript_value(e, fn, d)  # type: ignore[arg-type]
        if t is cst.Call:
            return self._call_value(e, fn, d)  # type: ignore[arg-type]
        return lat.UNKNOWN

    def _combine(self, parts: list[lat.Value]) -> lat.Value:
        """Arithmetic and comparisons: Python in, Python out; a tensor operand makes a
        tensor; anything else is unknown."""
        parts = [p for p in parts if p.kind]
        if not parts:
            return _BOTTOM
        if all(p.is_python for p in parts):
            return _python_of(parts, lat.Value(lat.PYTHON))
        if any(p.is_tensor for p in parts):
            return lat.TENSOR
        return lat.UNKNOWN

    def _attribute_value(self, e: cst.Attribute, fn: FunctionInfo | None, d: int) -> lat.Value:
        attr = e.attr.value
        if attr in _STATIC_ATTRS:
            return lat.OBJECT
        q = self.qualified(e)  # type: ignore[attr-defined]
        if q:
            return lat.OBJECT  # a module's attribute: a dtype, a constant, a function or class
        if fn is not None and isinstance(e.value, cst.Name):
            owner = next((f for f in fn.scope_chain() if f.cls is not None), None)
            if owner is not None and e.value.value == owner.self_name:
                return self._self_attr_value(owner, attr, d)
        return lat.UNKNOWN

    def _self_attr_value(self, method: FunctionInfo, attr: str, d: int) -> lat.Value:
        """``self.attr``: what ``__init__``/``build`` assigned to it, when that is all
        (an attribute also assigned in other methods is unknown)."""
        cls = method.cls
        values = cls.init_attrs.get(attr) if cls is not None else None
        if not values or cls is None:
            return lat.UNKNOWN
        init = cls.methods.get("__init__") or cls.methods.get("build")
        return lat.join_all([self.value_of(v, init, d) for v in values])

    def _subscript_value(self, e: cst.Subscript, fn: FunctionInfo | None, d: int) -> lat.Value:
        base = e.value
        if isinstance(base, cst.Attribute) and base.attr.value == "shape":
            return lat.OBJECT  # a dimension: a Python int or None
        v = self.value_of(base, fn, d)
        if v.is_tensor:
            return lat.TENSOR
        if isinstance(base, cst.Name) and v.is_python:
            _, values = self._bindings_of(base.value, fn)
            if values and all(is_python_literal(x) for x in values):
                return lat.OBJECT  # an element of a literal table
        return lat.UNKNOWN

    def _call_value(self, call: cst.Call, fn: FunctionInfo | None, d: int) -> lat.Value:
        func = call.func
        q = self.qualified(func)  # type: ignore[attr-defined]
        if q:
            return self._library_call_value(call, q, fn, d)
        if isinstance(func, cst.Name) and self.is_builtin(func, func.value, fn):
            args = [self.value_of(a.value, fn, d) for a in call.args]
            if func.value in _PY_RESULT_BUILTINS:
                return dataclasses.replace(_python_of(args, lat.OBJECT), numpy=False)  # ``float(np.exp(x))``
            if func.value in _PY_IF_PY_BUILTINS:
                return _python_of(args, lat.OBJECT) if all(a.is_python for a in args if a.kind) else lat.UNKNOWN
            return lat.UNKNOWN
        if isinstance(func, cst.Attribute):
            recv = self.value_of(func.value, fn, d)
            if recv.is_python and func.attr.value in _STR_METHODS:
                return _python_of([recv], lat.OBJECT)
            if recv.is_tensor and func.attr.value == "numpy":
                return lat.OBJECT
            if recv.kind == lat.Kind.STATE and recv.state == "strategy":
                return self._strategy_call_value(call, func.attr.value, fn, d)
        callee = self.resolve_callee(call, fn)  # type: ignore[attr-defined]
        if callee is not None and callee.name != "__init__":
            return self._user_call_value(call, callee, fn, d)  # type: ignore[arg-type]
        return lat.UNKNOWN

    def _strategy_call_value(self, call: cst.Call, method: str, fn: FunctionInfo | None, d: int) -> lat.Value:
        """``strategy.reduce(op, t, axis)``: a tensor; ``strategy.run(step, args=...)``:
        what ``step``, a function of this module, returns when that is a tensor (the
        per-replica loss of a ``distributed_train_step``)."""
        if method == "reduce":
            return lat.TENSOR
        if method in _STRATEGY_RUN and call.args and call.args[0].keyword is None and \
                isinstance(call.args[0].value, (cst.Name, cst.Attribute)):
            step = self.resolve_callee(cst.Call(func=call.args[0].value), fn)  # type: ignore[attr-defined]
            if step is not None and not step.tf_function and self.returns_value(step, d + 1).is_tensor:
                return lat.TENSOR
        return lat.UNKNOWN

    def _library_call_value(self, call: cst.Call, names: set[str], fn: FunctionInfo | None, d: int) -> lat.Value:
        for q in names:
            for prefix, what in _STATE_CONSTRUCTORS:
                if q == prefix or prefix.endswith(".") and q.startswith(prefix) and q[len(prefix):][:1].isupper():
                    return lat.state(what)
            if q.startswith(("tensorflow.data.", "tensorflow.compat.v2.data.")) and \
                    q.rsplit(".", 1)[-1] in DATASET_ONLY_METHODS | {"range", "zip", "from_tensor_slices"}:
                return lat.state("dataset")
            if q.startswith("tensorflow.compat.v1.") and q.rsplit(".", 1)[-1] in _V1_VARIABLE_UPDATES and \
                    call.args and self.value_of(call.args[0].value, fn, d).state == "variable":
                # ``tf.compat.v1.scatter_sub(v, ...)`` on a resource variable gives a handle on
                # the same variable (an ``_UnreadVariable``), not a tensor of the graph (set 123)
                return lat.state("variable")
            if q.startswith(("tensorflow.", "keras.ops.", "keras.backend.")):
                last = q.rsplit(".", 1)[-1]
                keras_shape = _keras_shape(q)
                if self.op_of(call) is not None and last not in TF_LIST_FUNCS and \
                        last not in _TF_NON_TENSOR_FUNCS and not keras_shape or last in _TF_SINGLE_TENSOR:
                    return lat.TENSOR  # an op: one tensor (``keras.ops.shape`` is a tuple)
                return lat.UNKNOWN
            if q.startswith(_ALWAYS_PY_MODULES) or q in ("numpy.random.seed",):
                return _python_of([self.value_of(a.value, fn, d) for a in call.args], lat.OBJECT)
            if q.startswith(_PY_MODULES):
                args = [self.value_of(a.value, fn, d) for a in call.args]
                if all(a.is_python for a in args if a.kind):
                    got = _python_of(args, lat.OBJECT)
                    return dataclasses.replace(got, numpy=True) if q.startswith("numpy.") else got
        return lat.UNKNOWN

    def _user_call_value(self, call: cst.Call, callee: FunctionInfo, fn: FunctionInfo | None,
                         d: int) -> lat.Value:
        """A call of a function of this module: its return summary; a Python result
        computed from a varying argument varies too (``lr = schedule(epoch)``)."""
        if callee.tf_function:
            return lat.UNKNOWN
        ret = self.returns_value(callee, d)
        if not ret.is_python:
            # a tensor, or one kind of TensorFlow state (``build_model()`` returning a
            # ``keras.Sequential``); anything mixed says nothing
            return ret if ret.is_tensor or ret.kind == lat.Kind.STATE else lat.UNKNOWN
        args = [self.value_of(a.value, fn, d) for a in call.args]
        varying = next((a for a in args if a.varies), None)
        if varying is not None:
            line = self.line_of(call)  # type: ignore[attr-defined]
            return lat.varying(f"{varying.why} through `{callee.name}()` at line {line}")
        return ret

    def element_of(self, e: cst.BaseExpression, path: tuple[int, ...], fn: FunctionInfo | None,
                   d: int = 0) -> lat.Value:
        """The value at ``path`` of what ``e`` unpacks into: an element of a tuple or list
        display, of what a function of this module returns, or of a tensor (a tensor)."""
        if not path:
            return self.value_of(e, fn, d)
        if d > 24 or path[0] < 0:
            return lat.UNKNOWN
        if isinstance(e, (cst.Tuple, cst.List)):
            elems = e.elements
            if any(isinstance(x, cst.StarredElement) for x in elems[:path[0] + 1]) or path[0] >= len(elems):
                return lat.UNKNOWN
            return self.element_of(elems[path[0]].value, path[1:], fn, d + 1)
        if isinstance(e, cst.Call):
            if path[0] in _LIST_ELEMENTS.get(self.tf_function_name(e.func) or "", ()):
                return lat.OBJECT  # ``decoded, _ = tf.nn.ctc_beam_search_decoder(...)``: a list of SparseTensors
            callee = self.resolve_callee(e, fn)  # type: ignore[attr-defined]
            if callee is not None and not callee.tf_function and isinstance(callee.node, cst.FunctionDef) \
                    and callee.returns:
                return lat.join_all([self.element_of(r, path, callee, d + 1) for r in callee.returns])
        if isinstance(e, cst.Name) and fn is not None and e.value not in fn.assigns and \
                self.binding_of(e.value, fn) == ("param", fn):
            got = self._param_element(fn, e.value, path, d)
            if got is not None:
                return got
        whole = self.value_of(e, fn, d)
        return lat.TENSOR if whole.is_tensor else lat.UNKNOWN

    def _param_element(self, fn: FunctionInfo, name: str, path: tuple[int, ...], d: int) -> lat.Value | None:
        """The element at ``path`` of parameter ``name`` as the calls of this module give it:
        ``x, stage = inputs`` in a layer's ``call`` whose instances are called as
        ``self.u2i([h, self.stage])``. None when a call leaves it out or unpacks its
        arguments, or there is no call."""
        on_instance = fn.cls is not None and fn.name in ("call", "__call__")
        sites = self.instance_calls(fn.cls) if on_instance else self.call_sites(fn)  # type: ignore[attr-defined]
        parts = []
        for call, ctx in sites:
            bound = self.bound_args(call, fn, constructor=on_instance)  # type: ignore[attr-defined]
            arg = None if bound is None else bound.get(name)
            if arg is None:
                return None
            parts.append(self.element_of(arg.value, path, ctx.fn, d + 1))
        return lat.join_all(parts) if parts else None

    def returns_value(self, fn: FunctionInfo, _depth: int = 0) -> lat.Value:
        """One summary per function: the join of what its ``return`` statements give
        (with its parameters as every call site binds them). None when it returns nothing."""
        memo = self._returns  # type: ignore[attr-defined]
        hit = memo.get(id(fn)) or self._cut_memo.get(("r", id(fn)))  # type: ignore[attr-defined]
        if hit is not None:
            return hit
        memo[id(fn)] = _BOTTOM

        def compute() -> lat.Value:
            if isinstance(fn.node, cst.Lambda):
                values = [self.value_of(fn.node.body, fn, _depth)]
            elif is_generator(fn):
                values = [lat.OBJECT]
            else:
                values = [self.value_of(r, fn, _depth) for r in fn.returns] or [lat.const(None)]
            return lat.join_all([x for x in values if x.kind] or [_BOTTOM])

        return self._remember(memo, id(fn), compute, "r")

    # ----------------------------------------------------------------- names

    def _name_value(self, name: str, fn: FunctionInfo | None, d: int) -> lat.Value:
        if name in ("True", "False", "None"):
            return lat.const({"True": True, "False": False, "None": None}[name])
        owner: FunctionInfo | None = None
        for f in fn.scope_chain() if fn is not None else ():
            if name in f.globals_:
                break
            if name in f.param_names or name in f.bound:
                owner = f
                break
        if owner is None:
            return self._module_name_value(name, d)
        parts: list[lat.Value] = []
        values = owner.assigns.get(name, ())
        for v in values:
            path = self.unpacked.get((id(v), name))  # type: ignore[attr-defined]
            parts.append(self.value_of(v, owner, d) if path is None else self.element_of(v, path, owner, d))
        for it, path in owner.loop_elems.get(name, ()):
            parts.append(self._loop_element(name, it, path, owner, d))
        if name in owner.param_names:
            parts.append(self.param_value(owner, name, d))
        if not values and name not in owner.loop_elems and name not in owner.param_names:
            return lat.UNKNOWN  # bound by with/except/import/def
        return self._name_join(name, parts, values, owner.loop_bound.get(name, ()))

    def _module_name_value(self, name: str, d: int) -> lat.Value:
        if name in self.imports or name in self.module_functions or name in self.classes:  # type: ignore
            return lat.OBJECT
        values = self.module_assigns.get(name, ())  # type: ignore[attr-defined]
        parts = [self.value_of(v, None, d) if (id(v), name) not in self.unpacked  # type: ignore[attr-defined]
                 else self.element_of(v, self.unpacked[(id(v), name)], None, d)  # type: ignore[attr-defined]
                 for v in values if not _is_unknown_marker(v)]
        if any(_is_unknown_marker(v) for v in values) and name not in self.module_loop_elems:  # type: ignore
            return lat.UNKNOWN
        for it, path in self.module_loop_elems.get(name, ()):  # type: ignore[attr-defined]
            parts.append(self._loop_element(name, it, path, None, d))
        if not parts or name in self.globally_rebound:  # type: ignore[attr-defined]
            return lat.UNKNOWN
        return self._name_join(name, parts, values, self.module_loop_bound.get(name, ()))  # type: ignore

    def _name_join(self, name: str, parts: list[lat.Value], values, loops) -> lat.Value:
        v = lat.join_all([p for p in parts if p.kind] or [_BOTTOM])
        if loops and v.is_python and any(_counts(x, name) for x in values):
            # ``step += 1`` in a loop: a counter, with one value per iteration (``grid *= 2``
            # over a few scales is not: a handful of values, rebuilt on every call)
            counts = [_loop_count(loop) for loop in loops]
            count = sum(counts) + 1 if all(c is not None for c in counts) else None  # type: ignore[misc]
            return lat.Value(lat.Kind.VARYING, why=f"from `{name}`, updated in every iteration of a loop",
                             count=count)
        return v

    def _loop_element(self, name: str, it: cst.BaseExpression, path: tuple[int, ...],
                      fn: FunctionInfo | None, d: int) -> lat.Value:
        """The value a ``for`` target takes: an element of a Python ``range``/list varies
        per iteration; an element of a tensor or TensorFlow loop is a tensor."""
        if fn is not None and fn.traced and self.iterates_tensors(it, fn):
            return lat.TENSOR
        if isinstance(it, cst.Name) and not (fn is not None and it.value in fn.param_names):
            # ``t = tqdm(range(episodes))`` then ``for episode in t:`` (held-out set 106)
            _, values = self._bindings_of(it.value, fn)
            if len(values) == 1 and isinstance(values[0], cst.Call) and \
                    self.qualified(values[0].func) & (_PROGRESS_BARS | _PROGRESS_RANGES):  # type: ignore[attr-defined]
                return self._loop_element(name, values[0], path, fn, d)
        if isinstance(it, cst.Call):
            q = self.qualified(it.func)  # type: ignore[attr-defined]
            args = [a.value for a in it.args if a.keyword is None]
            if q & _PROGRESS_BARS and args:
                return self._loop_element(name, args[0], path, fn, d)  # tqdm(range(n))
            if q & _PROGRESS_RANGES:
                return lat.Value(lat.Kind.VARYING, why=f"from the loop variable `{name}`", count=_range_count(args))
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and self.is_builtin(it.func, it.func.value, fn):
            args = [a.value for a in it.args if a.keyword is None]
            b = it.func.value
            if b == "range":  # Python ints, whatever the bounds (a tensor loop is seen above)
                return lat.Value(lat.Kind.VARYING, why=f"from the loop variable `{name}`", count=_range_count(args))
            if b == "enumerate" and args:
                if path[:1] == (0,):  # as many values as the sequence has, where known
                    return lat.Value(lat.Kind.VARYING, why=f"from the loop variable `{name}`",
                                     count=self._display_length(args[0], fn))
                if path[:1] == (1,):
                    return self._loop_element(name, args[0], path[1:], fn, d)
                return lat.UNKNOWN
            if b == "zip" and path and 0 <= path[0] < len(args):
                return self._loop_element(name, args[path[0]], path[1:], fn, d)
            return lat.UNKNOWN
        if isinstance(it, (cst.List, cst.Tuple, cst.Set)) and not path:
            elems = [self.value_of(el.value, fn, d) for el in it.elements if isinstance(el, cst.Element)]
            if elems and all(x.is_python for x in elems):
                return lat.Value(lat.Kind.CONST | lat.Kind.VARYING, count=len(elems),
                                 why=f"from the loop variable `{name}`")
        return lat.UNKNOWN

    def _display_length(self, e: cst.BaseExpression, fn: FunctionInfo | None) -> int | None:
        """The length of a list or tuple display, or of a name bound once to one
        (``train_datasets = [ds8, ds16, ds32]``); None when not known."""
        if isinstance(e, cst.Name):
            _, values = self._bindings_of(e.value, fn)
            if len(values) != 1 or (fn is not None and e.value in fn.param_names):
                return None
            e = values[0]
        if isinstance(e, (cst.List, cst.Tuple)) and all(isinstance(el, cst.Element) for el in e.elements):
            return len(e.elements)
        return None

    def param_value(self, fn: FunctionInfo, name: str, _depth: int = 0) -> lat.Value:
        """What parameter ``name`` of ``fn`` holds: ``self``, ``*args`` and ``**kwargs``
        are Python objects; a parameter every call site of the module fills with a Python
        value (or leaves at a Python default) holds a Python value, and a varying one if
        one site gives a varying value; anything else is unknown."""
        key = (id(fn), name)
        memo = self._params  # type: ignore[attr-defined]
        hit = memo.get(key) or self._cut_memo.get(("p", key))  # type: ignore[attr-defined]
        if hit is not None:
            return hit
        memo[key] = _BOTTOM
        return self._remember(memo, key, lambda: self._param_value(fn, name, _depth), "p")

    def _param_value(self, fn: FunctionInfo, name: str, d: int) -> lat.Value:
        if name == fn.self_name or (fn.cls is not None and name == "cls" and fn.params and
                                    fn.params[0].name.value == "cls"):
            return lat.OBJECT
        param = next((p for p in fn.params if p.name.value == name), None)
        if param is None:
            return lat.UNKNOWN
        if param.star in ("*", "**"):
            return lat.OBJECT
        constructor = fn.name == "__init__" and fn.cls is not None
        # A parameter passed on as it is (``def f(x, s): return g(x, s)``) is followed to
        # the callers of the function that passes it, in a loop rather than by recursion:
        # a chain of forwarding helpers, however long, answers as its callers' values do
        parts: list[lat.Value] = []
        work: list[tuple[FunctionInfo, str, tuple]] = [(fn, name, ())]
        seen: set[tuple[int, str]] = set()
        while work:
            f, p, trail = work.pop()
            if (id(f), p) in seen:
                continue
            seen.add((id(f), p))
            got = self._arguments_of(f, p, d, trail, parts, work)
            if got is not None:
                return got
        v = lat.join_all([p for p in parts if p.kind] or [_BOTTOM])
        if constructor and not v.may_be_tensor:
            return v
        return v if v.is_python else lat.UNKNOWN

    def _arguments_of(self, fn: FunctionInfo, name: str, d: int, trail: tuple, parts: list[lat.Value],
                      work: list[tuple[FunctionInfo, str, tuple]]) -> lat.Value | None:
        """Add to ``parts`` the values the calls of ``fn`` give parameter ``name`` (and to
        ``work`` the callers that pass on a parameter of their own); a value to answer
        at once (unknown) when the calls cannot tell. ``trail``: the (function, call) hops
        already followed, for the message of a varying value."""
        param = next((p for p in fn.params if p.name.value == name), None)
        if param is None or param.star:
            return lat.UNKNOWN
        if fn.root_reason is not None and not fn.tf_function:
            # Keras and tf.data call it with tensors, never this module; a function that
            # another module's traced code calls is judged by those calls too
            if not self._external_literals(fn, param, parts):
                return lat.UNKNOWN
        constructor = fn.name == "__init__" and fn.cls is not None
        sites = self.constructor_sites(fn.cls) if constructor else self.call_sites(fn)  # type: ignore[arg-type]
        if not sites and fn.root_reason is not None and not fn.tf_function:
            return None  # the other modules' calls said it all
        if not sites:
            # objects are built eagerly from configuration: a constructor's parameters
            # are Python values or other objects (layers, optimizers), not tensors
            if constructor:
                parts.append(lat.Value(lat.PYTHON | lat.Kind.STATE))
                return None
            return lat.UNKNOWN
        for call, ctx in sites:
            bound = self.bound_args(call, fn, constructor=constructor)  # type: ignore[attr-defined]
            if bound is None:
                bound = self._bound_with_config(call, fn, ctx, constructor)
            if bound is None:
                return lat.UNKNOWN
            arg = bound.get(name)
            if arg is None:
                if param.default is None:
                    return lat.UNKNOWN
                parts.append(self.value_of(param.default, None, d))
            elif isinstance(arg, tuple):  # from a config dict: (value, the dict's scope)
                parts.append(self.value_of(arg[0], arg[1], d))
            else:
                caller = ctx.fn
                passed = self.passed_on_param(arg.value, caller)
                if passed is not None and caller is not None and \
                        not (caller.name == "__init__" and caller.cls is not None) and caller.self_name != passed:
                    work.append((caller, passed, ((fn, call),) + trail))
                    continue
                a = self.value_of(arg.value, caller, d)
                if a.varies and a.why:
                    hops = "".join(f", passed to `{f.name}()` at line {self.line_of(c)}"  # type: ignore[attr-defined]
                                   for f, c in ((fn, call),) + trail)
                    a = lat.Value(a.kind, why=f"{a.why}{hops}", count=a.count)
                parts.append(a)
        return None

    def passed_on_param(self, value: cst.BaseExpression, caller: FunctionInfo | None) -> str | None:
        """The name of ``caller``'s parameter when ``value`` is that parameter passed on as
        it is (``validate(hw_ratio)`` in ``to_hw_size(size, hw_ratio)``), else None."""
        if isinstance(value, cst.Name) and caller is not None and \
                self.binding_of(value.value, caller) == ("param", caller):
            return value.value
        return None

    def _only_other_modules_call(self, fn: FunctionInfo, name: str, d: int) -> bool:
        """Is ``fn`` traced only because other modules' traced code calls it, with no call
        of this module giving parameter ``name`` a tensor? What those calls pass is known
        only as literal or not (``yolo_cfg.cell_n`` may well be a Python int), so the
        strict judgement does not take the parameter for a tensor."""
        return self._tensor_only_from_elsewhere(fn, name, d, set())

    def _tensor_only_from_elsewhere(self, fn: FunctionInfo, name: str, d: int, seen: set) -> bool:
        if fn.tf_function and name in fn.param_names and name not in fn.assigns:
            # a tf.function's parameter is a tensor only when a call says so (or its signature)
            return self._untold_tf_function_param(cst.Name(name), fn, d)
        if self.project is None or fn.tf_function or (id(fn), name) in seen or len(seen) > 8:  # type: ignore
            return False
        seen.add((id(fn), name))
        elsewhere = self.traced_from_other_modules(fn)  # type: ignore[attr-defined]
        if fn.root_reason is not None and not elsewhere:
            return False  # Keras or tf.data pass it tensors
        sites = self.call_sites(fn)
        if not sites:
            return elsewhere
        for call, ctx in sites:
            bound = self.bound_args(call, fn)  # type: ignore[attr-defined]
            if bound is None:
                return False
            arg = bound.get(name)
            if arg is None or is_python_literal(arg.value):
                continue
            caller = ctx.fn
            passed = self.passed_on_param(arg.value, caller)
            if passed is not None:
                # passed on from its caller's parameter (``to_hw_size(size, hw_ratio)``
                # calling ``validate_hw_ratio(hw_ratio)``): judged where it comes from
                if not self._tensor_only_from_elsewhere(caller, passed, d, seen):  # type: ignore[arg-type]
                    return False
            elif self.is_tensor(arg.value, caller, d):
                return False
        return True

    def _external_literals(self, fn: FunctionInfo, param: cst.Param, parts: list[lat.Value]) -> bool:
        """For a module function that traced code of other project modules calls
        (``trace_vars(vs, 'Generator variables:')`` in ``model.py``): add to ``parts`` what
        those traced calls (the ones that give the parameter its value while tracing) give
        ``param`` when every one of them passes a literal or leaves the Python default
        (True); False when any may pass something else, or when the function is a root for
        another reason (Keras, tf.data)."""
        if not self.traced_from_other_modules(fn):  # type: ignore[attr-defined]
            return False
        sites = self.traced_external_call_sites(fn)  # type: ignore[attr-defined]
        if not sites:
            return False
        params = [p.name.value for p in fn.params if p.star not in ("*", "**")]
        name = param.name.value
        for site in sites:
            if site.unpacks:
                return False
            arg = site.arg_for(params, name)
            if arg is None:
                if param.default is None:
                    return False
                parts.append(self.value_of(param.default, None))
            elif arg.kind in ("literal", "constant", "flag"):
                try:
                    parts.append(lat.const(ast.literal_eval(arg.text)))
                except (ValueError, SyntaxError):
                    return False
            elif arg.kind == "python":  # an entry of a settings object (``config.aug.max_scaling``)
                parts.append(lat.Value(lat.PYTHON))
            else:
                return False
        return True

    def instance_class(self, expr: cst.BaseExpression, fn: FunctionInfo | None):
        """The class of this module that ``expr`` is an instance of, when every binding of
        it is a construction of that class (``model = Head()``; ``self.head = Head()`` in
        ``__init__``), else None."""
        got = self._constructions(expr, fn, returns=False, attributes=True)
        if got is None or len(got) != 1:
            return None
        (only,) = got
        return None if isinstance(only, str) else only

    def instance_method(self, func: cst.Attribute, fn: FunctionInfo | None) -> FunctionInfo | None:
        """``obj.method`` where ``obj`` is an instance of a class of this module (``agent =
        Agent()``; ``self.scheduler = LrScheduler()`` in ``__init__``): that method."""
        owner = self.instance_class(func.value, fn)
        return self.method_of(owner, func.attr.value) if owner is not None else None  # type: ignore[attr-defined]

    def constructed_classes(self, expr: cst.BaseExpression, fn: FunctionInfo | None) -> frozenset | None:
        """What ``expr`` may be an instance of, when every binding of it is a known
        construction: classes of this module (:class:`ClassInfo`) and qualified names of
        imported classes (``tensorflow.keras.Model``), followed through names and the
        returns of this module's functions (``model = get_model()``). None when any
        binding is unknown (a parameter, an attribute, another call)."""
        return self._constructions(expr, fn, returns=True, attributes=False)

    def _constructions(self, expr: cst.BaseExpression, fn: FunctionInfo | None, *, returns: bool,
                       attributes: bool, _depth: int = 0) -> frozenset | None:
        """The one walk behind :meth:`instance_class` and :meth:`constructed_classes`:
        ``returns`` follows calls of this module's functions into their returns,
        ``attributes`` follows ``self.x`` to what ``__init__``/``build`` assigns it."""
        if _depth > 8:
            return None
        values: list[tuple[cst.BaseExpression, FunctionInfo | None]] = []
        if isinstance(expr, cst.Call):
            f = expr.func
            if isinstance(f, cst.Name) and self.binding_of(f.value, fn) is None:  # type: ignore[attr-defined]
                if f.value in self.classes:  # type: ignore[attr-defined]
                    return frozenset({self.classes[f.value]})  # type: ignore[attr-defined]
                callee = self.resolve_callee(expr, fn) if returns else None  # type: ignore[attr-defined]
                if callee is not None:
                    if not callee.returns or callee.cls is not None:
                        return None
                    values = [(r, callee) for r in callee.returns]
            if not values:
                names = self.qualified(f)  # type: ignore[attr-defined]
                if names and all(n.split(".")[0] in _TF_TOP_MODULES and n.rsplit(".", 1)[-1][:1].isupper()
                                 for n in names):
                    return frozenset(names)  # tf.keras.Model(...), keras.Sequential(...)
                return None
        elif isinstance(expr, cst.Name):
            owner, vs = self._bindings_of(expr.value, fn)
            if owner is not None and (expr.value in owner.param_names or expr.value in owner.loop_targets):
                return None
            values = [(v, owner) for v in vs]
        elif attributes and isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and fn is not None:
            method = next((f for f in fn.scope_chain() if f.cls is not None), None)
            if method is None or expr.value.value != method.self_name:
                return None
            init = method.cls.methods.get("__init__") or method.cls.methods.get("build")  # type: ignore[union-attr]
            values = [(v, init) for v in method.cls.init_attrs.get(expr.attr.value, ())]  # type: ignore[union-attr]
        if not values:
            return None
        out: set = set()
        for v, owner in values:
            got = self._constructions(v, owner, returns=returns, attributes=attributes, _depth=_depth + 1)
            if got is None:
                return None
            out |= got
        return frozenset(out)

    def closes_over_fresh_state(self, fn: FunctionInfo) -> bool:
        """Does ``fn`` (a nested function) read a local of its enclosing function that
        holds a TensorFlow state object built there (a metric, an optimizer, a model, a
        dataset, a strategy)? Each call of the enclosing function makes new ones, so a
        new ``fn`` per call is needed anyway."""
        outer = fn.parent
        if outer is None:
            return False
        reads = self.closure_reads(fn)
        if self.builds_state_in(outer, reads):
            return True
        # a local that ``fn`` uses as a model or layer (calls it, reads its variables),
        # which the enclosing function gets from a call of a builder each time
        # (``model = build_model(config)``, the builder in another module)
        for name in reads:
            got = outer.assigns.get(name, ())
            if got and all(isinstance(v, cst.Call) and not _self_method(v.func) for v in got) and \
                    self.used_as_model(fn, name):
                return True
        # an object the enclosing function builds and hands to ``tf.train.Checkpoint`` (to
        # restore it) is trackable state, whatever call built it (a registry's factory)
        for call, _ in outer.calls:
            if self.resolves_to(call.func, _CHECKPOINT_CLASSES):  # type: ignore[attr-defined]
                for a in call.args:
                    v = a.value
                    if isinstance(v, cst.Name) and v.value in reads and \
                            any(isinstance(b, cst.Call) for b in outer.assigns.get(v.value, ())):
                        return True
        return False

    def is_keras_object(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """A Keras layer or model: ``self`` in a method of a Keras layer or model class of
        this module, a value known to be one (``keras.Sequential(...)``, ``load_model(...)``,
        ``self.model`` set to one in ``__init__``), or the target of a loop over such an
        object's ``layers`` or ``submodules``."""
        if _depth > 3:
            return False
        if isinstance(expr, cst.Name) and fn is not None:
            cls = fn.class_of_self(expr)
            if cls is not None and self.is_keras_layer_class(cls):  # type: ignore[attr-defined]
                return True
            body = fn.node.body if isinstance(fn.node, cst.FunctionDef) else None
            for node in walk_scope(body) if body is not None else ():
                if type(node) is cst.For and isinstance(node.target, cst.Name) and \
                        node.target.value == expr.value and isinstance(node.iter, cst.Attribute) and \
                        node.iter.attr.value in ("layers", "submodules") and \
                        self.is_keras_object(node.iter.value, fn, _depth + 1):
                    return True
        v = self.value_of(expr, fn)
        return v.kind == lat.Kind.STATE and v.state == "layer"

    def builds_state_in(self, fn: FunctionInfo, names: set[str]) -> bool:
        """Is one of ``names`` a local of ``fn`` that holds a TensorFlow state object built
        there (a metric, an optimizer, a model, a dataset, a strategy): a new one on every
        call of ``fn``?"""
        return any(name in fn.assigns and any(self.value_of(v, fn).kind == lat.Kind.STATE or
                                              _constructs(self, v) for v in fn.assigns[name])
                   for name in names)

    def reads_names_bound_in(self, fn: FunctionInfo, loop: cst.For | cst.While) -> bool:
        """Does ``fn`` (defined in ``loop``) read a name the loop binds anew in each
        iteration: its target, or an assignment of anything but a literal in its body
        (``layer = cls()``, ``opt = keras.optimizers.Adam()``, ``ws = [tf.Variable(...)]``)?
        A function created once would keep what its first trace captured, so a new one
        per iteration is what the code means (or the value must become an argument)."""
        free = names_read(fn.node.body) - fn.bound - fn.param_names if isinstance(fn.node, cst.FunctionDef) else set()
        return self._reads_loop_bindings(free, loop)

    def reads_globals_bound_in(self, fn: FunctionInfo, factory: FunctionInfo, loop: cst.For | cst.While) -> bool:
        """Does ``fn`` (nested in ``factory``) read a name that neither binds, which
        ``loop`` (around a call of ``factory``) binds anew in each iteration? A script's
        ``for g in graphs: model = Net(); run(g)`` with ``run``'s tf.function reading the
        global ``model``: a function created once would keep the first model."""
        if not isinstance(fn.node, cst.FunctionDef):
            return False
        free = names_read(fn.node.body) - fn.bound - fn.param_names - factory.bound - factory.param_names
        return self._reads_loop_bindings(free, loop)

    def wraps_what_the_loop_binds(self, expr: cst.BaseExpression, loop: cst.For | cst.While) -> bool:
        """Does ``expr`` (what ``tf.function(expr)`` wraps in ``loop``) read a name the
        loop binds anew: ``tf.function(self.create_model(res))`` over ``res``, or
        ``tf.function(model)`` after ``model = build(res)``? A different object each
        iteration: its trace cannot be shared."""
        return self._reads_loop_bindings(names_read(expr), loop)

    def used_as_model(self, fn: FunctionInfo, param: str) -> bool:
        """Does ``fn``'s body use its parameter ``param`` as a Keras model or layer: call
        it (``model(x)``) or read its variables (``model.trainable_variables``)?"""
        if not isinstance(fn.node, cst.FunctionDef):
            return False
        for n in walk_scope(fn.node.body):
            t = type(n)
            if t is cst.Call and type(n.func) is cst.Name and n.func.value == param:  # type: ignore[attr-defined]
                return True
            if t is cst.Attribute and type(n.value) is cst.Name and n.value.value == param and \
                    n.attr.value in ("trainable_variables", "trainable_weights", "variables", "weights",  # type: ignore[attr-defined]
                                     "layers"):
                return True
        return False

    def new_object_each_iteration(self, expr: cst.BaseExpression, loop: cst.For | cst.While,
                                  any_call: bool = False) -> bool:
        """Is ``expr`` a name that ``loop`` binds in each iteration to an object it builds
        there (``dis = Discriminator(depth)``: a model, a layer, an optimizer)? A
        tf.function keys its traces on such an argument's identity, so a call that passes
        it traces again in every iteration, whether the function is created once or anew.
        With ``any_call`` (the argument is used as a model where it goes), the result of
        any call counts (``m = sparsity.strip_pruning(pruned_nn(params))``)."""
        if not isinstance(expr, cst.Name):
            return False
        return any(name == expr.value and (self.builds_object(value) or any_call and isinstance(value, cst.Call))
                   for name, value in _loop_assignments(loop))

    def builds_object(self, v: cst.BaseExpression) -> bool:
        """A call that builds a new TensorFlow state object or an instance of a class of
        this module, or of a Keras model class of the project (``Generator(depth=4)``)."""
        if not isinstance(v, cst.Call):
            return False
        if _constructs(self, v):
            return True
        built = self.constructed_classes(v, None)  # ``build_model()`` returning ``Sequential([...])``
        if built and all(not isinstance(c, str) or c.split(".")[0] in ("tensorflow", "keras") for c in built):
            return True
        project = self.project  # type: ignore[attr-defined]
        return project is not None and any(project.is_keras_model_class(q) for q in self.qualified(v.func))  # type: ignore[attr-defined]

    @staticmethod
    def _reads_loop_bindings(free: set[str], loop: cst.For | cst.While) -> bool:
        if not free:
            return False
        if isinstance(loop, cst.For) and any(isinstance(t, cst.Name) and t.value in free
                                             for t in walk_scope(loop.target)):
            return True
        return any(name in free and not is_python_literal(value) for name, value in _loop_assignments(loop))

    def closure_reads(self, fn: FunctionInfo) -> set[str]:
        """The names of its enclosing function that a nested function reads, directly or
        through the helpers defined beside it."""
        outer = fn.parent
        if outer is None:
            return set()
        siblings = {n.name: n for n in outer.nested if isinstance(n.node, cst.FunctionDef)}
        out: set[str] = set()
        todo, seen = [fn], {id(fn)}
        while todo:
            f = todo.pop()
            for name in names_read(f.node.body):
                if name in f.param_names or name in f.bound:
                    continue
                sibling = siblings.get(name)
                if sibling is not None and id(sibling) not in seen:
                    seen.add(id(sibling))
                    todo.append(sibling)
                elif name in outer.bound or name in outer.param_names:
                    out.add(name)
        return out

    def _bound_with_config(self, call: cst.Call, fn: FunctionInfo, ctx: Ctx, constructor: bool) -> dict | None:
        """The arguments of a call that unpacks ``**config``, where ``config`` is a dict
        display (``config = {"lr": 0.1, "units": 64}``) or ``dict(lr=0.1)``: each key binds
        the parameter of its name, as ``(value, scope of the dict)``; and one that unpacks
        ``*args`` of a list or tuple display, whose elements bind the next positional
        parameters. None when another ``*`` or ``**`` makes the binding unknown."""
        plain = cst.Call(func=call.func, args=[a for a in call.args if not a.star])
        bound: dict = dict(self.bound_args(plain, fn, constructor=constructor) or {})  # type: ignore[attr-defined]
        stars = [i for i, a in enumerate(call.args) if a.star == "*"]
        if stars:
            # ``fast_delta(*sargs)`` with ``sargs = [rois, deltas, means, stds, max_shape]``:
            # the display's elements bind the next positional parameters (compiler-paper,
            # held-out set 108); the parameters after them keep their defaults
            i = stars[0]
            elements = self._display_elements(call.args[i].value, ctx.fn)
            if len(stars) > 1 or elements is None or \
                    any(a.keyword is None and not a.star for a in call.args[i + 1:]):
                return None
            names = self.positional_names(call, fn, constructor)  # type: ignore[attr-defined]
            pos = sum(1 for a in call.args[:i] if a.keyword is None and not a.star)
            if pos + len(elements) > len(names):
                return None
            for name, el in zip(names[pos:], elements):
                bound[name] = el
        for a in call.args:
            if a.star == "*":
                continue
            if a.star == "**":
                entries = self._dict_entries(a.value, ctx.fn)
                if entries is None:
                    return None
                bound.update(entries)
        return bound

    def _display_elements(self, e: cst.BaseExpression, fn: FunctionInfo | None) -> list | None:
        """The elements of a list or tuple display (or of a name bound once to one, not a
        parameter), each as ``(value, scope of the display)``; None otherwise."""
        scope = fn
        if isinstance(e, cst.Name):
            if fn is not None and e.value in fn.param_names:
                return None
            scope, values = self._bindings_of(e.value, fn)
            if len(values) != 1:
                return None
            e = values[0]
        if isinstance(e, (cst.List, cst.Tuple)) and all(isinstance(el, cst.Element) for el in e.elements):
            return [(el.value, scope) for el in e.elements]
        return None

    def _dict_entries(self, e: cst.BaseExpression, fn: FunctionInfo | None) -> dict | None:
        scope = fn
        if isinstance(e, cst.Name):
            scope, values = self._bindings_of(e.value, fn)
            if len(values) != 1:
                return None
            e = values[0]
        if isinstance(e, cst.Dict):
            out = {}
            for el in e.elements:
                if not (isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)):
                    return None
                out[el.key.evaluated_value] = (el.value, scope)
            return out
        if isinstance(e, cst.Call) and dotted_name(e.func) == "dict" and all(a.keyword for a in e.args):
            return {a.keyword.value: (a.value, scope) for a in e.args}  # type: ignore[union-attr]
        return None

    def constructor_sites(self, cls) -> list[tuple[cst.Call, Ctx]]:
        """``Net(...)`` calls of a module-level class of this module."""
        if self.classes.get(cls.name) is not cls:  # type: ignore[attr-defined]
            return []
        return [(c, ctx) for c, ctx in self.all_calls  # type: ignore[attr-defined]
                if isinstance(c.func, cst.Name) and c.func.value == cls.name]

    def surely_not_none(self, expr: cst.BaseExpression, fn: FunctionInfo | None, _depth: int = 0) -> bool:
        """Is ``expr`` never ``None``: a literal other than ``None``, arithmetic, a
        comparison, a display or comprehension, a builtin that builds a value
        (``int(...)``, ``len(...)``), or a local bound only to such values, or the loop
        variable of a ``range`` (``for x in list(range(n))``, through a name bound to one)?"""
        if _depth > 4:
            return False
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                             cst.FormattedString, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison,
                             cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp,
                             cst.GeneratorExp, cst.Lambda)):
            return True
        if isinstance(expr, cst.Call):
            if isinstance(expr.func, cst.Name) and expr.func.value in _VALUE_BUILTINS:
                return self.is_builtin(expr.func, expr.func.value, fn)
            # NumPy, TensorFlow and ``math`` functions give arrays, tensors and numbers
            return any(q.startswith(_NOT_NONE_LIBRARIES) and q.rsplit(".", 1)[-1] not in _GIVE_NONE
                       for q in self.qualified(expr.func))  # type: ignore[attr-defined]
        if not isinstance(expr, cst.Name):
            return False
        if expr.value in ("True", "False"):
            return True
        if fn is None or expr.value in fn.globals_ or expr.value in fn.nonlocals:
            return False
        name = expr.value
        values = fn.assigns.get(name, [])
        loops = fn.loop_targets.get(name, [])
        if name in fn.param_names:
            if not self.param_never_none(fn, name):
                return False
        elif not values and not loops:
            return False
        for v in values:
            path = self.unpacked.get((id(v), name))  # type: ignore[attr-defined]
            if not (self._element_not_none(v, path, fn, _depth + 1) if path is not None else
                    self.surely_not_none(v, fn, _depth + 1)):
                return False
        return all(self._ranges(it, fn, _depth + 1) for it in loops)

    def _element_not_none(self, v: cst.BaseExpression, path: tuple[int, ...], fn: FunctionInfo, depth: int) -> bool:
        """Is the element at ``path`` of what ``v`` unpacks into never ``None``: of a
        tuple display, or of every tuple a function of this module returns
        (``x, tx = self._indices(tx)`` with ``return x, tx``)?"""
        if depth > 4:
            return False
        if not path:
            return self.surely_not_none(v, fn, depth)
        if isinstance(v, (cst.Tuple, cst.List)):
            elems = v.elements
            if path[0] >= len(elems) or any(isinstance(x, cst.StarredElement) for x in elems[:path[0] + 1]):
                return False
            return self._element_not_none(elems[path[0]].value, path[1:], fn, depth + 1)
        if isinstance(v, cst.Call):
            callee = self.resolve_callee(v, fn)  # type: ignore[attr-defined]
            if callee is None or callee.tf_function or not isinstance(callee.node, cst.FunctionDef) or \
                    not callee.returns:
                return False
            return all(self._element_not_none(r, path, callee, depth + 1) for r in callee.returns)
        return False

    def _ranges(self, it: cst.BaseExpression, fn: FunctionInfo, depth: int) -> bool:
        """Is ``it`` a ``range(...)``, ``list(range(...))``, or a local bound only to one?"""
        if depth > 4:
            return False
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name):
            if it.func.value == "range":
                return self.is_builtin(it.func, "range", fn)
            if it.func.value in ("list", "tuple") and len(it.args) == 1 and self.is_builtin(it.func, it.func.value, fn):
                return self._ranges(it.args[0].value, fn, depth + 1)
            return False
        if isinstance(it, cst.Name) and it.value not in fn.param_names and it.value not in fn.loop_targets and \
                it.value not in fn.globals_:
            values = fn.assigns.get(it.value, [])
            return bool(values) and all(self._ranges(v, fn, depth + 1) for v in values)
        return False

    def param_never_none(self, fn: FunctionInfo, name: str) -> bool:
        """Does every call of ``fn`` give parameter ``name`` a value that is never
        ``None`` (:meth:`surely_not_none`)? Only for a function whose every mention in the
        module is its definition or a call this module resolves to a function of that
        name, and that Keras or tf.data do not call; a private one that no other module of
        the project names (a package's users do not call it; a lone file has no other
        module), any other only in a project not packaged for others whose other modules
        never name it. Then ``if name is None:`` never runs (set 93:
        ``_get_scale_indices(target_x, target_y)`` from a loop over a range)."""
        memo = self.__dict__.setdefault("_never_none", {})
        key = (id(fn), name)
        if key not in memo:
            # asked again while it is being answered (``tx`` handed back to the function
            # that tests it): that adds no value of its own, so it may be assumed
            memo[key] = True
            memo[key] = self._param_never_none(fn, name)
        return memo[key]

    def _param_never_none(self, fn: FunctionInfo, name: str) -> bool:
        param = next((p for p in fn.params if p.name.value == name), None)
        if param is None or param.star or fn.root_reason is not None or fn.tf_function or \
                not isinstance(fn.node, cst.FunctionDef):
            return False
        sites = self.call_sites(fn)
        if not sites or not self._mentioned_only_as_called(fn.name):
            return False
        for call, ctx in sites:
            bound = self.bound_args(call, fn)  # type: ignore[attr-defined]
            arg = bound.get(name) if bound is not None else None
            if arg is None or not self.surely_not_none(arg.value, ctx.fn):
                return False
        project = self.project  # type: ignore[attr-defined]
        if fn.name.startswith("_") and not fn.name.endswith("__"):
            # a private method: a package's users do not call it; the project's modules may
            return project is None or not project.named_elsewhere({fn.name})
        return project is not None and project.never_used_elsewhere({fn.name})

    def param_off_when_traced(self, fn: FunctionInfo, name: str, none_only: bool) -> bool:
        """Does every call of ``fn`` made while tracing leave parameter ``name`` ``None`` (a
        literal ``None``, or the default ``None``; also ``False`` unless ``none_only``)?
        Only where those calls are known: ``fn`` is traced because traced code of this
        module calls it, or it is a Keras step, which Keras calls with the data alone
        (``train_step(self, images, variable_noise=False)``). Calls from eager code do not
        count: what they give runs eagerly."""
        memo = self.__dict__.setdefault("_off_traced", {})
        key = (id(fn), name, none_only)
        if key not in memo:
            memo[key] = self._param_off_when_traced(fn, name, none_only)
        return memo[key]

    def _param_off_when_traced(self, fn: FunctionInfo, name: str, none_only: bool) -> bool:
        param = next((p for p in fn.params if p.name.value == name), None)
        if param is None or param.star or fn.tf_function or not isinstance(fn.node, cst.FunctionDef):
            return False
        off = ("None",) if none_only else ("None", "False")
        default_off = isinstance(param.default, cst.Name) and param.default.value in off
        elsewhere = self.traced_from_other_modules(fn)  # type: ignore[attr-defined]
        if elsewhere:
            # ``extract(ex['audio'], f0=None)`` in another module's map function; not
            # ``ds.map(features.extract)``, which hands it what the dataset holds
            via = self.project.traced_from_elsewhere().get(fn.name)  # type: ignore[attr-defined]
            if via is None or via.passed_to is not None:
                return False
            external = self.traced_external_call_sites(fn)  # type: ignore[attr-defined]
            params = [p.name.value for p in fn.params if p.star not in ("*", "**")]
            for site in external:
                if site.unpacks or not leaves_off(site.arg_for(params, name), default_off, off):
                    return False
            if not external:
                return False
        if fn.root_reason == KERAS_STEP_REASON:
            # Keras passes ``data`` alone: the other parameters keep their defaults
            positional = [p for p in fn.params if not p.star and p.name.value != fn.self_name]
            if not default_off or not positional or positional[0] is param:
                return False
        elif fn.root_reason is not None and not elsewhere:
            return False
        sites = self.traced_call_sites(fn)  # type: ignore[attr-defined]
        if not sites and fn.root_reason is None and not elsewhere or not self._mentioned_only_as_called(fn.name):
            return False
        for call, _ in sites:
            bound = self.bound_args(call, fn)  # type: ignore[attr-defined]
            if bound is None:
                return False
            arg = bound.get(name)
            if arg is None:
                if not default_off:
                    return False
            elif not (isinstance(arg.value, cst.Name) and arg.value.value in off):
                return False
        return True

    def _mentioned_only_as_called(self, name: str) -> bool:
        """Is every mention of ``name`` in the module a definition of that name or the
        callee of a call that resolves to a function of the module?"""
        memo = self.__dict__.setdefault("_only_called", {})
        got = memo.get(name)
        if got is None:
            calls = 0
            for call, ctx in self.all_calls:  # type: ignore[attr-defined]
                f = call.func
                head = f.attr if isinstance(f, cst.Attribute) else f if isinstance(f, cst.Name) else None
                if head is not None and head.value == name:
                    if self.resolve_callee(call, ctx.fn) is None:  # type: ignore[attr-defined]
                        memo[name] = False
                        return False
                    calls += 1
            defs = sum(1 for c in self.classes.values() for m in c.methods if m == name) + \
                (name in self.module_functions)  # type: ignore[attr-defined]
            mentions = 0
            stack: list[cst.CSTNode] = [self.module]  # type: ignore[attr-defined]
            while stack:
                n = stack.pop()
                if type(n) is cst.Name and n.value == name:  # type: ignore[attr-defined]
                    mentions += 1
                elif type(n) is cst.SimpleString and name in n.value:  # type: ignore[attr-defined]
                    mentions += 1_000  # ``getattr(self, "name")``
                stack.extend(child_nodes(n))
            got = memo[name] = mentions == calls + defs
        return got

    def call_sites(self, fn: FunctionInfo) -> list[tuple[cst.Call, Ctx]]:
        """Every call of ``fn`` in this module (plain, ``self.method``, or through a name
        bound to ``tf.function(fn)``), with its context."""
        if self._all_sites is None:  # type: ignore[attr-defined]
            sites: dict[int, list[tuple[cst.Call, Ctx]]] = {}
            for call, ctx in self.all_calls:  # type: ignore[attr-defined]
                callee = self.resolve_callee(call, ctx.fn)  # type: ignore[attr-defined]
                if callee is not None:
                    sites.setdefault(id(callee), []).append((call, ctx))
            self._all_sites = sites
        return self._all_sites.get(id(fn), [])  # type: ignore[union-attr]

    def forwarded_literals(self, expr: cst.BaseExpression, fn: FunctionInfo | None,
                           _depth: int = 0) -> list[tuple[str, cst.Call]] | None:
        """When ``expr`` is a parameter of ``fn`` passed on as it is (``fn`` not traced,
        the parameter never rebound), the number or string literals that the calls of
        ``fn`` in this module pass for it, each with its call, through a few levels of
        such forwarding; None when a call passes anything else (or unpacks its
        arguments), or nothing in the module calls ``fn``."""
        if _depth > 3 or fn is None or fn.traced or not isinstance(expr, cst.Name):
            return None
        if self.binding_of(expr.value, fn) != ("param", fn):
            return None
        sites = self.call_sites(fn)
        if not sites:
            return None
        param = next((p for p in fn.params if p.name.value == expr.value), None)
        out: list[tuple[str, cst.Call]] = []
        for call, ctx in sites:
            args = self.bound_args(call, fn)  # type: ignore[attr-defined]
            if args is None:
                return None
            arg = args.get(expr.value)
            value = arg.value if arg is not None else param.default if param is not None else None
            if value is None:
                return None
            lit = scalar_literal(value)
            if lit is not None:
                out.append((lit, call))
                continue
            deeper = self.forwarded_literals(value, ctx.fn, _depth + 1)
            if deeper is None:
                return None
            out.extend(deeper)
        return out

    # ----------------------------------------------------------------- Keras objects built

    def keras_construction(self, call: cst.Call) -> KerasConstruction | None:
        """What constructing ``call`` makes when it is a Keras object that owns state
        (weights, or a Keras 3 seed): see :func:`tflint.semantic.keras.keras_construction`."""
        return keras_construction(self, call)

    def keras_object_built(self, call: cst.Call, fn: FunctionInfo | None) -> bool:
        """Whether the Keras layer or model that ``call`` constructs is built in ``fn``
        (its weights created): called (``Dense(2)(x)``, ``layer(x)`` after ``layer =
        Dense(2)``), built, fitted or predicted with, or put into a Keras object that is.
        A layer only read for its configuration or its initial state
        (``StackedRNNCells(cells).get_initial_state(...)``) is not built. Where the object
        goes anywhere else (returned, stored on ``self``, given to another function, in
        a loop) the answer is yes: it may be built there."""
        if fn is None:
            return True
        parents = self._parents_in(fn)
        return self._built(call, parents, 0)

    def _parents_in(self, fn: FunctionInfo) -> dict[int, cst.CSTNode]:
        """id(node) -> parent for every node of ``fn``'s body, nested functions included."""
        got = self._parent_maps.get(id(fn))  # type: ignore[attr-defined]
        if got is None:
            got = {}
            stack: list[cst.CSTNode] = [fn.node]
            while stack:
                n = stack.pop()
                for c in child_nodes(n):
                    got[id(c)] = n
                    stack.append(c)
            self._parent_maps[id(fn)] = got  # type: ignore[attr-defined]
        return got

    def _built(self, node: cst.CSTNode, parents: dict[int, cst.CSTNode], depth: int) -> bool:
        if depth > 8:
            return True
        p = parents.get(id(node))
        # an element of a list or tuple display, or of a list comprehension
        while isinstance(p, (cst.Element, cst.List, cst.Tuple)) or \
                isinstance(p, cst.ListComp) and p.elt is node:
            node, p = p, parents.get(id(p))
        if isinstance(p, cst.Call) and p.func is node:
            return True
        if isinstance(p, cst.Attribute) and p.value is node:
            return p.attr.value in _BUILDING_METHODS
        if isinstance(p, cst.Arg) and p.value is node:
            outer = parents.get(id(p))
            if isinstance(outer, cst.Call) and self.qualified_startswith(  # type: ignore[attr-defined]
                    outer.func, _KERAS_CONTAINERS) is not None:
                return self._built(outer, parents, depth + 1)  # built when its container is
            return True
        if isinstance(p, cst.Assign) and p.value is node:
            if len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
                return True
            name = p.targets[0].target
            scope = parents.get(id(p))
            while scope is not None and not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
                scope = parents.get(id(scope))
            if scope is None:
                return True
            for n in _names_below(scope, name.value):
                if n is name:
                    continue
                q = parents.get(id(n))
                if isinstance(q, cst.AssignTarget):
                    continue  # bound again: that value is judged where it is made
                if self._built(n, parents, depth + 1):
                    return True
            return False
        return True


_TF_SINGLE_TENSOR = frozenset({"constant", "convert_to_tensor", "zeros", "ones", "cast", "range"})
_PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm"})
_PROGRESS_RANGES = frozenset({"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"})
_STR_METHODS = frozenset({"format", "join", "lower", "upper", "strip", "split", "replace", "startswith",
                          "endswith", "get", "keys", "items", "values", "copy", "index", "count"})


def _python_of(parts: list[lat.Value], default: lat.Value) -> lat.Value:
    """The Python result of combining values into a Python value (arithmetic on Python
    values, a builtin, ``math``): constant if all parts are constants, varying (and why)
    if one part varies, ``default`` if all are Python, else some Python value."""
    parts = [p for p in parts if p.kind]
    numpy = any(p.numpy for p in parts)  # NumPy in, NumPy out (``50 / (1 + np.exp(-e))``)
    if parts and all(p.kind == lat.Kind.CONST for p in parts):
        return lat.Value(lat.Kind.CONST, numpy=numpy) if numpy else lat.CONST
    varying = next((p for p in parts if p.varies and p.why), None)
    if varying is not None:
        # one varying part combined with constants takes at most as many values as it
        only = all(p is varying or p.kind == lat.Kind.CONST for p in parts)
        return lat.Value(lat.Kind.VARYING, why=varying.why, count=varying.count if only else None, numpy=numpy)
    if all(p.is_python for p in parts):
        return default
    return lat.Value(lat.PYTHON)


def _plain_assignment(line: cst.SimpleStatementLine, name: str) -> cst.BaseExpression | None:
    """The value of the last ``name = value`` of a statement line (``value`` itself: not an
    unpacking, an augmented or a chained assignment)."""
    for small in reversed(line.body):
        if type(small) is cst.Assign and len(small.targets) == 1:
            tg = small.targets[0].target
            if type(tg) is cst.Name and tg.value == name:
                return small.value
        elif type(small) is cst.AnnAssign and small.value is not None and \
                type(small.target) is cst.Name and small.target.value == name:
            return small.value
        if name in assigned_in(small):
            return None  # bound another way (unpacked, augmented): the caller gives up
    return None


def _literal_value(e: cst.BaseExpression) -> object:
    try:
        return e.evaluated_value  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a literal libcst cannot evaluate is still a constant
        return None


def _is_unknown_marker(v: cst.BaseExpression) -> bool:
    return isinstance(v, cst.Name) and v.value == "__unknown__"


def _range_count(args: list[cst.BaseExpression]) -> int | None:
    if all(isinstance(a, cst.Integer) for a in args) and 1 <= len(args) <= 3:
        vals = [int(a.value, 0) for a in args]  # type: ignore[attr-defined]
        if len(vals) == 1:
            return vals[0]
        step = vals[2] if len(vals) == 3 else 1
        return max(0, (vals[1] - vals[0]) // (step or 1))
    return None


_CHECKPOINT_CLASSES = frozenset({"tensorflow.train.Checkpoint", "tensorflow.compat.v2.train.Checkpoint",
                                 "tensorflow.train.CheckpointManager"})


def _loop_assignments(loop: cst.For | cst.While) -> Iterator[tuple[str, cst.BaseExpression]]:
    """(name, value) for every name an ``=`` statement in ``loop``'s body binds (each
    name of an unpacking target with the whole value), nested scopes left out."""
    for n in walk_scope(loop.body):
        if type(n) is cst.Assign:
            for tg in n.targets:  # type: ignore[attr-defined]
                for t in walk_scope(tg.target):
                    if type(t) is cst.Name:
                        yield t.value, n.value  # type: ignore[attr-defined]


def _constructs(sem, v: cst.BaseExpression) -> bool:
    """A call of a TensorFlow/Keras class (``tf.distribute.MirroredStrategy()``,
    ``keras.metrics.Mean()``) or of a class of this module."""
    if not isinstance(v, cst.Call):
        return False
    for q in sem.qualified(v.func):
        if q.split(".")[0] in ("tensorflow", "keras") and q.rsplit(".", 1)[-1][:1].isupper():
            return True
    return isinstance(v.func, cst.Name) and v.func.value in sem.classes


def _counts(v: cst.BaseExpression, name: str) -> bool:
    """``name + 1``, ``name - step``, ``1 + name``: an additive update of ``name``."""
    if not (isinstance(v, cst.BinaryOperation) and isinstance(v.operator, (cst.Add, cst.Subtract))):
        return False
    sides = (v.left, v.right)
    return any(isinstance(x, cst.Name) and x.value == name for x in sides) and \
        not all(isinstance(x, cst.Name) and x.value == name for x in sides)


def _loop_count(loop: cst.CSTNode) -> int | None:
    """The iteration count of ``for _ in range(N)`` or of a loop over a literal display."""
    if not isinstance(loop, cst.For):
        return None
    it = loop.iter
    if isinstance(it, (cst.List, cst.Tuple, cst.Set)):
        return len(it.elements)
    if isinstance(it, cst.Call) and dotted_name(it.func) == "range":
        return _range_count([a.value for a in it.args if a.keyword is None])
    return None


def is_generator(fn: FunctionInfo) -> bool:
    """A ``def`` whose body (not its nested functions) yields."""
    node = fn.node
    if not isinstance(node, cst.FunctionDef):
        return False
    return any(isinstance(n, (cst.Yield,)) for n in walk_scope(node.body))


#: methods that build a Keras layer or model (create its weights) when called on it
_BUILDING_METHODS = frozenset({"__call__", "call", "build", "fit", "evaluate", "predict", "train_on_batch",
                               "test_on_batch", "predict_on_batch", "apply", "set_weights", "load_weights",
                               "build_from_config", "predict_step", "train_step", "test_step"})
#: Keras constructors that take layers and build them when they are built
_KERAS_CONTAINERS = ("keras.layers.", "keras.Sequential", "keras.models.Sequential", "keras.Model",
                     "keras.models.Model")


def _names_below(node: cst.CSTNode, name: str) -> Iterator[cst.Name]:
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name and n.value == name:
            yield n
        stack.extend(child_nodes(n))
