"""Per-topic aggregate baselines over many systems (Dinçer, Ounis & Macdonald, ECIR 2014, §3, eq. 2).

``aggregate(X, kind)`` gives the per-topic MEAN, MEDIAN or MAX over all rows of ``X``;
``aggregate_loo(X, kind)`` gives, for each row ``i``, the aggregate over the *other* rows (the
evaluated system left out), as an r × c matrix.  Both are vectorised.  MEAN and MAX also come from
per-topic partial sums (:func:`aggregate_from_totals`, :func:`loo_mean`), which is how a table too
large for memory gets them.

**Ties.** Scores are decimals (trec_eval prints four digits, P@10 is a multiple of 0.1), which
floating point holds only to rounding: the MEAN of 0.1, 0.2 and 0.3 is 0.2, but their
floating-point sum over 3 is 0.20000000000000004.  A score within :data:`TIE_RTOL` times its
topic's largest |score| of the topic's MEAN or MEDIAN (leave-one-out or not) ties with it: the
baseline takes that score's value, exactly (:func:`nearest_ties`, :func:`cell_ties`), so that every
computation downstream sees δ = 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riskeval.core._numba import NUMPY_CELLS, njit

#: Relative tolerance of a tie with an aggregate baseline, 2⁻³⁸ = 2¹⁴·ε ≈ 3.6e-12: a score within
#: ``TIE_RTOL · max_i |x_ij|`` of topic j's MEAN or MEDIAN ties with it.
#:
#: It covers the rounding of those baselines for up to 16,000 systems: the floating-point sum of r
#: scores is within (r − 1)·(ε/2)·Σ|x_ij| of the exact one, to first order, in any order of
#: summation (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §4.2), so the MEAN
#: (or its leave-one-out form, or half the sum of two middle scores) is within (r + 1)·ε·max|x_ij|
#: of the mean of the decimals, counting the rounding of each decimal to binary and of the
#: division.  And it never merges different decimals: a score and the MEAN of r scores of d
#: decimals that differ do so by at least 10⁻ᵈ/r (1e-8 for 4 decimals and 10,000 systems), more
#: than twice the tolerance wherever ``r · max|x_ij| < 1.3e7`` (for d = 4); P@k values differ by at
#: least 1/(k·r); a score and 0.8 times the MEAN, by at least 0.2·10⁻ᵈ/r.  Values with more than
#: 11 significant digits (AP to full precision) that agree to 2⁻³⁸ of the topic's largest score
#: are taken as equal.  The "Loss > 20%" boundary (:func:`riskeval.core.paired.loss20`) takes the
#: same tolerance, relative to the baseline's score.
TIE_RTOL = 2.0**-38


def tie_tolerance(top: Any, low: Any) -> Any:
    """The distance from a topic's aggregate baseline within which a score ties with it:
    :data:`TIE_RTOL` times the topic's largest |score| (``top`` and ``low`` its largest and
    smallest score)."""
    return TIE_RTOL * np.maximum(np.abs(top), np.abs(low))


def aggregate(X: np.ndarray, kind: str) -> np.ndarray:
    """Per-topic aggregate (c,) over all r systems; a MEAN or MEDIAN within the tie tolerance of a
    score is that score (:func:`nearest_ties`)."""
    top = X.max(axis=0)
    if kind == "max":  # a score already
        return top
    # ``kind`` is validated by the callers (riskeval.options.AGGREGATES)
    values = np.median(X, axis=0) if kind == "median" else X.sum(axis=0) / X.shape[0]
    return nearest_ties(X, values, tie_tolerance(top, X.min(axis=0)))


def nearest_ties(X: np.ndarray, values: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """``values`` (c,), except that a topic's value within ``tol`` of a score of ``X`` (r × c)
    becomes the score nearest to it (the first such row on equal distances): one baseline shared
    by every system can take one score's value only, which decimal scores never make ambiguous
    (two different ones are further apart than twice the tolerance)."""
    if X.size >= NUMPY_CELLS:  # one pass over the matrix in the order of its memory
        if X.flags.c_contiguous:
            return _nearest_ties(X, values, tol, False)
        return _nearest_ties(np.asfortranarray(X).T, values, tol, True)
    gap = np.abs(X - values)
    nearest = gap.argmin(axis=0)
    topics = np.arange(X.shape[1])
    return np.where(gap[nearest, topics] <= tol, X[nearest, topics], values)


@njit(cache=True)  # pragma: no mutate
def _nearest_ties(A, values, tol, topics_first):
    """:func:`nearest_ties` in one pass over the cells of ``A`` in the order of its rows, without
    r × c temporaries: the form for large matrices, equal to the numpy one.  ``A`` is the r × c
    matrix, or with ``topics_first`` its c × r transpose; either way the systems of a topic come in
    their order."""
    best = np.full(values.size, np.inf)
    score = values.copy()
    for p in range(A.shape[0]):
        for q in range(A.shape[1]):
            j = p if topics_first else q
            gap = abs(A[p, q] - values[j])
            if gap < best[j]:
                best[j] = gap
                score[j] = A[p, q]
    return np.where(best <= tol, score, values)


def cell_ties(x: Any, b: Any, low: Any, high: Any) -> Any:
    """``b``, the baselines of scores ``x``, except where a score is within the tie tolerance
    (:func:`tie_tolerance` of its topic's smallest and largest scores ``low`` and ``high``) of its
    baseline: there, that score.  Arrays that broadcast: one cell each (a long table's rows), or
    r × c against (c,)."""
    return np.where(np.abs(x - b) <= tie_tolerance(high, low), x, b)


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
    callers ensure r ≥ 2); a MEAN or MEDIAN within the tie tolerance of the system's own score is
    that score (:func:`cell_ties`)."""
    if kind == "max":  # a score already
        return _loo_max(X)
    r = X.shape[0]
    values = loo_mean(X.sum(axis=0), X, r) if kind == "mean" else _loo_median(X)
    return cell_ties(X, values, X.min(axis=0), X.max(axis=0))


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
