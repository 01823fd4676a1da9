"""Does the static check stay linear in the size of one file?

    python benchmarks/scaling.py [--series functions,branches,calls] [--max-seconds S] [--repeat N]

Three generated series, each a single file linted in this process with
``tflint.engine.lint_source`` (every default rule), time best of ``--repeat`` runs:

- ``functions``: 10^2, 10^3, 10^4 ``@tf.function`` functions, each with a tensor ``if``
  (the AutoGraph-off judgement), a Python loop, and a call to a plain helper (the
  traced-by-call analysis);
- ``branches``: one traced function whose tensor ``if`` has 10, 100, 1,000 ``elif``
  branches (TFL504 judges every branch);
- ``calls``: 10^2, 10^3, 10^4 calls of a ``tf.function`` with a loop counter, in one
  Python loop body (TFL401 judges every call site against its loops).

For each step it prints the CPU time of the process (``time.process_time``: the lint
runs in a helper thread, which it counts; on a shared machine it moves far less than
wall time) and the wall time, and the ratio of CPU times to the previous step (x10 in
size). A linear analysis gives a ratio near 10; the goal is <= 12. A step that would take longer
than ``--max-seconds`` (judged from the previous step, as if quadratic) is not run.
Exits 1 when a ratio is over the goal.
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
import time
from typing import Callable

GOAL = 12.0


def functions_source(n: int) -> str:
    parts = ["import tensorflow as tf\n\n"]
    for i in range(n):
        parts.append(f'''
def helper_{i}(t):
    return t * {i + 1}.0


@tf.function
def step_{i}(x, scale=2.0):
    total = tf.reduce_sum(x)
    if total > 0:
        total = total * scale
    for k in range(3):
        total += k
    return helper_{i}(total)
''')
    return "".join(parts)


def branches_source(n: int) -> str:
    lines = ["import tensorflow as tf\n\n", "@tf.function\n", "def pick(x):\n",
             "    s = tf.reduce_sum(x)\n", "    if s > 0:\n", "        y = s\n"]
    for i in range(1, n + 1):
        lines.append(f"    elif s > {i}:\n        y = s * {i}\n")
    lines.append("    else:\n        y = -s\n    return y\n")
    return "".join(lines)


def calls_source(n: int) -> str:
    lines = ["import tensorflow as tf\n\n", "@tf.function\n", "def train_step(x, step):\n",
             "    return x * tf.cast(step, tf.float32)\n\n\n", "def run(data):\n",
             "    x = tf.constant(1.0)\n", "    for epoch in range(100):\n"]
    for i in range(n):
        lines.append("        train_step(x, epoch)\n" if i % 2 else f"        train_step(x, {i})\n")
    return "".join(lines)


SERIES: dict[str, tuple[Callable[[int], str], tuple[int, ...]]] = {
    "functions": (functions_source, (100, 1_000, 10_000)),
    "branches": (branches_source, (10, 100, 1_000)),
    "calls": (calls_source, (100, 1_000, 10_000)),
}


def time_lint(source: str, repeat: int) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, findings), best of ``repeat``."""
    from tflint.config import Settings
    from tflint.engine import lint_source

    settings = Settings(max_seconds_per_file=0)  # the point is to time it, however long
    best, best_wall = float("inf"), float("inf")
    found = 0
    for _ in range(repeat):
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        diags = lint_source(source, "scaling.py", settings)
        best = min(best, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - t0)
        found = len(diags)
        bad = [d for d in diags if d.code in ("TFL001", "TFL002")]
        if bad:
            raise SystemExit(f"engine problem on the generated file: {bad[0].code} "
                             f"{bad[0].message}")
    return best, best_wall, found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--series", default=",".join(SERIES))
    ap.add_argument("--max-seconds", type=float, default=600.0)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"python {platform.python_version()}, {platform.machine()}, goal: ratio <= {GOAL:g} per x10")
    time_lint(functions_source(2), 1)  # imports and first-use caches out of the figures
    failed = False
    for name in args.series.split(","):
        make, sizes = SERIES[name]
        prev: float | None = None
        for n in sizes:
            source = make(n)
            if prev is not None and prev * 100 > args.max_seconds:
                print(f"{name:>10} {n:>7,}: skipped "
                      f"(a quadratic step would pass {args.max_seconds:g} s)")
                failed = True
                break
            seconds, wall, found = time_lint(source, args.repeat)
            ratio = f"x{seconds / prev:5.1f}" if prev else "      "
            over = prev is not None and seconds / prev > GOAL
            failed |= over
            print(f"{name:>10} {n:>7,}: {seconds:8.3f} s CPU {ratio}{'  OVER GOAL' if over else ''}"
                  f"  ({wall:.3f} s wall, {source.count(chr(10)):,} lines, {found:,} findings)",
                  flush=True)
            prev = seconds
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
