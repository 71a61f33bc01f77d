"""Risk against a baseline when the qrels have holes: URisk, TRisk and per-topic risk as intervals
over the completions of the qrels, and each topic's loss as robust, possible or none.

From per-topic score bounds (:func:`riskeval.evaluation.score_bounds.score_bounds`), each topic's
difference δ_j = system − baseline lies in ``[low_j, high_j]``, ``low_j`` the system's least score
minus the baseline's greatest, ``high_j`` the reverse: the system judged pessimistically against
the baseline judged optimistically, and the other way round.  Every completion gives δ_j in that
interval (it scores each run within its bounds); the interval may be wider than the differences
the completions reach, as one completion cannot be pessimistic for one run and optimistic for the
other on the same document.

- The per-topic risk-reward score x_j = δ_j if δ_j ≥ 0 else (1 + α)δ_j (Dinçer, Macdonald & Ounis,
  SIGIR 2014, eq. 3) grows with δ_j, and URisk = (1/c) Σ x_j (eq. 4) with each: their intervals are
  their values at the ends of δ's.
- Each topic: a **robust loss** when ``high_j < 0`` (a loss under every completion), a **possible
  loss** when ``low_j < 0 ≤ high_j`` (the bounds do not decide: some completions may make it a
  loss), else **no loss** (``low_j ≥ 0``: no completion makes it a loss).  Differences within
  :data:`TOLERANCE` of 0 count as 0 (rounding of sums taken in another order).
- TRisk = URisk/(s_x/√c) (eq. 7–12) is not monotone in any x_j: a larger x_j may raise the spread
  more than the mean.  Its interval divides URisk's ends by the least and the greatest standard
  error over the box of x's: the least exactly (the sample variance is convex in x, its least value
  is min over m of Σ_j dist(m, [x_j^low, x_j^high])² / (c − 1)), the greatest bounded by
  Σ_j max((x_j^high − m^low)², (m^high − x_j^low)²)/(c − 1), with m's ends the means of the ends.
  An interval that reaches a standard error of 0 is unbounded on that side (±inf).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.core.baselines import aggregate
from riskeval.core.paired import risk_scores
from riskeval.errors import RiskevalError
from riskeval.measures.declared import TRisk, URisk
from riskeval.model.score_bounds import ScoreBounds
from riskeval.options import AGGREGATES, check_alphas

#: |δ| at most this counts as no difference when labelling a topic's loss.
TOLERANCE = 1e-9
#: The labels of a topic's loss.
LABELS = ("robust loss", "possible loss", "no loss")


def baseline_bounds(bounds: ScoreBounds, baseline: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The baseline's per-topic score with unjudged documents non-relevant, least and greatest.
    ``baseline``: a system of ``bounds``, or ``"mean"``, ``"median"``, ``"max"`` (per-topic
    aggregate of the systems; each grows with every system's score, so its bounds are the
    aggregates of the bounds)."""
    matrices = (bounds.scores, bounds.low, bounds.high)
    if isinstance(baseline, str) and baseline in AGGREGATES:
        point, low, high = (aggregate(m.to_numpy(), baseline) for m in matrices)
        return point, low, high
    if isinstance(baseline, str) and baseline in bounds.scores.index:
        point, low, high = (m.loc[baseline].to_numpy() for m in matrices)
        return point, low, high
    systems = ", ".join(map(str, bounds.scores.index[:5])) + (", ..." if len(bounds.scores) > 5 else "")
    raise RiskevalError(
        f"The 'baseline' of risk_bounds must be a system of the runs ({systems}) or one of "
        f"{', '.join(AGGREGATES)}. Got {baseline!r}."
    )


def delta_bounds(bounds: ScoreBounds, baseline: Any) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Per system and topic: δ with unjudged documents non-relevant, and δ's least and greatest
    value over the completions (``baseline`` as :func:`baseline_bounds` takes it)."""
    point, low, high = baseline_bounds(bounds, baseline)
    return bounds.scores - point, bounds.low - high, bounds.high - low


def loss_labels(low: Any, high: Any) -> np.ndarray:
    """Each topic's label (:data:`LABELS`) from δ's least and greatest value."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    return np.where(high < -TOLERANCE, LABELS[0], np.where(low < -TOLERANCE, LABELS[1], LABELS[2]))


def topic_bounds(bounds: ScoreBounds, system: str, baseline: Any, alpha: float = 1.0) -> pd.DataFrame:
    """Per topic of ``system`` against ``baseline``: the scores and their bounds, δ and the risk
    x_j as intervals, the label, and the unjudged documents of the topic.

    Columns ``topic, score, score_low, score_high, baseline, baseline_low, baseline_high, delta,
    delta_low, delta_high, risk, risk_low, risk_high, label, unjudged``."""
    alpha = float(check_alphas([alpha], "topic_bounds")[0])
    if system not in bounds.scores.index:
        raise RiskevalError(f"No system {system!r} in the runs: {', '.join(map(str, bounds.scores.index))}.")
    b, b_lo, b_hi = baseline_bounds(bounds, baseline)
    s, s_lo, s_hi = (m.loc[system].to_numpy() for m in (bounds.scores, bounds.low, bounds.high))
    d, lo, hi = s - b, s_lo - b_hi, s_hi - b_lo
    return pd.DataFrame(
        {
            "topic": bounds.scores.columns,
            "score": s,
            "score_low": s_lo,
            "score_high": s_hi,
            "baseline": b,
            "baseline_low": b_lo,
            "baseline_high": b_hi,
            "delta": d,
            "delta_low": lo,
            "delta_high": hi,
            "risk": risk_scores(d, alpha),
            "risk_low": risk_scores(lo, alpha),
            "risk_high": risk_scores(hi, alpha),
            "label": loss_labels(lo, hi),
            "unjudged": bounds.unjudged.to_numpy(),
        }
    )


def risk_bounds(
    bounds: ScoreBounds, baseline: Any = "mean", alphas: Any = (0.0, 1.0, 5.0, 10.0)
) -> pd.DataFrame:
    """URisk and TRisk of every system against ``baseline`` as intervals over the completions of
    the qrels, and its losses by label, one row per (system, α).

    Columns ``system, alpha, baseline, urisk, urisk_low, urisk_high, trisk_low, trisk_high,
    losses, robust_losses, possible_losses``: ``urisk`` and ``losses`` with unjudged documents
    non-relevant (the usual evaluation); the counts of robust and possible losses as
    :func:`loss_labels` labels the topics.  A baseline system's own rows are left out."""
    values = check_alphas(alphas, "risk_bounds")
    point, low, high = delta_bounds(bounds, baseline)
    rows = []
    for system in point.index:
        if system == baseline:
            continue
        d, lo, hi = (m.loc[system].to_numpy() for m in (point, low, high))
        labels = loss_labels(lo, hi)
        for alpha in values:
            x_lo, x_hi = risk_scores(lo, alpha), risk_scores(hi, alpha)
            t_lo, t_hi = trisk_interval(x_lo, x_hi)
            rows.append(
                {
                    "system": system,
                    "alpha": float(alpha),
                    "baseline": str(baseline),
                    URisk.column: float(risk_scores(d, alpha).mean()),
                    f"{URisk.column}_low": float(x_lo.mean()),
                    f"{URisk.column}_high": float(x_hi.mean()),
                    f"{TRisk.column}_low": t_lo,
                    f"{TRisk.column}_high": t_hi,
                    "losses": int((d < -TOLERANCE).sum()),
                    "robust_losses": int((labels == LABELS[0]).sum()),
                    "possible_losses": int((labels == LABELS[1]).sum()),
                }
            )
    return pd.DataFrame(rows)


def trisk_interval(x_low: np.ndarray, x_high: np.ndarray) -> tuple[float, float]:
    """An interval holding URisk/(s_x/√c) for every x with ``x_low ≤ x ≤ x_high`` (see the module)."""
    c = x_low.size
    if c < 2:
        return -np.inf, np.inf
    u_lo, u_hi = float(x_low.mean()), float(x_high.mean())
    se_min = np.sqrt(_least_spread(x_low, x_high) / (c - 1) / c)
    spread = np.maximum((x_high - u_lo) ** 2, (u_hi - x_low) ** 2).sum()
    se_max = np.sqrt(spread / (c - 1) / c)
    high = _ratio(u_hi, se_min if u_hi > 0 else se_max)
    low = _ratio(u_lo, se_min if u_lo < 0 else se_max)
    return low, high


def _ratio(u: float, se: float) -> float:
    if se > 0:
        return u / se
    return 0.0 if u == 0 else float(np.copysign(np.inf, u))


def _least_spread(low: np.ndarray, high: np.ndarray) -> float:
    """min over m of Σ_j dist(m, [low_j, high_j])²: the least Σ (x_j − x̄)² over the box.  Its
    derivative 2 Σ (m − high_j)⁺ − 2 Σ (low_j − m)⁺ grows with m: bisection finds which intervals
    lie above and below the minimum, then the minimum is the mean of their near ends."""
    a, b = float(low.min()), float(high.max())
    for _ in range(100):
        m = (a + b) / 2
        slope = np.clip(m - high, 0, None).sum() - np.clip(low - m, 0, None).sum()
        if slope > 0:
            b = m
        else:
            a = m
    m = (a + b) / 2
    below, above = high < m, low > m
    if below.any() or above.any():
        m = float((high[below].sum() + low[above].sum()) / (below.sum() + above.sum()))
    return float((np.clip(m - high, 0, None) ** 2 + np.clip(low - m, 0, None) ** 2).sum())


def label_changes(full: ScoreBounds, reduced: ScoreBounds, system: str, baseline: Any) -> dict[str, int]:
    """How a system's losses against ``baseline`` change from one qrels (``full``) to qrels with
    fewer judgments (``reduced``, e.g. without the documents the system alone brought to the pool:
    :func:`riskeval.evaluation.pool_reuse.without_run`), both bounded over their completions.

    Returns the counts ``losses`` and ``losses_reduced`` (unjudged documents non-relevant),
    ``robust`` and ``possible`` (labels with ``full``), ``robust_reduced`` and ``possible_reduced``,
    ``became_possible`` (robust losses with ``full`` that ``reduced`` leaves possible) and
    ``robust_not_lost``: robust losses with ``reduced`` that are no loss with ``full``, which must
    be 0 when ``full`` completes ``reduced`` (its extra judgments grade documents ``reduced`` left
    unjudged, within the grades of the completions)."""
    labels = {}
    points = {}
    for key, bounds in (("full", full), ("reduced", reduced)):
        point, low, high = delta_bounds(bounds, baseline)
        labels[key] = loss_labels(low.loc[system], high.loc[system])
        points[key] = point.loc[system].to_numpy()
    robust, possible = LABELS[0], LABELS[1]
    return {
        "losses": int((points["full"] < -TOLERANCE).sum()),
        "losses_reduced": int((points["reduced"] < -TOLERANCE).sum()),
        "robust": int((labels["full"] == robust).sum()),
        "possible": int((labels["full"] == possible).sum()),
        "robust_reduced": int((labels["reduced"] == robust).sum()),
        "possible_reduced": int((labels["reduced"] == possible).sum()),
        "became_possible": int(((labels["full"] == robust) & (labels["reduced"] == possible)).sum()),
        "robust_not_lost": int(((labels["reduced"] == robust) & (points["full"] >= -TOLERANCE)).sum()),
    }
