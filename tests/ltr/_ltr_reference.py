"""Slow, plain-Python reference of the objectives, written from the papers' definitions
(Dinçer, Macdonald & Ounis, SIGIR 2014, §6; SIGIR 2016, §6).

Per query: rank by score (Python's sort is stable), loop over LightGBM's pairs, and give each pair
the weight ``|ΔM| · |ΔM'| / |Δ|`` where ``Δ`` and ``ΔM'`` are obtained by actually swapping the two
documents and re-evaluating NDCG@k (and, for GeoRisk, the whole matrix) from scratch.  The sigmoid
is exact (no lookup table), sums are in double precision.
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from riskeval.core.chisq import georisk_from, zsums


def gains_default():
    return [0.0] + [float(2**i - 1) for i in range(1, 31)]


def dcg(labels_in_order, k, gains):
    return sum(gains[lab] / math.log2(r + 2) for r, lab in enumerate(labels_in_order[:k]))


def ndcg(labels_in_order, k, gains):
    ideal = dcg(sorted(labels_in_order, reverse=True), k, gains)
    return dcg(labels_in_order, k, gains) / ideal if ideal > 0 else 0.0


def query_slices(bounds):
    return [slice(int(bounds[q]), int(bounds[q + 1])) for q in range(len(bounds) - 1)]


def ranking(s, lab, ties="input"):
    """A query's documents by score, descending; ties in input order (LightGBM) or, with
    ``ties="lowest_label"``, lowest label first (Jforests)."""
    if ties == "lowest_label":
        return sorted(range(len(s)), key=lambda i: (-s[i], lab[i]))
    return sorted(range(len(s)), key=lambda i: -s[i])


def model_ndcg(scores, labels, bounds, k, gains, ties="input"):
    out = []
    for sl in query_slices(bounds):
        s, lab = list(scores[sl]), list(labels[sl])
        order = ranking(s, lab, ties)
        out.append(ndcg([lab[i] for i in order], k, gains))
    return np.array(out)


def urisk_term(x, b, alpha):
    """U(x): x − b above the baseline, (1+α)(x − b) below (SIGIR 2014, eq. 3)."""
    return x - b if x >= b else (1.0 + alpha) * (x - b)


def georisk_full(row, baselines, alpha):
    """GeoRisk of ``row`` within [row; baselines], recomputed from scratch (SIGIR 2016, eq. 4–8)."""
    return float(georisk_from(zsums(np.asarray(row)[None, :], baselines), alpha)[0])


def query_alphas(m, b, alpha):
    """T-SARO/T-FARO α'_q = [1 − Φ(x_q / s_x)]·α (SIGIR 2014, eq. 21, 25)."""
    x = [d if d >= 0 else (1 + alpha) * d for d in (m - b)]
    sx = statistics.stdev(x)
    return [(1 - 0.5 * math.erfc(-(v / sx) / math.sqrt(2))) * alpha for v in x]


def jforests_estimates(baseline, model, alpha):
    """URisk and the paired variance of x, as Jforests' ``TRiskAwareSAROEval.getEstimates``."""
    c = len(baseline)
    total = ssqr = 0.0
    for b, m in zip(baseline, model, strict=True):
        d = m - b if m > b else (1 + alpha) * (m - b)
        total += d
        ssqr += d * d
    sqrs = total * total
    return total / c, 0.0 if ssqr == sqrs else (ssqr - sqrs / c) / (c - 1)


def jforests_delta_t(objective, delta_m, m_m, m_b, better_above, alpha, sx):
    """Jforests' swap score ``delta_T`` of a pair (``URiskAwareEval``, ``TRiskAwareSAROEval``,
    ``TRiskAwareFAROEval``): Wang et al.'s scenarios, ``beta = (1 − Φ((M_m − M_b)/s_x))·α``.
    ``delta_m`` is the signed change of the pair's |ΔM| if the two swapped; ``better_above`` says
    whether the better document is ranked above the worse one."""
    if objective == "ucro":
        beta = alpha
    else:
        tr = (m_m - m_b) / sx if sx > 0 else 0.0
        beta = (1 - 0.5 * math.erfc(-tr / math.sqrt(2))) * alpha
    if objective in ("tfaro", "tstar_faro"):
        return (1 + beta) * delta_m
    if m_m <= m_b:  # scenario A
        if better_above:
            return (1 + beta) * delta_m
        if m_b > m_m + delta_m:
            return (1 + beta) * delta_m
        return beta * (m_b - m_m) + delta_m
    if better_above:  # scenario B
        if m_b > m_m - abs(delta_m):
            return beta * (m_m - m_b) - (1 + beta) * abs(delta_m)
        return delta_m
    return delta_m


def reference_gradients(
    scores,
    labels,
    bounds,
    *,
    objective,
    alpha=0.0,
    baselines=None,
    k=10,
    trunc=30,
    norm=True,
    sigmoid=1.0,
    gains=None,
    sx=None,
    shortcut=False,
    variant="paper",
    first=False,
    ties=None,
):
    """Gradients and hessians of one LightGBM iteration of ``objective`` (float64).

    ``variant="jforests"``: the pair weights of Jforests' swap scorers (:func:`jforests_delta_t`),
    with ``s_x`` from ``jforests_estimates(M_b, 0)`` unless given, and the model's NDCG@k taken as
    0 when ``first`` (the first tree).  ``ties``: how documents of equal score are ranked
    (:func:`ranking`); by default lowest label first for ``variant="jforests"``, else in input
    order."""
    ties = ties or ("lowest_label" if variant == "jforests" else "input")
    gains = gains or gains_default()
    n = len(scores)
    grad = np.zeros(n)
    hess = np.zeros(n)
    m = model_ndcg(scores, labels, bounds, k, gains, ties)
    b = None if baselines is None else np.asarray(baselines).mean(axis=0)
    if objective in ("tsaro", "tfaro", "tstar_faro"):
        x = [d if d >= 0 else (1 + alpha) * d for d in (m - b)]
        s = statistics.stdev(x) if sx is None else sx
        a_q = [(1 - 0.5 * math.erfc(-(v / s) / math.sqrt(2))) * alpha for v in x]
    if variant == "jforests":
        relevant = np.array([max(labels[sl]) > 0 for sl in query_slices(bounds)])
        if sx is None:  # Jforests scores a query without relevant documents NDCG 1
            sx = math.sqrt(jforests_estimates(np.where(relevant, b, 1.0), np.zeros(len(b)), alpha)[1])
        m_jf = np.zeros(len(b)) if first else m
    if objective == "georisk":
        g0 = georisk_full(m, baselines, alpha)
        scale = 2.0 * m.sum() / g0

    def risk_change(q, new):
        """ΔM' of query q when its NDCG@k becomes ``new``."""
        if objective == "lambdarank":
            return new - m[q]
        if objective == "ucro":
            return urisk_term(new, b[q], alpha) - urisk_term(m[q], b[q], alpha)
        if objective == "tsaro":
            return urisk_term(new, b[q], a_q[q]) - urisk_term(m[q], b[q], a_q[q])
        if objective in ("tfaro", "tstar_faro"):
            return (1 + a_q[q]) * (new - m[q])
        row = m.copy()
        row[q] = new
        if shortcut:
            raise NotImplementedError
        return (georisk_full(row, baselines, alpha) - g0) * scale

    for q, sl in enumerate(query_slices(bounds)):
        s = list(scores[sl])
        lab = list(labels[sl])
        cnt = len(s)
        order = ranking(s, lab, ties)
        ideal_t = dcg(sorted(lab, reverse=True), trunc, gains)
        inv = 1.0 / ideal_t if ideal_t > 0 else 0.0
        best, worst = s[order[0]], s[order[-1]]
        g = np.zeros(cnt)
        h = np.zeros(cnt)
        total = 0.0
        for i in range(min(cnt - 1, trunc)):
            for j in range(i + 1, cnt):
                a_, b_ = order[i], order[j]
                if lab[a_] == lab[b_]:
                    continue
                (hr, hi_), (lr, lo_) = ((i, a_), (j, b_)) if lab[a_] > lab[b_] else ((j, b_), (i, a_))
                dm = (
                    (gains[lab[hi_]] - gains[lab[lo_]])
                    * abs(1 / math.log2(hr + 2) - 1 / math.log2(lr + 2))
                    * inv
                )
                if variant == "jforests":
                    # |delta_T| replaces |ΔM|; ΔM signed as Jforests': (g_better − g_worse)(D(r_worse) −
                    # D(r_better)) / maxDCG@truncation, discounts untruncated
                    signed = (
                        (gains[lab[hi_]] - gains[lab[lo_]])
                        * (1 / math.log2(lr + 2) - 1 / math.log2(hr + 2))
                        * inv
                    )
                    dm = abs(jforests_delta_t(objective, signed, m_jf[q], b[q], hr < lr, alpha, sx))
                    ds = s[hi_] - s[lo_]
                    if norm and best != worst:
                        dm /= 0.01 + abs(ds)
                    p = 1.0 / (1.0 + math.exp(sigmoid * ds))
                    lam = sigmoid * dm * p
                    g[lo_] += lam
                    g[hi_] -= lam
                    h[lo_] += sigmoid * sigmoid * dm * p * (1 - p)
                    h[hi_] += sigmoid * sigmoid * dm * p * (1 - p)
                    total += 2 * lam
                    continue
                swapped = [lab[d] for d in order]
                swapped[hr], swapped[lr] = swapped[lr], swapped[hr]
                new = ndcg(swapped, k, gains)
                delta = new - m[q]
                if abs(delta) > 1e-13:
                    dm *= abs(risk_change(q, new)) / abs(delta)
                else:
                    eps = 1e-7
                    dm *= abs(risk_change(q, m[q] + eps) - risk_change(q, m[q] - eps)) / (2 * eps)
                ds = s[hi_] - s[lo_]
                if norm and best != worst:
                    dm /= 0.01 + abs(ds)
                p = 1.0 / (1.0 + math.exp(sigmoid * ds))
                lam = sigmoid * dm * p
                g[lo_] += lam
                g[hi_] -= lam
                h[lo_] += sigmoid * sigmoid * dm * p * (1 - p)
                h[hi_] += sigmoid * sigmoid * dm * p * (1 - p)
                total += 2 * lam
        if norm and total > 0:
            g *= math.log2(1 + total) / total
            h *= math.log2(1 + total) / total
        grad[sl] = g
        hess[sl] = h
    return grad, hess


def random_queries(n_queries=6, max_docs=12, max_label=3, seed=0, ties=False):
    """Scores, labels and query boundaries of a few small random queries (float64 scores)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, max_docs + 1, size=n_queries)
    n = int(sizes.sum())
    labels = rng.integers(0, max_label + 1, size=n).astype(np.int64)
    scores = rng.normal(size=n)
    if ties:
        scores = np.round(scores)  # many equal scores within a query
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return scores, labels, bounds
