"""Tidy tables from a :class:`riskeval.analysis.BiasStudy`, shared by the command line and the report."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.analysis.baseline_bias import BiasStudy, bias_study
from riskeval.analysis.by_measure import check_systems, for_each_measure
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import baseline
from riskeval.measures.declared import URisk


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
    urisk = study.urisk.stack().rename(URisk.column)
    ranks = study.ranks.stack().rename("rank")
    return urisk.to_frame().join(ranks).rename_axis(["baseline", "system"])


#: The tables of a bias study (:func:`bias_table`'s ``show``).
BIAS_TABLES = ("summary", "ranks", "pca", "overview")


def study_table(study: BiasStudy, X: Any, show: str, systems: Any = None) -> pd.DataFrame:
    """One table of a study, flat (no index): :func:`bias_summary` (``"summary"``),
    :func:`bias_ranks` (``"ranks"``), the PCA coordinates of the runs (``"pca"``) or
    :func:`bias_overview` (``"overview"``).  ``systems`` keeps the rows of those systems (and of the
    virtual runs) only; the study is over every system."""
    if show not in BIAS_TABLES:
        raise RiskevalError(
            f"The 'show' parameter must be one of {', '.join(map(repr, BIAS_TABLES))}; got {show!r}."
        )
    if show == "overview":
        return bias_overview(study)
    if show == "summary":
        frame = bias_summary(study, X).reset_index()
    elif show == "ranks":
        frame = bias_ranks(study).reset_index()
    else:
        frame = study.pca.coordinates.rename_axis("run").reset_index()
    chosen = check_systems(systems, study.urisk.columns, "The 'systems' parameter of bias_table")
    if chosen is None:
        return frame
    column = "system" if show == "ranks" else "run"
    keep = frame[column].astype(str).isin(chosen)
    if "virtual" in frame.columns:
        keep |= frame["virtual"]
    return frame.loc[keep.to_numpy()].reset_index(drop=True)


def bias_table(
    X: Any,
    alphas: Any = (1.0,),
    *,
    show: str = "summary",
    virtual: Any = ("mean", "median", "max"),
    systems: Any = None,
) -> pd.DataFrame:
    """A table of the baseline-bias study (Dinçer, Ounis & Macdonald, ECIR 2014, §4) for each α,
    and for each measure when ``X`` holds several (a mapping measure -> matrix or a long table with
    a ``measure`` column): the tables of :func:`study_table`, stacked, with ``measure`` and
    ``alpha`` columns first (``alpha`` when several α are given or ``show="overview"``)."""
    A = [float(a) for a in ([alphas] if np.ndim(alphas) == 0 else alphas)]

    def of_matrix(M: Any) -> pd.DataFrame:
        parts = []
        for alpha in A:
            table = study_table(bias_study(M, alpha, virtual=virtual), M, show, systems)
            if len(A) > 1 and "alpha" not in table.columns:
                table.insert(0, "alpha", alpha)
            parts.append(table)
        return pd.concat(parts, ignore_index=True)

    several = for_each_measure(X, of_matrix)
    return of_matrix(X) if several is None else several
