"""Child process: import one target and verify its functions (``python -m tflint.verify._child
SPEC.json``).

User code runs here, never in the ``tflint verify`` process, so that a hang, a crash, an
``os._exit`` or a memory blow-up costs one target and not the run. Results are appended as
JSON lines to the events file named in the spec as soon as each function is done; the parent
reads them while the child runs (progress) and after it dies (partial results, and which
function was running when it died).

Spec keys: ``target``, ``function`` (or null), ``mode`` ("full" or "eager-data"), ``calls``,
``devices`` (list or null), ``logical_cpus`` (int or null), ``seed``, ``memory_limit_mb``,
``exclude`` (names already handled), ``events`` (path).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any


def _emit(path: str, event: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(event) + "\n")
        f.flush()


def _limit_memory(mb: int | None) -> None:
    """Cap the address space so runaway user code gets a MemoryError, not the OOM killer."""
    if not mb:
        return
    try:
        import resource

        limit = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as f:
        spec = json.load(f)
    events = spec["events"]
    sys.dont_write_bytecode = True
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    _limit_memory(spec.get("memory_limit_mb"))
    try:
        import tensorflow as tf

        n = spec.get("logical_cpus")
        if n and n > 1:
            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(
                cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(n)])
        if spec.get("mode") == "eager-data":
            tf.data.experimental.enable_debug_mode()
        # the same inputs and seeds must give the same values in every mode
        tf.config.experimental.enable_op_determinism()
        # GPUs run float32 matmuls and convolutions in TF32 by default (10-bit mantissa):
        # devices are compared at float32 precision, so it is off
        tf.config.experimental.enable_tensor_float_32_execution(False)
        from tflint.verify import discover, replay
    except BaseException as e:  # TensorFlow missing or broken: the parent reports it
        _emit(events, {"event": "fatal", "stage": "tensorflow", "error": _fmt(e)})
        return 3
    replay.seed_all(int(spec.get("seed", 0)))
    try:
        module = discover.import_target(spec["target"])
        candidates = discover.discover(module, spec.get("function"))
    except BaseException as e:  # user code failing at import is a result, not a crash
        _emit(events, {"event": "fatal", "stage": "import", "error": _fmt(e),
                       "traceback": traceback.format_exc()[-4000:]})
        return 4
    all_devices = [d.name for d in tf.config.list_logical_devices()]
    try:
        devices = select_devices(all_devices, spec.get("devices"))
    except ValueError as e:
        _emit(events, {"event": "fatal", "stage": "devices", "error": str(e)})
        return 2
    exclude = set(spec.get("exclude") or ())
    _emit(events, {"event": "discovered", "functions": [c.name for c in candidates],
                   "uses_tf_data": any(c.uses_tf_data for c in candidates),
                   "devices": devices})
    modes = tuple(m for m in replay.MODES if m.startswith("eager")) \
        if spec.get("mode") == "eager-data" else replay.MODES
    for cand in candidates:
        if cand.name in exclude:
            continue
        _emit(events, {"event": "start", "name": cand.name})
        if cand.skip_reason:
            rec: dict[str, Any] = {
                "name": cand.name, "file": cand.file, "line": cand.line,
                "end_line": cand.end_line, "status": "skipped", "reason": cand.skip_reason,
            }
        else:
            try:
                rec = replay.observe(cand, calls=int(spec.get("calls", 3)), devices=devices,
                                     seed=int(spec.get("seed", 0)), modes=modes)
            except Exception as e:
                rec = replay.error_record(cand, e)
        _emit(events, {"event": "result", "record": rec})
    _emit(events, {"event": "done"})
    sys.stdout.flush()
    sys.stderr.flush()
    # skip interpreter teardown: TensorFlow's can take seconds and user atexit hooks can hang
    os._exit(0)


def select_devices(available: list[str], wanted: list[str] | None) -> list[str]:
    """The logical devices to run on; a requested device that does not exist is an error
    (silently running on another device would report a check that was never made)."""
    if not wanted:
        return list(available)
    out = []
    for w in wanted:
        found = [d for d in available if d == w or d.endswith("/device:" + w.upper())
                 or d.upper().endswith(w.upper())]
        if not found:
            raise ValueError(f"no device {w!r} on this machine (it has: "
                             f"{', '.join(d.split('device:')[-1] for d in available)})")
        out += [d for d in found if d not in out]
    return out


def _fmt(e: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-2000:]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
