"""What a user sees for one file: the one place where findings are filtered.

The engine reports every finding of the selected rules; ``# noqa`` comments and
``per-file-ignores`` are applied here, the same way for ``tflint check`` (files and
stdin), ``--fix`` (through :func:`tflint.engine.fix_source`'s noqa pass and
:func:`file_settings`) and the language server. flake8 applies both itself.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

from tflint.config import Settings
from tflint.diagnostics import Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst


def file_settings(path: str, settings: Settings) -> Settings:
    """``settings`` with the file's per-file-ignores added to ``ignore``: what the fixer
    runs with, so that an ignored finding is not fixed either."""
    from tflint import files

    if not settings.per_file_ignores:
        return settings
    extra = files.per_file_ignored_codes(path, settings.per_file_ignores)
    return dataclasses.replace(settings, ignore=list(settings.ignore) + extra) if extra else settings


def per_file_ignores(path: str, diags: list[Diagnostic], settings: Settings) -> list[Diagnostic]:
    """Drop the findings whose code ``per-file-ignores`` turns off for ``path``."""
    from tflint import files
    from tflint.registry import is_enabled

    if not diags or not settings.per_file_ignores:
        return diags
    extra = files.per_file_ignored_codes(path, settings.per_file_ignores)
    if not extra:
        return diags
    ignore = list(settings.ignore) + extra
    return [d for d in diags if is_enabled(d.code, settings.select, ignore, settings.extend_select)]


def noqa_text(data: bytes | str) -> str:
    """The text noqa comments are read from: as the engine decodes it, else latin-1
    (flake8 falls back to latin-1 when a file does not decode)."""
    from tflint.engine import decode

    try:
        return decode(data)
    except (UnicodeDecodeError, LookupError, SyntaxError):
        assert isinstance(data, bytes)
        text = data.decode("latin-1")
        return text[1:] if text.startswith("\ufeff") else text


def lint_file(data: bytes | str, path: str, settings: Settings, *, noqa: bool = True,
              parser: Callable[[str], "cst.Module"] | None = None) -> list[Diagnostic]:
    """Lint one file's contents as the file ``path`` (a notebook when the name says
    so), with ``# noqa`` (unless ``noqa`` is False) and per-file-ignores applied."""
    from tflint import noqa as noqa_mod, notebook

    if notebook.is_notebook(path):
        diags = notebook.lint(data, path, settings, noqa=noqa)
    else:
        diags = _lint_cached(data, path, settings, parser)
        if diags and noqa:
            diags = noqa_mod.apply_noqa(diags, noqa_text(data))
    return per_file_ignores(path, diags, settings)


def _lint_cached(data: bytes | str, path: str, settings: Settings,
                 parser: Callable[[str], "cst.Module"] | None = None) -> list[Diagnostic]:
    """The file's findings: from the project cache when nothing they depend on changed,
    else from the engine (and then kept for the next run)."""
    from tflint import result_cache
    from tflint.engine import lint_source

    view = project_view(path, settings)
    key = None
    if view is not None and view.index.cache is not None and isinstance(data, bytes):
        try:
            key = result_cache.key(data, path, settings, view)
        except (OSError, ValueError):
            key = None
        cached = result_cache.load(view, key, path) if key is not None else None
        if cached is not None:
            return cached
    diags = lint_source(data, path, settings, project=view, parser=parser)
    if key is not None:
        result_cache.store(view, key, diags)
    return diags


def project_view(path: str, settings: Settings):
    """What the rest of the file's project says of it (imports, traced callers, call
    sites), from the project index; None outside a project. Never raises."""
    from tflint.semantic.project import view_for

    return view_for(path, cache=settings.cache, cache_dir=settings.cache_dir,
                    wrappers=settings.tf_function_wrappers)
