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

from riskeval.analysis.table import risk_table
from riskeval.errors import RiskevalError

#: The measures of Table 6, in its order.
MEASURES = ("urisk", "trisk", "tstar", "zrisk", "georisk")
#: Columns of :func:`measure_rankings`.
COLUMNS = ("system", "alpha", "baseline", "measure", "value", "rank", "mean", "rank_mean")


def measure_rankings(
    X: Any,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0, 20.0),
    *,
    measures: Any = MEASURES,
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """Each system's risk measures and their ranks at each α (SIGIR 2016, Table 6).

    ``baseline`` is the baseline of URisk and TRisk (any baseline of :func:`riskeval.risk_table`);
    T*Risk is against the per-topic MEAN, ZRisk and GeoRisk have every system as a baseline, as in
    the paper.  ``measures``: any of ``"urisk", "trisk", "tstar", "zrisk", "georisk"``.

    One row per (system, α, measure), systems in matrix order: ``system, alpha, baseline,
    measure, value, rank, mean, rank_mean``.  ``rank``: 1 = highest value among the systems at that
    α, ties share their mean rank; a system that is the URisk/TRisk baseline has no rank there
    (NaN).  ``mean``/``rank_mean``: the mean score and its rank.
    """
    chosen = [measures] if isinstance(measures, str) else list(measures)
    bad = [m for m in chosen if m not in MEASURES]
    if bad or not chosen:
        allowed = ", ".join(map(repr, MEASURES))
        raise RiskevalError(
            f"The 'measures' parameter of measure_rankings must list some of {allowed}. Got {measures!r}."
        )
    t = risk_table(X, baseline=baseline, alphas=alphas, leave_one_out=leave_one_out)
    ranks = {
        "urisk": t["rank_urisk"],
        "trisk": t["rank_trisk"],
        "georisk": t["rank_georisk"],
        "tstar": t.groupby("alpha")["tstar"].rank(ascending=False, method="average"),
        "zrisk": t.groupby("alpha")["zrisk"].rank(ascending=False, method="average"),
    }
    per_system = t.drop_duplicates("system")
    rank_mean = pd.Series(
        per_system["mean"].rank(ascending=False, method="average").to_numpy(),
        index=per_system["system"].astype(str),
    )
    system = t["system"].astype(str)
    parts = [
        pd.DataFrame(
            {
                "system": system,
                "alpha": t["alpha"],
                "baseline": t["baseline"],
                "measure": m,
                "value": t[m],
                "rank": ranks[m],
                "mean": t["mean"],
                "rank_mean": rank_mean.loc[system].to_numpy(),
            }
        )
        for m in chosen
    ]
    out = pd.concat(parts, ignore_index=True)
    order = np.lexsort((out["measure"].map(chosen.index).to_numpy(), out["alpha"].to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def measure_rankings_wide(rankings: pd.DataFrame) -> pd.DataFrame:
    """:func:`measure_rankings` in the layout of Table 6: one row per system (best mean first), the
    mean and its rank, then per α and measure the value and its rank; MultiIndex columns ``(α,
    measure, field)`` with ``("", "", "mean")`` and ``("", "", "rank")`` first."""
    first = rankings.drop_duplicates("system").set_index("system")
    order = first["mean"].sort_values(ascending=False, kind="stable").index
    fixed = first.loc[order, ["mean", "rank_mean"]]
    fixed.columns = pd.MultiIndex.from_tuples([("", "", "mean"), ("", "", "rank")])
    blocks = [fixed]
    for (a, m), part in rankings.groupby(["alpha", "measure"], sort=False):
        block = part.set_index("system").loc[order, ["value", "rank"]]
        block.columns = pd.MultiIndex.from_tuples([(f"α = {a:g}", m, "value"), (f"α = {a:g}", m, "rank")])
        blocks.append(block)
    return pd.concat(blocks, axis=1).rename_axis("system")
