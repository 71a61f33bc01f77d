"""Bootstrap over topics for every declared risk measure (URisk, TRisk, T*Risk, ZRisk, GeoRisk and
those declared with :func:`riskeval.measures.declared.register_risk`): percentile and BCa
intervals, two-sided or one-sided, the difference between two systems with its p-value, and
intervals on ranks.

Topics are resampled with replacement (Efron & Tibshirani, *An Introduction to the Bootstrap*,
1993: the percentile interval of ch. 13, the BCa interval of ch. 14.3 with the jackknife
acceleration of eq. 14.15).  A resample is a vector of topic counts, drawn exactly as
:func:`scipy.stats.bootstrap` draws its indices.  For a batch of resamples (rows of topic weights)
the sums of every need of the asked measures are computed at once, by the functions
:func:`riskeval.risk_table` uses: the paired sums against the baseline or the per-topic MEAN
(:func:`riskeval.core.paired.paired_sums`, Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1–12), the
chi-square sums of the whole matrix, each resample its own row totals, grand total and expected
values (:func:`riskeval.core.chisq.zsums`, SIGIR 2016, eq. 4–8).  Each measure is then its
declared ``value(sums, α)`` for every system, α and resample, so that the estimate (every topic
once) is :func:`riskeval.risk_table`'s value to the last bit and TRisk is undefined by one rule.
Per-topic aggregate baselines (MEAN, ...) are per-topic values and travel with their topic.

Resamples are drawn and computed ``batch`` at a time, which bounds the working memory; the bootstrap
distributions (one value per resample and reported cell) are kept, sorted, and every bound, standard
error and p-value is read from the same sorted values.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numba
import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from riskeval.analysis.table import baselines_of, measure_value, needing, sums_for, sums_of
from riskeval.core import paired
from riskeval.errors import RiskevalError
from riskeval.inference._common import bootstrap_counts, check_batch, check_n_resamples, resolve_rng
from riskeval.measures.baselines import ResolvedBaseline
from riskeval.measures.chisq import check_nonnegative
from riskeval.measures.declared import (
    GeoRisk,
    RiskMeasure,
    TRisk,
    TStarRisk,
    URisk,
    ZRisk,
    expand_risks,
    risk_measures,
)
from riskeval.measures.results import ConfidenceInterval, TestResult
from riskeval.model.matrix import as_matrix
from riskeval.options import ALTERNATIVES, BOOTSTRAP_METHODS, check_alpha, check_level, check_option
from riskeval.settings import RiskSettings, resolve_settings

#: The measures computed from the paired sums without wins, losses and Loss>20%.
_WITHOUT_COUNTS = (URisk, TRisk, TStarRisk, ZRisk, GeoRisk)
#: Resamples drawn and computed at a time unless ``batch`` says otherwise.
BATCH = 10_000
#: Resamples whose measures are computed from their sums at a time: the arrays of one such chunk
#: (systems × α × resamples) stay in the processor's cache while each measure is computed.
_CHUNK = 512


class ResampledMeasures:
    """Risk measures of every system, each at its α grid, for rows of topic weights.

    ``values`` is r × c (systems × topics); ``measures`` pairs each measure (a
    :class:`~riskeval.measures.declared.RiskMeasure`, whatever its own α) with its α grid;
    ``bases`` gives what each of their needs is computed against (:func:`baselines_of`).  For each
    row of topic weights, the sums of every need are computed once
    (:func:`~riskeval.analysis.table.sums_of`: the paired sums of
    :func:`riskeval.core.paired.paired_sums`, the chi-square sums of
    :func:`riskeval.core.chisq.zsums`, the same functions as :func:`riskeval.risk_table`), and
    each measure is its ``value(sums, α)``.  A measure's rows are i·k + α (system-major).
    """

    def __init__(
        self,
        values: np.ndarray,
        bases: dict[str, ResolvedBaseline | None],
        measures: Sequence[tuple[RiskMeasure, np.ndarray]],
    ):
        self.values = values
        self.bases = bases
        self.measures = list(measures)
        self.r, self.c = values.shape
        #: Whether the resamples' paired sums need wins, losses and Loss>20%: a measure other than
        #: URisk, TRisk and T*Risk (which read none of them) may read them.
        self.counts = any(type(m) not in _WITHOUT_COUNTS for m, _ in self.measures)
        #: The first row of each measure in the distributions, and one past its last.
        self.offsets = np.cumsum([0] + [self.r * A.size for _, A in self.measures])

    @property
    def rows(self) -> int:
        """Rows of the distributions: every measure's (system, α) cells."""
        return int(self.offsets[-1])

    def point(self) -> list[np.ndarray]:
        """The estimates (r × k per measure), from the sums with every topic once: the values of
        :func:`riskeval.risk_table`, to the last bit."""
        sums = sums_for(self.values, self.bases)
        out = []
        for measure, A in self.measures:
            est = np.full((A.size, self.r), np.nan)
            est[...] = measure_value(measure, sums[measure.needs], A[:, None])
            out.append(est.T)
        return out

    def fill(self, W: np.ndarray, dist: np.ndarray) -> None:
        """Write the measures for the weights ``W`` (B × c) into ``dist`` ((rows) × B): the sums of
        every need for all of them at once, then the measures ``_CHUNK`` resamples at a time, the
        chunks shared among numba's threads (numpy releases the interpreter while it computes);
        every chunk's values come from its own sums, whatever the number of threads."""
        W = np.ascontiguousarray(W, dtype=np.float64)
        sums = {
            need: _resample_axis_last(s)
            for need, s in sums_for(self.values, self.bases, W, self.counts).items()
        }
        views = self._split(dist)

        def chunk(part: slice) -> None:
            for (measure, A), cells in zip(self.measures, views, strict=True):
                cells[:, :, part] = measure_value(measure, _columns(sums[measure.needs], part), A[:, None])

        parts = [slice(j, min(j + _CHUNK, W.shape[0])) for j in range(0, W.shape[0], _CHUNK)]
        threads = min(numba.get_num_threads(), len(parts))
        if threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(chunk, parts))
        else:
            for part in parts:
                chunk(part)

    def values_for(self, W: np.ndarray) -> list[np.ndarray]:
        """Every measure for each row of topic weights ``W`` (B × c): r × k × B per measure."""
        dist = np.full((self.rows, W.shape[0]), np.nan)
        self.fill(W, dist)
        return self._split(dist)

    def jackknife(self) -> list[np.ndarray]:
        """Leave-one-topic-out values (r × k × c per measure), for the BCa acceleration."""
        return self.values_for(1.0 - np.eye(self.c))

    def batches(self, rng: np.random.Generator, n: int, batch: int | None) -> Iterator[np.ndarray]:
        """The bootstrap distribution of every measure, ``batch`` resamples at a time: arrays
        (rows) × b, measure by measure, each measure's rows i·k + α."""
        for W in bootstrap_counts(rng, self.c, n, batch):
            block = np.full((self.rows, W.shape[0]), np.nan)
            self.fill(W, block)
            yield block

    def resample(self, rng: np.random.Generator, n: int, batch: int | None) -> np.ndarray:
        """The whole bootstrap distribution, (rows) × n, rows as :meth:`batches`."""
        dist = np.full((self.rows, n), np.nan)
        start = 0
        for W in bootstrap_counts(rng, self.c, n, batch):
            self.fill(W, dist[:, start : start + W.shape[0]])
            start += W.shape[0]
        return dist

    def _split(self, dist: np.ndarray) -> list[np.ndarray]:
        return [
            dist[start:stop].reshape(self.r, A.size, -1)
            for (_, A), start, stop in zip(self.measures, self.offsets[:-1], self.offsets[1:], strict=True)
        ]


def _resample_axis_last(sums: Any) -> Any:
    """Sums of rows of weights (arrays m × r, ``n`` m × 1) as arrays r × 1 × m: systems, then an
    axis for α, then resamples, the layout of the distributions' rows (i·k + α)."""
    return type(sums)(*(None if v is None else np.asarray(v).T[:, None, :] for v in sums))


def _columns(sums: Any, part: slice) -> Any:
    """The resamples ``part`` of sums laid out by :func:`_resample_axis_last`."""
    return type(sums)(*(None if v is None else v[..., part] for v in sums))


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

    def crossing(self, below: np.ndarray, null: np.ndarray) -> np.ndarray:
        """Where each row's quantile function crosses ``null``: for ``below`` = the number of values
        < null (≤ null), the sup of the q with Q(q) ≤ null (the inf of those with Q(q) ≥ null),
        found between the order statistics ``below − 1`` and ``below`` by the same linear
        interpolation; −inf where every value is on the upper side, +inf where every value is on
        the lower side."""
        v = self.valid
        a, b = self.at(below - 1), self.at(below)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(b > a, (null - a) / (b - a), 0.0)
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
    null: np.ndarray | None = None,
) -> Intervals:
    """Intervals of every row of a bootstrap distribution ``boot`` (m × B, NaN marks a resample
    where the measure is undefined; sorted in place) by ``method``: "percentile", or "bca" with the
    acceleration ``a`` (m); two-sided, or one-sided for ``alternative`` "less" (−inf, high] or
    "greater" [low, +inf).

    ``pvalue`` is that of H0: θ = 0 (θ = ``null[i]`` in row i when given; NaN where it is NaN: the
    measure has no null value) by inverting the interval, read from the same order statistics.
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
    null = np.zeros(valid.size) if null is None else null
    # the lower bound is above the null once its probability passes the crossing of the values at
    # or below it, the upper bound below it until its probability reaches that of the values below
    greater = _level_of(rows.crossing(rows.count(null, "right"), null), z0, a)
    less = _level_of(1.0 - rows.crossing(rows.count(null, "left"), null), -z0, -a)
    floor = 1.0 / (valid + 1.0)
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            p = np.clip(greater, floor, 1.0)
        elif alternative == "less":
            p = np.clip(less, floor, 1.0)
        else:
            p = np.clip(2.0 * np.minimum(greater, less), 2.0 * floor, 1.0)
    p = np.where((valid > 0) & ~np.isnan(null), p, np.nan)
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
) -> tuple[list[np.ndarray], Intervals]:
    """Estimates (r × k per measure of ``engine``) and intervals (rows of the distributions) of
    every measure from ``n`` resamples drawn from ``seed``, ``batch`` at a time (:func:`intervals`);
    each measure's p-value tests its ``null_value`` (NaN for a measure without one)."""
    point = engine.point()
    estimate = np.concatenate([p.ravel() for p in point])
    null = np.concatenate(
        [
            np.full(p.size, np.nan if m.null_value is None else m.null_value)
            for (m, _), p in zip(engine.measures, point, strict=True)
        ]
    )
    a = np.zeros(estimate.size)
    if method == "bca":
        a = bca_acceleration(np.concatenate([j.reshape(-1, engine.c) for j in engine.jackknife()]))
    dist = engine.resample(np.random.default_rng(seed), n, batch)
    return point, intervals(dist, estimate, a, confidence_level, method, alternative, null)


def _check_bca_topics(method: str, c: int, func: str) -> None:
    """BCa's acceleration comes from the leave-one-topic-out values: it needs two topics."""
    if method == "bca" and c < 2:
        raise RiskevalError(
            f"{func}: method='bca' needs at least 2 topics (its acceleration leaves one topic out "
            f"at a time); the matrix has {c}. Use method='percentile'."
        )


def _bases(
    M: pd.DataFrame, s: RiskSettings, measures: Sequence[RiskMeasure], func: str
) -> dict[str, ResolvedBaseline | None]:
    """What the needs of ``measures`` are computed against (:func:`baselines_of`, as
    :func:`riskeval.risk_table`); the chi-square sums need scores ≥ 0."""
    needs = {m.needs for m in measures}
    if "matrix" in needs and M.to_numpy().min() < 0:
        try:
            check_nonnegative(M.to_numpy(), M.index, M.columns, func)
        except RiskevalError as exc:
            raise RiskevalError(
                f"{func}: {needing('matrix')} need scores >= 0 (the chi-square matrix of every "
                f"system); leave them out of 'risk' for a matrix with negative scores. {exc}"
            ) from None
    return baselines_of(M, s, needs, func)


def _baseline_name(bases: dict[str, ResolvedBaseline | None], measure: RiskMeasure) -> str:
    """The baseline a measure's rows name: its need's baseline, or every system of the matrix."""
    base = bases[measure.needs]
    return "all systems" if base is None else base.name


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
        Objects such as ``riskeval.URisk(alpha=5)`` or text such as ``"GeoRisk@5"``, any declared
        measure (:data:`riskeval.measures.declared.RISK_MEASURES`): a measure
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
        :func:`scipy.stats.bootstrap`: the working memory is about ``batch × (c + 10r) × 8`` bytes
        for each need of the measures (their sums against the baseline, against the MEAN, of the
        chi-square matrix) besides the bootstrap distributions, which take 8 bytes per resample and
        row of the result.
        The results do not depend on it.

    Returns
    -------
    DataFrame
        Columns ``system, alpha, risk`` (the measure's name: ``"URisk"``, ``"TRisk"``,
        ``"TStarRisk"``, ``"ZRisk"``, ``"GeoRisk"``, or a declared measure's), ``baseline,
        estimate`` (:func:`riskeval.risk_table`'s value, to the last bit), ``low, high, se`` (the
        bootstrap standard error), ``pvalue`` (measures with a null value, ``null_value``: URisk,
        TRisk and T*Risk test 0; the p-value of H0 "= null value" under ``alternative`` by
        inverting the interval, read from the same sorted bootstrap values as the bounds
        (:func:`intervals`): one-sided "greater", the smallest tail whose lower bound is above it;
        "less", the smallest whose upper bound is below it; two-sided, twice the smaller of the
        two, capped at 1; NaN for the measures without one, ZRisk and GeoRisk), ``effect_size``
        (rows of the measures against a baseline with a null value: the standardised URisk x̄/s_x
        against the row's baseline), ``method, confidence_level, n_resamples, seed``, and
        ``alternative`` when it is
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
    measures = [(next(iter(at.values())), np.array(sorted(at))) for at in wanted.values()]
    bases = _bases(M, s, [m for m, _ in measures], func)
    # every measure on the same resamples: one set of sums per need, each measure from them
    engine = ResampledMeasures(values, bases, measures)
    point, iv = measure_intervals(engine, used_seed, n, size, cl, method, alternative)
    frames = []
    starts = engine.offsets[:-1]
    for (measure, A), est, start, at in zip(measures, point, starts, wanted.values(), strict=True):
        k = np.searchsorted(A, list(at))
        cells = start + (np.arange(r)[:, None] * A.size + k).ravel()  # system-major, the measure's α
        effect = np.full((r, A.size), np.nan)
        base = bases[measure.needs]
        if base is not None and measure.null_value is not None:  # standardised URisk x̄/s_x
            effect = paired.effect_size_from(sums_of(values, base), A[:, None]).T
        frames.append(
            pd.DataFrame(
                {
                    "system": np.repeat(M.index.to_numpy(), len(k)),
                    "alpha": np.tile(A[k], r),
                    "risk": measure.name,
                    "baseline": _baseline_name(bases, measure),
                    "estimate": est[:, k].ravel(),
                    "low": iv.low[cells],
                    "high": iv.high[cells],
                    "se": iv.se[cells],
                    "pvalue": iv.pvalue[cells],
                    "effect_size": effect[:, k].ravel(),
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


@dataclass(frozen=True, repr=False)
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
        Any declared measure (URisk, TRisk, TStarRisk, ZRisk, GeoRisk, or one declared with
        ``register_risk``), e.g. ``riskeval.URisk(alpha=5)`` or ``"URisk@5"``; its α if it has one,
        else ``alpha``.
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
    bases = _bases(M, s, [measure], func)
    base = bases[measure.needs]
    if base is not None:  # only the two systems matter for a paired measure
        values = values[idx]
        bases = {
            measure.needs: replace(base, values=base.values[idx] if base.values.ndim == 2 else base.values)
        }
        idx = [0, 1]
    assert measure.alpha is not None
    engine = ResampledMeasures(values, bases, [(measure, np.array([measure.alpha]))])

    def diff(x: np.ndarray) -> np.ndarray:  # rows: systems (α: one)
        return np.atleast_1d(x[idx[0]] - x[idx[1]])

    est = diff(engine.point()[0][:, 0])
    boot = diff(engine.resample(gen, n, size))
    a = np.zeros(1)
    if method == "bca":
        a = bca_acceleration(diff(engine.jackknife()[0][:, 0])[None, :])
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
        baseline=_baseline_name(bases, measure),
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
    bases = _bases(M, s, [measure], func)
    assert measure.alpha is not None
    engine = ResampledMeasures(values, bases, [(measure, np.array([measure.alpha]))])
    est = engine.point()[0][:, 0]
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
            "baseline": _baseline_name(bases, measure),
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
