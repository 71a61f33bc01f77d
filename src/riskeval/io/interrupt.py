"""Ctrl-C ends a command within a second, whatever it is doing, with no partial output.

Python turns SIGINT into ``KeyboardInterrupt`` in the main thread, and the command unwinds: an
output being written is abandoned (:func:`riskeval.io.atomic.atomic_open` removes its temporary
file), nothing more is printed.  Unwinding may wait, though: a pool of worker processes or threads
finishes the tasks it was given before its ``with`` block ends, and the interpreter's own shutdown
joins threads and frees memory.  While :func:`interruptible` is active, SIGINT also starts a timer;
if the process still runs :data:`GRACE_S` seconds later, :func:`end_now` ends it: worker processes
killed, the temporaries of unfinished writes removed, ``Aborted.`` and exit status 130 (128 +
SIGINT, as a shell reports a process ended by Ctrl-C).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

#: Seconds an interrupted command may take to unwind before it is ended.
GRACE_S = 0.5
#: The exit status of an interrupted command: 128 + SIGINT.
EXIT_STATUS = 128 + signal.SIGINT
_ENDING = threading.Lock()


@contextlib.contextmanager
def interruptible(grace: float = GRACE_S) -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt`` (as by default) and, if the block has not ended ``grace``
    seconds later (a pool waiting for its workers; an interrupt raised in a callback from C code,
    where it cannot propagate), :func:`end_now` ends the process.  In a thread other than the main one, where
    signal handlers cannot be set, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    timers: list[threading.Timer] = []

    def on_sigint(signum: int, frame: object) -> None:
        timer = threading.Timer(grace, end_now)
        timer.daemon = True
        timer.start()
        timers.append(timer)
        raise KeyboardInterrupt

    def unraisable(report: Any) -> None:
        if not isinstance(report.exc_value, KeyboardInterrupt):
            hook(report)

    # KeyboardInterrupt raised in a callback from C (numba's compiler, through ctypes) cannot
    # propagate: Python would print it as "Exception ignored"; the timer ends the process instead
    previous, hook = signal.signal(signal.SIGINT, on_sigint), sys.unraisablehook
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = hook
        for timer in timers:  # the block unwound in time: the caller ends the command
            timer.cancel()


def interrupted(*, whole_process: bool) -> NoReturn:
    """End a command that ``KeyboardInterrupt`` unwound: :func:`end_now` when the command is the
    whole process (no wait for pools' threads or the interpreter's shutdown), else ``Aborted.`` and
    ``SystemExit(130)`` (a caller that runs commands in its own process)."""
    if whole_process:
        end_now()
    sys.stderr.write("Aborted.\n")
    raise SystemExit(EXIT_STATUS)


def end_now() -> NoReturn:
    """Kill this process's worker processes, remove the temporaries of the writes still open
    (:func:`riskeval.io.atomic.open_temporaries`), write ``Aborted.`` on stderr and exit with
    status 130 at once (``os._exit``: output still buffered is dropped, not written)."""
    import multiprocessing

    from riskeval.io import atomic

    with _ENDING:  # the timer and the unwound command may both get here: one ends the process
        for child in multiprocessing.active_children():
            with contextlib.suppress(OSError):
                child.kill()
        for temp in atomic.open_temporaries():
            with contextlib.suppress(OSError):
                os.unlink(temp)
        with contextlib.suppress(Exception):
            sys.stderr.flush()
            os.write(2, b"Aborted.\n")
        os._exit(EXIT_STATUS)
