"""Every risk measure with its rank, α by α (Dinçer, Macdonald & Ounis, SIGIR 2016, Table 6).

Table 6 of the paper lists, for the top 8 TREC 2012 Web runs and α = 0, 1, 5, 10, 20, URisk and
TRisk against one baseline run (indriCASP), T*Risk against the per-topic MEAN, ZRisk and GeoRisk
with every run as a baseline, each with the run's rank (R).  :func:`measure_rankings` gives those
values from :func:`riskeval.risk_table` in one tidy table, and :func:`measure_rankings_wide` the
paper's layout.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.analysis.table import restrict_to_risks, risk_table
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure, expand_risks
from riskeval.options import check_alphas
from riskeval.settings import RiskSettings

#: Columns of :func:`measure_rankings`.
COLUMNS = ("system", "alpha", "baseline", "risk", "value", "rank", "mean", "rank_mean")


def measure_rankings(
    X: Any,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0, 20.0),
    *,
    risk: Any = tuple(RISK_MEASURES),
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """Each system's risk measures and their ranks at each α (SIGIR 2016, Table 6).

    ``baseline`` is the baseline of URisk and TRisk (any baseline of :func:`riskeval.risk_table`);
    T*Risk is against the per-topic MEAN, ZRisk and GeoRisk have every system as a baseline, as in
    the paper.  ``risk``: the risk measures (objects or their text; default the five of Table 6,
    URisk, TRisk, TStarRisk, ZRisk, GeoRisk); one with its own α (``"GeoRisk@5"``) is listed at that
    α only, one without at every α of ``alphas``.

    One row per (system, α, measure), systems in matrix order: ``system, alpha, baseline,
    risk`` (the measure's name), ``value, rank, mean, rank_mean``.  ``rank``: 1 = highest value
    among the systems at that α (the lowest for a measure declaring ``higher_is_better=False``),
    ties share their mean rank; a system that is the baseline of a measure against the baseline
    (URisk, TRisk) has no rank there (NaN).  ``mean``/``rank_mean``: the mean score and its rank.
    """
    grid = tuple(float(a) for a in check_alphas(alphas, "measure_rankings"))
    chosen = expand_risks(risk, grid, "measure_rankings")
    s, _ = restrict_to_risks(RiskSettings(alphas=grid), chosen, "measure_rankings")
    t = risk_table(X, baseline=baseline, alphas=s.alphas, se=s.se, leave_one_out=leave_one_out)
    ranks = {m.column: rank_by(t, type(m)) for m in chosen}
    per_system = t.drop_duplicates("system")
    rank_mean = pd.Series(
        per_system["mean"].rank(ascending=False, method="average").to_numpy(),
        index=per_system["system"].astype(str),
    )
    system = t["system"].astype(str)
    names = list(dict.fromkeys(m.name for m in chosen))
    parts = [
        pd.DataFrame(
            {
                "system": system,
                "alpha": t["alpha"],
                "baseline": t["baseline"],
                "risk": m.name,
                "value": t[m.column],
                "rank": ranks[m.column],
                "mean": t["mean"],
                "rank_mean": rank_mean.loc[system].to_numpy(),
            }
        )[(t["alpha"] == m.alpha).to_numpy()]
        for m in chosen
    ]
    out = pd.concat(parts, ignore_index=True)
    order = np.lexsort((out["risk"].map(names.index).to_numpy(), out["alpha"].to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def rank_by(t: pd.DataFrame, measure: type[RiskMeasure]) -> pd.Series:
    """The rank of each system by ``measure`` at each α: the risk table's ``rank_<column>`` where
    the measure is ranked there (NaN for the baseline of URisk and TRisk), else 1 = its best value
    (the highest, or the lowest for a measure where lower is better), ties sharing their mean rank,
    the baseline of a measure against it unranked."""
    ranked = f"rank_{measure.column}"
    if measure.ranked and ranked in t:
        return t[ranked]
    values = t[measure.column]
    if measure.needs == "baseline":  # the baseline against itself is not ranked
        values = values.where(t["system"].astype(str) != t["baseline"].astype(str))
    return values.groupby(t["alpha"]).rank(ascending=not measure.higher_is_better, method="average")


def measure_rankings_wide(rankings: pd.DataFrame) -> pd.DataFrame:
    """:func:`measure_rankings` in the layout of Table 6: one row per system (best mean first), the
    mean and its rank, then per α and measure the value and its rank; MultiIndex columns ``(α,
    measure, field)`` with ``("", "", "mean")`` and ``("", "", "rank")`` first."""
    first = rankings.drop_duplicates("system").set_index("system")
    order = first["mean"].sort_values(ascending=False, kind="stable").index
    fixed = first.loc[order, ["mean", "rank_mean"]]
    fixed.columns = pd.MultiIndex.from_tuples([("", "", "mean"), ("", "", "rank")])
    blocks = [fixed]
    for (a, m), part in rankings.groupby(["alpha", "risk"], sort=False):
        block = part.set_index("system").loc[order, ["value", "rank"]]
        block.columns = pd.MultiIndex.from_tuples([(f"α = {a:g}", m, "value"), (f"α = {a:g}", m, "rank")])
        blocks.append(block)
    return pd.concat(blocks, axis=1).rename_axis("system")
