"""How the command ends when the user presses Ctrl-C, and how it prints file names.

Ctrl-C ends ``tflint check`` with one line and exit status 130 (128 + SIGINT, what a
shell reports for a command it interrupted), not a traceback from every process: worker
processes ignore SIGINT and are shut down by the main process.

File names are printed as the operating system gives them: a name that is not valid in
the file system's encoding reaches Python with surrogate escapes, and is written back
out as the same bytes instead of failing with ``UnicodeEncodeError``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, Callable, TypeVar

T = TypeVar("T")

INTERRUPTED = 130


def exit_on_interrupt(func: Callable[..., int], *args: Any, leave_now: bool = False) -> int:
    """``func(*args)``; on Ctrl-C, one line and 130. With ``leave_now`` (the command
    line, not a caller in the same process) the process ends at once: an analysis
    thread busy in libcst's native parser cannot be stopped, and the interpreter aborts
    when it shuts down around it."""
    try:
        return func(*args)
    except KeyboardInterrupt:
        try:
            sys.stderr.write("tflint: interrupted\n")
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        if leave_now or any(t.name == "tflint-big-stack" and t.is_alive() for t in threading.enumerate()):
            os._exit(INTERRUPTED)
        return INTERRUPTED


def ignore_interrupts() -> None:
    """Process-pool initializer: Ctrl-C goes to the whole process group; the main
    process handles it, the workers must not each print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def names_as_given(*streams: Any) -> None:
    """Let text streams write surrogate-escaped file names as their original bytes."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="surrogateescape")
            except (ValueError, OSError):  # a stream that cannot change (already used)
                pass
