"""numba's ``njit``/``prange``, imported once here so kernels share one configuration.

Kernels are compiled on first use and cached on disk (``cache=True``), so later runs do not compile.
The number of threads is numba's default (``NUMBA_NUM_THREADS``); riskeval never changes it.

A parallel kernel also gets a serial twin compiled from the same Python function
(:func:`serial_twin`): small inputs, such as one system against its baseline, run serially and do
not pay for waking the thread pool, which costs far more than the work on a loaded machine.
"""

import types
from collections.abc import Callable
from typing import Any

from numba import njit, prange

# Reassociation lets LLVM vectorise the reductions (sums in a different order, same value up to
# rounding); no assumption about NaN or inf is made, the inputs are validated finite anyway.
FAST = {"reassoc", "contract", "nsz"}

#: Below this many matrix cells a kernel runs on one thread.
SERIAL_CELLS = 1 << 16


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


__all__ = ["FAST", "SERIAL_CELLS", "njit", "prange", "serial_twin"]
