"""``tflint verify TARGET ...``: prove eager/graph divergences by running the code.

Dispatched from ``tflint.cli`` as ``tflint.verify.cli.main(argv)``. Exit codes: 0 nothing
wrong (skipped and nondeterministic functions do not fail the run), 1 a function diverged or
could not be verified (error, timeout), 2 usage or internal error.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tflint.verify import explain, report, runner
from tflint.verify.model import FunctionResult, exit_code

_MODULE_RE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tflint verify",
        description="Run tf.functions eagerly and as graphs, on every device, and report "
        "where they differ. A target is a Python file, a module name, either one followed "
        "by :FUNCTION, or a tests folder (runs pytest --tflint-verify). Needs TensorFlow: "
        "pip install 'tflint[verify]'.",
    )
    p.add_argument("targets", nargs="+", metavar="TARGET")
    p.add_argument("--timeout", type=float, default=runner.DEFAULT_TIMEOUT,
                   help="seconds each function (and the import of each target) may take before "
                   "its child process is killed "
                   "(default: %(default)s)")
    p.add_argument("--calls", type=int, default=3,
                   help="calls per mode and example, at least 3 (default: %(default)s)")
    p.add_argument("--devices", default=None,
                   help="comma-separated devices to run on, e.g. CPU:0,GPU:0 "
                   "(default: every logical device)")
    p.add_argument("--logical-cpus", type=int, default=None,
                   help="split the CPU into N logical devices (tests the multi-device path "
                   "on a machine with no GPU)")
    p.add_argument("--memory-limit", type=int, default=runner.DEFAULT_MEMORY_MB, metavar="MB",
                   help="address-space limit of each child process, 0 for none "
                   "(default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rtol-scale", type=float, default=1.0,
                   help="multiply every float tolerance by this factor")
    p.add_argument("-j", "--jobs", type=int, default=1, help="targets verified in parallel")
    p.add_argument("--report-json", metavar="PATH")
    p.add_argument("--junit-xml", metavar="PATH")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only problems and the totals; no progress bar")
    return p


def classify(target: str) -> str:
    """'pytest' for test folders and test files, 'module' for everything else that exists or
    looks like a module name; raises ValueError for targets that can be neither."""
    from tflint.verify.targets import split_target

    head, _fn = split_target(target)
    if os.path.isdir(head):
        return "pytest" if _has_tests(head) else "folder"
    if os.path.isfile(head):
        base = os.path.basename(head)
        if base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py":
            return "pytest"
        if not head.endswith(".py"):
            raise ValueError(f"{target}: not a Python file")
        return "module"
    if head.endswith(".py") or os.sep in head:
        raise ValueError(f"{target}: no such file or directory")
    if not _MODULE_RE.match(head):
        raise ValueError(f"{target}: not a file, a folder or a module name")
    return "module"


def tensorflow_installed() -> bool:
    """Can the child processes (this interpreter) import TensorFlow? Looks the package
    up without importing it."""
    import importlib.util

    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


def _has_tests(folder: str) -> bool:
    for _root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        if any(f.startswith("test_") and f.endswith(".py") or f.endswith("_test.py")
               or f == "conftest.py" for f in files):
            return True
    return False


def _folder_files(folder: str) -> list[str]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        out += [os.path.join(root, f) for f in sorted(files)
                if f.endswith(".py") and f != "__init__.py"]
    return out


def main(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if args.calls < 3:
        parser.print_usage(sys.stderr)
        print("tflint verify: --calls must be at least 3: most divergences only show from "
              "the second call on", file=sys.stderr)
        return 2
    if not tensorflow_installed():
        print(f"tflint verify: TensorFlow is not installed for {sys.executable}; the verifier runs "
              "your functions under it: pip install 'tflint[verify]' (or tensorflow / "
              "tensorflow-cpu)", file=sys.stderr)
        return 2
    jobs: list[tuple[str, str]] = []
    try:
        for t in args.targets:
            kind = classify(t)
            if kind == "folder":
                jobs += [(f, "module") for f in _folder_files(t)]
            else:
                jobs.append((t, kind))
    except ValueError as e:
        print(f"tflint verify: {e}", file=sys.stderr)
        return 2
    opts = runner.Options(
        calls=args.calls, timeout=args.timeout,
        devices=[d.strip() for d in args.devices.split(",")] if args.devices else None,
        logical_cpus=args.logical_cpus, seed=args.seed,
        memory_limit_mb=args.memory_limit or None,
    )
    opts.tolerances.scale = args.rtol_scale
    try:
        results = _run(jobs, opts, args)
    except runner.UsageError as e:
        print(f"tflint verify: {e}", file=sys.stderr)
        return 2
    except Exception:
        traceback.print_exc()
        print("tflint verify: internal error", file=sys.stderr)
        return 2
    results = [explain.annotate(r) for r in results]
    print(report.format_summary(results, verbose=not args.quiet))
    try:
        if args.report_json:
            report.write_json(results, args.report_json)
        if args.junit_xml:
            report.write_junit(results, args.junit_xml)
    except OSError as e:
        print(f"tflint verify: cannot write report: {e}", file=sys.stderr)
        return 2
    return exit_code(results)


def _run(jobs: list[tuple[str, str]], opts: runner.Options, args: Any) -> list[FunctionResult]:
    bar = None
    if not args.quiet and sys.stderr.isatty():
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(jobs), unit="target", file=sys.stderr, leave=False)
        except ImportError:
            bar = None

    def one(job: tuple[str, str]) -> list[FunctionResult]:
        target, kind = job

        def progress(name: str) -> None:
            if bar is not None:
                bar.set_description_str(f"{os.path.basename(target)}:{name}"[:50])

        if bar is not None:
            bar.set_description_str(os.path.basename(target)[:50])
        try:
            if kind == "pytest":
                return runner.pytest_target(target, opts)
            return runner.verify_target(target, opts, progress)
        finally:
            if bar is not None:
                bar.update(1)

    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            chunks = list(pool.map(one, jobs))
    finally:
        if bar is not None:
            bar.close()
    return [r for chunk in chunks for r in chunk]
