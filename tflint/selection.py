"""The rule selection of a run, resolved once from ``select`` / ``ignore`` /
``extend-select`` and handed to the engine, instead of being worked out again for every
file and every code."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from tflint.config import Settings
    from tflint.rule import Rule


@dataclass(frozen=True)
class Selection:
    """The rules to run, whether the engine's own codes are on, and the text markers
    the pre-filter looks for. Picklable (rules are classes, found by reference)."""

    rules: tuple[type["Rule"], ...]
    engine_codes: frozenset[str]
    markers: "re.Pattern[str]"
    #: the markers as (literal each match contains, pattern or None when the literal is
    #: the whole marker): see :meth:`has_marker`
    marker_parts: tuple[tuple[str, "re.Pattern[str] | None"], ...] = ()

    def wants(self, engine_code: str) -> bool:
        return engine_code in self.engine_codes

    def has_marker(self, text: str) -> bool:
        """``markers.search(text)``, answered with substring tests first: one alternation
        of a dozen markers that share no prefix makes the regular expression engine try
        every position of the text (a second per thousand files), ``in`` does not."""
        if not self.marker_parts:
            return self.markers.search(text) is not None
        for literal, pattern in self.marker_parts:
            if literal in text and (pattern is None or pattern.search(text) is not None):
                return True
        return False


def resolve(select: Iterable[str] | None, ignore: Iterable[str] = (),
            extend_select: Iterable[str] = ()) -> Selection:
    """The selection for these settings; the same object for the same settings."""
    return _resolve(tuple(select) if select is not None else None, tuple(ignore), tuple(extend_select))


def for_settings(settings: "Settings") -> Selection:
    return resolve(settings.select, settings.ignore, settings.extend_select)


@functools.lru_cache(maxsize=64)
def _resolve(select: tuple[str, ...] | None, ignore: tuple[str, ...], extend_select: tuple[str, ...]) -> Selection:
    from tflint.registry import ENGINE_CODES, is_enabled, selected_rules

    rules = tuple(selected_rules(select, ignore, extend_select))
    engine = frozenset(c for c in ENGINE_CODES if is_enabled(c, select, ignore, extend_select))
    patterns = sorted({m for r in rules for m in r.TEXT_MARKERS})
    parts = tuple(_literal_part(p) for p in patterns)
    return Selection(rules, engine, re.compile("|".join(patterns) or r"(?!)"),
                     () if any(lit is None for lit, _ in parts) else parts)  # type: ignore[arg-type]


def _literal_part(pattern: str) -> tuple[str | None, "re.Pattern[str] | None"]:
    """The literal text every match of ``pattern`` contains, and the pattern itself
    when the literal alone does not decide (word boundaries); (None, None) when the
    pattern is more than escaped characters and ``\\b``."""
    out: list[str] = []
    exact = True
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "b":
                exact = False
            elif nxt.isalnum():
                return None, None  # \s, \d, \w ...: not a literal
            else:
                out.append(nxt)
            i += 2
        elif c in ".^$*+?{}[]|()":
            return None, None
        else:
            out.append(c)
            i += 1
    literal = "".join(out)
    if not literal:
        return None, None
    return literal, (None if exact else re.compile(pattern))
