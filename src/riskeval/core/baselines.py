"""Per-topic aggregate baselines over many systems (Dinçer, Ounis & Macdonald, ECIR 2014, §3, eq. 2).

``aggregate(X, kind)`` gives the per-topic MEAN, MEDIAN or MAX over all rows of ``X``;
``aggregate_loo(X, kind)`` gives, for each row ``i``, the aggregate over the *other* rows (the
evaluated system left out), as an r × c matrix.  Both are exact and vectorised.  MEAN and MAX also
come from per-topic partial sums (:func:`aggregate_from_totals`, :func:`loo_mean`), which is how a
table too large for memory gets them.

A topic on which every system has the same score has that score as its MEAN, exactly
(:func:`equal_scores_exact`): ``T_j/r`` can differ from it in the last bit (three scores of 0.1 sum
to 0.30000000000000004), which would turn the ties of every system on that topic into losses.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def aggregate(X: np.ndarray, kind: str) -> np.ndarray:
    """Per-topic aggregate (c,) over all r systems."""
    if kind == "median":
        return np.median(X, axis=0)
    # ``kind`` is validated by the callers (riskeval.options.AGGREGATES)
    return aggregate_from_totals(kind, X.shape[0], X.sum(axis=0), X.max(axis=0), X.min(axis=0))


def aggregate_from_totals(
    kind: str, r: int, total: np.ndarray, top: np.ndarray | None, low: np.ndarray | None = None
) -> np.ndarray:
    """The MEAN (``total/r``) or MAX (``top``) baseline from per-topic partial sums over r systems:
    ``total`` the sum of the scores of each topic, ``top`` the largest, ``low`` the smallest (with
    ``top``, the MEAN of a topic whose scores are all equal is that score exactly)."""
    if kind == "mean":
        return equal_scores_exact(total / r, low, top)
    if kind == "max" and top is not None:
        return top
    raise ValueError(f"no {kind!r} baseline from per-topic sums")


def equal_scores_exact(mean: Any, low: Any, high: Any) -> Any:
    """``mean``, except where a topic's smallest and largest scores are equal: there, that score."""
    if low is None or high is None:
        return mean
    return np.where(low == high, high, mean)


def loo_mean(total: Any, x: Any, r: int) -> Any:
    """The mean of r values with ``x`` left out, ``(total − x)/(r − 1)``: ``total`` the sum of all
    r (broadcast against ``x``).  The leave-one-out MEAN baseline over systems, and the
    leave-one-out θ₍ⱼ₎ of the jackknife over topics (Dinçer, Macdonald & Ounis, SIGIR 2014,
    eq. 15)."""
    return (total - x) / (r - 1)


def aggregate_loo(X: np.ndarray, kind: str) -> np.ndarray:
    """Leave-one-out aggregates (r × c): row i is the aggregate over every system but i (the
    callers ensure r ≥ 2)."""
    r = X.shape[0]
    if kind == "mean":
        return equal_scores_exact(loo_mean(X.sum(axis=0), X, r), X.min(axis=0), X.max(axis=0))
    if kind == "max":
        return _loo_max(X)
    return _loo_median(X)  # "median"


def _loo_max(X: np.ndarray) -> np.ndarray:
    """Max over the other rows: the column max, except for the row holding it, which gets the
    second largest value (ties give the same value either way)."""
    r = X.shape[0]
    top2 = np.partition(X, r - 2, axis=0)[r - 2 :]  # second largest, largest
    first = np.argmax(X, axis=0)
    out = np.broadcast_to(top2[1], X.shape).copy()
    cols = np.arange(X.shape[1])
    out[first, cols] = top2[0]
    return out


def _loo_median(X: np.ndarray) -> np.ndarray:
    """Median over the other r − 1 rows, from one sort per column.

    With the column sorted as ``v_0 ≤ … ≤ v_{r−1}`` and row i at sorted position p_i, the remaining
    values are ``v`` without position ``p_i``: their k-th smallest is ``v_k`` if ``k < p_i`` else
    ``v_{k+1}``.
    """
    r, c = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    v = np.take_along_axis(X, order, axis=0)
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(r)[:, None].repeat(c, axis=1), axis=0)
    m = r - 1
    cols = np.arange(c)[None, :]

    def kth(k: int) -> np.ndarray:
        idx = np.where(k < pos, k, k + 1)
        return v[idx, cols]

    if m % 2 == 1:
        return kth(m // 2)
    return 0.5 * (kth(m // 2 - 1) + kth(m // 2))
