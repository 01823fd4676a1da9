"""pytest plugin: ``pytest --tflint-verify`` (registered as the ``tflint`` pytest11 entry point).

It is loaded into every pytest session of every environment where tflint is installed, so
it is inert and TensorFlow-free unless ``--tflint-verify`` is given. Then it records every
distinct call the tests make to user tf.functions, replays each eagerly and as a graph at
the end of the session (see ``tflint.verify.recorder``), prints the divergences in the
terminal summary and makes the session fail (exit status 1) when any function diverges.
"""

from __future__ import annotations

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
    group.addoption("--tflint-verify-report-json", default=None, metavar="PATH")
    group.addoption("--tflint-verify-junit-xml", default=None, metavar="PATH")


class _VerifySession:
    """Lives only in sessions run with ``--tflint-verify``."""

    def __init__(self, config: pytest.Config) -> None:
        from tflint.verify import recorder  # imports TensorFlow

        self.config = config
        n = config.getoption("tflint_verify_logical_cpus")
        if n and n > 1:
            recorder.configure_logical_cpus(n)
        self.recorder = recorder.Recorder(config.getoption("tflint_verify_max_inputs"))
        self.recorder.install()
        self.results: list[Any] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        self.recorder.current_test = item.nodeid
        yield
        self.recorder.current_test = ""

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from tflint.verify import explain, report
        from tflint.verify.compare import Tolerances

        devices = self.config.getoption("tflint_verify_devices")
        self.results = [explain.annotate(r) for r in self.recorder.replay_all(
            calls=max(3, self.config.getoption("tflint_verify_calls")),
            devices=[d.strip() for d in devices.split(",")] if devices else None,
            tol=Tolerances())]
        if self.config.getoption("tflint_verify_report_json"):
            report.write_json(self.results, self.config.getoption("tflint_verify_report_json"))
        if self.config.getoption("tflint_verify_junit_xml"):
            report.write_junit(self.results, self.config.getoption("tflint_verify_junit_xml"))
        bad = any(r.status in ("divergent", "error", "timeout") for r in self.results)
        if bad and session.exitstatus == 0:
            session.exitstatus = 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from tflint.verify import report

        terminalreporter.section("tflint verify: eager vs graph")
        if not self.results:
            terminalreporter.write_line("no calls to tf.functions were recorded")
            return
        verbose = self.config.getoption("verbose") > 0
        for line in report.format_summary(self.results, verbose=verbose).splitlines():
            terminalreporter.write_line(line)


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
