"""numba's ``njit``/``prange``, imported once here so kernels share one configuration.

Kernels are compiled on first use and cached on disk (``cache=True``), so later runs do not compile.
The number of threads is numba's default (``NUMBA_NUM_THREADS``); riskeval never changes it.

A parallel kernel also gets a serial twin compiled from the same Python function
(:func:`serial_twin`): small inputs, such as one system against its baseline, run serially and do
not pay for waking the thread pool, which costs far more than the work on a loaded machine.  So
does every input in a process forked from one whose threads had started (:func:`threads_usable`).
"""

import os
import types
from collections.abc import Callable
from typing import Any

from numba import njit, prange

# Reassociation lets LLVM vectorise the reductions (sums in a different order, same value up to
# rounding); no assumption about NaN or inf is made, the inputs are validated finite anyway.
FAST = {"reassoc", "contract", "nsz"}

#: Below this many matrix cells a kernel runs on one thread.
SERIAL_CELLS = 1 << 16


#: Set in a child forked from a process that had started numba's threads.
_FORKED_AFTER_THREADS = [False]


def _threads_started() -> bool:
    """Whether numba's thread pool has started in this process (True where numba does not say)."""
    from numba.np.ufunc import parallel

    return bool(getattr(parallel, "_is_initialized", True))


def _after_fork_in_child() -> None:
    _FORKED_AFTER_THREADS[0] = _threads_started()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def threads_usable() -> bool:
    """Whether this process may run numba's parallel kernels: not in a child forked (``fork``
    start method of :mod:`multiprocessing`, the default on Linux before Python 3.14) from a process
    whose thread pool had started, where GNU OpenMP would terminate the child ("fork() called from
    a process already using GNU OpenMP").  Such a child runs the serial twins; a child started by
    ``spawn`` or ``forkserver`` is a fresh process and uses threads."""
    return not _FORKED_AFTER_THREADS[0]


def parallel_or_twin(kernel: Any, twin: Any, parallel: bool) -> Any:
    """``kernel`` where ``parallel`` is wanted and this process may use threads
    (:func:`threads_usable`), else its serial ``twin``: the one place that rule is applied."""
    return kernel if parallel and threads_usable() else twin


def serial_twin(kernel: Any) -> Callable[..., Any]:
    """The serial compilation of a ``parallel=True`` kernel (``prange`` runs as ``range``), with the
    kernel's own ``fastmath`` and ``error_model`` settings (numba's default error model checks each
    division for zero, which keeps loops with divisions from vectorising).

    The twin is a copy of the Python function under its own name, so that numba's on-disk cache
    keeps the two compilations apart.
    """
    f = kernel.py_func
    twin = types.FunctionType(
        f.__code__, f.__globals__, f"{f.__name__}_serial", f.__defaults__, f.__closure__
    )
    twin.__qualname__ = f"{f.__qualname__}_serial"
    twin.__module__ = f.__module__
    twin.__doc__ = f.__doc__
    options = kernel.targetoptions
    return njit(
        cache=True,
        fastmath=options.get("fastmath", False),
        error_model=options.get("error_model", "python"),
    )(twin)


__all__ = ["FAST", "SERIAL_CELLS", "njit", "parallel_or_twin", "prange", "serial_twin", "threads_usable"]
