"""Parent side: run each target in a child process with a time limit, gather the results.

The parent never imports TensorFlow or user code. It starts ``python -m
tflint.verify._child`` per target in its own session (so a timeout kills the child and any
processes it started), follows the events file for progress, and turns a hang, a signal,
an ``os._exit`` or a ``MemoryError`` into an ``error``/``timeout`` result for that target
while the run goes on. When a child dies in the middle of a module, it is restarted without
the functions already handled, so one crashing function does not hide the others.

For modules that build ``tf.data`` pipelines, the eager runs are repeated in a second child
with ``tf.data.experimental.enable_debug_mode()`` set before the module is imported (the
mode is process-global and only applies to datasets built after it), and those eager
observations replace the in-process ones.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from tflint.verify.compare import Tolerances, build_result
from tflint.verify.model import FunctionResult, take_debug_mode_eager

DEFAULT_TIMEOUT = 300.0
DEFAULT_MEMORY_MB = 16384
MAX_RESTARTS = 3

Progress = Callable[[str], None]


class UsageError(Exception):
    """The run cannot mean what was asked (a requested device that does not exist)."""


@dataclass
class Options:
    """What the CLI and tests can tune."""

    calls: int = 3
    timeout: float = DEFAULT_TIMEOUT
    devices: list[str] | None = None
    logical_cpus: int | None = None
    seed: int = 0
    memory_limit_mb: int | None = DEFAULT_MEMORY_MB
    tolerances: Tolerances = field(default_factory=Tolerances)
    python: str = sys.executable


@dataclass
class ChildRun:
    """What one child process left behind."""

    events: list[dict[str, Any]]
    returncode: int | None
    timed_out: bool
    stderr_tail: str
    elapsed: float


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # never write __pycache__ into the user's tree
    # the child must import this tflint even when it is run from a source checkout
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def run_child(spec: dict[str, Any], opts: Options, progress: Progress | None = None) -> ChildRun:
    """Run one child to completion or timeout; never raises for anything the child does."""
    workdir = tempfile.mkdtemp(prefix="tflint-verify-")
    try:
        events_path = os.path.join(workdir, "events.jsonl")
        spec = dict(spec, events=events_path)
        spec_path = os.path.join(workdir, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        out_path = os.path.join(workdir, "output.txt")
        start = time.monotonic()
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                [opts.python, "-m", "tflint.verify._child", spec_path],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=_child_env(), start_new_session=True,
            )
            timed_out = False
            offset = 0
            events: list[dict[str, Any]] = []
            # the time limit is per function: it restarts whenever the child reports
            # progress (discovered the functions, started or finished one)
            clock = start
            while True:
                try:
                    proc.wait(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    pass
                seen = len(events)
                offset = _read_events(events_path, offset, events, progress)
                if len(events) > seen:
                    clock = time.monotonic()
                if time.monotonic() - clock > opts.timeout:
                    timed_out = True
                    _kill_group(proc)
                    break
            _read_events(events_path, offset, events, progress)
        with open(out_path, "rb") as f:
            tail = f.read()[-3000:].decode("utf-8", "replace")
        return ChildRun(events, proc.returncode, timed_out, tail, time.monotonic() - start)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's session (it was started with ``start_new_session``: its pgid is its
    pid, so only the child and what it spawned are affected)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def _read_events(path: str, offset: int, events: list[dict[str, Any]],
                 progress: Progress | None) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return offset
    end = data.rfind("\n")
    if end < 0:
        return offset
    for line in data[: end + 1].splitlines():
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue
        events.append(ev)
        if progress is not None and ev.get("event") == "start":
            progress(ev["name"])
    return offset + len(data[: end + 1].encode("utf-8"))


def _death(run: ChildRun, opts: Options) -> tuple[str, str]:
    """(status, reason) for a child that did not finish."""
    if run.timed_out:
        return "timeout", f"did not finish within {opts.timeout:g}s (killed)"
    rc = run.returncode
    tail = [ln for ln in run.stderr_tail.strip().splitlines() if not _framework_noise(ln)]
    last = tail[-1].strip()[:300] if tail else ""
    if rc is not None and rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = str(-rc)
        return "error", f"the interpreter was killed by {name} while running user code"
    if "MemoryError" in run.stderr_tail:
        return "error", "ran out of memory (MemoryError under the child's address-space limit)"
    return "error", f"the interpreter exited with status {rc} while running user code" + (
        f": {last}" if last else "")


_NOISE = re.compile(
    r"^\s*([IWEF]\d{4} |\d{4}-\d\d-\d\d[ T]\d\d:\d\d|WARNING: All log messages|"
    r"To enable the following instructions|This TensorFlow binary|oneDNN custom operations|"
    r"WARNING:absl:|I tensorflow|W tensorflow|E tensorflow)")


def _framework_noise(line: str) -> bool:
    """TensorFlow's start-up banner and C++ log lines: not the reason a child died."""
    return not line.strip() or bool(_NOISE.match(line)) or "cpu_feature_guard" in line


def verify_target(target: str, opts: Options, progress: Progress | None = None
                  ) -> list[FunctionResult]:
    """Verify every function of one file/module target (``path``, ``mod``, ``mod:fn``)."""
    from tflint.verify.targets import split_target  # pure Python, no TensorFlow

    module_part, function = split_target(target)
    base_spec = {
        "target": module_part, "function": function, "mode": "full", "calls": opts.calls,
        "devices": opts.devices, "logical_cpus": opts.logical_cpus, "seed": opts.seed,
        "memory_limit_mb": opts.memory_limit_mb, "exclude": [],
    }
    records: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    uses_tf_data = False
    failures: list[FunctionResult] = []
    attempts = 0
    while True:
        attempts += 1
        spec = dict(base_spec, exclude=list(records))
        run = run_child(spec, opts, progress)
        current = None
        fatal = None
        finished = False
        for ev in run.events:
            kind = ev.get("event")
            if kind == "discovered":
                for name in ev["functions"]:
                    if name not in order:
                        order.append(name)
                uses_tf_data = uses_tf_data or bool(ev.get("uses_tf_data"))
            elif kind == "start":
                current = ev["name"]
            elif kind == "result":
                records[ev["record"]["name"]] = ev["record"]
                current = None
            elif kind == "fatal":
                fatal = ev
            elif kind == "done":
                finished = True
        if finished:
            break
        if fatal is not None and fatal.get("stage") == "devices":
            raise UsageError(str(fatal.get("error")))
        if fatal is not None:
            stage = fatal.get("stage")
            what = "TensorFlow could not be imported (install tflint[verify])" \
                if stage == "tensorflow" else "importing the target failed"
            failures.append(_target_result(target, module_part, "error",
                                           f"{what}: {fatal.get('error')}"))
            break
        status, reason = _death(run, opts)
        if current is None:  # died before discovery, or between functions
            if not order:
                failures.append(_target_result(target, module_part, status,
                                               f"while importing: {reason}"))
                break
            remaining = [n for n in order if n not in records]
            if not remaining:
                break
            current = remaining[0]
        records[current] = {"name": current, "status": status, "reason": reason,
                            "file": module_part}
        if all(n in records for n in order):
            break
        if attempts > len(order) + MAX_RESTARTS:  # no progress: never drop a function
            for n in order:
                records.setdefault(n, {"name": n, "status": "error", "file": module_part,
                                       "reason": f"not verified: the child process kept "
                                       f"dying ({reason})"})
            break
    if uses_tf_data and records:
        _replace_eager_with_debug_mode(base_spec, opts, records, progress)
    results = failures + [build_result(dict(records[n], target=target), opts.tolerances)
                          for n in order if n in records]
    return results


def _replace_eager_with_debug_mode(base_spec: dict[str, Any], opts: Options,
                                   records: dict[str, dict[str, Any]],
                                   progress: Progress | None) -> None:
    todo = [n for n, r in records.items() if "examples" in r]
    if not todo:
        return
    spec = dict(base_spec, mode="eager-data",
                exclude=[n for n in records if n not in todo])
    run = run_child(spec, opts, progress)
    got = {ev["record"]["name"]: ev["record"] for ev in run.events
           if ev.get("event") == "result"}
    for name in todo:
        rec = records[name]
        other = got.get(name)
        if other is None or "examples" not in other:
            rec.setdefault("hints", []).append(
                "the tf.data debug-mode eager run failed; eager mode compared without it")
            continue
        take_debug_mode_eager(rec, other)


def _target_result(target: str, module_part: str, status: str, reason: str) -> FunctionResult:
    file = module_part if module_part.endswith(".py") else ""
    return FunctionResult(name=target, file=file, line=0, status=status, target=target,
                          reason=reason)


def _failed_tests(junit: str) -> list[str]:
    """Names of the failed or erroring tests in a JUnit XML file (empty when absent)."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return []
    out = []
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            out.append(f"{case.get('classname', '')}::{case.get('name', '')}")
    return out


def pytest_target(path: str, opts: Options, extra_args: list[str] | None = None
                  ) -> list[FunctionResult]:
    """``tflint verify tests/``: run the user's test suite under ``--tflint-verify``."""
    from importlib import metadata

    workdir = tempfile.mkdtemp(prefix="tflint-verify-")
    try:
        report = os.path.join(workdir, "report.json")
        junit = os.path.join(workdir, "tests.xml")
        cmd = [opts.python, "-m", "pytest", path, "--tflint-verify",
               "--tflint-verify-report-json", report, "--tflint-verify-calls", str(opts.calls),
               "--tflint-verify-rtol-scale", str(opts.tolerances.scale),
               "--junit-xml", junit, "-p", "no:cacheprovider", "-q"]
        names = {ep.name for ep in metadata.entry_points(group="pytest11")}
        if "tflint" not in names:
            cmd[3:3] = ["-p", "tflint.pytest_plugin"]
        if opts.devices:
            cmd += ["--tflint-verify-devices", ",".join(opts.devices)]
        if opts.logical_cpus:
            cmd += ["--tflint-verify-logical-cpus", str(opts.logical_cpus)]
        cmd += extra_args or []
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, env=_child_env(),
                                  timeout=opts.timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            return [_target_result(path, path, "timeout",
                                   f"the test suite did not finish within {opts.timeout:g}s")]
        output = proc.stdout.decode("utf-8", "replace")
        if proc.returncode == 4 and "no device" in output:
            line = next(ln for ln in output.splitlines() if "no device" in ln)
            raise UsageError(line.split("tflint verify: ", 1)[-1].strip())
        results: list[FunctionResult] = []
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                results = [FunctionResult.from_dict(d) for d in json.load(f)]
        failed = _failed_tests(junit)
        if failed:  # a divergence never hides a failing test
            results.append(_target_result(
                path, path, "error", f"{len(failed)} test(s) failed: " + ", ".join(failed[:5])
                + (" ..." if len(failed) > 5 else "")))
        elif proc.returncode not in (0, 1, 5) or (proc.returncode == 1 and not any(
                r.status in ("divergent", "error", "timeout") for r in results)):
            tail = [ln for ln in output.strip().splitlines() if not _framework_noise(ln)][-3:]
            results.append(_target_result(
                path, path, "error",
                f"pytest exited with status {proc.returncode}: " + " | ".join(tail)))
        return results
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
