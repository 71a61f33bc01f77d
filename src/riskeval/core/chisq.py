"""ZRisk and GeoRisk from the chi-square standardised residuals (seed dincer2016-zrisk-georisk,
eq. 4–8; SPEC §4).

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

from riskeval.core._numba import FAST, njit, prange


class ZSums(NamedTuple):
    """Per-system ``Z⁺``, ``Z⁻``, row total ``S`` and (weighted) number of topics ``n``."""

    z_pos: np.ndarray
    z_neg: np.ndarray
    S: np.ndarray
    n: float


@njit(parallel=True, cache=True, fastmath=FAST)
def _zsums_shared(X, q, inv_q, N, w):
    """Totals over every row (whole matrix): z_ij = x_ij/(a_i q_j) − a_i q_j with a_i = √(S_i/N)
    and q_j = √T_j, so the inner loop has no square root, division or branch; e_ij = 0 gives
    q_j = 0 (then x_ij = 0 as scores are ≥ 0) or a_i = 0, and z_ij = 0 either way."""
    r, c = X.shape
    out = np.empty((r, 3))
    for i in prange(r):
        x = X[i]
        s = 0.0
        for j in range(c):
            s += w[j] * x[j]
        zp = 0.0
        zs = 0.0
        ratio = s / N if N > 0.0 else 0.0
        if 0.0 < ratio < math.inf:  # also false for NaN (subnormal totals flushed to zero)
            a = math.sqrt(ratio)
            inv_a = 1.0 / a
            for j in range(c):
                z = x[j] * inv_q[j] * inv_a - a * q[j]
                zp += w[j] * max(z, 0.0)
                zs += w[j] * z
        out[i, 0] = zp
        out[i, 1] = zs - zp
        out[i, 2] = s
    return out


@njit(parallel=True, cache=True, fastmath=FAST)
def _zsums_added(X, T0, w):
    """External baseline totals T0: row i is evaluated within [x_i; baselines], so its topic
    totals are T0_j + x_ij and its grand total Σ_j w_j (T0_j + x_ij)."""
    r, c = X.shape
    out = np.empty((r, 3))
    for i in prange(r):
        x = X[i]
        s = 0.0
        n_tot = 0.0
        for j in range(c):
            s += w[j] * x[j]
            n_tot += w[j] * (T0[j] + x[j])
        zp = 0.0
        zs = 0.0
        scale = s / n_tot if n_tot > 0.0 else 0.0
        if 0.0 < scale < math.inf:  # also false for NaN (subnormal totals flushed to zero)
            for j in range(c):
                e = scale * (T0[j] + x[j])
                if e > 0.0:
                    z = (x[j] - e) / math.sqrt(e)
                    zp += w[j] * max(z, 0.0)
                    zs += w[j] * z
        out[i, 0] = zp
        out[i, 1] = zs - zp
        out[i, 2] = s
    return out


def zsums(
    X: np.ndarray,
    baselines: np.ndarray | None = None,
    weights: np.ndarray | None = None,
) -> ZSums:
    """``Z⁺``, ``Z⁻`` and ``S`` for every row of ``X`` (r × c, scores ≥ 0).

    ``baselines=None``: the rows of ``X`` are each other's baselines (every row included).
    Otherwise ``baselines`` is a vector (c,) — one baseline, the 2-row matrix ``[x_i; b]`` — or a
    matrix (k × c) of baseline systems, and each row is evaluated within ``[x_i; baselines]``.
    ``weights`` (c,) count topics (bootstrap resamples); the default counts each once.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    w = np.ones(X.shape[1]) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    if baselines is None:
        T = X.sum(axis=0)
        q = np.sqrt(T)  # outside the fast-math kernel: exact for tiny totals too
        inv_q = np.divide(1.0, q, out=np.zeros_like(q), where=q > 0)
        out = _zsums_shared(X, q, inv_q, float(w @ T), w)
    else:
        T0 = np.atleast_2d(np.asarray(baselines, dtype=np.float64)).sum(axis=0)
        out = _zsums_added(X, T0, w)
    return ZSums(out[:, 0], out[:, 1], out[:, 2], float(w.sum()))


def zrisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """ZRisk(α) = Z⁺ + (1+α) Z⁻ (eq. 6)."""
    return z.z_pos + (1.0 + alpha) * z.z_neg


def georisk_from(z: ZSums, alpha: np.ndarray | float) -> np.ndarray:
    """GeoRisk(α) = sqrt((S/c) · Φ(ZRisk(α)/c)) (eq. 7)."""
    return np.sqrt(z.S / z.n * ndtr(zrisk_from(z, alpha) / z.n))
