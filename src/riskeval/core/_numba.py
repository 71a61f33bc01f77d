"""numba's ``njit``/``prange``, imported once here so kernels share one configuration.

Kernels are compiled on first use and cached on disk (``cache=True``), so later runs do not compile.
The number of threads is numba's own setting (``NUMBA_NUM_THREADS`` or ``numba.set_num_threads``);
riskeval never changes it.  Whether a kernel runs on threads or on one is decided by the size of its
input alone (:data:`SERIAL_CELLS`), never by the machine's load, so the same inputs give the same
numbers on any machine.

Processes: numba's default threading layer on Linux is GNU OpenMP, which terminates a child
*forked* from a process whose threads have started.  Start worker processes of your own with the
``spawn`` or ``forkserver`` method (``multiprocessing.get_context("spawn")``; ``forkserver`` is
Python's default on Linux from 3.14), or choose a fork-safe layer with
``NUMBA_THREADING_LAYER=forksafe`` (numba's ``workqueue``, or ``tbb`` where installed).
"""

import types
from collections.abc import Callable
from typing import Any

from numba import njit, prange

# Reassociation lets LLVM vectorise the reductions (sums in a different order, same value up to
# rounding); no assumption about NaN or inf is made, the inputs are validated finite anyway.
FAST = {"reassoc", "contract", "nsz"}

#: Below this many matrix cells a kernel runs on one thread: waking the thread pool costs more
#: than the work (``benchmarks/bench_risk_table.py`` measures both compilations).
SERIAL_CELLS = 1 << 16


def serial_twin(kernel: Any) -> Callable[..., Any]:
    """The serial compilation of a ``parallel=True`` kernel (``prange`` runs as ``range``), with the
    kernel's own ``fastmath`` and ``error_model`` settings.

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


def by_size(kernel: Any, work: int, threshold: int = SERIAL_CELLS) -> Any:
    """``kernel`` for ``work`` ≥ ``threshold`` (cells, or whatever unit the caller counts), else
    its serial compilation (made once, on first use, and cached on disk like the kernel)."""
    if work >= threshold:
        return kernel
    twin = _TWINS.get(kernel)
    if twin is None:
        twin = _TWINS[kernel] = serial_twin(kernel)
    return twin


_TWINS: dict[Any, Any] = {}


__all__ = ["FAST", "SERIAL_CELLS", "by_size", "njit", "prange", "serial_twin"]
