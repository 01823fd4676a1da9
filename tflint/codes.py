"""The code table (``codes.toml``): every code, its name, severity, default and the
pitfalls it covers. The rule classes must agree with it, the engine's own codes come
from it, and ``docs/rules/codes.md`` is generated from it."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).with_name("codes.toml")


@dataclass(frozen=True)
class CodeEntry:
    code: str
    name: str
    severity: str
    default: bool
    pitfalls: tuple[str, ...]
    #: what it flags, one line (Markdown)
    flags: str

    @property
    def engine(self) -> bool:
        """TFL0xx: reported by the engine itself, not by a rule class."""
        return self.code.startswith("TFL0")


@functools.lru_cache(maxsize=1)
def table() -> tuple[CodeEntry, ...]:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    with TABLE.open("rb") as f:
        data = tomllib.load(f)
    return tuple(
        CodeEntry(e["code"], e["name"], e["severity"], bool(e["default"]), tuple(e.get("pitfalls", ())), e["flags"])
        for e in data["code"]
    )


def by_code() -> dict[str, CodeEntry]:
    return {e.code: e for e in table()}
