"""Rank correlations between system rankings: Kendall's τ-b and AP correlation τ_AP.

τ_AP (Yilmaz, Aslam & Robertson, "A New Rank Correlation Coefficient for Information Retrieval",
SIGIR 2008, eq. 2) compares an evaluated ranking with a reference ranking, giving more weight to
disagreements near the top of the *evaluated* ranking:

    τ_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1

where ``C(i)`` counts the systems ranked above position ``i`` of the evaluated ranking that the
reference also ranks above that system.  It is asymmetric: swapping the two rankings changes it.
Every ``C(i)`` of a ranking comes from one pass down the evaluated ranking with a Fenwick tree
(binary indexed tree) over the reference positions: O(n log n) per ranking.

Ties.  Scores that differ by less than ``TIE_RTOL`` times the largest magnitude in the ranking
are tied: a mean of P@10 values summed in another order must not decide a ranking.  τ_AP needs
strict rankings: systems tied in the reference keep their input order, systems tied in the
evaluated scores are ordered as the reference orders them (so a tie never counts as a
disagreement, and identical scores give τ_AP = 1).  Kendall's τ is τ-b, computed by
``scipy.stats.kendalltau`` (O(n log n)) on the same tie groups.  Both are computed once per run
of adjacent columns that rank alike: the α grids of Zuccon et al. (2016) give thousands of
columns but far fewer changes of ranking.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from riskeval.core._numba import njit
from riskeval.errors import RiskevalError

TIE_RTOL = 1e-9


def tie_groups(values: np.ndarray) -> np.ndarray:
    """Dense rank of each value along the last axis, 0 for the highest; values closer than
    ``TIE_RTOL × max |value|`` to their neighbour in sorted order share a rank."""
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(-v, axis=-1, kind="stable")
    ranked = np.take_along_axis(v, order, axis=-1)
    tol = TIE_RTOL * np.abs(v).max(axis=-1, keepdims=True)
    step = (ranked[..., :-1] - ranked[..., 1:]) > tol
    dense = np.concatenate([np.zeros(v.shape[:-1] + (1,), dtype=np.int64), np.cumsum(step, axis=-1)], axis=-1)
    out = np.empty_like(dense)
    np.put_along_axis(out, order, dense, axis=-1)
    return out


def competition_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1 = best of a 1-D array; tied values (see :func:`tie_groups`) share the best rank."""
    groups = tie_groups(values)
    return np.searchsorted(np.sort(groups), groups, side="left") + 1


def _strict_positions(groups: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Position (0 = top) of each item when sorted by ``groups``, ties by ``tiebreak``; rows of a
    2-D ``groups`` are independent rankings."""
    order = np.lexsort((np.broadcast_to(tiebreak, groups.shape), groups), axis=-1)
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(groups.shape[-1]), axis=-1)
    return pos


@njit(cache=True)  # pragma: no mutate
def _agreements_above(reference_positions: np.ndarray) -> np.ndarray:
    """``C[a, i]``: how many of the items before ``i`` in row ``a`` have a smaller value, for rows
    holding permutations of ``0..n−1`` (the reference position of the item at each evaluated
    position), counted with a Fenwick tree of the values seen so far."""
    n_rows, n = reference_positions.shape
    counts = np.zeros((n_rows, n), dtype=np.int64)
    tree = np.zeros(n + 1, dtype=np.int64)
    for a in range(n_rows):
        tree[:] = 0
        for i in range(n):
            k = reference_positions[a, i]  # sum of tree over the values 0..k−1
            c = 0
            while k > 0:
                c += tree[k]
                k -= k & -k
            counts[a, i] = c
            k = reference_positions[a, i] + 1  # insert the value
            while k <= n:
                tree[k] += 1
                k += k & -k
    return counts


def rank_correlations(reference: np.ndarray, evaluated: np.ndarray):
    """Kendall's τ-b and τ_AP of every column of ``evaluated`` (shape ``(n, A)``, higher = better)
    against ``reference`` (shape ``(n,)``): ``(tau, tau_ap)``, each of shape ``(A,)``.  τ-b is NaN
    when a ranking is all ties; both are NaN for n < 2.
    """
    n, n_cols = evaluated.shape
    if n < 2:
        return np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    ref_groups = tie_groups(reference)
    ref_pos = _strict_positions(ref_groups, np.arange(n))
    groups = tie_groups(evaluated.T)
    new = np.ones(n_cols, dtype=bool)  # a column ranking differently from the column before it
    new[1:] = (groups[1:] != groups[:-1]).any(axis=1)
    rankings, column_ranking = groups[new], np.cumsum(new) - 1
    tau = np.array([stats.kendalltau(ref_groups, ranking).statistic for ranking in rankings])
    order = np.argsort(_strict_positions(rankings, ref_pos), axis=-1)
    agree = _agreements_above(ref_pos[order])  # ref_pos[order]: reference position by evaluated position
    tau_ap = 2.0 / (n - 1) * (agree[:, 1:] / np.arange(1, n)).sum(axis=-1) - 1.0
    return tau[column_ranking], tau_ap[column_ranking]


def tau_ap(reference, evaluated) -> float:
    """AP rank correlation τ_AP of the ranking by ``evaluated`` against the ranking by
    ``reference`` (Yilmaz et al. 2008; higher scores rank first; ties as in the module docstring).
    """
    ref = np.asarray(reference, dtype=np.float64)
    ev = np.asarray(evaluated, dtype=np.float64)
    if ref.ndim != 1 or ev.shape != ref.shape:
        raise RiskevalError(
            f"reference and evaluated must be 1-D of the same length; got {ref.shape} and {ev.shape}."
        )
    return float(rank_correlations(ref, ev[:, None])[1][0])
