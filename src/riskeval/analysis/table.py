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
from riskeval.core import baselines as agg
from riskeval.core import chisq, paired
from riskeval.core.corrections import adjust_pvalues
from riskeval.core.pvalues import t_pvalue
from riskeval.errors import RiskevalError, RiskevalWarning
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.declared import TRisk, expand_risks
from riskeval.model.matrix import as_matrix
from riskeval.options import ALTERNATIVES, check_option
from riskeval.settings import RiskSettings, resolve_settings

_SYSTEMS = "The 'systems' parameter of risk_table"
COLUMNS = (
    "system",
    "alpha",
    "baseline",
    "leave_one_out",
    "mean",
    "baseline_mean",
    "ugain",
    "freward",
    "frisk",
    "urisk",
    "se",
    "se_method",
    "trisk",
    "df",
    "level",
    "alternative",
    "critical",
    "pvalue",
    "correction",
    "pvalue_adj",
    "significant",
    "tstar",
    "zrisk",
    "georisk",
    "rank_urisk",
    "rank_trisk",
    "rank_georisk",
    "wins",
    "losses",
    "ties",
    "loss20",
    "reward_risk",
    "win_loss",
    "reason",
)


#: The columns every table keeps, and those of each risk measure (by its column name), for the
#: tables restricted to some measures with ``risk=``.
_ALWAYS = ("system", "alpha", "baseline", "leave_one_out", "mean", "baseline_mean")
_COLUMNS_OF = {
    "urisk": (
        "ugain", "freward", "frisk", "urisk", "rank_urisk",
        "wins", "losses", "ties", "loss20", "reward_risk", "win_loss",
    ),
    "trisk": (
        "se", "se_method", "trisk", "df", "level", "alternative", "critical", "pvalue",
        "correction", "pvalue_adj", "significant", "rank_trisk", "reason",
    ),
    "tstar": ("tstar",),
    "zrisk": ("zrisk",),
    "georisk": ("georisk", "rank_georisk"),
}  # fmt: skip


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
    Columns: ``system, alpha, baseline, leave_one_out, mean, baseline_mean, ugain, freward, frisk,
    urisk, se, se_method, trisk, df, level, critical, pvalue, [correction, pvalue_adj], significant,
    tstar, zrisk, georisk, rank_urisk, rank_trisk, rank_georisk, wins, losses, ties, loss20,
    reward_risk, win_loss, reason`` (``correction`` and ``pvalue_adj`` only with a correction).
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
    columns: tuple[str, ...] = COLUMNS
    if risk is not None:
        s, columns = restrict_to_risks(s, risk, "risk_table")
    M = as_matrix(X)
    check_systems(systems, M.index, _SYSTEMS)
    A = np.asarray(s.alphas, dtype=np.float64)
    values = M.to_numpy()
    r, c = values.shape
    if c < 2:
        raise RiskevalError(f"risk_table needs at least two topics; the matrix has {c}.")
    base = resolve_baseline(M, s.baseline, "risk_table", leave_one_out=s.leave_one_out)
    sums = paired.paired_sums(values, base.values)
    if base.name == "MEAN":
        mean_sums = sums
    else:
        mean_b = (
            agg.aggregate_loo(values, "mean") if s.leave_one_out and r > 1 else agg.aggregate(values, "mean")
        )
        mean_sums = paired.paired_sums(values, mean_b)

    table = table_from_sums(
        M.index,
        A,
        sums,
        mean_sums,
        *_zsums(values),
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
    wanted = {m.column for m in measures}
    columns = _ALWAYS + tuple(c for col in _COLUMNS_OF if col in wanted for c in _COLUMNS_OF[col])
    return s.replace(alphas=alphas, se=se.pop() if se else None), columns


def table_from_sums(
    systems: pd.Index,
    A: np.ndarray,
    sums: paired.PairedSums,
    mean_sums: paired.PairedSums,
    z: chisq.ZSums | None,
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
    (in memory, or merged from partial sums over a table that does not fit in memory): ``sums``
    against the baseline, ``mean_sums`` against the per-topic MEAN (T*Risk), ``z`` the chi-square
    sums of the whole matrix (``None`` when a score is negative: ZRisk and GeoRisk are then NaN, with
    a warning), ``row_sums`` each system's total score, ``baseline_mean`` the mean of each system's
    baseline over the topics, ``is_self`` the systems that are the baseline."""
    r = len(systems)
    c = round(sums.n)
    a = A[:, None]  # α on the first axis, systems on the second: arrays (k, r)
    df = c - 1
    u, err, t, constant = _studentised(sums, a)
    pvalue = t_pvalue(t, df, alternative)
    tstar = _studentised(mean_sums, a)[2]
    if z is None:
        warnings.warn(
            "risk_table: ZRisk and GeoRisk need scores >= 0; the matrix has negative scores, so "
            "the zrisk and georisk columns are NaN.",
            RiskevalWarning,
            stacklevel=3,
        )
        zr = geo = np.full((a.shape[0], r), np.nan)
    else:
        zr, geo = chisq.zrisk_from(z, a), chisq.georisk_from(z, a)
    pvalue_adj = (
        np.vstack([adjust_pvalues(row, correction) for row in pvalue])
        if correction
        else np.full_like(pvalue, np.nan)
    )
    decisive = pvalue_adj if correction else pvalue
    significant = np.nan_to_num(decisive, nan=1.0) < level

    rr = paired.risk_reward_sums(sums)
    per_system = {
        "mean": row_sums / c,
        "baseline_mean": baseline_mean,
        **rr._asdict(),
    }
    per_alpha = {
        "urisk": u,
        "se": err,
        "trisk": t,
        "pvalue": pvalue,
        "pvalue_adj": pvalue_adj,
        "significant": significant,
        "tstar": tstar,
        "zrisk": zr,
        "georisk": geo,
    }
    ranked = _ranks(np.vstack([np.where(is_self, np.nan, u), np.where(is_self, np.nan, t), geo]), A.size)
    per_alpha.update(zip(("rank_urisk", "rank_trisk", "rank_georisk"), ranked, strict=True))
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
    table["reason"] = _reasons(is_self, sums, constant.T.ravel(), k)
    if correction is None:
        del table["correction"], table["pvalue_adj"]
    if alternative == "two-sided":
        del table["alternative"]
    return pd.DataFrame({name: table[name] for name in COLUMNS if name in table})


def _ranks(values: np.ndarray, k: int) -> np.ndarray:
    """Rank of each system (columns) within each row: 1 = highest, ties averaged, NaN kept; the
    rows (measures stacked, ``k`` α each) come back split per measure, (measures, k, r)."""
    ranks = pd.DataFrame(values).rank(axis=1, ascending=False, method="average").to_numpy()
    return ranks.reshape(-1, k, values.shape[1])


def _studentised(
    sums: paired.PairedSums, a: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """URisk, its standard error s_x/√c, URisk/SE and where the risk-reward scores are constant up
    to rounding (:func:`paired.zero_spread`; the statistic is NaN there), each (k α × r systems)."""
    u = paired.urisk_from(sums, a)
    sd = np.sqrt(paired.variance_from(sums, a))
    err = sd / np.sqrt(sums.n)
    constant = paired.zero_spread(sd, sums.scale, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(constant, np.nan, u / np.where(constant, 1.0, err))
    return u, err, t, constant


def _zsums(values: np.ndarray) -> tuple[chisq.ZSums | None, np.ndarray]:
    """The chi-square sums of the matrix (``None`` when a score is negative) and its row sums."""
    sums = chisq.totals(values)
    if sums.min < 0:
        return None, sums.S
    return chisq.zsums(values, sums=sums), sums.S


def _reasons(is_self: np.ndarray, sums: paired.PairedSums, zero: np.ndarray, k: int) -> np.ndarray:
    identical = np.repeat((sums.wins == 0) & (sums.losses == 0), k)
    reason = np.full(zero.shape, None, dtype=object)
    reason[zero] = "zero variance of the per-topic risk-reward scores (up to rounding)"
    reason[zero & identical] = "the system equals the baseline on every topic"
    reason[zero & np.repeat(is_self, k)] = "the system is the baseline"
    return reason
