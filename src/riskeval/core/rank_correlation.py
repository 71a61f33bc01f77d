"""Rank correlations between system rankings: Kendall's τ-b and AP correlation τ_AP.

τ_AP (Yilmaz, Aslam & Robertson, "A New Rank Correlation Coefficient for Information Retrieval",
SIGIR 2008, eq. 2) compares an evaluated ranking with a reference ranking, giving more weight to
disagreements near the top of the *evaluated* ranking:

    τ_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1

where ``C(i)`` counts the systems ranked above position ``i`` of the evaluated ranking that the
reference also ranks above that system.  It is asymmetric: swapping the two rankings changes it.

Ties.  Scores that differ by less than ``TIE_RTOL`` times the largest magnitude in the ranking
are tied: a mean of P@10 values summed in another order must not decide a ranking.  τ_AP needs
strict rankings: systems tied in the reference keep their input order, systems tied in the
evaluated scores are ordered as the reference orders them (so a tie never counts as a
disagreement, and identical scores give τ_AP = 1).  Kendall's τ is τ-b, as
``scipy.stats.kendalltau`` computes it on the same tie groups (tested equal); it is computed here
for a whole grid of rankings at once because a loop of scipy calls costs ~20× more on the α grids
of Zuccon et al. (2016).
"""

from __future__ import annotations

import numpy as np

from riskeval.errors import RiskevalError

TIE_RTOL = 1e-9

# Pairs held in memory at once when scoring a grid of rankings (bounded working set).
_PAIR_BUDGET = 1 << 22


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


def rank_correlations(reference: np.ndarray, evaluated: np.ndarray):
    """Kendall's τ-b and τ_AP of every column of ``evaluated`` (shape ``(n, A)``, higher = better)
    against ``reference`` (shape ``(n,)``), vectorised over the columns: ``(tau, tau_ap)``, each
    of shape ``(A,)``.  τ-b is NaN when a ranking is all ties; both are NaN for n < 2.
    """
    n, n_cols = evaluated.shape
    if n < 2:
        return np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    ref_groups = tie_groups(reference)
    ref_pos = _strict_positions(ref_groups, np.arange(n))
    # ref_sign[i, j] = sign(rank_i − rank_j) in the reference, +1 when j ranks above i
    ref_sign = np.sign(ref_groups[:, None] - ref_groups[None, :]).astype(np.int8)
    ref_untied = np.count_nonzero(ref_sign > 0)
    above = np.tri(n, k=-1, dtype=bool)  # above[i, j]: position j is above position i
    inv_rank = np.zeros(n)
    inv_rank[1:] = 1.0 / np.arange(1, n)
    tau = np.empty(n_cols)
    tau_ap = np.empty(n_cols)
    chunk = max(1, _PAIR_BUDGET // (n * n))
    for start in range(0, n_cols, chunk):
        cols = slice(start, start + chunk)
        groups = tie_groups(evaluated[:, cols].T)  # (a, n)
        # each untied pair once, as (i, j) with j above i; concordant +1, discordant −1
        j_above = groups[:, :, None] > groups[:, None, :]
        concord = np.einsum("aij,ij->a", j_above, ref_sign, dtype=np.int64)
        untied = np.count_nonzero(j_above, axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            tau[cols] = concord / np.sqrt(ref_untied * untied.astype(np.float64))
        pos = _strict_positions(groups, ref_pos)
        order = np.argsort(pos, axis=-1)
        r = ref_pos[order]  # reference position of the system at each evaluated position
        agree = (r[:, None, :] < r[:, :, None]) & above
        tau_ap[cols] = 2.0 / (n - 1) * (agree.sum(axis=-1) @ inv_rank) - 1.0
    return tau, tau_ap


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
