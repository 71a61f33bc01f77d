"""ZRisk and GeoRisk from the chi-square standardised residuals (Dinçer, Macdonald & Ounis,
"Risk-Sensitive Evaluation and Learning to Rank using Multiple Baselines", SIGIR 2016, §3, eq. 4–8).

For a matrix with row sums ``S_i``, column sums ``T_j`` and total ``N``, the expected score is
``e_ij = S_i T_j / N`` and ``z_ij = (x_ij − e_ij)/√e_ij``; a cell with ``e_ij = 0`` has ``z_ij = 0``.
``ZRisk_i(α) = Z⁺_i + (1+α) Z⁻_i`` with ``Z⁺_i = Σ_{z>0} z_ij`` and ``Z⁻_i = Σ_{z<0} z_ij``, so one pass
gives every α.  ``GeoRisk_i(α) = sqrt((S_i/c) Φ(ZRisk_i(α)/c))``.

The evaluated row ``i`` is always part of the matrix.  Two layouts share one kernel: either the
totals already include every row (the whole matrix as multiple baselines), or they are the totals
of external baselines only and row ``i`` is added to them (one system against a single baseline, eq.
8, or against a set of baseline systems).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr

from riskeval.core._numba import FAST, SERIAL_CELLS, njit, parallel_or_twin, prange, serial_twin
from riskeval.core.paired import topic_major


class ZSums(NamedTuple):
    """Per-system ``Z⁺``, ``Z⁻``, row total ``S`` and (weighted) number of topics ``n``."""

    z_pos: np.ndarray
    z_neg: np.ndarray
    S: np.ndarray
    n: float


_BLOCK = 256  # systems per parallel block


@njit(parallel=True, cache=True, fastmath=FAST)
def _z_topic_major(Xt, a, inv_a, q, inv_q, T0, S, N, shared, w):
    """Z⁺ and Σz per system over Xt (c × r, topic-major).

    ``shared``: the totals include every row and ``z_ij = x_ij·inv_q_j·inv_a_i − a_i·q_j`` with
    ``a_i = √(S_i/N)``, ``q_j = √T_j`` — no square root, division or branch in the loop; a zero
    total gives ``a_i = 0`` or ``q_j = 0`` and then ``z_ij = 0`` (scores are ≥ 0).  Otherwise row i is
    evaluated within ``[x_i; baselines]``: ``e_ij = (S_i/N_i)(T0_j + x_ij)``, ``N_i`` in ``N``.
    Block-local accumulators over contiguous systems let LLVM vectorise the inner loop.
    """
    c, r = Xt.shape
    zp = np.zeros(r)
    zs = np.zeros(r)
    n_blocks = (r + _BLOCK - 1) // _BLOCK
    for blk in prange(n_blocks):
        i0 = blk * _BLOCK
        i1 = min(r, i0 + _BLOCK)
        m = i1 - i0
        lp = np.zeros(m)
        ls = np.zeros(m)
        if shared:
            la = a[i0:i1].copy()
            lia = inv_a[i0:i1].copy()
            for j in range(c):
                x = Xt[j, i0:i1]
                wj = w[j]
                qj = q[j]
                iqj = inv_q[j]
                for k in range(m):
                    z = x[k] * iqj * lia[k] - la[k] * qj
                    lp[k] += wj * max(z, 0.0)
                    ls[k] += wj * z
        else:
            scale = np.zeros(m)
            for k in range(m):
                if N[i0 + k] > 0.0:
                    scale[k] = S[i0 + k] / N[i0 + k]
            for j in range(c):
                x = Xt[j, i0:i1]
                wj = w[j]
                for k in range(m):
                    e = scale[k] * (T0[j] + x[k])
                    if e > 0.0:
                        z = (x[k] - e) / math.sqrt(e)
                        lp[k] += wj * max(z, 0.0)
                        ls[k] += wj * z
        zp[i0:i1] = lp
        zs[i0:i1] = ls
    return zp, zs


_z_topic_major_serial = serial_twin(_z_topic_major)


class Totals(NamedTuple):
    """One pass over a matrix: weighted row sums ``S`` (r,), column sums ``T`` (c,) and the
    smallest score."""

    S: np.ndarray
    T: np.ndarray
    min: float


def totals(X: np.ndarray, weights: np.ndarray | None = None) -> Totals:
    """Row sums (weighted by ``weights`` over topics), column sums and minimum of ``X`` (r × c)."""
    Xt = topic_major(X)
    S = Xt.sum(axis=0) if weights is None else np.asarray(weights, dtype=np.float64) @ Xt
    return Totals(S, Xt.sum(axis=1), float(Xt.min()))


def zsums(
    X: np.ndarray,
    baselines: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    *,
    sums: Totals | None = None,
) -> ZSums:
    """``Z⁺``, ``Z⁻`` and ``S`` for every row of ``X`` (r × c, scores ≥ 0).

    ``baselines=None``: the rows of ``X`` are each other's baselines (every row included).
    Otherwise ``baselines`` is a vector (c,) — one baseline, the 2-row matrix ``[x_i; b]`` — or a
    matrix (k × c) of baseline systems, and each row is evaluated within ``[x_i; baselines]``.
    ``weights`` (c,) count topics (bootstrap resamples); the default counts each once.  ``sums``:
    :func:`totals` of ``X`` with the same weights, when the caller already has them.
    """
    Xt = topic_major(X)
    c, r = Xt.shape
    w = np.ones(c) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    S, T, _ = sums if sums is not None else totals(X, w)
    empty = np.zeros(0)
    kernel = parallel_or_twin(_z_topic_major, _z_topic_major_serial, Xt.size >= SERIAL_CELLS)
    if baselines is None:
        N = float(w @ T)
        # square roots and reciprocals outside the fast-math kernel: exact for tiny totals too
        a = np.sqrt(S / N) if N > 0 else np.zeros(r)
        inv_a = np.divide(1.0, a, out=np.zeros_like(a), where=a > 0)
        q = np.sqrt(T)
        inv_q = np.divide(1.0, q, out=np.zeros_like(q), where=q > 0)
        zp, zs = kernel(Xt, a, inv_a, q, inv_q, empty, S, empty, True, w)
    else:
        T0 = np.atleast_2d(np.asarray(baselines, dtype=np.float64)).sum(axis=0)
        N_each = S + float(w @ T0)  # the total of [x_i; baselines], one per system
        zp, zs = kernel(Xt, empty, empty, empty, empty, T0, S, N_each, False, w)
    return ZSums(zp, zs - zp, S, float(w.sum()))


def zrisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """ZRisk(α) = Z⁺ + (1+α) Z⁻ (eq. 6)."""
    return z.z_pos + (1.0 + alpha) * z.z_neg


def georisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """GeoRisk(α) = sqrt((S/c) · Φ(ZRisk(α)/c)) (eq. 7)."""
    return np.sqrt(z.S / z.n * ndtr(zrisk_from(z, alpha) / z.n))
