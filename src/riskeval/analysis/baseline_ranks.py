"""Risk rankings under the unbiased baselines, side by side (Dinçer, Ounis & Macdonald, ECIR 2014,
§3–4 and Table 3), and how much they agree.

Table 3 of the paper lists, for the top TREC 2012 Web runs, URisk at α = 5 and 10 against the
per-topic MEAN, MEDIAN and MAX, each with the rank of the run (R), beside the runs' mean ERR@20
and its rank.  §4 observes that these rankings stay concordant with each other and with the
ranking by mean effectiveness as α grows, unlike the rankings against one particular run (Table 1):
:func:`ranking_agreement` measures that with Kendall's τ and the AP correlation τ_AP (Yilmaz,
Aslam & Robertson, SIGIR 2008) between every pair of rankings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.analysis.measure_ranks import rank_by
from riskeval.analysis.table import risk_table
from riskeval.core.rank_correlation import rank_correlations
from riskeval.errors import RiskevalError
from riskeval.measures.declared import RISK_MEASURES, TRisk, parse_risk
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alphas

#: Columns of :func:`baseline_rankings`.
COLUMNS = ("system", "baseline", "alpha", "risk", "value", "rank", "mean", "rank_mean")
#: The label of the ranking by mean effectiveness in :func:`ranking_agreement`.
MEAN_SCORE = "mean score"


def baseline_rankings(
    X: Any,
    baselines: Any = ("mean", "median", "max"),
    alphas: Any = (5.0, 10.0),
    *,
    risk: Any = "URisk",
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """Each system's risk measure and rank against each baseline at each α (ECIR 2014, Table 3).

    Parameters
    ----------
    X : systems × topics score matrix.
    baselines : the baselines, each as ``baseline=`` of :func:`riskeval.risk_table` (``"mean"``,
        ``"median"``, ``"max"``, a system name); default the three unbiased ones of §3.
    alphas : risk aversion values (default 5 and 10, as in Table 3).
    risk : a risk measure against the baseline (``needs="baseline"``): :class:`riskeval.URisk`
        (Table 3), :class:`riskeval.TRisk` or one declared with :func:`riskeval.register_risk`,
        as an object or its text; one with its own α (``"URisk@5"``) ranks at that α only.
    leave_one_out : aggregate baselines exclude the evaluated system.

    Returns
    -------
    DataFrame
        Tidy, one row per (system, baseline, α): ``system, baseline, alpha, risk`` (the measure's
        name), ``value, rank, mean, rank_mean``.  ``rank`` is the system's rank among the systems
        for that baseline and α (1 = highest; ties share their mean rank; NaN for a system that is
        the baseline), ``mean`` its mean score and ``rank_mean`` the rank by it (the ERR@20 and R
        columns of Table 3).  :func:`rankings_wide` lays it out as the paper does.
    """
    M = as_matrix(X)
    ranking = parse_risk(risk)
    if ranking.needs != "baseline":
        against = [cls.name for cls in RISK_MEASURES.values() if cls.needs == "baseline"]
        raise RiskevalError(
            "The 'risk' parameter of baseline_rankings must be a measure against the baseline, which "
            f"the rankings vary: {', '.join(against)} (URisk: Table 3 of Dinçer, Ounis & Macdonald, "
            f"ECIR 2014). Got {str(ranking)!r}, computed "
            + (
                "against the per-topic MEAN."
                if ranking.needs == "mean"
                else "with every system as a baseline."
            )
        )
    A = check_alphas(alphas if ranking.alpha is None else ranking.alpha, "baseline_rankings")
    se = ranking.se if isinstance(ranking, TRisk) else None
    measure = ranking.column
    specs = [baselines] if isinstance(baselines, str) else list(baselines)
    if not specs:
        raise RiskevalError("The 'baselines' parameter of baseline_rankings must list at least one baseline.")
    mean = M.mean(axis=1)
    rank_mean = mean.rank(ascending=False, method="average")
    parts = []
    for spec in specs:
        t = risk_table(M, baseline=spec, alphas=A, se=se, leave_one_out=leave_one_out)
        system = t["system"].astype(str)
        parts.append(
            pd.DataFrame(
                {
                    "system": system,
                    "baseline": t["baseline"],
                    "alpha": t["alpha"],
                    "risk": ranking.name,
                    "value": t[measure],
                    "rank": rank_by(t, type(ranking)),
                    "mean": mean.loc[system].to_numpy(),
                    "rank_mean": rank_mean.loc[system].to_numpy(),
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["baseline", "alpha"], kind="stable", key=_spec_order(out)).reset_index(drop=True)


def rankings_wide(rankings: pd.DataFrame) -> pd.DataFrame:
    """:func:`baseline_rankings` in the layout of Table 3 of ECIR 2014: one row per system (best
    mean first), the mean score and its rank, then per baseline and α the measure and its rank.
    Columns are a MultiIndex ``(baseline, α, field)``; the first two are ``("", "", "mean")`` and
    ``("", "", "rank")``."""
    order = rankings.drop_duplicates("system").set_index("system")["mean"].sort_values(ascending=False)
    measure = str(rankings["risk"].iloc[0])
    fixed = rankings.drop_duplicates("system").set_index("system").loc[order.index, ["mean", "rank_mean"]]
    fixed.columns = pd.MultiIndex.from_tuples([("", "", "mean"), ("", "", "rank")])
    blocks = [fixed]
    for (b, a), part in rankings.groupby(["baseline", "alpha"], sort=False):
        block = part.set_index("system").loc[order.index, ["value", "rank"]]
        block.columns = pd.MultiIndex.from_tuples([(b, f"α = {a:g}", measure), (b, f"α = {a:g}", "rank")])
        blocks.append(block)
    return pd.concat(blocks, axis=1).rename_axis("system")


def ranking_agreement(rankings: pd.DataFrame, *, include_mean: bool = True) -> pd.DataFrame:
    """Kendall's τ-b and τ_AP between every ordered pair of the rankings of
    :func:`baseline_rankings` (one ranking per baseline and α), and the ranking by mean score
    (``baseline`` ``"mean score"``, α NaN) when ``include_mean``.

    One row per (reference, evaluated) pair: ``reference_baseline, reference_alpha, baseline,
    alpha, tau, tau_ap, n_systems``.  τ is symmetric; τ_AP weights disagreements at the top of the
    *evaluated* ranking and is asymmetric (Yilmaz, Aslam & Robertson, SIGIR 2008), so both orders
    are listed.  Only systems ranked in every ranking count (a system that is one of the
    baselines is left out); ties as in :mod:`riskeval.core.rank_correlation`.
    """
    ranked = rankings.assign(value=rankings["value"].where(rankings["rank"].notna()))
    wide = ranked.pivot_table(
        index="system", columns=["baseline", "alpha"], values="value", sort=False, dropna=False
    )
    keys: list[tuple[str, float]] = [(str(b), float(a)) for b, a in wide.columns]
    values = wide.to_numpy(dtype=np.float64)
    if include_mean:
        means = rankings.drop_duplicates("system").set_index("system")["mean"].loc[wide.index]
        keys.insert(0, (MEAN_SCORE, float("nan")))
        values = np.column_stack([means.to_numpy(), values])
    values = values[np.isfinite(values).all(axis=1)]
    rows = []
    for i, (ref_b, ref_a) in enumerate(keys):
        tau, tau_ap = rank_correlations(values[:, i], values)
        for j, (b, a) in enumerate(keys):
            if i != j:
                rows.append((ref_b, ref_a, b, a, float(tau[j]), float(tau_ap[j]), values.shape[0]))
    return pd.DataFrame(
        rows,
        columns=["reference_baseline", "reference_alpha", "baseline", "alpha", "tau", "tau_ap", "n_systems"],
    )


def _spec_order(frame: pd.DataFrame) -> Any:
    """Sort key that keeps baselines in the order given (sort_values sorts by label otherwise)."""
    first = {b: i for i, b in enumerate(pd.unique(frame["baseline"]))}

    def key(col: pd.Series) -> pd.Series:
        return col.map(first) if col.name == "baseline" else col

    return key
