"""``pytest --tflint-verify`` and ``tflint verify TESTS_DIR``, in real pytest subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def tf_env() -> dict[str, str]:
    import os

    return dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")


SUITE = {
    "mylib.py": """
        import tensorflow as tf

        seen = []

        @tf.function
        def remember(x):
            seen.append(x)
            return x * 2

        @tf.function
        def double(x):
            return x * 2

        class Counter(tf.Module):
            def __init__(self):
                self.n = tf.Variable(0)

            @tf.function
            def bump(self, by):
                self.n.assign_add(by)
                return self.n.read_value()
    """,
    "test_mylib.py": """
        import tensorflow as tf
        import mylib

        def test_double():
            assert int(mylib.double(tf.constant(2))) == 4
            assert int(mylib.double(tf.constant(2))) == 4  # same input: recorded once
            assert int(mylib.double(tf.constant(3))) == 6

        def test_counter():
            c = mylib.Counter()
            assert int(c.bump(tf.constant(2))) == 2
    """,
    "test_divergent.py": """
        import tensorflow as tf
        import mylib

        def test_remember():
            assert int(mylib.remember(tf.constant(1))) == 2
    """,
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("suite")
    for name, src in SUITE.items():
        (d / name).write_text(textwrap.dedent(src))
    return d


def _pytest(suite: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=suite, capture_output=True, text=True, env=tf_env(), timeout=300)


def test_plugin_is_inert_without_the_flag(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\ndef test_no_tf():\n    assert 'tensorflow' not in sys.modules\n")
    proc = _pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "tflint verify" not in proc.stdout


def test_clean_suite_passes(suite: Path) -> None:
    pytest.importorskip("tensorflow")
    report = suite / "clean.json"
    proc = _pytest(suite, "test_mylib.py", "--tflint-verify", "--tflint-verify-logical-cpus",
                   "2", "--tflint-verify-report-json", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tflint verify: eager vs graph" in proc.stdout
    data = {r["name"]: r for r in json.loads(report.read_text())}
    assert data["double"]["status"] == "ok"
    assert data["double"]["examples"] == 2  # two distinct inputs out of three calls
    assert data["double"]["devices"] == ["/device:CPU:0", "/device:CPU:1"]
    assert data["Counter.bump"]["status"] == "ok"
    # the replay restored the counter's variable: the test's own value was not disturbed
    assert "remember" not in data


def test_divergence_fails_the_session(suite: Path) -> None:
    pytest.importorskip("tensorflow")
    proc = _pytest(suite, "--tflint-verify")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "3 passed" in proc.stdout  # the tests themselves pass
    assert "remember: DIVERGENT" in proc.stdout
    assert "test_divergent.py::test_remember" in proc.stdout


def test_tflint_verify_on_a_tests_folder(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tensorflow")
    from tflint.verify.cli import main

    monkeypatch.chdir(suite)
    report = suite / "folder.json"
    rc = main([str(suite), "-q", "--report-json", str(report)])
    assert rc == 1
    data = {r["name"]: r for r in json.loads(report.read_text())}
    assert data["remember"]["status"] == "divergent"
    assert data["double"]["status"] == "ok"
