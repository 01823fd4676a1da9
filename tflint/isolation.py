"""Keep a crash to the file that caused it.

A worker process that dies (the kernel's OOM killer, a crash in native parser code)
breaks the whole process pool, and every file not yet reported would be lost with it.
:func:`rerun_isolated` lints those files again, at most ``workers`` at a time, each
batch in a fresh pool; when a pool breaks again, the files that were in flight are
linted once more one per process, so the one that kills its process is the only one
reported as crashed.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence, TypeVar

from tflint.interrupt import ignore_interrupts

R = TypeVar("R")
Item = TypeVar("Item")

CRASHED = ("internal error: the process linting this file crashed (out of memory, or a crash in "
           "native code); the other files were linted")


def rerun_isolated(items: Sequence[Item], work: Callable[[Item], R], workers: int,
                   crashed: Callable[[Item], R]) -> list[R]:
    """``[work(item) for item in items]`` in worker processes, in order; an item whose
    process dies gives ``crashed(item)`` and costs no other item its result."""
    results: dict[int, R] = {}
    suspects: list[int] = []
    todo = list(range(len(items)))
    while todo:
        todo = _window(items, todo, work, max(1, workers), results, suspects)
    for i in suspects:
        results[i] = _alone(items[i], work, crashed)
    return [results[i] for i in range(len(items))]


def _window(items: Sequence[Item], todo: list[int], work: Callable[[Item], R], workers: int,
            results: dict[int, R], suspects: list[int]) -> list[int]:
    """Run ``todo`` with at most ``workers`` in flight; on a broken pool, the in-flight
    items become suspects and the rest is returned, to go on in a fresh pool."""
    pending = list(todo)
    with ProcessPoolExecutor(max_workers=workers, initializer=ignore_interrupts) as pool:
        running: dict[Future, int] = {}
        while pending or running:
            while pending and len(running) < workers:
                i = pending.pop(0)
                running[pool.submit(work, items[i])] = i
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                i = running.pop(f)
                try:
                    results[i] = f.result()
                except BrokenProcessPool:
                    suspects.append(i)
                    suspects.extend(running.values())
                    return pending
    return []


def _alone(item: Item, work: Callable[[Item], R], crashed: Callable[[Item], R]) -> R:
    try:
        with ProcessPoolExecutor(max_workers=1, initializer=ignore_interrupts) as pool:
            return pool.submit(work, item).result()
    except BrokenProcessPool:
        return crashed(item)
