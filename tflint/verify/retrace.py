"""Why did a tf.function trace again? Argument-by-argument explanations.

``tf.function`` keys each trace on what it sees of the arguments: the value of Python
scalars, the dtype and shape of tensors, the structure of lists, dicts and dataclasses, and
the identity of other objects. A retrace is explained against the *closest* earlier trace
(the one with the fewest differences, as JAX's cache-miss explanations do), naming every
changed argument down to the dict key or dataclass field, with the fix to consider: knowing
whether ``reduce_retracing`` is already on and which ``input_signature`` would stop it.

Used by ``tflint verify`` (child process) and by ``tflint.testing.max_traces``. Imports
TensorFlow lazily: it is only called where TensorFlow is already running.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 4


@dataclass
class Change:
    """One argument (or part of one) that differs from the closest earlier trace."""

    path: str
    change: str
    fix: str


def describe(value: Any, depth: int = 0) -> Any:
    """What ``tf.function`` keys a trace on, as a comparable tree."""
    tf = sys.modules.get("tensorflow")
    if tf is not None and (tf.is_tensor(value) or isinstance(value, tf.Variable)):
        shape = getattr(value, "shape", None)
        dims = None if shape is None or shape.rank is None else tuple(shape.as_list())
        kind = "variable" if isinstance(value, tf.Variable) else "tensor"
        return (kind, value.dtype.name, dims)
    if isinstance(value, (bool, int, float, str, bytes, type(None))):
        return ("python", type(value).__name__, repr(value)[:60])
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return ("tensor", str(value.dtype), tuple(value.shape))
    if depth >= MAX_DEPTH:
        return ("object", type(value).__qualname__, id(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ("fields", type(value).__qualname__, tuple(
            (f.name, describe(getattr(value, f.name), depth + 1))
            for f in dataclasses.fields(value)))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return ("fields", type(value).__qualname__, tuple(
            (f, describe(getattr(value, f), depth + 1)) for f in value._fields))
    if isinstance(value, (list, tuple)):
        return ("sequence", type(value).__name__,
                tuple(describe(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return ("mapping", "dict", tuple(sorted(
            ((repr(k), describe(v, depth + 1)) for k, v in value.items()),
            key=lambda kv: kv[0])))
    return ("object", type(value).__qualname__, id(value))


def signature(py_function: Any, instance: Any, args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> dict[str, Any]:
    """Argument name -> description, for one call."""
    try:
        params = list(inspect.signature(py_function).parameters.values())
        if instance is not None and params:
            params = params[1:]
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    bound: dict[str, Any] = {}
    for i, a in enumerate(args):
        bound[names[i] if i < len(names) else f"args[{i}]"] = a
    bound.update(kwargs)
    return {k: describe(v) for k, v in bound.items()}


def _short(d: Any) -> str:
    kind = d[0]
    if kind in ("tensor", "variable"):
        dims = "?" if d[2] is None else list(d[2])
        return f"tf.{'Tensor' if kind == 'tensor' else 'Variable'}({d[1]}, shape={dims})"
    if kind == "python":
        return f"Python {d[1]} {d[2]}"
    if kind == "sequence":
        return f"{d[1]} of {len(d[2])}"
    if kind == "mapping":
        return f"dict with keys {', '.join(k for k, _ in d[2]) or '(none)'}"
    if kind == "fields":
        return f"{d[1]}(...)"
    return f"a {d[1]} object"


def diff(before: Any, after: Any, path: str, reduce_retracing: bool) -> list[Change]:
    """Every leaf where two descriptions differ, each with its fix."""
    if before == after:
        return []
    if before is None or after is None:
        what = "argument added" if before is None else "argument left out"
        return [Change(path, what, "call with the same arguments every time")]
    kb, ka = before[0], after[0]
    tensorish = ("tensor", "variable")
    if kb in tensorish and ka in tensorish:
        if before[1] != after[1]:
            return [Change(path, f"dtype {before[1]} -> {after[1]}",
                           "cast to one dtype before calling (each dtype is a new graph)")]
        if kb != ka:
            return [Change(path, f"{_short(before)} -> {_short(after)}",
                           "pass the same kind of value on every call")]
        fix = ("reduce_retracing is already on and still retraced: declare an "
               "input_signature with None for the dimension that varies"
               if reduce_retracing else
               "reduce_retracing=True, or an input_signature with None for the dimension "
               "that varies")
        return [Change(path, f"shape {_dims(before[2])} -> {_dims(after[2])}", fix)]
    if kb == "python" and ka == "python":
        if before[1] != after[1]:
            change = f"Python {before[1]} {before[2]} -> Python {after[1]} {after[2]}"
        else:
            change = f"Python {after[1]} value {before[2]} -> {after[2]}"
        return [Change(path, change,
                       "every new Python value is a new graph: pass it as a tensor "
                       "(tf.constant) or declare it in input_signature"
                       + (" (reduce_retracing does not apply to Python values)"
                          if reduce_retracing else ""))]
    if kb != ka:
        python_vs_tensor = {kb, ka} & {"python"} and {kb, ka} & set(tensorish)
        return [Change(path, f"{_short(before)} -> {_short(after)}",
                       "pass a tensor on every call, not sometimes a Python number"
                       if python_vs_tensor else "pass the same kind of value on every call")]
    if kb == "object":
        if before[1] != after[1]:
            return [Change(path, f"a {before[1]} -> a {after[1]}",
                           "pass the same kind of object")]
        return [Change(path, f"a new {after[1]} object (traces are keyed on its identity)",
                       "pass the same object every time, or give the class a "
                       "__tf_tracing_type__")]
    if kb == "sequence":
        if before[1] != after[1] or len(before[2]) != len(after[2]):
            return [Change(path, f"{_short(before)} -> {_short(after)}",
                           "keep the nesting and length the same (a list of varying "
                           "length is a new graph each time: stack it into one tensor)")]
        out: list[Change] = []
        for i, (b, a) in enumerate(zip(before[2], after[2])):
            out += diff(b, a, f"{path}[{i}]", reduce_retracing)
        return out
    if kb in ("mapping", "fields"):
        if before[1] != after[1]:
            return [Change(path, f"a {before[1]} -> a {after[1]}",
                           "pass the same type every time")]
        bd, ad = dict(before[2]), dict(after[2])
        out = []
        for k in sorted(set(bd) | set(ad)):
            sub = f"{path}[{k}]" if kb == "mapping" else f"{path}.{k}"
            if k not in bd or k not in ad:
                out.append(Change(sub, "key added" if k not in bd else "key removed",
                                  "pass the same keys on every call"))
            else:
                out += diff(bd[k], ad[k], sub, reduce_retracing)
        return out
    return [Change(path, f"{_short(before)} -> {_short(after)}", "keep it the same")]


def _dims(dims: Any) -> str:
    return "unknown" if dims is None else str(tuple(dims))


def explain(previous: list[dict[str, Any]], current: dict[str, Any],
            reduce_retracing: bool = False) -> tuple[int, list[Change]]:
    """(index of the closest earlier trace, every change from it)."""
    best: tuple[int, list[Change]] | None = None
    for i, prev in enumerate(previous):
        changes: list[Change] = []
        for name in list(prev) + [n for n in current if n not in prev]:
            changes += diff(prev.get(name), current.get(name), name, reduce_retracing)
        if best is None or len(changes) < len(best[1]):
            best = (i, changes)
    if best is None:
        return -1, []
    if not best[1]:
        return best[0], [Change("(no argument)", "the arguments look the same as an earlier "
                                "trace: a captured Python value, a global or the calling "
                                "context changed", "do not let traced code depend on Python "
                                "state that changes between calls")]
    return best


def suggest_signature(traces: list[dict[str, Any]]) -> str | None:
    """The ``input_signature`` that covers every traced call, when every argument was a
    tensor of one dtype and rank: dimensions that varied become None."""
    if len(traces) < 2:
        return None
    names = list(traces[0])
    if any(list(t) != names for t in traces):
        return None
    specs = []
    for name in names:
        ds = [t[name] for t in traces]
        if any(d[0] not in ("tensor", "variable") or d[2] is None for d in ds):
            return None
        if len({d[1] for d in ds}) != 1 or len({len(d[2]) for d in ds}) != 1:
            return None
        dims = [dim if all(d[2][i] == dim for d in ds) else None
                for i, dim in enumerate(ds[0][2])]
        specs.append(f"tf.TensorSpec({dims}, tf.{ds[0][1]})")
    return "input_signature=[" + ", ".join(specs) + "]"


def reduce_retracing_on(fn: Any) -> bool:
    """Whether a tf.function was made with ``reduce_retracing=True``."""
    for attr in ("_reduce_retracing", "_experimental_relax_shapes"):
        v = getattr(fn, attr, None)
        if isinstance(v, bool):
            return v
    return False
