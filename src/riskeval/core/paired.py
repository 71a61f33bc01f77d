"""Sufficient statistics of systems against a baseline, and the measures derived from them.

Dinçer, Macdonald & Ounis, "Hypothesis Testing for the Risk-Sensitive Evaluation of Retrieval
Systems" (SIGIR 2014), eq. 1–4 and 7–23.
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

from typing import Any, NamedTuple

import numpy as np

from riskeval.core._numba import FAST, SERIAL_CELLS, njit, parallel_or_twin, prange, serial_twin


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
    scale: np.ndarray  # largest |score| of the system or its baseline


# Systems per parallel block and topics per chunk: a block × chunk tile (64 × 512 doubles, 256 KiB)
# stays in cache between the two passes that give its centred moments.
_BLOCK = 64
_CHUNK = 512


@njit(inline="always")
def _baseline_row(Bt, j, i0, i1, per_system, brow):
    """Topic j's baseline for systems i0..i1: their own (per system) or the shared one."""
    if per_system:
        brow[:] = Bt[j, i0:i1]
    else:
        brow[:] = Bt[j, 0]


@njit(parallel=True, cache=True, fastmath=FAST)
def _paired_topic_major(Xt, Bt, per_system, w):
    """Xt: c × r (topic-major, C-contiguous); Bt: c × r if ``per_system`` else (c,).

    Each tile of topics gives per-system sums and centred moments in two in-cache passes; tiles
    are merged with the pairwise update of Chan, Golub & LeVeque (1979), so the matrix is read from
    memory once and the moments stay accurate.  Inner loops run over contiguous systems with
    block-local accumulators, which LLVM vectorises.
    """
    c, r = Xt.shape
    out = np.zeros((r, 9))
    n_blocks = (r + _BLOCK - 1) // _BLOCK
    for blk in prange(n_blocks):
        i0 = blk * _BLOCK
        i1 = min(r, i0 + _BLOCK)
        m = i1 - i0
        acc = np.zeros((9, m))  # sum⁺, sum⁻, M2⁺, M2⁻, cross, wins, losses, loss>20%, scale
        mp_a = np.zeros(m)
        mn_a = np.zeros(m)
        csp = np.empty(m)
        csn = np.empty(m)
        cm2p = np.empty(m)
        cm2n = np.empty(m)
        ccr = np.empty(m)
        brow = np.empty(m)
        n_a = 0.0
        for j0 in range(0, c, _CHUNK):
            j1 = min(c, j0 + _CHUNK)
            n_b = 0.0
            csp[:] = 0.0
            csn[:] = 0.0
            wins = acc[5]
            losses = acc[6]
            loss20 = acc[7]
            scale = acc[8]
            for j in range(j0, j1):
                wj = w[j]
                n_b += wj
                x = Xt[j, i0:i1]
                _baseline_row(Bt, j, i0, i1, per_system, brow)
                for k in range(m):
                    d = x[k] - brow[k]
                    csp[k] += wj * max(d, 0.0)
                    csn[k] += wj * min(d, 0.0)
                    wins[k] += wj * (d > 0.0)
                    losses[k] += wj * (d < 0.0)
                    # "Loss > 20%" (Dinçer, Macdonald & Ounis, SIGIR 2016, Table 7): (b − s)/b > 0.2
                    # with b > 0, evaluated as b − s > 0.2·b so that no division by b is needed
                    loss20[k] += wj * ((brow[k] > 0.0) & (-d > 0.2 * brow[k]))
                    scale[k] = max(scale[k], abs(x[k]), abs(brow[k]))
            if n_b <= 0.0:
                continue
            cm2p[:] = 0.0
            cm2n[:] = 0.0
            ccr[:] = 0.0
            for k in range(m):
                csp[k] /= n_b  # chunk means from here on
                csn[k] /= n_b
            for j in range(j0, j1):
                wj = w[j]
                x = Xt[j, i0:i1]
                _baseline_row(Bt, j, i0, i1, per_system, brow)
                for k in range(m):
                    d = x[k] - brow[k]
                    cp = max(d, 0.0) - csp[k]
                    cn = min(d, 0.0) - csn[k]
                    cm2p[k] += wj * cp * cp
                    cm2n[k] += wj * cn * cn
                    ccr[k] += wj * cp * cn
            n = n_a + n_b
            f = n_a * n_b / n
            g = n_b / n
            for k in range(m):
                dp = csp[k] - mp_a[k]
                dn = csn[k] - mn_a[k]
                acc[0, k] += csp[k] * n_b
                acc[1, k] += csn[k] * n_b
                acc[2, k] += cm2p[k] + dp * dp * f
                acc[3, k] += cm2n[k] + dn * dn * f
                acc[4, k] += ccr[k] + dp * dn * f
                mp_a[k] += dp * g
                mn_a[k] += dn * g
            n_a = n
        out[i0:i1, :] = acc.T
    return out


_paired_topic_major_serial = serial_twin(_paired_topic_major)


def topic_major(X: np.ndarray) -> np.ndarray:
    """The c × r C-contiguous view of an r × c matrix: free for pandas' own (column-major)
    layout, one copy otherwise."""
    return np.asfortranarray(X, dtype=np.float64).T


def paired_sums(X: np.ndarray, B: np.ndarray, weights: np.ndarray | None = None) -> PairedSums:
    """Sufficient statistics of every row of ``X`` (r × c) against baseline ``B``.

    ``B`` is one baseline vector (c,) shared by all systems or one baseline per system (r × c, e.g.
    leave-one-out aggregates).  ``weights`` (c,), non-negative, default all ones.
    """
    Xt = topic_major(X)
    B = np.asarray(B, dtype=np.float64)
    per_system = B.ndim == 2
    Bt = topic_major(B) if per_system else np.ascontiguousarray(B[:, None])  # c × 1
    w = np.ones(Xt.shape[0]) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    kernel = parallel_or_twin(_paired_topic_major, _paired_topic_major_serial, Xt.size >= SERIAL_CELLS)
    out = kernel(Xt, Bt, per_system, w)
    return PairedSums(float(w.sum()), *(out[:, k] for k in range(9)))


def urisk_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """URisk(α) = (Σδ⁺ + (1+α)Σδ⁻)/c (eq. 4); ``alpha`` broadcasts against the systems axis."""
    return (s.sum_pos + (1.0 + alpha) * s.sum_neg) / s.n


def variance_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """Sample variance (ddof = 1) of x(α) over topics, from the centred moments."""
    k = 1.0 + alpha
    m2 = s.m2_pos + k * k * s.m2_neg + 2.0 * k * s.cross
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.maximum(m2, 0.0) / (s.n - 1.0)


#: Relative tolerance below which the spread of the per-topic risk-reward scores is rounding noise.
#: A difference s_j − b_j carries a rounding error up to eps·max(|s_j|, |b_j|), and x_j up to (1+α)
#: times that; a standard deviation within 1024 times this bound is treated as 0, so that e.g. the
#: differences 0.1 − 0.3, 0.2 − 0.4, 0.3 − 0.5 count as constant rather than giving TRisk ≈ −7e15.
ZERO_SPREAD_RTOL = 1024 * float(np.finfo(np.float64).eps)


def zero_spread(sd: Any, scale: Any, alpha: Any) -> np.ndarray:
    """Whether a standard deviation ``sd`` of risk-reward scores is rounding noise: ``sd ≤
    ZERO_SPREAD_RTOL · (1 + α) · scale``, ``scale`` the largest |score| of system and baseline."""
    return np.asarray(sd) <= ZERO_SPREAD_RTOL * (1.0 + np.asarray(alpha)) * np.asarray(scale)


def risk_scores(delta: Any, alpha: float) -> np.ndarray:
    """Per-topic risk-reward scores x_j = δ_j if δ_j ≥ 0 else (1+α)δ_j (eq. 3).

    The one definition of x_j; :func:`risk_score` is its compiled scalar twin for numba kernels
    (the tests tie the two together).
    """
    delta = np.asarray(delta, dtype=np.float64)
    return np.where(delta >= 0.0, delta, (1.0 + alpha) * delta)


@njit(cache=True)
def risk_score(d: float, alpha: float) -> float:
    """:func:`risk_scores` of one δ, for numba kernels."""
    return d if d >= 0.0 else (1.0 + alpha) * d


class RiskRewardSums(NamedTuple):
    """The risk/reward summary of each system (arrays of length r; Dinçer, Macdonald & Ounis,
    SIGIR 2014, §3, and SIGIR 2016, Table 7): FRisk, FReward, UGain = FReward − FRisk, wins,
    losses, ties, Loss>20%, Reward/Risk and W/L."""

    frisk: np.ndarray
    freward: np.ndarray
    ugain: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    ties: np.ndarray
    loss20: np.ndarray
    reward_risk: np.ndarray
    win_loss: np.ndarray


def risk_reward_sums(s: PairedSums) -> RiskRewardSums:
    """The one computation of the risk/reward summary from the paired sufficient statistics.

    FRisk = |Σδ⁻|/c and FReward = Σδ⁺/c; counts are int64; the ratios follow :func:`ratio`.
    """
    frisk = np.abs(s.sum_neg) / s.n
    freward = s.sum_pos / s.n
    wins = s.wins.astype(np.int64)
    losses = s.losses.astype(np.int64)
    return RiskRewardSums(
        frisk=frisk,
        freward=freward,
        ugain=freward - frisk,
        wins=wins,
        losses=losses,
        ties=np.int64(round(s.n)) - wins - losses,
        loss20=s.loss20.astype(np.int64),
        reward_risk=ratio(freward, frisk),
        win_loss=ratio(wins, losses),
    )


def ratio(num: Any, den: Any) -> np.ndarray:
    """num/den with x/0 = inf for x > 0 and 0/0 = NaN, without warnings."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return num / den


def jackknife_se(x: np.ndarray) -> np.ndarray:
    """Jackknife standard error of the mean of ``x`` along the last axis (eq. 17–18).

    Computed from the leave-one-out means θ_(j) = (Σx − x_j)/(c − 1), as the paper defines it; for
    a mean it equals s_x/√c exactly (the paper reports an RMSE of 0.000 between the two, §3.3),
    which the tests check.
    """
    c = x.shape[-1]
    theta = (x.sum(axis=-1, keepdims=True) - x) / (c - 1)
    centred = theta - theta.mean(axis=-1, keepdims=True)
    return np.sqrt((c - 1) / c * (centred * centred).sum(axis=-1))
