"""numba's ``njit``/``prange``, imported once here so kernels share one configuration.

Kernels are compiled on first use and cached on disk (``cache=True``), so later runs do not compile.
The number of threads is numba's default (``NUMBA_NUM_THREADS``); riskeval never changes it.
"""

from numba import njit, prange

# Reassociation lets LLVM vectorise the reductions (sums in a different order, same value up to
# rounding); no assumption about NaN or inf is made, the inputs are validated finite anyway.
FAST = {"reassoc", "contract", "nsz"}

__all__ = ["FAST", "njit", "prange"]
