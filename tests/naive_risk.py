"""A naive reference of every registered risk measure, written from the papers' equations in plain
Python and numpy, one system at a time, with no code of riskeval: what the contract tests compare
every consumer with.

Each function takes the score matrix ``X`` (r systems × c topics), the settings' baseline vector
``b`` (c,) and one α, and returns the measure of every system (r,), NaN where undefined.

TRisk is undefined (NaN) when the spread of the risk-reward scores is rounding noise: a difference
s_j − b_j carries a rounding error up to eps·max(|s_j|, |b_j|) and x_j up to (1 + α) times that, so
a standard deviation s_x ≤ 1024·eps·(1 + α)·max_j max(|s_j|, |b_j|) counts as 0.

URisk and TRisk are computed in exact integer arithmetic from the float64 differences δ_j (each a
binary fraction) and rounded once: the reference has no rounding error of its own, so a consumer's difference from it is
the consumer's (on a near-constant input, forming x_j = (1+α)·δ_j in floating point before centring
alone moves TRisk by 1e-9 relative).  The chi-square measures, which need square roots, are plain
float64, cell by cell.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from scipy.stats import norm

EPS = float(np.finfo(np.float64).eps)


def risk_reward(s: np.ndarray, b: np.ndarray, alpha: float) -> tuple[list[int], int]:
    """x_j(α) = δ_j if δ_j ≥ 0 else (1+α)·δ_j, δ_j = s_j − b_j (Dinçer, Macdonald & Ounis,
    SIGIR 2014, eq. 3), exactly: δ_j is the difference of the scores in float64, as every consumer
    forms it, and x_j the exact rational from there on, as integers over one denominator D."""
    ratios = [d.as_integer_ratio() for d in (s - b).tolist()]
    den = max(q for _, q in ratios)  # a power of 2, a multiple of every other
    k = Fraction(1) + Fraction(alpha)
    x = [n * (den // q) * (k.denominator if n >= 0 else k.numerator) for n, q in ratios]
    return x, den * k.denominator


def urisk(X: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """URisk(α) = (1/c) Σ_j x_j(α) (SIGIR 2014, eq. 4)."""
    out = []
    for s in X:
        x, D = risk_reward(s, b, alpha)
        out.append(sum(x) / (len(x) * D))  # an int over an int: rounded once
    return np.array(out)


def trisk(X: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """TRisk(α) = URisk(α)/(s_x/√c), s_x the sample standard deviation (ddof = 1) of x(α)
    (SIGIR 2014, eq. 7–12); NaN where s_x is rounding noise (the module's rule)."""
    out = []
    for s in X:
        x, D = risk_reward(s, b, alpha)
        c, s1, s2 = len(x), sum(x), sum(v * v for v in x)
        m2 = c * s2 - s1 * s1  # c(c − 1)·D²·s_x², exactly
        sd = math.sqrt(m2 / (c * (c - 1) * D * D))
        noise = 1024 * EPS * (1.0 + alpha) * max(np.abs(s).max(), np.abs(b).max())
        # TRisk² = c·x̄²/s_x² = (c − 1)·s1²/m2, rounded once
        out.append(np.nan if sd <= noise else math.copysign(math.sqrt((c - 1) * s1 * s1 / m2), s1))
    return np.array(out)


def tstar_risk(X: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """T*Risk(α): TRisk against the per-topic mean of every system, whatever ``b`` (Dinçer, Ounis
    & Macdonald, ECIR 2014, eq. 2 and §3)."""
    return trisk(X, X.mean(axis=0), alpha)


def residuals(X: np.ndarray) -> np.ndarray:
    """z_ij = (x_ij − e_ij)/√e_ij, e_ij = S_i T_j / N, 0 where e_ij = 0 (Dinçer, Macdonald & Ounis,
    SIGIR 2016, eq. 4–5)."""
    S, T, N = X.sum(axis=1), X.sum(axis=0), X.sum()
    z = np.zeros_like(X)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            e = S[i] * T[j] / N if N > 0 else 0.0
            z[i, j] = (X[i, j] - e) / np.sqrt(e) if e > 0 else 0.0
    return z


def zrisk(X: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """ZRisk_i(α) = Σ_{z_ij>0} z_ij + (1+α) Σ_{z_ij<0} z_ij over the whole matrix (SIGIR 2016,
    eq. 6); ``b`` is not used: every system is a baseline."""
    z = residuals(X)
    return np.array([row[row > 0].sum() + (1.0 + alpha) * row[row < 0].sum() for row in z])


def georisk(X: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """GeoRisk_i(α) = √(S_i/c · Φ(ZRisk_i(α)/c)) (SIGIR 2016, eq. 7–8)."""
    c = X.shape[1]
    return np.sqrt(X.sum(axis=1) / c * norm.cdf(zrisk(X, b, alpha) / c))


def loss_urisk(X: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """(1+α)·Σ_j min(δ_j, 0)/c: URisk (SIGIR 2014, eq. 4) without its rewards, the measure the
    contract tests declare as a user's own."""
    out = []
    for s in X:
        x, D = risk_reward(s, b, alpha)
        out.append(sum(v for v in x if v < 0) / (len(x) * D))
    return np.array(out)


#: The naive function of each registered measure, by its name.
NAIVE: dict[str, Callable[[np.ndarray, np.ndarray, float], np.ndarray]] = {
    "URisk": urisk,
    "TRisk": trisk,
    "TStarRisk": tstar_risk,
    "ZRisk": zrisk,
    "GeoRisk": georisk,
    "LossURisk": loss_urisk,
}
