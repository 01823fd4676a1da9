"""The ``tflint`` command: ``check``, ``rules`` and ``verify``.

``check`` is a thin front-end over :func:`tflint.engine.lint_source`: it finds files,
reads them, applies ``# noqa`` and per-file-ignores (the engine does neither, so that
the flake8 plugin can leave both to flake8), runs files in parallel when asked, and
prints. Exit status:

* 0 - no findings (or ``--exit-zero``);
* 1 - findings;
* 2 - a usage or config error (bad flag, unknown code or config key, a path that does
  not exist), a file that exists but could not be read, or an internal error. Problems
  with paths and files are reported as ``path: error: ...`` on stderr as they are met
  and the run goes on; the exit status says at the end that the result is incomplete,
  which ``--exit-zero`` does not hide. Problems *inside* a file (syntax errors,
  Python 2, undecodable bytes, NUL bytes, deep nesting) are TFL001 findings instead.

No path given, or no Python file found: exit 0 and print nothing (pre-commit may call
the hook with no files).

Heavy imports (libcst through the engine, tqdm, json) happen only when needed, so that
``tflint --help`` and a one-file run start fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from tflint.config import ConfigError, Settings
from tflint.diagnostics import Diagnostic

#: below this many files a process pool costs more than it saves
PARALLEL_MIN_FILES = 8
#: show a progress bar (stderr TTY only) from this many files on
PROGRESS_MIN_FILES = 50


@dataclass
class FileResult:
    """What linting one file gives; picklable, so workers can send it back."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: set when the file could not be read or linting it failed outside the engine
    error: str | None = None
    #: physical lines, only for ``--show-source``
    lines: list[str] | None = None
    #: ``--fix`` / ``--diff``: fixes applied (or that would be), the unified diff
    #: (``--diff`` only) and fixes dropped because their result did not parse
    fixed: int = 0
    diff: str | None = None
    fix_problems: list[str] = field(default_factory=list)
    #: ``--fix`` could not write the fixed text (the file is as it was)
    unwritten: bool = False


@dataclass(frozen=True)
class CheckOptions:
    """The part of a run each worker needs (picklable)."""

    settings: Settings
    disable_noqa: bool = False
    show_source: bool = False
    #: "fix" (write fixed files), "diff" (compute the diff, write nothing) or None
    fix_mode: str | None = None
    unsafe_fixes: bool = False


def _decode_for_noqa(data: bytes) -> str:
    """The text noqa comments are read from: as the engine decodes it, else latin-1
    (flake8 falls back to latin-1 when a file does not decode)."""
    from tflint.engine import decode

    try:
        return decode(data)
    except (UnicodeDecodeError, LookupError, SyntaxError):
        text = data.decode("latin-1")
        return text[1:] if text.startswith("\ufeff") else text


def check_file(path: str, opts: CheckOptions) -> FileResult:
    """Read and lint one file, then apply noqa and per-file-ignores. Never raises."""
    from tflint import files, noqa
    from tflint.engine import lint_source
    from tflint.registry import is_enabled

    try:
        data = files.read_regular_file(path, opts.settings.max_file_size)
    except files.NotRegularFile as e:
        return FileResult(path, error=e.strerror)
    except OSError as e:
        return FileResult(path, error=f"cannot read file: {e.strerror or e}")
    if opts.fix_mode is not None:
        return fix_file(path, data, opts)
    try:
        settings = opts.settings
        diags = lint_source(data, path, settings)
        text: str | None = None
        if diags and not opts.disable_noqa:
            text = _decode_for_noqa(data)
            diags = noqa.apply_noqa(diags, text)
        if diags and settings.per_file_ignores:
            extra = files.per_file_ignored_codes(path, settings.per_file_ignores)
            if extra:
                ignore = list(settings.ignore) + extra
                diags = [
                    d
                    for d in diags
                    if is_enabled(d.code, settings.select, ignore, settings.extend_select)
                ]
        lines = None
        if opts.show_source and diags:
            lines = noqa.source_lines(text if text is not None else _decode_for_noqa(data))
        return FileResult(path, diags, lines=lines)
    except Exception as e:  # a bug here must not lose the other files' results
        return FileResult(path, error=f"internal error: {type(e).__name__}: {e}")


def _file_settings(path: str, settings: Settings) -> Settings:
    """``settings`` with the file's per-file-ignores added to ``ignore``."""
    import dataclasses

    from tflint import files

    if not settings.per_file_ignores:
        return settings
    extra = files.per_file_ignored_codes(path, settings.per_file_ignores)
    return dataclasses.replace(settings, ignore=list(settings.ignore) + extra) if extra else settings


def fix_file(path: str, data: bytes, opts: CheckOptions) -> FileResult:
    """``--fix``: fix the file and write it back into the same file if it changed
    (:mod:`tflint.writeback`); ``--diff``: only compute the unified diff. The result carries the findings left after fixing
    (noqa and per-file-ignores applied: silenced findings are not fixed either)."""
    import dataclasses

    from tflint import noqa, writeback
    from tflint.engine import fix_source

    try:
        result = fix_source(data, path, _file_settings(path, opts.settings), unsafe=opts.unsafe_fixes,
                            noqa=not opts.disable_noqa)
        new = result.source
        assert isinstance(new, bytes)
        out = FileResult(path, list(result.diagnostics), fixed=result.applied,
                         fix_problems=list(result.problems))
        if new != data:
            if opts.fix_mode == "diff":
                out.diff = _unified_diff(path, _decode_for_noqa(data), _decode_for_noqa(new))
            else:
                try:
                    writeback.write_back(path, data, new)
                except OSError as e:  # the file is unchanged: report what it holds now
                    now = check_file(path, dataclasses.replace(opts, fix_mode=None))
                    return dataclasses.replace(now, error=f"cannot write the fixed file: {e.strerror or e}",
                                               unwritten=True)
        if opts.show_source and out.diagnostics:
            out.lines = noqa.source_lines(_decode_for_noqa(new))
        return out
    except Exception as e:  # a bug here must not lose the other files' results
        return FileResult(path, error=f"internal error while fixing: {type(e).__name__}: {e}")


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
) -> list[FileResult]:
    """Lint ``paths``, in parallel with ``jobs`` processes when it pays; the results
    come back in the order of ``paths`` either way, so output does not depend on ``-j``."""
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(paths), file=sys.stderr, unit="file", leave=False)
    try:
        if jobs > 1 and len(paths) >= PARALLEL_MIN_FILES:
            results = _run_parallel(paths, opts, jobs, bar)
            if results is not None:
                return results
        out = []
        for p in paths:
            out.append(check_file(p, opts))
            if bar is not None:
                bar.update(1)
        return out
    finally:
        if bar is not None:
            bar.close()


def _run_parallel(
    paths: Sequence[str], opts: CheckOptions, jobs: int, bar: Any
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
            for r in pool.map(_check_worker, [(p, opts) for p in paths], chunksize=chunksize):
                out.append(r)
                if bar is not None:
                    bar.update(1)
    except BrokenProcessPool:  # a worker died: only the file that killed it is lost
        from tflint.isolation import CRASHED, rerun_isolated

        rest = [(p, opts) for p in paths[len(out):]]
        out.extend(rerun_isolated(rest, _check_worker, workers, lambda item: FileResult(item[0], error=CRASHED)))
    except OSError:  # the pool could not start its workers
        if out:
            raise
        return None
    return out


# ------------------------------------------------------------------ argument parsing


def _jobs(value: str) -> int:
    if value == "auto":
        return 0
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (auto) or more")
    return n


def build_parser() -> argparse.ArgumentParser:
    from tflint import __version__
    from tflint.output import FORMATS

    parser = argparse.ArgumentParser(
        prog="tflint",
        description="Find where TensorFlow code changes meaning when it runs as a graph.",
    )
    parser.add_argument("--version", action="version", version=f"tflint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="lint files and folders (never imports or runs them)",
        description="Lint Python files; folders are searched for *.py and *.pyi.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or folders; no path means nothing to check (exit 0)",
    )
    g = check.add_argument_group("rule selection")
    g.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="codes or prefixes to enable, replacing the default set (e.g. TFL1,TFL301)",
    )
    g.add_argument(
        "--ignore", action="append", metavar="CODES", help="codes or prefixes to disable"
    )
    g.add_argument(
        "--extend-select",
        action="append",
        metavar="CODES",
        help="codes or prefixes to enable on top of the selection (e.g. off-by-default rules)",
    )
    g.add_argument(
        "--per-file-ignores",
        action="append",
        metavar="GLOB:CODES",
        help="flake8 syntax: 'tests/*:TFL101,TFL102 other.py:TFL1'",
    )
    g.add_argument("--disable-noqa", action="store_true", help="do not honour # noqa comments")
    g.add_argument(
        "--tf-function-wrappers",
        action="append",
        metavar="NAMES",
        help="decorators that wrap a function in tf.function (comma separated)",
    )
    g = check.add_argument_group("fixes")
    g.add_argument(
        "--fix",
        action="store_true",
        help="apply safe fixes and write them into the files (only when changed, never over "
        "an edit saved meanwhile); "
        "the findings left are reported",
    )
    g.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, apply unsafe fixes too (they may change behaviour); "
        "marks fixable findings with [*] in text output",
    )
    g.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff and write nothing; exit 1 if there "
        "would be changes",
    )
    g = check.add_argument_group("files")
    g.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERNS",
        help="fnmatch patterns replacing the default excludes "
        "(.git, .venv, venv, __pycache__, build, dist, ...)",
    )
    g.add_argument(
        "--extend-exclude",
        action="append",
        metavar="PATTERNS",
        help="fnmatch patterns to exclude on top of the defaults",
    )
    g.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="apply excludes to files named on the command line too (for pre-commit)",
    )
    cfg = g.add_mutually_exclusive_group()
    cfg.add_argument(
        "--config",
        metavar="PATH",
        help="read this pyproject.toml or setup.cfg instead of searching upwards",
    )
    cfg.add_argument("--isolated", action="store_true", help="ignore every config file")
    g.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=0,
        metavar="N",
        help="worker processes; 0 or 'auto' = one per CPU (default), 1 = serial",
    )
    g = check.add_argument_group("output")
    g.add_argument("--output-format", choices=FORMATS, default="text")
    g.add_argument("--output-file", metavar="PATH", help="write the report here instead of stdout")
    g.add_argument("--statistics", action="store_true", help="count findings per code")
    g.add_argument(
        "--show-source", action="store_true", help="show the source line of each finding"
    )
    g.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar and no summary line; findings and errors still print",
    )
    g.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even with findings (errors still exit 2)"
    )

    rules = sub.add_parser("rules", help="list the rules, or show one rule's documentation")
    rules.add_argument("codes", nargs="*", metavar="CODE")
    rules.add_argument("--output-format", choices=("text", "json"), default="text")

    sub.add_parser(
        "verify",
        help="run code under TensorFlow and compare eager and graph results "
        "(needs the 'verify' extra)",
        add_help=False,
    )
    return parser


# ------------------------------------------------------------------ commands


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _cli_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "select": args.select,
        "ignore": args.ignore,
        "extend-select": args.extend_select,
        "per-file-ignores": args.per_file_ignores,
        "exclude": args.exclude,
        "extend-exclude": args.extend_exclude,
        "force-exclude": args.force_exclude,
        "tf-function-wrappers": args.tf_function_wrappers,
    }


def cmd_check(args: argparse.Namespace) -> int:
    from tflint import files
    from tflint.config import resolve_settings

    try:
        settings, _cfg = resolve_settings(
            _cli_settings(args), config_path=args.config, isolated=args.isolated
        )
    except ConfigError as e:
        _err(f"tflint: error: {e}")
        return 2

    found = files.discover(args.paths, settings)
    status_error = False
    for path, message in found.missing + found.unreadable:
        _err(f"{path}: error: {message}")
        status_error = True
    read_errors = list(found.unreadable)

    diagnostics: list[Diagnostic] = []
    sources: dict[str, list[str]] = {}
    diffs: list[str] = []
    fixed = fixed_files = unwritten = 0
    if found.files:
        jobs = args.jobs or (os.cpu_count() or 1)
        progress = not args.quiet and len(found.files) >= PROGRESS_MIN_FILES and _isatty(sys.stderr)
        fix_mode = "diff" if args.diff else ("fix" if args.fix else None)
        opts = CheckOptions(settings, disable_noqa=args.disable_noqa, show_source=args.show_source,
                            fix_mode=fix_mode, unsafe_fixes=args.unsafe_fixes)
        for r in run_files(found.files, opts, jobs=jobs, progress=progress):
            if r.error is not None:
                _err(f"{r.path}: error: {r.error}")
                read_errors.append((r.path, r.error))
                status_error = True
            for problem in r.fix_problems:
                _err(f"warning: {problem}")
            if r.diff:
                diffs.append(r.diff)
            fixed += r.fixed
            fixed_files += 1 if r.fixed else 0
            unwritten += r.unwritten
            diagnostics.extend(r.diagnostics)
            if r.lines is not None:
                sources[r.path] = r.lines
    elif not found.missing and not found.unreadable:
        return 0  # nothing to check: say nothing

    if args.diff:
        return _report_diff(args, diffs, fixed, status_error)

    from tflint.engine import fixable
    from tflint.output import format_statistics, render

    show_fixable = args.fix or args.unsafe_fixes
    report = render(
        args.output_format,
        diagnostics,
        errors=read_errors,
        sources=sources if args.show_source else None,
        fixable=(lambda d: fixable(d, args.unsafe_fixes)) if show_fixable else None,
    )
    stats = format_statistics(diagnostics) if args.statistics else ""
    try:
        _emit(args, report, stats)
    except OSError as e:
        _err(f"tflint: error: cannot write {args.output_file}: {e.strerror or e}")
        return 2
    if args.fix and not args.quiet and args.output_format == "text":
        failed = f"; {_n(unwritten, 'file')} could not be written" if unwritten else ""
        _err(f"Fixed {_n(fixed, 'finding')} in {_n(fixed_files, 'file')}{failed}; "
             f"{_n(len(diagnostics), 'finding')} remaining.")
    if diagnostics and not args.quiet and args.output_format == "text":
        n_files = len({d.path for d in diagnostics})
        _err(
            f"Found {len(diagnostics)} finding{'s' if len(diagnostics) != 1 else ''} "
            f"in {n_files} file{'s' if n_files != 1 else ''} ({len(found.files)} checked)."
        )
        safe = sum(1 for d in diagnostics if fixable(d, False))
        unsafe = sum(1 for d in diagnostics if fixable(d, True)) - safe
        hint = []
        if args.unsafe_fixes and safe + unsafe:
            hint.append(f"[*] {safe + unsafe} fixable with `tflint check --fix --unsafe-fixes`.")
        elif safe:
            hint.append(f"[*] {safe} fixable with `tflint check --fix`.")
        if unsafe and not args.unsafe_fixes:
            hint.append(f"({unsafe} more with `--unsafe-fixes`: they may change behaviour.)")
        if hint:
            _err(" ".join(hint))
    if status_error:
        return 2
    if diagnostics and not args.exit_zero:
        return 1
    return 0


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _report_diff(args: argparse.Namespace, diffs: list[str], fixed: int, status_error: bool) -> int:
    """``--diff``: the diffs on stdout (or ``--output-file``), a count on stderr; exit 1
    when a file would change, 2 on errors, else 0."""
    text = "".join(diffs)
    try:
        _emit(args, text, "") if args.output_file else sys.stdout.write(text)
    except OSError as e:
        _err(f"tflint: error: cannot write {args.output_file}: {e.strerror or e}")
        return 2
    if not args.quiet and diffs:
        _err(f"Would fix {_n(fixed, 'finding')} in {_n(len(diffs), 'file')}.")
    if status_error:
        return 2
    return 1 if diffs else 0


def _emit(args: argparse.Namespace, report: str, stats: str) -> None:
    """Write the report; statistics follow a text report, and go to stdout (or stderr
    when stdout already carries a machine-readable report) otherwise."""
    if args.output_format == "text":
        report += stats
        stats = ""
    if args.output_file:
        with open(args.output_file, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(report)
        if stats:
            sys.stdout.write(stats)
    else:
        sys.stdout.write(report)
        if stats:
            sys.stderr.write(stats)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def cmd_rules(args: argparse.Namespace) -> int:
    import inspect

    from tflint.registry import ENGINE_CODES, all_rules
    from tflint.output import rule_url

    rows: list[dict[str, Any]] = []
    docs: dict[str, str] = {}
    for code, (name, sev) in ENGINE_CODES.items():
        from tflint.output import _engine_summary

        rows.append(
            {"code": code, "name": name, "severity": sev, "default": True, "url": rule_url(code)}
        )
        docs[code] = _engine_summary(code)
    for rule in all_rules():
        rows.append(
            {
                "code": rule.CODE,
                "name": rule.NAME,
                "severity": rule.SEVERITY.value,
                "default": rule.DEFAULT_ON,
                "url": rule.url(),
            }
        )
        docs[rule.CODE] = inspect.cleandoc(rule.__doc__ or rule.MESSAGE or "")
    rows.sort(key=lambda r: r["code"])

    wanted = [c.upper() for c in args.codes]
    # an exact code prints its documentation; a prefix (TFL1, TFL50) lists its rules
    prefixes = [c for c in wanted if c not in docs]
    unknown = [p for p in prefixes if not any(code.startswith(p) for code in docs)]
    if unknown:
        _err(f"tflint: error: unknown rule code or prefix {unknown[0]!r} (see `tflint rules`)")
        return 2
    if wanted:
        rows = [r for r in rows if r["code"] in wanted or r["code"].startswith(tuple(prefixes))]
    if args.output_format == "json":
        import json

        for r in rows:
            r["doc"] = docs[r["code"]]
        print(json.dumps(rows, indent=2))
        return 0
    if wanted and not prefixes:
        for i, r in enumerate(rows):
            if i:
                print()
            state = "on" if r["default"] else "off"
            print(f"{r['code']} {r['name']} ({r['severity']}, default {state})")
            print(r["url"])
            print()
            print(docs[r["code"]])
        return 0
    width = max(len(r["name"]) for r in rows)
    print(f"{'code':<7} {'name':<{width}} {'severity':<8} default")
    for r in rows:
        state = "on" if r["default"] else "off"
        print(f"{r['code']:<7} {r['name']:<{width}} {r['severity']:<8} {state}")
    return 0


def cmd_verify(argv: list[str]) -> int:
    """Hand over to the dynamic verifier, imported only now: it may import TensorFlow,
    which the static check must never pay for."""
    import importlib

    try:
        mod = importlib.import_module("tflint.verify.cli")
    except ModuleNotFoundError as e:
        if e.name in ("tflint.verify.cli", "tflint.verify"):
            _err(
                "tflint: error: `tflint verify` is not available in this installation "
                "(module tflint.verify.cli is missing)"
            )
        else:
            _err(
                f"tflint: error: `tflint verify` needs the module {e.name!r}; "
                "install it with: pip install 'tflint[verify]'"
            )
        return 2
    main_fn: Callable[[list[str]], int] | None = getattr(mod, "main", None)
    if main_fn is None:
        _err("tflint: error: tflint.verify.cli has no main(argv) function")
        return 2
    return int(main_fn(argv) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tflint`` console script and ``python -m tflint``."""
    from_console = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "verify":
        return cmd_verify(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help/--version exit 0, usage errors exit 2
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    if args.command == "check":
        from tflint.interrupt import exit_on_interrupt, names_as_given

        names_as_given(sys.stdout, sys.stderr)
        return exit_on_interrupt(cmd_check, args, leave_now=from_console)
    if args.command == "rules":
        return cmd_rules(args)
    parser.print_help(sys.stderr)
    return 2
