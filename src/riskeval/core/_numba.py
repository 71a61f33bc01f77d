"""numba's ``njit``/``prange``, imported once here so kernels share one configuration.

Kernels are compiled on first use and cached on disk (``cache=True``), so later runs do not compile.
The number of threads is numba's default (``NUMBA_NUM_THREADS``); riskeval never changes it.
"""

from numba import njit, prange

__all__ = ["njit", "prange"]
