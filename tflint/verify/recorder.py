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
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

import tensorflow as tf
from tensorflow.python.eager.polymorphic_function import polymorphic_function as _pf

from tflint.verify import replay
from tflint.verify.compare import Tolerances, build_result
from tflint.verify.discover import _cloner, _constant, _source_span, _uses_tf_data, helpers_of
from tflint.verify.replay import Args
from tflint.verify.model import FunctionResult, take_debug_mode_eager
from tflint.verify.state import StateTracker, unwrap_function

_FRAMEWORK = ("tensorflow", "keras", "tf_keras")


@dataclass
class _Group:
    #: returns a fresh tf.function to replay (a clone, or a new tf.function of a Keras step)
    make_function: Any
    instance: Any
    py_function: Any
    examples: list[replay.Example] = field(default_factory=list)
    keys: set[Any] = field(default_factory=set)
    calls_seen: int = 0
    tests: list[str] = field(default_factory=list)
    name: str | None = None


def _short_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    from tflint.verify.encode import encode, show

    parts = [show(encode(a), 50) for a in args]
    parts += [f"{k}={show(encode(v), 30)}" for k, v in kwargs.items()]
    text = ", ".join(parts)
    return text if len(text) <= 140 else text[:137] + "..."


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


def _state_key(tracker: StateTracker) -> str:
    """A fingerprint of the state a call starts from: the same inputs from another state
    (a counter at 0 and at 5) are another case to replay."""
    data = json.dumps([tracker.observe_state(), tracker.observe_variables()], sort_keys=True,
                      default=str)
    return hashlib.sha1(data.encode()).hexdigest()


def _symbolic_examples(args: tuple[Any, ...], kwargs: dict[str, Any]
                       ) -> list[tuple[str, Args]] | None:
    """Concrete stand-ins for a call made while tracing (inside ``Dataset.map`` or another
    tf.function): tensors of the traced dtype and shape (unknown dimensions 2) with positive
    and mixed values; None when an argument cannot be made (a dataset, a resource)."""
    from tflint.verify import synth

    out = []
    for profile in ("positive", "mixed"):
        labels: list[str] = []

        def make(value: Any, profile: str = profile, labels: list[str] = labels) -> Any:
            if not tf.is_tensor(value) or isinstance(value, tf.Variable):
                return value
            if value.dtype in (tf.resource, tf.variant) or value.shape.rank is None:
                raise synth.SynthError("not a plain tensor")
            dims = [2 if d is None else d for d in value.shape.as_list()]
            labels.append(f"{value.dtype.name}[{'x'.join(map(str, dims))}] {profile}")
            return synth.tensor_values(value.dtype, dims, profile, profile == "positive")

        try:
            made = tf.nest.map_structure(make, (tuple(args), dict(kwargs)))
        except (synth.SynthError, TypeError, ValueError):
            return None
        out.append((", ".join(labels) + " (shapes of a traced call)", made))
    return out


def _user_step(model: Any, step: str) -> Any:
    """The user's override of a Keras step, or None when the model uses Keras's own."""
    for klass in type(model).__mro__:
        if step in vars(klass):
            mod = (klass.__module__ or "").split(".")[0]
            return None if mod in _FRAMEWORK else vars(klass)[step]
    return None


def _first_batch(args: tuple[Any, ...], kwargs: dict[str, Any], with_y: bool) -> Any:
    """The first batch ``fit``/``evaluate``/``predict`` will see, as Keras hands it to the
    step (a tuple from Keras's own data adapter)."""
    from keras.src.trainers.data_adapters import get_data_adapter

    names = ("x", "y", "batch_size") if with_y else ("x", "batch_size")
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    x = bound.get("x")
    if isinstance(x, tf.data.Dataset):
        return next(iter(x.take(1)))
    batch = int(bound.get("batch_size") or 32)
    adapter = get_data_adapter(x, bound.get("y") if with_y else None, batch_size=batch,
                               shuffle=False)
    return next(iter(adapter.get_tf_dataset().take(1)))


class Recorder:
    """Patches ``Function.__call__`` (and Keras's ``fit``/``evaluate``/``predict``) while
    active and keeps the distinct calls."""

    def __init__(self, max_calls_per_function: int = 4) -> None:
        self.max_calls = max_calls_per_function
        self.groups: dict[tuple[int, int], _Group] = {}
        self.current_test = ""
        self._busy = False
        self._original: Any = None
        self._keras_originals: dict[str, Any] = {}

    def install(self) -> None:
        original = _pf.Function.__call__
        self._original = original
        recorder = self

        @functools.wraps(original)
        def __call__(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            if not recorder._busy and not tf.config.functions_run_eagerly():
                recorder._busy = True
                try:
                    recorder.record(fn_self, args, kwargs,
                                    symbolic=not tf.executing_eagerly())
                except Exception:  # recording must never break a test
                    pass
                finally:
                    recorder._busy = False
            return original(fn_self, *args, **kwargs)

        _pf.Function.__call__ = __call__
        self._install_keras()

    def _install_keras(self) -> None:
        keras = sys.modules.get("keras")
        if keras is None:
            try:
                import keras
            except Exception:
                return
        model_cls = getattr(keras, "Model", None)
        if model_cls is None:
            return
        recorder = self
        for method, step in (("fit", "train_step"), ("evaluate", "test_step"),
                             ("predict", "predict_step")):
            original = getattr(model_cls, method, None)
            if original is None:
                continue
            self._keras_originals[method] = original

            def wrapper(model: Any, *args: Any, __original: Any = original,
                        __step: str = step, **kwargs: Any) -> Any:
                out = __original(model, *args, **kwargs)
                if not recorder._busy:
                    recorder._busy = True
                    try:
                        recorder.record_keras(model, __step, args, kwargs)
                    except Exception:
                        pass
                    finally:
                        recorder._busy = False
                return out

            functools.update_wrapper(wrapper, original)
            setattr(model_cls, method, wrapper)

    def uninstall(self) -> None:
        if self._original is not None:
            _pf.Function.__call__ = self._original
            self._original = None
        keras = sys.modules.get("keras")
        for method, original in self._keras_originals.items():
            setattr(keras.Model, method, original)
        self._keras_originals = {}

    def _group(self, gkey: tuple[int, int], make: Any, instance: Any, py: Any,
               name: str | None = None) -> _Group:
        group = self.groups.get(gkey)
        if group is None:
            group = self.groups[gkey] = _Group(make, instance, py, name=name)
        group.calls_seen += 1
        return group

    def _add(self, group: _Group, key: Any, labelled: list[tuple[str, Any]], frozen: Args,
             label: str, synthesized: bool = False) -> None:
        tracker = StateTracker(group.instance, group.py_function, labelled)
        full_key = (key, _state_key(tracker))
        if full_key in group.keys:
            return
        group.keys.add(full_key)
        snap = tracker.snapshot()
        where = f" in {self.current_test}" if self.current_test else ""
        group.examples.append(replay.Example(
            f"call {len(group.examples) + 1}{where}: {label}", _constant(frozen), static=True,
            tracker=tracker, snapshot=snap, synthesized=synthesized, state_key=full_key[1]))
        if self.current_test and self.current_test not in group.tests:
            group.tests.append(self.current_test)

    def record(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
               symbolic: bool = False) -> None:
        instance, py = unwrap_function(fn)
        module = getattr(py, "__module__", "") or ""
        if module.split(".")[0] in _FRAMEWORK or module == __name__:
            return
        group = self._group((id(py), id(instance)), _cloner(fn), instance, py)
        if len(group.examples) >= self.max_calls:
            return
        if symbolic:
            # traced from inside Dataset.map or another tf.function: the values are not
            # known, their dtypes and shapes are; only when no real call was recorded
            if any(not ex.synthesized for ex in group.examples) or group.examples:
                return
            with tf.init_scope():  # out of the graph being traced: real, eager values
                made = _symbolic_examples(args, kwargs)
                for label, frozen in made or []:
                    labelled = [(f"arg{i}", a) for i, a in enumerate(frozen[0])]
                    self._add(group, ("sym", label), labelled, frozen, label,
                              synthesized=True)
            return
        if any(ex.synthesized for ex in group.examples):
            group.examples = []  # a real call replaces the stand-ins
            group.keys = set()
        labelled = [(f"arg{i}", a) for i, a in enumerate(args)]
        labelled += [(f"kwarg {k}", v) for k, v in kwargs.items()]
        key = (_value_key(args), _value_key(kwargs))
        self._add(group, key, labelled, (tuple(args), dict(kwargs)),
                  _short_args(args, kwargs))

    def record_keras(self, model: Any, step: str, args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> None:
        """A user ``train_step``/``test_step``/``predict_step`` that ``fit``/``evaluate``/
        ``predict`` ran: its first batch, from the state the model has after the call."""
        raw = _user_step(model, step)
        if raw is None:
            return
        bound = getattr(model, step)

        def make() -> Any:
            return tf.function(bound, reduce_retracing=True)

        group = self._group((id(raw), id(model)), make, model, raw,
                            name=f"{type(model).__qualname__}.{step}")
        if len(group.examples) >= self.max_calls:
            return
        data = _first_batch(args, kwargs, with_y=step != "predict_step")
        self._add(group, _value_key(data), [("arg0", data)], ((data,), {}),
                  f"first batch of {step.replace('_step', '')}: " + _short_args((data,), {}))

    def observe_all(self, calls: int, devices: list[str] | None,
                    modes: tuple[str, ...] = replay.MODES, only_tf_data: bool = False
                    ) -> list[dict[str, Any]]:
        """Replay every recorded call; one observation record per function."""
        self.uninstall()
        records = []
        for group in self.groups.values():
            file, line, end = _source_span(group.py_function)
            name = group.name or getattr(group.py_function, "__qualname__", "?")
            module = sys.modules.get(getattr(group.py_function, "__module__", "") or "")
            cand = replay.Candidate(
                name=name, make_function=group.make_function,
                instance=group.instance, py_function=group.py_function, file=file,
                line=line, end_line=end, examples=group.examples,
                inputs=f"pytest ({len(group.examples)} distinct of {group.calls_seen} calls)",
                uses_tf_data=module is not None and _uses_tf_data(module))
            if only_tf_data and not cand.uses_tf_data:
                continue
            try:
                cand.related = helpers_of(group.py_function)
            except Exception:
                cand.related = []
            try:
                with _silence_fds(), _op_determinism():
                    rec = replay.observe(cand, calls=calls, devices=devices, modes=modes)
            except Exception as e:
                rec = replay.error_record(cand, e)
            if group.tests:
                rec.setdefault("hints", []).append("called from " + ", ".join(group.tests[:3]))
            records.append(rec)
        return records

    def replay_all(self, calls: int, devices: list[str] | None, tol: Tolerances,
                   debug_eager: list[dict[str, Any]] | None = None) -> list[FunctionResult]:
        """Replay every recorded call; one result per function. ``debug_eager``: the eager
        observations of a run under ``tf.data.experimental.enable_debug_mode()``."""
        records = self.observe_all(calls, devices)
        if debug_eager is not None:
            merge_debug_eager(records, debug_eager)
        return [build_result(rec, tol) for rec in records]


def merge_debug_eager(records: list[dict[str, Any]], debug: list[dict[str, Any]]) -> None:
    """Put the tf.data debug-mode eager observations in place of the plain eager ones,
    matching functions by name and order."""
    pending: dict[str, list[dict[str, Any]]] = {}
    for rec in debug:
        pending.setdefault(rec["name"], []).append(rec)
    for rec in records:
        if not rec.get("uses_tf_data") or "examples" not in rec:
            continue
        queue = pending.get(rec["name"]) or []
        other = queue.pop(0) if queue else None
        if other is None or len(other.get("examples", [])) != len(rec["examples"]):
            rec.setdefault("hints", []).append(
                "the tf.data debug-mode eager run did not record this function; eager mode "
                "compared without it")
            continue
        if any(ex.get("state_key") != dbg.get("state_key")
               for ex, dbg in zip(rec["examples"], other["examples"])):
            rec.setdefault("hints", []).append(
                "the tf.data debug-mode run started this function from another state (unseeded "
                "random initial values?); eager mode compared without it")
            continue
        take_debug_mode_eager(rec, other)


@contextlib.contextmanager
def _op_determinism() -> Any:
    """Op determinism and no TF32 for the replay only: the tests themselves ran without."""
    from tensorflow.python.framework import config

    was = config.is_op_determinism_enabled()
    tf32 = tf.config.experimental.tensor_float_32_execution_enabled()
    config.enable_op_determinism()
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        yield
    finally:
        if not was:
            config.disable_op_determinism()
        tf.config.experimental.enable_tensor_float_32_execution(tf32)


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
