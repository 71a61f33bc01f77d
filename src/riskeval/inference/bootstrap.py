"""Bootstrap over topics for URisk, TRisk, T*Risk (TRisk against the per-topic MEAN), ZRisk and
GeoRisk: percentile and BCa intervals, two-sided or one-sided, the difference between two systems
with its p-value, and intervals on ranks.

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
from riskeval.measures.declared import GeoRisk, RiskMeasure, TRisk, URisk, expand_risks, risk_measures
from riskeval.measures.results import ConfidenceInterval, TestResult
from riskeval.model.matrix import as_matrix
from riskeval.options import ALTERNATIVES, BOOTSTRAP_METHODS, check_alpha, check_level, check_option
from riskeval.settings import RiskSettings, resolve_settings

MEASURES = ("urisk", "trisk", "zrisk", "georisk")
#: Measures computed from the paired sums of δ⁺ and δ⁻ against a baseline (the kernel's first part).
_PAIRED = ("urisk", "trisk")
#: Measures computed from the chi-square matrix of every system (scores ≥ 0, no baseline).
_CHI_SQUARE = ("zrisk", "georisk")
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


def interval_probs(
    z0: Any, a: Any, confidence_level: float, alternative: str = "two-sided"
) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of the lower and upper bounds: exactly ``(tail, 1 − tail)`` for the percentile
    interval (``z0 = a = 0``), adjusted by the BCa constants otherwise (eq. 14.10).  The tail is
    ``(1 − confidence_level)/2`` for a two-sided interval and ``1 − confidence_level`` for the one
    bound of a one-sided interval (``alternative`` "less" or "greater")."""
    z0, a = np.atleast_1d(z0), np.atleast_1d(a)
    tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
    z_alpha = float(ndtri(tail))
    percentile = (z0 == 0) & (a == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        n1 = z0 + z_alpha
        n2 = z0 - z_alpha
        p1 = np.where(percentile, tail, ndtr(z0 + n1 / (1 - a * n1)))
        p2 = np.where(percentile, 1.0 - tail, ndtr(z0 + n2 / (1 - a * n2)))
    return p1, p2


def bounds(
    rows: SortedRows, p1: np.ndarray, p2: np.ndarray, alternative: str
) -> tuple[np.ndarray, np.ndarray]:
    """The bounds at probabilities ``p1`` and ``p2`` of each row; a one-sided interval has −inf
    (``"less"``) or +inf (``"greater"``) on its open side, as :func:`scipy.stats.bootstrap`."""
    low, high = rows.quantile(p1), rows.quantile(p2)
    defined = rows.valid > 0
    if alternative == "less":
        low = np.where(defined, -np.inf, np.nan)
    elif alternative == "greater":
        high = np.where(defined, np.inf, np.nan)
    return low, high


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
    boot: np.ndarray,
    estimate: np.ndarray,
    a: np.ndarray,
    confidence_level: float,
    method: str,
    alternative: str = "two-sided",
) -> Intervals:
    """Intervals of every row of a bootstrap distribution ``boot`` (m × B, NaN marks a resample
    where the measure is undefined; sorted in place) by ``method``: "percentile", or "bca" with the
    acceleration ``a`` (m); two-sided, or one-sided for ``alternative`` "less" (−inf, high] or
    "greater" [low, +inf).

    ``pvalue`` is that of H0: θ = 0 by inverting the interval, read from the same order statistics.
    One-sided, ``"greater"`` (H1: θ > 0): the smallest tail ``p`` whose lower bound of the same
    method, at probability ``p`` (BCa: adjusted by eq. 14.10), is above 0; ``"less"`` (H1: θ < 0):
    the smallest ``p`` whose upper bound, at ``1 − p``, is below 0.  Two-sided: twice the smaller of
    the two, capped at 1.  So ``p < 1 − confidence_level`` exactly when 0 lies outside the
    interval of the same ``alternative`` (for any level with ``1 − confidence_level`` above the
    floor of p: 1/(B + 1) one-sided, 2/(B + 1) two-sided, the finest the B resamples resolve).  The
    bias correction ``z0 = Φ⁻¹(share of resamples below the estimate)``, ties counting half, is that
    of eq. 14.14 as :func:`scipy.stats.bootstrap` counts it.
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
    p1, p2 = interval_probs(z0, a, confidence_level, alternative)
    zero = np.zeros(valid.size)
    # the lower bound is above 0 once its probability passes the crossing of the values ≤ 0, the
    # upper bound below 0 until its probability reaches the crossing of the values < 0
    greater = _level_of(rows.crossing(rows.count(zero, "right")), z0, a)
    less = _level_of(1.0 - rows.crossing(rows.count(zero, "left")), -z0, -a)
    floor = 1.0 / (valid + 1.0)
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            p = np.clip(greater, floor, 1.0)
        elif alternative == "less":
            p = np.clip(less, floor, 1.0)
        else:
            p = np.clip(2.0 * np.minimum(greater, less), 2.0 * floor, 1.0)
    p = np.where(valid > 0, p, np.nan)
    low, high = bounds(rows, p1, p2, alternative)
    return Intervals(low, high, p, rows.standard_error(), z0, a)


def measure_intervals(
    engine: ResampledMeasures,
    seed: int,
    n: int,
    batch: int | None,
    confidence_level: float,
    method: str,
    alternative: str = "two-sided",
) -> tuple[dict[str, np.ndarray], dict[str, Intervals]]:
    """Estimates (r × k) and intervals (rows i·k + α) of every measure of ``engine`` from ``n``
    resamples drawn from ``seed``, ``batch`` at a time (:func:`intervals`)."""
    point = engine.point()
    estimate = np.concatenate([point[m].ravel() for m in engine.wanted])
    a = np.zeros(estimate.size)
    if method == "bca":
        jack = engine.jackknife()
        a = bca_acceleration(np.concatenate([jack[m].reshape(-1, engine.c) for m in engine.wanted]))
    dist = engine.resample(np.random.default_rng(seed), n, batch)
    iv = intervals(dist, estimate, a, confidence_level, method, alternative)
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


def _engine_baseline(
    M: pd.DataFrame, kind: str, s: RiskSettings, func: str
) -> tuple[str, np.ndarray | None, str]:
    """The baseline's name and values of a risk measure's column ``kind``, and the engine's
    measure that computes it: URisk and TRisk against the settings' baseline, T*Risk as TRisk
    against the per-topic MEAN (Dinçer, Ounis & Macdonald, ECIR 2014, §3), ZRisk and GeoRisk
    against every system of the matrix (no baseline; scores ≥ 0)."""
    if kind in _CHI_SQUARE:
        check_nonnegative(M.to_numpy(), M.index, M.columns, func)
        return "all systems", None, kind
    spec = "mean" if kind == "tstar" else s.baseline
    rb = resolve_baseline(M, spec, func, leave_one_out=s.leave_one_out)
    return rb.name, rb.values, "trisk" if kind == "tstar" else kind


def _one_risk(risk: Any, alpha: Any, func: str) -> RiskMeasure:
    """The one risk measure of ``risk`` (an object or its text) at its own α, else at ``alpha``."""
    measures = risk_measures(risk, func)
    if len(measures) != 1:
        raise RiskevalError(
            f"The 'risk' parameter of {func} names one risk measure (e.g. 'GeoRisk' or "
            f"riskeval.URisk(alpha=5)). Got {len(measures)}: {', '.join(map(str, measures))}."
        )
    m = measures[0]
    return m if m.alpha is not None else m.at(check_alpha(alpha, func))


def _confidence(confidence_level: Any, s: RiskSettings, func: str) -> float:
    """``confidence_level``, by default ``1 − level`` of the settings."""
    cl = 1.0 - s.level if confidence_level is None else confidence_level
    return check_level(cl, func, "confidence_level")


#: The risk measures of :func:`bootstrap_ci` unless ``risk=`` names others.
DEFAULT_RISK = (URisk(), TRisk(), GeoRisk())


def bootstrap_ci(
    X: Any,
    baseline: Any = None,
    alphas: Any = None,
    *,
    risk: Any = DEFAULT_RISK,
    settings: RiskSettings | None = None,
    method: str = "percentile",
    n_resamples: int = 1000,
    confidence_level: float | None = None,
    rng: Any = None,
    leave_one_out: bool | None = None,
    alternative: str = "two-sided",
    batch: int | None = BATCH,
) -> pd.DataFrame:
    """Bootstrap intervals over topics, one row per (risk measure, system, α).

    Parameters
    ----------
    X : DataFrame, systems × topics
        The score matrix.
    baseline : str, Series or vector
        Baseline of URisk and TRisk, as in :func:`riskeval.risk_table`; default the settings'
        (``"mean"``).  T*Risk is against the per-topic MEAN whatever the baseline; ZRisk and GeoRisk
        use every system of the matrix as a baseline (scores must be ≥ 0).
    alphas : float or list of float
        The α grid of the measures without their own α; default the settings' (0, 1, 5, 10).
    risk : risk measure, its text, or a list of them, default URisk, TRisk, GeoRisk
        Objects such as ``riskeval.URisk(alpha=5)`` or text such as ``"GeoRisk@5"``: a measure
        with its own α is computed at that α only, one without at every α of ``alphas``.  TRisk
        is studentised by ``s_x/√n`` in every resample (the jackknife SE of a mean is the same
        number, so ``TRisk(se="jackknife")`` gives the same rows); T*Risk is TRisk against the
        per-topic MEAN (Dinçer, Ounis & Macdonald, ECIR 2014, §3).
    settings : :class:`riskeval.RiskSettings`
        Baseline, α grid, level and leave-one-out in one object; the keywords given here override
        its values.
    method : {"percentile", "bca"}
        Percentile interval, or bias-corrected and accelerated (the acceleration from the
        leave-one-topic-out values; Efron & Tibshirani 1993, §14.3).
    n_resamples : int, default 1000
        Bootstrap resamples (at least 2).
    confidence_level : float
        Default ``1 − level`` of the settings (0.95).
    rng : int, None or numpy.random.Generator
        Seed or generator of the resamples.  The seed used (drawn from the generator, or from the
        operating system for None) is the ``seed`` column: ``rng=seed`` reproduces the table.
    leave_one_out : bool
        Aggregate baselines (and the MEAN of T*Risk) leave the evaluated system out; default the
        settings' (False).
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis of ``pvalue``, as in :func:`scipy.stats.bootstrap`: "less" (the
        measure is below 0: the system loses to its baseline) gives the interval
        ``(−inf, high]`` and "greater" ``[low, +inf)``.
    batch : int or None, default 10000
        Resamples drawn and computed at a time (None: all at once), as in
        :func:`scipy.stats.bootstrap`: the working memory is about ``batch × (c + 7r) × 8`` bytes
        besides the bootstrap distributions, which take 8 bytes per resample and row of the result.
        The results do not depend on it.

    Returns
    -------
    DataFrame
        Columns ``system, alpha, risk`` (the measure's name: ``"URisk"``, ``"TRisk"``,
        ``"TStarRisk"``, ``"ZRisk"``, ``"GeoRisk"``), ``baseline, estimate, low, high, se`` (the
        bootstrap standard error), ``pvalue`` (URisk, TRisk and T*Risk: the p-value of H0 "= 0"
        under ``alternative`` by inverting the interval, read from the same sorted bootstrap values
        as the bounds (:func:`intervals`): one-sided "greater", the smallest tail whose lower bound
        is above 0; "less", the smallest whose upper bound is below 0; two-sided, twice the smaller
        of the two, capped at 1; NaN for ZRisk and GeoRisk, where 0 is no null value),
        ``effect_size`` (URisk, TRisk, T*Risk rows: the standardised URisk x̄/s_x against the row's
        baseline), ``method, confidence_level, n_resamples, seed``, and ``alternative`` when it is
        one-sided (the settings are columns, which survive ``concat`` and ``merge``).  Rows go
        measure by measure (in the order of ``risk``), system by system, α by α.
    """
    func = "bootstrap_ci"
    s = resolve_settings(settings, func, baseline=baseline, alphas=alphas, leave_one_out=leave_one_out)
    M = as_matrix(X)
    cl = _confidence(confidence_level, s, func)
    method = check_option(method, BOOTSTRAP_METHODS, func, "method")
    alternative = check_option(alternative, ALTERNATIVES, func, "alternative")
    n = check_n_resamples(n_resamples, func, minimum=2)
    size = check_batch(batch, func)
    _, used_seed = resolve_rng(rng, func)
    # each measure's column with its α, in the order of ``risk`` (a repeated (column, α): once)
    wanted: dict[str, dict[float, RiskMeasure]] = {}
    for m in expand_risks(risk, s.alphas, func):
        wanted.setdefault(m.column, {}).setdefault(float(m.alpha), m)  # type: ignore[arg-type]
    values = M.to_numpy()
    r, c = values.shape
    _check_bca_topics(method, c, func)
    if any(kind in _CHI_SQUARE for kind in wanted) and values.min() < 0:
        raise RiskevalError(
            f"{func}: ZRisk and GeoRisk need scores >= 0; leave them out of 'risk' for a matrix "
            "with negative scores."
        )
    # one engine for the settings' baseline and the chi-square measures, one for the MEAN of T*Risk,
    # each at the α of its measures: both draw the same resamples from the seed
    names: dict[str, str] = {}
    groups: dict[str, tuple[list[np.ndarray | None], list[str], list[float]]] = {}
    for kind, at in wanted.items():
        names[kind], base, engine_kind = _engine_baseline(M, kind, s, func)
        bases, kinds, grid = groups.setdefault("tstar" if kind == "tstar" else "main", ([None], [], []))
        if base is not None:
            bases[0] = base
        kinds.append(engine_kind)
        grid.extend(a for a in at if a not in grid)
    results = {}
    for group, ([base], kinds, grid) in groups.items():
        A = np.array(sorted(grid))
        engine = ResampledMeasures(values, base, A, kinds)
        point, ivs = measure_intervals(engine, used_seed, n, size, cl, method, alternative)
        effect = np.full((r, A.size), np.nan)
        if base is not None:  # standardised URisk x̄/s_x of every cell
            sums = paired.paired_sums(values, base)
            with np.errstate(divide="ignore", invalid="ignore"):
                sd = np.sqrt(paired.variance_from(sums, A[:, None]))
                effect = np.where(sd > 0, paired.urisk_from(sums, A[:, None]) / sd, np.nan).T
        results[group] = (A, point, ivs, effect)
    frames = []
    for kind, at in wanted.items():
        A, point, ivs, effect = results["tstar" if kind == "tstar" else "main"]
        engine_kind = "trisk" if kind == "tstar" else kind
        k = np.searchsorted(A, list(at))
        cells = (np.arange(r)[:, None] * A.size + k).ravel()  # system-major, the measure's α
        iv = ivs[engine_kind]
        null_zero = kind not in _CHI_SQUARE  # 0 is the null value of URisk, TRisk and T*Risk
        frames.append(
            pd.DataFrame(
                {
                    "system": np.repeat(M.index.to_numpy(), len(k)),
                    "alpha": np.tile(A[k], r),
                    "risk": next(iter(at.values())).name,
                    "baseline": names[kind],
                    "estimate": point[engine_kind][:, k].ravel(),
                    "low": iv.low[cells],
                    "high": iv.high[cells],
                    "se": iv.se[cells],
                    "pvalue": iv.pvalue[cells] if null_zero else np.nan,
                    "effect_size": effect[:, k].ravel() if null_zero else np.nan,
                    "method": method,
                    "confidence_level": cl,
                    "n_resamples": n,
                    "seed": used_seed,
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    if alternative != "two-sided":
        out.insert(out.columns.get_loc("method"), "alternative", alternative)
    return out


@dataclass(frozen=True)
class BootstrapDifferenceResult(TestResult):
    """Bootstrap test of the difference of one risk measure between two systems, over topics.

    Attributes
    ----------
    statistic : float
        ``measure(system_a) − measure(system_b)`` on all topics.
    pvalue : float
        p-value of H0: the difference is 0 under ``alternative``, by inverting the interval of the
        same ``method`` (:func:`intervals`); at least 2/(n_resamples + 1) two-sided,
        1/(n_resamples + 1) one-sided.
    low, high : float
        The interval at ``confidence_level``: ``(−inf, high]`` for "less", ``[low, +inf)`` for
        "greater".
    standard_error : float
        Standard deviation of the bootstrap differences.
    effect_size : float
        ``statistic / (standard_error · √c)``: the difference in units of its per-topic spread; for
        URisk this is the standardised mean difference of the two systems' risk-reward scores.
    risk : str
        The risk measure's name: ``"URisk"``, ``"TRisk"``, ``"TStarRisk"``, ``"ZRisk"`` or
        ``"GeoRisk"``.
    alpha : float
        The risk-aversion parameter α.
    baseline : str
        URisk/TRisk: the baseline's name; T*Risk: "MEAN"; ZRisk/GeoRisk: "all systems" (every
        system of the matrix).
    system_a, system_b : str
        The two systems compared.
    method : {"percentile", "bca"}
    confidence_level : float
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis: "less" is system_a below system_b.
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
    risk: str
    alpha: float
    baseline: str
    system_a: str
    system_b: str
    method: str
    confidence_level: float
    alternative: str
    n_resamples: int
    n_topics: int
    seed: int
    bias_correction: float
    acceleration: float
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The interval at ``confidence_level`` (default: the one the test was run at), from the
        stored bootstrap distribution and BCa constants, one-sided as ``alternative``."""
        if confidence_level is None:
            return ConfidenceInterval(self.low, self.high)
        cl = check_level(confidence_level, "confidence_interval", "confidence_level")
        rows = SortedRows(self.bootstrap_distribution[None, :].copy())
        p1, p2 = interval_probs(self.bias_correction, self.acceleration, cl, self.alternative)
        low, high = bounds(rows, p1, p2, self.alternative)
        return ConfidenceInterval(float(low[0]), float(high[0]))

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
    risk: Any = "GeoRisk",
    alpha: float = 0.0,
    baseline: Any = None,
    settings: RiskSettings | None = None,
    method: str = "bca",
    n_resamples: int = 10_000,
    confidence_level: float | None = None,
    rng: Any = None,
    leave_one_out: bool | None = None,
    alternative: str = "two-sided",
    batch: int | None = BATCH,
) -> BootstrapDifferenceResult:
    """Is one system's ZRisk/GeoRisk (or URisk/TRisk/T*Risk) different from another's?  Bootstrap
    over topics of the difference, with an interval and a p-value.

    Both systems are measured on the same resampled topics; for ZRisk and GeoRisk every resample
    recomputes the chi-square matrix of all the systems of ``X`` (each one a baseline of the others,
    as :func:`riskeval.georisk` with ``baseline=None``).

    Parameters
    ----------
    X : DataFrame, systems × topics
        The score matrix.
    system_a, system_b : str
        The two systems (rows of ``X``); the statistic is a's measure minus b's.
    risk : risk measure or its text, default "GeoRisk"
        One of URisk, TRisk, TStarRisk, ZRisk, GeoRisk, e.g. ``riskeval.URisk(alpha=5)`` or
        ``"URisk@5"``; its α if it has one, else ``alpha``.
    alpha : float, default 0
        α of a measure given without one.
    baseline : str, Series or vector
        Baseline of URisk and TRisk, as in :func:`riskeval.risk_table`; default the settings'
        (``"mean"``).  T*Risk is against the per-topic MEAN, ZRisk and GeoRisk against every system.
    settings : :class:`riskeval.RiskSettings`
        Baseline, level (``confidence_level`` defaults to ``1 − level``) and leave-one-out; the
        keywords given here override its values.
    method : {"percentile", "bca"}, default "bca"
    n_resamples : int, default 10,000
    confidence_level : float
        Default ``1 − level`` of the settings (0.95).
    rng : int, None or numpy.random.Generator
        Seed or generator of the resamples; the seed used is recorded in the result.
    leave_one_out : bool
        Aggregate baselines leave the evaluated system out; default the settings' (False).
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis, as in :func:`scipy.stats.bootstrap`: "less" is a's measure
        below b's.
    batch : int or None
        Resamples drawn and computed at a time, as in :func:`bootstrap_ci`.

    Returns
    -------
    BootstrapDifferenceResult
        ``statistic, pvalue = result``.
    """
    func = "bootstrap_difference"
    s = resolve_settings(settings, func, baseline=baseline, leave_one_out=leave_one_out)
    M = as_matrix(X)
    measure = _one_risk(risk, alpha, func)
    method = check_option(method, BOOTSTRAP_METHODS, func, "method")
    alternative = check_option(alternative, ALTERNATIVES, func, "alternative")
    cl = _confidence(confidence_level, s, func)
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
    base_name, base_values, kind = _engine_baseline(M, measure.column, s, func)
    if base_values is not None:  # only the two systems matter for a paired measure
        values = values[idx]
        base_values = base_values[idx] if base_values.ndim == 2 else base_values
        idx = [0, 1]
    assert measure.alpha is not None
    engine = ResampledMeasures(values, base_values, np.array([measure.alpha]), [kind])

    def diff(x: np.ndarray) -> np.ndarray:  # rows: systems (α: one)
        return np.atleast_1d(x[idx[0]] - x[idx[1]])

    est = diff(engine.point()[kind][:, 0])
    boot = diff(engine.resample(gen, n, size))
    a = np.zeros(1)
    if method == "bca":
        a = bca_acceleration(diff(engine.jackknife()[kind][:, 0])[None, :])
    iv = intervals(boot[None, :].copy(), est, a, cl, method, alternative)
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
        risk=measure.name,
        alpha=measure.alpha,
        baseline=base_name,
        system_a=str(system_a),
        system_b=str(system_b),
        method=method,
        confidence_level=cl,
        alternative=alternative,
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
    risk: Any = "GeoRisk",
    alpha: float = 0.0,
    baseline: Any = None,
    settings: RiskSettings | None = None,
    n_resamples: int = 1000,
    confidence_level: float | None = None,
    rng: Any = None,
    leave_one_out: bool | None = None,
    batch: int | None = BATCH,
) -> pd.DataFrame:
    """Each system's rank under one risk measure, with a bootstrap interval.

    Systems are ranked on every resample of topics (1 = the largest value, ties share the best
    rank); ``rank_low``–``rank_high`` is the percentile interval of a system's ranks (the lower and
    upper quantiles, so both are ranks).  ``risk`` is one measure (``riskeval.GeoRisk(alpha=1)``,
    ``"URisk@5"``, ...; its α if it has one, else ``alpha``).  ``baseline`` (default the settings')
    is used by URisk and TRisk, the per-topic MEAN by T*Risk; ZRisk and GeoRisk use every system of
    the matrix as a baseline.  ``confidence_level`` defaults to ``1 − level`` of the settings.  The
    ranks are counted ``batch`` resamples at a time (as in :func:`bootstrap_ci`): nothing is kept
    per resample.

    Returns a DataFrame, one row per system in matrix order: ``system, risk`` (the measure's name),
    ``alpha, baseline, estimate, rank, rank_low, rank_high, rank_mean, confidence_level,
    n_resamples, seed``.
    """
    from scipy.stats import rankdata

    func = "rank_intervals"
    s = resolve_settings(settings, func, baseline=baseline, leave_one_out=leave_one_out)
    M = as_matrix(X)
    measure = _one_risk(risk, alpha, func)
    cl = _confidence(confidence_level, s, func)
    n = check_n_resamples(n_resamples, func, minimum=2)
    size = check_batch(batch, func)
    gen, seed = resolve_rng(rng, func)
    values = M.to_numpy()
    base_name, base_values, kind = _engine_baseline(M, measure.column, s, func)
    engine = ResampledMeasures(values, base_values, np.array([measure.alpha]), [kind])
    est = engine.point()[kind][:, 0]
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
            "risk": measure.name,
            "alpha": measure.alpha,
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
