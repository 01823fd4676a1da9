"""Linting, fixing and noqa-adding one file at a time, and running many files (in
worker processes when it pays). The command line (:mod:`tflint.cli`) decides what to run
and prints; this module does the work and never prints. Every function here returns a
:class:`FileResult` and never raises: one file's problem must not lose the others'."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from tflint.config import Settings
from tflint.diagnostics import Diagnostic

#: below this many files a process pool costs more than it saves
PARALLEL_MIN_FILES = 8


@dataclass
class FileResult:
    """What linting one file gives; picklable, so workers can send it back."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: set when the file could not be read or linting it failed outside the engine
    error: str | None = None
    #: physical lines, only for ``--show-source`` (per cell in a notebook)
    lines: list[str] | None = None
    cell_lines: dict[int, list[str]] = field(default_factory=dict)
    #: ``--fix`` / ``--diff``: fixes applied (or that would be), the unified diff
    #: (``--diff`` only) and fixes dropped because their result did not parse
    fixed: int = 0
    diff: str | None = None
    fix_problems: list[str] = field(default_factory=list)
    #: fixes applied per code (``--show-fixes``)
    fixed_by_code: dict[str, int] = field(default_factory=dict)
    #: ``--fix`` on standard input: the fixed source, written to stdout
    fixed_source: bytes | None = None
    #: ``--fix`` could not write the fixed text (the file is as it was)
    unwritten: bool = False


@dataclass(frozen=True)
class CheckOptions:
    """The part of a run each worker needs (picklable)."""

    settings: Settings
    disable_noqa: bool = False
    show_source: bool = False
    #: "fix" (write fixed files), "diff" (compute the diff, write nothing), "add-noqa"
    #: (write ``# noqa`` comments) or None
    fix_mode: str | None = None
    unsafe_fixes: bool = False
    #: the source came from standard input: "fix" and "add-noqa" keep the new source in
    #: the result (for stdout) instead of writing a file
    stdin: bool = False


def _decode_for_noqa(data: bytes) -> str:
    from tflint.checking import noqa_text

    return noqa_text(data)


def check_file(path: str, opts: CheckOptions) -> FileResult:
    """Read and lint one file, then apply noqa and per-file-ignores. Never raises."""
    from tflint import files

    try:
        data = files.read_regular_file(path, opts.settings.max_file_size)
    except files.NotRegularFile as e:
        return FileResult(path, error=e.strerror)
    except OSError as e:
        return FileResult(path, error=f"cannot read file: {e.strerror or e}")
    return check_data(path, data, opts)


def check_data(path: str, data: bytes, opts: CheckOptions) -> FileResult:
    """Lint (or fix) ``data`` as the file ``path``: standard input goes through here
    too, with the name given by ``--stdin-filename``. Never raises."""
    from tflint import noqa, notebook
    from tflint.checking import lint_file

    if opts.fix_mode == "add-noqa":
        return add_noqa_file(path, data, opts)
    if opts.fix_mode is not None:
        return fix_file(path, data, opts)
    try:
        diags = lint_file(data, path, opts.settings, noqa=not opts.disable_noqa)
        lines = None
        cell_lines: dict[int, list[str]] = {}
        if opts.show_source and diags:
            if notebook.is_notebook(path):
                cell_lines = _cell_lines(data, path)
            else:
                lines = noqa.source_lines(_decode_for_noqa(data))
        return FileResult(path, diags, lines=lines, cell_lines=cell_lines)
    except Exception as e:  # a bug here must not lose the other files' results
        return FileResult(path, error=f"internal error: {type(e).__name__}: {e}")


def _cell_lines(data: bytes, path: str) -> dict[int, list[str]]:
    from tflint import noqa, notebook

    try:
        nb = notebook.read(data, path)
    except notebook.NotebookError:
        return {}
    return {c.index: noqa.source_lines(c.source) for c in nb.cells}


def project_view(path: str, settings: Settings) -> Any:
    from tflint.checking import project_view as view

    return view(path, settings)


def _file_settings(path: str, settings: Settings) -> Settings:
    from tflint.checking import file_settings

    return file_settings(path, settings)


def fix_file(path: str, data: bytes, opts: CheckOptions) -> FileResult:
    """``--fix``: fix the file and write it back into the same file if it changed
    (:mod:`tflint.writeback`); ``--diff``: only compute the unified diff. The result
    carries the findings left after fixing (noqa and per-file-ignores applied: silenced
    findings are not fixed either)."""
    import dataclasses

    from tflint import noqa, notebook, writeback
    from tflint.engine import fix_source

    if notebook.is_notebook(path):
        return _fix_notebook(path, data, opts)
    try:
        result = fix_source(data, path, _file_settings(path, opts.settings), unsafe=opts.unsafe_fixes,
                            noqa=not opts.disable_noqa, project=project_view(path, opts.settings))
        new = result.source
        assert isinstance(new, bytes)
        out = FileResult(path, list(result.diagnostics), fixed=result.applied,
                         fix_problems=list(result.problems), fixed_by_code=dict(result.applied_by_code))
        if opts.stdin and opts.fix_mode == "fix":
            out.fixed_source = new
        elif new != data:
            if opts.fix_mode == "diff":
                out.diff = _unified_diff(path, _decode_for_noqa(data), _decode_for_noqa(new))
            else:
                try:
                    writeback.write_back(path, data, new)
                except OSError as e:  # the file is unchanged: report what it holds now
                    now = check_data(path, data, dataclasses.replace(opts, fix_mode=None))
                    return dataclasses.replace(now, error=f"cannot write the fixed file: {e.strerror or e}",
                                               unwritten=True)
        if opts.show_source and out.diagnostics:
            out.lines = noqa.source_lines(_decode_for_noqa(new))
        return out
    except Exception as e:  # a bug here must not lose the other files' results
        return FileResult(path, error=f"internal error while fixing: {type(e).__name__}: {e}")


def _fix_notebook(path: str, data: bytes, opts: CheckOptions) -> FileResult:
    """``--fix`` / ``--diff`` on a notebook: the diff is per changed cell (``path:cell N``
    headers, as ruff prints them); the notebook is written back only where cells changed."""
    from tflint import notebook

    try:
        result = notebook.fix(data, path, _file_settings(path, opts.settings), unsafe=opts.unsafe_fixes,
                              noqa=not opts.disable_noqa)
        out = FileResult(path, list(result.diagnostics), fixed=result.applied,
                         fix_problems=list(result.problems), fixed_by_code=dict(result.applied_by_code))
        if opts.stdin and opts.fix_mode == "fix":
            out.fixed_source = result.source
        elif result.source != data:
            if opts.fix_mode == "diff":
                out.diff = "".join(_unified_diff(f"{path}:cell {index}", old, new)
                                   for index, old, new in result.changed_cells)
            else:
                _write_back(out, path, data, result.source, "cannot write the fixed file")
        return out
    except Exception as e:  # a bug here must not lose the other files' results
        return FileResult(path, error=f"internal error while fixing: {type(e).__name__}: {e}")


def add_noqa_file(path: str, data: bytes, opts: CheckOptions) -> FileResult:
    """``--add-noqa``: add ``# noqa: CODE`` for each finding left after noqa and
    per-file-ignores, keeping the codes a comment already lists; write the file (or, on
    standard input, keep the result for stdout) when it changed. ``fixed`` counts the
    findings silenced; the findings themselves are not reported."""
    from tflint import noqa, notebook

    try:
        settings = _file_settings(path, opts.settings)
        if notebook.is_notebook(path):
            new, count, problems = notebook.add_noqa(data, path, settings)
            out = FileResult(path, fixed=count, fix_problems=problems)
            diags = [d for d in notebook.lint(new, path, settings) if d.code in noqa.NOT_SILENCED]
        else:
            new, count, diags = noqa.add_noqa_source(data, path, settings)
            out = FileResult(path, fixed=count)
        # TFL001 / TFL002 (a file that does not parse, a rule that failed) are reported,
        # never hidden by a comment tflint wrote
        out.diagnostics = diags
        if opts.stdin:
            out.fixed_source = new
            return out
        if new == data:
            return out
        _write_back(out, path, data, new, "cannot write the file")
        return out
    except Exception as e:  # a bug here must not lose the other files' results
        return FileResult(path, error=f"internal error while adding noqa: {type(e).__name__}: {e}")


def _write_back(out: FileResult, path: str, data: bytes, new: bytes, what: str) -> None:
    """Write ``new`` into the file (:mod:`tflint.writeback`); on failure the file is as it
    was, and ``out`` says so (nothing counted as fixed)."""
    from tflint import writeback

    try:
        writeback.write_back(path, data, new)
    except OSError as e:
        out.error = f"{what}: {e.strerror or e}"
        out.fixed = 0
        out.unwritten = True


def _unified_diff(path: str, old: str, new: str) -> str:
    import difflib

    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, fromfile=path, tofile=path))
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def _check_worker(item: tuple[str, CheckOptions]) -> FileResult:
    return check_file(*item)


def run_files(
    paths: Sequence[str],
    opts: CheckOptions,
    jobs: int = 1,
    progress: bool = False,
    per_file: dict[str, CheckOptions] | None = None,
) -> list[FileResult]:
    """Lint ``paths``, in parallel with ``jobs`` processes when it pays; the results
    come back in the order of ``paths`` either way, so output does not depend on ``-j``.
    ``per_file`` gives the files whose nearer config makes their options differ."""
    per_file = per_file or {}
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(paths), file=sys.stderr, unit="file", leave=False)
    try:
        if jobs > 1 and len(paths) >= PARALLEL_MIN_FILES:
            results = _run_parallel(paths, opts, jobs, bar, per_file)
            if results is not None:
                return results
        out = []
        for p in paths:
            out.append(check_file(p, per_file.get(p, opts)))
            if bar is not None:
                bar.update(1)
        return out
    finally:
        if bar is not None:
            bar.close()


def _run_parallel(
    paths: Sequence[str], opts: CheckOptions, jobs: int, bar: Any,
    per_file: dict[str, CheckOptions],
) -> list[FileResult] | None:
    """Lint in a process pool; results come back in input order.

    None when no pool can be had at all (some sandboxes forbid it): the caller then runs
    serially. A pool that breaks mid-run means a worker died (a crash in native parser
    code cannot be caught as an exception): the files not yet reported get an internal
    error rather than a serial retry, which would crash the main process the same way.
    """
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    workers = min(jobs, len(paths))
    chunksize = max(1, min(16, len(paths) // (workers * 4)))
    try:
        from tflint.interrupt import ignore_interrupts

        pool = ProcessPoolExecutor(max_workers=workers, initializer=ignore_interrupts)
    except (OSError, NotImplementedError, ImportError):
        return None
    out: list[FileResult] = []
    try:
        with pool:
            for r in pool.map(_check_worker, [(p, per_file.get(p, opts)) for p in paths],
                                  chunksize=chunksize):
                out.append(r)
                if bar is not None:
                    bar.update(1)
    except BrokenProcessPool:  # a worker died: only the file that killed it is lost
        from tflint.isolation import CRASHED, rerun_isolated

        rest = [(p, per_file.get(p, opts)) for p in paths[len(out):]]
        out.extend(rerun_isolated(rest, _check_worker, workers, lambda item: FileResult(item[0], error=CRASHED)))
    except OSError:  # the pool could not start its workers
        if out:
            raise
        return None
    return out
