"""Risk measures of a long score table that does not fit in memory, from mergeable partial sums.

The input is a long table with one row per (system, topic) score and the columns ``system, topic,
score`` (and ``measure`` when it holds several measures, as :func:`riskeval.io.evaluate_runs_long`
writes it): a partitioned Parquet data set, a ``dask.dataframe.DataFrame`` or a pandas DataFrame.
Each partition is reduced to a few numbers per system and per topic, and the partial results are
merged in a tree, so no worker ever holds more than one partition and the merged sums.

**Two passes** over the data, because the measures need totals over every system before any one
system's sums can be formed:

1. per topic: the number of systems, the sum of scores ``T_j``, the largest and the smallest score,
   and the baseline system's score; per system: the number of topics and the row total ``S_i``.
   These give the MEAN and MAX baselines (:func:`riskeval.core.baselines.aggregate_from_totals`;
   the leave-one-out MEAN per row by :func:`~riskeval.core.baselines.loo_mean`) and the
   chi-square expectation ``e_ij = S_i T_j / N`` of ZRisk and GeoRisk (Dinçer, Macdonald & Ounis,
   SIGIR 2016, eq. 4–8).  Partitions are folded into running totals in chains of ``_FAN_IN``.
2. per system, by the primitives of :mod:`riskeval.core`: the paired sums of Dinçer, Macdonald &
   Ounis (SIGIR 2014, eq. 1–4 and 7–12) against the baseline and against the MEAN (for T*Risk),
   :func:`~riskeval.core.paired.grouped_paired_sums`: each system's cells of the partition, with
   their baselines, are a row of :func:`~riskeval.core.paired.paired_sums`, the one computation of
   the table and the bootstrap; ``Σ max(z_ij, 0)`` and ``Σ z_ij`` of the
   residuals :func:`~riskeval.core.chisq.residual`; and three 20-bit hash sums of its topics for
   the completeness check: every system must score every topic once (equal counts and hash sums; a
   repeated or missing row is an error naming the system).  Partial sums merge by
   :func:`~riskeval.core.paired.merge_paired` (the update of Chan, Golub & LeVeque, 1979) in a tree.

The merged sums go to the same code as the in-memory :func:`riskeval.risk_table`
(:func:`riskeval.analysis.table.table_from_sums`), so the table has the same columns and, up to the
rounding of sums taken in another order, the same values.  Baselines: ``"mean"`` (also leave-one-out),
``"max"``, a system name, or a per-topic Series; ``"median"`` needs every score of a topic at once
and is refused.  Systems and topics keep the order in which they first appear in the table.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from riskeval._optional import require
from riskeval.analysis.table import restrict_to_risks, table_from_sums
from riskeval.core import baselines, chisq, paired
from riskeval.distributed.long_input import Piece, partitions
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import baseline_option, listed
from riskeval.measures.paired import topic_risk
from riskeval.model.matrix import MAX_MAGNITUDE
from riskeval.options import AGGREGATES, ALTERNATIVES, check_option
from riskeval.settings import RiskSettings, resolve_settings

#: Partial results merged per task in the tree reduction.
_FAN_IN = 8
_PART = 2**40  # first-appearance order: partition number × _PART + rank within the partition
#: how the per-topic and per-system totals of partitions merge
_TOPIC_MERGE = {
    "count": "sum",
    "sum": "sum",
    "max": "max",
    "min": "min",
    "base": "sum",
    "base_count": "sum",
    "first": "min",
}
_SYSTEM_MERGE = {"count": "sum", "sum": "sum", "first": "min"}


def long_risk_table(
    source: Any,
    baseline: Any = None,
    alphas: Any = None,
    *,
    measure: str | None = None,
    risk: Any = None,
    settings: RiskSettings | None = None,
    se: str | None = None,
    level: float | None = None,
    correction: str | None = None,
    leave_one_out: bool | None = None,
    alternative: str = "two-sided",
) -> pd.DataFrame:
    """:func:`riskeval.risk_table` of a long (system, topic, [measure,] score) table, out of core.

    Parameters
    ----------
    source : a Parquet file or folder of Parquet files (a glob too), a ``dask.dataframe.DataFrame``
        or a pandas DataFrame, with columns ``system, topic, score`` and optionally ``measure``.
    measure : the IR measure to use when the table has a ``measure`` column; ``None`` when it
        holds one.
    baseline, alphas, risk, settings, se, level, correction, leave_one_out, alternative : as for
        :func:`riskeval.risk_table` (the keywords default to the settings'; ``risk`` keeps the
        rows at the measures' α and their columns); ``baseline`` is ``"mean"``, ``"max"``, a
        system name or a Series indexed by topic.

    Notes
    -----
    Runs on the active ``dask.distributed.Client`` when there is one (else Dask's local scheduler),
    in two passes over the data (see the module's documentation).  Returns the table of
    :func:`riskeval.risk_table`, systems in the order they first appear.
    """
    func = "long_risk_table"
    s = resolve_settings(
        settings,
        func,
        baseline=baseline,
        alphas=alphas,
        se=se,
        level=level,
        correction=correction,
        leave_one_out=leave_one_out,
    )
    alternative = check_option(alternative, ALTERNATIVES, func, "alternative")
    columns = None
    if risk is not None:
        s, columns = restrict_to_risks(s, risk, func)
    A = np.asarray(s.alphas, dtype=np.float64)
    parts = partitions(source, measure, func, _compute)
    totals = _first_pass(parts, s.baseline, _table_name(source))
    base = _baseline(totals, s.baseline, s.leave_one_out, func)
    need_mean = base.name != "MEAN"
    shared = _delayed(_Shared(*totals.keys(), base.info), pure=True)  # one copy per worker
    part = _reduce([_delayed(_paired_part)(part, shared, need_mean) for part in parts], _merge_parts)
    c = len(totals.topics)
    _complete(
        totals.systems[(part.hashes != _topic_hashes(np.arange(c)).sum(axis=1)[:, None]).any(axis=0)], c
    )
    sums = part.sums._replace(n=float(c))
    mean_sums = part.mean_sums._replace(n=float(c)) if part.mean_sums is not None else sums
    z = chisq.ZSums(part.zp, part.zs - part.zp, totals.S, float(c)) if totals.min >= 0 else None
    is_self = np.asarray(totals.systems == base.name) if base.system else np.zeros(len(totals.systems), bool)
    table = table_from_sums(
        totals.systems,
        A,
        {"baseline": sums, "mean": mean_sums, "matrix": z},
        totals.S,
        base.name,
        base.mean,
        is_self,
        se=s.se,
        level=s.level,
        correction=s.correction,
        leave_one_out=s.leave_one_out,
        alternative=alternative,
    )
    return table if columns is None else table[[name for name in table.columns if name in columns]]


def long_topic_risk(
    source: Any,
    system: str,
    baseline: Any = None,
    alpha: float = 1.0,
    *,
    measure: str | None = None,
    settings: RiskSettings | None = None,
    level: float | None = None,
    correction: str | None = None,
    leave_one_out: bool | None = None,
    alternative: str = "two-sided",
) -> pd.DataFrame:
    """The per-topic analysis (:func:`riskeval.analysis.topics.system_topic_risk`) of one system of
    a long table, out of core: the first pass gives the baseline, a second pass the system's scores
    (one per topic: small), and :func:`riskeval.topic_risk` the table.  ``baseline``, ``level``,
    ``correction`` and ``leave_one_out`` default to those of ``settings``; ``alternative`` is that
    of :func:`riskeval.topic_risk`."""
    func = "long_topic_risk"
    s = resolve_settings(
        settings, func, baseline=baseline, level=level, correction=correction, leave_one_out=leave_one_out
    )
    parts = partitions(source, measure, func, _compute)
    totals = _first_pass(parts, s.baseline, _table_name(source))
    if system not in totals.systems:
        raise RiskevalError(f"No system {system!r} in the table; it has {listed(totals.systems)}.")
    base = _baseline(totals, s.baseline, s.leave_one_out, func)
    found = _compute(_delayed(pd.concat)([_delayed(_system_scores)(part, system) for part in parts]))
    _complete(pd.Index([system]) if found.index.has_duplicates else pd.Index([]), len(totals.topics))
    x = found.reindex(totals.topics).to_numpy()
    b = (
        base.info.values
        if base.info.values is not None
        else baselines.equal_scores_exact(
            baselines.loo_mean(totals.T, x, len(totals.systems)), totals.low, totals.max
        )
    )
    if base.name == "MEAN":  # a score within rounding of its MEAN ties with it, as in memory
        b = baselines.cell_ties(x, b, totals.low, totals.max)
    return topic_risk(
        pd.Series(x, index=totals.topics, name=system),
        pd.Series(b, index=totals.topics, name=base.name),
        alpha,
        settings=s,
        alternative=alternative,
    )


# --- input -------------------------------------------------------------------------------------


def _compute(work: Any) -> Any:
    """``work.compute()``.  Dask computes again what a lost worker held (the table's partitions are
    read from files or held in the task graph, never scattered, so nothing is lost for good); a task
    whose workers keep dying (Dask's ``KilledWorker``, after ``distributed.scheduler.allowed-failures``
    deaths) is a RiskevalError.  In a process that never imported ``distributed`` no client can be
    active: the work runs on Dask's local threads (its default) without importing it to look for one."""
    dask = require("dask", "Risk over a long table on Dask")
    if "distributed" not in sys.modules and dask.config.get("scheduler", None) is None:
        return work.compute(scheduler=require("dask.threaded", "Risk over a long table on Dask").get)
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # dask without distributed: no worker to lose
        return work.compute()
    try:
        return work.compute()
    except KilledWorker as exc:
        raise RiskevalError(
            f"The Dask workers died each time they ran a task of the long table ({exc}). Check the "
            "workers' memory limit (a partition and its sums must fit) and their logs."
        ) from None


def _delayed(func: Any, **kwargs: Any) -> Any:
    return require("dask", "Risk over a long table on Dask").delayed(func, **kwargs)


def _positions(codes: np.ndarray, labels: pd.Index, index: pd.Index) -> np.ndarray:
    """The position in ``index`` of each row's label ``labels[codes]``: the partition's few labels
    are looked up once each, not every row."""
    return index.get_indexer(labels)[codes]


def _reduce(partials: list[Any], merge: Any) -> Any:
    """Merge delayed partial results in a tree of ``_FAN_IN`` and compute the root."""
    if not partials:
        raise RiskevalError("The long table has no partition.")
    while len(partials) > 1:
        partials = [_delayed(merge)(*partials[i : i + _FAN_IN]) for i in range(0, len(partials), _FAN_IN)]
    return _compute(partials[0])


# --- pass 1: per-topic and per-system totals ---------------------------------------------------


class _Totals(NamedTuple):
    systems: pd.Index
    topics: pd.Index
    S: np.ndarray  # row totals
    T: np.ndarray  # column totals
    max: np.ndarray  # per-topic largest score
    low: np.ndarray  # per-topic smallest score
    base: np.ndarray  # the scores of the system named as the baseline, per topic (NaN: none named)
    min: float

    def keys(self) -> tuple[pd.Index, pd.Index, np.ndarray, np.ndarray, np.ndarray]:
        """What the second pass needs: the labels, ``a_i = √(S_i/N)``, ``q_j = √T_j`` and the
        topics' hashes."""
        N = float(self.S.sum())
        a = np.sqrt(np.maximum(self.S, 0.0) / N) if N > 0 else np.zeros(len(self.S))
        hashes = _topic_hashes(np.arange(len(self.topics)))
        return self.systems, self.topics, a, np.sqrt(np.maximum(self.T, 0.0)), hashes


def _table_name(source: Any) -> str:
    """How errors name the table: its path, as the in-memory readers name a file."""
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else "The long table"


def _first_pass(parts: list[Any], baseline: Any, where: str) -> _Totals:
    name = baseline if isinstance(baseline, str) and baseline not in AGGREGATES else None
    # Each per-topic partial holds every topic of its partitions: a tree would keep many of them at
    # once.  Instead chains fold their partitions into one running total each, _FAN_IN partitions a
    # chain (so the number of chains, and the order of the sums, depend on the table alone).
    chains = -(-len(parts) // _FAN_IN)
    running = []
    for w in range(chains):
        total = None
        for k in range(w, len(parts), chains):
            total = _delayed(_totals_step)(total, parts[k], k, name)
        running.append(total)
    merged = _reduce(running, _merge_totals)
    bad, huge, topics, systems = merged
    if bad is not None:
        raise RiskevalError(f"{where} has a score that is not a finite number: {bad}.")
    if huge is not None:  # the message of riskeval.model.matrix.as_matrix, for the same cells
        raise RiskevalError(
            f"{where} has {huge[0]} infinite or huge cell(s), e.g. {huge[1]}: scores must be finite "
            f"numbers of magnitude below {MAX_MAGNITUDE:g} (rescale them, which changes no ranking)."
        )
    topics = topics.sort_values("first")
    systems = systems.sort_values("first")
    c = len(topics)
    if c < 2:
        raise RiskevalError(f"Risk over a long table needs at least two topics; the table has {c}.")
    _complete(systems.index[systems["count"] != c], c)
    smallest = float(topics["min"].min())
    return _Totals(
        pd.Index(systems.index, name="system"),
        pd.Index(topics.index, name="topic"),
        systems["sum"].to_numpy(),
        topics["sum"].to_numpy(),
        topics["max"].to_numpy(),
        topics["min"].to_numpy(),
        (topics["base"] / topics["base_count"]).to_numpy(),
        smallest,
    )


def _complete(wrong: pd.Index, c: int) -> None:
    """Refuse the table when some systems (``wrong``) lack topics or score one twice."""
    if len(wrong):
        raise RiskevalError(
            f"Every system must have one score for each of the {c} topics of the long table; "
            f"{len(wrong)} system(s) have missing or repeated topics: {listed(wrong, 5)}. Apply a "
            "missing-topic policy first (riskeval.io.evaluate_runs_long(..., missing='zero' or 'drop'))."
        )


def _topic_hashes(j: np.ndarray) -> np.ndarray:
    """Three 20-bit parts of a 64-bit mix (SplitMix64's finaliser) of topic numbers ``j``, as float64:
    per system, their sums over its rows equal their sums over all topics when it scores each topic
    once (sums of 20-bit integers are exact in float64 up to 2³³ rows per system)."""
    with np.errstate(over="ignore"):
        z = j.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    mask = np.uint64(0xFFFFF)
    return np.stack([(z >> np.uint64(s)) & mask for s in (0, 20, 40)]).astype(np.float64)


def _totals_step(total: Any, part: Piece, k: int, base_system: str | None) -> Any:
    step = _totals_part(part, k, base_system)
    return step if total is None else _merge_totals(total, step)


def _totals_part(part: Piece, k: int, base_system: str | None) -> tuple[Any, Any, pd.DataFrame, pd.DataFrame]:
    """Per-topic and per-system totals of a partition, over its labels' codes; the labels no row
    uses are left out and the others listed in the order of their first row."""
    score = part.score
    finite = np.isfinite(score)
    bad = huge = None
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        bad = (
            f"system {part.systems[part.system[row]]!r}, topic {part.topics[part.topic[row]]!r}, "
            f"score {float(score[row])!r}"
        )
    elif np.abs(score).max(initial=0.0) >= MAX_MAGNITUDE:
        rows = np.flatnonzero(np.abs(score) >= MAX_MAGNITUDE)
        row = int(rows[0])
        huge = (
            rows.size,
            f"{float(score[row])!r} for system {part.systems[part.system[row]]!r}, "
            f"topic {part.topics[part.topic[row]]!r}",
        )
    tc, sc = part.topic, part.system
    nt, ns = len(part.topics), len(part.systems)
    is_base = (
        np.asarray(part.systems == base_system)[sc] if base_system is not None else np.zeros(len(sc), bool)
    )
    top, low = np.full(nt, -np.inf), np.full(nt, np.inf)
    with np.errstate(invalid="ignore"):  # a NaN score is reported by name (``bad``), not warned about
        np.maximum.at(top, tc, score)
        np.minimum.at(low, tc, score)
    topics, systems = pd.unique(tc), pd.unique(sc)  # codes in the order of their first row
    # labels in order of first appearance, numbered after those of the partitions before
    first_topics, first_systems = k * _PART + np.arange(len(topics)), k * _PART + np.arange(len(systems))
    return (
        bad,
        huge,
        pd.DataFrame(
            {
                "count": np.bincount(tc, minlength=nt)[topics],
                "sum": np.bincount(tc, score, nt)[topics],
                "max": top[topics],
                "min": low[topics],
                "base": np.bincount(tc, np.where(is_base, score, 0.0), nt)[topics],
                "base_count": np.bincount(tc, is_base, nt).astype(np.int64)[topics],
                "first": first_topics,
            },
            index=pd.Index(part.topics[topics], name="topic"),
        ),
        pd.DataFrame(
            {
                "count": np.bincount(sc, minlength=ns)[systems],
                "sum": np.bincount(sc, score, ns)[systems],
                "first": first_systems,
            },
            index=pd.Index(part.systems[systems], name="system"),
        ),
    )


def _merge_totals(
    *partials: tuple[Any, Any, pd.DataFrame, pd.DataFrame],
) -> tuple[Any, Any, pd.DataFrame, pd.DataFrame]:
    bad = next((p[0] for p in partials if p[0] is not None), None)
    huge = [p[1] for p in partials if p[1] is not None]  # (count, the first cell)
    merged = [
        pd.concat([p[k] for p in partials]).groupby(level=0, sort=False).agg(how)
        for k, how in ((2, _TOPIC_MERGE), (3, _SYSTEM_MERGE))
    ]
    return bad, (sum(h[0] for h in huge), huge[0][1]) if huge else None, merged[0], merged[1]


# --- the baseline --------------------------------------------------------------------------------


class _BaseInfo(NamedTuple):
    values: np.ndarray | None  # per topic; None: leave-one-out MEAN, (T_j − x_ij)/(r − 1)
    mean_b: np.ndarray  # the MEAN, T_j / r
    loo: bool  # the MEAN (of T*Risk, and the baseline if it is the MEAN) leaves the system out
    r: int
    T: np.ndarray
    low: np.ndarray  # per topic, the smallest and the largest score
    high: np.ndarray


class _Baseline(NamedTuple):
    name: str
    system: bool
    mean: np.ndarray  # each system's baseline mean over topics (r,)
    info: _BaseInfo


def _baseline(totals: _Totals, spec: Any, leave_one_out: bool, func: str) -> _Baseline:
    """The baseline of a long table (:func:`riskeval.measures.baselines.baseline_option`) from the
    per-topic totals of the first pass: an aggregate by
    :func:`riskeval.core.baselines.aggregate_from_totals` (the leave-one-out MEAN by
    :func:`~riskeval.core.baselines.loo_mean`, per row), a system's scores or a Series."""
    r, c = len(totals.systems), len(totals.topics)
    T = totals.T
    option = baseline_option(
        spec, totals.systems, totals.topics, func, leave_one_out=leave_one_out, partial_sums=True
    )
    loo = leave_one_out and r > 1  # as risk_table: one system has no other to leave in
    mean_b = baselines.aggregate_from_totals("mean", r, T, totals.max, totals.low)
    info = _BaseInfo(None, mean_b, loo, r, T, totals.low, totals.max)
    if option.aggregate == "mean" and loo:
        return _Baseline(option.name, False, baselines.loo_mean(T.sum(), totals.S, r) / c, info)
    if option.values is not None:
        values = option.values
    elif option.aggregate is not None:
        values = baselines.aggregate_from_totals(option.aggregate, r, T, totals.max, totals.low)
    else:
        values = totals.base
    return _Baseline(
        option.name, option.system is not None, np.full(r, values.mean()), info._replace(values=values)
    )


# --- pass 2: per-system paired and chi-square sums ---------------------------------------------


class _Shared(NamedTuple):
    """What every task of the second pass needs: the labels, ``a_i = √(S_i/N)``, ``q_j = √T_j``,
    the topics' hashes (3 × c) and the baseline."""

    systems: pd.Index
    topics: pd.Index
    a: np.ndarray
    q: np.ndarray
    hashes: np.ndarray
    info: _BaseInfo


class _Part(NamedTuple):
    """Partial sums of the second pass over some rows of the table, one entry per system."""

    sums: paired.PairedSums  # against the baseline
    mean_sums: paired.PairedSums | None  # against the MEAN, for T*Risk (None: the baseline is it)
    zp: np.ndarray  # Σ max(z_ij, 0)
    zs: np.ndarray  # Σ z_ij
    hashes: np.ndarray  # 3 × r sums of the topics' hashes (completeness check)


def _paired_part(part: Piece, shared: _Shared, need_mean: bool) -> _Part:
    systems, topics, a, q, hashes, info = shared
    i = _positions(part.system, part.systems, systems)
    j = _positions(part.topic, part.topics, topics)
    x = part.score
    r = len(systems)
    loo = (
        baselines.equal_scores_exact(baselines.loo_mean(info.T[j], x, info.r), info.low[j], info.high[j])
        if info.loo
        else None
    )
    mean = loo if loo is not None else info.mean_b[j]
    b = info.values[j] if info.values is not None else mean  # the leave-one-out MEAN
    if need_mean:  # a score within rounding of its MEAN ties with it, as in memory
        mean = baselines.cell_ties(x, mean, info.low[j], info.high[j])
    else:  # the baseline is the MEAN
        b = baselines.cell_ties(x, b, info.low[j], info.high[j])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = chisq.residual(x, a[i], q[j])
    return _Part(
        paired.grouped_paired_sums(i, x, b, r),
        paired.grouped_paired_sums(i, x, mean, r) if need_mean else None,
        np.bincount(i, np.maximum(z, 0.0), r),
        np.bincount(i, z, r),
        np.stack([np.bincount(i, h[j], r) for h in hashes]),
    )


def _merge_parts(*parts: _Part) -> _Part:
    """Merge partial sums over disjoint rows: sums add, moments by :func:`paired.merge_paired`."""
    mean = [p.mean_sums for p in parts if p.mean_sums is not None]
    return _Part(
        paired.merge_paired([p.sums for p in parts]),
        paired.merge_paired(mean) if mean else None,
        np.sum([p.zp for p in parts], axis=0),
        np.sum([p.zs for p in parts], axis=0),
        np.sum([p.hashes for p in parts], axis=0),
    )


def _system_scores(part: Piece, system: str) -> pd.Series:
    rows = part.system == part.systems.get_indexer([system])[0]
    return pd.Series(part.score[rows], index=part.topics[part.topic[rows]])
