"""Record the calls a test suite makes to tf.functions, then replay them (pytest plugin).

While the session runs, ``Function.__call__`` is wrapped: each outermost eager call of a
user tf.function with inputs not seen before is recorded together with a snapshot of the
state it can touch (``StateTracker``). At the end of the session each recorded call is
replayed from its snapshot as a graph, as a graph again, and eagerly, exactly like
``tflint verify`` does for declared examples. Replaying at the end, not during the test,
keeps the tests' own behaviour (trace counts, printed output) untouched.

Imports TensorFlow: only the plugin imports this module, and only under ``--tflint-verify``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

import tensorflow as tf
from tensorflow.python.eager.polymorphic_function import polymorphic_function as _pf

from tflint.verify import replay
from tflint.verify.compare import Tolerances, build_result
from tflint.verify.discover import _cloner, _constant, _source_span
from tflint.verify.model import FunctionResult
from tflint.verify.state import StateTracker, unwrap_function

_FRAMEWORK = ("tensorflow", "keras", "tf_keras")


@dataclass
class _Group:
    function: Any
    instance: Any
    py_function: Any
    examples: list[replay.Example] = field(default_factory=list)
    keys: set[Any] = field(default_factory=set)
    calls_seen: int = 0
    tests: list[str] = field(default_factory=list)


def _value_key(value: Any) -> Any:
    """A hashable identity of an argument: tensors by dtype, shape and content."""
    if tf.is_tensor(value) and hasattr(value, "numpy") and not isinstance(value, tf.Variable):
        try:
            arr = value.numpy()
            if arr.size <= 100_000:
                return ("t", value.dtype.name, tuple(arr.shape),
                        hashlib.sha1(arr.tobytes()).hexdigest())
        except Exception:
            pass
        return ("t", id(value))
    if isinstance(value, (bool, int, float, str, bytes, type(None))):
        return ("p", type(value).__name__, repr(value))
    if isinstance(value, (list, tuple)):
        return ("s", type(value).__name__, tuple(_value_key(v) for v in value))
    if isinstance(value, dict):
        return ("d", tuple(sorted((repr(k), _value_key(v)) for k, v in value.items())))
    return ("o", id(value))


class Recorder:
    """Patches ``Function.__call__`` while active and keeps the distinct calls."""

    def __init__(self, max_calls_per_function: int = 4) -> None:
        self.max_calls = max_calls_per_function
        self.groups: dict[tuple[int, int], _Group] = {}
        self.current_test = ""
        self._busy = False
        self._original: Any = None

    def install(self) -> None:
        original = _pf.Function.__call__
        self._original = original
        recorder = self

        @functools.wraps(original)
        def __call__(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            if not recorder._busy and tf.executing_eagerly() and \
                    not tf.config.functions_run_eagerly():
                recorder._busy = True
                try:
                    recorder.record(fn_self, args, kwargs)
                except Exception:  # recording must never break a test
                    pass
                finally:
                    recorder._busy = False
            return original(fn_self, *args, **kwargs)

        _pf.Function.__call__ = __call__

    def uninstall(self) -> None:
        if self._original is not None:
            _pf.Function.__call__ = self._original
            self._original = None

    def record(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        instance, py = unwrap_function(fn)
        module = getattr(py, "__module__", "") or ""
        if module.split(".")[0] in _FRAMEWORK or module == __name__:
            return
        gkey = (id(py), id(instance))
        group = self.groups.get(gkey)
        if group is None:
            group = self.groups[gkey] = _Group(fn, instance, py)
        group.calls_seen += 1
        key = (_value_key(args), _value_key(kwargs))
        if key in group.keys or len(group.examples) >= self.max_calls:
            return
        group.keys.add(key)
        labelled = [(f"arg{i}", a) for i, a in enumerate(args)]
        labelled += [(f"kwarg {k}", v) for k, v in kwargs.items()]
        tracker = StateTracker(instance, py, labelled)
        snap = tracker.snapshot()
        frozen = (tuple(args), dict(kwargs))
        where = f" in {self.current_test}" if self.current_test else ""
        group.examples.append(replay.Example(
            f"call {len(group.examples) + 1}{where}", _constant(frozen), static=True,
            tracker=tracker, snapshot=snap))
        if self.current_test and self.current_test not in group.tests:
            group.tests.append(self.current_test)

    def replay_all(self, calls: int, devices: list[str] | None, tol: Tolerances
                   ) -> list[FunctionResult]:
        """Replay every recorded call; one result per function."""
        self.uninstall()
        results = []
        for group in self.groups.values():
            file, line, end = _source_span(group.py_function)
            name = getattr(group.py_function, "__qualname__", "?")
            cand = replay.Candidate(
                name=name, make_function=_cloner(group.function),
                instance=group.instance, py_function=group.py_function, file=file,
                line=line, end_line=end, examples=group.examples,
                inputs=f"pytest ({len(group.examples)} distinct of {group.calls_seen} calls)")
            try:
                with _silence_fds():
                    rec = replay.observe(cand, calls=calls, devices=devices)
            except Exception as e:
                rec = replay.error_record(cand, e)
            result = build_result(rec, tol)
            if group.tests:
                result.hints.append("called from " + ", ".join(group.tests[:3]))
            results.append(result)
        return results


@contextlib.contextmanager
def _silence_fds() -> Any:
    """Send C-level output (``tf.print``, TensorFlow's C++ logs) of the replay to a scratch
    file: the replay repeats every call many times and would flood the terminal."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as sink:
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def configure_logical_cpus(n: int) -> None:
    """Split the CPU into ``n`` logical devices (only possible before TensorFlow starts)."""
    try:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(n)])
    except RuntimeError as e:
        print(f"tflint: cannot create logical CPUs: {e}", file=sys.stderr)
