"""CLI usage, exit codes and the promise that the parent never imports TensorFlow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tflint.verify.cli import classify, main


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main([str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["not a module!"]) == 2
    assert main(["examples", "--calls", "2"]) == 2
    assert "at least 3" in capsys.readouterr().err


def test_help_exits_0() -> None:
    assert main(["--help"]) == 0


def test_target_classification(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("")
    assert classify(str(tmp_path / "mod.py")) == "module"
    assert classify(str(tmp_path / "mod.py") + ":fn") == "module"
    assert classify(str(tmp_path / "tests")) == "pytest"
    assert classify(str(tmp_path / "tests" / "test_x.py")) == "pytest"
    assert classify(str(tmp_path / "pkg")) == "folder"
    assert classify("package.module:obj.method") == "module"


def test_parent_never_imports_tensorflow(tmp_path: Path) -> None:
    code2 = ("import sys\nimport tflint.verify.cli, tflint.pytest_plugin\n"
             "print('tensorflow' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True)
    assert proc.stdout.strip() == "False", proc.stderr


def test_missing_module_is_an_error_result(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tensorflow")
    rc = main(["no_such_module_for_tflint", "-q", "--timeout", "60"])
    assert rc == 1
    out = capsys.readouterr().out
    assert "ERROR" in out and "No module named 'no_such_module_for_tflint'" in out


def test_without_tensorflow_one_clear_message_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No TensorFlow for this interpreter: one message up front that says what to install,
    exit 2 (an environment problem, not a divergence), no child process started."""
    import importlib.util

    from tflint.verify import cli, runner

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "tensorflow" else real_find_spec(name, *a))
    started: list[str] = []
    monkeypatch.setattr(runner, "verify_target", lambda target, *a, **k: started.append(target) or [])
    target = tmp_path / "mod.py"
    target.write_text("import tensorflow as tf\n")
    assert not cli.tensorflow_installed()
    assert main([str(target)]) == 2
    err = capsys.readouterr().err
    assert "TensorFlow is not installed" in err and "tflint[verify]" in err
    assert len(err.strip().splitlines()) == 1 and not started


def test_a_device_that_does_not_exist_exits_2(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tensorflow")
    (tmp_path / "m.py").write_text("import tensorflow as tf\n\n@tf.function\ndef f():\n"
                                   "    return tf.constant(1)\n")
    # two logical CPUs exist; GPU:0 and CPU:2 do not (no silent fallback to the CPU)
    assert main([str(tmp_path / "m.py"), "--logical-cpus", "2", "--devices",
                 "CPU:1,GPU:0", "-q"]) == 2
    err = capsys.readouterr().err
    assert "no device 'GPU:0'" in err and "CPU:1" in err


def test_select_devices() -> None:
    from tflint.verify._child import select_devices

    have = ["/job:localhost/replica:0/task:0/device:CPU:0",
            "/job:localhost/replica:0/task:0/device:CPU:1"]
    assert select_devices(have, None) == have
    assert select_devices(have, ["cpu:1"]) == have[1:]
    with pytest.raises(ValueError, match="GPU:0"):
        select_devices(have, ["CPU:0", "GPU:0"])
