"""numba kernels of the resampling procedures: many resamples at once, in parallel over resamples.

Kernels take arrays and random numbers drawn by the caller (:mod:`riskeval.inference._common`);
they hold no state and draw nothing, so results do not depend on the number of threads.  Each has a
serial twin (:func:`riskeval.core._numba.serial_twin`) that :func:`pick` chooses for small work,
which would spend more on waking the thread pool than on computing.
"""

from __future__ import annotations

import math

import numpy as np

from riskeval.core._numba import FAST, njit, prange, serial_twin


@njit(parallel=True, cache=True, fastmath=FAST)
def zsums_batch(Xt, T, q, inv_q, W):
    """Z⁺, Σz, row totals S and topic counts n of every system for each row of topic weights ``W``.

    ``Xt`` is the c × r topic-major matrix (scores ≥ 0), ``T`` its column sums, ``q = √T`` and
    ``inv_q = 1/q`` (0 where T = 0); ``W`` is B × c (bootstrap counts, or 0/1 jackknife weights).
    A weight ``w_j`` counts topic j ``w_j`` times, so for each resample the whole chi-square matrix
    is recomputed: ``S_i = Σ_j w_j x_ij``, ``N = Σ_j w_j T_j``, ``z_ij = x_ij/(a_i q_j) − a_i q_j``
    with ``a_i = √(S_i/N)`` (a cell with ``e_ij = 0`` has z = 0), the same arithmetic as
    :func:`riskeval.core.chisq.zsums`.  Topics with weight 0 (about a third of a bootstrap resample)
    are skipped.
    """
    c, r = Xt.shape
    B = W.shape[0]
    zp = np.zeros((B, r))
    zs = np.zeros((B, r))
    S = np.zeros((B, r))
    n = np.zeros(B)
    for b in prange(B):
        s = np.zeros(r)
        N = 0.0
        nb = 0.0
        for j in range(c):
            w = W[b, j]
            if w != 0.0:
                nb += w
                N += w * T[j]
                x = Xt[j]
                for i in range(r):
                    s[i] += w * x[i]
        a = np.zeros(r)
        ia = np.zeros(r)
        if N > 0.0:
            for i in range(r):
                if s[i] > 0.0:
                    a[i] = math.sqrt(s[i] / N)
                    ia[i] = 1.0 / a[i]
        lp = np.zeros(r)
        ls = np.zeros(r)
        for j in range(c):
            w = W[b, j]
            if w != 0.0:
                qj = q[j]
                iqj = inv_q[j]
                x = Xt[j]
                for i in range(r):
                    z = x[i] * iqj * ia[i] - a[i] * qj
                    lp[i] += w * max(z, 0.0)
                    ls[i] += w * z
        zp[b] = lp
        zs[b] = ls
        S[b] = s
        n[b] = nb
    return zp, zs, S, n


@njit(inline="always")
def _shuffled_sums(Xt, U, b, col, acc):
    """Row sums of Xt (c × r) after a Fisher–Yates shuffle of each topic by the draws ``U[b]``."""
    c, r = Xt.shape
    acc[:] = 0.0
    for j in range(c):
        col[:] = Xt[j]
        for k in range(r - 1, 0, -1):
            m = (np.uint64(U[b, j, r - 1 - k]) * np.uint64(k + 1)) >> np.uint64(32)
            t = col[k]
            col[k] = col[m]
            col[m] = t
        for i in range(r):
            acc[i] += col[i]


@njit(parallel=True, cache=True)
def permuted_sums(Xt, U):
    """Row sums of the matrix after shuffling, independently within each topic, the scores across
    systems: one row of sums per resample.

    ``Xt`` is c × r (topic-major); ``U`` is B × c × (r − 1) uniform uint32 draws, consumed by a
    Fisher–Yates shuffle of each topic (swap position k with ⌊u·(k+1)/2³²⌋, Lemire's
    multiply-shift; its bias, below r/2³², is negligible).  Returns B × r sums.
    """
    c, r = Xt.shape
    B = U.shape[0]
    out = np.zeros((B, r))
    for b in prange(B):
        col = np.empty(r)
        acc = np.empty(r)
        _shuffled_sums(Xt, U, b, col, acc)
        out[b] = acc
    return out


@njit(parallel=True, cache=True)
def tukey_block(Xt, U, observed, tol, chunks):
    """One block of randomised Tukey HSD resamples, in one parallel region.

    For each resample (draws ``U[b]``, see :func:`permuted_sums`): the systems' means after the
    shuffle, their range ``max − min`` (returned, B values), and for every pair (i, k) whether
    ``|m_i − m_k| ≥ observed[i, k] − tol`` (counted; upper triangle of the returned r × r).
    Resamples are split into ``chunks`` contiguous runs, each with its own counts, summed at the
    end: no two threads write the same memory.
    """
    c, r = Xt.shape
    B = U.shape[0]
    ranges = np.empty(B)
    counts = np.zeros((chunks, r, r))
    per = (B + chunks - 1) // chunks
    for ch in prange(chunks):
        col = np.empty(r)
        acc = np.empty(r)
        cnt = counts[ch]
        for b in range(ch * per, min(B, (ch + 1) * per)):
            _shuffled_sums(Xt, U, b, col, acc)
            lo = np.inf
            hi = -np.inf
            for i in range(r):
                acc[i] /= c
                lo = min(lo, acc[i])
                hi = max(hi, acc[i])
            ranges[b] = hi - lo
            for i in range(r):
                mi = acc[i]
                for k in range(i + 1, r):
                    if abs(mi - acc[k]) >= observed[i, k] - tol:
                        cnt[i, k] += 1.0
    return ranges, counts.sum(axis=0)


@njit(parallel=True, cache=True)
def row_summaries(A, estimate, null):
    """Per row of ``A`` (m × B, NaN = undefined resample): the number of defined values, their
    standard deviation (ddof = 1), and twice the mid-rank count below ``estimate[i]`` and below
    ``null`` (``#(a < v) + #(a ≤ v)``)."""
    m, B = A.shape
    valid = np.zeros(m)
    sd = np.full(m, np.nan)
    below_est = np.zeros(m)
    below_null = np.zeros(m)
    for i in prange(m):
        row = A[i]
        v = 0.0
        s = 0.0
        be = 0.0
        bn = 0.0
        e = estimate[i]
        for b in range(B):
            x = row[b]
            if not np.isnan(x):
                v += 1.0
                s += x
                be += (x < e) + (x <= e)
                bn += (x < null) + (x <= null)
        valid[i] = v
        below_est[i] = be
        below_null[i] = bn
        if v > 1.0:
            mean = s / v
            ss = 0.0
            for b in range(B):
                x = row[b]
                if not np.isnan(x):
                    ss += (x - mean) * (x - mean)
            sd[i] = math.sqrt(ss / (v - 1.0))
    return valid, sd, below_est, below_null


@njit(parallel=True, cache=True, fastmath=FAST)
def flip_hits(codes, Tp, Tn, factors, scale, threshold, hits, maxima, chunks):
    """One block of sign vectors for every (system i, α) cell.

    A sign vector is given as bytes, ``codes[b, g]`` holding the signs of topics 8g … 8g+7 (bit t
    set: topic 8g+t flipped).  ``Tp[g, s]`` is the signed sum over group g of δ⁺ for code s (and
    ``Tn`` of δ⁻), one 256-row table per group of 8 topics built once, so a sign vector costs c/8
    row additions instead of c ("four Russians" tables).  With ``P = Σ ε δ⁺`` and ``N = Σ ε δ⁻`` the
    flipped sum of cell (i, α) is ``P + (1+α) N`` (``factors`` holds 1+α); its statistic
    ``u = |P + (1+α) N|·scale`` is compared with the cell's ``threshold`` (``scale``, ``threshold``
    and ``hits`` are k × r; ``hits`` accumulates) and the maximum of u over all cells is written to
    ``maxima[b]``.  One parallel region: ``chunks`` runs of sign vectors, each counted apart.
    """
    B, G = codes.shape
    r = Tp.shape[2]
    k = factors.size
    counts = np.zeros((chunks, k, r))
    per = (B + chunks - 1) // chunks
    for ch in prange(chunks):
        P = np.empty(r)
        N = np.empty(r)
        cnt = counts[ch]
        for b in range(ch * per, min(B, (ch + 1) * per)):
            P[:] = 0.0
            N[:] = 0.0
            for g in range(G):
                s = codes[b, g]
                for i in range(r):
                    P[i] += Tp[g, s, i]
                    N[i] += Tn[g, s, i]
            top = 0.0
            for a in range(k):  # inner loops over contiguous systems, branch-free: vectorised
                f = factors[a]
                for i in range(r):
                    u = abs(P[i] + f * N[i]) * scale[a, i]
                    top = max(top, u)
                    cnt[a, i] += u >= threshold[a, i]
            maxima[b] = top
    hits += counts.sum(axis=0)


@njit(parallel=True, cache=True, fastmath=FAST)
def weighted_sums(W, Vt):
    """``W @ Vt`` (B × c times c × m) for non-negative topic weights, skipping zero weights, in
    parallel over rows of ``W`` (no BLAS threads competing with the kernels' own)."""
    B, c = W.shape
    m = Vt.shape[1]
    out = np.zeros((B, m))
    for b in prange(B):
        acc = np.zeros(m)
        for j in range(c):
            w = W[b, j]
            if w != 0.0:
                for i in range(m):
                    acc[i] += w * Vt[j, i]
        out[b] = acc
    return out


@njit(parallel=True, cache=True, fastmath=FAST)
def paired_measures(S4, n, factors, out_u, out_t, start, want_u, want_t):
    """URisk and TRisk of every (system, α) for each resample, from the weighted sums.

    ``S4`` is 4r × B: rows Σwδ⁺, Σwδ⁻, Σwδ⁺², Σwδ⁻² of each system; ``n[b]`` the resample's topic
    count; ``factors`` holds 1+α.  With ``T = Σwδ⁺ + (1+α)Σwδ⁻`` (δ⁺δ⁻ = 0, so
    ``Σwx² = Σwδ⁺² + (1+α)²Σwδ⁻²``): URisk = T/n (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4) and
    TRisk = URisk/√(s²/n) with ``s² = (Σwx² − T·URisk)/(n − 1)``; NaN where s² is at rounding level of
    the mean square (zero variance).  Written to ``out_u[i, a, start + b]`` and ``out_t``.
    """
    r = S4.shape[0] // 4
    B = S4.shape[1]
    k = factors.size
    for i in prange(r):
        for a in range(k):
            f = factors[a]
            for b in range(B):
                nb = n[b]
                total = S4[i, b] + f * S4[r + i, b]
                u = total / nb
                if want_u:
                    out_u[i, a, start + b] = u
                if want_t:
                    sumsq = S4[2 * r + i, b] + f * f * S4[3 * r + i, b]
                    var = (sumsq - total * u) / (nb - 1.0)
                    if var > 1e-13 * sumsq / nb:
                        out_t[i, a, start + b] = u / math.sqrt(var / nb)
                    else:
                        out_t[i, a, start + b] = np.nan


_PARALLEL = (
    zsums_batch,
    permuted_sums,
    tukey_block,
    row_summaries,
    flip_hits,
    weighted_sums,
    paired_measures,
)
_TWINS = {k: serial_twin(k) for k in _PARALLEL}


#: Below this much work (cells visited, about a millisecond on one core) a kernel runs serially:
#: waking the thread pool would cost as much, and far more on a loaded machine.
SERIAL_WORK = 1 << 20


def pick(kernel, work: int):
    """``kernel`` for ``work`` (cells visited) of at least :data:`SERIAL_WORK`, else its serial twin."""
    return kernel if work >= SERIAL_WORK else _TWINS[kernel]
