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

    def wants(self, engine_code: str) -> bool:
        return engine_code in self.engine_codes


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
    return Selection(rules, engine, re.compile("|".join(patterns) or r"(?!)"))
