"""numba kernels of the resampling procedures: many resamples at once, in parallel over resamples.

Kernels hold no state.  They take random numbers drawn by the caller
(:mod:`riskeval.inference._common`: bootstrap counts, sign vectors), or draw within themselves from
a key: every resample then has its own random stream (xoroshiro128++ seeded by splitmix64 from the
key and the resample's number, :func:`stream_start`), whichever thread computes it.  Work is
split into a fixed number of runs of resamples, each counted apart, so results do not depend on
the number of threads.  Each kernel has a serial twin (:func:`riskeval.core._numba.serial_twin`)
that :func:`pick` chooses for small work, which would spend more on waking the thread pool than on
computing, and on a machine whose cores are all busy.  Work arrays are allocated once per run of
resamples, never per resample.
"""

from __future__ import annotations

import math
import os

import numpy as np

from riskeval.core._numba import FAST, njit, parallel_or_twin, prange, serial_twin
from riskeval.core.normal_cdf import ndtr

#: Resamples computed together before their values are written out (see
#: :func:`resampled_measures`): each output row then gets 32 values, four cache lines, at a time
#: (a bootstrap of 100 × 50 with four measures takes 0.08 s, 0.09–0.10 s with one line).
_BLOCK = 32


@njit(inline="always")
def _nonzero(w_b, idx, ws):
    """The topics of nonzero weight in ``w_b``: their indices to ``idx``, their weights to ``ws``;
    returns their number and the sum of the weights."""
    m = 0
    total = 0.0
    for j in range(w_b.size):
        w = w_b[j]
        total += w
        if w != 0.0:
            idx[m] = j
            ws[m] = w
            m += 1
    return m, total


@njit(inline="always")
def _weighted_sums(V, idx, ws, m, s1, s2, squares):
    """``s1[i] = Σ_g ws[g]·V[idx[g], i]`` over the m topics listed, and, when ``squares``,
    ``s2[i] = Σ_g ws[g]·V[idx[g], i]²``.  Four topics are added at a time: a quarter of the loads
    and stores of the sums."""
    s1[:] = 0.0
    if squares:
        s2[:] = 0.0
    g = 0
    while g + 4 <= m:
        v0, v1, v2, v3 = V[idx[g]], V[idx[g + 1]], V[idx[g + 2]], V[idx[g + 3]]
        w0, w1, w2, w3 = ws[g], ws[g + 1], ws[g + 2], ws[g + 3]
        if squares:
            for i in range(s1.size):
                a0, a1, a2, a3 = w0 * v0[i], w1 * v1[i], w2 * v2[i], w3 * v3[i]
                s1[i] += (a0 + a1) + (a2 + a3)
                s2[i] += (a0 * v0[i] + a1 * v1[i]) + (a2 * v2[i] + a3 * v3[i])
        else:
            for i in range(s1.size):
                s1[i] += (w0 * v0[i] + w1 * v1[i]) + (w2 * v2[i] + w3 * v3[i])
        g += 4
    while g < m:
        v, w = V[idx[g]], ws[g]
        for i in range(s1.size):
            a = w * v[i]
            s1[i] += a
            if squares:
                s2[i] += a * v[i]
        g += 1


@njit(inline="always")
def _z_sums(Xt, q, inv_q, idx, ws, m, a, ia, zp, zs):
    """``zp[i] = Σ_g ws[g]·max(z_ij, 0)`` and ``zs[i] = Σ_g ws[g]·z_ij`` over the m topics listed
    (j = idx[g]), with ``z_ij = x_ij/(a_i q_j) − a_i q_j``; four topics at a time."""
    zp[:] = 0.0
    zs[:] = 0.0
    g = 0
    while g + 4 <= m:
        j0, j1, j2, j3 = idx[g], idx[g + 1], idx[g + 2], idx[g + 3]
        x0, x1, x2, x3 = Xt[j0], Xt[j1], Xt[j2], Xt[j3]
        w0, w1, w2, w3 = ws[g], ws[g + 1], ws[g + 2], ws[g + 3]
        for i in range(zp.size):
            z0 = x0[i] * inv_q[j0] * ia[i] - a[i] * q[j0]
            z1 = x1[i] * inv_q[j1] * ia[i] - a[i] * q[j1]
            z2 = x2[i] * inv_q[j2] * ia[i] - a[i] * q[j2]
            z3 = x3[i] * inv_q[j3] * ia[i] - a[i] * q[j3]
            zp[i] += (w0 * max(z0, 0.0) + w1 * max(z1, 0.0)) + (w2 * max(z2, 0.0) + w3 * max(z3, 0.0))
            zs[i] += (w0 * z0 + w1 * z1) + (w2 * z2 + w3 * z3)
        g += 4
    while g < m:
        j, w = idx[g], ws[g]
        x = Xt[j]
        for i in range(zp.size):
            z = x[i] * inv_q[j] * ia[i] - a[i] * q[j]
            zp[i] += w * max(z, 0.0)
            zs[i] += w * z
        g += 1


@njit(inline="always")
def _trisk(s1, s2, factors, inv_n, inv_n1, out):
    """TRisk of every system at every α (``out[t·r + i]``) from the sums of one resample:
    ``s1`` = Σwδ⁺ then Σwδ⁻ of each system, ``s2`` the same of squares."""
    r = s1.size // 2
    for t in range(factors.size):
        f = factors[t]
        for i in range(r):
            total = s1[i] + f * s1[r + i]
            u = total * inv_n
            sumsq = s2[i] + f * f * s2[r + i]
            var = (sumsq - total * u) * inv_n1
            out[t * r + i] = u / math.sqrt(var * inv_n) if var > 1e-13 * sumsq * inv_n else np.nan


@njit(inline="always")
def _georisk(s, zp, zs, factors, inv_n, out):
    """GeoRisk of every system at every α (``out[t·r + i]``) from one resample's row totals ``s``
    and chi-square sums Z⁺ (``zp``) and Z⁺ + Z⁻ (``zs``)."""
    r = s.size
    for t in range(factors.size):
        f = factors[t]
        for i in range(r):
            out[t * r + i] = math.sqrt(s[i] * inv_n * ndtr((zp[i] + f * (zs[i] - zp[i])) * inv_n))


@njit(parallel=True, cache=True, error_model="numpy")
def resampled_measures(W, D, Xt, T, q, inv_q, factors, out_u, out_t, out_z, out_g, start, chunks):
    """URisk, TRisk, ZRisk and GeoRisk of every (system i, α) for each row of topic weights ``W``
    (B × c: bootstrap counts, or 0/1 jackknife weights), written to column ``start + b`` of row
    ``i·k + a`` of ``out_u``, ``out_t``, ``out_z``, ``out_g`` (an output with no rows is skipped).

    A weight ``w_j`` counts topic j ``w_j`` times; topics with weight 0 (about a third of a
    bootstrap resample) are skipped.  ``factors`` holds 1+α (k values).

    - URisk and TRisk from ``D`` (c × 2r, topic-major: δ⁺ then δ⁻ of each system): with
      ``P = Σwδ⁺``, ``N = Σwδ⁻`` and ``T = P + (1+α)N`` (δ⁺δ⁻ = 0, so ``Σwx² = Σwδ⁺² + (1+α)²Σwδ⁻²``),
      URisk = T/n (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4) and TRisk = URisk/√(s²/n) with
      ``s² = (Σwx² − T·URisk)/(n − 1)``; NaN where s² is at rounding level of the mean square.
    - ZRisk and GeoRisk from ``Xt`` (c × r scores ≥ 0, column sums ``T``, ``q = √T``, ``inv_q = 1/q``
      or 0): the whole chi-square matrix is recomputed, ``S_i = Σ_j w_j x_ij``, ``N = Σ_j w_j T_j``,
      ``z_ij = x_ij/(a_i q_j) − a_i q_j`` with ``a_i = √(S_i/N)`` (a cell with ``e_ij = 0`` has z = 0),
      the arithmetic of :func:`riskeval.core.chisq.zsums`; ZRisk = Z⁺ + (1+α)Z⁻ and GeoRisk =
      √((S_i/n)·Φ(ZRisk/n)) (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 6–7).

    One parallel region: ``chunks`` runs of rows of ``W``, each with its own work arrays, allocated
    once per run.  Within a run, the sums of _BLOCK resamples are computed first (one row of work
    array per resample), then every output row gets the values of those resamples, contiguous.

    Compiled without ``fastmath``: a system's values come from the same exactly rounded operations
    whether it falls in a vector lane or in the loop's scalar remainder, so systems with the same
    scores get the same values in every resample (and tie).  Φ is
    :func:`riskeval.core.normal_cdf.ndtr`, which vectorises where the C library's ``erfc`` is
    called value by value; ``error_model="numpy"`` lets its divisions vectorise (numba's default
    checks each for zero; every division here is guarded).
    """
    B, c = W.shape
    r = Xt.shape[1] if Xt.shape[1] > 0 else D.shape[1] // 2
    k = factors.size
    paired = D.shape[1] > 0
    chi = Xt.shape[1] > 0
    squares = out_t.shape[0] > 0  # TRisk needs the sums of squares
    per = (B + chunks - 1) // chunks
    for ch in prange(chunks):
        idx = np.empty(c, dtype=np.int64)
        ws = np.empty(c)
        inv_n = np.empty(_BLOCK)
        inv_n1 = np.empty(_BLOCK)
        S1 = np.empty((_BLOCK, 2 * r if paired else 0))  # Σwδ⁺ then Σwδ⁻ of each system
        S2 = np.empty((_BLOCK, 2 * r if squares else 0))  # the same of squares
        S = np.empty((_BLOCK, r if chi else 0))  # row totals S_i
        ZP = np.empty((_BLOCK, r if chi else 0))  # Z⁺_i
        ZS = np.empty((_BLOCK, r if chi else 0))  # Z⁺_i + Z⁻_i
        a = np.empty(r)
        ia = np.empty(r)
        # TRisk and GeoRisk (a root, or Φ, per value) of each resample, α-major: computed over
        # contiguous systems, which vectorises, then written out like the others
        VT = np.empty((_BLOCK, k * r if squares else 0))
        VG = np.empty((_BLOCK, k * r if out_g.shape[0] > 0 else 0))
        hi = min(B, (ch + 1) * per)
        for b0 in range(ch * per, hi, _BLOCK):
            nbl = min(_BLOCK, hi - b0)
            for bb in range(nbl):
                m, nb = _nonzero(W[b0 + bb], idx, ws)
                inv_n[bb] = 1.0 / nb if nb > 0.0 else np.nan
                inv_n1[bb] = 1.0 / (nb - 1.0) if nb > 1.0 else np.nan  # one topic: no spread
                if paired:
                    _weighted_sums(D, idx, ws, m, S1[bb], S2[bb], squares)
                    if squares:
                        _trisk(S1[bb], S2[bb], factors, inv_n[bb], inv_n1[bb], VT[bb])
                if chi:
                    s = S[bb]
                    _weighted_sums(Xt, idx, ws, m, s, s, False)
                    N = 0.0
                    for g in range(m):
                        N += ws[g] * T[idx[g]]
                    for i in range(r):
                        if N > 0.0 and s[i] > 0.0:
                            a[i] = math.sqrt(s[i] / N)
                            ia[i] = 1.0 / a[i]
                        else:
                            a[i] = 0.0
                            ia[i] = 0.0
                    _z_sums(Xt, q, inv_q, idx, ws, m, a, ia, ZP[bb], ZS[bb])
                    if VG.shape[1] > 0:
                        _georisk(S[bb], ZP[bb], ZS[bb], factors, inv_n[bb], VG[bb])
            outs = (out_u, out_t, out_z, out_g)
            if nbl == _BLOCK:  # a constant count: the loops over the block vectorise
                _write_block(S1, ZP, ZS, VT, VG, inv_n, factors, outs, start + b0, _BLOCK)
            else:
                _write_block(S1, ZP, ZS, VT, VG, inv_n, factors, outs, start + b0, nbl)


@njit(inline="always")
def _write_block(S1, ZP, ZS, VT, VG, inv_n, factors, outs, col, nbl):
    """The values of the first ``nbl`` resamples of a block of :func:`resampled_measures` to
    columns ``col … col + nbl − 1`` of every output row (i·k + α) of ``outs`` (URisk, TRisk,
    ZRisk, GeoRisk), a row at a time."""
    out_u, out_t, out_z, out_g = outs
    k = factors.size
    r = max(S1.shape[1] // 2, ZP.shape[1])
    for i in range(r):
        for t in range(k):
            f = factors[t]
            row = i * k + t
            if out_u.shape[0] > 0:
                o = out_u[row]
                for bb in range(nbl):
                    o[col + bb] = (S1[bb, i] + f * S1[bb, r + i]) * inv_n[bb]
            if out_t.shape[0] > 0:
                o = out_t[row]
                for bb in range(nbl):
                    o[col + bb] = VT[bb, t * r + i]
            if out_z.shape[0] > 0:
                o = out_z[row]
                for bb in range(nbl):
                    o[col + bb] = ZP[bb, i] + f * (ZS[bb, i] - ZP[bb, i])
            if out_g.shape[0] > 0:
                o = out_g[row]
                for bb in range(nbl):
                    o[col + bb] = VG[bb, t * r + i]


#: Constants of splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
#: OOPSLA 2014): the Weyl increment and the two multipliers of the output mix.
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(inline="always")
def _mix(z):
    """The splitmix64 output function: a bijective avalanche of a 64-bit word."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def stream_start(key, b):
    """Seed word of the random stream of resample ``b`` under ``key``: each resample has its own
    stream, whichever thread computes it, so results depend on the key only."""
    return _mix(key ^ _mix(np.uint64(b) * _GAMMA + _GAMMA))


@njit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always")
def _seed(key, b, state):
    """Seed ``state`` (two 64-bit words) with the stream of resample ``b`` under ``key``: two
    successive splitmix64 outputs, never both zero (the second is the mix of a non-zero word when
    the first is zero)."""
    s0 = stream_start(key, b)
    state[0] = s0
    state[1] = _mix(s0 + _GAMMA)


@njit(inline="always")
def _next(s0, s1):
    """One output of xoroshiro128++ (Blackman & Vigna, ACM TOMS 47(4), 2021) and the next state."""
    u = _rotl(s0 + s1, 17) + s0
    s1 ^= s0
    return u, _rotl(s0, 49) ^ s1 ^ (s1 << np.uint64(21)), _rotl(s1, 28)


_TWO32 = np.uint64(1 << 32)
_SHIFT32 = np.uint64(32)

#: Three consecutive bases whose middle one is below this have a product below 2³² (1623·1624·1625).
_THREE_BELOW = 1625


@njit(inline="always")
def digits3(w, a, b, c):
    """Three bounded integers from a 32-bit word ``w``: the digits (i, j, l) of ⌊w·abc/2³²⌋ in the
    mixed radix (a, b, c), i < a, j < b, l < c, one multiplication each, and the leftover
    w·abc mod 2³² (Brackett-Rozinsky & Lemire, Software: Practice and Experience, 2025).  With
    ``b = c = 1`` it is Lemire's multiply-shift for the one bound ``a``."""
    p = w * a
    i = p >> _SHIFT32
    p = (p & _LOW32) * b
    j = p >> _SHIFT32
    p = (p & _LOW32) * c
    return i, j, p >> _SHIFT32, p & _LOW32


@njit(inline="always")
def accepted(leftover, bound):
    """Whether the digits of a word with this ``leftover`` (:func:`digits3`) are kept: exactly when
    the leftover reaches 2³² mod ``bound`` (the product of the bases), which leaves every value of
    ⌊w·bound/2³²⌋ the same number of words, so the digits are uniform and independent.  The
    division is computed only for a leftover below ``bound``, about once in 2³²/bound words."""
    return leftover >= bound or leftover >= _TWO32 % bound


@njit(inline="always")
def _draw(s0, s1, a, b, c):
    """Digits in the bases (a, b, c) for each half of the next accepted xoroshiro128++ output (a
    word whose halves are not both :func:`accepted` is drawn again), and the state after it."""
    while True:
        u, s0, s1 = _next(s0, s1)
        a1, a2, a3, la = digits3(u >> _SHIFT32, a, b, c)
        b1, b2, b3, lb = digits3(u & _LOW32, a, b, c)
        if accepted(min(la, lb), a * b * c):
            return a1, a2, a3, b1, b2, b3, s0, s1


@njit(inline="always")
def _place(out, i, j, x):
    """Inside-out Fisher–Yates step: ``x`` goes to position ``j`` ≤ i, whose value moves to i."""
    out[i] = out[j]
    out[j] = x


@njit(inline="always")
def _shuffle_two_add(xa, xb, ca, cb, acc, state):
    """Add to ``acc`` the scores of two topics ``xa`` and ``xb`` (r systems each), each after its own
    uniform random permutation (built in the work rows ``ca`` and ``cb``).

    Fisher–Yates (Knuth, TAOCP vol. 2, §3.4.2, Algorithm P) run inside out: the score at i goes to
    a uniform position j ≤ i, the score there to i; the rows are added to ``acc`` at the end.  Each
    output of xoroshiro128++ gives one 32-bit half to each topic; a half gives the positions of
    three steps i, i + 1, i + 2 (:func:`digits3`, bases i + 1, i + 2, i + 3) where their product is
    below 2³², of one step elsewhere.  Words are drawn until :func:`accepted`, so the permutations are exactly
    uniform for a uniform generator.  ``state`` (two words) is advanced in place.
    """
    r = xa.size
    s0 = state[0]
    s1 = state[1]
    one = np.uint64(1)
    ca[0] = xa[0]
    cb[0] = xb[0]
    i = 1
    while i + 2 < min(r, _THREE_BELOW):
        a1, a2, a3, b1, b2, b3, s0, s1 = _draw(s0, s1, np.uint64(i + 1), np.uint64(i + 2), np.uint64(i + 3))
        _place(ca, i, a1, xa[i])
        _place(cb, i, b1, xb[i])
        _place(ca, i + 1, a2, xa[i + 1])
        _place(cb, i + 1, b2, xb[i + 1])
        _place(ca, i + 2, a3, xa[i + 2])
        _place(cb, i + 2, b3, xb[i + 2])
        i += 3
    while i < r:
        a1, _, _, b1, _, _, s0, s1 = _draw(s0, s1, np.uint64(i + 1), one, one)
        _place(ca, i, a1, xa[i])
        _place(cb, i, b1, xb[i])
        i += 1
    for i in range(r):
        acc[i] += ca[i] + cb[i]
    state[0] = s0
    state[1] = s1


@njit(inline="always")
def _shuffled_sums(Xt, key, b, ca, cb, zero, acc, state):
    """Row sums of Xt (c × r) after shuffling each topic's scores across the systems, with the
    random stream of resample ``b``: topics two at a time, the last of an odd number with the
    zero row ``zero`` (adding 0.0 leaves the sums as they are)."""
    acc[:] = 0.0
    _seed(key, b, state)
    c = Xt.shape[0]
    for j in range(0, c - 1, 2):
        _shuffle_two_add(Xt[j], Xt[j + 1], ca, cb, acc, state)
    if c % 2:
        _shuffle_two_add(Xt[c - 1], zero, ca, cb, acc, state)


@njit(parallel=True, cache=True)
def permuted_sums(Xt, key, n, chunks):
    """Row sums of the matrix after shuffling, independently within each topic, the scores across
    systems: one row of sums for each of the resamples 0 … n − 1 of ``key`` (n × r), computed in
    ``chunks`` runs of resamples."""
    r = Xt.shape[1]
    out = np.zeros((n, r))
    per = (n + chunks - 1) // chunks
    for ch in prange(chunks):
        ca = np.empty(r)
        cb = np.empty(r)
        zero = np.zeros(r)
        acc = np.empty(r)
        state = np.empty(2, dtype=np.uint64)
        for b in range(ch * per, min(n, (ch + 1) * per)):
            _shuffled_sums(Xt, key, b, ca, cb, zero, acc, state)
            out[b] = acc
    return out


#: Resamples whose means are kept before the pairs are counted (see :func:`tukey_counts`).
_TUKEY_BLOCK = 256


@njit(inline="always")
def _count_four(means, i, k, threshold, nbl, cnt):
    """Add to ``cnt[i, k … k + 3]`` the resamples (columns of ``means``) where the pair's absolute
    difference of means reaches its threshold: four pairs in one pass over row i."""
    mi = means[i]
    m0 = means[k]
    m1 = means[k + 1]
    m2 = means[k + 2]
    m3 = means[k + 3]
    t0 = threshold[i, k]
    t1 = threshold[i, k + 1]
    t2 = threshold[i, k + 2]
    t3 = threshold[i, k + 3]
    q0 = q1 = q2 = q3 = 0
    for bb in range(nbl):
        x = mi[bb]
        q0 += 1 if abs(x - m0[bb]) >= t0 else 0
        q1 += 1 if abs(x - m1[bb]) >= t1 else 0
        q2 += 1 if abs(x - m2[bb]) >= t2 else 0
        q3 += 1 if abs(x - m3[bb]) >= t3 else 0
    cnt[i, k] += q0
    cnt[i, k + 1] += q1
    cnt[i, k + 2] += q2
    cnt[i, k + 3] += q3


@njit(parallel=True, cache=True, fastmath=FAST)
def tukey_counts(Xt, key, n, threshold, cuts, chunks):
    """Randomised Tukey HSD counts over the resamples 0 … n − 1 of ``key``, in one parallel region.

    For each resample (see :func:`permuted_sums`): the systems' means after the shuffle, and for
    every pair (i, k) whether ``|m_i − m_k| ≥ threshold[i, k]`` (counted; upper triangle of the
    returned r × r); the range ``max − min`` of the means is placed among the ascending ``cuts``
    (``hist[p]``: resamples with exactly p cuts at or below their range), so the resamples whose
    range reaches a cut are counted without keeping the ranges.  The means of a block of 256
    resamples are kept system by system, and each pair is counted over the block in one pass
    (a register count, no per-resample writes).  Resamples are split into ``chunks`` contiguous
    runs, each counted apart and summed at the end: no two threads write the same memory, and the
    counts do not depend on the number of threads.
    """
    c, r = Xt.shape
    m = cuts.size
    counts = np.zeros((chunks, r, r))
    hist = np.zeros((chunks, m + 1))
    per = (n + chunks - 1) // chunks
    for ch in prange(chunks):
        ca = np.empty(r)
        cb = np.empty(r)
        zero = np.zeros(r)
        acc = np.empty(r)
        state = np.empty(2, dtype=np.uint64)
        means = np.empty((r, _TUKEY_BLOCK))
        cnt = counts[ch]
        h = hist[ch]
        end = min(n, (ch + 1) * per)
        for b0 in range(ch * per, end, _TUKEY_BLOCK):
            nbl = min(_TUKEY_BLOCK, end - b0)
            for bb in range(nbl):
                _shuffled_sums(Xt, key, b0 + bb, ca, cb, zero, acc, state)
                lo = np.inf
                hi = -np.inf
                for i in range(r):
                    v = acc[i] / c
                    means[i, bb] = v
                    lo = min(lo, v)
                    hi = max(hi, v)
                h[np.searchsorted(cuts, hi - lo, side="right")] += 1.0
            for i in range(r - 1):
                four = i + 1 + (r - i - 1) // 4 * 4
                for k in range(i + 1, four, 4):
                    _count_four(means, i, k, threshold, nbl, cnt)
                mi = means[i]
                for k in range(four, r):
                    mk = means[k]
                    t = threshold[i, k]
                    q = 0
                    for bb in range(nbl):
                        q += 1 if abs(mi[bb] - mk[bb]) >= t else 0
                    cnt[i, k] += q
    return counts.sum(axis=0), hist.sum(axis=0)


@njit(cache=True)
def pair_effect_sizes(Y):
    """Mean over standard deviation (ddof = 1) of the per-topic differences ``Y[i] − Y[k]`` of every
    pair i < k of rows of ``Y`` (r × c), in ``numpy.triu_indices(r, 1)`` order; NaN where the
    differences do not vary.  Two passes per pair, as ``numpy.std`` computes it."""
    r, c = Y.shape
    out = np.empty(r * (r - 1) // 2)
    p = 0
    for i in range(r - 1):
        for k in range(i + 1, r):
            s = 0.0
            for j in range(c):
                s += Y[i, j] - Y[k, j]
            mean = s / c
            ss = 0.0
            for j in range(c):
                d = Y[i, j] - Y[k, j] - mean
                ss += d * d
            sd = math.sqrt(ss / (c - 1)) if c > 1 else np.nan
            out[p] = mean / sd if sd > 0 else np.nan
            p += 1
    return out


@njit(inline="always")
def _group_code(words, g, size):
    """Bits ``size·g … size·g + size − 1`` of the sign vector ``words`` (64-bit words, bit t: topic
    t), the code of group g's signs; a group may straddle two words."""
    bit = g * size
    w = bit >> 6
    o = bit & 63
    x = words[w] >> np.uint64(o)
    if o + size > 64:
        x |= words[w + 1] << np.uint64(64 - o)
    return x & np.uint64((1 << size) - 1)


@njit(inline="always")
def _table_sums(Tpn, words, size, PN):
    """``PN = Σ_g Tpn[g, code_g]`` over the groups of the sign vector ``words``: the rows of four
    groups added in one pass, then three at a time (fewer loads and stores of ``PN`` than a pass
    per group)."""
    G = Tpn.shape[0]
    g = 0
    if G >= 4:
        r0 = Tpn[0, _group_code(words, 0, size)]
        r1 = Tpn[1, _group_code(words, 1, size)]
        r2 = Tpn[2, _group_code(words, 2, size)]
        r3 = Tpn[3, _group_code(words, 3, size)]
        for i in range(PN.size):
            PN[i] = (r0[i] + r1[i]) + (r2[i] + r3[i])
        g = 4
    else:
        PN[:] = 0.0
    while g + 3 <= G:
        r0 = Tpn[g, _group_code(words, g, size)]
        r1 = Tpn[g + 1, _group_code(words, g + 1, size)]
        r2 = Tpn[g + 2, _group_code(words, g + 2, size)]
        for i in range(PN.size):
            PN[i] += (r0[i] + r1[i]) + r2[i]
        g += 3
    while g < G:
        r0 = Tpn[g, _group_code(words, g, size)]
        for i in range(PN.size):
            PN[i] += r0[i]
        g += 1


@njit(parallel=True, cache=True, fastmath=FAST)
def flip_hits(words, Tpn, size, factors, scale, threshold, hits, maxima, chunks):
    """One block of sign vectors for every (system i, α) cell.

    A sign vector is given as 64-bit words, ``words[b]`` (bit t set: topic t flipped).  ``Tpn[g, s]``
    holds the signed sums over group g (topics size·g … size·g + size − 1) of δ⁺ (r values) then
    of δ⁻ (r values) for the code s of the group's signs, one 2^size-row table per group built
    once, so a sign vector costs c/size row additions instead of c ("four Russians" tables).  With
    ``P = Σ ε δ⁺`` and ``N = Σ ε δ⁻`` the flipped sum of cell (i, α) is ``P + (1+α) N``
    (``factors`` holds 1+α); its statistic
    ``u = |P + (1+α) N|·scale`` is compared with the cell's ``threshold`` (``scale``, ``threshold``
    and ``hits`` are k × r; ``hits`` accumulates) and the maximum of u over all cells is written to
    ``maxima[b]``.  One parallel region: ``chunks`` runs of sign vectors, each counted apart.
    """
    B = words.shape[0]
    r = Tpn.shape[2] // 2
    k = factors.size
    counts = np.zeros((chunks, k, r), dtype=np.int64)
    per = (B + chunks - 1) // chunks
    for ch in prange(chunks):
        PN = np.empty(2 * r)
        P = PN[:r]
        N = PN[r:]
        top = np.empty(r)  # each system's largest u over the α
        cnt = counts[ch]
        for b in range(ch * per, min(B, (ch + 1) * per)):
            _table_sums(Tpn, words[b], size, PN)
            top[:] = 0.0
            for a in range(k):  # inner loops over contiguous systems, branch-free: vectorised
                f = factors[a]
                for i in range(r):
                    u = abs(P[i] + f * N[i]) * scale[a, i]
                    top[i] = u if u > top[i] else top[i]
                    cnt[a, i] += u >= threshold[a, i]
            largest = 0.0
            for i in range(r):
                largest = top[i] if top[i] > largest else largest
            maxima[b] = largest
    hits += counts.sum(axis=0)


@njit(inline="always")
def _select(a, lo, hi, k):
    """The k-th smallest (from 0) of ``a[:hi + 1]``, given that ``a[lo:hi + 1]`` holds the ranks
    lo … hi (``lo = 0, hi = n − 1`` for a whole array); ``a`` is reordered so that ``a[k]`` is in
    place, nothing larger before it, nothing smaller after.  Hoare's FIND (CACM 4(7), 1961),
    median-of-three pivots; ties split evenly between the two sides."""
    while hi > lo:
        mid = (lo + hi) >> 1
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        p = a[mid]
        i = lo
        j = hi
        while i <= j:
            while a[i] < p:
                i += 1
            while a[j] > p:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


#: Bins of the histogram by which :func:`order_stats` finds where a rank lies.
_BINS = 1024
#: Values binned at a time by :func:`_histogram` (a fixed count, which LLVM vectorises).
_RUN = 256
#: Values checked at a time by :func:`_collect` before it looks at them one by one.
_LOOK = 32


@njit(inline="always")
def _pair(buf, n, k, k2):
    """Ranks ``k`` and ``k2`` (k or k + 1) of ``buf[:n]``: the second is the smallest after the
    first once it is in place."""
    first = _select(buf, 0, n - 1, k)
    if k2 == k:
        return first, first
    second = np.inf
    for j in range(k + 1, n):
        second = min(second, buf[j])
    return first, second


@njit(inline="always")
def _hist_bin(x, lo, scale):
    """Bin of ``x`` in :func:`order_stats`: with ``t = (x − lo)·scale``, 0 for t < 0, ⌊t⌋ + 1 up to
    _BINS + 1 (t ≥ _BINS), and _BINS + 2 for NaN.  A non-decreasing function of x (NaN aside): bins
    ``first … last`` hold exactly the values with ``first − 1 ≤ t < last`` (no lower bound for
    first = 0, no upper bound for last = _BINS + 1), which :func:`_collect` tests."""
    t = (x - lo) * scale
    g = int(min(max(t, -1.0), _BINS + 0.5)) + 1 if t >= 0.0 else 0
    return g if x == x else _BINS + 2


@njit(cache=True)
def _histogram(row, lo, scale, hist, bins):
    """Count the values of ``row`` into ``hist`` (4 × (_BINS + 3): four interleaved counts, so that
    consecutive values in one bin do not wait on each other) by :func:`_hist_bin`; ``bins`` is work
    space for _RUN bins, computed together (vectorised) before they are counted."""
    full = row.size - row.size % _RUN
    for b0 in range(0, full, _RUN):
        for u in range(_RUN):
            bins[u] = _hist_bin(row[b0 + u], lo, scale)
        for u in range(0, _RUN, 4):
            hist[0, bins[u]] += 1
            hist[1, bins[u + 1]] += 1
            hist[2, bins[u + 2]] += 1
            hist[3, bins[u + 3]] += 1
    for b in range(full, row.size):
        hist[0, _hist_bin(row[b], lo, scale)] += 1


@njit(inline="always")
def _within(t, t_lo, t_hi):
    return t >= t_lo and (t < t_hi or t_hi == np.inf)


@njit(inline="always")
def _any_within(row, b0, lo, scale, lo0, hi0, lo1, hi1):
    """Whether one of the _LOOK values from ``row[b0]`` on may lie within [lo0, hi0) or [lo1, hi1)
    on the scale of :func:`_collect` (t = inf counts); branch-free integer flags, which vectorise."""
    hits = 0
    for u in range(_LOOK):
        t = (row[b0 + u] - lo) * scale
        first = np.int64(t >= lo0) & np.int64(t < hi0)
        second = np.int64(t >= lo1) & np.int64(t < hi1)
        hits += first | second | np.int64(t == np.inf)
    return hits > 0


@njit(cache=True)
def _collect(row, lo, scale, t_lo, t_hi, buf0, buf1):
    """Copy the values of ``row`` with ``t_lo[p] ≤ (x − lo)·scale < t_hi[p]`` (no upper bound where
    t_hi[p] is inf) to ``buf0`` (p = 0) and ``buf1`` (p = 1), in order; returns their numbers.  Runs
    of _LOOK values are first checked together (vectorised), and looked at one by one only where
    one of them is wanted: a few per row."""
    lo0, hi0, lo1, hi1 = t_lo[0], t_hi[0], t_lo[1], t_hi[1]
    full = row.size - row.size % _LOOK
    n0 = 0
    n1 = 0
    for b0 in range(0, full, _LOOK):
        if _any_within(row, b0, lo, scale, lo0, hi0, lo1, hi1):
            n0, n1 = _keep_within(row, b0, b0 + _LOOK, lo, scale, t_lo, t_hi, buf0, buf1, n0, n1)
    return _keep_within(row, full, row.size, lo, scale, t_lo, t_hi, buf0, buf1, n0, n1)


@njit(inline="always")
def _keep_within(row, start, stop, lo, scale, t_lo, t_hi, buf0, buf1, n0, n1):
    """The values ``row[start:stop]`` that :func:`_collect` keeps, appended to ``buf0`` (from n0)
    and ``buf1`` (from n1); returns the new numbers."""
    for b in range(start, stop):
        x = row[b]
        t = (x - lo) * scale
        if _within(t, t_lo[0], t_hi[0]):
            buf0[n0] = x
            n0 += 1
        if _within(t, t_lo[1], t_hi[1]):
            buf1[n1] = x
            n1 += 1
    return n0, n1


@njit(parallel=True, cache=True)
def order_stats(A, valid, ranks, lo_guess, hi_guess):
    """``out[i, t]``: the ``ranks[i, t]``-th smallest (from 0) of the defined values of row i of
    ``A`` (m × B, NaN = undefined, ``valid[i]`` defined values).  ``ranks`` is m × 4: two pairs
    (k, k or k + 1) of ranks in [0, valid[i] − 1].  NaN where a row has no defined value.

    The row is not sorted: a histogram of its values over 1024 equal bins between ``lo_guess[i]``
    and ``hi_guess[i]`` (and one bin for the values on either side) tells which bins hold each pair
    of ranks and how many values lie below them; a second pass keeps the values of those bins (a
    handful each, or every tie of a heavily tied row), among which the ranks are selected.  Where
    a rank lies outside the guessed range, or the guess is no range, the row's minimum and maximum
    are taken instead (one more pass).  The bin of a value is a non-decreasing function of the
    value, so the result is exact.
    """
    m, B = A.shape
    out = np.full((m, 4), np.nan)
    for i in prange(m):
        if valid[i] == 0:
            continue
        row = A[i]
        lo, hi = lo_guess[i], hi_guess[i]
        first = np.empty(2, dtype=np.int64)
        last = np.empty(2, dtype=np.int64)
        below = np.empty(2, dtype=np.int64)
        size = np.empty(2, dtype=np.int64)
        bins = np.empty(_RUN, dtype=np.int64)
        hist = np.empty((4, _BINS + 3), dtype=np.int32)
        scale = 0.0
        for attempt in range(2):
            if attempt == 1 or not hi > lo or not np.isfinite(hi - lo):
                lo = np.inf
                hi = -np.inf
                for b in range(B):
                    x = row[b]
                    lo = min(lo, x) if x == x else lo
                    hi = max(hi, x) if x == x else hi
            if not hi > lo:  # every defined value the same
                break
            scale = _BINS / (hi - lo)
            if not np.isfinite(scale):  # a subnormal spread: one bin
                scale = 0.0
            hist[:] = 0
            _histogram(row, lo, scale, hist, bins)
            # bins [first, last] holding each pair of ranks, and the values below them
            for p in range(2):
                k, k2 = ranks[i, 2 * p], ranks[i, 2 * p + 1]
                cum = 0
                g = 0
                n = hist[0, 0] + hist[1, 0] + hist[2, 0] + hist[3, 0]
                while cum + n <= k:
                    cum += n
                    g += 1
                    n = hist[0, g] + hist[1, g] + hist[2, g] + hist[3, g]
                first[p] = g
                below[p] = cum
                while cum + n <= k2:
                    g += 1
                    n += hist[0, g] + hist[1, g] + hist[2, g] + hist[3, g]
                last[p] = g
                size[p] = n
            # a rank among the values outside the guessed range: measure the row instead
            outside = first[0] == 0 or first[1] == 0 or last[0] == _BINS + 1 or last[1] == _BINS + 1
            if attempt == 0 and outside:
                continue
            break
        if not hi > lo:
            out[i, :] = lo
            continue
        t_lo = np.empty(2)
        t_hi = np.empty(2)
        for p in range(2):
            t_lo[p] = first[p] - 1.0 if first[p] > 0 else -np.inf
            t_hi[p] = last[p] * 1.0 if last[p] <= _BINS else np.inf
        buf0 = np.empty(size[0])
        buf1 = np.empty(size[1])
        n0, n1 = _collect(row, lo, scale, t_lo, t_hi, buf0, buf1)
        out[i, 0], out[i, 1] = _pair(buf0, n0, ranks[i, 0] - below[0], ranks[i, 1] - below[0])
        out[i, 2], out[i, 3] = _pair(buf1, n1, ranks[i, 2] - below[1], ranks[i, 3] - below[1])
    return out


@njit(inline="always")
def _inverse(w):
    return 1.0 / w if w > 0.0 else 0.0


@njit(inline="always")
def _bin_of(x, lo, w, inv_w, nb):
    """Bin of ``x`` (not NaN) among ``nb + 2``: 0 below ``lo``, g + 1 for ``E(g) ≤ x < E(g + 1)``
    (g < nb) and ``nb + 1`` from ``E(nb)`` up, with edges ``E(g) = lo + g·w`` (w = 0: every x ≥ lo in
    bin nb + 1).  The guess ⌊(x − lo)·inv_w⌋ (``inv_w`` ≈ 1/w) is corrected against the edges
    themselves, so the bin is exactly the interval of edges that holds x, whoever computes the
    edges the same way."""
    if not x >= lo:
        return 0
    if not w > 0.0:
        return nb + 1
    g = int(min((x - lo) * inv_w, float(nb)))
    while g > 0 and x < lo + g * w:
        g -= 1
    while g < nb and x >= lo + (g + 1) * w:
        g += 1
    return g + 1


@njit(parallel=True, cache=True, fastmath=FAST)
def block_summaries(A, estimate, null, acc):
    """Add one block of values (rows of ``A``, m × b, NaN = undefined) to each row's running
    summaries ``acc[i]``: the number of defined values, ``Σd`` and ``Σd²`` with
    ``d = x − estimate[i]`` (x itself where the estimate is not finite), and twice the mid-rank
    counts below ``estimate[i]`` and below ``null`` (``#(x < v) + #(x ≤ v)``).  One branch-free
    pass (a NaN compares false), which vectorises; the squares are taken about the estimate, near
    the mean, so that subtracting the squared offset loses nothing:
    ``Σ(x − m)² = Σ(x − e)² − v·(m − e)²``."""
    m, B = A.shape
    for i in prange(m):
        row = A[i]
        e = estimate[i]
        shift = e if np.isfinite(e) else 0.0
        v = s = ss = be = bn = 0.0
        for b in range(B):
            x = row[b]
            ok = x == x
            d = x - shift if ok else 0.0
            v += 1.0 if ok else 0.0
            s += d
            ss += d * d
            be += (1.0 if x < e else 0.0) + (1.0 if x <= e else 0.0)
            bn += (1.0 if x < null else 0.0) + (1.0 if x <= null else 0.0)
        acc[i, 0] += v
        acc[i, 1] += s
        acc[i, 2] += ss
        acc[i, 3] += be
        acc[i, 4] += bn


@njit(parallel=True, cache=True)
def block_histograms(A, lo, w, hist, extremes):
    """Count one block of values (rows of ``A``, m × b; NaN not counted) into ``hist[i]`` by the
    bins of :func:`_bin_of` (edges ``lo[i] + g·w[i]``, one more bin than edges on each side), and
    keep each row's smallest and largest value in ``extremes[i]``.  Not compiled with
    ``fastmath``: the edges must round as numpy rounds them."""
    nb = hist.shape[1] - 2
    for i in prange(A.shape[0]):
        h = hist[i]
        mn, mx = extremes[i, 0], extremes[i, 1]
        for x in A[i]:
            if x == x:
                h[_bin_of(x, lo[i], w[i], _inverse(w[i]), nb)] += 1
                mn = min(mn, x)
                mx = max(mx, x)
        extremes[i, 0], extremes[i, 1] = mn, mx


@njit(parallel=True, cache=True)
def block_targets(A, first, t_lo, t_hi, mode, offset, fill, t_min, t_max, buf, sub_lo, sub_w, sub):
    """One block of values for the targets of a multi-pass selection: targets
    ``first[i] … first[i + 1] − 1`` belong to row i of ``A``, and target t looks at the row's
    defined values x with ``t_lo[t] ≤ x < t_hi[t]``: their minimum and maximum go to
    ``t_min``/``t_max``; with ``mode[t] = 1`` they are appended to ``buf`` from ``offset[t]``
    (``fill[t]`` so far), with ``mode[t] = 2`` counted into row ``offset[t]`` of ``sub`` by
    :func:`_bin_of` (edges ``sub_lo[t] + g·sub_w[t]``); ``mode[t] = 0``: minimum and maximum only;
    ``mode[t] = −1``: skipped (a target of the same row and interval as the one before it)."""
    m, B = A.shape
    nb = sub.shape[1] - 2
    for i in prange(m):
        row = A[i]
        for t in range(first[i], first[i + 1]):
            lo_t, hi_t, md = t_lo[t], t_hi[t], mode[t]
            if md < 0:  # the same interval as the target before it: counted there
                continue
            mn, mx = t_min[t], t_max[t]
            k = fill[t]
            off = offset[t]
            s_lo, s_w = sub_lo[t], sub_w[t]
            s_inv = _inverse(s_w)
            for b in range(B):
                x = row[b]
                if x >= lo_t and x < hi_t:  # False for NaN
                    mn = min(mn, x)
                    mx = max(mx, x)
                    if md == 1:
                        buf[off + k] = x
                        k += 1
                    elif md == 2:
                        sub[off, _bin_of(x, s_lo, s_w, s_inv, nb)] += 1
            t_min[t], t_max[t], fill[t] = mn, mx, k


@njit(cache=True)
def select_kept(buf, offset, count, rank, out):
    """``out[t]``: the ``rank[t]``-th smallest (from 0) of ``buf[offset[t] : offset[t] + count[t]]``
    for every t (segments may be shared: selection only reorders a segment)."""
    for t in range(offset.size):
        seg = buf[offset[t] : offset[t] + count[t]]
        out[t] = _select(seg, 0, seg.size - 1, rank[t])


_PARALLEL = (
    resampled_measures,
    permuted_sums,
    tukey_counts,
    order_stats,
    block_summaries,
    block_histograms,
    block_targets,
    flip_hits,
)
_TWINS = {k: serial_twin(k) for k in _PARALLEL}
#: Kernels whose twins add floating-point sums in different orders (reductions under ``fastmath``,
#: which LLVM vectorises differently in each compilation): :func:`pick` chooses them by the work
#: alone, so the same input gives the same sums however busy the machine.
_BY_WORK_ONLY = (block_summaries,)


#: Below this much work (cells visited, about a millisecond on one core) a kernel runs serially:
#: waking the thread pool would cost as much, and far more on a loaded machine.
SERIAL_WORK = 1 << 20


def cores_idle() -> bool:
    """Whether the machine has a core to spare: its 1-minute load average, which counts this
    process too, is below the number of cores (True where the load is not known)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return True
    return load < (os.cpu_count() or 1)


def pick(kernel, work: int):
    """``kernel`` for ``work`` (cells visited) of at least :data:`SERIAL_WORK` on a machine with a
    core to spare (:func:`cores_idle`), else its serial twin.

    A parallel pass ends when its slowest thread does: where every core is busy with other work,
    the threads are descheduled in turn and the pass takes longer than one thread alone (measured
    on 2 cores at load 4–5: twice as long for the bootstrap).  The results are the same either way,
    but for the kernels of :data:`_BY_WORK_ONLY`, whose twins round their sums differently: the
    load never switches those.  In a child forked after the threads started, where threads would
    terminate the process, every kernel is its serial twin
    (:func:`riskeval.core._numba.parallel_or_twin`).
    """
    wanted = work >= SERIAL_WORK and (kernel in _BY_WORK_ONLY or cores_idle())
    return parallel_or_twin(kernel, _TWINS[kernel], wanted)
