"""All rules, looked up by code, and flake8-style select/ignore by prefix."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Iterable

from tflint.rule import CODE_RE, NAME_RE, Rule


class RegistryError(ValueError):
    pass


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class in ``tflint.rules``, sorted by code (imported once)."""
    import tflint.rules as pkg

    found: dict[str, type[Rule]] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj.CODE and obj.__module__ == mod.__name__:
                if not CODE_RE.match(obj.CODE) or not NAME_RE.match(obj.NAME):
                    raise RegistryError(f"bad rule metadata: {obj.__name__} {obj.CODE} {obj.NAME}")
                if obj.CODE in found:
                    raise RegistryError(f"duplicate rule code {obj.CODE}")
                found[obj.CODE] = obj
    return tuple(found[c] for c in sorted(found))


def _engine_codes() -> dict[str, tuple[str, str]]:
    from tflint.codes import table

    return {e.code: (e.name, e.severity) for e in table() if e.engine}


#: codes the engine itself emits (TFL0xx in the code table, tflint/codes.toml); they
#: are not Rule subclasses with visitors
ENGINE_CODES = _engine_codes()


def all_codes() -> list[str]:
    return sorted(set(ENGINE_CODES) | {r.CODE for r in all_rules()})


def by_code(code: str) -> type[Rule]:
    for r in all_rules():
        if r.CODE == code:
            return r
    raise KeyError(code)


def default_off_codes() -> list[str]:
    return [r.CODE for r in all_rules() if not r.DEFAULT_ON]


def check_codes(codes: Iterable[str], what: str) -> None:
    """Raise RegistryError for a code or prefix that matches no known code."""
    known = all_codes()
    for c in codes:
        if c == "ALL":
            continue
        if not c.startswith("TFL") or not any(k.startswith(c) for k in known):
            raise RegistryError(f"{what}: unknown rule code or prefix {c!r} (known: TFL001..{known[-1]})")


def _longest(code: str, prefixes: Iterable[str]) -> int:
    best = -1
    for p in prefixes:
        if p == "ALL":
            best = max(best, 0)
        elif code.startswith(p):
            best = max(best, len(p))
    return best


def is_enabled(
    code: str,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    extend_select: Iterable[str] = (),
) -> bool:
    """flake8 semantics: the longest matching prefix wins between select and ignore
    (a tie goes to ignore).

    With no explicit ``select``, every default-on code counts as selected by ``TFL``;
    ``extend_select`` adds to that. An explicit ``select`` replaces the default, so it can
    turn on a default-off rule.
    """
    if select is None:
        sel = 3 if code not in default_off_codes() else -1
    else:
        sel = _longest(code, select)
    sel = max(sel, _longest(code, extend_select))
    return sel >= 0 and sel > _longest(code, ignore)


def selected_rules(
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    extend_select: Iterable[str] = (),
) -> list[type[Rule]]:
    select = list(select) if select is not None else None
    ignore, extend_select = list(ignore), list(extend_select)
    return [r for r in all_rules() if is_enabled(r.CODE, select, ignore, extend_select)]
