"""Randomisation (sign-flip) test of URisk(α): Fisher's paired randomisation test at α = 0.

Under H0 the per-topic risk-reward scores x_j (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 3) are
symmetric about 0, so every sign vector ε ∈ {±1}^c is as likely as the observed one (Fisher 1935;
Pitman 1937).  The two-sided p-value is the share of sign vectors whose |mean(ε·x)| is at least the
observed |URisk|, the one-sided ones the share whose mean(ε·x) is at least ("greater") or at most
("less") URisk; at α = 0 this is the paired randomisation test that Smucker, Allan & Carterette
(CIKM 2007) recommend for IR.  Sign flips keep Σx², so the TRisk of the flipped scores is an
increasing function of their mean (:func:`flip_scale`): TRisk gives the same p-values, and the test
serves both.  ZRisk and GeoRisk compare a system with every other system, not with one baseline,
and have no sign-flip null: their test is the bootstrap
(:func:`riskeval.inference.bootstrap.bootstrap_difference`).

When 2^c ≤ ``n_resamples`` every sign vector is enumerated and the p-value is exact; otherwise
``n_resamples`` random sign vectors give the Monte Carlo p-value ``(1 + count)/(1 + n_resamples)``.

One engine serves one system and a whole table: each "cell" (a system at one α) is a row of scores,
the sign vectors are shared by every cell, and the same resamples give the Westfall–Young max-T
adjustment of :func:`riskeval.inference.maxt.risk_permutation_table`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from riskeval.core._numba import njit
from riskeval.core.paired import effect_size_from, paired_sums
from riskeval.errors import RiskevalError
from riskeval.inference._common import (
    TOL,
    all_signs,
    check_n_resamples,
    mc_pvalue,
    on_risk_scores,
    random_signs,
    resolve_rng,
)
from riskeval.measures.baselines import as_pair
from riskeval.measures.declared import URisk, risk_measures
from riskeval.measures.results import TestResult
from riskeval.options import ALTERNATIVES, check_alpha, check_option


@dataclass(frozen=True, repr=False)
class PermutationResult(TestResult):
    """Randomisation test of URisk(α) of one system against a baseline.

    Attributes
    ----------
    statistic : float
        URisk(α), the mean per-topic risk-reward score (Dinçer, Macdonald & Ounis, SIGIR 2014,
        eq. 4); at α = 0 the mean difference.
    pvalue : float
        The share of sign vectors ε, the observed one included, with ``|mean(ε·x)| ≥ |URisk|``
        (two-sided), ``mean(ε·x) ≥ URisk`` ("greater") or ``mean(ε·x) ≤ URisk`` ("less").  Exact
        when ``exact``, else ``(1 + count)/(1 + n_resamples)``.
    n_resamples : int
        Sign vectors used: 2^c when ``exact``, else the Monte Carlo ``n_resamples``.
    exact : bool
        Whether every one of the 2^c sign vectors was enumerated.
    alpha : float
        The risk-aversion parameter α.
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis ("less": the system loses to the baseline, URisk < 0).
    effect_size : float
        Standardised URisk ``x̄ / s_x`` (s_x the sample standard deviation, ddof = 1), i.e. TRisk/√c;
        NaN when every x_j is the same.
    n_topics : int
        Number of topics c.
    seed : int
        Seed of the random sign vectors: ``rng=seed`` reproduces the result.
    """

    n_resamples: int
    exact: bool
    alpha: float
    alternative: str
    effect_size: float
    n_topics: int
    seed: int


class FlipCounts(NamedTuple):
    """Counts of the sign-flip engine, per cell: resamples at least as extreme as the observed cell
    (``hits``) and resamples whose maximum over all cells is (``hits_max``)."""

    hits: np.ndarray
    hits_max: np.ndarray
    n: int
    exact: bool

    def pvalues(self) -> tuple[np.ndarray, np.ndarray]:
        """Unadjusted and max-T adjusted p-values of every cell."""
        if self.exact:
            return self.hits / self.n, self.hits_max / self.n
        return mc_pvalue(self.hits, self.n), mc_pvalue(self.hits_max, self.n)


def flip_scale(sumsq: np.ndarray, c: int) -> np.ndarray:
    """``1/√(c Σx²)`` per cell (0 for an all-zero cell): ``|Σ ε x|`` times this is ``|m|/√q`` with
    ``m`` the mean and ``q`` the mean square, a number in [0, 1] that sign flips leave comparable.

    Sign flips keep ``q`` fixed, and Student's ``|T| = √(c−1)·u/√(1 − u²)`` is the same increasing
    function of ``u = |m|/√q`` for every cell with c topics, so ranking resamples by ``u`` within a
    cell, or taking the maximum of ``u`` over cells, gives the same p-values as the studentised
    statistic does (the single-step max-T of Westfall & Young, 1993).
    """
    return np.divide(1.0, np.sqrt(c * sumsq), out=np.zeros_like(sumsq), where=sumsq > 0)


@njit(cache=True)
def count_flips(PN, factors, scale, threshold, hits, top, sign):
    """Counts of one block of flipped sums ``PN`` (B × 2r: ``P = Σ ε δ⁺`` of every system, then
    ``N = Σ ε δ⁻``): for each cell (α, system i) the statistic ``u = |P_i + (1+α) N_i|·scale[α, i]``
    (``sign`` 0, two-sided), or the signed ``u = sign·(P_i + (1+α) N_i)·scale[α, i]`` (``sign``
    +1 for "greater", −1 for "less"), is compared with ``threshold[α, i]`` (hits counted into
    ``hits``, k × r), and the largest u of each sign vector over every cell is written to
    ``top[b]``.  One pass over contiguous systems, no temporary arrays (numpy's elementwise passes,
    one per α, take five times as long)."""
    B = PN.shape[0]
    r = PN.shape[1] // 2
    most = np.empty(r)  # each system's largest u over the α
    for b in range(B):
        P = PN[b, :r]
        N = PN[b, r:]
        most[:] = -np.inf
        for a in range(factors.size):
            f = factors[a]
            s = scale[a]
            t = threshold[a]
            h = hits[a]
            for i in range(r):
                v = P[i] + f * N[i]
                u = (abs(v) if sign == 0 else sign * v) * s[i]
                h[i] += np.int64(u >= t[i])
                most[i] = u if u > most[i] else most[i]
        top[b] = most.max()


#: The sign of the statistic of :func:`count_flips` for each alternative (0: its absolute value).
SIGNS = {"two-sided": 0.0, "greater": 1.0, "less": -1.0}


#: Values held at a time by the sign-flip engine (float64: 8 MiB): a block of B sign vectors
#: makes B × c signs and B × 2r flipped sums, so memory does not grow with ``n_resamples``.
BLOCK_VALUES = 2**20


def sign_flip_counts(
    pos: np.ndarray,
    neg: np.ndarray,
    alphas: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    alternative: str = "two-sided",
) -> FlipCounts:
    """Sign-flip counts of every cell (system i, α): the scores ``x = δ⁺ + (1+α) δ⁻`` of row i of
    ``pos`` (δ⁺, r × c) and ``neg`` (δ⁻), all cells flipped by the same sign vectors.  A resample
    counts for a cell when its statistic is at least as extreme as the observed one under
    ``alternative``: ``|Σεx| ≥ |Σx|`` (two-sided), ``Σεx ≥ Σx`` ("greater") or ``Σεx ≤ Σx``
    ("less"); the max-T maximum is over the same, signed, statistic (Westfall & Young, 1993).

    Exact (every sign vector, the identity among them) when 2^c ≤ ``n_resamples``; otherwise
    ``n_resamples`` random sign vectors (:func:`riskeval.inference._common.random_signs`).  A block
    of B sign vectors (B × c, ±1) times ``[δ⁺; δ⁻]ᵀ`` (c × 2r), one matrix product, gives
    ``P = Σ ε δ⁺`` and ``N = Σ ε δ⁻`` of every system, and every α follows elementwise
    (δ⁺δ⁻ = 0, so ``Σx² = Σδ⁺² + (1+α)² Σδ⁻²``) in :func:`count_flips`.  Counts are r × k;
    the blocks hold at most :data:`BLOCK_VALUES` values, whatever ``n_resamples``.
    """
    r, c = pos.shape
    factors = 1.0 + np.asarray(alphas, dtype=np.float64)
    sumsq = np.einsum("ij,ij->i", pos, pos)[:, None] + factors**2 * np.einsum("ij,ij->i", neg, neg)[:, None]
    scale = flip_scale(sumsq, c).T  # k × r, like the thresholds
    sign = SIGNS[alternative]
    observed = pos.sum(axis=1) + factors[:, None] * neg.sum(axis=1)
    threshold = (np.abs(observed) if sign == 0 else sign * observed) * scale - TOL
    exact = c < 63 and 2**c <= n_resamples
    size = max(1, BLOCK_VALUES // max(c, 2 * r))
    signs = all_signs(c, size) if exact else random_signs(rng, c, n_resamples, size)
    D = np.concatenate([pos, neg]).T  # c × 2r
    hits = np.zeros((factors.size, r), dtype=np.int64)
    hits_max = np.zeros((factors.size, r), dtype=np.int64)
    for eps in signs:
        top = np.empty(eps.shape[0])
        count_flips(eps @ D, factors, scale, threshold, hits, top, sign)
        top.sort()
        hits_max += top.size - np.searchsorted(top, threshold, side="left")
    return FlipCounts(hits.T, hits_max.T, 2**c if exact else n_resamples, exact)


def _test_alpha(risk: Any, alpha: Any, func: str) -> float:
    """The α of :func:`permutation_test`: that of ``risk`` (one measure of the risk-reward scores,
    an object or its text) if it has one, else ``alpha``, else 0."""
    if risk is not None:
        measures = risk_measures(risk, func)
        if len(measures) != 1:
            raise RiskevalError(
                f"The 'risk' parameter of {func} names one risk measure. Got {', '.join(map(str, measures))}."
            )
        measure = on_risk_scores(measures[0], func, "the sign-flip test")
        if measure.alpha is not None:
            if alpha is not None and float(alpha) != measure.alpha:
                raise RiskevalError(
                    f"{func}: the 'alpha' parameter ({alpha!r}) differs from the α of "
                    f"risk={measure}; give one of them."
                )
            return measure.alpha
    return check_alpha(0.0 if alpha is None else alpha, func)


def permutation_test(
    system: Any,
    baseline: Any,
    alpha: float | None = None,
    *,
    risk: Any = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    alternative: str = "two-sided",
) -> PermutationResult:
    """Randomisation test of H0: URisk(α) = 0, flipping the signs of the risk-reward scores x_j.

    Parameters
    ----------
    system, baseline : Series indexed by topic, or vectors of equal length
        Per-topic scores (two Series are aligned by topic and must cover the same topics).
    alpha : float, default 0
        Risk aversion α ≥ 0; α = 0 gives Fisher's paired randomisation test of the mean difference
        (Smucker, Allan & Carterette, CIKM 2007).
    risk : URisk or TRisk, an object or its text
        The measure tested, e.g. ``riskeval.URisk(alpha=5)`` or ``"TRisk@5"``: its α, if it has
        one, is the test's.  Any declared measure that is an increasing function of the mean
        risk-reward score against the baseline (``of_risk_scores``: URisk, TRisk) gives the same
        p-value (the statistic is URisk, the same bits as :func:`riskeval.risk_table`'s).  The
        others are refused with the reason: ZRisk and GeoRisk (their test is the bootstrap), T*Risk
        (against the MEAN: give ``baseline="mean"``).
    n_resamples : int, default 10,000
        Random sign vectors; when 2^c ≤ ``n_resamples`` all 2^c are enumerated instead (exact).
    rng : int, None or numpy.random.Generator
        Seed or generator of the sign vectors; the seed used is recorded in the result.
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis, as in :func:`scipy.stats.permutation_test`: "less", the
        system loses to the baseline (URisk < 0); "greater", it gains.

    Returns
    -------
    PermutationResult
        ``statistic`` (URisk), ``pvalue``, ``n_resamples``, ``exact``, ``alpha``,
        ``alternative``, ``effect_size`` (x̄/s_x), ``n_topics``, ``seed``.

    Examples
    --------
    >>> import riskeval as rk
    >>> X = rk.example_scores()
    >>> res = rk.permutation_test(X.loc["p_bert"], X.loc["bm25base_p"], alpha=1.0, rng=1)
    >>> urisk, p = res
    """
    func = "permutation_test"
    a = _test_alpha(risk, alpha, func)
    alternative = check_option(alternative, ALTERNATIVES, func, "alternative")
    n = check_n_resamples(n_resamples, func)
    gen, seed = resolve_rng(rng, func)
    s, b, _ = as_pair(system, baseline, func)
    delta = (s - b)[None, :]
    flips = sign_flip_counts(
        np.maximum(delta, 0.0), np.minimum(delta, 0.0), np.array([a]), n, gen, alternative
    )
    p, _ = flips.pvalues()
    # the statistic is URisk, from the same sums and formula as risk_table's
    sums = paired_sums(s[None, :], b)
    statistic = URisk().value(sums, a)[0]
    return PermutationResult(
        statistic=float(statistic),
        pvalue=float(p[0, 0]),
        n_resamples=flips.n,
        exact=flips.exact,
        alpha=a,
        alternative=alternative,
        effect_size=float(effect_size_from(sums, a)[0]),
        n_topics=s.size,
        seed=seed,
    )
