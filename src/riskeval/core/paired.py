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

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from riskeval.core._numba import NUMPY_CELLS, by_size, njit, prange, vectorize
from riskeval.core.baselines import TIE_RTOL, loo_mean


class PairedSums(NamedTuple):
    """Per-system sufficient statistics against a baseline (arrays of length r; for rows of topic
    weights, arrays m × r, one row per resample: :func:`paired_sums`).

    ``n`` is the (weighted) number of topics: one number, one per resample (m × 1), or one per
    system in a partial sum of scattered cells (:func:`grouped_paired_sums`) until the partials
    are merged (:func:`merge_paired`)."""

    n: Any
    sum_pos: np.ndarray
    sum_neg: np.ndarray
    m2_pos: np.ndarray
    m2_neg: np.ndarray
    cross: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    loss20: np.ndarray
    scale: np.ndarray  # largest |score| of the system or its baseline


def _loss20(d: Any, b: Any) -> Any:
    """ "Loss > 20%" of one topic (Dinçer, Macdonald & Ounis, SIGIR 2016, Table 7): the system loses
    more than 20 % of the baseline's score, (b − s)/b > 0.2 with b > 0, written b − s > 0.2·b
    (``d = s − b``) so that no division is needed, and by more than the rounding of decimal scores
    (:data:`riskeval.core.baselines.TIE_RTOL` times b): s = 0.088 loses 20 % of b = 0.11, not more.
    Scalars or arrays; :data:`loss20` is its ufunc, which numpy code and numba kernels call."""
    return (b > 0.0) & (-d > (0.2 + TIE_RTOL) * b)


loss20 = vectorize(["boolean(float64, float64)"], cache=True)(_loss20)


#: Systems per parallel task of :func:`paired_sums`: each task reads contiguous runs of this many
#: scores per topic, which lets LLVM vectorise the loop over its systems.
_BLOCK = 64


@njit(inline="always")
def _terms(d, b, kp, kn, out, k, counts):
    """The terms one topic adds to system k's sums, written to ``out[q][k]`` for q = 0, 1, …: δ⁺,
    δ⁻, the squares of δ⁺ − kp and δ⁻ − kn, and if ``counts`` whether δ > 0, δ < 0 and Loss>20%
    (F = 7 terms, 4 without ``counts``)."""
    p = max(d, 0.0)
    q = min(d, 0.0)
    out[0][k] = p
    out[1][k] = q
    out[2][k] = (p - kp) * (p - kp)
    out[3][k] = (q - kn) * (q - kn)
    if counts:
        out[4][k] = d > 0.0
        out[5][k] = d < 0.0
        out[6][k] = loss20(d, b)


@njit(inline="always")
def _add_topic(acc, k, wj, d, b, kp, kn, counts):
    """Add ``wj`` times one topic's terms (:func:`_terms`) to system k's sums ``acc``."""
    p = max(d, 0.0)
    q = min(d, 0.0)
    acc[0][k] += wj * p
    acc[1][k] += wj * q
    acc[2][k] += wj * ((p - kp) * (p - kp))
    acc[3][k] += wj * ((q - kn) * (q - kn))
    if counts:
        acc[4][k] += wj * (d > 0.0)
        acc[5][k] += wj * (d < 0.0)
        acc[6][k] += wj * loss20(d, b)


@njit(inline="always")
def _finish(acc, F, n, kp, kn, out):
    """The sums of :class:`PairedSums` from ``sum_pos`` on, written to ``out`` ((F + 1) × m), from
    the F terms (:func:`_terms`) of m systems added with their weights (``acc``: F arrays of m) and the total
    weight ``n``: the second moments of δ⁺ and δ⁻ about the resample's means by the shifted-data
    formula ``M2 = Σw(v − K)² − (Σw(v − K))²/n`` (Chan, Golub & LeVeque, "Algorithms for computing
    the sample variance", The American Statistician, 1983, §3), exact up to rounding for any shift
    and as accurate as the two-pass algorithm with K near the mean; the cross moment
    ``Σw(δ⁺ − δ̄⁺)(δ⁻ − δ̄⁻) = −Σwδ⁺ · Σwδ⁻ / n``, since δ⁺δ⁻ = 0 on every topic."""
    for k in range(kp.size):
        sp = acc[0][k] - n * kp[k]  # Σw(δ⁺ − K⁺)
        sn = acc[1][k] - n * kn[k]
        out[0, k] = acc[0][k]
        out[1, k] = acc[1][k]
        out[2, k] = acc[2][k] - sp * sp / n
        out[3, k] = acc[3][k] - sn * sn / n
        out[4, k] = -acc[0][k] * acc[1][k] / n
        for q in range(4, F):
            out[q + 1, k] = acc[q][k]


@njit(parallel=True, cache=True)  # pragma: no mutate
def _paired_kernel(Xt, Bt, W, K, counts):
    """Xt: c × r (topic-major); Bt: c × r (one baseline per system) or c × 1 (shared); W: m × c,
    one row of topic weights per resample; K: 2 × r, each system's mean δ⁺ and δ⁻ over the topics
    (every topic once), about which the second moments are taken, or 0 × r: the kernel computes
    them first (one more pass).  Returns the sums (8 × r × m), those of :class:`PairedSums` from
    ``sum_pos`` to ``loss20`` (without ``counts``: 5 × r × m, those up to ``cross``), and each
    row's total weight (m).

    One pass per (resample, block of systems), one parallel task each, each topic's terms
    (:func:`_terms`) computed as it is read and added with its weight (:func:`_finish` makes the
    moments).  Topics of weight 0 are skipped.  Nothing is reassociated (no fast-math): a system's
    sums are the same bits wherever it stands in the matrix, and every value depends on its own
    resample's weights alone, added in topic order, whatever the number of threads.  The sums are
    those of :func:`_weighted_kernel` over the same terms, to the bit.
    """
    c, r = Xt.shape
    shared = Bt.shape[1] == 1
    blocks = (r + _BLOCK - 1) // _BLOCK
    out = np.zeros((8 if counts else 5, r, W.shape[0]))
    total = np.zeros(W.shape[0])
    for task in prange(W.shape[0] * blocks):
        res = task // blocks
        i0 = (task - res * blocks) * _BLOCK
        m = min(r, i0 + _BLOCK) - i0
        w = W[res]
        acc = (np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m))
        kp, kn = np.zeros(m), np.zeros(m)
        if K.shape[0] == 0:  # the means over every topic, each once
            for j in range(c):
                x = Xt[j, i0 : i0 + m]
                if shared:
                    bj = Bt[j, 0]
                    for k in range(m):
                        kp[k] += max(x[k] - bj, 0.0)
                        kn[k] += min(x[k] - bj, 0.0)
                else:
                    b = Bt[j, i0 : i0 + m]
                    for k in range(m):
                        kp[k] += max(x[k] - b[k], 0.0)
                        kn[k] += min(x[k] - b[k], 0.0)
            kp /= c
            kn /= c
        else:
            kp[:] = K[0, i0 : i0 + m]
            kn[:] = K[1, i0 : i0 + m]
        n = 0.0  # the total weight, summed in topic order
        for j in range(c):
            wj = w[j]
            if wj == 0.0:
                continue
            n += wj
            x = Xt[j, i0 : i0 + m]
            if shared:
                bj = Bt[j, 0]
                for k in range(m):
                    _add_topic(acc, k, wj, x[k] - bj, bj, kp[k], kn[k], counts)
            else:
                b = Bt[j, i0 : i0 + m]
                for k in range(m):
                    _add_topic(acc, k, wj, x[k] - b[k], b[k], kp[k], kn[k], counts)
        _finish(acc, 7 if counts else 4, n, kp, kn, out[:, i0 : i0 + m, res])
        if i0 == 0:
            total[res] = n
    return out, total


@njit(parallel=True, cache=True)  # pragma: no mutate
def _topic_terms(Xt, Bt, K, counts):
    """Every topic's terms (:func:`_terms`) for every system: c × F × r, about the shift ``K``."""
    c, r = Xt.shape
    shared = Bt.shape[1] == 1
    V = np.zeros((c, 7 if counts else 4, r))
    for j in prange(c):
        for k in range(r):
            b = Bt[j, 0 if shared else k]
            _terms(Xt[j, k] - b, b, K[0, k], K[1, k], V[j], k, counts)
    return V


@njit(parallel=True, cache=True)  # pragma: no mutate
def _weighted_kernel(V, W, K):
    """:func:`_paired_kernel` for many rows of topic weights ``W`` (m × c) from the topics' terms
    ``V`` (c × F × r, :func:`_topic_terms` about the shift ``K``), computed once for all of them.
    Returns the sums resample by resample (m × (F + 1) × r) and each row's total weight (m).

    One parallel task per resample: it adds ``w_j`` times the terms of each topic in topic order,
    skipping topics of weight 0, and :func:`_finish` makes the moments; the same operations in the
    same order as :func:`_paired_kernel`, so the same bits."""
    c, F, r = V.shape
    terms = V.reshape(c, F * r)
    out = np.zeros((W.shape[0], F + 1, r))
    total = np.zeros(W.shape[0])
    for res in prange(W.shape[0]):
        w = W[res]
        acc = np.zeros(F * r)
        n = 0.0
        for j in range(c):
            wj = w[j]
            if wj == 0.0:
                continue
            n += wj
            v = terms[j]
            for k in range(F * r):
                acc[k] += wj * v[k]
        _finish(acc.reshape(F, r), F, n, K[0], K[1], out[res])
        total[res] = n
    return out, total


def _paired_numpy(
    Xt: np.ndarray, Bt: np.ndarray, W: np.ndarray, K: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_paired_kernel` by whole-array numpy operations over every resample at once: the
    same operations, each sum over the topics in order (:func:`topic_sums`), as the kernel adds
    them, so the same bits as the kernel's, and a system's sums do not depend on the other
    systems of the matrix."""
    D = Xt - Bt
    B = np.broadcast_to(Bt, D.shape)
    pos, neg = np.maximum(D, 0.0), np.minimum(D, 0.0)
    w = W[:, :, None]  # m × c × 1
    unit = W.shape[0] == 1 and bool((W == 1.0).all())  # every topic once: w_j v_j = v_j exactly

    def weighted(v: np.ndarray) -> np.ndarray:  # Σ_j w_j v_j in topic order: m × r
        return topic_sums(v, axis=0)[None, :] if unit else topic_sums(w * v, axis=1)

    n = topic_sums(W, axis=1)
    sp, sn = weighted(pos), weighted(neg)
    if K.shape[0] == 0:  # the means over every topic, each once
        K = np.stack([sp[0], sn[0]] if unit else [topic_sums(pos, axis=0), topic_sums(neg, axis=0)])
        K = K / Xt.shape[0]
    cp, cn = pos - K[0], neg - K[1]
    qp, qn = sp - n[:, None] * K[0], sn - n[:, None] * K[1]  # Σw(δ⁺ − K⁺), Σw(δ⁻ − K⁻)
    m2 = (
        weighted(cp * cp) - qp * qp / n[:, None],
        weighted(cn * cn) - qn * qn / n[:, None],
        -sp * sn / n[:, None],
    )
    counts = (weighted(D > 0.0), weighted(D < 0.0), weighted(_loss20(D, B)))
    return np.stack([sp, sn, *m2, *counts]).transpose(0, 2, 1), n


def topic_sums(v: np.ndarray, axis: int) -> np.ndarray:
    """Sums along the topic ``axis``, each added in topic order, one topic after the other, as the
    kernels add them.  numpy adds along an axis that is not the innermost one row after row (in
    order); along the innermost axis (a vector, or one system) it adds pairwise, in another order,
    so there a running sum is taken instead: the bits of a system's sum never depend on the shape of
    the matrix it stands in."""
    if math.prod(v.shape[axis + 1 :]) > 1 or v.shape[axis] == 0:
        return v.sum(axis=axis)
    return np.take(np.cumsum(v, axis=axis), -1, axis=axis)


def _largest(A: np.ndarray) -> np.ndarray:
    """The largest |a| of each column of ``A`` (c × r), 0 for none, without a copy of |A|."""
    return np.maximum(A.max(axis=0, initial=0.0), -A.min(axis=0, initial=0.0))


def topic_major(X: np.ndarray) -> np.ndarray:
    """The c × r C-contiguous view of an r × c matrix: free for pandas' own (column-major)
    layout, one copy otherwise."""
    return np.asfortranarray(X, dtype=np.float64).T


def topic_weights(weights: np.ndarray | None, c: int) -> np.ndarray:
    """The m × c topic weights of ``weights``: ``None`` (one row of ones), one row (c,) or m rows."""
    if weights is None:
        return np.ones((1, c))
    return np.ascontiguousarray(np.atleast_2d(np.asarray(weights, dtype=np.float64)))


def paired_sums(
    X: np.ndarray, B: np.ndarray, weights: np.ndarray | None = None, counts: bool = True
) -> PairedSums:
    """Sufficient statistics of every row of ``X`` (r × c) against baseline ``B``: the one
    computation of them, for a table (unit weights), bootstrap resamples and jackknife values.

    ``B`` is one baseline vector (c,) shared by all systems or one baseline per system (r × c, e.g.
    leave-one-out aggregates).  ``weights``: ``None`` (each topic once) or one vector (c,) of
    non-negative topic weights give arrays of length r and ``n`` a number; a matrix (m × c), one
    row per resample, gives arrays m × r and ``n`` an m × 1 array (so that the measures of
    :mod:`riskeval.measures.declared` broadcast).  A row's total weight must be positive.
    ``counts=False`` leaves out wins, losses and Loss>20% (``None``), which URisk and TRisk do not
    read: a pass over the topics with fewer sums.
    """
    Xt = topic_major(X)
    B = np.asarray(B, dtype=np.float64)
    Bt = topic_major(B) if B.ndim == 2 else np.ascontiguousarray(B[:, None])
    W = topic_weights(weights, Xt.shape[0])
    batched = weights is not None and np.ndim(weights) == 2
    # the shift of the second moments: each system's mean δ⁺ and δ⁻ over the topics, each once
    # (the sums of every topic once; computed by the kernel or numpy form for one row of weights)
    K = np.zeros((0, Xt.shape[1]))
    if batched:
        once = paired_sums(X, B)
        K = np.stack([once.sum_pos, once.sum_neg]) / once.n
    # one row of weights on a small matrix: numpy; rows of weights always a kernel, whose values
    # do not depend on how the rows are batched: each topic's terms computed once for all rows
    work = W.shape[0] * Xt.size
    if Xt.size < NUMPY_CELLS and not batched:
        out, n = _paired_numpy(Xt, Bt, W, K)
    elif batched:
        V = by_size(_topic_terms, Xt.size)(Xt, Bt, K, counts)
        out, n = by_size(_weighted_kernel, work)(V, W, K)
        out = out.transpose(1, 2, 0)
    else:
        out, n = by_size(_paired_kernel, work)(Xt, Bt, W, K, counts)
    # the scale of every topic, whatever its weight: the rounding of the matrix's differences
    scale = np.maximum(_largest(Xt), _largest(Bt))
    sums: list[Any] = [v.T if batched else v[:, 0] for v in out[: 8 if counts else 5]]
    sums += [] if counts else [None, None, None]
    if not batched:
        return PairedSums._make([float(n[0]), *sums, scale])
    return PairedSums._make([n[:, None], *sums, np.broadcast_to(scale, (W.shape[0], Xt.shape[1]))])


def grouped_paired_sums(i: np.ndarray, x: np.ndarray, b: np.ndarray, r: int) -> PairedSums:
    """The :class:`PairedSums` of scattered cells: system ``i[k]`` scores ``x[k]`` on a topic where
    its baseline scores ``b[k]`` (one row of a long table each), for systems 0..r−1, by
    :func:`paired_sums`: each system's cells, in their order, are one row of a dense block with
    its baselines (one per cell), the systems with as many cells in one block, so a system's sums
    are those of :func:`paired_sums` on its row of cells.  ``n`` is the number of cells of each
    system (0 and zero sums for a system without one); merge partials with :func:`merge_paired`."""
    order = np.argsort(i, kind="stable")
    counts = np.bincount(i, minlength=r)
    first = np.cumsum(counts) - counts  # where each system's cells start in ``order``
    fields: list[np.ndarray] = [counts.astype(np.float64)] + [np.zeros(r) for _ in PairedSums._fields[1:]]
    for k in np.unique(counts[counts > 0]):
        rows = np.flatnonzero(counts == k)
        cells = order[first[rows][:, None] + np.arange(k)]  # systems × their k cells
        for f, v in zip(fields[1:], paired_sums(x[cells], b[cells])[1:], strict=True):
            f[rows] = v
    return PairedSums._make(fields)


def merge_paired(parts: Sequence[PairedSums]) -> PairedSums:
    """The :class:`PairedSums` of the union of disjoint sets of topics, from each set's sums: sums
    and counts add, and the centred moments combine by the update of Chan, Golub & LeVeque
    ("Updating formulae and a pairwise algorithm for computing sample variances", 1979, eq. 2.1),
    ``M2 = Σ_k M2_k + Σ_k n_k (mean_k − mean)²``."""
    n, sp, sn, wins, losses, l20 = (
        np.sum([getattr(p, f) for p in parts], axis=0)
        for f in ("n", "sum_pos", "sum_neg", "wins", "losses", "loss20")
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        dp = [np.where(p.n > 0, p.sum_pos / p.n - sp / n, 0.0) for p in parts]  # mean_k − mean
        dn = [np.where(p.n > 0, p.sum_neg / p.n - sn / n, 0.0) for p in parts]
    parts_dev = list(zip(parts, dp, dn, strict=True))
    return PairedSums(
        n,
        sp,
        sn,
        np.sum([p.m2_pos + p.n * a * a for p, a, _ in parts_dev], axis=0),
        np.sum([p.m2_neg + p.n * b * b for p, _, b in parts_dev], axis=0),
        np.sum([p.cross + p.n * a * b for p, a, b in parts_dev], axis=0),
        wins,
        losses,
        l20,
        np.max([p.scale for p in parts], axis=0),
    )


def urisk_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """URisk(α) = (Σδ⁺ + (1+α)Σδ⁻)/c (eq. 4); ``alpha`` broadcasts against the systems axis."""
    return (s.sum_pos + (1.0 + alpha) * s.sum_neg) / s.n


def variance_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """Sample variance (ddof = 1) of x(α) over topics, from the centred moments."""
    k = 1.0 + alpha
    # at a huge α (1e308) the moments overflow: the variance is then inf or NaN, as TRisk reports
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m2 = s.m2_pos + k * k * s.m2_neg + 2.0 * k * s.cross
        return np.maximum(m2, 0.0) / (s.n - 1.0)


def standard_error(s: PairedSums, alpha: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """The standard error s_x/√c of URisk(α) (eq. 12), and where the risk-reward scores are
    constant up to rounding (:func:`zero_spread`): the one rule that decides when TRisk is
    undefined, for :func:`trisk_from` and the tables' standard errors and reasons alike."""
    sd = np.sqrt(variance_from(s, alpha))
    return sd / np.sqrt(s.n), zero_spread(sd, s.scale, alpha)


def effect_size_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """The standardised URisk x̄/s_x (x̄ = URisk(α), s_x the standard deviation of the risk-reward
    scores), NaN where they are constant up to rounding: the rule of :func:`standard_error`, so
    the effect size is undefined exactly where TRisk is."""
    sd = np.sqrt(variance_from(s, alpha))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # sd = 0 is constant
        return np.where(zero_spread(sd, s.scale, alpha), np.nan, urisk_from(s, alpha) / sd)


def trisk_from(s: PairedSums, alpha: np.ndarray | float) -> np.ndarray:
    """TRisk(α) = URisk(α)/(s_x/√c) (eq. 7–12), NaN where the risk-reward scores are constant up to
    rounding (:func:`standard_error`)."""
    err, constant = standard_error(s, alpha)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # err = 0 is constant
        return np.where(constant, np.nan, urisk_from(s, alpha) / err)


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
    theta = loo_mean(x.sum(axis=-1, keepdims=True), x, c)
    centred = theta - theta.mean(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):  # scores at a huge α (1e308): the standard error is inf
        return np.sqrt((c - 1) / c * (centred * centred).sum(axis=-1))
