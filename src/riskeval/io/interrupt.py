"""Ctrl-C ends a command within a second, whatever it is doing, with no partial output.

Python turns SIGINT into ``KeyboardInterrupt`` in the main thread, and the command unwinds: an
output being written is abandoned (:func:`riskeval.io.atomic.atomic_open` removes its temporary
file), nothing more is printed.  Unwinding may wait, though: a pool of worker processes or threads
finishes the tasks it was given before its ``with`` block ends, and the interpreter's own shutdown
joins threads and frees memory.  While :func:`interruptible` is active, SIGINT also starts a timer;
if the process still runs :data:`GRACE_S` seconds later, :func:`end_now` ends it: worker processes
killed, the temporaries of unfinished writes removed, ``Aborted.`` and exit status 130 (128 +
SIGINT, as a shell reports a process ended by Ctrl-C).

A terminal sends Ctrl-C's SIGINT to every process of the command, worker processes included: a
worker interrupted while it starts (importing modules) would print a traceback of its own.  Worker
processes are therefore started under :func:`sigint_deferred` (they begin with SIGINT blocked) and
call :func:`quiet_on_sigint` once started: SIGINT then ends them silently, and the command alone
says ``Aborted.``.
"""

from __future__ import annotations

import contextlib
import io
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


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """SIGINT held back for the block and handled at its end if it came meanwhile (in the main
    thread): the block is not cut short half-way (a worker process started, but not yet told what to
    run), and processes started in it begin with SIGINT blocked (a blocked signal is inherited)
    until they call :func:`quiet_on_sigint`.  In another thread, or without ``pthread_sigmask``
    (not POSIX), the block runs as it is."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    came: list[int] = []
    handler = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))  # other threads
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # this thread, and its children
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, handler)
    if came:
        if callable(handler):
            handler(signal.SIGINT, None)
        elif handler == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


def quiet_on_sigint() -> None:
    """In a worker process started under :func:`sigint_deferred`: from now on SIGINT ends the
    process at once, without a traceback or a message (the parent reports the interrupt), and a
    SIGINT that came while the process started ends it now."""
    signal.signal(signal.SIGINT, _exit_quietly)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _exit_quietly(signum: int, frame: object) -> NoReturn:
    os._exit(EXIT_STATUS)


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
    (:func:`riskeval.io.atomic.open_temporaries`) and the semaphores of its process pools (which
    multiprocessing's resource tracker would otherwise warn of), write ``Aborted.`` on stderr and
    exit with status 130 at once (``os._exit``: output still buffered is dropped, not written)."""
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
        # what multiprocessing does at a normal exit (the pools' semaphores), in a thread of its
        # own, silenced: a lock the interrupted code still holds must not keep the process from
        # ending, nor a finalizer that fails add a word
        cleanup = threading.Thread(target=_run_finalizers, daemon=True)
        cleanup.start()
        cleanup.join(0.2)
        os._exit(EXIT_STATUS)


def _run_finalizers() -> None:
    import multiprocessing.util

    with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(Exception):
        multiprocessing.util._run_finalizers(0)  # type: ignore[attr-defined]
