"""Inputs that expose divergence, synthesized when the user declared none.

A single "typical" input hides most bugs: ``n * random.random()`` with ``n == 0``, the
``x > 0`` branch with inputs that are all negative, the False branch of a bool, the
``training=True`` path of a keyword left at its default. So each function gets several
examples, built from its ``input_signature``, annotations, defaults and the constants its
own code compares against:

* tensors: positive, negative, mixed-sign and zero values; two sizes where a dimension is
  unknown; ints that are not zero; both values of every bool (all combinations of two);
* Python arguments: non-zero ints and floats of both signs, both bools, the value of an
  optional argument instead of None, the strings and numbers the code compares with, and
  the non-default value of every keyword (``training=True``).

Each example has a label naming the values it uses; the report lists them. Runs in the
child process (TensorFlow imported).
"""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

PROFILES = ("positive", "negative", "mixed", "zero")
#: most examples synthesized for one function (each costs a trace per mode and device)
MAX_EXAMPLES = 6


class SynthError(Exception):
    """No inputs can be made for this function."""


def tensor_values(dtype: Any, dims: list[int], profile: str, flag: bool) -> Any:
    """A tensor of ``dtype``/``dims`` whose values follow ``profile``."""
    n = int(np.prod(dims)) if dims else 1
    i = np.arange(n)
    if dtype == tf.bool:
        vals: Any = np.full(n, flag) if n == 1 else (i % 2 == 0) == flag
    elif dtype == tf.string:
        vals = np.array([f"s{k}".encode() for k in range(n)], dtype=object)
    elif dtype.is_integer or dtype.is_floating or dtype.is_complex:
        mag = 1 + i % 5 if dtype.is_integer else 0.5 + (i % 5) * 0.25
        if profile == "positive":
            vals = mag
        elif profile == "negative":
            vals = -mag if not dtype.is_unsigned else mag
        elif profile == "mixed":
            vals = np.where(i % 2 == 0, -mag, mag * 2) if n > 1 else mag * 3
            if dtype.is_unsigned:
                vals = np.abs(vals)
        else:
            vals = np.zeros(n)
    else:
        raise SynthError(f"cannot synthesize dtype {dtype.name}")
    return tf.constant(np.asarray(vals).reshape(dims), dtype=dtype)


def _spec_dims(spec: Any, size: int) -> list[int]:
    if spec.shape.rank is None:
        return [size]
    return [size if d is None else d for d in spec.shape.as_list()]


def has_unknown_dims(signature: Any) -> bool:
    for spec in tf.nest.flatten(list(signature)):
        shape = getattr(spec, "shape", None)
        if shape is not None and (shape.rank is None or None in shape.as_list()):
            return True
    return False


def from_signature(signature: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """(label, args) examples for an ``input_signature``: one per value profile, with the
    bools of the k-th example set from the bits of k and unknown dimensions of size 2, 3."""
    specs = tf.nest.flatten(list(signature))
    for spec in specs:
        if not isinstance(spec, tf.TensorSpec):
            raise SynthError(f"cannot synthesize a {type(spec).__name__} from input_signature")
    if not specs:
        return [("no arguments", ())]
    unknown = has_unknown_dims(signature)
    out: list[tuple[str, tuple[Any, ...]]] = []
    for k, profile in enumerate(PROFILES):
        size = 2 + k % 2 if unknown else 2
        made = []
        bools = 0
        for spec in specs:
            flag = not (k >> bools) & 1
            if spec.dtype == tf.bool:
                bools += 1
            made.append(tensor_values(spec.dtype, _spec_dims(spec, size), profile, flag))
        args = tf.nest.pack_sequence_as(list(signature), made)
        label = ", ".join(_describe(v, profile) for v in made)
        if all(label != seen for seen, _ in out):  # strings only, say: no second profile
            out.append((label, tuple(args)))
    return out


def _describe(value: Any, profile: str) -> str:
    if tf.is_tensor(value):
        dims = "x".join(str(d) for d in value.shape.as_list())
        what = profile if value.dtype not in (tf.bool, tf.string) else ""
        if value.dtype == tf.bool and value.shape.rank == 0:
            what = str(bool(value.numpy()))
        return f"{value.dtype.name}[{dims}] {what}".strip()
    return repr(value)


# --- Python-typed parameters -------------------------------------------------------------

@dataclass
class Param:
    name: str
    kind: str  # "tensor", "int", "float", "bool", "str", "opaque"
    positional: bool
    has_default: bool
    default: Any = None
    optional: bool = False  # None is a legal value (Optional[X] or a None default)


def _annotation_kind(ann: Any) -> tuple[str | None, bool]:
    """(kind, optional) of an annotation; kind None when it says nothing we can use."""
    if ann is inspect.Parameter.empty:
        return None, False
    if isinstance(ann, str):
        text = ann.replace(" ", "")
        optional = text.startswith("Optional[") or "|None" in text or "None|" in text
        core = text.removeprefix("Optional[").rstrip("]").replace("|None", "").replace(
            "None|", "")
        for k in ("bool", "int", "float", "str"):
            if core == k:
                return k, optional
        return ("tensor" if "Tensor" in core else None), optional
    optional = False
    origin = typing.get_origin(ann)
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        members = [a for a in typing.get_args(ann) if a is not type(None)]
        optional = len(members) < len(typing.get_args(ann))
        if len(members) != 1:
            return None, optional
        ann = members[0]
    for k, t in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if ann is t:
            return k, optional
    name = getattr(ann, "__name__", "")
    if "Tensor" in name:
        return "tensor", optional
    return None, optional


def parameters(py_function: Any, bound: bool) -> list[Param]:
    sig = inspect.signature(py_function)
    params = list(sig.parameters.values())
    if bound and params:
        params = params[1:]
    out = []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind, optional = _annotation_kind(p.annotation)
        has_default = p.default is not inspect.Parameter.empty
        d = p.default if has_default else None
        if kind is None and p.annotation is not inspect.Parameter.empty:
            kind = "opaque"  # a type we cannot make a value of (a user class, a Callable)
        if kind is None:
            if has_default and isinstance(d, bool):
                kind = "bool"
            elif has_default and isinstance(d, int):
                kind = "int"
            elif has_default and isinstance(d, float):
                kind = "float"
            elif has_default and isinstance(d, str):
                kind = "str"
            elif has_default:
                kind = "opaque"
            else:
                kind = "tensor"
        out.append(Param(p.name, kind, p.kind != p.KEYWORD_ONLY, has_default, d,
                         optional or (has_default and d is None)))
    return out


def code_constants(py_function: Any) -> tuple[list[float], list[str]]:
    """Numbers and short strings the function's code (nested code included) uses, for
    values on both sides of a comparison like ``steps > 3`` or ``mode == "noisy"``."""
    nums: list[float] = []
    strs: list[str] = []
    code = getattr(py_function, "__code__", None)
    stack = [code] if code is not None else []
    doc = getattr(py_function, "__doc__", None)
    while stack:
        c = stack.pop()
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                stack.append(k)
            elif isinstance(k, bool) or k is None:
                continue
            elif isinstance(k, (int, float)) and k not in nums:
                nums.append(k)
            elif isinstance(k, str) and k != doc and 0 < len(k) <= 40 and k.isidentifier() \
                    and k not in strs:
                strs.append(k)
    return nums, strs


def _alternatives(p: Param, nums: list[float], strs: list[str]) -> list[Any]:
    """Values for ``p``, the first one used by the base example."""
    if p.kind == "bool":
        vals: list[Any] = [True, False]
    elif p.kind == "int":
        vals = [3, -2, 0] + [int(n) + 1 for n in nums if float(n).is_integer()]
    elif p.kind == "float":
        vals = [1.5, -1.5, 0.0] + [float(n) + 0.5 for n in nums]
    elif p.kind == "str":
        vals = list(strs) or ["a"]
    else:
        vals = []
    if p.has_default:
        vals = [p.default] + [v for v in vals if v != p.default or type(v) is not type(
            p.default)]
        if p.optional and p.default is None and p.kind in ("opaque",):
            vals = [None]
    elif p.optional:
        vals = vals + [None]
    seen: list[Any] = []
    for v in vals:
        if not any(v == s and type(v) is type(s) for s in seen):
            seen.append(v)
    return seen[:5]


Synthesized = tuple[str, tuple[Any, ...], dict[str, Any]]


def from_parameters(py_function: Any, bound: bool) -> list[Synthesized]:
    """(label, args, kwargs) examples for a function without input_signature.

    The base example uses every default and the first value of each required parameter;
    then one example per other value of each parameter (the rest at base), with the tensor
    arguments cycling through the value profiles."""
    params = parameters(py_function, bound)
    nums, strs = code_constants(py_function)
    for p in params:
        if p.kind == "opaque" and not p.has_default:
            raise SynthError(f"no value can be made for `{p.name}`")
    choices = {p.name: _alternatives(p, nums, strs) for p in params if p.kind != "tensor"}
    for p in params:
        if p.kind != "tensor" and not choices[p.name] and not p.has_default:
            raise SynthError(f"no value to try for `{p.name}`")
    # round robin over the parameters, flags first: every parameter gets its first other
    # value (training=True, the False branch, the compared string) before any gets a second
    rank = {"bool": 0, "str": 1}
    ordered = sorted((p for p in params if len(choices.get(p.name, [])) > 1),
                     key=lambda p: rank.get(p.kind, 2))
    variants: list[dict[str, Any]] = [{}]
    depth = 1
    while any(len(choices[p.name]) > depth for p in ordered):
        for p in ordered:
            if len(choices[p.name]) > depth:
                variants.append({p.name: choices[p.name][depth]})
        depth += 1
    tensor_params = [p for p in params if p.kind == "tensor"]
    while tensor_params and len(variants) < len(PROFILES):
        variants.append({})
    out = []
    for k, override in enumerate(variants[:MAX_EXAMPLES]):
        profile = PROFILES[k % len(PROFILES)]
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        parts = []
        for p in params:
            if p.kind == "tensor":
                value: Any = tensor_values(tf.float32, [2 + k % 2], profile, True)
                parts.append(f"{p.name}={_describe(value, profile)}")
            elif p.name in override:
                value = override[p.name]
                parts.append(f"{p.name}={value!r}")
            elif p.has_default:
                continue  # left at its default: the call a user makes most
            else:
                value = choices[p.name][0]
                parts.append(f"{p.name}={value!r}")
            if p.positional and not p.has_default and not kwargs:
                args.append(value)
            else:
                kwargs[p.name] = value
        out.append((", ".join(parts) or ("defaults" if params else "no arguments"),
                    tuple(args), kwargs))
    return out


def keras_batch(model: Any) -> tuple[Any, Any]:
    """A batch of two for a Keras model's ``train_step``: x from its input shape (mixed
    signs), y shaped like its output on x (positive)."""
    shape = None
    inputs = getattr(model, "inputs", None)
    if inputs:
        if len(inputs) != 1:
            raise SynthError("the model has several inputs")
        shape = tuple(inputs[0].shape)
    else:
        shapes = getattr(model, "_build_shapes_dict", None) or {}
        if len(shapes) == 1:
            shape = tuple(next(iter(shapes.values())))
    if not shape or any(d is None for d in shape[1:]):
        raise SynthError("the model has no known input shape (build it, or give it an "
                         "Input)")
    dims = [2] + [int(d) for d in shape[1:]]
    x = tensor_values(tf.float32, dims, "mixed", True)
    out = model(x)
    if not tf.is_tensor(out):
        raise SynthError("the model's output is not a single tensor")
    y = tensor_values(out.dtype, out.shape.as_list(), "positive", True)
    return x, y
