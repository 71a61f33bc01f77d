"""Bootstrap over topics for URisk, TRisk, ZRisk and GeoRisk: percentile and BCa intervals, the
difference between two systems with its p-value, and intervals on ranks.

Topics are resampled with replacement (Efron & Tibshirani, *An Introduction to the Bootstrap*,
1993: the percentile interval of ch. 13, the BCa interval of ch. 14.3 with the jackknife
acceleration of eq. 14.15).  A resample is a vector of topic counts, drawn exactly as
:func:`scipy.stats.bootstrap` draws its indices, and one numba kernel
(:func:`resampled_measures`) computes every measure of every system at every α for each resample:
URisk and TRisk from the counts' weighted sums of δ⁺, δ⁻ and their squares (every α then costs
O(r)); ZRisk and GeoRisk recompute the whole chi-square matrix — row totals, the grand total and
every expected value — for each resample.  Per-topic aggregate baselines (MEAN, ...) are per-topic
values and travel with their topic.

Resamples are drawn and computed ``batch`` at a time, which bounds the working memory; the bootstrap
distributions (one value per resample and reported cell) are kept, sorted, and every bound, standard
error and p-value is read from the same sorted values.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from riskeval.core import paired
from riskeval.core._numba import by_size, njit, prange
from riskeval.core.chisq import residual
from riskeval.core.paired import topic_major
from riskeval.errors import RiskevalError
from riskeval.inference._common import bootstrap_counts, check_batch, check_n_resamples, resolve_rng
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.chisq import check_nonnegative
from riskeval.measures.results import ConfidenceInterval, TestResult
from riskeval.model.matrix import as_matrix
from riskeval.options import BOOTSTRAP_METHODS, check_alpha, check_alphas, check_level, check_option

MEASURES = ("urisk", "trisk", "zrisk", "georisk")
#: Measures computed from the paired sums of δ⁺ and δ⁻ against a baseline (the kernel's first part).
_PAIRED = ("urisk", "trisk")
#: Measures computed from the chi-square matrix of every system (scores ≥ 0, no baseline).
_CHI_SQUARE = ("zrisk", "georisk")
#: Measures whose value 0 is a meaningful null hypothesis (no gain over the baseline).
_NULL_ZERO = ("urisk", "trisk")
#: Resamples drawn and computed at a time unless ``batch`` says otherwise.
BATCH = 10_000
#: Work (resamples × topics × systems) from which the parallel kernel runs; below it, its serial
#: compilation, which does not wake the thread pool.
PARALLEL_WORK = 1 << 20
_SQRT_HALF = math.sqrt(0.5)


@njit(parallel=True, cache=True, error_model="numpy")
def resampled_measures(W, D, Xt, T, q, factors, out_u, out_t, out_z, out_g, start):
    """URisk, TRisk, ZRisk and GeoRisk of every (system i, α) for each row b of topic weights ``W``
    (B × c: bootstrap counts, or 0/1 jackknife weights), written to column ``start + b`` of row
    ``i·k + a`` of ``out_u``, ``out_t``, ``out_z``, ``out_g`` (an output with no rows is skipped).
    ``factors`` holds 1+α (k values); a weight ``w_j`` counts topic j ``w_j`` times.

    URisk and TRisk come from ``D`` (topic-major c × 2r, δ⁺ then δ⁻ of each system).  With the sums
    ``P = Σwδ⁺`` and ``N = Σwδ⁻``, a system's total at α is ``P + (1+α)N`` and, since δ⁺δ⁻ = 0,
    ``Σwx² = Σwδ⁺² + (1+α)²Σwδ⁻²``: URisk is the total over n (Dinçer, Macdonald & Ounis, SIGIR 2014,
    eq. 4), TRisk is URisk/√(s²/n) with s² = (Σwx² − total·URisk)/(n − 1), NaN where s² is at
    rounding level of the mean square.

    ZRisk and GeoRisk come from ``Xt`` (topic-major scores ≥ 0, column sums ``T``, ``q = √T``),
    the whole chi-square matrix recomputed for each resample as :func:`riskeval.core.chisq.zsums`
    computes it: row totals ``S_i = Σ_j w_j x_ij``, grand total ``N = Σ_j w_j T_j``,
    ``a_i = √(S_i/N)`` and z_ij by :func:`riskeval.core.chisq.residual`; ZRisk = Z⁺ + (1+α)Z⁻ and
    GeoRisk = √((S_i/n)·Φ(ZRisk/n)) with
    Φ(y) = erfc(−y/√2)/2 (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 6–7).

    Two parallel loops: over resamples, each computing its own sums (one row of the work arrays
    per resample), then over systems, each writing its rows of the outputs from those sums.  Every
    value depends on its resample's weights alone, whatever the number of threads.
    """
    B, c = W.shape
    r = Xt.shape[1] if Xt.shape[1] > 0 else D.shape[1] // 2
    k = factors.size
    squares = out_t.shape[0] > 0  # TRisk needs the sums of squares
    inv_n = np.empty(B)  # 1/n and 1/(n − 1), NaN where undefined
    inv_n1 = np.empty(B)
    S1 = np.zeros((B, D.shape[1]))  # Σwδ⁺ then Σwδ⁻ of each system
    S2 = np.zeros((B, D.shape[1] if squares else 0))  # the same of squares
    S = np.zeros((B, Xt.shape[1]))  # row totals S_i
    ZP = np.zeros((B, Xt.shape[1]))  # Z⁺_i
    ZS = np.zeros((B, Xt.shape[1]))  # Z⁺_i + Z⁻_i
    for b in prange(B):
        w = W[b]
        n = w.sum()
        inv_n[b] = 1.0 / n if n > 0.0 else np.nan
        inv_n1[b] = 1.0 / (n - 1.0) if n > 1.0 else np.nan  # one topic: no spread
        s1, s2, s = S1[b], S2[b], S[b]
        N = 0.0
        for j in range(c):
            if w[j] != 0.0:
                d = D[j]
                for i in range(s1.size):
                    s1[i] += w[j] * d[i]
                for i in range(s2.size):
                    s2[i] += w[j] * d[i] * d[i]
                if Xt.shape[1] > 0:
                    x = Xt[j]
                    for i in range(r):
                        s[i] += w[j] * x[i]
                    N += w[j] * T[j]
        if Xt.shape[1] > 0:
            a = np.zeros(r)
            for i in range(r):
                if N > 0.0 and s[i] > 0.0:
                    a[i] = math.sqrt(s[i] / N)
            zp, zs = ZP[b], ZS[b]
            for j in range(c):
                if w[j] != 0.0:
                    x = Xt[j]
                    for i in range(r):
                        z = residual(x[i], a[i], q[j])
                        zp[i] += w[j] * max(z, 0.0)
                        zs[i] += w[j] * z
    for i in prange(r):
        for t in range(k):
            f = factors[t]
            row = i * k + t
            for b in range(B):
                if out_u.shape[0] > 0:
                    out_u[row, start + b] = (S1[b, i] + f * S1[b, r + i]) * inv_n[b]
                if squares:
                    total = S1[b, i] + f * S1[b, r + i]
                    u = total * inv_n[b]
                    sumsq = S2[b, i] + f * f * S2[b, r + i]
                    var = (sumsq - total * u) * inv_n1[b]
                    tr = u / math.sqrt(var * inv_n[b]) if var > 1e-13 * sumsq * inv_n[b] else np.nan
                    out_t[row, start + b] = tr
                zr = ZP[b, i] + f * (ZS[b, i] - ZP[b, i]) if ZP.shape[1] > 0 else 0.0
                if out_z.shape[0] > 0:
                    out_z[row, start + b] = zr
                if out_g.shape[0] > 0:
                    phi = 0.5 * math.erfc(-zr * inv_n[b] * _SQRT_HALF)
                    out_g[row, start + b] = math.sqrt(S[b, i] * inv_n[b] * phi)


class ResampledMeasures:
    """URisk, TRisk, ZRisk and GeoRisk of every system, at every α, for rows of topic weights.

    ``values`` is r × c (systems × topics), ``base`` the baseline (c,) or (r × c).  ``values_for(W)``
    returns, for each measure asked for, an array r × k × B (system, α, resample).
    """

    def __init__(
        self, values: np.ndarray, base: np.ndarray | None, alphas: np.ndarray, wanted: Sequence[str]
    ):
        self.alphas = alphas
        self.wanted = tuple(wanted)
        self.r, self.c = values.shape
        self.rows = self.r * alphas.size  # rows of one measure's distribution: i·k + α
        empty = np.zeros((self.c, 0))
        self.D = empty
        if any(m in self.wanted for m in _PAIRED):
            assert base is not None
            delta = values - base
            # c × 2r: δ⁺ then δ⁻ of each system, topic by topic
            self.D = np.ascontiguousarray(np.concatenate([np.maximum(delta, 0.0), np.minimum(delta, 0.0)]).T)
        self.Xt, self.T = empty, np.zeros(self.c)
        self.q = self.T
        if any(m in self.wanted for m in _CHI_SQUARE):
            self.Xt = topic_major(values)
            self.T = self.Xt.sum(axis=1)
            self.q = np.sqrt(self.T)

    def fill(self, W: np.ndarray, out: dict[str, np.ndarray], start: int) -> None:
        """Write the measures for the weights ``W`` (B × c) into columns ``start … start + B − 1``
        of ``out[m]`` (rows i·k + α, C-contiguous): by the parallel kernel for work of at least
        :data:`PARALLEL_WORK`, else by its serial compilation (the same values)."""
        none = np.empty((0, 0))
        D = self.D if any(m in out for m in _PAIRED) else np.zeros((self.c, 0))
        Xt = self.Xt if any(m in out for m in _CHI_SQUARE) else np.zeros((self.c, 0))
        kernel = by_size(resampled_measures, W.size * self.r, PARALLEL_WORK)
        kernel(
            np.ascontiguousarray(W, dtype=np.float64),
            D,
            Xt,
            self.T,
            self.q,
            1.0 + self.alphas,
            out.get("urisk", none),
            out.get("trisk", none),
            out.get("zrisk", none),
            out.get("georisk", none),
            start,
        )

    def values_for(self, W: np.ndarray) -> dict[str, np.ndarray]:
        """Every measure for each row of topic weights ``W`` (B × c): r × k × B per measure."""
        out = {m: np.empty((self.rows, W.shape[0])) for m in self.wanted}
        self.fill(W, out, 0)
        return {m: v.reshape(self.r, self.alphas.size, W.shape[0]) for m, v in out.items()}

    def point(self) -> dict[str, np.ndarray]:
        """The estimates (r × k per measure)."""
        return {m: v[:, :, 0] for m, v in self.values_for(np.ones((1, self.c))).items()}

    def jackknife(self) -> dict[str, np.ndarray]:
        """Leave-one-topic-out values (r × k × c per measure), for the BCa acceleration."""
        return self.values_for(1.0 - np.eye(self.c))

    def batches(self, rng: np.random.Generator, n: int, batch: int | None) -> Iterator[np.ndarray]:
        """The bootstrap distribution of every measure, ``batch`` resamples at a time: arrays
        (measures·r·k) × b, measure by measure, each measure's rows i·k + α."""
        for W in bootstrap_counts(rng, self.c, n, batch):
            block = np.empty((len(self.wanted) * self.rows, W.shape[0]))
            self.fill(W, self._parts(block), 0)
            yield block

    def resample(self, rng: np.random.Generator, n: int, batch: int | None) -> np.ndarray:
        """The whole bootstrap distribution, (measures·r·k) × n, rows as :meth:`batches`."""
        dist = np.empty((len(self.wanted) * self.rows, n))
        parts = self._parts(dist)
        start = 0
        for W in bootstrap_counts(rng, self.c, n, batch):
            self.fill(W, parts, start)
            start += W.shape[0]
        return dist

    def _parts(self, dist: np.ndarray) -> dict[str, np.ndarray]:
        """Each measure's rows of ``dist`` (contiguous views)."""
        return {m: dist[j * self.rows : (j + 1) * self.rows] for j, m in enumerate(self.wanted)}


def bca_acceleration(jack: np.ndarray) -> np.ndarray:
    """Acceleration ``a`` of the BCa interval from the leave-one-out values (rows of ``jack``,
    m × c): ``Σd³ / (6 (Σd²)^{3/2})`` with ``d = θ̄₍.₎ − θ₍ⱼ₎`` (Efron & Tibshirani 1993, eq. 14.15);
    0 where every leave-one-out value is the same."""
    d = jack.mean(axis=1, keepdims=True) - jack
    den = 6.0 * np.sum(d * d, axis=1) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, np.sum(d**3, axis=1) / den, 0.0)


def interval_probs(z0: Any, a: Any, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of the lower and upper bounds: exactly ``(tail, 1 − tail)`` for the percentile
    interval (``z0 = a = 0``), adjusted by the BCa constants otherwise (eq. 14.10)."""
    z0, a = np.atleast_1d(z0), np.atleast_1d(a)
    tail = (1.0 - confidence_level) / 2.0
    z_alpha = float(ndtri(tail))
    percentile = (z0 == 0) & (a == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        n1 = z0 + z_alpha
        n2 = z0 - z_alpha
        p1 = np.where(percentile, tail, ndtr(z0 + n1 / (1 - a * n1)))
        p2 = np.where(percentile, 1.0 - tail, ndtr(z0 + n2 / (1 - a * n2)))
    return p1, p2


def _level_of(q: np.ndarray, z0: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Inverse of the lower bound's probability in :func:`interval_probs`: the half-level
    ``(1 − confidence)/2`` at which it equals ``q`` — ``q`` itself for the percentile interval;
    0 for q ≤ 0 and 1 for q ≥ 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        w = ndtri(q) - z0
        half = ndtr(w / (1.0 + a * w) - z0)
    half = np.where((z0 == 0) & (a == 0), q, half)
    return np.where(q <= 0, 0.0, np.where(q >= 1, 1.0, half))


@dataclass(frozen=True)
class Intervals:
    """Per-row bootstrap summaries: bounds, p-value of θ = 0, standard error and BCa constants."""

    low: np.ndarray
    high: np.ndarray
    pvalue: np.ndarray
    se: np.ndarray
    z0: np.ndarray
    a: np.ndarray


class SortedRows:
    """Rows of a bootstrap distribution (m × B, NaN = undefined resample), sorted in place: NaN
    last, ``valid[i]`` defined values first.  Quantiles follow numpy's default (linear)
    interpolation between order statistics (Hyndman & Fan 1996, definition 7)."""

    def __init__(self, boot: np.ndarray):
        boot.sort(axis=1)
        self.x = boot
        m, B = boot.shape
        self.valid = np.full(m, B, dtype=np.int64)
        tail = np.flatnonzero(np.isnan(boot[:, -1])) if B else np.arange(m)
        self.valid[tail] = np.count_nonzero(~np.isnan(boot[tail]), axis=1)

    def at(self, rank: np.ndarray) -> np.ndarray:
        """The order statistic ``rank[i]`` (from 0, clipped to the row) of every row."""
        idx = np.clip(rank, 0, np.maximum(self.valid - 1, 0))
        return np.take_along_axis(self.x, idx[:, None], axis=1)[:, 0]

    def count(self, v: np.ndarray, side: str) -> np.ndarray:
        """Defined values below ``v[i]`` in row i (``side="right"``: at or below); 0 where v is NaN."""
        out = np.zeros(self.valid.size, dtype=np.int64)
        for i in np.flatnonzero(~np.isnan(v) & (self.valid > 0)):
            out[i] = np.searchsorted(self.x[i, : self.valid[i]], v[i], side=side)  # type: ignore[call-overload]
        return out

    def quantile(self, p: np.ndarray) -> np.ndarray:
        """Quantile ``p[i]`` of every row (numpy's linear method); NaN where a row has no defined
        value or p is not finite."""
        h = (np.maximum(self.valid, 1) - 1) * np.clip(np.nan_to_num(p), 0.0, 1.0)
        lo = np.floor(h).astype(np.int64)
        a, b = self.at(lo), self.at(lo + 1)
        t = h - lo
        with np.errstate(invalid="ignore"):
            q = np.where(t >= 0.5, b - (b - a) * (1.0 - t), a + (b - a) * t)  # numpy's lerp
        return np.where((self.valid > 0) & np.isfinite(p), q, np.nan)

    def crossing(self, below: np.ndarray) -> np.ndarray:
        """Where each row's quantile function crosses 0: for ``below`` = the number of values < 0
        (≤ 0), the sup of the q with Q(q) ≤ 0 (the inf of those with Q(q) ≥ 0), found between the
        order statistics ``below − 1`` and ``below`` by the same linear interpolation; −inf where
        every value is on the upper side, +inf where every value is on the lower side."""
        v = self.valid
        a, b = self.at(below - 1), self.at(below)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(b > a, -a / (b - a), 0.0)
            q = (below - 1 + t) / np.maximum(v - 1, 1)
        return np.where(below <= 0, -np.inf, np.where(below >= v, np.inf, q))

    def standard_error(self) -> np.ndarray:
        """Standard deviation (ddof = 1) of each row's defined values; NaN below two values.  Rows
        are taken 64 at a time, so numpy's temporaries stay small."""
        m, B = self.x.shape
        se = np.full(m, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            for s in range(0, m, 64) if B > 1 else ():
                se[s : s + 64] = np.std(self.x[s : s + 64], axis=1, ddof=1)  # NaN where one is
        for i in np.flatnonzero((self.valid < B) & (self.valid > 1)):
            se[i] = np.std(self.x[i, : self.valid[i]], ddof=1)
        return se


def intervals(
    boot: np.ndarray, estimate: np.ndarray, a: np.ndarray, confidence_level: float, method: str
) -> Intervals:
    """Intervals of every row of a bootstrap distribution ``boot`` (m × B, NaN marks a resample
    where the measure is undefined; sorted in place) by ``method``: "percentile", or "bca" with the
    acceleration ``a`` (m).

    ``pvalue`` is that of H0: θ = 0 by inverting the interval: the smallest ``p`` whose ``1 − p``
    interval of the same method, read from the same order statistics, excludes 0 — so that
    ``p < 1 − confidence_level`` exactly when 0 lies outside ``[low, high]`` (for any level with
    ``1 − confidence_level > 2/(B + 1)``: p is at least 2/(B + 1), the finest the B resamples
    resolve).  The bias correction ``z0 = Φ⁻¹(share of resamples below the estimate)``, ties
    counting half, is that of eq. 14.14 as :func:`scipy.stats.bootstrap` counts it.
    """
    rows = SortedRows(boot)
    valid = rows.valid
    estimate = np.asarray(estimate, dtype=np.float64)
    z0 = np.zeros(valid.size)
    if method == "bca":
        below = rows.count(estimate, "left") + rows.count(estimate, "right")
        with np.errstate(divide="ignore", invalid="ignore"):
            z0 = ndtri(below / (2.0 * valid))
    else:
        a = np.zeros(valid.size)
    p1, p2 = interval_probs(z0, a, confidence_level)
    zero = np.zeros(valid.size)
    # the lower bound is above 0 once its probability passes the crossing of the values ≤ 0, the
    # upper bound below 0 until its probability reaches the crossing of the values < 0
    low_side = 2.0 * _level_of(rows.crossing(rows.count(zero, "right")), z0, a)
    high_side = 2.0 * _level_of(1.0 - rows.crossing(rows.count(zero, "left")), -z0, -a)
    with np.errstate(invalid="ignore"):
        p = np.clip(np.minimum(low_side, high_side), 2.0 / (valid + 1.0), 1.0)
    p = np.where(valid > 0, p, np.nan)
    return Intervals(rows.quantile(p1), rows.quantile(p2), p, rows.standard_error(), z0, a)


def measure_intervals(
    engine: ResampledMeasures, seed: int, n: int, batch: int | None, confidence_level: float, method: str
) -> tuple[dict[str, np.ndarray], dict[str, Intervals]]:
    """Estimates (r × k) and intervals (rows i·k + α) of every measure of ``engine`` from ``n``
    resamples drawn from ``seed``, ``batch`` at a time."""
    point = engine.point()
    estimate = np.concatenate([point[m].ravel() for m in engine.wanted])
    a = np.zeros(estimate.size)
    if method == "bca":
        jack = engine.jackknife()
        a = bca_acceleration(np.concatenate([jack[m].reshape(-1, engine.c) for m in engine.wanted]))
    dist = engine.resample(np.random.default_rng(seed), n, batch)
    iv = intervals(dist, estimate, a, confidence_level, method)
    per = engine.rows
    out = {}
    for j, m in enumerate(engine.wanted):
        part = slice(j * per, (j + 1) * per)
        out[m] = Intervals(*(getattr(iv, f)[part] for f in ("low", "high", "pvalue", "se", "z0", "a")))
    return point, out


def _check_bca_topics(method: str, c: int, func: str) -> None:
    """BCa's acceleration comes from the leave-one-topic-out values: it needs two topics."""
    if method == "bca" and c < 2:
        raise RiskevalError(
            f"{func}: method='bca' needs at least 2 topics (its acceleration leaves one topic out "
            f"at a time); the matrix has {c}. Use method='percentile'."
        )


def _check_measures(measures: Any, func: str) -> list[str]:
    wanted = [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in wanted if m not in MEASURES]
    if unknown or not wanted:
        raise RiskevalError(
            f"The 'measures' parameter of {func} must list some of {MEASURES}. Got {measures!r}."
        )
    return wanted


def bootstrap_ci(
    X: Any,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0),
    *,
    measures: Any = ("urisk", "trisk", "georisk"),
    method: str = "percentile",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: Any = None,
    leave_one_out: bool = False,
    batch: int | None = BATCH,
) -> pd.DataFrame:
    """Bootstrap intervals over topics, one row per (system, α, measure).

    Parameters
    ----------
    X : DataFrame, systems × topics
        The score matrix.
    baseline : str, Series or vector, default "mean"
        Baseline of URisk and TRisk, as in :func:`riskeval.risk_table`.  ZRisk and GeoRisk use
        every system of the matrix as a baseline (scores must be ≥ 0).
    alphas : float or list of float
        The α grid.
    measures : str or list of str
        Some of ``"urisk"``, ``"trisk"``, ``"zrisk"``, ``"georisk"``.
    method : {"percentile", "bca"}
        Percentile interval, or bias-corrected and accelerated (the acceleration from the
        leave-one-topic-out values; Efron & Tibshirani 1993, §14.3).
    n_resamples : int, default 1000
        Bootstrap resamples (at least 2).
    confidence_level : float, default 0.95
    seed : int, None or numpy.random.Generator
        Seed or generator of the resamples; the seed used is the ``seed`` column.
    leave_one_out : bool
        Aggregate baselines leave the evaluated system out.
    batch : int or None, default 10000
        Resamples drawn and computed at a time (None: all at once), as in
        :func:`scipy.stats.bootstrap`: the working memory is about ``batch × (c + 7r) × 8`` bytes
        besides the bootstrap distributions, which take 8 bytes per resample and row of the result.
        The results do not depend on it.

    Returns
    -------
    DataFrame
        Columns ``system, alpha, measure, baseline, estimate, low, high, se`` (the bootstrap
        standard error), ``pvalue`` (URisk and TRisk: two-sided p of H0 "= 0" by inverting the
        interval; NaN for ZRisk and GeoRisk, where 0 is no null value), ``effect_size`` (URisk and
        TRisk rows: the standardised URisk x̄/s_x), ``method, confidence_level, n_resamples,
        seed`` (the settings are columns, which survive ``concat`` and ``merge``).
    """
    func = "bootstrap_ci"
    M = as_matrix(X)
    A = check_alphas(alphas, func)
    cl = check_level(confidence_level, func, "confidence_level")
    method = check_option(method, BOOTSTRAP_METHODS, func, "method")
    wanted = _check_measures(measures, func)
    n = check_n_resamples(n_resamples, func, minimum=2)
    size = check_batch(batch, func)
    _, used_seed = resolve_rng(seed, func, "seed")
    values = M.to_numpy()
    r, c = values.shape
    _check_bca_topics(method, c, func)
    if any(m in wanted for m in _CHI_SQUARE) and values.min() < 0:
        raise RiskevalError(
            f"{func}: ZRisk and GeoRisk need scores >= 0; leave them out of 'measures' for a matrix "
            "with negative scores."
        )
    base = resolve_baseline(M, baseline, func, leave_one_out=leave_one_out)
    engine = ResampledMeasures(values, base.values, A, wanted)
    point, ivs = measure_intervals(engine, used_seed, n, size, cl, method)
    effect = np.full(r * A.size, np.nan)
    if any(m in _NULL_ZERO for m in wanted):  # standardised URisk x̄/s_x of every cell
        sums = paired.paired_sums(values, base.values)
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.sqrt(paired.variance_from(sums, A[:, None]))
            effect = np.where(sd > 0, paired.urisk_from(sums, A[:, None]) / sd, np.nan).T.ravel()
    # one row per cell, measure by measure, system-major: all α of system 0, then system 1, ...
    cells = r * A.size
    null = np.repeat([m in _NULL_ZERO for m in wanted], cells)
    baselines = [base.name if m in _NULL_ZERO else "all systems" for m in wanted]

    def column(f: str) -> np.ndarray:
        return np.concatenate([getattr(ivs[m], f) for m in wanted])

    return pd.DataFrame(
        {
            "system": np.tile(np.repeat(M.index.to_numpy(), A.size), len(wanted)),
            "alpha": np.tile(A, r * len(wanted)),
            "measure": np.repeat(wanted, cells),
            "baseline": np.repeat(np.array(baselines, dtype=object), cells),
            "estimate": np.concatenate([point[m].ravel() for m in wanted]),
            "low": column("low"),
            "high": column("high"),
            "se": column("se"),
            "pvalue": np.where(null, column("pvalue"), np.nan),
            "effect_size": np.where(null, np.tile(effect, len(wanted)), np.nan),
            "method": method,
            "confidence_level": cl,
            "n_resamples": n,
            "seed": used_seed,
        }
    )


@dataclass(frozen=True)
class BootstrapDifferenceResult(TestResult):
    """Bootstrap test of the difference of one measure between two systems, over topics.

    Attributes
    ----------
    statistic : float
        ``measure(system_a) − measure(system_b)`` on all topics.
    pvalue : float
        Two-sided p-value of H0: the difference is 0, by inverting the interval (the smallest p
        whose 1 − p interval of the same ``method`` reaches 0); at least 2/(n_resamples + 1).
    low, high : float
        The interval at ``confidence_level``.
    standard_error : float
        Standard deviation of the bootstrap differences.
    effect_size : float
        ``statistic / (standard_error · √c)``: the difference in units of its per-topic spread; for
        URisk this is the standardised mean difference of the two systems' risk-reward scores.
    measure : str
        ``"urisk"``, ``"trisk"``, ``"zrisk"`` or ``"georisk"``.
    alpha : float
        The risk-aversion parameter α.
    baseline : str
        URisk/TRisk: the baseline's name; ZRisk/GeoRisk: "all systems" (every system of the matrix).
    system_a, system_b : str
        The two systems compared.
    method : {"percentile", "bca"}
    confidence_level : float
    n_resamples : int
    n_topics : int
    seed : int
        Seed of the resamples: ``rng=seed`` reproduces the result.
    bias_correction, acceleration : float
        The BCa constants z0 and a (0 for the percentile interval).
    bootstrap_distribution : ndarray
        The n_resamples bootstrap differences (not shown in ``repr`` or ``to_frame``).
    """

    low: float
    high: float
    standard_error: float
    effect_size: float
    measure: str
    alpha: float
    baseline: str
    system_a: str
    system_b: str
    method: str
    confidence_level: float
    n_resamples: int
    n_topics: int
    seed: int
    bias_correction: float
    acceleration: float
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The interval at ``confidence_level`` (default: the one the test was run at), from the
        stored bootstrap distribution and BCa constants."""
        if confidence_level is None:
            return ConfidenceInterval(self.low, self.high)
        cl = check_level(confidence_level, "confidence_interval", "confidence_level")
        rows = SortedRows(self.bootstrap_distribution[None, :].copy())
        p1, p2 = interval_probs(self.bias_correction, self.acceleration, cl)
        return ConfidenceInterval(float(rows.quantile(p1)[0]), float(rows.quantile(p2)[0]))

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of every field but the bootstrap distribution."""
        d = asdict(self)
        d.pop("bootstrap_distribution")
        return pd.DataFrame([d])


def bootstrap_difference(
    X: Any,
    system_a: str,
    system_b: str,
    *,
    measure: str = "georisk",
    alpha: float = 0.0,
    baseline: Any = "mean",
    method: str = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: Any = None,
    batch: int | None = BATCH,
) -> BootstrapDifferenceResult:
    """Is one system's ZRisk/GeoRisk (or URisk/TRisk) different from another's?  Bootstrap over
    topics of the difference, with an interval and a p-value.

    Both systems are measured on the same resampled topics; for ZRisk and GeoRisk every resample
    recomputes the chi-square matrix of all the systems of ``X`` (each one a baseline of the others,
    as :func:`riskeval.georisk` with ``baseline=None``).  ``baseline`` is used by URisk and TRisk
    only.  ``batch``: resamples drawn and computed at a time, as in :func:`bootstrap_ci`.  Returns a
    :class:`BootstrapDifferenceResult` (``statistic, pvalue = result``).
    """
    func = "bootstrap_difference"
    M = as_matrix(X)
    measure = check_option(measure, MEASURES, func, "measure")
    alpha = check_alpha(alpha, func)
    method = check_option(method, BOOTSTRAP_METHODS, func, "method")
    cl = check_level(confidence_level, func, "confidence_level")
    n = check_n_resamples(n_resamples, func, minimum=2)
    size = check_batch(batch, func)
    gen, seed = resolve_rng(rng, func)
    idx = []
    for name, label in (("system_a", system_a), ("system_b", system_b)):
        if label not in M.index:
            raise RiskevalError(f"The '{name}' parameter of {func} names no system of the matrix: {label!r}.")
        idx.append(M.index.get_loc(label))
    values = M.to_numpy()
    c = values.shape[1]
    _check_bca_topics(method, c, func)
    base_name = "all systems"
    base_values = None
    if measure in _CHI_SQUARE:
        check_nonnegative(values, M.index, M.columns, func)
    else:
        rb = resolve_baseline(M, baseline, func)
        base_name, base_values = rb.name, rb.values
        values = values[idx]  # only the two systems matter for a paired measure
        idx = [0, 1]
    engine = ResampledMeasures(values, base_values, np.array([alpha]), [measure])

    def diff(x: np.ndarray) -> np.ndarray:  # rows: systems (α: one)
        return np.atleast_1d(x[idx[0]] - x[idx[1]])

    est = diff(engine.point()[measure][:, 0])
    boot = diff(engine.resample(gen, n, size))
    a = np.zeros(1)
    if method == "bca":
        a = bca_acceleration(diff(engine.jackknife()[measure][:, 0])[None, :])
    iv = intervals(boot[None, :].copy(), est, a, cl, method)
    se = float(iv.se[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = float(est[0] / (se * np.sqrt(c))) if se > 0 else np.nan
    return BootstrapDifferenceResult(
        statistic=float(est[0]),
        pvalue=float(iv.pvalue[0]),
        low=float(iv.low[0]),
        high=float(iv.high[0]),
        standard_error=se,
        effect_size=effect,
        measure=measure,
        alpha=alpha,
        baseline=base_name,
        system_a=str(system_a),
        system_b=str(system_b),
        method=method,
        confidence_level=cl,
        n_resamples=n,
        n_topics=c,
        seed=seed,
        bias_correction=float(iv.z0[0]),
        acceleration=float(iv.a[0]),
        bootstrap_distribution=boot,
    )


def rank_intervals(
    X: Any,
    *,
    measure: str = "georisk",
    alpha: float = 0.0,
    baseline: Any = "mean",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: Any = None,
    leave_one_out: bool = False,
    batch: int | None = BATCH,
) -> pd.DataFrame:
    """Each system's rank under URisk, TRisk, ZRisk or GeoRisk, with a bootstrap interval.

    Systems are ranked on every resample of topics (1 = the largest value, ties share the best
    rank); ``rank_low``–``rank_high`` is the percentile interval of a system's ranks (the lower and
    upper quantiles, so both are ranks).  ``baseline`` is used by URisk and TRisk; ZRisk and
    GeoRisk use every system of the matrix as a baseline.  The ranks are counted ``batch``
    resamples at a time (as in :func:`bootstrap_ci`): nothing is kept per resample.

    Returns a DataFrame, one row per system in matrix order: ``system, measure, alpha, baseline,
    estimate, rank, rank_low, rank_high, rank_mean, confidence_level, n_resamples, seed``.
    """
    from scipy.stats import rankdata

    func = "rank_intervals"
    M = as_matrix(X)
    measure = check_option(measure, MEASURES, func, "measure")
    alpha = check_alpha(alpha, func)
    cl = check_level(confidence_level, func, "confidence_level")
    n = check_n_resamples(n_resamples, func, minimum=2)
    size = check_batch(batch, func)
    gen, seed = resolve_rng(rng, func)
    values = M.to_numpy()
    base_name, base_values = "all systems", None
    if measure in _CHI_SQUARE:
        check_nonnegative(values, M.index, M.columns, func)
    else:
        rb = resolve_baseline(M, baseline, func, leave_one_out=leave_one_out)
        base_name, base_values = rb.name, rb.values
    engine = ResampledMeasures(values, base_values, np.array([alpha]), [measure])
    est = engine.point()[measure][:, 0]
    r = est.size

    def ranks(v: np.ndarray) -> np.ndarray:
        return rankdata(-np.nan_to_num(v, nan=-np.inf), method="min", axis=-1)

    # each system's ranks counted batch by batch (r × r counts): nothing kept per resample
    counts = np.zeros((r, r + 1), dtype=np.int64)
    for block in engine.batches(gen, n, size):  # systems × resamples
        rk_b = ranks(block.T)  # resamples × systems, ranks 1 … r
        counts += np.bincount((rk_b + (r + 1) * np.arange(r)).ravel(), minlength=r * (r + 1)).reshape(
            r, r + 1
        )
    tail = (1.0 - cl) / 2.0
    cum = np.cumsum(counts, axis=1)
    # numpy's "lower" and "higher" quantiles: the values at positions ⌊(n − 1)q⌋ and ⌈(n − 1)q⌉
    low_at = np.floor((n - 1) * tail)
    high_at = np.ceil((n - 1) * (1.0 - tail))
    rank_low = (cum <= low_at).sum(axis=1)
    rank_high = (cum <= high_at).sum(axis=1)
    return pd.DataFrame(
        {
            "system": M.index.to_numpy(),
            "measure": measure,
            "alpha": alpha,
            "baseline": base_name,
            "estimate": est,
            "rank": ranks(est),
            "rank_low": rank_low.astype(np.int64),
            "rank_high": rank_high.astype(np.int64),
            "rank_mean": counts @ np.arange(r + 1) / n,
            "confidence_level": cl,
            "n_resamples": n,
            "seed": seed,
        }
    )
