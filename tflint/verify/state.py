"""Snapshot and restore everything a function can change, so each mode starts the same.

Most silent pitfalls only show from the second call on, and only if both modes start from
the same state: the graph run bumps ``self.counter`` at trace time, appends to the outer
list, advances the Python iterator. ``StateTracker`` finds that state from the function
itself (``self``, object arguments, the globals and closure cells its code names) and can
put it back, including ``tf.Variable`` values, between the graph, graph-again and eager runs.

It also *observes* that state after each call (encoded, see ``encode.py``) so Python-visible
differences (``[1, 1, 1]`` vs ``[1, 2, 3]``) and leaked symbolic tensors become divergences.
"""

from __future__ import annotations

import copy
import sys
import types
from collections.abc import MutableMapping, MutableSequence, MutableSet
from typing import Any, Callable

from tflint.verify.encode import encode

_FRAMEWORK = ("tensorflow", "keras", "tf_keras", "numpy", "absl", "typing")


def _tf() -> Any:
    import tensorflow as tf  # only reached where TensorFlow is already in use

    return tf


def is_framework_object(value: Any) -> bool:
    """Objects of TensorFlow/Keras/NumPy types: their Python attributes are not user state."""
    return (type(value).__module__ or "").split(".")[0] in _FRAMEWORK


def is_variable(value: Any) -> bool:
    tf = _tf()
    if isinstance(value, tf.Variable):
        return True
    cls = type(value)
    return (cls.__module__ or "").startswith("keras") and "Variable" in cls.__name__


def is_trackable_container(value: Any) -> bool:
    """tf.Module / Keras layers, models, optimizers, metrics: state lives in their variables."""
    tf = _tf()
    if isinstance(value, (tf.Module, tf.random.Generator)):
        return True
    keras = sys.modules.get("keras")
    if keras is not None:
        for cls_name in ("Layer", "Optimizer", "Metric"):
            base = getattr(keras.layers if cls_name == "Layer" else
                           keras.optimizers if cls_name == "Optimizer" else keras.metrics,
                           cls_name, None)
            if base is not None and isinstance(value, base):
                return True
    return False


def collect_variables(value: Any, prefix: str, out: dict[str, Any], seen: set[int]) -> None:
    """Add the variables reachable from ``value`` to ``out`` (name -> variable)."""
    tf = _tf()
    candidates: list[Any] = []
    if is_variable(value):
        candidates = [value]
    elif isinstance(value, tf.random.Generator):
        candidates = [value.state]
    elif is_trackable_container(value):
        for attr in ("variables", "metrics_variables"):
            try:
                candidates.extend(list(getattr(value, attr, []) or []))
            except Exception:
                pass
        opt = getattr(value, "optimizer", None)
        if opt is not None and not isinstance(opt, str):
            try:
                candidates.extend(list(opt.variables))
            except Exception:
                pass
    elif isinstance(value, (list, tuple)) and value and all(is_variable(v) for v in value):
        candidates = list(value)
    paths: dict[int, str] = {}
    if isinstance(value, tf.Module) and not is_variable(value):
        try:
            for path, v in value._flatten(predicate=is_variable, with_path=True):
                paths.setdefault(id(v), ".".join(str(p) for p in path))
        except Exception:
            pass
    for v in candidates:
        if id(v) in seen:
            continue
        seen.add(id(v))
        base = paths.get(id(v)) or getattr(v, "path", None) or getattr(v, "name", None)
        name = f"{prefix}{base}" if base else prefix.rstrip(".")
        if is_variable(value):
            name = prefix.rstrip(".")
        while name in out:
            name += "'"
        out[name] = v
    del tf


class Slot:
    """A place that holds a value: a global name, a closure cell, an attribute, an argument."""

    def __init__(
        self, label: str, get: Callable[[], Any], set_: Callable[[Any], None] | None
    ) -> None:
        self.label = label
        self.get = get
        self.set = set_


def _content(value: Any) -> Any:
    """A copy of a container's contents, or of an iterator, to restore from later."""
    np = sys.modules.get("numpy")
    if isinstance(value, (MutableSequence, list)):
        return list(value)
    if isinstance(value, (MutableMapping, dict)):
        return dict(value)
    if isinstance(value, (MutableSet, set)):
        return set(value)
    if np is not None and isinstance(value, np.ndarray):
        return value.copy()
    if hasattr(value, "__next__"):
        try:
            return copy.copy(value)  # list/range/tuple iterators copy through __reduce__
        except Exception:
            return None
    return None


def _restore_content(value: Any, saved: Any) -> Any:
    """Put ``saved`` back into ``value`` in place; returns the object to bind (iterators are
    replaced by a fresh copy because most cannot be rewound in place)."""
    np = sys.modules.get("numpy")
    if saved is None:
        return value
    try:
        if isinstance(value, (MutableSequence, list)):
            del value[:]
            value.extend(saved)
        elif isinstance(value, (MutableMapping, dict)):
            value.clear()
            value.update(saved)
        elif isinstance(value, (MutableSet, set)):
            value.clear()
            for item in saved:
                value.add(item)
        elif np is not None and isinstance(value, np.ndarray):
            value[...] = saved
        elif hasattr(value, "__next__"):
            return copy.copy(saved)
    except Exception:
        pass
    return value


def code_names(fn: Any) -> tuple[set[str], set[str]]:
    """Global names and free variables the function's code refers to, nested code included
    (lambdas and comprehensions have their own code objects)."""
    names: set[str] = set()
    free: set[str] = set()
    code = getattr(fn, "__code__", None)
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        free.update(c.co_freevars)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names, free


def unwrap_function(fn: Any) -> tuple[Any, Any]:
    """(instance, plain Python function) behind a tf.function, a bound tf.function method
    (TensorFlow binds ``self`` through a ``TfMethodTarget``), or a bound method."""
    obj = getattr(fn, "python_function", fn)
    instance = None
    for _ in range(20):
        if isinstance(obj, types.MethodType):
            target = obj.__self__
            inst = getattr(target, "target", target) if type(target).__name__ == (
                "TfMethodTarget") else target
            instance = instance if instance is not None else inst
            obj = obj.__func__
        elif hasattr(obj, "__wrapped__"):
            obj = obj.__wrapped__
        else:
            break
    return instance, obj


def _is_state_value(value: Any) -> bool:
    """Values whose changes the comparison should see. Functions, classes, modules and
    framework objects (whose state is variables) are excluded."""
    if isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                          types.MethodType)):
        return False
    if hasattr(value, "python_function") and hasattr(value, "experimental_get_tracing_count"):
        return False  # another tf.function
    if is_variable(value) or is_trackable_container(value):
        return False
    if is_framework_object(value):
        tf = _tf()
        return bool(tf.is_tensor(value)) or type(value).__module__.startswith("numpy")
    return True


class StateTracker:
    """The state one function can touch, for one set of arguments."""

    def __init__(self, instance: Any, py_function: Any, args: list[tuple[str, Any]]) -> None:
        self.slots: list[Slot] = []
        self.variables: dict[str, Any] = {}
        self._objects: list[tuple[str, Any]] = []
        seen: set[int] = set()
        if instance is not None:
            self._add_object("self", instance, seen)
        for label, value in args:
            if is_variable(value) or is_trackable_container(value):
                collect_variables(value, f"{label}.", self.variables, seen)
            elif isinstance(value, (list, dict, set)) or (
                hasattr(value, "__dict__") and _is_state_value(value)
                and not isinstance(value, type)
            ):
                self._add_value_slot(label, _fixed(value), None, value, seen)
        names, free = code_names(py_function)
        g = getattr(py_function, "__globals__", {})
        for name in sorted(names):
            if name not in g:
                continue
            value = g[name]
            if is_variable(value) or is_trackable_container(value):
                collect_variables(value, f"{name}.", self.variables, seen)
                if is_trackable_container(value) and not is_framework_object(value):
                    self._add_object(name, value, seen, variables=False)
                continue
            if not _is_state_value(value):
                continue

            def get(g: dict[str, Any] = g, n: str = name) -> Any:
                return g.get(n)

            def set_(v: Any, g: dict[str, Any] = g, n: str = name) -> None:
                g[n] = v

            self._add_value_slot(f"global {name}", get, set_, value, seen)
        closure = getattr(py_function, "__closure__", None) or ()
        freevars = getattr(getattr(py_function, "__code__", None), "co_freevars", ())
        for name, cell in zip(freevars, closure):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if is_variable(value) or is_trackable_container(value):
                collect_variables(value, f"{name}.", self.variables, seen)
                continue
            if not _is_state_value(value):
                continue

            def cget(c: Any = cell) -> Any:
                return c.cell_contents

            def cset(v: Any, c: Any = cell) -> None:
                c.cell_contents = v

            self._add_value_slot(f"closure {name}", cget, cset, value, seen)
        del free

    def _add_object(self, label: str, obj: Any, seen: set[int], variables: bool = True) -> None:
        if variables:
            collect_variables(obj, f"{label}.", self.variables, seen)
        if id(obj) in seen and not variables:
            return
        seen.add(id(obj))
        self._objects.append((label, obj))
        try:
            attrs = dict(vars(obj))
        except TypeError:
            return
        for attr, value in attrs.items():
            if attr.startswith("_") or not _is_state_value(value):
                continue
            self._add_attr_slot(label, obj, attr)

    def _add_attr_slot(self, label: str, obj: Any, attr: str) -> None:
        def get(o: Any = obj, a: str = attr) -> Any:
            return getattr(o, a, None)

        def set_(v: Any, o: Any = obj, a: str = attr) -> None:
            object.__setattr__(o, a, v) if _plain_setattr(o) else setattr(o, a, v)

        self.slots.append(Slot(f"{label}.{attr}", get, set_))

    def _add_value_slot(
        self, label: str, get: Callable[[], Any], set_: Callable[[Any], None] | None,
        value: Any, seen: set[int],
    ) -> None:
        self.slots.append(Slot(label, get, set_))
        if hasattr(value, "__dict__") and not isinstance(value, type) and not hasattr(
            value, "__next__"
        ) and not is_framework_object(value) and id(value) not in seen:
            self._add_object(label, value, seen)

    def snapshot(self) -> dict[str, Any]:
        """Everything needed to come back to this state: values bound in each slot, contents
        of containers, attributes of tracked objects, values of variables."""
        binding = {s.label: s.get() for s in self.slots}
        contents = {label: _content(v) for label, v in binding.items()}
        attrs = {}
        for label, obj in self._objects:
            try:
                attrs[label] = {k for k in vars(obj) if not k.startswith("_")}
            except TypeError:
                pass
        variables = {}
        for name, v in self.variables.items():
            try:
                variables[name] = v.numpy().copy()
            except Exception:
                pass
        return {"binding": binding, "contents": contents, "attrs": attrs, "vars": variables}

    def restore(self, snap: dict[str, Any]) -> None:
        """Return to ``snap``. Attributes the run added to tracked objects are removed, so a
        first-call guard (``if self.v is None``) sees the same thing in every mode."""
        for label, obj in self._objects:
            before = snap["attrs"].get(label)
            if before is None:
                continue
            try:
                added = [k for k in vars(obj) if not k.startswith("_") and k not in before]
            except TypeError:
                continue
            for k in added:
                try:
                    delattr(obj, k)
                except Exception:
                    pass
        for s in self.slots:
            original = snap["binding"].get(s.label)
            restored = _restore_content(original, snap["contents"].get(s.label))
            if s.set is not None and (s.get() is not restored):
                try:
                    s.set(restored)
                except Exception:
                    pass
        for name, value in snap["vars"].items():
            try:
                self.variables[name].assign(value)
            except Exception:
                pass

    def observe_state(self) -> dict[str, Any]:
        return {s.label: encode(s.get()) for s in self.slots}

    def observe_variables(self) -> dict[str, Any]:
        return {name: encode(v) for name, v in self.variables.items()}


def _fixed(value: Any) -> Callable[[], Any]:
    def get() -> Any:
        return value

    return get


def _plain_setattr(obj: Any) -> bool:
    """Keras layers and tf.Modules wrap lists assigned as attributes into tracking wrappers;
    restoring the original list object must bypass that so identity is kept."""
    return is_trackable_container(obj)
