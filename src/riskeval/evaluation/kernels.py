"""Per-topic ranking measures computed as trec_eval, the MS MARCO evaluator and ir_measures compute them.

Compiled kernels over arrays: the documents of each topic with their scores and grades (``-1``: not
judged), and each topic's judged grades in decreasing order.  Every value is the one of the
reference implementation, bit for bit, because every operation is the one it does, in its order:

- **ranking**: trec_eval (Buckley & Voorhees, TREC: Experiment and Evaluation in Information
  Retrieval, MIT Press 2005, chapter 3) sorts a topic's documents by score, decreasing, ties by
  document id in decreasing byte order; pytrec_eval (Van Gysel & de Rijke, SIGIR 2018), through which
  ir_measures computes trec_eval's measures, holds scores in single precision, so scores equal as
  ``float32`` tie.  The MS MARCO evaluator, through which ir_measures computes ``RR@k``, sorts by the
  double score, decreasing, ties by document id in increasing order;
- **measures** (``rel``: the least grade that counts as relevant; ``k``: the cutoff):
  ``nDCG[@k]`` (Järvelin & Kekäläinen, TOIS 2002, with trec_eval's gain = grade and discount
  ``log2(rank + 1)``, DCG and ideal DCG summed in rank order), ``AP[@k]``, ``P@k``, ``R@k`` and
  ``RR[@k]``, with trec_eval's conventions: ``P@k`` divides by ``k`` however few documents were
  retrieved; ``AP`` and ``R@k`` divide by the number of judged relevant documents and are 0 when
  there is none;
- **Judged@k** (ir_measures' ``judged`` provider, adapted from OpenNIR): the fraction of the top ``k``
  documents, ranked as the MS MARCO evaluator ranks them (ties by document id in increasing order),
  that the qrels judge at any grade; a topic with fewer than ``k`` documents is divided by the number
  returned, and ``Judged`` without a cutoff by every document returned.  :func:`topic_values` counts
  it over the grades of a ranking (judged: a grade ≥ 0), :func:`judged_fraction` over a topic's
  scores held in a dict, without sorting them (what an evaluation without the compiled kernels does).
"""

from __future__ import annotations

import heapq
from collections.abc import Container, Mapping

import numpy as np

from riskeval.core._numba import njit

#: Measure kinds understood by :func:`topic_values`.
NDCG, AP, PRECISION, RECALL, RR, JUDGED = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def _id_before(text, starts, ends, a, b, trec):
    """Whether row ``a`` ranks above row ``b`` of the same score: by document id, decreasing for
    trec_eval, increasing for MS MARCO."""
    la, lb = ends[a] - starts[a], ends[b] - starts[b]
    for j in range(min(la, lb)):
        ca, cb = text[starts[a] + j], text[starts[b] + j]
        if ca != cb:
            return (ca > cb) if trec else (ca < cb)
    return (la > lb) if trec else (la < lb)


@njit(cache=True)
def rank(text, starts, ends, scores, offsets, trec):
    """The rows of each topic (``offsets[g]:offsets[g + 1]``) in rank order.

    ``text[starts[r]:ends[r]]`` is row ``r``'s document id; ``trec``: rank as pytrec_eval (single
    precision scores, ties by decreasing id), else as the MS MARCO evaluator.  A merge sort of each
    topic's rows (bottom-up, a block of rows of one topic at a time), after one pass that leaves a
    topic already in rank order as it is.  Row ``b`` ranks above row ``a`` when its key is higher,
    or equal and :func:`_id_before` says so; the comparison is written out where it is made, so that
    the compiled call happens for ties alone (a call per comparison took most of the time)."""
    key = np.empty(scores.size)
    order = np.empty(scores.size, dtype=np.int64)
    spare = np.empty(scores.size, dtype=np.int64)
    for r in range(scores.size):
        key[r] = np.float32(scores[r]) if trec else scores[r]
        order[r] = r
    for g in range(offsets.size - 1):
        lo, hi = offsets[g], offsets[g + 1]
        width = hi - lo
        for r in range(lo + 1, hi):  # already in rank order (runs list documents by rank): done
            if key[r] > key[r - 1] or (
                key[r] == key[r - 1] and _id_before(text, starts, ends, r, r - 1, trec)
            ):
                width = 1
                break
        while width < hi - lo:
            for left in range(lo, hi, 2 * width):  # merge blocks [left, mid) and [mid, right)
                mid = min(left + width, hi)
                right = min(mid + width, hi)
                i, j = left, mid
                for k in range(left, right):
                    if j < right and i < mid:
                        a, b = order[i], order[j]
                        above = key[b] > key[a] or (
                            key[b] == key[a] and _id_before(text, starts, ends, b, a, trec)
                        )
                    else:
                        above = j < right
                    if above:
                        spare[k] = order[j]
                        j += 1
                    else:
                        spare[k] = order[i]
                        i += 1
            for k in range(lo, hi):
                order[k] = spare[k]
            width *= 2
    return order


@njit(cache=True)
def topic_values(kind, cutoff, rel, ranked, offsets, judged, ideal, ideal_offsets):
    """One measure for each topic ``g``: ``ranked[offsets[g]:offsets[g + 1]]`` holds the grades
    of its documents in rank order, ``ideal[ideal_offsets[judged[g]]:ideal_offsets[judged[g] + 1]]``
    its judged grades in decreasing order; ``cutoff`` 0: none."""
    out = np.zeros(offsets.size - 1)
    for g in range(offsets.size - 1):
        lo, hi = offsets[g], offsets[g + 1]
        limit = hi - lo if cutoff == 0 else min(hi - lo, cutoff)
        first, last = ideal_offsets[judged[g]], ideal_offsets[judged[g] + 1]
        relevant = 0
        for i in range(first, last):
            if ideal[i] >= rel:
                relevant += 1
        if kind == NDCG:
            dcg = 0.0
            for i in range(limit):
                if ranked[lo + i] > 0:
                    dcg += ranked[lo + i] / np.log2(i + 2.0)
            best = 0.0
            for i in range(last - first):
                if ideal[first + i] <= 0 or (cutoff != 0 and i >= cutoff):
                    break
                best += ideal[first + i] / np.log2(i + 2.0)
            out[g] = dcg / best if best > 0.0 else dcg
        elif kind == AP:
            found = 0
            total = 0.0
            for i in range(limit):
                if ranked[lo + i] >= rel:
                    found += 1
                    total += found / (i + 1)
            if (found if cutoff == 0 else relevant) > 0:
                out[g] = total / relevant
        elif kind == PRECISION or kind == RECALL:
            found = 0
            for i in range(limit):
                if ranked[lo + i] >= rel:
                    found += 1
            if kind == PRECISION:
                out[g] = found / cutoff
            elif relevant > 0:
                out[g] = found / relevant
        elif kind == JUDGED:
            found = 0
            for i in range(limit):
                if ranked[lo + i] >= 0:
                    found += 1
            if limit > 0:
                out[g] = found / limit
        else:
            for i in range(limit):
                if ranked[lo + i] >= rel:
                    out[g] = 1.0 / (i + 1)
                    break
    return out


def judged_fraction(scores: Mapping[str, float], judged: Container[str], cutoff: int) -> float:
    """``Judged@cutoff`` (``cutoff`` 0: ``Judged``) of one topic: ``scores`` maps its documents to
    their scores, ``judged`` holds the documents its qrels list.  The top ``k`` are the documents
    scored above the ``k``-th highest score, then as many of those scored at it as there is room
    for, by document id in increasing order: the first ``k`` of the ranking by score, ties by id,
    with no sort of the whole topic."""
    size = len(scores)
    limit = size if cutoff == 0 else min(size, cutoff)
    if limit == 0:
        return 0.0
    if limit == size:
        return sum(doc in judged for doc in scores) / limit
    least = heapq.nlargest(limit, scores.values())[-1]
    above = [doc for doc, score in scores.items() if score > least]
    tied = sorted(doc for doc, score in scores.items() if score == least)[: limit - len(above)]
    return (sum(doc in judged for doc in above) + sum(doc in judged for doc in tied)) / limit
