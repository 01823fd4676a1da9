"""Connect a divergence to the static rule that explains it, and pick hints by its reason.

When ``tflint check`` flags code inside the divergent function, or inside a helper of the
user's the function calls (in the same module or another one), the summary names the rule:
the verifier proves the bug, the rule's page explains it and shows the fix. The static
engine is optional here (it may be absent or broken in a partial install); the verifier then
just prints no code.
"""

from __future__ import annotations

import functools
import os

from tflint.verify.model import Divergence, FunctionResult

#: a hint per reason of a difference, for functions no static rule flagged
HINTS = {
    "output": "print/logging in traced code runs once per trace, not per call (use tf.print)",
    "state": "Python state changed in traced code is changed once per trace, not per call "
             "(keep state in tf.Variable, return values instead of mutating)",
    "leak": "a graph tensor was stored in Python state (return it instead)",
    "variable": "a variable update depends on Python state read at trace time",
    "frozen": "a Python value (random, clock, global, iterator) was frozen into the graph "
              "at trace time",
    "dtype": "the two modes give different dtypes: a Python number is typed when traced "
             "(tf.constant(1) is int32, 1.0 float32); cast explicitly",
    "shape": "the two modes give different shapes: code reads a static shape (x.shape) "
             "that is unknown or different in the graph; use tf.shape(x)",
    "graph_only_exception": "raised only as a graph: Python control flow or a Python "
                            "conversion on a tensor (bool(x), int(x), x.numpy()) that "
                            "eager code allows",
    "eager_only_exception": "raised only eagerly: graph mode prunes ops whose results are "
                            "unused, and their errors with them; do not rely on an error "
                            "being raised",
    "device": "the result depends on the device (different kernels or placement)",
}


def reason_of(d: Divergence) -> str:
    """Which hint fits a divergence: by what differs, not by the function."""
    if d.kind == "exception":
        eager_raised = not d.eager.startswith("no exception")
        return "eager_only_exception" if eager_raised else "graph_only_exception"
    if "dtype differs" in d.detail or d.detail.startswith("type differs"):
        return "dtype"
    if "shape differs" in d.detail:
        return "shape"
    if d.kind == "return":
        return "frozen"
    return d.kind


@functools.lru_cache(maxsize=256)
def _diagnostics(path: str) -> tuple[tuple[str, int], ...]:
    try:
        from tflint.engine import lint_source
    except Exception:
        return ()
    try:
        with open(path, "rb") as f:
            source = f.read()
        return tuple((d.code, int(d.line)) for d in lint_source(source, path))
    except Exception:
        return ()


def static_codes(path: str, line: int, end_line: int | None) -> list[str]:
    """Codes ``tflint check`` reports inside lines ``line..end_line`` of ``path``."""
    if not path or not line:
        return []
    end = end_line or line
    codes = {code for code, ln in _diagnostics(path) if line <= ln <= end}
    return sorted(c for c in codes if not c.startswith("TFL0"))


def _related_codes(result: FunctionResult) -> list[str]:
    """Codes flagged in the user helpers the function calls, named with their place."""
    out = []
    for rel in result.related:
        codes = static_codes(rel.get("file", ""), int(rel.get("line", 0)), rel.get("end_line"))
        for c in codes:
            where = f"{os.path.basename(rel.get('file', ''))}:{rel.get('line')}"
            out.append(f"{c} in {rel.get('name', '?')} ({where})")
    return out


def annotate(result: FunctionResult) -> FunctionResult:
    """Fill ``static_rules``, reason hints and ``not_proven``."""
    if result.status in ("divergent", "nondeterministic", "ok"):
        result.static_rules = static_codes(result.file, result.line, result.end_line) + \
            _related_codes(result)
    if result.status == "divergent":
        reasons: list[str] = []
        for d in result.divergences:
            r = reason_of(d)
            if r not in reasons:
                reasons.append(r)
        for r in reasons[:2]:
            hint = HINTS.get(r)
            if hint and hint not in result.hints and (not result.static_rules or r in (
                    "dtype", "shape", "graph_only_exception", "eager_only_exception")):
                result.hints.append(hint)
    elif result.status in ("ok", "nondeterministic") and result.static_rules:
        result.not_proven = True
    return result
