"""The error to a perfect system in three terms, and bias–variance of model families from a
parameter sweep (Zhang, Song, Wang & Hou, "Bias-Variance Decomposition of IR Evaluation", SIGIR
2013, §2.3, eq. 8–9, §3 and Figures 1–2).

Eq. 8 splits the error to a perfect system through the target T:
``E(AP − 1)² = E(AP − AP_T)² + E(AP_T − 1)² + 2·E[(AP − AP_T)(AP_T − 1)]`` — the error to the
target, the target's own error, and a cross term — and eq. 9 splits the same total as
``(1 − MAP)² + Var(AP)``.  :func:`error_decomposition` gives both side by side.

§3 sweeps query models in families — the original query model, the expanded model RM, the
combined model for λ = 0.1 … 0.9, RM with a share r_n of non-relevant feedback documents removed,
the target model — and draws each model's bias² against its variance (Figure 1) and against the
total bias² + variance (Figure 2), a family being a series of parameter values.
:func:`bias_variance_families` gives that table; :func:`riskeval.plots.paper.plot_bias_variance_families`
draws it with each family's points joined in parameter order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.analysis.bias_variance import _target, bias_variance
from riskeval.errors import RiskevalError
from riskeval.model.matrix import as_matrix

#: Columns of :func:`error_decomposition`.
DECOMPOSITION_COLUMNS = (
    "system",
    "target",
    "error_to_target",
    "target_error",
    "cross_term",
    "total",
    "one_minus_map2",
    "variance",
)
#: Columns of :func:`bias_variance_families`.
FAMILY_COLUMNS = ("system", "family", "parameter", "mean", "bias", "bias2", "variance", "total")


def error_decomposition(scores: Any, target: Any = "best", *, best_of: Any = None) -> pd.DataFrame:
    """``E(AP − 1)²`` of each system in the three terms of eq. 8 beside the two of eq. 9.

    ``target``: a per-topic target as in :func:`riskeval.variations.bias_variance` (``"best"``, the
    default: the per-topic best of the systems, or of ``best_of``; ``"perfect"``; a system label;
    one score per topic).  One row per system: ``system, target, error_to_target`` (E(AP −
    AP_T)², eq. 7), ``target_error`` (E(AP_T − 1)²), ``cross_term`` (2·E[(AP − AP_T)(AP_T − 1)]),
    ``total`` (their sum, E(AP − 1)²), ``one_minus_map2`` ((1 − MAP)²) and ``variance`` (Var(AP),
    over topics with ddof = 0): ``one_minus_map2 + variance`` is the same total (eq. 9).
    """
    M = as_matrix(scores, name="scores")
    per_topic, label = _target(M, target, best_of)
    if per_topic is None:
        raise RiskevalError(
            "error_decomposition needs a per-topic target (eq. 8 pairs AP and AP_T topic by topic); "
            "a target mean only is not enough."
        )
    x = M.to_numpy()
    d = x - per_topic
    t1 = per_topic - 1.0
    to_target = (d * d).mean(axis=1)
    own = float((t1 * t1).mean())
    cross = 2.0 * (d * t1).mean(axis=1)
    mean = x.mean(axis=1)
    return pd.DataFrame(
        {
            "system": M.index.astype(str),
            "target": label,
            "error_to_target": to_target,
            "target_error": own,
            "cross_term": cross,
            "total": to_target + own + cross,
            "one_minus_map2": (1.0 - mean) ** 2,
            "variance": x.var(axis=1),
        },
        columns=list(DECOMPOSITION_COLUMNS),
    )


def bias_variance_families(
    scores: Any, families: Any, target: Any = "perfect", *, form: str = "ap", best_of: Any = None
) -> pd.DataFrame:
    """Bias–variance of every system with its model family and parameter (SIGIR 2013, §3, Fig. 1–2).

    Parameters
    ----------
    scores : systems × topics score matrix (AP per topic, in the paper).
    families : DataFrame with columns ``system`` and ``family`` and optionally ``parameter`` (a
        number: λ, r_n, ...), one row per system of ``scores`` (extra rows are ignored); a family
        of one system (the original model, the target) is a single point.
    target, form, best_of : as in :func:`riskeval.variations.bias_variance`.

    Returns
    -------
    DataFrame
        One row per system, by family (in order of first appearance) then parameter: ``system,
        family, parameter, mean, bias, bias2, variance, total``.
    """
    M = as_matrix(scores, name="scores")
    meta = _families(families, M.index)
    frame = bias_variance(M, target, form=form, best_of=best_of).to_frame().reset_index()
    out = meta.merge(frame, on="system", how="left")
    order = {f: i for i, f in enumerate(pd.unique(out["family"]))}
    out = out.assign(_f=out["family"].map(order)).sort_values(["_f", "parameter"], kind="stable")
    return out.drop(columns="_f").reset_index(drop=True)[list(FAMILY_COLUMNS)]


def _families(families: Any, systems: pd.Index) -> pd.DataFrame:
    if not isinstance(families, pd.DataFrame) or not {"system", "family"} <= set(families.columns):
        raise RiskevalError(
            "The 'families' parameter of bias_variance_families must be a DataFrame with columns "
            "'system' and 'family' (and optionally 'parameter')."
        )
    meta = pd.DataFrame(
        {
            "system": families["system"].astype(str),
            "family": families["family"].astype(str),
            "parameter": families["parameter"] if "parameter" in families.columns else np.nan,
        }
    )
    try:
        meta["parameter"] = pd.to_numeric(meta["parameter"]).astype(np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(
            "The 'parameter' column of the families must hold numbers (or be empty)."
        ) from None
    dup = meta["system"][meta["system"].duplicated()]
    if len(dup):
        raise RiskevalError(f"The families list system(s) more than once: {dup.unique().tolist()[:10]}.")
    missing = systems.difference(meta["system"], sort=False)
    if len(missing):
        raise RiskevalError(
            f"The families give no family for {len(missing)} system(s): {missing.tolist()[:10]}."
        )
    return meta[meta["system"].isin(systems)].reset_index(drop=True)
