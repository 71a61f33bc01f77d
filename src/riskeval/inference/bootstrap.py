"""Bootstrap over topics for URisk, TRisk, ZRisk and GeoRisk: percentile and BCa intervals, the
difference between two systems with its p-value, and intervals on ranks.

Topics are resampled with replacement (Efron & Tibshirani, *An Introduction to the Bootstrap*,
1993: the percentile interval of ch. 13, the BCa interval of ch. 14.3 with the jackknife
acceleration of eq. 14.15).  A resample is a vector of topic counts, drawn exactly as
:func:`scipy.stats.bootstrap` draws its indices, and one fused kernel
(:func:`riskeval.inference._kernels.resampled_measures`) computes every measure of every system at
every α for it: URisk and TRisk from the counts' weighted sums of δ⁺, δ⁻ and their squares (every
α then costs O(r)); ZRisk and GeoRisk recompute the whole chi-square matrix — row totals, the grand
total and every expected value — for each resample.  Per-topic aggregate baselines (MEAN, ...) are
per-topic values and travel with their topic.

The draws are made block by block.  An interval is a pair of quantiles of a bootstrap
distribution (B values per system, α and measure).  :func:`bootstrap_ci` keeps the distributions
while they fit in 256 MiB (:data:`KEEP_BYTES`) and selects the quantiles from them; beyond that it
streams them, drawing the same resamples again in a second pass
(:mod:`riskeval.inference.order_statistics`), so that its memory does not grow with the number of
resamples.  The intervals are the same either way.  :func:`rank_intervals` counts each system's
ranks block by block; :func:`bootstrap_difference` keeps its one distribution, which is part of its
result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from riskeval.core import paired
from riskeval.core.paired import topic_major
from riskeval.errors import RiskevalError
from riskeval.inference._common import bootstrap_counts, check_n_resamples, resolve_rng
from riskeval.inference._kernels import pick, resampled_measures
from riskeval.inference.order_statistics import Summaries, quantiles, streamed_intervals, summaries
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.chisq import check_nonnegative
from riskeval.measures.results import ConfidenceInterval, TestResult
from riskeval.model.matrix import as_matrix
from riskeval.options import BOOTSTRAP_METHODS, check_alpha, check_alphas, check_level, check_option

MEASURES = ("urisk", "trisk", "zrisk", "georisk")
#: Runs of resamples per kernel call (parallel work units, each with its own work arrays).
_CHUNKS = 16
#: Resamples per streamed block (see :meth:`ResampledMeasures.stream`): few passes of the kernel,
#: and a block of 1,600 rows (100 systems, 4 α, 4 measures) stays within the L3 cache.
_STREAM_BLOCK = 1024
#: The most memory that :func:`bootstrap_ci` spends on keeping bootstrap distributions (256 MiB,
#: two measures at a time, and the resamples' topic counts); larger ones are streamed (see
#: :func:`measure_intervals`).
KEEP_BYTES = 1 << 28
#: Measures computed from the paired sums of δ⁺ and δ⁻ against a baseline (the kernel's first part).
_PAIRED = ("urisk", "trisk")
#: Measures computed from the chi-square matrix of every system (scores ≥ 0, no baseline).
_CHI_SQUARE = ("zrisk", "georisk")
#: Measures whose value 0 is a meaningful null hypothesis (no gain over the baseline).
_NULL_ZERO = ("urisk", "trisk")


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
        empty = np.zeros((self.c, 0))
        self.D = empty
        if any(m in self.wanted for m in _PAIRED):
            assert base is not None
            delta = values - base
            # c × 2r: δ⁺ then δ⁻ of each system, topic by topic
            self.D = np.ascontiguousarray(np.concatenate([np.maximum(delta, 0.0), np.minimum(delta, 0.0)]).T)
        self.Xt, self.T = empty, np.zeros(self.c)
        self.q, self.inv_q = self.T, self.T
        if any(m in self.wanted for m in _CHI_SQUARE):
            self.Xt = topic_major(values)
            self.T = self.Xt.sum(axis=1)
            self.q = np.sqrt(self.T)
            self.inv_q = np.divide(1.0, self.q, out=np.zeros_like(self.q), where=self.q > 0)

    def values_for(self, W: np.ndarray) -> dict[str, np.ndarray]:
        """Every measure for each row of topic weights ``W`` (B × c): r × k × B per measure."""
        out = {m: np.empty((self.r, self.alphas.size, W.shape[0])) for m in self.wanted}
        self.fill(W, out, 0)
        return out

    def fill(self, W: np.ndarray, out: dict[str, np.ndarray], start: int) -> None:
        """Write the measures for the weights ``W`` into ``out[m][:, :, start:start + B]``."""
        cells = self.r * self.alphas.size
        none = np.empty((0, 0))
        rows = {m: v.reshape(cells, v.shape[2]) for m, v in out.items()}  # views, row i·k + a
        # only the parts that the outputs asked for: paired sums, chi-square matrix
        D = self.D if any(m in out for m in _PAIRED) else none
        Xt = self.Xt if any(m in out for m in _CHI_SQUARE) else none
        kernel = pick(resampled_measures, W.size * self.r * (int(D.size > 0) + int(Xt.size > 0)))
        kernel(
            np.ascontiguousarray(W),
            D,
            Xt,
            self.T,
            self.q,
            self.inv_q,
            1.0 + self.alphas,
            rows.get("urisk", none),
            rows.get("trisk", none),
            rows.get("zrisk", none),
            rows.get("georisk", none),
            start,
            _CHUNKS,
        )

    def point(self) -> dict[str, np.ndarray]:
        """The estimates (r × k per measure)."""
        return {m: v[:, :, 0] for m, v in self.values_for(np.ones((1, self.c))).items()}

    def jackknife(self) -> dict[str, np.ndarray]:
        """Leave-one-topic-out values (r × k × c per measure), for the BCa acceleration."""
        return self.values_for(1.0 - np.eye(self.c))

    def stream(self, seed: int, n: int) -> Iterator[np.ndarray]:
        """The bootstrap distribution of every measure, drawn from ``seed`` as :meth:`resample`
        draws it, in blocks of at most :data:`_STREAM_BLOCK` resamples: (measures·r·k) × b arrays,
        measure by measure, each measure's rows i·k + α.  A block is overwritten by the next."""
        shape = (len(self.wanted), self.r, self.alphas.size)
        full = np.empty((*shape, _STREAM_BLOCK))
        for W in bootstrap_counts(np.random.default_rng(seed), self.c, n):
            for start in range(0, W.shape[0], _STREAM_BLOCK):
                w = W[start : start + _STREAM_BLOCK]
                out = full if w.shape[0] == _STREAM_BLOCK else np.empty((*shape, w.shape[0]))
                self.fill(w, dict(zip(self.wanted, out, strict=True)), 0)
                yield out.reshape(-1, w.shape[0])

    def fill_all(self, counts: Iterable[np.ndarray], out: dict[str, np.ndarray]) -> None:
        """Write the measures for every block of topic counts, one block after another, into
        ``out[m]`` (r × k × n, n the resamples of all the blocks)."""
        start = 0
        for W in counts:
            self.fill(W, out, start)
            start += W.shape[0]

    def resample(self, rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
        """The bootstrap distribution (r × k × n per measure: each cell's resamples contiguous)."""
        out = {m: np.empty((self.r, self.alphas.size, n)) for m in self.wanted}
        self.fill_all(bootstrap_counts(rng, self.c, n), out)
        return out


def bca_acceleration(jack: np.ndarray) -> np.ndarray:
    """Acceleration ``a`` of the BCa interval from the leave-one-out values (rows of ``jack``,
    m × c): ``Σd³ / (6 (Σd²)^{3/2})`` with ``d = θ̄₍.₎ − θ₍ⱼ₎`` (Efron & Tibshirani 1993, eq. 14.15);
    0 where every leave-one-out value is the same."""
    d = jack.mean(axis=1, keepdims=True) - jack
    den = 6.0 * np.sum(d * d, axis=1) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, np.sum(d**3, axis=1) / den, 0.0)


def interval_probs(z0: Any, a: Any, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of the lower and upper bounds: ``(tail, 1 − tail)`` for the percentile
    interval (z0 = a = 0), adjusted by the BCa constants otherwise (eq. 14.10)."""
    z_alpha = float(ndtri((1.0 - confidence_level) / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        n1 = z0 + z_alpha
        n2 = z0 - z_alpha
        return np.atleast_1d(ndtr(z0 + n1 / (1 - a * n1))), np.atleast_1d(ndtr(z0 + n2 / (1 - a * n2)))


def inverted_pvalue(below_null: np.ndarray, valid: np.ndarray, z0: Any, a: Any) -> np.ndarray:
    """Two-sided p-value of H0: θ = 0 by inverting the interval: the smallest ``p`` whose ``1 − p``
    interval (percentile when z0 = a = 0, else BCa) has 0 on its boundary.

    ``below_null/(2·valid)`` is the mid-rank share of resamples below 0.  It is kept within
    [1/(B+1), B/(B+1)] and p is at least 2/(B+1), the finest the B resamples resolve.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.clip(below_null / (2.0 * valid), 1.0 / (valid + 1), valid / (valid + 1.0))
        w = ndtri(F) - z0
        za = (w * (1.0 - a * z0) - z0) / (1.0 + a * w)
        p = 2.0 * np.minimum(ndtr(za), 1.0 - ndtr(za))
        return np.clip(p, 2.0 / (valid + 1.0), 1.0)


@dataclass(frozen=True)
class Intervals:
    """Per-row bootstrap summaries: bounds, p-value of θ = 0, standard error and BCa constants."""

    low: np.ndarray
    high: np.ndarray
    pvalue: np.ndarray
    se: np.ndarray
    z0: np.ndarray
    a: np.ndarray


def _bca_z0(sums: Summaries, method: str) -> np.ndarray:
    """The bias correction ``z0 = Φ⁻¹(share of resamples below the estimate)``, ties counting half
    (eq. 14.14, as :func:`scipy.stats.bootstrap` counts them); 0 for the percentile interval."""
    if method != "bca":
        return np.zeros(sums.valid.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        return ndtri(sums.below_est / (2.0 * sums.valid))


def _intervals(
    sums: Summaries, z0: np.ndarray, a: np.ndarray, low: np.ndarray, high: np.ndarray
) -> Intervals:
    return Intervals(low, high, inverted_pvalue(sums.below_null, sums.valid, z0, a), sums.se, z0, a)


def intervals(
    boot: np.ndarray, estimate: np.ndarray, jack: np.ndarray | None, confidence_level: float, method: str
) -> Intervals:
    """Intervals of every row of a kept distribution ``boot`` (m × B; NaN marks a resample where the
    measure is undefined) by ``method``: "percentile", or "bca" with the leave-one-out values
    ``jack`` (m × c)."""
    sums = summaries(boot, np.ascontiguousarray(estimate, dtype=np.float64))
    z0 = _bca_z0(sums, method)
    a = bca_acceleration(jack) if method == "bca" and jack is not None else np.zeros(boot.shape[0])
    low, high = quantiles(boot, sums, *interval_probs(z0, a, confidence_level))
    return _intervals(sums, z0, a, low, high)


def _kept_intervals(
    engine: ResampledMeasures,
    seed: int,
    n: int,
    estimate: np.ndarray,
    a: np.ndarray,
    confidence_level: float,
    method: str,
) -> tuple[Summaries, np.ndarray, np.ndarray]:
    """Summaries and bounds of every row of :func:`measure_intervals` from kept distributions: the
    paired measures (URisk, TRisk) and the chi-square ones (ZRisk, GeoRisk) are computed apart, in
    turn, from the same resamples, into one buffer (half the memory, half the pages touched)."""
    counts = list(bootstrap_counts(np.random.default_rng(seed), engine.c, n))
    per = engine.r * engine.alphas.size
    groups = [[m for m in engine.wanted if m in g] for g in (_PAIRED, _CHI_SQUARE)]
    groups = [g for g in groups if g]
    buf = np.empty(max(len(g) for g in groups) * per * n)
    rows = per * len(engine.wanted)
    got = {f: np.empty(rows) for f in (*Summaries.__dataclass_fields__, "low", "high")}
    for group in groups:
        dist = buf[: len(group) * per * n].reshape(len(group), engine.r, engine.alphas.size, n)
        engine.fill_all(counts, dict(zip(group, dist, strict=True)))
        boot = dist.reshape(-1, n)
        where = np.concatenate([np.arange(per) + engine.wanted.index(m) * per for m in group])
        sums = summaries(boot, estimate[where])
        probs = interval_probs(_bca_z0(sums, method), a[where], confidence_level)
        got["low"][where], got["high"][where] = quantiles(boot, sums, *probs)
        for f in Summaries.__dataclass_fields__:
            got[f][where] = getattr(sums, f)
    return Summaries(*(got[f] for f in Summaries.__dataclass_fields__)), got["low"], got["high"]


def measure_intervals(
    engine: ResampledMeasures, seed: int, n: int, confidence_level: float, method: str
) -> tuple[dict[str, np.ndarray], dict[str, Intervals]]:
    """Estimates (r × k) and intervals (rows i·k + α) of every measure of ``engine`` from ``n``
    resamples drawn from ``seed``.

    Distributions that fit in :data:`KEEP_BYTES` are kept, and their quantiles selected in one
    pass; larger ones are streamed: the resamples are drawn again for each pass of
    :func:`riskeval.inference.order_statistics.streamed_intervals` (usually two), and memory no
    longer depends on ``n``.  Both give the same bounds and p-values.
    """
    point = engine.point()
    estimate = np.concatenate([point[m].ravel() for m in engine.wanted])
    rows = estimate.size
    a = np.zeros(rows)
    if method == "bca":
        jack = engine.jackknife()
        a = bca_acceleration(np.concatenate([jack[m].reshape(-1, engine.c) for m in engine.wanted]))
    paired = sum(m in _PAIRED for m in engine.wanted)
    kept_rows = max(paired, len(engine.wanted) - paired) * (rows // len(engine.wanted))
    if (kept_rows + engine.c) * n * 8 <= KEEP_BYTES:  # a pair of measures and the topic counts
        sums, low, high = _kept_intervals(engine, seed, n, estimate, a, confidence_level, method)
    else:

        def probs_of(sums: Summaries) -> tuple[np.ndarray, np.ndarray]:
            return interval_probs(_bca_z0(sums, method), a, confidence_level)

        sums, (low, high) = streamed_intervals(lambda: engine.stream(seed, n), rows, estimate, probs_of)
    iv = _intervals(sums, _bca_z0(sums, method), a, low, high)
    per = rows // len(engine.wanted)
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
    point, ivs = measure_intervals(engine, used_seed, n, cl, method)
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
        p1, p2 = interval_probs(self.bias_correction, self.acceleration, cl)
        boot = np.ascontiguousarray(self.bootstrap_distribution[None, :])
        low, high = quantiles(boot, summaries(boot, np.array([self.statistic])), p1, p2)
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
    measure: str = "georisk",
    alpha: float = 0.0,
    baseline: Any = "mean",
    method: str = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: Any = None,
) -> BootstrapDifferenceResult:
    """Is one system's ZRisk/GeoRisk (or URisk/TRisk) different from another's?  Bootstrap over
    topics of the difference, with an interval and a p-value.

    Both systems are measured on the same resampled topics; for ZRisk and GeoRisk every resample
    recomputes the chi-square matrix of all the systems of ``X`` (each one a baseline of the others,
    as :func:`riskeval.georisk` with ``baseline=None``).  ``baseline`` is used by URisk and TRisk
    only.  Returns a :class:`BootstrapDifferenceResult` (``statistic, pvalue = result``).
    """
    func = "bootstrap_difference"
    M = as_matrix(X)
    measure = check_option(measure, MEASURES, func, "measure")
    alpha = check_alpha(alpha, func)
    method = check_option(method, BOOTSTRAP_METHODS, func, "method")
    cl = check_level(confidence_level, func, "confidence_level")
    n = check_n_resamples(n_resamples, func, minimum=2)
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

    def diff(v: dict[str, np.ndarray]) -> np.ndarray:
        x = v[measure][:, 0]  # r × (1 or resamples)
        return np.atleast_1d(x[idx[0]] - x[idx[1]])

    est = diff(engine.point())
    boot = diff(engine.resample(gen, n))
    jack = diff(engine.jackknife()) if method == "bca" else None
    iv = intervals(boot[None, :], est, None if jack is None else jack[None, :], cl, method)
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
) -> pd.DataFrame:
    """Each system's rank under URisk, TRisk, ZRisk or GeoRisk, with a bootstrap interval.

    Systems are ranked on every resample of topics (1 = the largest value, ties share the best
    rank); ``rank_low``–``rank_high`` is the percentile interval of a system's ranks (the lower and
    upper quantiles, so both are ranks).  ``baseline`` is used by URisk and TRisk; ZRisk and
    GeoRisk use every system of the matrix as a baseline.

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
    _, seed = resolve_rng(rng, func)
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

    # each system's ranks counted block by block (r × r counts): nothing kept per resample
    counts = np.zeros((r, r + 1), dtype=np.int64)
    for block in engine.stream(seed, n):  # systems × resamples
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
