"""Two runs topic by topic, and every run's risk–reward trade-off (Dinçer, Ounis & Macdonald,
ECIR 2014, §4 and §5).

Figure 3 of the paper compares uogTrA44xi and srchvrs12c09: (a) their per-topic ERR@20 side by
side, (b) the per-topic URisk scores ``x_j`` of srchvrs12c09 with uogTrA44xi as the baseline and
(c) the mirror, uogTrA44xi with srchvrs12c09 as the baseline, α = 5.  :func:`compare_runs` gives
those three views as one tidy table.  The conclusion (§5) proposes reporting risk beside
effectiveness on separate axes, as trade-off graphs; :func:`risk_reward_tradeoff` gives each
system's mean score and FRisk (and FReward) against a baseline, with the systems on the Pareto
front marked.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.core import paired
from riskeval.core.paired import risk_scores
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import listed, resolve_baseline
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alpha


def compare_runs(X: Any, a: str, b: str, alpha: float = 5.0) -> pd.DataFrame:
    """Runs ``a`` and ``b`` of ``X`` topic by topic, each as the other's baseline (ECIR 2014, Fig. 3).

    One row per topic, in the matrix's order: ``topic, system_a, system_b, alpha, score_a,
    score_b, delta`` (``score_a − score_b``), ``x_a`` (the per-topic URisk score of ``a`` with ``b``
    as the baseline: δ if δ ≥ 0, else (1 + α)·δ) and ``x_b`` (of ``b`` with ``a`` as the baseline).
    ``x_a.mean()`` is ``riskeval.urisk(a, b, alpha)`` and ``x_b.mean()`` is ``riskeval.urisk(b, a,
    alpha)``; on every topic ``x_a + x_b = −α·|δ|``: whichever run loses pays (1 + α) times what
    the other gains.
    """
    M = as_matrix(X)
    alpha = check_alpha(alpha, "compare_runs")
    for name in (a, b):
        if name not in M.index:
            raise RiskevalError(f"compare_runs: no system {name!r} in the matrix; it has {listed(M.index)}.")
    sa, sb = M.loc[a].to_numpy(), M.loc[b].to_numpy()
    delta = sa - sb
    return pd.DataFrame(
        {
            "topic": M.columns.astype(str),
            "system_a": a,
            "system_b": b,
            "alpha": alpha,
            "score_a": sa,
            "score_b": sb,
            "delta": delta,
            "x_a": risk_scores(delta, alpha),
            "x_b": risk_scores(-delta, alpha),
        }
    )


def risk_reward_tradeoff(X: Any, baseline: Any = "mean", *, leave_one_out: bool = False) -> pd.DataFrame:
    """Each system's mean score beside its FRisk and FReward against ``baseline`` (any baseline of
    :func:`riskeval.risk_table`), one row per system in matrix order: ``system, baseline, mean,
    frisk, freward, ugain, pareto``.

    ``pareto`` marks the systems that no other system dominates: none has a mean at least as high
    and an FRisk at least as low, with one of the two strictly better.  Drawn by
    :func:`riskeval.plots.paper.plot_risk_reward` with effectiveness and risk on separate axes,
    as ECIR 2014 (§5) proposes.
    """
    M = as_matrix(X)
    base = resolve_baseline(M, baseline, "risk_reward_tradeoff", leave_one_out=leave_one_out)
    values = M.to_numpy()
    mean = values.mean(axis=1)
    sums = paired.risk_reward_sums(paired.paired_sums(values, base.values))
    frisk, freward = sums.frisk, sums.freward
    return pd.DataFrame(
        {
            "system": M.index.astype(str),
            "baseline": base.name,
            "mean": mean,
            "frisk": frisk,
            "freward": freward,
            "ugain": freward - frisk,
            "pareto": pareto_front(mean, frisk),
        }
    )


def pareto_front(gain: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """True where no other point has ``gain`` ≥ and ``cost`` ≤ with one of them strict."""
    g, c = np.asarray(gain, dtype=np.float64), np.asarray(cost, dtype=np.float64)
    no_worse = (g[None, :] >= g[:, None]) & (c[None, :] <= c[:, None])
    better = (g[None, :] > g[:, None]) | (c[None, :] < c[:, None])
    return np.asarray(~(no_worse & better).any(axis=1))
