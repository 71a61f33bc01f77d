"""``risk_table``: every risk measure of every system against one baseline, over a grid of α.

One pass over the matrix gathers the sufficient statistics (``URisk(α) = UGain − α·FRisk``, the
variance of ``x(α)`` from those of ``δ⁺``, ``δ⁻`` and their covariance, ``ZRisk(α) = Z⁺ + (1+α) Z⁻``);
each α then costs O(r).  The table follows the layout of Table 6 of Dinçer, Macdonald & Ounis
(SIGIR 2016): URisk and TRisk against the chosen baseline, T*Risk against the per-topic MEAN, ZRisk and
GeoRisk with every system of the matrix as a baseline.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from riskeval.analysis.by_measure import check_systems, for_each_measure, select_systems
from riskeval.core import chisq, paired
from riskeval.core.corrections import adjust_pvalues
from riskeval.core.paired import topic_major
from riskeval.core.pvalues import t_pvalue
from riskeval.errors import RiskevalError, RiskevalWarning
from riskeval.measures.baselines import ResolvedBaseline, resolve_baseline
from riskeval.measures.declared import NEEDS, RISK_MEASURES, RiskMeasure, TRisk, expand_risks
from riskeval.model.matrix import as_matrix
from riskeval.options import ALTERNATIVES, check_option
from riskeval.settings import RiskSettings, resolve_settings

_SYSTEMS = "The 'systems' parameter of risk_table"
#: The columns every table keeps, before those of the risk measures.
_ALWAYS = ("system", "alpha", "baseline", "leave_one_out", "mean", "baseline_mean")


def columns_of(measures: Any = None) -> tuple[str, ...]:
    """The columns of :func:`risk_table`: those every table keeps, then the columns that show each
    declared risk measure (:meth:`RiskMeasure.shown_columns`), in the order of
    :data:`RISK_MEASURES`; ``measures``: only those of these measures (classes or objects)."""
    wanted = None if measures is None else {m if isinstance(m, type) else type(m) for m in measures}
    shown = (cls.shown_columns() for cls in RISK_MEASURES.values() if wanted is None or cls in wanted)
    return _ALWAYS + tuple(name for names in shown for name in names)


def __getattr__(name: str) -> Any:
    if name == "COLUMNS":  # the registry may grow (register_risk): read it when asked
        return columns_of()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def risk_table(
    X: Any,
    baseline: Any = None,
    alphas: Any = None,
    *,
    risk: Any = None,
    settings: RiskSettings | None = None,
    se: str | None = None,
    level: float | None = None,
    correction: str | None = None,
    leave_one_out: bool | None = None,
    alternative: str = "two-sided",
    systems: Any = None,
) -> pd.DataFrame:
    """Tidy table of risk measures, one row per (system, α), systems in matrix order.

    Parameters
    ----------
    X : systems × topics score matrix (DataFrame or 2-D array); or several measures at once, a
        mapping measure name -> matrix or a long table with columns ``system, topic, measure,
        score`` (see :func:`riskeval.model.by_measure.measure_matrices`): then one table per
        measure, stacked, with a ``measure`` column first.
    baseline : ``"mean"``, ``"median"``, ``"max"``, a system name, or a per-topic vector (Dinçer,
        Ounis & Macdonald, ECIR 2014, §3); default the settings' (``"mean"``).
    alphas : risk-aversion values α ≥ 0; default the settings' (0, 1, 5, 10).
    risk : the risk measures to show (objects such as ``riskeval.URisk(alpha=5)``, their text
        such as ``"GeoRisk@5"``, or a list of them); default every measure.  The table then has the
        rows at the α of the measures (a measure without α: every α of the settings) and the
        columns of those measures, besides ``system, alpha, baseline, leave_one_out, mean,
        baseline_mean``.  A :class:`riskeval.TRisk` with its own ``se`` sets the standard error.
    settings : :class:`riskeval.RiskSettings`
        The baseline, α grid, level, correction, leave-one-out and SE in one object; the keywords
        given here override its values.
    se : ``"parametric"`` (eq. 12 of Dinçer, Macdonald & Ounis, SIGIR 2014) or ``"jackknife"``
        (eq. 17–18).  For URisk, a mean, the jackknife SE equals ``s_x/√c`` exactly, so the table
        computes both from the closed form and records the choice in ``se_method``;
        :func:`riskeval.trisk` computes the jackknife from the leave-one-out values, and the tests
        check that the two agree.
    level : significance level of ``significant`` (default 0.05).
    correction : ``None``, ``"holm"``, ``"bh"`` or ``"bonferroni"``: adjust the TRisk p-values across
        systems, separately for each α, into ``pvalue_adj`` (used for ``significant``).
    leave_one_out : aggregate baselines (and the MEAN of T*Risk) exclude the evaluated system.
    alternative : ``"two-sided"`` (default), ``"less"`` (the system loses to its baseline:
        URisk < 0) or ``"greater"``, the alternative hypothesis of the TRisk p-value, as in
        :func:`scipy.stats.ttest_rel`; a one-sided table has an ``alternative`` column.
    systems : names (a list or a comma list) of the systems whose rows to return; the MEAN,
        MEDIAN and MAX baselines, ZRisk, GeoRisk, ranks and corrected p-values are still over
        every system of ``X``.  Unknown names are an error listing close matches.

    Notes
    -----
    Columns (:func:`columns_of`): ``system, alpha, baseline, leave_one_out, mean, baseline_mean``,
    then the columns of each declared risk measure (:data:`riskeval.measures.declared.RISK_MEASURES`,
    in its order; :meth:`~riskeval.measures.declared.RiskMeasure.shown_columns`): ``urisk, ugain,
    freward, frisk, rank_urisk, wins, losses, ties, loss20, reward_risk, win_loss`` (URisk),
    ``trisk, se, se_method, df, level, [alternative,] critical, pvalue, [correction, pvalue_adj,]
    significant, rank_trisk, reason`` (TRisk), ``tstar``, ``zrisk``, ``georisk, rank_georisk``, and
    those of a measure declared with ``register_risk`` (its value from its sums, as the others).
    ``correction`` and ``pvalue_adj`` only with a correction.
    ``rank_*``: rank of the system among the systems at the same α (1 = highest value, ties share
    their mean rank, as the R columns of Tables 1–3 of Dinçer, Ounis & Macdonald, ECIR 2014); NaN
    where the value is NaN and, for URisk and TRisk, for the system that is the baseline.  The
    settings are columns, so tables concatenate and merge without losing them.  ``critical`` is
    ``t(1 − level/2, df)`` (one-sided: ``t(1 − level, df)``); ``significant`` (bool) is
    ``pvalue < level``, or ``pvalue_adj < level`` with a correction.  ``trisk``/``pvalue`` are NaN,
    with ``reason`` set, where the SE is 0 (the system is the baseline or its risk-reward scores
    are constant).  ``zrisk``/``georisk`` are over the whole matrix (every system a baseline) and
    NaN, with a warning, if a score is < 0.
    """
    s = resolve_settings(
        settings,
        "risk_table",
        baseline=baseline,
        alphas=alphas,
        se=se,
        level=level,
        correction=correction,
        leave_one_out=leave_one_out,
    )
    alternative = check_option(alternative, ALTERNATIVES, "risk_table", "alternative")
    several = for_each_measure(
        X,
        lambda M: risk_table(M, risk=risk, settings=s, alternative=alternative, systems=systems),
    )
    if several is not None:
        return several
    columns = columns_of()
    if risk is not None:
        s, columns = restrict_to_risks(s, risk, "risk_table")
    M = as_matrix(X)
    check_systems(systems, M.index, _SYSTEMS)
    A = np.asarray(s.alphas, dtype=np.float64)
    values = M.to_numpy()
    r, c = values.shape
    if c < 2:
        raise RiskevalError(f"risk_table needs at least two topics; the matrix has {c}.")
    bases = baselines_of(M, s, NEEDS, "risk_table")
    base = bases["baseline"]
    assert base is not None
    table = table_from_sums(
        M.index,
        A,
        sums_for(values, bases),
        topic_major(values).sum(axis=0),
        base.name,
        np.broadcast_to(base.values.mean(axis=-1), (r,)),
        base.is_self,
        se=s.se,
        level=s.level,
        correction=s.correction,
        leave_one_out=s.leave_one_out,
        alternative=alternative,
    )
    table = select_systems(table, systems, M.index, _SYSTEMS)
    return table[[name for name in table.columns if name in columns]] if risk is not None else table


def restrict_to_risks(s: RiskSettings, risk: Any, func: str) -> tuple[RiskSettings, tuple[str, ...]]:
    """The settings with the α of the measures ``risk`` (and a TRisk's own SE), and the columns of
    :func:`risk_table` that show them; ``func`` names the caller in errors."""
    measures = expand_risks(risk, s.alphas, func)
    se = {m.se for m in measures if isinstance(m, TRisk) and m.se != "parametric"}
    if len(se) > 1 or (se and any(isinstance(m, TRisk) and m.se == "parametric" for m in measures)):
        raise RiskevalError(
            f"{func}: the TRisk measures of one table must share their standard error (se). "
            f"Got {', '.join(str(m) for m in measures if isinstance(m, TRisk))}."
        )
    alphas = tuple(sorted({float(m.alpha) for m in measures if m.alpha is not None}))
    return s.replace(alphas=alphas, se=se.pop() if se else None), columns_of(measures)


def baselines_of(
    M: pd.DataFrame, s: RiskSettings, needs: Any, func: str
) -> dict[str, ResolvedBaseline | None]:
    """What each of ``needs`` (:data:`riskeval.measures.declared.NEEDS`) is computed against:
    ``"baseline"`` the settings' baseline, ``"mean"`` the per-topic MEAN (the same when the
    settings' baseline is the MEAN; leave-one-out with the settings when there are two systems or
    more), ``"matrix"`` nothing (``None``: every system a baseline of the others).  Every consumer
    takes its baselines here, so that their sums, and the measures from them, are the same bits."""
    out: dict[str, ResolvedBaseline | None] = {}
    base = None
    if "baseline" in needs or "mean" in needs:
        base = resolve_baseline(M, s.baseline, func, leave_one_out=s.leave_one_out)
    if "baseline" in needs:
        out["baseline"] = base
    if "mean" in needs:
        assert base is not None
        loo = s.leave_one_out and len(M) > 1
        out["mean"] = base if base.name == "MEAN" else resolve_baseline(M, "mean", func, leave_one_out=loo)
    if "matrix" in needs:
        out["matrix"] = None
    return out


def sums_for(
    values: np.ndarray, bases: dict[str, ResolvedBaseline | None], weights: Any = None, counts: bool = True
) -> dict[str, Any]:
    """:func:`sums_of` of each need of ``bases`` (:func:`baselines_of`), computed once for needs
    that share their baseline (the MEAN of T*Risk when it is the settings' baseline); ``weights``
    and ``counts`` as :func:`sums_of` takes them."""
    done: dict[int, Any] = {}
    out = {}
    for need, base in bases.items():
        key = id(base)
        if key not in done:
            done[key] = sums_of(values, base, weights, counts)
        out[need] = done[key]
    return out


def sums_of(
    values: np.ndarray, base: ResolvedBaseline | None, weights: Any = None, counts: bool = True
) -> Any:
    """The sufficient statistics a risk measure is computed from: the paired sums of ``values``
    against ``base`` (:func:`riskeval.core.paired.paired_sums`, without wins, losses and Loss>20%
    unless ``counts``), or with ``base=None`` the chi-square sums of the whole matrix
    (:func:`riskeval.core.chisq.zsums`; ``None`` when a score is negative).  ``weights`` as those
    functions take them (rows of topic weights)."""
    if base is not None:
        return paired.paired_sums(values, base.values, weights, counts)
    if weights is None and values.size and values.min() < 0:
        return None
    return chisq.zsums(values, weights=weights)


def needing(need: str) -> str:
    """The names of the declared measures with this need, as a sentence lists them ("ZRisk and
    GeoRisk")."""
    names = [cls.name for cls in RISK_MEASURES.values() if cls.needs == need]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def measure_value(measure: RiskMeasure, sums: Any, alpha: np.ndarray) -> np.ndarray:
    """``measure.value(sums, alpha)``: one value per element of the sums' arrays broadcast with α
    (a value that does not depend on α broadcasts along it).  Any other shape is refused, with
    the reason, as :meth:`RiskMeasure.value` declares."""
    v = np.asarray(measure.value(sums, alpha), dtype=np.float64)
    shape = np.broadcast_shapes(*{np.shape(f) for f in sums}, np.shape(alpha))
    if v.shape == shape:
        return v
    try:
        if np.broadcast_shapes(v.shape, np.shape(alpha)) == shape:
            return np.broadcast_to(v, shape)
    except ValueError:
        pass
    raise RiskevalError(
        f"{type(measure).__name__}.value(sums, alpha) returned an array of shape {v.shape}, where "
        f"its sums' arrays and alpha broadcast to {shape}: compute it element by element from them "
        "(numpy broadcasting), one value per system, α and resample."
    )


def table_from_sums(
    systems: pd.Index,
    A: np.ndarray,
    sums: dict[str, Any],
    row_sums: np.ndarray,
    baseline_name: str,
    baseline_mean: np.ndarray,
    is_self: np.ndarray,
    *,
    se: str,
    level: float,
    correction: str | None,
    leave_one_out: bool,
    alternative: str = "two-sided",
) -> pd.DataFrame:
    """The :func:`risk_table` of the sufficient statistics of a matrix, however they were gathered
    (in memory, or merged from partial sums over a table that does not fit in memory), one entry
    per need of :data:`riskeval.measures.declared.NEEDS`: ``"baseline"`` the paired sums against
    the baseline, ``"mean"`` against the per-topic MEAN, ``"matrix"`` the chi-square sums of the
    whole matrix (``None`` when a score is negative: the measures that need them are then NaN, with
    a warning); ``row_sums`` each system's total score, ``baseline_mean`` the mean of each system's
    baseline over the topics, ``is_self`` the systems that are the baseline.

    Every declared measure (:data:`riskeval.measures.declared.RISK_MEASURES`) is its
    ``value(sums, α)``; TRisk adds its standard error, p-value and significance, every ranked
    measure its rank."""
    r = len(systems)
    base = sums["baseline"]
    c = round(base.n)
    a = A[:, None]  # α on the first axis, systems on the second: arrays (k, r)
    df = c - 1
    per_alpha: dict[str, np.ndarray] = {}
    missing = [cls.column for cls in RISK_MEASURES.values() if sums.get(cls.needs) is None]
    if missing:
        warnings.warn(
            f"risk_table: {needing('matrix')} need scores >= 0; the matrix has negative scores, so "
            f"the {', '.join(missing)} columns are NaN.",
            RiskevalWarning,
            stacklevel=3,
        )
    ranked = {}  # the rank columns, and what they rank: NaN for the baseline system itself
    for cls in RISK_MEASURES.values():
        need = sums.get(cls.needs)
        value = np.full((A.size, r), np.nan) if need is None else measure_value(cls(), need, a)
        per_alpha[cls.column] = value
        if cls.ranked:
            ranked[f"rank_{cls.column}"] = (
                np.where(is_self, np.nan, value) if cls.needs == "baseline" else value
            )
    if ranked:
        per_alpha.update(zip(ranked, _ranks(np.vstack(list(ranked.values())), A.size), strict=True))
    t = per_alpha[TRisk.column]
    err, constant = paired.standard_error(base, a)
    pvalue = t_pvalue(t, df, alternative)
    pvalue_adj = (
        np.vstack([adjust_pvalues(row, correction) for row in pvalue])
        if correction
        else np.full_like(pvalue, np.nan)
    )
    decisive = pvalue_adj if correction else pvalue
    per_alpha.update(
        se=err,
        pvalue=pvalue,
        pvalue_adj=pvalue_adj,
        significant=np.nan_to_num(decisive, nan=1.0) < level,
    )
    rr = paired.risk_reward_sums(base)
    per_system = {
        "mean": row_sums / c,
        "baseline_mean": baseline_mean,
        **rr._asdict(),
    }
    k = A.size
    # system as a Categorical (codes + one copy of the names) keeps matrix order and is cheap
    system = pd.Categorical.from_codes(np.repeat(np.arange(r), k), categories=systems)
    table = {
        "system": system,
        "alpha": np.tile(A, r),
        "baseline": baseline_name,
        "leave_one_out": bool(leave_one_out),
        "se_method": se,
        "df": df,
        "level": level,
        "alternative": alternative,
        "critical": float(stdtrit(df, 1 - (level / 2 if alternative == "two-sided" else level))),
        "correction": correction,
    }
    table.update({name: np.repeat(v, k) for name, v in per_system.items()})
    table.update({name: v.T.ravel() for name, v in per_alpha.items()})
    table["reason"] = _reasons(is_self, base, constant.T.ravel(), k)
    if correction is None:
        del table["correction"], table["pvalue_adj"]
    if alternative == "two-sided":
        del table["alternative"]
    return pd.DataFrame({name: table[name] for name in columns_of() if name in table})


def _ranks(values: np.ndarray, k: int) -> np.ndarray:
    """Rank of each system (columns) within each row: 1 = highest, ties averaged, NaN kept; the
    rows (measures stacked, ``k`` α each) come back split per measure, (measures, k, r)."""
    ranks = pd.DataFrame(values).rank(axis=1, ascending=False, method="average").to_numpy()
    return ranks.reshape(-1, k, values.shape[1])


def _reasons(is_self: np.ndarray, sums: paired.PairedSums, zero: np.ndarray, k: int) -> np.ndarray:
    identical = np.repeat((sums.wins == 0) & (sums.losses == 0), k)
    reason = np.full(zero.shape, None, dtype=object)
    reason[zero] = "zero variance of the per-topic risk-reward scores (up to rounding)"
    reason[zero & identical] = "the system equals the baseline on every topic"
    reason[zero & np.repeat(is_self, k)] = "the system is the baseline"
    return reason
