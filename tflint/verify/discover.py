"""Import a target and find the functions to verify, with their inputs.

Runs inside the child process (TensorFlow imported). A target is a file path, a module name,
or either followed by ``:name`` to pick one function (``mod:fn``, ``mod:model.train_step``).

Inputs come, in this order, from:

1. examples declared next to the code, with no import of tflint:

   * a module-level ``TFLINT_EXAMPLES = {"fn": [example, ...], "model.train_step": [...]}``
   * or an attribute on the function: ``fn.__tflint_examples__ = [example, ...]``

   where an example is a tuple of positional arguments, ``(args_tuple, kwargs_dict)``,
   ``{"args": ..., "kwargs": ...}``, or a zero-argument callable returning one of those. A
   callable is called before *every* call, so it can also play the part of the code that
   runs between calls (a training loop that updates a global learning rate);
2. the ``input_signature``: one tensor per ``TensorSpec``; unknown dimensions get size 2 in
   the first example and 3 in the second, which exercises shape polymorphism;
3. nothing, when the function takes no arguments.

Anything else is listed as skipped with the reason.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import types
from typing import Any, Callable

import tensorflow as tf

from tflint.verify import synth
from tflint.verify.replay import Args, Candidate, Example
from tflint.verify.state import unwrap_function
from tflint.verify.targets import split_target  # noqa: F401  (re-exported)

EXAMPLES_ATTR = "__tflint_examples__"
EXAMPLES_MAPPING = "TFLINT_EXAMPLES"
KERAS_STEPS = ("train_step", "test_step", "predict_step")
_FRAMEWORK = ("tensorflow", "keras", "tf_keras")


class TargetError(Exception):
    """The target itself cannot be imported or does not name a function."""


def import_target(spec: str) -> types.ModuleType:
    """Import a file or module name without writing bytecode into the user's tree."""
    sys.dont_write_bytecode = True
    if spec.endswith(".py") or os.sep in spec or os.path.exists(spec):
        path = os.path.abspath(spec)
        if not os.path.isfile(path):
            raise TargetError(f"no such file: {spec}")
        name, root = _module_name_for(path)
        if root not in sys.path:
            sys.path.insert(0, root)
        if "." in name:
            return importlib.import_module(name)
        loader_spec = importlib.util.spec_from_file_location(name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise TargetError(f"cannot import {spec}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(spec)


def _module_name_for(path: str) -> tuple[str, str]:
    """Dotted name and sys.path root of a file, walking up through packages so that
    relative imports inside the target work."""
    parts = [os.path.splitext(os.path.basename(path))[0]]
    d = os.path.dirname(path)
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parts.insert(0, os.path.basename(d))
        d = os.path.dirname(d)
    return ".".join(parts), d


def is_tf_function(value: Any) -> bool:
    return hasattr(value, "python_function") and hasattr(value, "experimental_get_tracing_count")


def _user_type(value: Any) -> bool:
    mod = type(value).__module__ or ""
    return mod.split(".")[0] not in _FRAMEWORK + ("builtins", "numpy")


def _source_span(fn: Any) -> tuple[str, int, int | None]:
    try:
        file = inspect.getsourcefile(fn) or ""
        lines, start = inspect.getsourcelines(fn)
        return file, start, start + len(lines) - 1
    except (TypeError, OSError):
        return getattr(getattr(fn, "__code__", None), "co_filename", ""), 0, None


def _mentions_tf_data(module: types.ModuleType) -> bool:
    try:
        src = inspect.getsource(module)
    except (OSError, TypeError):
        return False
    return "tf.data" in src or "Dataset" in src


def _is_user_module(module: Any) -> bool:
    """A module of the user's code: a source file outside the interpreter's installation."""
    file = getattr(module, "__file__", None)
    if not isinstance(module, types.ModuleType) or not file:
        return False
    file = os.path.abspath(file)
    roots = {os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return not any(file.startswith(r + os.sep) for r in roots) and \
        "site-packages" not in file and "dist-packages" not in file


def _uses_tf_data(module: types.ModuleType) -> bool:
    """Whether the module, or a user module it imports from, builds tf.data pipelines: then
    its eager mode must run in a process with ``tf.data.experimental.enable_debug_mode()``
    (process-global, set before building). Helpers count: a dataset built by
    ``pipelines.make()`` is as much a tf.data pipeline as one built here."""
    if _mentions_tf_data(module):
        return True
    seen = {id(module)}
    for value in list(vars(module).values()):
        other = value if isinstance(value, types.ModuleType) else \
            sys.modules.get(getattr(value, "__module__", "") or "")
        if other is None or id(other) in seen or not _is_user_module(other):
            continue
        seen.add(id(other))
        if _mentions_tf_data(other):
            return True
    return False


def helpers_of(py_function: Any, depth: int = 2) -> list[dict[str, Any]]:
    """The user functions ``py_function`` names (helpers, in this module or another user
    module), two calls deep: a static finding in one of them explains a divergence."""
    from tflint.verify.state import code_names

    out: list[dict[str, Any]] = []
    seen = {id(py_function)}
    frontier = [py_function]
    for _ in range(depth):
        nxt = []
        for fn in frontier:
            names, _free = code_names(fn)
            g = getattr(fn, "__globals__", {}) or {}
            for name in sorted(names):
                value = g.get(name)
                if is_tf_function(value):
                    value = unwrap_function(value)[1]
                if isinstance(value, types.ModuleType):
                    continue
                if not isinstance(value, types.FunctionType) or id(value) in seen:
                    continue
                seen.add(id(value))
                if not _is_user_module(sys.modules.get(value.__module__ or "")):
                    continue
                file, line, end = _source_span(value)
                if file and line:
                    out.append({"name": value.__qualname__, "file": file, "line": line,
                                "end_line": end})
                    nxt.append(value)
        frontier = nxt
    return out


def normalize_examples(spec: Any, name: str) -> list[Example]:
    """Turn a user's example declaration into :class:`Example` objects (see module doc)."""
    if spec is None:
        return []
    if callable(spec) or isinstance(spec, dict) or _is_args_kwargs(spec):
        spec = [spec]
    if not isinstance(spec, (list, tuple)):
        raise TargetError(f"examples for {name} must be a list, got {type(spec).__name__}")
    out = []
    for i, item in enumerate(spec):
        if callable(item) and not is_tf_function(item):
            out.append(Example(f"example {i + 1} (callable)", _calling(item, name),
                               static=False, factory=item))
        else:
            args = _as_args(item, name)
            out.append(Example(f"example {i + 1}: {_show_args(args)}", _constant(args)))
    return out


def _show_args(args: Args) -> str:
    from tflint.verify.encode import encode, show

    parts = [show(encode(a), 60) for a in args[0]]
    parts += [f"{k}={show(encode(v), 40)}" for k, v in args[1].items()]
    text = ", ".join(parts)
    return text if len(text) <= 160 else text[:157] + "..."


def _constant(args: Args) -> Callable[[], Args]:
    def make() -> Args:
        return args

    return make


def _calling(factory: Callable[[], Any], name: str) -> Callable[[], Args]:
    def make() -> Args:
        return _as_args(factory(), name)

    return make


def _cloner(fn: Any) -> Callable[[], Any]:
    """A fresh copy of a tf.function: it traces again, like a first call in a new process."""
    def make() -> Any:
        return fn._clone(None)

    return make


def _keras_step(bound: Any) -> Callable[[], Any]:
    """What ``Model.fit`` does with ``train_step``: a tf.function with reduce_retracing."""
    def make() -> Any:
        return tf.function(bound, reduce_retracing=True)

    return make


def _is_args_kwargs(x: Any) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], (tuple, list)) and \
        isinstance(x[1], dict)


def _as_args(item: Any, name: str) -> Args:
    if isinstance(item, dict) and set(item) <= {"args", "kwargs"}:
        return tuple(item.get("args", ())), dict(item.get("kwargs", {}))
    if _is_args_kwargs(item):
        return tuple(item[0]), dict(item[1])
    if isinstance(item, tuple):
        return item, {}
    if isinstance(item, list):
        return tuple(item), {}
    return (item,), {}


def _required_params(py_function: Any, bound: bool) -> list[str]:
    try:
        params = list(inspect.signature(py_function).parameters.values())
    except (TypeError, ValueError):
        return ["?"]
    if bound and params:
        params = params[1:]
    return [p.name for p in params if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _inputs_for(cand: Candidate, fn: Any, declared: Any) -> None:
    """Fill ``cand.examples``/``cand.inputs`` or ``cand.skip_reason``."""
    if declared is not None:
        cand.examples = normalize_examples(declared, cand.name)
        cand.inputs = "examples"
        return
    signature = getattr(fn, "input_signature", None) if fn is not None else None
    if signature is not None:
        try:
            cand.examples = [Example(label, _constant((args, {})), synthesized=True)
                             for label, args in synth.from_signature(signature)]
            cand.inputs = "input_signature"
        except synth.SynthError as e:
            cand.skip_reason = str(e)
        return
    required = _required_params(cand.py_function, cand.instance is not None)
    try:
        made = synth.from_parameters(cand.py_function, cand.instance is not None)
    except (synth.SynthError, TypeError, ValueError) as e:
        cand.skip_reason = (
            f"no input_signature and no examples for its arguments ({', '.join(required)}), "
            f"and none could be synthesized ({e}): declare {EXAMPLES_MAPPING} = "
            f"{{{cand.name!r}: [(...args...)]}} in the module, or give the tf.function an "
            "input_signature"
        )
        return
    cand.examples = [Example(label, _constant((args, kwargs)), synthesized=True)
                     for label, args, kwargs in made]
    cand.inputs = "no arguments" if not required and len(made) == 1 else "synthesized"


def discover(module: types.ModuleType, only: str | None = None) -> list[Candidate]:
    """All verifiable functions the module exposes (or just ``only``)."""
    declared_map = getattr(module, EXAMPLES_MAPPING, None) or {}
    if not isinstance(declared_map, dict):
        raise TargetError(f"{EXAMPLES_MAPPING} must be a dict of function name -> examples")
    uses_data = _uses_tf_data(module)
    found: list[Candidate] = []
    seen: set[int] = set()
    classes_with_instances: set[type] = set()
    names = list(vars(module).items())

    def declared_for(name: str, *objs: Any) -> Any:
        if name in declared_map:
            return declared_map[name]
        for o in objs:
            v = getattr(o, EXAMPLES_ATTR, None)
            if v is not None:
                return v
        return None

    for name, value in names:
        if name.startswith("__"):
            continue
        if is_tf_function(value):
            inst, py = unwrap_function(value)
            if getattr(py, "__module__", None) != module.__name__ or id(value) in seen:
                continue
            seen.add(id(value))
            file, line, end = _source_span(py)
            cand = Candidate(name=name, make_function=_cloner(value),
                             instance=inst, py_function=py, file=file, line=line,
                             end_line=end, uses_tf_data=uses_data)
            _inputs_for(cand, value, declared_for(name, value, py))
            found.append(cand)
        elif not isinstance(value, (type, types.ModuleType, types.FunctionType)) and \
                _user_type(value) and hasattr(value, "__dict__"):
            cls = type(value)
            for attr, raw in _class_members(cls):
                qual = f"{name}.{attr}"
                if is_tf_function(raw):
                    bound = getattr(value, attr)
                    inst, py = unwrap_function(bound)
                    file, line, end = _source_span(py)
                    cand = Candidate(name=qual, make_function=_cloner(bound),
                                     instance=value, py_function=py, file=file, line=line,
                                     end_line=end, uses_tf_data=uses_data)
                    _inputs_for(cand, bound, declared_for(qual, raw, py) if qual in
                                declared_map else declared_for(f"{cls.__name__}.{attr}", raw, py))
                    found.append(cand)
                    classes_with_instances.add(cls)
                elif attr in KERAS_STEPS and _is_keras_model(value) and isinstance(
                        raw, types.FunctionType):
                    bound = getattr(value, attr)
                    file, line, end = _source_span(raw)
                    cand = Candidate(
                        name=qual,
                        make_function=_keras_step(bound),
                        instance=value, py_function=raw, file=file, line=line, end_line=end,
                        uses_tf_data=uses_data)
                    _inputs_for(cand, None, declared_for(qual, raw) if qual in declared_map
                                else declared_for(f"{cls.__name__}.{attr}", raw))
                    if cand.inputs != "examples":
                        _keras_inputs(cand, value, attr, qual)
                    _prepare_keras(value)
                    found.append(cand)
                    classes_with_instances.add(cls)
    for cand in found:
        try:
            cand.related = helpers_of(cand.py_function)
        except Exception:
            cand.related = []
    for name, value in names:
        if isinstance(value, type) and value.__module__ == module.__name__ and \
                value not in classes_with_instances:
            for attr, raw in _class_members(value):
                if is_tf_function(raw):
                    py = raw.python_function
                    file, line, end = _source_span(py)
                    found.append(Candidate(
                        name=f"{name}.{attr}", make_function=_cloner(raw), instance=None,
                        py_function=py, file=file, line=line, end_line=end,
                        skip_reason=f"method of class {name}, and the module exposes no "
                        f"instance of it to call it on: create one at module level"))
    if only is not None:
        found = [c for c in found if c.name == only or c.name.split(".")[-1] == only
                 and "." not in only]
        if not found:
            raise TargetError(f"no tf.function or Keras step named {only!r} in "
                              f"{module.__name__}")
    return found


def _keras_inputs(cand: Candidate, model: Any, attr: str, qual: str) -> None:
    """A synthesized batch for a Keras step (``train_step(data)`` gets ``(x, y)``)."""
    cand.examples, cand.skip_reason = [], ""
    try:
        x, y = synth.keras_batch(model)
    except (synth.SynthError, Exception) as e:
        cand.inputs = ""
        cand.skip_reason = (f"Keras {attr} needs a batch and none could be synthesized ({e}): "
                            f"declare {EXAMPLES_MAPPING}[{qual!r}] = [((x, y),)]")
        return
    data = x if attr == "predict_step" else (x, y)
    label = f"batch x=float32[{'x'.join(map(str, x.shape.as_list()))}] mixed, " \
        f"y={y.dtype.name}[{'x'.join(map(str, y.shape.as_list()))}] positive"
    cand.examples = [Example(label, _constant(((data,), {})), synthesized=True)]
    cand.inputs = "synthesized from the model's input shape"


def _class_members(cls: type) -> list[tuple[str, Any]]:
    """Attributes defined by user classes in the MRO (not by TensorFlow or Keras)."""
    out: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if (klass.__module__ or "").split(".")[0] in _FRAMEWORK + ("builtins",):
            continue
        for k, v in vars(klass).items():
            if not k.startswith("__") or k == "__call__":
                out[k] = v
    return sorted(out.items())


def _is_keras_model(value: Any) -> bool:
    keras = sys.modules.get("keras")
    return keras is not None and isinstance(value, keras.Model)


def _prepare_keras(model: Any) -> None:
    """Build the optimizer's variables before the snapshot, so they are restored between
    modes instead of being created (and then kept) by the first graph run."""
    opt = getattr(model, "optimizer", None)
    if opt is None or isinstance(opt, str) or getattr(opt, "built", True):
        return
    if not model.trainable_variables:  # model not built yet: building now would freeze
        return  # the optimizer on an empty variable list
    try:
        opt.build(model.trainable_variables)
    except Exception:
        pass
