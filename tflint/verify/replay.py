"""Run one function as a graph, as a graph again, and eagerly, and record what it does.

This is the in-process engine shared by the ``tflint verify`` child process and the pytest
plugin. It imports TensorFlow, so only code that already runs TensorFlow may import it.

For each example and each device, starting every time from the same snapshot
(``StateTracker``) and the same seeds:

* ``graph``: a fresh clone of the tf.function (so it traces now, from this state, like the
  first call in a new process), called N times;
* ``graph2``: a second fresh clone from the same state and seeds: what differs from ``graph``
  is nondeterminism, reported as such and excluded from the comparison;
* ``eager``: with ``tf.config.run_functions_eagerly(True)``;
* ``eager_reseed``: eager again with only TensorFlow's seed changed. ``tf.random`` ops draw
  from different streams eagerly and in a graph even under the same global seed, so outputs
  that change with TensorFlow's seed are random by design: they are reported as
  nondeterministic, not divergent. NumPy and Python seeds stay the same, so values baked
  from ``np.random`` at trace time still show as divergent.

Traces are counted on the first device only, and each retrace is explained by the argument
whose tracing-relevant description (Python value, dtype, shape) changed.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import logging
import random
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import tensorflow as tf

from tflint.verify.encode import encode
from tflint.verify.state import StateTracker

Args = tuple[tuple[Any, ...], dict[str, Any]]
MODES = ("graph", "graph2", "eager", "eager_reseed")
#: added to the TensorFlow seed (only) for ``eager_reseed``
RESEED_OFFSET = 1


@dataclass
class Example:
    """One set of inputs. ``make`` is called before every call: for plain data it returns the
    same objects each time; a user callable can also stand for the code that runs between
    calls (a training loop that changes a global), which is how stale captures show."""

    label: str
    make: Callable[[], Args]
    static: bool = True
    #: a tracker and snapshot taken when the call was recorded (pytest plugin): replay starts
    #: from the state the test had at that moment instead of the state at replay time
    tracker: Any = None
    snapshot: Any = None


@dataclass
class Candidate:
    """A function the verifier can run."""

    name: str
    make_function: Callable[[], Any]  # returns a fresh tf.function (clone) each time
    instance: Any
    py_function: Any
    file: str = ""
    line: int = 0
    end_line: int | None = None
    examples: list[Example] = field(default_factory=list)
    inputs: str = ""
    skip_reason: str = ""
    uses_tf_data: bool = False


def seed_all(seed: int, tf_seed: int | None = None) -> None:
    """Seed every generator the modes could draw from, the same way before each run.
    ``tf_seed`` changes only TensorFlow's seed (see ``eager_reseed``)."""
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed)
    keras = sys.modules.get("keras")
    if keras is not None:
        try:
            keras.utils.set_random_seed(seed)
        except Exception:
            pass
    tf.random.set_seed(seed if tf_seed is None else tf_seed)


class _LogCounter(logging.Handler):
    """Counts records from user loggers (TensorFlow's own logging is not user output)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0
        self.retrace_warnings = 0

    def emit(self, record: logging.LogRecord) -> None:
        name = record.name or ""
        if name.split(".")[0] in ("tensorflow", "absl", "keras", "h5py", "jax"):
            if "retracing" in record.getMessage():
                self.retrace_warnings += 1
            return
        self.count += 1


@contextlib.contextmanager
def _capture() -> Any:
    """Capture stdout/stderr and count log records for one call. The root logger is lowered
    to DEBUG for the duration so that ``logger.info`` in user code is counted in both modes."""
    out, err = io.StringIO(), io.StringIO()
    counter = _LogCounter()
    root = logging.getLogger()
    tf_logger = logging.getLogger("tensorflow")
    old_level = root.level
    root.addHandler(counter)
    tf_logger.addHandler(counter)
    root.setLevel(logging.DEBUG)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, counter
    finally:
        root.setLevel(old_level)
        root.removeHandler(counter)
        tf_logger.removeHandler(counter)


def describe_argument(value: Any, depth: int = 0) -> Any:
    """What ``tf.function`` keys a trace on, for explaining retraces."""
    if tf.is_tensor(value) or isinstance(value, tf.Variable):
        shape = getattr(value, "shape", None)
        dims = None if shape is None or shape.rank is None else tuple(shape.as_list())
        return ("tensor", value.dtype.name, dims)
    if isinstance(value, (bool, int, float, str, bytes, type(None))):
        return ("python", type(value).__name__, repr(value)[:60])
    if depth < 3 and isinstance(value, (list, tuple)):
        items = tuple(describe_argument(v, depth + 1) for v in value)
        return ("sequence", type(value).__name__, items)
    if depth < 3 and isinstance(value, dict):
        return ("mapping", tuple(sorted((str(k), describe_argument(v, depth + 1))
                                        for k, v in value.items())))
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return ("tensor", str(value.dtype), tuple(value.shape))
    return ("object", type(value).__qualname__, id(value))


def _explain_change(name: str, before: Any, after: Any) -> tuple[str, str]:
    """(what changed, the fix to consider)."""
    if before[0] == "tensor" and after[0] == "tensor":
        if before[1] != after[1]:
            return (f"dtype {before[1]} -> {after[1]}",
                    "cast to one dtype before calling, or declare it in input_signature")
        return (f"shape {before[2]} -> {after[2]}",
                "use reduce_retracing=True, or an input_signature with None for the "
                "dimension that varies")
    if before[0] == "python" and after[0] == "python":
        return (f"Python value {before[2]} -> {after[2]}",
                f"pass `{name}` as a tensor (tf.constant(...)) or declare it in "
                "input_signature: every new Python value is a new graph")
    if before[0] == "object" and after[0] == "object":
        return (f"a different {after[1]} object",
                "pass the same object, or give the class __tf_tracing_type__")
    if before[0] != after[0]:
        return (f"kind {before[0]} -> {after[0]}",
                "pass the same kind of value on every call (a tensor, not sometimes a "
                "Python number)")
    return ("nested structure or contents changed",
            "keep the same nested structure; pass tensors inside it, not Python values")


def _signature(py_function: Any, instance: Any, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> dict[str, Any]:
    try:
        sig = inspect.signature(py_function)
        params = list(sig.parameters)
        if instance is not None and params:
            params = params[1:]
        bound: dict[str, Any] = {}
        for i, a in enumerate(args):
            bound[params[i] if i < len(params) else f"arg{i}"] = a
        bound.update(kwargs)
    except (TypeError, ValueError):
        bound = {f"arg{i}": a for i, a in enumerate(args)}
        bound.update(kwargs)
    return {k: describe_argument(v) for k, v in bound.items()}


def explain_retrace(
    previous: list[dict[str, Any]], current: dict[str, Any]
) -> tuple[str, str, str]:
    """Compare with the closest earlier traced signature: (argument, change, fix)."""
    best: list[str] | None = None
    best_prev: dict[str, Any] = {}
    for prev in previous:
        changed = [k for k in set(prev) | set(current) if prev.get(k) != current.get(k)]
        if best is None or len(changed) < len(best):
            best, best_prev = changed, prev
    if not best:
        return ("(none)", "no argument changed: a captured Python value or the calling context "
                "changed", "avoid depending on Python state that changes between calls")
    name = sorted(best)[0]
    b, a = best_prev.get(name), current.get(name)
    if b is None or a is None:
        return (name, "argument added or removed", "call with the same arguments every time")
    change, fix = _explain_change(name, b, a)
    return (name, change, fix)


def _call_once(fn: Any, example: Example, tracker: StateTracker) -> tuple[dict[str, Any], Args]:
    exc = None
    ret = None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    with _capture() as (out, _counter):
        try:
            args, kwargs = example.make()
            ret = fn(*args, **kwargs)
        except Exception as e:  # user code: recorded, compared, never raised
            exc = {"type": type(e).__name__, "msg": _first_line(str(e))}
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    return {
        "ret": encode(ret) if exc is None else None,
        "exc": exc,
        "vars": tracker.observe_variables(),
        "state": tracker.observe_state(),
        "stdout": len(lines),
        "stdout_first": lines[0][:120] if lines else "",
        "logs": _counter.count,
        "_retrace_warnings": _counter.retrace_warnings,
    }, (args, kwargs)


def _first_line(msg: str) -> str:
    """The informative line of an exception message. Errors raised while tracing start with
    "in user code:" and a traceback; the error itself is on the last line."""
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    if not lines:
        return ""
    if lines[0].startswith("in user code") and len(lines) > 1:
        return lines[-1][:300]
    return lines[0][:300]


def observe(
    cand: Candidate,
    calls: int = 3,
    devices: list[str] | None = None,
    seed: int = 0,
    modes: tuple[str, ...] = MODES,
) -> dict[str, Any]:
    """Run ``cand`` in every mode on every device; return its observation record."""
    devices = devices or [d.name for d in tf.config.list_logical_devices()]
    record: dict[str, Any] = {
        "name": cand.name,
        "file": cand.file,
        "line": cand.line,
        "end_line": cand.end_line,
        "inputs": cand.inputs,
        "calls": calls,
        "devices": devices,
        "examples": [],
        "uses_tf_data": cand.uses_tf_data,
    }
    clones: dict[str, Any] = {}
    traced_signatures: list[dict[str, Any]] = []
    retraces: list[dict[str, Any]] = []
    retrace_warnings = 0
    call_counter = 0
    last_args: Args | None = None
    for ex_i, example in enumerate(cand.examples):
        static_args: list[tuple[str, Any]] = []
        if example.static and example.tracker is None:
            args, kwargs = example.make()
            static_args = [(f"arg{i}", a) for i, a in enumerate(args)]
            static_args += [(f"kwarg {k}", v) for k, v in kwargs.items()]
        if example.tracker is not None:
            tracker, base = example.tracker, example.snapshot
        else:
            tracker = StateTracker(cand.instance, cand.py_function, static_args)
            base = tracker.snapshot()
        ex_rec: dict[str, Any] = {"label": example.label, "modes": {m: {} for m in modes}}
        for d_i, dev in enumerate(devices):
            for mode in modes:
                if mode == "graph2" and ex_i > 0:
                    # nondeterminism is a property of the function: checking it on the first
                    # example saves a trace per example (the most expensive part of a replay)
                    continue
                key = f"{dev}|{'graph2' if mode == 'graph2' else 'graph'}"
                if key not in clones:
                    clones[key] = cand.make_function()
                fn = clones[key]
                tracker.restore(base)
                seed_all(seed, seed + RESEED_OFFSET if mode == "eager_reseed" else None)
                results = []
                previous = tf.config.functions_run_eagerly()
                tf.config.run_functions_eagerly(mode.startswith("eager"))
                try:
                    with tf.device(dev):
                        for _ in range(calls):
                            count_before = _tracing_count(fn)
                            res, used = _call_once(fn, example, tracker)
                            if mode == "graph" and d_i == 0:
                                call_counter += 1
                                retrace_warnings += res["_retrace_warnings"]
                                if _tracing_count(fn) > count_before:
                                    sig = _signature(cand.py_function, cand.instance, *used)
                                    if traced_signatures:
                                        arg, change, fix = explain_retrace(traced_signatures,
                                                                           sig)
                                        retraces.append({"call": call_counter,
                                                         "example": ex_i + 1,
                                                         "argument": arg, "change": change,
                                                         "fix": fix})
                                    traced_signatures.append(sig)
                                last_args = used
                            res.pop("_retrace_warnings", None)
                            results.append(res)
                finally:
                    tf.config.run_functions_eagerly(previous)
                ex_rec["modes"][mode][dev] = results
        tracker.restore(base)
        record["examples"].append(ex_rec)
    first = clones.get(f"{devices[0]}|graph") if devices else None
    record["traces"] = {
        "count": _tracing_count(first) if first is not None else 0,
        "retraces": retraces,
        "warnings": retrace_warnings,
        "graph_nodes": _graph_nodes(first, last_args),
    }
    return record


def _tracing_count(fn: Any) -> int:
    try:
        return int(fn.experimental_get_tracing_count())
    except Exception:
        return 0


def _graph_nodes(fn: Any, args: Args | None) -> int | None:
    """Node count of the traced graph (large unrolled Python loops show up here)."""
    if fn is None or args is None or "graph" not in MODES:
        return None
    try:
        before = _tracing_count(fn)
        with contextlib.redirect_stdout(io.StringIO()):
            concrete = fn.get_concrete_function(*args[0], **args[1])
        if _tracing_count(fn) != before:
            return None
        return len(concrete.graph.as_graph_def().node)
    except Exception:
        return None


def error_record(cand: Candidate, exc: BaseException) -> dict[str, Any]:
    """The observation record of a function whose verification itself failed."""
    tb = traceback.format_exception_only(type(exc), exc)
    return {
        "name": cand.name, "file": cand.file, "line": cand.line, "end_line": cand.end_line,
        "status": "error", "reason": "verifier failed on this function: " + "".join(tb).strip(),
        "inputs": cand.inputs,
    }
