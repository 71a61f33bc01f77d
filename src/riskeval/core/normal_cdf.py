"""The standard normal distribution function Φ of the compiled kernels (GeoRisk in the bootstrap,
T-SARO/T-FARO and GeoRisk in the risk-sensitive LambdaMART gradients), in arithmetic that
vectorises: numba calls the C library's ``erfc`` one value at a time.

``Φ(y) = erfc(x)/2`` with ``x = −y/√2``, and ``erfc(−x) = 2 − erfc(x)``.  For 0 ≤ x ≤ 28 (erfc is
below the smallest double beyond), ``erfc(x) = exp(−x²)·g(t)/(1 + 2x)``, where
g(t) = (1 + 2x)·exp(x²)·erfc(x) with t = (x − 3)/(x + 3) is a polynomial of degree 26 in t
(Shepherd & Laframboise, Math. Comp. 36(153), 1981: a Chebyshev series in this t, written in powers
of t by ``tools/make_erfc_polynomial.py`` at 60 digits).  ``exp(−x²)`` loses nothing to the
rounding of x²: Veltkamp's split x = x_h + x_l with x_h of 26 bits makes x_h² = m + ½ + f exact
(m an integer, |f| ≤ ½), and ``exp(−x²) = e^(−m−½)·e^(−f)·e^(−x_l(x + x_h))`` from a table of
e^(−m−½), the Taylor series of e^(−f) and four terms of the last, tiny, factor.  Polynomials are
evaluated as four interleaved Horner chains in powers of four.
"""

from __future__ import annotations

import math

import numpy as np

from riskeval.core._numba import njit

# g(t) = Σ _G[j]·t^j (tools/make_erfc_polynomial.py).
_G = (
    1.2530080582697296,
    -0.1356211061245812,
    -0.04756229435345109,
    0.12964515870276475,
    -0.11927366341528023,
    0.06830802734384515,
    -0.023770514919506852,
    0.0025293918180474668,
    0.0018886903716907627,
    -0.0007798322884823084,
    -0.00010515990108729849,
    0.0001250994355712812,
    4.949988662264347e-06,
    -2.0100843094844725e-05,
    -7.33143259743597e-07,
    3.473024167841533e-06,
    3.603910925712771e-07,
    -6.175617678992323e-07,
    -1.4683175494120584e-07,
    1.0277997488271058e-07,
    4.6950946691614734e-08,
    -1.3906145791730994e-08,
    -1.1734464137789657e-08,
    1.2019719440135793e-09,
    2.0626322959832455e-09,
    -3.451497487664328e-11,
    -1.881936630944858e-10,
)
#: _G as four chains: _G4[j, r] is the coefficient of t^(4j + r).
_G4 = np.array(_G + (0.0,) * (-len(_G) % 4)).reshape(-1, 4)
#: Beyond this |x| (|y| beyond 39.6) erfc(x) is below the smallest double.
_X_MAX = 28.0
#: e^(−m−½) for every integer part m of x² up to _X_MAX² (0 below the smallest subnormal).
_EXP_HALVES = np.array([math.exp(-(m + 0.5)) for m in range(int(_X_MAX * _X_MAX) + 1)])
#: 1/j! (j < 16) as four chains, the Taylor series of e^(−f) for |f| ≤ ½ (the first term left
#: out is below 2⁻⁵⁹); _EXP4[j, r] is the coefficient of (−f)^(4j + r).
_EXP4 = np.array([1.0 / math.factorial(j) for j in range(16)]).reshape(-1, 4)
#: Veltkamp's splitter 2²⁷ + 1: x·S − (x·S − x) keeps the upper 26 bits of x.
_SPLIT = 134217729.0
_SQRT1_2 = math.sqrt(0.5)


@njit(inline="always")
def _chains(C4, z):
    """Σ_j C4[j, r]·z^(4j + r) over the rows of C4, by four Horner chains in z⁴."""
    z2 = z * z
    z4 = z2 * z2
    h0 = h1 = h2 = h3 = 0.0
    for j in range(C4.shape[0] - 1, -1, -1):
        h0 = h0 * z4 + C4[j, 0]
        h1 = h1 * z4 + C4[j, 1]
        h2 = h2 * z4 + C4[j, 2]
        h3 = h3 * z4 + C4[j, 3]
    return (h0 + z * h1) + z2 * (h2 + z * h3)


@njit(inline="always")
def erfc_nonnegative(x):
    """erfc(x) for 0 ≤ x ≤ 28, as the module describes."""
    c = x * _SPLIT
    xh = c - (c - x)
    h2 = xh * xh  # exact: xh has 26 bits
    m = math.floor(h2)
    f = h2 - m - 0.5  # exact, in [−½, ½)
    d = (x - xh) * (x + xh)  # x² − xh², below 2⁻²⁴x²
    e_d = 1.0 - d * (1.0 - d * (0.5 - d * (1.0 / 6.0)))
    t = (x - 3.0) / (x + 3.0)
    return _EXP_HALVES[m] * _chains(_EXP4, -f) * e_d * _chains(_G4, t) / (1.0 + 2.0 * x)


@njit(inline="always")
def ndtr(y):
    """Φ(y), the standard normal distribution function; NaN for NaN."""
    x = -y * _SQRT1_2
    ax = min(abs(x), _X_MAX) if x == x else 0.0
    e = erfc_nonnegative(ax)
    phi = 0.5 * e if x >= 0.0 else 1.0 - 0.5 * e
    return phi if y == y else np.nan
