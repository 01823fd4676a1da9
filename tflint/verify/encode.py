"""Turn the values a function returns or touches into plain JSON-able data.

Observations are encoded at the moment they are made because the objects keep changing
(the next call mutates the same list, the next restore reassigns the variable) and because
the graph run and the tf.data debug-mode eager run happen in different processes. The
encoded form keeps exactly what the comparison needs: structure, dtype, shape, values, and
whether a value is a symbolic (graph) tensor that leaked out of a trace.

TensorFlow and NumPy are only looked up in ``sys.modules``: this module never imports them,
so encoding works in the parent and in TensorFlow-free tests too.
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Mapping, Sequence, Set
from typing import Any

Enc = dict[str, Any]

#: tensors bigger than this are kept as a prefix plus whole-tensor sums
MAX_ELEMENTS = 4096
MAX_ITEMS = 200
MAX_DEPTH = 4
_FRAMEWORK_PREFIXES = ("tensorflow", "keras", "tf_keras", "numpy", "builtins")


def _tf() -> Any:
    return sys.modules.get("tensorflow")


def _np() -> Any:
    return sys.modules.get("numpy")


def is_symbolic(value: Any) -> bool:
    """True for a graph tensor, the thing that leaks out of a trace (P09)."""
    tf = _tf()
    if tf is None:
        return False
    try:
        return bool(tf.is_symbolic_tensor(value))
    except Exception:
        return type(value).__name__ == "SymbolicTensor"


def _array(np: Any, arr: Any, kind: str = "tensor") -> Enc:
    arr = np.asarray(arr)
    flat = arr.ravel()
    size = int(flat.size)
    vals: list[Any]
    if arr.dtype.kind in ("S", "O", "U"):
        vals = [
            x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
            for x in flat[:MAX_ELEMENTS].tolist()
        ]
    elif arr.dtype.kind == "c":
        vals = [[float(x.real), float(x.imag)] for x in flat[:MAX_ELEMENTS].tolist()]
    else:
        try:
            vals = flat[:MAX_ELEMENTS].tolist()
        except Exception:  # bfloat16 and friends: go through float64
            vals = flat[:MAX_ELEMENTS].astype("float64").tolist()
    enc: Enc = {"t": kind, "dtype": str(arr.dtype), "shape": list(arr.shape), "v": vals}
    if size > MAX_ELEMENTS:
        enc["truncated"] = size
        if arr.dtype.kind in "fiub":
            f = flat.astype("float64")
            enc["sum"] = float(f.sum())
            enc["l1"] = float(np.abs(f).sum())
    return enc


def encode(value: Any, depth: int = 0) -> Enc:
    """Encode one value. Never raises: unknown things become ``{"t": "other", "type": ...}``."""
    try:
        return _encode(value, depth)
    except Exception as e:  # an observation must never break the run
        return {"t": "other", "type": type(value).__qualname__, "error": f"{type(e).__name__}"}


def _encode(value: Any, depth: int) -> Enc:
    if value is None:
        return {"t": "none"}
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": value}
    if isinstance(value, float):
        return {"t": "float", "v": value}
    if isinstance(value, str):
        return {"t": "str", "v": value[:1000]}
    if isinstance(value, bytes):
        return {"t": "str", "v": value[:1000].decode("utf-8", "replace")}
    tf, np = _tf(), _np()
    if tf is not None:
        if is_symbolic(value):
            return {
                "t": "symbolic",
                "dtype": str(getattr(getattr(value, "dtype", None), "name", "?")),
                "repr": repr(value)[:120],
            }
        if isinstance(value, tf.Variable) or _is_keras_variable(value):
            out = _array(np, value.numpy(), "variable")
            out["dtype"] = value.dtype.name if hasattr(value.dtype, "name") else str(value.dtype)
            return out
        if isinstance(value, tf.RaggedTensor):
            return {"t": "ragged", "dtype": value.dtype.name, "v": _encode(value.to_list(), depth)}
        if isinstance(value, tf.SparseTensor):
            return _encode(tf.sparse.to_dense(value), depth)
        if tf.is_tensor(value) and hasattr(value, "numpy"):
            out = _array(np, value.numpy())
            out["dtype"] = value.dtype.name
            return out
    if np is not None:
        if isinstance(value, np.ndarray):
            return _array(np, value, "ndarray")
        if isinstance(value, np.generic):
            return _array(np, np.asarray(value), "ndarray")
    if depth >= MAX_DEPTH:
        return {"t": "deep", "type": type(value).__qualname__}
    if isinstance(value, types.GeneratorType):
        return {
            "t": "iterator",
            "type": "generator",
            "pos": value.gi_frame.f_lasti if value.gi_frame is not None else -1,
        }
    if hasattr(value, "__next__") and hasattr(value, "__iter__"):
        return {"t": "iterator", "type": type(value).__name__, "pos": iterator_position(value)}
    if isinstance(value, Mapping):
        items = list(value.items())[:MAX_ITEMS]
        return {
            "t": "dict",
            "len": len(value),
            "items": {repr(k)[:80]: _encode(v, depth + 1) for k, v in items},
        }
    if isinstance(value, Set):
        keys = sorted(repr(v)[:80] for v in value)[:MAX_ITEMS]
        return {"t": "set", "len": len(value), "items": keys}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        return {
            "t": kind,
            "len": len(value),
            "items": [_encode(v, depth + 1) for v in list(value)[:MAX_ITEMS]],
        }
    if isinstance(value, (types.FunctionType, types.MethodType, types.ModuleType, type)):
        return {"t": "callable", "type": getattr(value, "__qualname__", type(value).__name__)}
    if hasattr(value, "__dict__") and not _is_framework(value):
        attrs = {
            k: _encode(v, depth + 1)
            for k, v in list(vars(value).items())[:MAX_ITEMS]
            if not k.startswith("_") and not callable(v)
        }
        return {"t": "object", "type": type(value).__qualname__, "attrs": attrs}
    return {"t": "other", "type": type(value).__qualname__}


def _is_framework(value: Any) -> bool:
    mod = type(value).__module__ or ""
    return mod.split(".")[0] in _FRAMEWORK_PREFIXES


def _is_keras_variable(value: Any) -> bool:
    cls = type(value)
    return (
        (cls.__module__ or "").startswith("keras")
        and "Variable" in cls.__name__
        and hasattr(value, "assign")
        and hasattr(value, "numpy")
    )


def iterator_position(it: Any) -> Any:
    """How far a Python iterator has advanced, read without advancing it.

    ``list_iterator``/``range_iterator``/``tuple_iterator`` pickle as ``(iter, (seq,), index)``
    so their position is available through ``__reduce__``; other iterators give ``None``.
    """
    try:
        red = it.__reduce__()
    except Exception:
        return None
    if isinstance(red, tuple) and len(red) >= 3 and isinstance(red[2], int):
        return red[2]
    if isinstance(red, tuple) and len(red) >= 2 and red[1] == ((),):
        return "exhausted"
    return None


def contains_symbolic(enc: Enc) -> list[str]:
    """Paths inside an encoded value that hold a leaked symbolic tensor."""
    found: list[str] = []

    def walk(e: Any, path: str) -> None:
        if not isinstance(e, dict):
            return
        if e.get("t") == "symbolic":
            found.append(path)
        elif e.get("t") in ("list", "tuple"):
            for i, item in enumerate(e.get("items", [])):
                walk(item, f"{path}[{i}]")
        elif e.get("t") == "dict":
            for k, item in e.get("items", {}).items():
                walk(item, f"{path}[{k}]")
        elif e.get("t") == "object":
            for k, item in e.get("attrs", {}).items():
                walk(item, f"{path}.{k}")

    walk(enc, "")
    return found


def show(enc: Enc | None, width: int = 90) -> str:
    """A short human display of an encoded value, for the side-by-side summary."""
    text = _show(enc)
    return text if len(text) <= width else text[: width - 3] + "..."


def _num(x: Any) -> str:
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return str(x)
        return f"{x:.6g}"
    return repr(x) if isinstance(x, str) else str(x)


def _show(e: Enc | None) -> str:
    if e is None:
        return "<nothing>"
    t = e.get("t")
    if t == "none":
        return "None"
    if t in ("bool", "int", "float", "str"):
        return _num(e["v"])
    if t in ("tensor", "ndarray", "variable"):
        vals = e.get("v", [])
        shape = e.get("shape", [])
        body = _num(vals[0]) if not shape and vals else "[" + " ".join(_num(v) for v in vals[:8])
        if shape:
            body += " ..." if len(vals) > 8 or e.get("truncated") else ""
            body += "]"
        prefix = {"tensor": "tf.Tensor", "ndarray": "np.array", "variable": "tf.Variable"}[t]
        return f"{prefix}({body}, {e.get('dtype')}, shape={tuple(shape)})"
    if t == "symbolic":
        return f"symbolic graph tensor {e.get('repr', '')} (leaked from a trace)"
    if t in ("list", "tuple"):
        o, c = ("[", "]") if t == "list" else ("(", ")")
        inner = ", ".join(_show(x) for x in e.get("items", [])[:6])
        more = ", ..." if e.get("len", 0) > 6 else ""
        return f"{o}{inner}{more}{c} (len {e.get('len')})"
    if t == "dict":
        inner = ", ".join(f"{k}: {_show(v)}" for k, v in list(e.get("items", {}).items())[:5])
        return f"{{{inner}}} (len {e.get('len')})"
    if t == "set":
        return "{" + ", ".join(e.get("items", [])[:6]) + f"}} (len {e.get('len')})"
    if t == "iterator":
        return f"<{e.get('type')} at position {e.get('pos')}>"
    if t == "object":
        inner = ", ".join(f"{k}={_show(v)}" for k, v in list(e.get("attrs", {}).items())[:5])
        return f"{e.get('type')}({inner})"
    if t == "ragged":
        return f"tf.RaggedTensor({_show(e.get('v'))})"
    return f"<{e.get('type', t)}>"
