"""Per-topic aggregate baselines over many systems (Dinçer, Ounis & Macdonald, ECIR 2014, §3, eq. 2).

``aggregate(X, kind)`` gives the per-topic MEAN, MEDIAN or MAX over all rows of ``X``;
``aggregate_loo(X, kind)`` gives, for each row ``i``, the aggregate over the *other* rows (the
evaluated system left out), as an r × c matrix.  Both are exact and vectorised.  MEAN and MAX also
come from per-topic partial sums (:func:`aggregate_from_totals`, :func:`loo_mean`), which is how a
table too large for memory gets them.

The MEAN of the scores in memory is decided exactly where it decides a win, a tie or a loss
(:func:`decided_by_rounding`): ``T_j/r`` in floating point can miss the exact mean in its last bits
(0.1, 0.2 and 0.3 sum to 0.6000000000000001, whose third is 0.20000000000000004, not 0.2), which
would turn a system that ties with the mean into a loser.  Wherever a score lies within the
rounding error of its topic's floating-point mean (or of 0.8 times it, the bound of a loss of more
than 20%), that mean is computed exactly and rounded once.
From per-topic partial sums (a table too large for memory) only a topic whose scores are all equal
gets its MEAN exactly (:func:`equal_scores_exact`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from riskeval.core._numba import NUMPY_CELLS, njit


def aggregate(X: np.ndarray, kind: str) -> np.ndarray:
    """Per-topic aggregate (c,) over all r systems."""
    if kind == "median":
        return np.median(X, axis=0)
    # ``kind`` is validated by the callers (riskeval.options.AGGREGATES)
    top, low = X.max(axis=0), X.min(axis=0)
    values = aggregate_from_totals(kind, X.shape[0], X.sum(axis=0), top, low)
    if kind == "mean":
        bound = rounding_bound(X.shape[0], top, low)
        if X.size < NUMPY_CELLS:
            near = decided_by_rounding(X, values, bound).any(axis=0)
        else:
            near = topics_decided_by_rounding(X, values, bound)
        for j in np.flatnonzero(near):
            values[j] = float(exact_sum(X[:, j]) / X.shape[0])
    return values


def rounding_bound(r: int, top: np.ndarray, low: np.ndarray) -> np.ndarray:
    """How far a floating-point mean of r scores can be from their exact mean, per topic: r·ε
    times the topic's largest magnitude (``top`` and ``low`` its largest and smallest score), which
    holds for any order of summation (Higham, *Accuracy and Stability of Numerical Algorithms*,
    2002, §4.2)."""
    return r * np.finfo(np.float64).eps * np.maximum(np.abs(top), np.abs(low))


def decided_by_rounding(X: np.ndarray, means: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """The cells of ``X`` (r × c) whose comparison with their floating-point mean in ``means``
    (c,) or (r × c) may depend on that mean's rounding (:func:`rounding_bound`): a score within
    ``bound`` of the mean (a win, a tie or a loss) or within twice it of 0.8 times the mean (a
    loss of more than 20%, SIGIR 2016, Table 7)."""
    gap = X - means
    return (np.abs(gap) <= bound) | (np.abs(gap + 0.2 * means) <= 2 * bound)


@njit(cache=True)  # pragma: no mutate
def topics_decided_by_rounding(X, means, bound):
    """The topics (c,) with a cell that :func:`decided_by_rounding` flags, in one pass over ``X``
    (r × c) and without its r × c temporaries: the form for large matrices, equal to the numpy
    one (same operations, in the same order, per cell)."""
    r, c = X.shape
    near = np.zeros(c, dtype=np.bool_)
    for i in range(r):
        for j in range(c):
            gap = X[i, j] - means[j]
            if abs(gap) <= bound[j] or abs(gap + 0.2 * means[j]) <= 2 * bound[j]:
                near[j] = True
    return near


def exact_sum(values: np.ndarray) -> Fraction:
    """The sum of finite float64 ``values`` in exact arithmetic, as the sum of the parts that
    ``math.fsum`` peels off it (each the correctly rounded rest of the ones before; a few parts)."""
    parts: list[float] = []
    while rest := math.fsum(np.append(values, np.negative(parts))):
        parts.append(rest)
    return sum(map(Fraction, parts), Fraction(0))


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
        top, low = X.max(axis=0), X.min(axis=0)
        means = loo_mean(X.sum(axis=0), X, r)  # a topic of equal scores is among those made exact
        rows, columns = np.nonzero(decided_by_rounding(X, means, rounding_bound(r, top, low)))
        totals = {j: exact_sum(X[:, j]) for j in np.unique(columns)}
        for i, j in zip(rows, columns, strict=True):
            means[i, j] = float((totals[j] - Fraction(X[i, j])) / (r - 1))
        return means
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
