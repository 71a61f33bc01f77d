"""PCA biplot of the runs, with the topics that load on the second axis and the virtual baselines
as supplementary points (Dinçer, Ounis & Macdonald, ECIR 2014, §2.4, §3, Figures 1–2 and
footnote 5).

The bias study's PCA (:func:`riskeval.bias_study`) lets MEAN, MEDIAN and MAX take part, as the
paper's Figure 2 does, which is why MEAN is not at the origin there; footnote 5 notes that leaving
the other virtual runs out would put it there.  Here the PCA is of the real runs only, and the
virtual baselines are *projected* onto its axes as supplementary points (centred by the real runs'
topic means, times the loadings): MEAN then sits exactly at the origin, and no virtual run moves
the axes.  §2.4 reads the second axis as contrasting two subsets of topics; :attr:`PCABiplot.pc2_topics`
names the topics with the largest positive and negative loadings on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval.analysis.baseline_bias import pca
from riskeval.core import baselines as agg
from riskeval.errors import RiskevalError
from riskeval.model.matrix import as_matrix
from riskeval.options import AGGREGATES, check_option


@dataclass(frozen=True)
class PCABiplot:
    """Result of :func:`pca_biplot`.

    ``explained``: % of the total sum of squared deviations per component (real runs only);
    ``coordinates``: runs × components; ``supplementary``: virtual runs × components, projected
    (``(v − topic means) @ loadings``); ``loadings``: topics × components (unit vectors; each axis
    points towards its largest loading); ``pc2_topics``: the topics with the largest |loading| on
    PC2, ``topic, loading, side`` (``"positive"``/``"negative"``), ``mean`` (the topic's mean score
    over the runs), strongest first.
    """

    explained: pd.Series
    coordinates: pd.DataFrame
    supplementary: pd.DataFrame
    loadings: pd.DataFrame
    pc2_topics: pd.DataFrame


def pca_biplot(X: Any, *, virtual: Any = ("mean", "median", "max"), n_topics: int = 10) -> PCABiplot:
    """PCA of the run × topic matrix (real runs), the per-topic aggregates ``virtual`` projected as
    supplementary points, and the ``n_topics`` topics that load most on PC2 (at least 2 runs and 2
    topics; PC2 needs 3 runs)."""
    M = as_matrix(X)
    kinds = [virtual] if isinstance(virtual, str) else list(virtual or ())
    kinds = [check_option(k, AGGREGATES, "pca_biplot", "virtual") for k in kinds]
    if isinstance(n_topics, bool) or not isinstance(n_topics, (int, np.integer)) or n_topics < 1:
        raise RiskevalError(
            f"The 'n_topics' parameter of pca_biplot must be an integer >= 1. Got {n_topics!r}."
        )
    r, c = M.shape
    if r < 3 or c < 2:
        raise RiskevalError(f"pca_biplot needs at least 3 runs and 2 topics; got {r} × {c}.")
    result = pca(M.rename_axis(index="run"))
    values = M.to_numpy()
    centre = values.mean(axis=0)
    V = result.loadings.to_numpy()
    rows = {k.upper(): agg.aggregate(values, k) for k in kinds}
    supp = pd.DataFrame(
        (np.vstack(list(rows.values())) - centre) @ V if rows else np.empty((0, V.shape[1])),
        index=pd.Index(list(rows), name="run"),
        columns=result.loadings.columns,
    )
    load = result.loadings["PC2"]
    top = load.abs().sort_values(ascending=False, kind="stable").index[: min(n_topics, c)]
    pc2 = pd.DataFrame(
        {
            "topic": top.astype(str),
            "loading": load.loc[top].to_numpy(),
            "side": np.where(load.loc[top].to_numpy() >= 0, "positive", "negative"),
            "mean": M[top].mean(axis=0).to_numpy(),
        }
    )
    return PCABiplot(result.explained, result.coordinates, supp, result.loadings, pc2)
