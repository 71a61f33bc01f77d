"""Sufficient statistics of systems against a baseline, and the measures derived from them.

Seed dincer2014-trisk-hypothesis-testing, eq. 1–4 and 7–23 (SPEC §1–2, "Cheap α sweeps").
For ``δ_j = s_j − b_j`` split into ``δ⁺ = max(δ, 0)`` and ``δ⁻ = min(δ, 0)``, the per-topic
risk-reward score is ``x_j(α) = δ⁺_j + (1+α) δ⁻_j``.  One pass over the matrix gathers, per system,

- ``sum_pos = Σ δ⁺``, ``sum_neg = Σ δ⁻`` (so ``URisk(α) = (sum_pos + (1+α) sum_neg)/c``),
- the centred second moments ``m2_pos = Σ(δ⁺ − δ̄⁺)²``, ``m2_neg``, ``cross = Σ(δ⁺ − δ̄⁺)(δ⁻ − δ̄⁻)``
  (so ``(c−1)·Var(x(α)) = m2_pos + (1+α)² m2_neg + 2(1+α) cross``),
- wins, losses and the "Loss > 20%" count;

after which every α costs O(1) per system.  Topic weights (integer bootstrap counts) are supported:
a weight ``w_j`` counts topic ``j`` ``w_j`` times.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from riskeval.core._numba import FAST, njit, prange


class PairedSums(NamedTuple):
    """Per-system sufficient statistics against a baseline (arrays of length r)."""

    n: float
    sum_pos: np.ndarray
    sum_neg: np.ndarray
    m2_pos: np.ndarray
    m2_neg: np.ndarray
    cross: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    loss20: np.ndarray


@njit(inline="always", fastmath=FAST)
def _row(x, b, w, n, out):
    # Branch-free so that LLVM vectorises the loops.
    sp = 0.0
    sn = 0.0
    wins = 0.0
    losses = 0.0
    loss20 = 0.0
    for j in range(x.shape[0]):
        d = x[j] - b[j]
        sp += w[j] * max(d, 0.0)
        sn += w[j] * min(d, 0.0)
        wins += w[j] * (d > 0.0)
        losses += w[j] * (d < 0.0)
        # "Loss > 20%": (b − s)/b > 0.2 with b > 0 (dincer2016 Table 7)
        loss20 += w[j] * ((b[j] > 0.0) & (-d / max(b[j], 1e-300) > 0.2))
    mp = sp / n
    mn = sn / n
    m2p = 0.0
    m2n = 0.0
    cr = 0.0
    for j in range(x.shape[0]):
        d = x[j] - b[j]
        cp = max(d, 0.0) - mp
        cn = min(d, 0.0) - mn
        m2p += w[j] * cp * cp
        m2n += w[j] * cn * cn
        cr += w[j] * cp * cn
    out[0] = sp
    out[1] = sn
    out[2] = m2p
    out[3] = m2n
    out[4] = cr
    out[5] = wins
    out[6] = losses
    out[7] = loss20


@njit(parallel=True, cache=True, fastmath=FAST)
def _sums_vector(X, b, w, n):
    out = np.empty((X.shape[0], 8))
    for i in prange(X.shape[0]):
        _row(X[i], b, w, n, out[i])
    return out


@njit(parallel=True, cache=True, fastmath=FAST)
def _sums_matrix(X, B, w, n):
    out = np.empty((X.shape[0], 8))
    for i in prange(X.shape[0]):
        _row(X[i], B[i], w, n, out[i])
    return out


def paired_sums(X: np.ndarray, B: np.ndarray, weights: np.ndarray | None = None) -> PairedSums:
    """Sufficient statistics of every row of ``X`` (r × c) against baseline ``B``.

    ``B`` is one baseline vector (c,) shared by all systems or one baseline per system (r × c, e.g.
    leave-one-out aggregates).  ``weights`` (c,), non-negative, default all ones.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    w = np.ones(X.shape[1]) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    n = float(w.sum())
    out = _sums_vector(X, B, w, n) if B.ndim == 1 else _sums_matrix(X, B, w, n)
    return PairedSums(n, *(out[:, k] for k in range(8)))


def urisk_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """URisk(α) = (Σδ⁺ + (1+α)Σδ⁻)/c (eq. 4); ``alpha`` broadcasts against the systems axis."""
    return (s.sum_pos + (1.0 + alpha) * s.sum_neg) / s.n


def variance_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """Sample variance (ddof = 1) of x(α) over topics, from the centred moments."""
    k = 1.0 + alpha
    m2 = s.m2_pos + k * k * s.m2_neg + 2.0 * k * s.cross
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.maximum(m2, 0.0) / (s.n - 1.0)


def risk_scores(delta: np.ndarray, alpha: float) -> np.ndarray:
    """Per-topic risk-reward scores x_j = δ_j if δ_j ≥ 0 else (1+α)δ_j (eq. 3)."""
    return np.where(delta >= 0.0, delta, (1.0 + alpha) * delta)


def jackknife_se(x: np.ndarray) -> np.ndarray:
    """Jackknife standard error of the mean of ``x`` along the last axis (eq. 17–18).

    Computed from the leave-one-out means θ_(j) = (Σx − x_j)/(c − 1), as the paper defines it; for
    a mean it equals s_x/√c exactly (SPEC §2), which the tests check.
    """
    c = x.shape[-1]
    theta = (x.sum(axis=-1, keepdims=True) - x) / (c - 1)
    centred = theta - theta.mean(axis=-1, keepdims=True)
    return np.sqrt((c - 1) / c * (centred * centred).sum(axis=-1))
