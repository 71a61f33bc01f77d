"""Ctrl-C ends a command within a second, whatever it is doing, with no partial output.

On the command line the process is the command, and SIGINT ends it at once (:func:`end_now`):
worker processes killed, the temporaries of unfinished writes removed (an output being written is
abandoned, the previous file left as it was), ``Aborted.`` and exit status 130 (128 + SIGINT, as a
shell reports a process ended by Ctrl-C).  No ``KeyboardInterrupt`` is raised into the code that
runs: that code may be a callback from compiled code, which cannot pass an exception on (numba's
kernels call back into Python to box the arrays they return; an exception raised there becomes a
``SystemError`` or a crash, with a traceback), and unwinding may wait (a pool of worker processes
or threads finishes the tasks it was given before its ``with`` block ends).

A caller that runs commands in its own process gets ``KeyboardInterrupt`` instead, as by default,
and :func:`interrupted` turns it into ``Aborted.`` and ``SystemExit(130)``; there SIGINT also starts
a timer, and if the process still runs :data:`GRACE_S` seconds later, :func:`end_now` ends it.

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
#: Held while the process ends; a second Ctrl-C in the same thread, arriving meanwhile, ends it too.
_ENDING = threading.RLock()


@contextlib.contextmanager
def interruptible(*, whole_process: bool, grace: float = GRACE_S) -> Iterator[None]:
    """SIGINT (Ctrl-C) and SIGTERM (``kill``, a service stopping) end the command while the block
    runs.

    ``whole_process=True`` (the command is the whole process): either signal calls :func:`end_now`
    at once, from the main thread wherever it is, and raises nothing into the code that runs;
    SIGTERM silently, with status 128 + 15.  ``whole_process=False``: SIGINT raises
    ``KeyboardInterrupt`` (as by default) and, if the block has not ended ``grace`` seconds later (a
    pool waiting for its workers; an interrupt raised in a callback from C code, where it cannot
    propagate), :func:`end_now` ends the process; SIGTERM raises ``SystemExit(143)``, so that a file
    being written is abandoned as on any exception.  In a thread other than the main one, where
    signal handlers cannot be set, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    timers: list[threading.Timer] = []

    def on_sigint(signum: int, frame: object) -> None:
        if whole_process:
            end_now()
        timer = threading.Timer(grace, end_now)
        timer.daemon = True
        timer.start()
        timers.append(timer)
        raise KeyboardInterrupt

    def on_sigterm(signum: int, frame: object) -> None:
        if whole_process:
            end_now(128 + signum, message=b"")
        raise SystemExit(128 + signum)

    def unraisable(report: Any) -> None:
        if not isinstance(report.exc_value, KeyboardInterrupt):
            hook(report)

    # KeyboardInterrupt raised in a callback from C (numba's compiler, through ctypes) cannot
    # propagate: Python would print it as "Exception ignored"; the timer ends the process instead
    previous, hook = signal.signal(signal.SIGINT, on_sigint), sys.unraisablehook
    previous_term = signal.signal(signal.SIGTERM, on_sigterm)
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
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


def end_now(status: int = EXIT_STATUS, message: bytes = b"Aborted.\n") -> NoReturn:
    """Kill this process's worker processes, remove the temporaries of the writes still open
    (:func:`riskeval.io.atomic.open_temporaries`) and the semaphores of its process pools (which
    multiprocessing's resource tracker would otherwise warn of), write ``message`` (``Aborted.``)
    on stderr and exit with ``status`` (130) at once (``os._exit``: output still buffered is
    dropped, not written).

    It imports nothing (it may run in a signal handler, during an import): a module not imported
    yet has started no worker process and opened no write.  Each step goes on whatever the one
    before raised (a module interrupted while it was imported lacks its functions yet)."""
    with _ENDING:  # the timer and the main thread may both get here: one ends the process
        with contextlib.suppress(Exception):
            for child in sys.modules["multiprocessing"].active_children():
                with contextlib.suppress(OSError):
                    child.kill()
        with contextlib.suppress(Exception):
            for temp in sys.modules["riskeval.io.atomic"].open_temporaries():
                with contextlib.suppress(OSError):
                    os.unlink(temp)
        with contextlib.suppress(Exception):  # stderr may be mid-write in the interrupted code
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            if message:
                os.write(2, message)
        # what multiprocessing does at a normal exit (the pools' semaphores), in a thread of its
        # own, silenced: a lock the interrupted code still holds must not keep the process from
        # ending, nor a finalizer that fails add a word
        cleanup = threading.Thread(target=_run_finalizers, daemon=True)
        cleanup.start()
        cleanup.join(0.2)
        os._exit(status)


def _run_finalizers() -> None:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(Exception):
        sys.modules["multiprocessing.util"]._run_finalizers(0)
