"""Tidy tables from a :class:`riskeval.BiasStudy`, shared by the command line and the report."""

from __future__ import annotations

from typing import Any

import pandas as pd

from riskeval.analysis.bias_study import BiasStudy
from riskeval.measures.baselines import baseline


def bias_overview(study: BiasStudy) -> pd.DataFrame:
    """One row: α, the numbers of systems and topics, the Friedman test, PC1/PC2 % of variance."""
    explained = study.pca.explained
    return pd.DataFrame(
        [
            {
                "alpha": study.alpha,
                "systems": study.urisk.shape[1],
                "topics": study.pca.loadings.shape[0],
                "friedman_statistic": float(study.friedman.statistic),
                "friedman_pvalue": float(study.friedman.pvalue),
                "pc1_pct": float(explained.iloc[0]),
                "pc2_pct": float(explained.iloc[1]) if explained.size > 1 else float("nan"),
            }
        ]
    )


def bias_summary(study: BiasStudy, X: Any) -> pd.DataFrame:
    """One row per run of the study (systems of ``X``, then virtual runs): ``virtual``, ``mean``,
    ``rank_vs_<V>`` under each virtual baseline V, ``best_rank``/``worst_rank`` over the systems as
    baselines (the run itself excluded) and the coordinates on PC1 and PC2.  Ranks: 1 = highest
    URisk; NaN for virtual runs, which are baselines only."""
    systems = study.urisk.columns
    runs = study.pca.coordinates.index
    virtual = [b for b in study.urisk.index if b not in systems]
    real_ranks = study.ranks.loc[list(systems)]
    out = pd.DataFrame(index=pd.Index(runs, name="run"))
    out["virtual"] = ~runs.isin(systems)
    out["mean"] = pd.concat(
        [
            X.loc[systems].mean(axis=1),
            pd.Series({v: float(baseline(X, v.lower()).mean()) for v in virtual}, dtype="float64"),
        ]
    )
    for v in virtual:
        out[f"rank_vs_{v}"] = study.ranks.loc[v]
    out["best_rank"] = real_ranks.min(axis=0)
    out["worst_rank"] = real_ranks.max(axis=0)
    for pc in study.pca.coordinates.columns[:2]:
        out[pc] = study.pca.coordinates[pc]
    return out


def bias_ranks(study: BiasStudy) -> pd.DataFrame:
    """One row per (baseline, system): URisk and rank (NaN where the system is the baseline)."""
    urisk = study.urisk.stack().rename("urisk")
    ranks = study.ranks.stack().rename("rank")
    return urisk.to_frame().join(ranks).rename_axis(["baseline", "system"])
