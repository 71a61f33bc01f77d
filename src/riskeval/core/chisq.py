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

from riskeval.core._numba import FAST, NUMPY_CELLS, by_size, njit, prange, vectorize
from riskeval.core.paired import topic_major


class ZSums(NamedTuple):
    """Per-system ``Z⁺``, ``Z⁻``, row total ``S`` and (weighted) number of topics ``n``."""

    z_pos: np.ndarray
    z_neg: np.ndarray
    S: np.ndarray
    n: float


@vectorize(["float64(float64, float64, float64)"], cache=True)
def residual(x: float, a: float, q: float) -> float:
    """The standardised residual ``z_ij = (x_ij − e_ij)/√e_ij`` (eq. 5) for ``e_ij = (a_i q_j)²``,
    written ``x/(a q) − a q``; a cell with ``e_ij = 0`` has ``z_ij = 0``.  With every row in the
    totals, ``a_i = √(S_i/N)`` and ``q_j = √T_j``.  A ufunc: numpy code and numba kernels call it."""
    e = a * q
    return x / e - e if e > 0.0 else 0.0


#: Systems per parallel task of :func:`zsums`: contiguous runs of scores per topic, which lets LLVM
#: vectorise the loop over the task's systems.
_BLOCK = 256


@njit(parallel=True, cache=True, fastmath=FAST)  # pragma: no mutate
def _z_kernel(Xt, a, q, T0, w):
    """Z⁺ and Σz per system over Xt (c × r, topic-major), ``z_ij = residual(x_ij, a_i, q_ij)``.

    ``q`` (c,) is ``√T_j`` where the totals include every row; otherwise row i is evaluated within
    ``[x_i; baselines]`` and ``q_ij = √(T0_j + x_ij)`` (``q`` empty, ``T0`` the baselines' totals).
    """
    c, r = Xt.shape
    zp = np.zeros(r)
    zs = np.zeros(r)
    shared = q.size > 0
    for blk in prange((r + _BLOCK - 1) // _BLOCK):
        i0 = blk * _BLOCK
        m = min(r, i0 + _BLOCK) - i0
        ai = a[i0 : i0 + m]
        lp, ls, qj = np.zeros(m), np.zeros(m), np.empty(m)
        for j in range(c):
            x, wj = Xt[j, i0 : i0 + m], w[j]
            if shared:
                qj[:] = q[j]
            else:
                for k in range(m):
                    qj[k] = math.sqrt(T0[j] + x[k])
            for k in range(m):
                z = residual(x[k], ai[k], qj[k])
                lp[k] += wj * max(z, 0.0)
                ls[k] += wj * z
        zp[i0 : i0 + m] = lp
        zs[i0 : i0 + m] = ls
    return zp, zs


def _z_numpy(Xt, a, q, T0, w):
    """:func:`_z_kernel` by whole-array numpy operations, :func:`residual` written for arrays; equal
    to the kernel up to the order of the additions."""
    Q = np.broadcast_to(q[:, None], Xt.shape) if q.size > 0 else np.sqrt(T0[:, None] + Xt)
    e = a * Q
    z = np.where(e > 0.0, Xt / np.where(e > 0.0, e, 1.0) - e, 0.0)
    return w @ np.maximum(z, 0.0), w @ z


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
    kernel = _z_numpy if Xt.size < NUMPY_CELLS else by_size(_z_kernel, Xt.size)
    if baselines is None:
        N = float(w @ T)
        a = np.sqrt(S / N) if N > 0 else np.zeros(r)
        zp, zs = kernel(Xt, a, np.sqrt(T), np.zeros(0), w)
    else:
        T0 = np.atleast_2d(np.asarray(baselines, dtype=np.float64)).sum(axis=0)
        N_each = S + float(w @ T0)  # the total of [x_i; baselines], one per system
        a = np.sqrt(np.divide(S, N_each, out=np.zeros(r), where=N_each > 0))
        zp, zs = kernel(Xt, a, np.zeros(0), T0, w)
    return ZSums(zp, zs - zp, S, float(w.sum()))


def zrisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """ZRisk(α) = Z⁺ + (1+α) Z⁻ (eq. 6)."""
    return z.z_pos + (1.0 + alpha) * z.z_neg


def georisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """GeoRisk(α) = sqrt((S/c) · Φ(ZRisk(α)/c)) (eq. 7)."""
    return np.sqrt(z.S / z.n * ndtr(zrisk_from(z, alpha) / z.n))
