"""Connect a divergence to the static rule that explains it.

When ``tflint check`` flags code inside the divergent function, the summary names the rule:
the verifier proves the bug, the rule's page explains it and shows the fix. The static
engine is optional here (it may be absent or broken in a partial install); the verifier then
just prints no code.
"""

from __future__ import annotations

import functools

from tflint.verify.model import FunctionResult

#: a hint per divergence kind, for functions no static rule flagged
KIND_HINTS = {
    "output": "print/logging in traced code runs once per trace, not per call (use tf.print)",
    "state": "Python state changed in traced code is changed once per trace, not per call "
             "(keep state in tf.Variable, return values instead of mutating)",
    "leak": "a graph tensor was stored in Python state (return it instead)",
    "variable": "a variable update depends on Python state read at trace time",
    "return": "a Python value (random, clock, global, iterator) was frozen into the graph "
              "at trace time",
    "exception": "graph mode prunes unused ops and runs errors differently; do not rely on "
                 "an error being raised",
    "device": "the result depends on the device (different kernels or placement)",
}


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


def annotate(result: FunctionResult) -> FunctionResult:
    """Fill ``static_rules`` and kind hints of a divergent result."""
    if result.status in ("divergent", "nondeterministic"):
        result.static_rules = static_codes(result.file, result.line, result.end_line)
        if result.status == "divergent" and not result.static_rules:
            kinds: list[str] = []
            for d in result.divergences:
                if d.kind not in kinds:
                    kinds.append(d.kind)
            for k in kinds[:2]:
                hint = KIND_HINTS.get(k)
                if hint and hint not in result.hints:
                    result.hints.append(hint)
    return result
