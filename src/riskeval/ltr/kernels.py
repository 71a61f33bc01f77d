"""Numba kernels of LambdaMART as LightGBM computes it, with a per-pair risk weight.

LightGBM's ``lambdarank`` objective (``LambdarankNDCG::GetGradientsForOneQuery`` in
``src/objective/rank_objective.hpp``) is re-implemented here operation for operation, so that with
every risk weight equal to 1 the gradients and hessians are bitwise those of the built-in objective:

- documents are sorted by score, descending, with a *stable* sort (ties keep their input order);
- pairs ``(i, j)``, ``i < j`` in that order, with ``i`` below the truncation level and different
  labels; ``|ΔM| = (g_high − g_low) · |D(r_high) − D(r_low)| / maxDCG@truncation``, with gains
  ``2^l − 1`` (or ``label_gain``) and discounts ``D(r) = 1 / log2(2 + r)`` not truncated;
- with ``lambdarank_norm``, ``|ΔM|`` is divided by ``0.01 + |s_high − s_low|`` (``0.01`` as a
  single-precision literal) unless all scores are equal, and each query's lambdas and hessians are
  scaled by ``log2(1 + Σλ) / Σλ``;
- the RankNet sigmoid comes from LightGBM's lookup table (2^20 bins over ``±50 / σ / 2``);
- each pair's contribution is rounded to ``float32`` before it is added to the ``float32``
  gradient and hessian of its two documents, in LightGBM's order.

The risk-sensitive objectives (Dinçer, Macdonald & Ounis, SIGIR 2014 and 2016, §6) multiply each
pair's ``|ΔM|`` by a *ratio* ``|ΔM'| / |ΔM|``, where ``ΔM'`` is the change of the query's
risk-sensitive term when the two documents swap and ``ΔM`` the change of the query's NDCG@k (see
:mod:`riskeval.ltr.objectives`). Kernels work on whole training sets: parallel tasks of ``CHUNK``
queries, each with its own scratch arrays; each query is computed by one thread from its own data
only, so the results do not depend on the number of threads. :func:`fused_lambdas` ranks, scores and
differentiates each query in one pass when its ratio parameters follow from its own NDCG@k;
:func:`rank_and_score` then :func:`lambdas` is the two-pass route for parameters that need every
query first (GeoRisk, a new estimate of ``s_x``).

Speed without changing a bit of the result: each query is re-ranked from its previous ranking
(:func:`rerank`; boosting moves scores little per tree), the pairs of a row are the ranks of a
different label, listed without a branch per rank, and a row's own float32 sums stay in registers
while the other ranks' are added in memory, in LightGBM's order.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from riskeval.core._numba import njit, prange
from riskeval.core.paired import risk_score

SIGMOID_BINS = 1024 * 1024
MAX_POSITION = 10000  # LightGBM's DCGCalculator::kMaxPosition: most documents in one query
CHUNK = 16  # queries per parallel task (tasks are handed out dynamically)
NORM_EPS = float(np.float32(0.01))  # LightGBM writes ``0.01f``
_SQRT_HALF = math.sqrt(0.5)

# Ratio modes of the pair loop (one per family of objectives).
CONSTANT = 0  # ratio = 1 + a_q for every pair: LambdaMART (a_q = 0), T-FARO, T*-FARO
CROSSING = 1  # ratio = 1 + a_q·φ: U-CRO, T-SARO (φ: share of the swap's change below the baseline)
GEORISK = 2  # ratio = |ΔGeoRisk| / |ΔM| in NDCG units
# ratio = 1 + a_q·φ with φ measured on the pair's own |ΔM| (untruncated discounts, ideal DCG at the
# truncation level) instead of the change of NDCG@k: Jforests' U-CRO and T-SARO
CROSSING_UNTRUNCATED = 3

# Per-query parameters of :func:`fused_lambdas`, from the query's own NDCG@k.
PLAIN = 0  # CONSTANT, a_q = 0
UCRO = 1  # CROSSING, a_q = α
TSARO = 2  # CROSSING, a_q = α'_q
TFARO = 3  # CONSTANT, a_q = α'_q (T-FARO and T*-FARO)


class PairLoop(NamedTuple):
    """Settings of the pair loop: LambdaMART's (LightGBM parameters) and the ratio ``mode``."""

    gains: np.ndarray  # gain per label
    disc: np.ndarray  # discount per rank (:func:`discounts`)
    table: np.ndarray  # sigmoid lookup table and its range (:func:`sigmoid_table`)
    lo: float
    hi: float
    factor: float
    sigmoid: float
    trunc: int  # lambdarank_truncation_level
    norm: bool  # lambdarank_norm
    k: int  # NDCG@k of the risk terms
    mode: int  # CONSTANT, CROSSING, GEORISK or CROSSING_UNTRUNCATED


@njit(cache=True)
def sigmoid_table(sigmoid):
    """LightGBM's sigmoid lookup table ``1 / (1 + exp(σ·s))`` and its input range and bin factor."""
    lo = -50.0 / sigmoid / 2.0
    hi = -lo
    factor = SIGMOID_BINS / (hi - lo)
    table = np.empty(SIGMOID_BINS, dtype=np.float64)
    for i in range(SIGMOID_BINS):
        s = i / factor + lo
        table[i] = 1.0 / (1.0 + math.exp(s * sigmoid))
    return table, lo, hi, factor


@njit(cache=True)
def discounts():
    """``D(r) = 1 / log2(2 + r)`` for the ranks LightGBM allows in one query."""
    out = np.empty(MAX_POSITION, dtype=np.float64)
    for i in range(MAX_POSITION):
        out[i] = 1.0 / math.log2(2.0 + i)
    return out


@njit(cache=True)
def max_dcg(labels, start, stop, k, gains, disc):
    """Ideal DCG@k of one query (LightGBM's ``DCGCalculator::CalMaxDCGAtK``)."""
    counts = np.zeros(gains.shape[0], dtype=np.int64)
    for i in range(start, stop):
        counts[labels[i]] += 1
    top = gains.shape[0] - 1
    n = min(k, stop - start)
    ret = 0.0
    for j in range(n):
        while top > 0 and counts[top] <= 0:
            top -= 1
        ret += disc[j] * gains[top]
        counts[top] -= 1
    return ret


@njit(cache=True, parallel=True)
def max_dcgs(labels, bounds, k, gains, disc):
    """Ideal DCG@k of every query; ``bounds`` are the query boundaries (length Q + 1)."""
    nq = bounds.shape[0] - 1
    out = np.empty(nq, dtype=np.float64)
    for q in prange(nq):
        out[q] = max_dcg(labels, bounds[q], bounds[q + 1], k, gains, disc)
    return out


@njit(cache=True)
def inverse(values):
    """``1 / v`` where ``v > 0``, else 0 (LightGBM's ``inverse_max_dcgs_``)."""
    out = np.zeros_like(values)
    for i in range(values.shape[0]):
        if values[i] > 0.0:
            out[i] = 1.0 / values[i]
    return out


@njit(cache=True)
def stable_argsort_desc(scores, start, stop, key, idx, key2, idx2):
    """The positions ``start..stop-1`` sorted by score, descending, ties in input order
    (``std::stable_sort`` with ``a > b``): insertion sort of runs of 16, then bottom-up merges of
    (score, position) pairs in which the left run wins ties.  ``key``, ``idx``, ``key2``, ``idx2``
    are scratch arrays at least as long as the query; the result is the first ``stop - start``
    entries of the returned array (one of ``idx``/``idx2``)."""
    n = stop - start
    for i in range(n):
        key[i] = scores[start + i]
        idx[i] = start + i
    run = 16
    for lo in range(0, n, run):
        hi = min(lo + run, n)
        for i in range(lo + 1, hi):
            kv = key[i]
            iv = idx[i]
            j = i - 1
            while j >= lo and key[j] < kv:
                key[j + 1] = key[j]
                idx[j + 1] = idx[j]
                j -= 1
            key[j + 1] = kv
            idx[j + 1] = iv
    width = run
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a = lo
            b = mid
            for t in range(lo, hi):
                if a < mid and (b >= hi or key[a] >= key[b]):
                    key2[t] = key[a]
                    idx2[t] = idx[a]
                    a += 1
                else:
                    key2[t] = key[b]
                    idx2[t] = idx[b]
                    b += 1
        key, key2 = key2, key
        idx, idx2 = idx2, idx
        width *= 2
    return idx


@njit(cache=True)
def rerank(scores, start, stop, order, key, idx, key2, idx2):
    """Sort ``order[start:stop]`` (a permutation of the positions ``start..stop-1``, e.g. the
    query's ranking by the previous scores) by score, descending, ties by position: the ranking
    of :func:`stable_argsort_desc`, which depends on the scores only.

    Boosting moves scores a little per iteration, so the previous ranking is nearly sorted and an
    insertion sort from it takes a few moves per document; past ``4·n`` moves the query is sorted
    afresh by :func:`stable_argsort_desc`.  The scratch arrays are as in that function."""
    n = stop - start
    budget = 4 * n
    for i in range(n):
        pos = order[start + i]
        key[i] = scores[pos]
        idx[i] = pos
    for i in range(1, n):
        kv = key[i]
        iv = idx[i]
        j = i - 1
        while j >= 0 and (key[j] < kv or (key[j] == kv and idx[j] > iv)):
            key[j + 1] = key[j]
            idx[j + 1] = idx[j]
            j -= 1
        key[j + 1] = kv
        idx[j + 1] = iv
        budget -= i - 1 - j
        if budget < 0:
            ranked = stable_argsort_desc(scores, start, stop, key, idx, key2, idx2)
            order[start:stop] = ranked[:n]
            return
    order[start:stop] = idx[:n]


@njit(cache=True)
def _largest_query(bounds):
    width = 0
    for q in range(bounds.shape[0] - 1):
        width = max(width, bounds[q + 1] - bounds[q])
    return width


@njit(cache=True)
def _sort_scratch(width):
    return (
        np.empty(width),
        np.empty(width, dtype=np.int64),
        np.empty(width),
        np.empty(width, dtype=np.int64),
    )


@njit(cache=True)
def _dcg_sorted(labels, ranked, n, k, gains, disc):
    dcg = 0.0
    for r in range(min(k, n)):
        dcg += gains[labels[ranked[r]]] * disc[r]
    return dcg


@njit(cache=True, parallel=True)
def rank_and_score(scores, labels, bounds, k, gains, disc, inv_maxdcg_k, order):
    """Rank every query by score in ``order`` (:func:`rerank`: it holds each query's previous
    ranking, or its positions in input order) and return its NDCG@k, ``DCG@k · (1/maxDCG@k)``,
    0 when the query has no relevant document (``inv_maxdcg_k`` = 0)."""
    nq = bounds.shape[0] - 1
    width = _largest_query(bounds)
    out = np.zeros(nq, dtype=np.float64)
    for c in prange((nq + CHUNK - 1) // CHUNK):
        key, idx, key2, idx2 = _sort_scratch(width)
        for q in range(c * CHUNK, min(nq, (c + 1) * CHUNK)):
            start = bounds[q]
            stop = bounds[q + 1]
            rerank(scores, start, stop, order, key, idx, key2, idx2)
            out[q] = _dcg_sorted(labels, order[start:stop], stop - start, k, gains, disc) * inv_maxdcg_k[q]
    return out


@njit(cache=True)
def ndcg_at_k(scores, labels, bounds, k, gains):
    """Per-query NDCG@k of the ranking by ``scores`` (stable sort, descending: ties keep their input
    order); 0 for a query without relevant documents.  Gain ``gains[label]`` (LightGBM's default
    ``2^l − 1``), discount ``1 / log2(1 + rank)``, ranks from 1."""
    disc = discounts()
    inv = inverse(max_dcgs(labels, bounds, k, gains, disc))
    order = np.arange(scores.shape[0])
    return rank_and_score(scores, labels, bounds, k, gains, disc, inv, order)


@njit(cache=True)
def ndtr(y):
    """The standard normal distribution function Φ(y) = erfc(−y/√2)/2."""
    return 0.5 * math.erfc(-y * _SQRT_HALF)


@njit(cache=True)
def query_alpha(d, alpha, sx, raw=False):
    """T-SARO/T-FARO's ``α'_q = [1 − Φ(TR_q)]·α``, ``TR_q = x_q / s_x``, ``x_q`` = d above the
    baseline and ``(1+α)d`` below (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 21, 25); ``TR_q = 0``
    when ``s_x = 0``.  ``raw``: ``TR_q = d / s_x``, as the Jforests implementation computes it."""
    x = d if raw else risk_score(d, alpha)
    tr = x / sx if sx > 0.0 else 0.0
    return (1.0 - ndtr(tr)) * alpha


@njit(cache=True)
def query_alphas(delta, alpha, sx, raw=False):
    """:func:`query_alpha` of every query."""
    out = np.empty_like(delta)
    for q in range(delta.shape[0]):
        out[q] = query_alpha(delta[q], alpha, sx, raw)
    return out


@njit(cache=True)
def _dk(disc, rank, k):
    return disc[rank] if rank < k else 0.0


@njit(cache=True)
def crossing_ratio(delta, a, d):
    """``1 + a·φ``: φ is the share of a swap's NDCG@k change ``delta`` that lies below the baseline
    for a model at ``d = M_m − M_b``: 1 below it (``d < 0``), 0 above, and the exact share when the
    swap crosses it (the only case that divides)."""
    after = d + delta
    if (after < 0.0) == (d < 0.0):  # the swap stays on one side of the baseline
        return 1.0 + a if d < 0.0 else 1.0
    below = -after if d >= 0.0 else -d
    return 1.0 + a * (below / abs(delta))


@njit(cache=True)
def georisk_ratio(delta, qp, gp):
    """``|ΔGeoRisk| / |Δ|`` in NDCG units when the model's NDCG@k on one query changes by ``delta``.

    ``qp`` = (x, T_q, z, dZ_others/dΔ, ratio as Δ → 0); ``gp`` = (S, N, c, α, ZRisk, GeoRisk,
    scale).  The query's own z is recomputed exactly from the updated S, T_q and N; the other
    queries' z move to first order (``dZ_others/dΔ``, zero for the paper's shortcut).
    """
    if delta == 0.0:
        return qp[4]
    s2 = gp[0] + delta
    e2 = s2 * (qp[1] + delta) / (gp[1] + delta)
    z2 = (qp[0] + delta - e2) / math.sqrt(e2) if e2 > 0.0 else 0.0
    alpha = gp[3]
    zr = gp[4] - risk_score(qp[2], alpha) + risk_score(z2, alpha) + delta * qp[3]
    c = gp[2]
    g2 = math.sqrt(max(s2, 0.0) / c * ndtr(zr / c))
    return abs(g2 - gp[5]) / abs(delta) * gp[6]


@njit(cache=True)
def _pair_ratio(mode, delta, qp, gp):
    if mode == CROSSING or mode == CROSSING_UNTRUNCATED:
        return crossing_ratio(delta, qp[0], qp[1])
    return georisk_ratio(delta, qp, gp)


@njit(cache=True)
def _pair_scratch(width, n_labels):
    return (
        np.empty(width),
        np.empty(width, dtype=np.int64),
        np.empty(width, dtype=np.float32),
        np.empty(width, dtype=np.float32),
        np.empty(n_labels),
        np.empty(width, dtype=np.int64),
    )


# error_model="numpy": a division by zero gives inf/nan instead of raising, so the pair loop has
# no check per division (its only divisor, 0.01 + |Δs|, is never 0)
@njit(cache=True, error_model="numpy")
def _lambdas_one_query(scores, labels, ranked, cnt, inv_maxdcg, inv_maxdcg_k, qp, gp, cfg, grad, hess, work):
    """LightGBM's ``GetGradientsForOneQuery`` for the documents ``ranked[:cnt]`` (by rank)."""
    gains = cfg.gains
    disc = cfg.disc
    table = cfg.table
    lo = cfg.lo
    hi = cfg.hi
    factor = cfg.factor
    mode = cfg.mode
    k = cfg.k
    sigmoid = cfg.sigmoid
    # the query in rank order: scores, labels, and the float32 sums of each rank's document
    s, lab, lam, hes, by_label, pairs = work
    top_label = 0
    for r in range(cnt):
        s[r] = scores[ranked[r]]
        lab[r] = labels[ranked[r]]
        top_label = max(top_label, lab[r])
        lam[r] = 0.0
        hes[r] = 0.0
    best = s[0]
    worst_idx = cnt - 1
    if worst_idx > 0 and s[worst_idx] == -np.inf:
        worst_idx -= 1
    normalise = cfg.norm and best != s[worst_idx]
    # documents scored -inf sort last and take part in no pair: ranks 0..finite-1 do
    finite = cnt
    while finite > 0 and s[finite - 1] == -np.inf:
        finite -= 1
    sum_lambdas = 0.0
    last = table.shape[0] - 1
    # The ratio depends on the pair only through Δ, the change of NDCG@k: Δ = 0 when both ranks
    # are beyond k, and when only rank i < k counts Δ depends on i and the two labels, so those
    # ratios are computed once per row and label of j (``by_label``).
    at_zero = 1.0 + qp[0] if mode == CONSTANT else _pair_ratio(mode, 0.0, qp, gp)
    for i in range(min(cnt - 1, cfg.trunc, finite)):
        s_i = s[i]
        l_i = lab[i]
        g_i = gains[l_i]
        disc_i = disc[i]
        untruncated = mode == CROSSING_UNTRUNCATED
        row_constant = mode == CONSTANT or (i >= k and not untruncated)
        if not row_constant and not untruncated:
            dk_i = disc_i  # i < k
            for l_j in range(top_label + 1):
                if l_j != l_i:
                    # rank j >= k does not count in NDCG@k
                    gap = g_i - gains[l_j] if l_i > l_j else gains[l_j] - g_i
                    delta_k = -dk_i if l_i > l_j else dk_i
                    by_label[l_j] = _pair_ratio(mode, gap * delta_k * inv_maxdcg_k, qp, gp)
        # Rank i's sums stay in registers during its row (float32, added in LightGBM's order);
        # ``sign`` is +1 when rank i holds the better document ("high"), -1 when rank j does, and
        # negating a difference or a float32 is exact, so each pair's terms are LightGBM's.
        lam_i = lam[i]
        hes_i = hes[i]
        # the ranks j > i of a different label, in order (without a branch per rank)
        n_pairs = 0
        for j in range(i + 1, finite):
            pairs[n_pairs] = j
            n_pairs += lab[j] != l_i
        for p in range(n_pairs):
            j = pairs[p]
            l_j = lab[j]
            sign = 1.0 if l_i > l_j else -1.0
            delta_score = sign * (s_i - s[j])
            dcg_gap = sign * (g_i - gains[l_j])
            # |D(high) − D(low)|: i < j and discounts decrease (the same double either way)
            disc_gap = disc_i - disc[j]
            delta_pair = dcg_gap * disc_gap * inv_maxdcg
            if row_constant:
                delta_pair *= at_zero
            elif untruncated:
                # the crossing decided on this |ΔM| itself, signed: its change if they swapped
                delta_pair *= crossing_ratio(-sign * delta_pair, qp[0], qp[1])
            elif j >= k:
                delta_pair *= by_label[l_j]
            else:
                # both ranks count in NDCG@k: its signed change if the two documents swapped,
                # (g_high − g_low)(D(low) − D(high))
                delta = dcg_gap * -(sign * disc_gap) * inv_maxdcg_k
                delta_pair *= _pair_ratio(mode, delta, qp, gp)
            if normalise:
                delta_pair /= NORM_EPS + abs(delta_score)
            if delta_score <= lo:
                p_lambda = table[0]
            elif delta_score >= hi:
                p_lambda = table[last]
            else:
                p_lambda = table[np.int64((delta_score - lo) * factor)]
            p_hessian = p_lambda * (1.0 - p_lambda)
            p_lambda *= -sigmoid * delta_pair
            p_hessian *= sigmoid * sigmoid * delta_pair
            lam_pair = np.float32(p_lambda)
            hes_pair = np.float32(p_hessian)
            signed = lam_pair if l_i > l_j else -lam_pair
            lam_i = np.float32(lam_i + signed)
            lam[j] = np.float32(lam[j] - signed)
            hes_i = np.float32(hes_i + hes_pair)
            hes[j] = np.float32(hes[j] + hes_pair)
            sum_lambdas -= 2.0 * p_lambda
        lam[i] = lam_i
        hes[i] = hes_i
    if cfg.norm and sum_lambdas > 0.0:
        norm_factor = math.log2(1.0 + sum_lambdas) / sum_lambdas
        for r in range(cnt):
            lam[r] = np.float32(lam[r] * norm_factor)
            hes[r] = np.float32(hes[r] * norm_factor)
    for r in range(cnt):
        grad[ranked[r]] = lam[r]
        hess[ranked[r]] = hes[r]


@njit(cache=True, parallel=True)
def lambdas(scores, labels, bounds, order, inv_maxdcg, inv_maxdcg_k, qparams, gparams, cfg, grad, hess):
    """Gradients and hessians of every query into ``grad``/``hess`` (float32), from the sorted
    ``order`` of :func:`rank_and_score`.  ``qparams[q]`` holds the query's ratio parameters
    (``qparams[q, 0]`` = a_q for CONSTANT and CROSSING, ``qparams[q, 1]`` = M_m(q) − M_b(q) for
    CROSSING; see :func:`georisk_ratio` for GEORISK), ``gparams`` the global ones and ``cfg`` the
    :class:`PairLoop` settings."""
    nq = bounds.shape[0] - 1
    width = _largest_query(bounds)
    for c in prange((nq + CHUNK - 1) // CHUNK):
        work = _pair_scratch(width, cfg.gains.shape[0])
        for q in range(c * CHUNK, min(nq, (c + 1) * CHUNK)):
            start = bounds[q]
            stop = bounds[q + 1]
            _lambdas_one_query(
                scores,
                labels,
                order[start:stop],
                stop - start,
                inv_maxdcg[q],
                inv_maxdcg_k[q],
                qparams[q],
                gparams,
                cfg,
                grad,
                hess,
                work,
            )


@njit(cache=True, parallel=True)
def fused_lambdas(
    scores, labels, bounds, order, inv_maxdcg, inv_maxdcg_k, rule, reference, alpha, sx, raw, cfg, grad, hess
):
    """One pass per query: rank (in ``order``, as :func:`rank_and_score`), NDCG@k, the query's
    ratio parameters by ``rule`` (PLAIN, UCRO against ``reference``, or TSARO/TFARO with ``α'_q``
    from a known ``s_x``; ``raw``: ``TR_q`` from δ_q, see :func:`query_alpha`), then
    :func:`lambdas`' pair loop.  Returns every query's NDCG@k."""
    nq = bounds.shape[0] - 1
    width = _largest_query(bounds)
    out = np.zeros(nq, dtype=np.float64)
    gp = np.zeros(1)
    for c in prange((nq + CHUNK - 1) // CHUNK):
        key, idx, key2, idx2 = _sort_scratch(width)
        work = _pair_scratch(width, cfg.gains.shape[0])
        qp = np.zeros(2)
        for q in range(c * CHUNK, min(nq, (c + 1) * CHUNK)):
            start = bounds[q]
            n = bounds[q + 1] - start
            rerank(scores, start, start + n, order, key, idx, key2, idx2)
            ranked = order[start : start + n]
            m = _dcg_sorted(labels, ranked, n, cfg.k, cfg.gains, cfg.disc) * inv_maxdcg_k[q]
            out[q] = m
            if rule != PLAIN:
                d = m - reference[q]
                qp[0] = alpha if rule == UCRO else query_alpha(d, alpha, sx, raw)
                qp[1] = d
            _lambdas_one_query(
                scores,
                labels,
                ranked,
                n,
                inv_maxdcg[q],
                inv_maxdcg_k[q],
                qp,
                gp,
                cfg,
                grad,
                hess,
                work,
            )
    return out
