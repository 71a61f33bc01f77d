"""Every system of a matrix against every other as its baseline, in one pass per pair of system
blocks: the sums behind URisk for all r² (system, baseline) pairs of the baseline-bias study
(Dinçer, Ounis & Macdonald, ECIR 2014, §2.3).

URisk(α) of system i against baseline k is ``(Σ_j δ_j + α Σ_j min(δ_j, 0))/c`` with
``δ_j = x_ij − x_kj``: the first sum is ``S_i − S_k`` (row sums), so the pairs only need
``N[k, i] = Σ_j min(x_ij − x_kj, 0)``.  Since ``min(−a, 0) = min(a, 0) − a``, ``N[i, k] = N[k, i] −
(S_i − S_k)``: only the pairs k ≤ i are summed, half of the r²·c cell visits, with one subtraction,
one minimum and one addition each, in tiles of 64 × 64 systems (one parallel task each).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from riskeval.core._numba import FAST, njit, prange
from riskeval.core.paired import topic_major

_TILE = 64  # systems per tile side


# The scores are validated finite, so the minimum may assume no NaN or inf and vectorise.
_FINITE = FAST | {"nnan", "ninf"}  # pragma: no mutate


@njit(parallel=True, cache=True, fastmath=_FINITE)  # pragma: no mutate
def _negative_sums_rows(Xt, k0, k1, out):
    """``out[k − k0, i] = Σ_j min(x_ij − x_kj, 0)`` for baselines k in [k0, k1) and systems
    i ≥ k0 (tiles right of the diagonal block; the rest is left untouched), each sum over the
    topics in order."""
    c, r = Xt.shape
    m = k1 - k0
    for t in prange((r - k0 + _TILE - 1) // _TILE):
        i0 = k0 + t * _TILE
        i1 = min(r, i0 + _TILE)
        acc = np.zeros((m, i1 - i0))
        for j in range(c):
            x = Xt[j, i0:i1]
            for kk in range(m):
                bk = Xt[j, k0 + kk]
                a = acc[kk]
                for ii in range(i1 - i0):
                    a[ii] += min(x[ii] - bk, 0.0)
        out[:, i0:i1] = acc


def negative_part_sums(X: np.ndarray, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """``N`` (r × r) with ``N[k, i] = Σ_j min(X[i, j] − X[k, j], 0)``: row k is baseline k.

    ``progress(n)`` is called after each block of ``n`` baselines.
    """
    Xt = topic_major(X)
    r = Xt.shape[1]
    S = Xt.sum(axis=0)
    N = np.zeros((r, r))
    for k0 in range(0, r, _TILE):
        k1 = min(r, k0 + _TILE)
        block = np.zeros((k1 - k0, r))
        _negative_sums_rows(Xt, k0, k1, block)
        N[k0:k1, k0:] = block[:, k0:]
        if progress is not None:
            progress(k1 - k0)
    # the pairs below the diagonal from the identity N[i, k] = N[k, i] − (S_i − S_k), block by block
    for k0 in range(0, r, _TILE):
        k1 = min(r, k0 + _TILE)
        N[k0:k1, :k0] = N[:k0, k0:k1].T - (S[k0:k1, None] - S[None, :k0])
        diag = N[k0:k1, k0:k1]
        low = np.tril_indices(k1 - k0, -1)
        diag[low] = diag.T[low] - (S[k0 + low[0]] - S[k0 + low[1]])
    return N
