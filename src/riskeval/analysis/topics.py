"""The per-topic analysis of one system of a score matrix against a baseline specification."""

from __future__ import annotations

from typing import Any

import pandas as pd

from riskeval.analysis.by_measure import for_each_measure
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import listed, resolve_baseline
from riskeval.measures.paired import topic_risk
from riskeval.model.matrix import as_matrix


def system_topic_risk(
    X: Any,
    system: str,
    baseline: Any = "mean",
    alpha: float = 1.0,
    *,
    level: float = 0.05,
    correction: str | None = None,
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """:func:`riskeval.topic_risk` of row ``system`` of ``X`` against ``baseline`` (``"mean"``,
    ``"median"``, ``"max"``, a system name or a per-topic vector, as in :func:`riskeval.risk_table`;
    with ``leave_one_out`` the aggregate excludes ``system``).

    The ``system`` column holds ``system``, the ``baseline`` column the baseline's name (e.g.
    ``"MEAN"``).  ``X`` may hold several measures (a mapping measure -> matrix or a long table
    with a ``measure`` column, as in :func:`riskeval.risk_table`): then one table per measure,
    stacked, with a ``measure`` column first.
    """
    several = for_each_measure(
        X,
        lambda M: system_topic_risk(
            M, system, baseline, alpha, level=level, correction=correction, leave_one_out=leave_one_out
        ).reset_index(),
    )
    if several is not None:
        return several
    M = as_matrix(X)
    if system not in M.index:
        raise RiskevalError(f"No system {system!r} in the matrix; it has {listed(M.index)}.")
    base = resolve_baseline(M, baseline, "topic_risk", leave_one_out=leave_one_out)
    b = base.values if base.values.ndim == 1 else base.values[M.index.get_loc(system)]
    return topic_risk(
        M.loc[system].rename(system),
        pd.Series(b, index=M.columns, name=base.name),
        alpha,
        level=level,
        correction=correction,
    )


def riskiest_topics(
    table: pd.DataFrame, *, losses_only: bool = False, top: int | None = None
) -> pd.DataFrame:
    """The rows of a per-topic table (:func:`system_topic_risk`, :func:`riskeval.topic_risk`, or
    several of them stacked) worst first: within each measure, system and α, by the risk-reward
    score ``x`` ascending (the largest weighted loss first; Dinçer, Macdonald & Ounis, SIGIR 2014,
    eq. 3), ties in topic order.

    ``losses_only`` keeps the topics where the system scores below the baseline (``delta < 0``);
    ``top`` keeps the first ``top`` rows of each group.  The columns are those of ``table``.
    """
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise RiskevalError(f"The 'top' parameter of riskiest_topics must be an integer >= 1. Got {top!r}.")
    missing = [c for c in ("x", "delta") if c not in table.columns]
    if missing:
        raise RiskevalError(
            f"riskiest_topics needs a per-topic table with columns 'x' and 'delta' (as topic_risk "
            f"gives); this one lacks {missing}."
        )
    keys = [c for c in ("measure", "system", "alpha") if c in table.columns]
    rows = table[table["delta"] < 0] if losses_only else table
    order = pd.Series(range(len(rows)), index=rows.index)
    group = rows.groupby(keys, sort=False).ngroup() if keys else pd.Series(0, index=rows.index)
    ranked = rows.assign(_g=group.to_numpy(), _o=order.to_numpy()).sort_values(
        ["_g", "x", "_o"], kind="stable"
    )
    if top is not None:
        ranked = ranked.groupby("_g", sort=False).head(top)
    return ranked.drop(columns=["_g", "_o"])
