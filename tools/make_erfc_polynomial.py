"""Print the polynomial of riskeval.core.normal_cdf (the table ``_G``).

The function approximated is g(t) = (1 + 2x)·exp(x²)·erfc(x) with x = 3(1 + t)/(1 − t), t in [−1, 1)
(Shepherd & Laframboise, "Chebyshev approximation of (1 + 2x)exp(x²)erfc x in 0 ≤ x < ∞", Math.
Comp. 36(153), 1981).  Its Chebyshev coefficients are computed at 60 significant digits with
mpmath, by the discrete cosine sums over 256 Chebyshev nodes, and kept while they exceed 2⁻⁶⁰ (g is
about 1); the truncated series is then written in powers of t, still at 60 digits, and each
coefficient rounded to double once.  The powers' coefficients sum, in absolute value, to 1.8: the
power form loses nothing to cancellation on [−1, 1].

    pip install mpmath
    python tools/make_erfc_polynomial.py
"""

from __future__ import annotations

import mpmath as mp

#: The scale of the variable change x = K(1 + t)/(1 − t).
K = 3
#: Chebyshev nodes of the cosine sums.
NODES = 256


def chebyshev(k: int = K, nodes: int = NODES, cutoff: float = 2.0**-60) -> list[mp.mpf]:
    """c₀/2, c₁, c₂, … of g(t) = Σ' c_n T_n(t), up to the last above ``cutoff``."""
    mp.mp.dps = 60

    def g(t: mp.mpf) -> mp.mpf:
        x = k * (1 + t) / (1 - t)
        return (1 + 2 * x) * mp.exp(x * x) * mp.erfc(x)

    theta = [mp.pi * (j + mp.mpf(1) / 2) / nodes for j in range(nodes)]
    values = [g(mp.cos(a)) for a in theta]
    c = [
        2 * mp.fsum(v * mp.cos(n * a) for v, a in zip(values, theta, strict=True)) / nodes for n in range(48)
    ]
    c[0] /= 2
    last = max(n for n, v in enumerate(c) if abs(v) > cutoff)
    return c[: last + 1]


def powers(c: list[mp.mpf]) -> list[float]:
    """The coefficients of t⁰, t¹, … of Σ c_n T_n(t), rounded to double."""
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]  # T_n in powers of t: T_n = 2t·T_(n−1) − T_(n−2)
    while len(T) < len(c):
        new = [mp.mpf(0)] + [2 * a for a in T[-1]]
        for i, a in enumerate(T[-2]):
            new[i] -= a
        T.append(new)
    a = [mp.mpf(0)] * len(c)
    for cn, Tn in zip(c, T, strict=False):
        for i, v in enumerate(Tn):
            a[i] += cn * v
    return [float(v) for v in a]


if __name__ == "__main__":
    print("_G = (")
    for v in powers(chebyshev()):
        print(f"    {v!r},")
    print(")")
