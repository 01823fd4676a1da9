"""Run one function as a graph and eagerly, several times each, and record what it does.

This is the in-process engine shared by the ``tflint verify`` child process and the pytest
plugin. It imports TensorFlow, so only code that already runs TensorFlow may import it.

For each example and each device, starting every time from the same snapshot
(``StateTracker``), the same Python/NumPy/Keras/TensorFlow seeds and the same *op* seeds:

* ``graph``: a fresh clone of the tf.function for this example (it traces now, from this
  state, like the first call in a new process; a lazily built variable is created again);
* ``eager``: with ``tf.config.run_functions_eagerly(True)``;
* ``graph2`` and ``eager2`` (first example only): the same again. What differs between two
  runs of one mode from the same seed is real nondeterminism: excluded element by element
  and reported;
* ``eager_reseed``: eager with only TensorFlow's seed changed. Elements that follow it are
  random by design; they are excluded from the comparison element by element (the
  function is not called nondeterministic for them). NumPy and Python seeds stay the same,
  so values baked from ``np.random`` at trace time still show as divergent.

Op seeds: ``tf.random`` ops without a seed get their op seed from a per-graph counter in a
graph and from a per-process counter eagerly, so the two modes draw different streams. While
a call runs, the k-th unseeded random op created by the call gets op seed k in both modes,
so legitimately random functions give the same values eagerly and as a graph.

A callable example is called once per call index; the arguments it returns are replayed in
every mode (it is still called in each mode, for what it does between calls, and the state
it touches is restored like the function's).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import random
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import tensorflow as tf

from tflint.verify import retrace
from tflint.verify.encode import encode
from tflint.verify.state import StateTracker

Args = tuple[tuple[Any, ...], dict[str, Any]]
MODES = ("graph", "graph2", "eager", "eager2", "eager_reseed")
#: modes run on the first example only (nondeterminism is a property of the function)
SELF_CHECKS = ("graph2", "eager2")
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
    #: made by the verifier, not declared: an example every call of which raises in both
    #: modes is a value the function does not accept, not a finding
    synthesized: bool = False
    #: the user's callable behind ``make`` (its state is restored between modes)
    factory: Any = None
    #: fingerprint of the recorded starting state (pytest plugin), to pair observations
    #: made in another process only when they start from the same state
    state_key: str = ""


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
    #: user helpers the function calls (for static findings outside its own lines)
    related: list[dict[str, Any]] = field(default_factory=list)


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


class ResourceExhausted(Exception):
    """The function ran out of memory: stop verifying it at once."""


_EXHAUSTED = ("ResourceExhaustedError", "MemoryError", "OutOfMemoryError")
_seed_counter = [0]


@contextlib.contextmanager
def aligned_op_seeds() -> Any:
    """Within a call, the k-th unseeded random op gets op seed k, eagerly and in a graph."""
    from tensorflow.python.framework import random_seed

    original = random_seed.get_seed

    def get_seed(op_seed: Any) -> Any:
        global_seed, seed = original(op_seed)
        if op_seed is None and global_seed is not None:
            _seed_counter[0] += 1
            return global_seed, 7919 + _seed_counter[0]
        return global_seed, seed

    random_seed.get_seed = get_seed
    try:
        yield
    finally:
        random_seed.get_seed = original


def _call_once(fn: Any, example: Example, tracker: StateTracker, cached: Args | None
               ) -> tuple[dict[str, Any], Args]:
    exc = None
    ret = None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    with _capture() as (out, _counter):
        try:
            args, kwargs = example.make()
            if cached is not None:
                args, kwargs = cached
            _seed_counter[0] = 0
            with aligned_op_seeds():
                ret = fn(*args, **kwargs)
        except Exception as e:  # user code: recorded, compared, never raised
            if type(e).__name__ in _EXHAUSTED:
                raise ResourceExhausted(_first_line(str(e))) from e
            text = str(e)
            exc = {"type": type(e).__name__, "msg": _first_line(text), "text": text[:20000]}
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


def _factory_tracker(example: Example) -> tuple[StateTracker | None, Any]:
    if example.factory is None:
        return None, None
    try:
        tracker = StateTracker(None, example.factory, [])
        return tracker, tracker.snapshot()
    except Exception:
        return None, None


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
        "related": cand.related,
    }
    traced: list[dict[str, Any]] = []
    retraces: list[dict[str, Any]] = []
    retrace_warnings = 0
    relaxed: list[bool] = [False]
    call_counter = 0
    reduce_on = False
    first_fn: Any = None
    last_args: Args | None = None
    try:
        for ex_i, example in enumerate(cand.examples):
            static_args: list[tuple[str, Any]] = []
            cached: dict[int, Args] = {}
            if example.static and example.tracker is None:
                args, kwargs = example.make()
                static_args = [(f"arg{i}", a) for i, a in enumerate(args)]
                static_args += [(f"kwarg {k}", v) for k, v in kwargs.items()]
            if example.tracker is not None:
                tracker, base = example.tracker, example.snapshot
            else:
                tracker = StateTracker(cand.instance, cand.py_function, static_args)
                base = tracker.snapshot()
            f_tracker, f_base = _factory_tracker(example)
            ex_rec: dict[str, Any] = {"label": example.label,
                                      "synthesized": example.synthesized,
                                      "state_key": example.state_key,
                                      "modes": {m: {} for m in modes}}
            ex_traced: list[dict[str, Any]] = []
            for d_i, dev in enumerate(devices):
                for mode in modes:
                    if mode in SELF_CHECKS and ex_i > 0:
                        continue
                    # a fresh clone per example and mode: it traces from this state
                    fn = cand.make_function()
                    if mode == "graph" and d_i == 0 and ex_i == 0:
                        first_fn = fn
                        reduce_on = retrace.reduce_retracing_on(fn)
                    tracker.restore(base)
                    if f_tracker is not None:
                        f_tracker.restore(f_base)
                    seed_all(seed, seed + RESEED_OFFSET if mode == "eager_reseed" else None)
                    results = []
                    previous = tf.config.functions_run_eagerly()
                    tf.config.run_functions_eagerly(mode.startswith("eager"))
                    try:
                        with tf.device(dev):
                            for call_i in range(calls):
                                count_before = _tracing_count(fn)
                                res, used = _call_once(fn, example, tracker,
                                                       cached.get(call_i))
                                if not example.static:
                                    cached.setdefault(call_i, used)
                                if mode == "graph" and d_i == 0:
                                    call_counter += 1
                                    retrace_warnings += res["_retrace_warnings"]
                                    if _tracing_count(fn) > count_before:
                                        sig = retrace.signature(cand.py_function,
                                                                cand.instance, *used)
                                        if ex_traced or _shared_retrace(
                                                traced, sig, example, fn, reduce_on,
                                                relaxed):
                                            _add_retrace(retraces, ex_traced or traced, sig,
                                                         reduce_on, call_counter, ex_i)
                                        ex_traced.append(sig)
                                    last_args = used
                                res.pop("_retrace_warnings", None)
                                results.append(res)
                    finally:
                        tf.config.run_functions_eagerly(previous)
                    ex_rec["modes"][mode][dev] = results
            tracker.restore(base)
            if f_tracker is not None:
                f_tracker.restore(f_base)
            traced += ex_traced
            record["examples"].append(ex_rec)
    except ResourceExhausted as e:
        tf.config.run_functions_eagerly(False)
        return dict(error_record(cand, e), status="error",
                    reason=f"ran out of memory (stopped at once): {e}")
    suggestion = retrace.suggest_signature(traced) if retraces else None
    record["traces"] = {
        "count": (1 + len(retraces)) if traced else 0,
        "retraces": retraces,
        "warnings": retrace_warnings,
        "graph_nodes": _graph_nodes(first_fn, last_args),
        "reduce_retracing": reduce_on,
        "suggested_signature": suggestion,
    }
    return record


def _shared_retrace(earlier: list[dict[str, Any]], sig: dict[str, Any], example: Example,
                    fn: Any, reduce_on: bool, relaxed: list[bool]) -> bool:
    """Would one tf.function, called with every example in turn, trace again here? Each
    example runs on its own clone, so this is judged from the tracing keys: synthesized
    examples and functions with an input_signature never count; with reduce_retracing only
    the first shape change does (TensorFlow then traces a shape-relaxed graph)."""
    if not earlier or example.synthesized or getattr(fn, "input_signature", None) is not None:
        return False
    _closest, changes = retrace.explain(earlier, sig, reduce_on)
    if not changes or changes[0].path == "(no argument)":
        return False
    if reduce_on and all(c.change.startswith("shape") for c in changes):
        if relaxed[0]:
            return False
        relaxed[0] = True
    return True


def _add_retrace(retraces: list[dict[str, Any]], earlier: list[dict[str, Any]],
                 sig: dict[str, Any], reduce_on: bool, call: int, ex_i: int) -> None:
    _closest, changes = retrace.explain(earlier, sig, reduce_on)
    retraces.append({
        "call": call, "example": ex_i + 1,
        "argument": ", ".join(c.path for c in changes),
        "change": "; ".join(f"{c.path}: {c.change}" for c in changes),
        "fix": changes[0].fix if changes else "",
        "changes": [dataclasses.asdict(c) for c in changes],
    })


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
        "status": "error", "reason": "verifier failed on this function: " + _first_line(
            "".join(tb)),
        "inputs": cand.inputs,
        "exception_text": "".join(traceback.format_exception(type(exc), exc,
                                                             exc.__traceback__))[-20000:],
    }
