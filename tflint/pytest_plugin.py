"""pytest plugin: ``pytest --tflint-verify`` (registered as the ``tflint`` pytest11 entry point).

It is loaded into every pytest session of every environment where tflint is installed, so
it is inert and TensorFlow-free unless ``--tflint-verify`` is given. Then it records every
distinct call the tests make to user tf.functions, replays each eagerly and as a graph at
the end of the session (see ``tflint.verify.recorder``), prints the divergences in the
terminal summary and makes the session fail (exit status 1) when any function diverges.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

import pytest

_SESSION_KEY = "tflint-verify-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the options; nothing else happens until ``--tflint-verify`` is given."""
    group = parser.getgroup("tflint", "tflint: eager vs graph verification of tf.functions")
    group.addoption(
        "--tflint-verify",
        action="store_true",
        default=False,
        help="record the calls the tests make to tf.functions and replay each eagerly and "
        "as a graph; fail the session when they diverge",
    )
    group.addoption("--tflint-verify-calls", type=int, default=3,
                    help="calls per mode for each recorded input (default: 3)")
    group.addoption("--tflint-verify-max-inputs", type=int, default=4,
                    help="distinct inputs replayed per function (default: 4)")
    group.addoption("--tflint-verify-devices", default=None,
                    help="comma-separated devices (default: every logical device)")
    group.addoption("--tflint-verify-logical-cpus", type=int, default=None,
                    help="split the CPU into N logical devices before TensorFlow starts")
    group.addoption("--tflint-verify-rtol-scale", type=float, default=1.0,
                    help="multiply every float tolerance by this factor")
    group.addoption("--tflint-verify-eager-data", default=None, metavar="PATH",
                    help=argparse.SUPPRESS)  # internal: the tf.data debug-mode pass
    group.addoption("--tflint-verify-report-json", default=None, metavar="PATH")
    group.addoption("--tflint-verify-junit-xml", default=None, metavar="PATH")


class _VerifySession:
    """Lives only in sessions run with ``--tflint-verify``."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.debug_out = config.getoption("tflint_verify_eager_data")
        if self.debug_out:
            # the tf.data debug-mode pass: process-global, before any dataset is built
            import tensorflow as tf

            tf.data.experimental.enable_debug_mode()
        from tflint.verify import recorder  # imports TensorFlow

        n = config.getoption("tflint_verify_logical_cpus")
        if n and n > 1:
            recorder.configure_logical_cpus(n)
        self.recorder = recorder.Recorder(config.getoption("tflint_verify_max_inputs"))
        self.recorder.install()
        self.results: list[Any] = []
        self.failed_tests: list[str] = []
        self.usage_error = ""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        self.recorder.current_test = item.nodeid
        yield
        self.recorder.current_test = ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.nodeid not in self.failed_tests:
            self.failed_tests.append(report.nodeid)

    def _devices(self) -> list[str] | None:
        """The requested devices, checked: one that does not exist is a usage error."""
        import tensorflow as tf

        from tflint.verify._child import select_devices

        wanted = self.config.getoption("tflint_verify_devices")
        available = [d.name for d in tf.config.list_logical_devices()]
        return select_devices(available, [d.strip() for d in wanted.split(",")]
                              if wanted else None)

    def _debug_pass(self) -> list[dict[str, Any]] | None:
        """Run the same tests again in a process with tf.data's debug mode; its eager
        observations replace the in-process ones for functions that use tf.data."""
        params = self.config.invocation_params
        with tempfile.TemporaryDirectory(prefix="tflint-verify-") as tmp:
            out = os.path.join(tmp, "eager-data.json")
            args = _without_reports([str(a) for a in params.args])
            cmd = [sys.executable, "-m", "pytest", *args, "--tflint-verify-eager-data", out,
                   "-q"]
            if "--tflint-verify" not in args:
                cmd.append("--tflint-verify")
            try:
                subprocess.run(cmd, cwd=str(params.dir), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               check=False)
                with open(out, encoding="utf-8") as f:
                    data: list[dict[str, Any]] = json.load(f)
                return data
            except (OSError, ValueError):
                return []

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from tflint.verify import explain, recorder, replay, report
        from tflint.verify.compare import Tolerances, build_result

        try:
            devices = self._devices()
        except ValueError as e:
            self.usage_error = str(e)
            session.exitstatus = 4  # pytest's usage-error status
            return
        calls = max(3, self.config.getoption("tflint_verify_calls"))
        if self.debug_out:  # the debug-mode pass: eager observations only, no verdict
            eager = tuple(m for m in replay.MODES if m.startswith("eager"))
            records = self.recorder.observe_all(calls, devices, modes=eager,
                                                only_tf_data=True)
            with open(self.debug_out, "w", encoding="utf-8") as f:
                json.dump(records, f)
            return
        tol = Tolerances(scale=self.config.getoption("tflint_verify_rtol_scale"))
        records = self.recorder.observe_all(calls, devices)
        if any(r.get("uses_tf_data") for r in records):
            recorder.merge_debug_eager(records, self._debug_pass() or [])
        self.results = [explain.annotate(build_result(r, tol)) for r in records]
        if self.config.getoption("tflint_verify_report_json"):
            report.write_json(self.results, self.config.getoption("tflint_verify_report_json"))
        if self.config.getoption("tflint_verify_junit_xml"):
            report.write_junit(self.results, self.config.getoption("tflint_verify_junit_xml"))
        bad = any(r.status in ("divergent", "error", "timeout") for r in self.results)
        if bad and session.exitstatus == 0:
            session.exitstatus = 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from tflint.verify import report

        if self.debug_out:
            return
        terminalreporter.section("tflint verify: eager vs graph")
        if self.usage_error:
            terminalreporter.write_line(f"tflint verify: {self.usage_error}")
            return
        if not self.results:
            terminalreporter.write_line("no calls to tf.functions were recorded")
            return
        verbose = self.config.getoption("verbose") > 0
        for line in report.format_summary(self.results, verbose=verbose).splitlines():
            terminalreporter.write_line(line)
        if self.failed_tests:  # a divergence never hides a failing test
            terminalreporter.write_line(
                f"and {len(self.failed_tests)} test(s) failed on their own: "
                + ", ".join(self.failed_tests[:5]))


_REPORT_OPTIONS = ("--tflint-verify-report-json", "--tflint-verify-junit-xml", "--junit-xml",
                   "--junitxml")


def _without_reports(args: list[str]) -> list[str]:
    """The session's arguments minus the report options (and their values): the debug-mode
    pass must not overwrite the reports of the real run."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _REPORT_OPTIONS:
            skip = True
            continue
        if a.startswith(tuple(o + "=" for o in _REPORT_OPTIONS)):
            continue
        out.append(a)
    return out


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """``@pytest.mark.tflint_max_traces(...)``: the test fails when a tf.function traces more
    than its budget (see ``tflint.testing.max_traces``). TensorFlow is imported only for
    tests that carry the marker."""
    marker = item.get_closest_marker("tflint_max_traces")
    if marker is None:
        yield
        return
    from tflint.testing import TraceBudgetExceeded, max_traces

    budget = max_traces(*marker.args, **marker.kwargs)
    budget.__enter__()
    try:
        outcome = yield
    finally:
        budget.stop()
    if outcome.excinfo is None:
        message = budget.report()
        if message:
            error = TraceBudgetExceeded(message)
            if hasattr(outcome, "force_exception"):
                outcome.force_exception(error)
            else:  # pluggy < 1.1
                raise error


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "tflint_max_traces(*functions, limit=None, **by_name): fail the test when "
        "a tf.function traces more often than allowed (tflint.testing.max_traces)")
    if config.getoption("tflint_verify", default=False):
        config.pluginmanager.register(_VerifySession(config), _SESSION_KEY)


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.pluginmanager.get_plugin(_SESSION_KEY)
    if session is not None:
        session.recorder.uninstall()
        config.pluginmanager.unregister(session)
