"""The standard normal distribution function Φ for compiled code: Φ(y) = erfc(−y/√2)/2, from the C
library's ``erfc``.  Imported by :mod:`riskeval.inference._kernels` only."""

import math

from riskeval.core._numba import njit

_SQRT_HALF = math.sqrt(0.5)


@njit(cache=True)
def ndtr(y):
    """Φ(y) = erfc(−y/√2)/2."""
    return 0.5 * math.erfc(-y * _SQRT_HALF)
