"""Findings of unchanged files, kept in the project's cache folder (``.tflint_cache/``).

A file's findings depend on its bytes, its path, the settings the engine reads, tflint's
own code and, through the project index, on every other module of the project. The key
hashes all of them, so a hit is always the answer a fresh run would give; anything else
(a miss, an entry that does not decode) lints the file. The front-end applies noqa and
per-file-ignores afterwards, as for a fresh result.
"""

from __future__ import annotations

import functools
import hashlib
import os
from typing import TYPE_CHECKING

from tflint import __version__
from tflint.config import Settings
from tflint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

if TYPE_CHECKING:
    from tflint.semantic.project import ProjectView


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """tflint's own modules and rules (names, sizes, mtimes): a changed rule or an
    upgraded tflint never reads findings the old code made."""
    import tflint
    import tflint.rules

    h = hashlib.sha1(__version__.encode())
    for pkg in (tflint, tflint.rules):
        base = os.path.dirname(os.path.abspath(pkg.__file__ or ""))
        for d, dirs, names in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for n in sorted(names):
                if n.endswith(".py"):
                    st = os.stat(os.path.join(d, n))
                    h.update(f"{os.path.relpath(os.path.join(d, n), base)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def key(data: bytes, path: str, settings: Settings, view: "ProjectView") -> str:
    h = hashlib.sha1()
    from tflint.engine import keras_version

    for part in (code_fingerprint(), view.relpath, repr(settings.select), repr(sorted(settings.ignore)),
                 repr(sorted(settings.extend_select)), repr(sorted(settings.tf_function_wrappers)),
                 keras_version(settings, view), view.index.fingerprint()):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    h.update(data)
    return h.hexdigest()


def load(view: "ProjectView", k: str, path: str) -> list[Diagnostic] | None:
    cache = view.index.cache
    items = cache.results(k) if cache is not None else None
    if items is None:
        return None
    try:
        return [_from_dict(d, path) for d in items]
    except (KeyError, TypeError, ValueError):
        return None  # a damaged entry: lint again


def store(view: "ProjectView", k: str, diagnostics: list[Diagnostic]) -> None:
    cache = view.index.cache
    if cache is not None:
        cache.store_results(k, [_to_dict(d) for d in diagnostics])


def _to_dict(d: Diagnostic) -> dict:
    out = {"code": d.code, "name": d.name, "message": d.message, "line": d.line, "column": d.column,
           "end_line": d.end_line, "end_column": d.end_column, "severity": d.severity.value}
    if d.fix is not None:
        out["fix"] = {"title": d.fix.title, "applicability": d.fix.applicability.value,
                      "edits": [[e.line, e.column, e.end_line, e.end_column, e.content] for e in d.fix.edits]}
    return out


def _from_dict(d: dict, path: str) -> Diagnostic:
    fix = None
    if d.get("fix") is not None:
        f = d["fix"]
        fix = Fix(title=str(f["title"]), applicability=Applicability(f["applicability"]),
                  edits=tuple(Edit(int(a), int(b), int(c), int(e), str(t)) for a, b, c, e, t in f["edits"]))
    return Diagnostic(code=str(d["code"]), name=str(d["name"]), message=str(d["message"]), path=path,
                      line=int(d["line"]), column=int(d["column"]), end_line=int(d["end_line"]),
                      end_column=int(d["end_column"]), severity=Severity(d["severity"]), fix=fix)
