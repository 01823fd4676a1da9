"""Compare encoded observations of two runs and turn them into a verdict.

Pure Python on purpose: it runs in the parent process, which never imports TensorFlow, and
in the pytest plugin. Inputs are the observation records written by ``replay.observe``::

    {"examples": [{"label": ..., "modes": {"graph": {device: [call, ...]},
                                           "graph2": {...}, "eager": {...}}}], ...}

and each call record holds ``ret``, ``exc``, ``vars``, ``state``, ``stdout``, ``logs``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tflint.verify.encode import Enc, contains_symbolic, show
from tflint.verify.model import DIVERGENCE_KINDS, Divergence, FunctionResult, TraceInfo

#: (rtol, atol) per dtype for eager vs graph. Graph mode runs Grappler rewrites (constant
#: folding, op fusion) that reorder float arithmetic, so floats get a small tolerance; ints,
#: bools and strings must be equal.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-9, 1e-12),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-9, 1e-12),
    "float": (1e-9, 1e-12),  # Python floats
}


#: the loosest (rtol, atol) a device-vs-device comparison may use, whatever ``device_scale``
#: says: 100x bfloat16's tolerance would be 1.0 and check nothing. TF32 is turned off in the
#: verifier's processes, so float32 kernels on a GPU differ from the CPU's only by the order
#: of reductions.
DEVICE_CAPS: dict[str, tuple[float, float]] = {
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
    "float32": (1e-4, 1e-5),
    "float64": (1e-8, 1e-10),
    "complex64": (1e-4, 1e-5),
    "complex128": (1e-8, 1e-10),
    "float": (1e-8, 1e-10),
}

Mask = dict[str, "set[int] | None"]


@dataclass
class Tolerances:
    """Per-dtype tolerances; ``device_scale`` loosens them for device-vs-device checks
    (different kernels, e.g. cuDNN vs Eigen, legitimately differ in the last bits)."""

    by_dtype: dict[str, tuple[float, float]] = field(
        default_factory=lambda: dict(DEFAULT_TOLERANCES)
    )
    scale: float = 1.0
    device_scale: float = 100.0
    caps: dict[str, tuple[float, float]] | None = None

    def get(self, dtype: str) -> tuple[float, float] | None:
        tol = self.by_dtype.get(dtype)
        if tol is None and dtype.startswith("float"):
            tol = self.by_dtype["float32"]
        if tol is None:
            return None
        rtol, atol = tol[0] * self.scale, tol[1] * self.scale
        if self.caps is not None:
            cap = self.caps.get(dtype) or self.caps.get("float32")
            if cap is not None:
                rtol, atol = min(rtol, max(cap[0], tol[0])), min(atol, max(cap[1], tol[1]))
        return rtol, atol

    def loosened(self) -> Tolerances:
        """For device against device: ``device_scale`` looser, capped per dtype."""
        return Tolerances(dict(self.by_dtype), self.scale * self.device_scale,
                          self.device_scale, dict(DEVICE_CAPS))


Diff = tuple[str, str, "Enc | None", "Enc | None"]


def _close(a: Any, b: Any, tol: tuple[float, float] | None) -> bool:
    if isinstance(a, list) and isinstance(b, list):  # complex numbers: [re, im]
        return all(_close(x, y, tol) for x, y in zip(a, b))
    if tol is None or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return bool(a == b)
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    rtol, atol = tol
    return abs(a - b) <= atol + rtol * abs(b)


def diffs(a: Enc | None, b: Enc | None, tol: Tolerances, path: str = "",
          mask: Mask | None = None, collect: Mask | None = None) -> Iterator[Diff]:
    """Yield ``(path, reason, a_part, b_part)`` for every leaf where ``a`` and ``b`` differ.

    ``mask`` names elements of arrays to leave out (nondeterministic ones); with ``collect``
    every differing element of an array is added to it (not only the first)."""
    if a is None or b is None:
        if a is not b:
            yield path, "missing on one side", a, b
        return
    ta, tb = a.get("t"), b.get("t")
    if ta == "symbolic" or tb == "symbolic":
        if ta != tb:
            yield path, "holds a symbolic graph tensor that leaked out of the trace", a, b
        return
    numeric = {"tensor", "ndarray", "variable"}
    if ta in numeric and tb in numeric:
        yield from _diff_arrays(a, b, tol, path, mask, collect)
        return
    if {ta, tb} <= {"int", "float", "bool"} and ta != tb and "bool" not in (ta, tb):
        if not _close(a["v"], b["v"], tol.get("float")):
            yield path, "values differ", a, b
        return
    if ta != tb:
        yield path, f"type differs ({ta} vs {tb})", a, b
        return
    if ta in ("bool", "int", "str"):
        if a["v"] != b["v"]:
            yield path, "values differ", a, b
    elif ta == "float":
        if not _close(a["v"], b["v"], tol.get("float")):
            yield path, "values differ", a, b
    elif ta in ("list", "tuple"):
        if a.get("len") != b.get("len"):
            yield path, f"length differs ({a.get('len')} vs {b.get('len')})", a, b
            return
        for i, (x, y) in enumerate(zip(a["items"], b["items"])):
            yield from diffs(x, y, tol, f"{path}[{i}]", mask, collect)
    elif ta == "dict":
        ka, kb = set(a["items"]), set(b["items"])
        if a.get("len") != b.get("len") or ka != kb:
            yield path, f"keys differ ({a.get('len')} vs {b.get('len')} entries)", a, b
            return
        for k in sorted(ka):
            yield from diffs(a["items"][k], b["items"][k], tol, f"{path}[{k}]", mask, collect)
    elif ta == "set":
        if a.get("items") != b.get("items") or a.get("len") != b.get("len"):
            yield path, "set contents differ", a, b
    elif ta == "iterator":
        if a.get("pos") != b.get("pos"):
            yield path, f"iterator position differs ({a.get('pos')} vs {b.get('pos')})", a, b
    elif ta == "object":
        if a.get("type") != b.get("type"):
            yield path, "type differs", a, b
            return
        aa, ab = a.get("attrs", {}), b.get("attrs", {})
        for k in sorted(set(aa) | set(ab)):
            yield from diffs(aa.get(k), ab.get(k), tol, f"{path}.{k}", mask, collect)
    elif ta == "ragged":
        yield from diffs(a.get("v"), b.get("v"), tol, path, mask, collect)
    elif a.get("type") != b.get("type"):
        yield path, "type differs", a, b


def _diff_arrays(a: Enc, b: Enc, tol: Tolerances, path: str, mask: Mask | None = None,
                 collect: Mask | None = None) -> Iterator[Diff]:
    if a.get("dtype") != b.get("dtype"):
        yield path, f"dtype differs ({a.get('dtype')} vs {b.get('dtype')})", a, b
        return
    if a.get("shape") != b.get("shape"):
        yield path, f"shape differs ({tuple(a['shape'])} vs {tuple(b['shape'])})", a, b
        return
    t = tol.get(str(a.get("dtype")))
    skip = (mask or {}).get(path) or set()
    bad: list[int] = []
    for i, (x, y) in enumerate(zip(a.get("v", []), b.get("v", []))):
        if i not in skip and not _close(x, y, t):
            bad.append(i)
            if collect is None:
                break
    if bad:
        if collect is not None and collect.get(path, set()) is not None:
            collect[path] = (collect.get(path) or set()) | set(bad)
        where = f" (first at flat index {bad[0]})" if a.get("shape") else ""
        yield path, f"values differ{where}", a, b
        return
    if a.get("truncated") and not skip:
        n = float(a["truncated"])
        loose = (t[0] * 10, t[1] * n) if t else None
        for key in ("sum", "l1"):
            if key in a and not _close(a[key], b.get(key), loose):
                yield path, f"values differ (whole-tensor {key})", a, b
                return


def call_diffs(a: dict[str, Any], b: dict[str, Any], tol: Tolerances, mask: Mask | None = None,
               collect: Mask | None = None) -> Iterator[Diff]:
    """Differences between two call records (``a`` is the reference side)."""
    ea, eb = a.get("exc"), b.get("exc")
    if (ea is None) != (eb is None):
        yield "exception", "raised in one mode only", _exc_enc(ea), _exc_enc(eb)
    elif ea is None:
        yield from diffs(a.get("ret"), b.get("ret"), tol, "return", mask, collect)
    for section, label in (("vars", "variable"), ("state", "state")):
        sa, sb = a.get(section, {}), b.get(section, {})
        for name in sorted(set(sa) | set(sb)):
            yield from diffs(sa.get(name), sb.get(name), tol, f"{label} {name}", mask,
                             collect)
    if a.get("stdout", 0) != b.get("stdout", 0):
        yield (
            "printed lines",
            "a different number of lines was printed",
            {"t": "int", "v": a.get("stdout", 0), "first": a.get("stdout_first", "")},
            {"t": "int", "v": b.get("stdout", 0), "first": b.get("stdout_first", "")},
        )
    if a.get("logs", 0) != b.get("logs", 0):
        yield (
            "logged records",
            "a different number of log records was emitted",
            {"t": "int", "v": a.get("logs", 0)},
            {"t": "int", "v": b.get("logs", 0)},
        )


def _exc_enc(exc: dict[str, Any] | None) -> Enc:
    if exc is None:
        return {"t": "str", "v": "no exception"}
    return {"t": "str", "v": f"{exc.get('type')}: {exc.get('msg', '')}"}


def _kind(path: str, reason: str) -> str:
    if "symbolic graph tensor" in reason:
        return "leak"
    if path.startswith("return"):
        return "return"
    if path.startswith("exception"):
        return "exception"
    if path.startswith("variable"):
        return "variable"
    if path.startswith("state"):
        return "state"
    return "output"


def _display(e: Enc | None) -> str:
    if e is not None and e.get("t") == "int" and "first" in e:
        first = e.get("first") or ""
        return f"{e['v']} line(s)" + (f", first: {first!r}" if first else "")
    return show(e)


def _excluded(path: str, mask: Mask) -> bool:
    """Is the whole of ``path`` nondeterministic (not just some elements of an array)?"""
    for p, elems in mask.items():
        if elems is None and (path == p or path.startswith(p + "[") or
                              path.startswith(p + ".")):
            return True
    return False


def _merge(into: Mask, other: Mask) -> None:
    for p, elems in other.items():
        if elems is None or into.get(p, set()) is None:
            into[p] = None
        else:
            into[p] = (into.get(p) or set()) | elems


def nondeterministic_mask(
    runs: list[list[dict[str, Any]]], other: list[list[dict[str, Any]]], tol: Tolerances
) -> Mask:
    """What differs between two runs of one mode from the same seed and state: array
    elements by index, anything else as a whole path."""
    out: Mask = {}
    for r1, r2 in zip(runs, other):
        for c1, c2 in zip(r1, r2):
            found: Mask = {}
            for path, _reason, _a, _b in call_diffs(c1, c2, tol, collect=found):
                if path not in found:
                    found[path] = None
            _merge(out, found)
    return out


def _describe_mask(mask: Mask) -> list[str]:
    out = []
    for p in sorted(mask):
        elems = mask[p]
        out.append(p if elems is None else
                   f"{p} (element{'s' if len(elems) > 1 else ''} "
                   f"{', '.join(str(i) for i in sorted(elems)[:6])}"
                   f"{', ...' if len(elems) > 6 else ''})")
    return out


def _rejected(ex: dict[str, Any], devices: list[str]) -> bool:
    """A synthesized example the function does not accept: every call raised, eagerly and
    as a graph, with the same exception type."""
    if not ex.get("synthesized"):
        return False
    modes = ex["modes"]
    calls = [c for m in ("graph", "eager") for d in devices for c in modes.get(m, {}).get(d, [])]
    if not calls or any(c.get("exc") is None for c in calls):
        return False
    return len({c["exc"].get("type") for c in calls}) == 1


def build_result(obs: dict[str, Any], tol: Tolerances | None = None) -> FunctionResult:
    """Turn one function's observation record into a :class:`FunctionResult`."""
    tol = tol or Tolerances()
    examples = obs.get("examples", [])
    base = FunctionResult(
        name=obs["name"],
        file=obs.get("file", ""),
        line=int(obs.get("line") or 0),
        end_line=obs.get("end_line"),
        status=obs.get("status") or "ok",
        target=obs.get("target", ""),
        reason=obs.get("reason", ""),
        inputs=obs.get("inputs", ""),
        examples=len(examples),
        calls=int(obs.get("calls", 0)),
        devices=list(obs.get("devices", [])),
        traces=TraceInfo.from_dict(obs.get("traces")),
        hints=list(obs.get("hints", [])),
        tried=[ex.get("label", "") for ex in examples],
        exception_text=obs.get("exception_text", ""),
        related=list(obs.get("related", [])),
    )
    if base.status in ("skipped", "error", "timeout"):
        return base
    devices = base.devices
    divergences: list[Divergence] = []
    # real nondeterminism: two runs of one mode from the same seed differ
    nondet: Mask = {}
    # random by design: follows TensorFlow's seed (excluded, not a label)
    seeded: Mask = {}
    for ex in examples:
        modes = ex["modes"]
        for dev in devices:
            for m1, m2, into in (("graph", "graph2", nondet), ("eager", "eager2", nondet),
                                 ("eager", "eager_reseed", seeded)):
                r1, r2 = modes.get(m1, {}).get(dev, []), modes.get(m2, {}).get(dev, [])
                if r1 and r2:
                    _merge(into, nondeterministic_mask([r1], [r2], tol))
    mask: Mask = {}
    _merge(mask, nondet)
    _merge(mask, seeded)
    seen: set[tuple[str, str | None]] = set()
    judged = [ex for ex in examples if not _rejected(ex, devices)]
    rejected = len(examples) - len(judged)
    all_raise = True
    for ex_i, ex in enumerate(examples):
        if ex not in judged:
            continue
        modes = ex["modes"]
        for dev in devices:
            g = modes.get("graph", {}).get(dev, [])
            e = modes.get("eager", {}).get(dev, [])
            if any(c.get("exc") is None for c in g + e):
                all_raise = False
            for call_i, (cg, ce) in enumerate(zip(g, e)):
                for path, reason, a, b in call_diffs(ce, cg, tol, mask):
                    key = (path, "leak" if "symbolic graph tensor" in reason else None)
                    if _excluded(path, mask) or key in seen:
                        continue
                    seen.add(key)
                    divergences.append(_divergence(path, reason, a, b, ex_i, call_i, dev, g,
                                                   e, tol, mask))
                for name, enc in cg.get("state", {}).items():
                    for sub in contains_symbolic(enc):
                        key = (f"state {name}{sub}", "leak")
                        if key in seen:
                            continue
                        seen.add(key)
                        divergences.append(
                            Divergence(
                                kind="leak",
                                path=f"state {name}{sub}",
                                example=ex_i + 1,
                                call=call_i + 1,
                                eager=_display(ce.get("state", {}).get(name)),
                                graph=_display(enc),
                                detail="a symbolic graph tensor leaked out of the trace into "
                                "Python state",
                                device=dev,
                            )
                        )
        # devices against the first device, graph mode, looser (capped) tolerance
        if len(devices) > 1:
            ref = modes.get("graph", {}).get(devices[0], [])
            loose = tol.loosened()
            for dev in devices[1:]:
                other = modes.get("graph", {}).get(dev, [])
                for call_i, (c0, c1) in enumerate(zip(ref, other)):
                    for path, reason, a, b in call_diffs(c0, c1, loose, mask):
                        if _excluded(path, mask) or (path, dev) in seen:
                            continue
                        if "symbolic graph tensor" in reason:
                            continue
                        seen.add((path, dev))
                        divergences.append(
                            Divergence(
                                kind="device",
                                path=path,
                                example=ex_i + 1,
                                call=call_i + 1,
                                eager=_display(a),
                                graph=_display(b),
                                detail=f"{reason} between devices",
                                device=devices[0],
                                other_device=dev,
                            )
                        )
    order = {k: i for i, k in enumerate(DIVERGENCE_KINDS)}
    divergences.sort(key=lambda d: (d.example, d.call, order.get(d.kind, 99)))
    base.divergences = divergences[:50]
    base.nondeterministic = _describe_mask(nondet)
    base.random_by_design = [p for p in _describe_mask(seeded) if p not in base.nondeterministic]
    if rejected:
        base.hints.append(f"{rejected} synthesized example(s) raised in both modes and were "
                          "left out (inputs the function does not accept)")
    if divergences:
        base.status = "divergent"
    elif examples and not judged:
        base.status = "skipped"
        base.reason = ("every synthesized input raised, eagerly and as a graph: "
                       f"{_first_exception(obs)}; declare examples (TFLINT_EXAMPLES)")
    elif judged and all_raise:
        base.status = "error"
        first = _first_exception(obs)
        base.reason = f"every call raised, eagerly and as a graph: {first}"
    elif nondet:
        base.status = "nondeterministic"
    else:
        base.status = "ok"
    return base


def _divergence(path: str, reason: str, a: Enc | None, b: Enc | None, ex_i: int, call_i: int,
                dev: str, g: list[dict[str, Any]], e: list[dict[str, Any]], tol: Tolerances,
                mask: Mask) -> Divergence:
    """A divergence with every call's value of ``path`` in both modes."""
    per_call = []
    for i, (cg, ce) in enumerate(zip(g, e)):
        per_call.append({"call": i + 1, "eager": _display(_at(ce, path)),
                         "graph": _display(_at(cg, path)),
                         "differs": any(p == path or p.startswith(path) or path.startswith(p)
                                        for p, *_ in call_diffs(ce, cg, tol, mask))})
    detail = reason
    if path == "exception":
        full_e = _exc_text(e[call_i])
        full_g = _exc_text(g[call_i])
        return Divergence(kind="exception", path=path, example=ex_i + 1, call=call_i + 1,
                          eager=_display(a), graph=_display(b), detail=detail, device=dev,
                          calls=per_call, eager_full=full_e, graph_full=full_g)
    return Divergence(kind=_kind(path, reason), path=path, example=ex_i + 1, call=call_i + 1,
                      eager=_display(a), graph=_display(b), detail=detail, device=dev,
                      calls=per_call)


def _exc_text(call: dict[str, Any]) -> str:
    exc = call.get("exc")
    if not exc:
        return ""
    return f"{exc.get('type')}: {exc.get('text', exc.get('msg', ''))}"


def _at(call: dict[str, Any], path: str) -> Enc | None:
    """The encoded value at a divergence path (top level of return, variable or state)."""
    if path == "exception":
        return _exc_enc(call.get("exc"))
    if path.startswith("return"):
        return call.get("ret") if call.get("exc") is None else _exc_enc(call.get("exc"))
    for section, label in (("vars", "variable "), ("state", "state ")):
        if path.startswith(label):
            rest = path[len(label):]
            for name, enc in call.get(section, {}).items():
                if rest == name or rest.startswith(name + "[") or rest.startswith(name + "."):
                    return enc
    if path == "printed lines":
        return {"t": "int", "v": call.get("stdout", 0), "first": call.get("stdout_first", "")}
    if path == "logged records":
        return {"t": "int", "v": call.get("logs", 0)}
    return None


def _first_exception(obs: dict[str, Any]) -> str:
    for ex in obs.get("examples", []):
        for calls in ex["modes"].get("eager", {}).values():
            for c in calls:
                if c.get("exc"):
                    return f"{c['exc'].get('type')}: {c['exc'].get('msg', '')}"
    return "?"
