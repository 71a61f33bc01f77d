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
from typing import Any, NamedTuple

import numpy as np
from scipy.special import ndtr

from riskeval.core._numba import NUMPY_CELLS, by_size, njit, prange, vectorize
from riskeval.core.paired import topic_major, topic_sums, topic_weights


class ZSums(NamedTuple):
    """Per-system ``Z⁺``, ``Z⁻``, row total ``S`` and (weighted) number of topics ``n``: arrays of
    length r and a number, or, for rows of topic weights (:func:`zsums`), arrays m × r and
    ``n`` m × 1."""

    z_pos: np.ndarray
    z_neg: np.ndarray
    S: np.ndarray
    n: Any


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


@njit(parallel=True, cache=True)  # pragma: no mutate
def _z_kernel(Xt, T, T0, W):
    """Z⁺, Σz and the row totals S per system over Xt (c × r, topic-major), for each row of topic
    weights ``W`` (m × c): three r × m arrays, every resample its own chi-square matrix, and each
    row's total weight (m).

    ``T`` (c,) holds the column totals where they include every row: the resample's grand total is
    ``N = Σ_j w_j T_j``, ``a_i = √(S_i/N)`` and ``q_j = √T_j``; otherwise row i is evaluated within
    ``[x_i; baselines]``: ``q_ij = √(T0_j + x_ij)`` (``T`` empty, ``T0`` the baselines' totals) and
    ``a_i = √(S_i/(S_i + Σ_j w_j T0_j))``.  ``z_ij = residual(x_ij, a_i, q_ij)``.  Each (resample,
    block of systems) is one parallel task, its topics added in order (topics of weight 0
    skipped), without reassociation: the values depend neither on the number of threads nor on
    where a system stands in the matrix.
    """
    c, r = Xt.shape
    blocks = (r + _BLOCK - 1) // _BLOCK
    out = np.zeros((3, r, W.shape[0]))
    weight = np.zeros(W.shape[0])
    shared = T.size > 0
    for task in prange(W.shape[0] * blocks):
        res = task // blocks
        i0 = (task - res * blocks) * _BLOCK
        m = min(r, i0 + _BLOCK) - i0
        w = W[res]
        S, ai, lp, ls = np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m)
        N = 0.0  # Σ_j w_j T_j, or Σ_j w_j T0_j
        n = 0.0  # the total weight
        for j in range(c):
            wj = w[j]
            if wj == 0.0:
                continue
            n += wj
            N += wj * (T[j] if shared else T0[j])
            x = Xt[j, i0 : i0 + m]
            for k in range(m):
                S[k] += wj * x[k]
        for k in range(m):
            total = N if shared else S[k] + N
            ai[k] = math.sqrt(S[k] / total) if total > 0.0 else 0.0
        for j in range(c):
            wj = w[j]
            if wj == 0.0:
                continue
            x = Xt[j, i0 : i0 + m]
            if shared:
                q = math.sqrt(T[j])
                for k in range(m):
                    z = residual(x[k], ai[k], q)
                    lp[k] += wj * max(z, 0.0)
                    ls[k] += wj * z
            else:
                for k in range(m):
                    z = residual(x[k], ai[k], math.sqrt(T0[j] + x[k]))
                    lp[k] += wj * max(z, 0.0)
                    ls[k] += wj * z
        out[0, i0 : i0 + m, res] = lp
        out[1, i0 : i0 + m, res] = ls
        out[2, i0 : i0 + m, res] = S
        if i0 == 0:
            weight[res] = n
    return out, weight


def _z_numpy(Xt, T, T0, w):
    """:func:`_z_kernel` for one row of topic weights ``w`` (c,; ``None``: every topic once, where
    w_j v_j = v_j exactly) by whole-array numpy operations, :func:`residual` written for arrays,
    each sum over the topics in order as the kernel adds them (Z⁺, Σz and S, and the total
    weight)."""
    unit = w is None

    def weighted(v: np.ndarray) -> np.ndarray:  # Σ_j w_j v_j in topic order
        return topic_sums(v if unit else w.reshape((-1,) + (1,) * (v.ndim - 1)) * v, axis=0)

    S = weighted(Xt)
    if T.size > 0:
        N = float(weighted(T))
        a = np.sqrt(S / N) if N > 0 else np.zeros_like(S)
        Q = np.broadcast_to(np.sqrt(T)[:, None], Xt.shape)
    else:
        N_each = S + float(weighted(T0))
        a = np.sqrt(np.divide(S, N_each, out=np.zeros_like(S), where=N_each > 0))
        Q = np.sqrt(T0[:, None] + Xt)
    e = a * Q
    z = np.where(e > 0.0, Xt / np.where(e > 0.0, e, 1.0) - e, 0.0)
    n = float(Xt.shape[0]) if unit else topic_sums(w, axis=0)
    return (weighted(np.maximum(z, 0.0)), weighted(z), S), n


def zsums(X: np.ndarray, baselines: np.ndarray | None = None, weights: np.ndarray | None = None) -> ZSums:
    """``Z⁺``, ``Z⁻`` and ``S`` for every row of ``X`` (r × c, scores ≥ 0): the one computation
    of the chi-square sums, for a table, bootstrap resamples and jackknife values.

    ``baselines=None``: the rows of ``X`` are each other's baselines (every row included).
    Otherwise ``baselines`` is a vector (c,) — one baseline, the 2-row matrix ``[x_i; b]`` — or a
    matrix (k × c) of baseline systems, and each row is evaluated within ``[x_i; baselines]``.
    ``weights`` count topics: ``None`` (each once) or a vector (c,) give arrays of length r and
    ``n`` a number; a matrix (m × c), one row per resample, gives arrays m × r and ``n`` m × 1,
    every resample its own chi-square matrix (row totals, grand total, expected values).  One row
    of weights on fewer than :data:`NUMPY_CELLS` cells runs the numpy form, everything else the
    kernel, so that rows of weights give the same bits however they are batched.
    """
    Xt = topic_major(X)
    c, r = Xt.shape
    W = topic_weights(weights, c)
    if baselines is None:
        T, T0 = Xt.sum(axis=1), np.zeros(0)
    else:
        T, T0 = np.zeros(0), np.atleast_2d(np.asarray(baselines, dtype=np.float64)).sum(axis=0)
    if weights is not None and np.ndim(weights) == 2:
        (zp, zs, S), n = by_size(_z_kernel, W.shape[0] * Xt.size)(Xt, T, T0, W)
        return ZSums(zp.T, (zs - zp).T, S.T, n[:, None])
    if Xt.size < NUMPY_CELLS:
        (zp, zs, S), n = _z_numpy(Xt, T, T0, None if weights is None else W[0])
    else:
        out, total = by_size(_z_kernel, Xt.size)(Xt, T, T0, W)
        (zp, zs, S), n = out[:, :, 0], total[0]
    return ZSums(zp, zs - zp, S, float(n))


def zrisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """ZRisk(α) = Z⁺ + (1+α) Z⁻ (eq. 6)."""
    return z.z_pos + (1.0 + alpha) * z.z_neg


def georisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """GeoRisk(α) = sqrt((S/c) · Φ(ZRisk(α)/c)) (eq. 7)."""
    return np.sqrt(z.S / z.n * ndtr(zrisk_from(z, alpha) / z.n))
