"""Target syntax, shared by the parent (no TensorFlow) and the child."""

from __future__ import annotations


def split_target(target: str) -> tuple[str, str | None]:
    """``path/to/x.py:fn`` or ``pkg.mod:obj.method`` -> (module part, function name)."""
    if ":" in target:
        head, _, name = target.rpartition(":")
        if head and not (len(head) == 1 and head.isalpha()):  # keep C:\\ style drives
            return head, name or None
    return target, None
