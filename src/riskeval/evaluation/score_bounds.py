"""Per-topic scores of runs over every completion of the qrels: the least and the greatest value a
measure can take once the unjudged documents are judged.

A *completion* of the qrels gives each unjudged document that some run retrieves (absent from its
topic's qrels, or graded negative: :mod:`riskeval.evaluation.unjudged`) a grade from 0 to ``G``
(default: the highest grade of the qrels), the same grade for every run.  For each run and topic,
:func:`score_bounds` gives ``low`` and ``high`` with ``low ≤ value ≤ high`` under every completion.
The measures are not monotone in the judgments: a document made relevant also raises the ideal DCG
of nDCG and the number of relevant documents of AP and recall, so that a run which did not retrieve
it loses.  (Zobel, "How reliable are the results of large-scale information retrieval
experiments?", SIGIR 1998, asked whether a pool judges fairly the systems that did not contribute
to it.)  The bounds, per measure (``k``: the cut-off, or the run's length; ``rel``: the least
relevant grade; ``U``: the unjudged documents the runs retrieve for the topic; ``A``: those of the
run in its first ``k``):

- ``P@k``, ``RR[@k]``: exact, the completions that grade every document 0 and ``G``;
- ``R@k``: exact: low (found judged relevant)/(judged relevant + the documents of ``U`` outside
  ``A``, at ``G``), high (found + |A|)/(judged relevant + |A|) with ``A`` at ``G`` (each document
  of ``A`` made relevant adds 1 to a fraction at most 1, each other one only to its denominator);
- ``AP[@k]``: high exact: the best of ``A``'s first ``m`` documents made relevant, over ``m``
  (moving a relevant document up lowers the k-th relevant rank of every k, so for ``m`` documents
  the first ``m`` are best); low a bound: the sum of precisions of the judged relevant documents
  (which grows with every document made relevant) over the judged relevant documents plus ``|U|``;
- ``nDCG[@k]`` (trec_eval's gains): bounds: low the DCG of the judged documents over the ideal DCG
  with all of ``U`` at ``G``; high the DCG with ``A`` at ``G`` over the ideal DCG of the judged
  documents, at most 1.

When ``G`` is below ``rel``, no completion makes a document relevant for P, R, AP and RR: their
bounds are their value.  Other measures are refused.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.evaluation import kernels
from riskeval.evaluation.api import evaluate_runs
from riskeval.evaluation.engine import compiled_plan
from riskeval.evaluation.inputs import qrels_dict, run_inputs
from riskeval.evaluation.measures import parse_measures
from riskeval.evaluation.unjudged import is_judged
from riskeval.io.runs import read_run
from riskeval.model.score_bounds import ScoreBounds

#: The measure families :func:`score_bounds` bounds (trec_eval's, with their parameters).
BOUNDED = ("nDCG@k", "AP", "AP@k", "P@k", "R@k", "RR", "RR@k", "with rel=N where they take it")


def score_bounds(
    qrels: Any,
    runs: Any,
    measure: Any = "nDCG@10",
    *,
    names: Any = None,
    grade: int | None = None,
    missing: str = "zero",
) -> ScoreBounds:
    """The least and greatest per-topic score of each run over the completions of the qrels.

    Parameters
    ----------
    qrels, runs, names, missing : as :func:`riskeval.evaluate_runs` takes them (runs as files or
        in memory).
    measure : one of ``nDCG[@k]``, ``AP[@k]``, ``P@k``, ``R@k``, ``RR[@k]`` (trec_eval's measures,
        ``rel=N`` allowed), in any spelling :func:`riskeval.evaluate_runs` reads.
    grade : ``G``, the highest grade an unjudged document may get; default the highest grade of
        the qrels (at least 1).

    Returns
    -------
    ScoreBounds
        ``low ≤ value ≤ high`` for every run, topic and completion (the module says which bounds
        are exact); ``scores`` is the value with unjudged documents non-relevant.
    """
    parsed = parse_measures([measure])[0]
    plan = compiled_plan(parsed)
    if plan is None or plan.kind == kernels.JUDGED:
        raise RiskevalError(
            f"Score bounds over the completions of the qrels are derived for {', '.join(BOUNDED)}; "
            f"not for {parsed}. Evaluate it with unjudged='condensed' or 'relevant=G' instead."
        )
    judged = qrels_dict(qrels, negative_unjudged=True)
    top = max((g for docs in judged.values() for g in docs.values()), default=1)
    G = max(top, 1) if grade is None else int(grade)
    if isinstance(grade, bool) or G < 1:
        raise RiskevalError(
            f"The 'grade' parameter of score_bounds must be a whole number >= 1. Got {grade!r}."
        )
    scores = evaluate_runs(qrels, runs, parsed, names=names, missing=missing, unjudged="nonrelevant")
    sources, _ = run_inputs(runs, names)
    topics = frozenset(judged)
    read = [read_run(s, topics=topics) if isinstance(s, str) else s.restrict(topics) for s in sources]
    ranked = [{t: ranking(docs, plan.trec) for t, docs in run.scores.items()} for run in read]
    pool = {
        t: {d for r in read for d in r.scores.get(t, {}) if not is_judged(judged[t], d)}
        for t in scores.columns
    }
    low = scores.copy()
    high = scores.copy()
    for i, run in enumerate(ranked):
        for j, topic in enumerate(scores.columns):
            if topic not in run:
                continue  # a topic the run lacks: its score by the missing policy, no completion moves it
            lo, hi = _bounds(plan, run[topic], judged[topic], len(pool[topic]), G)
            low.iat[i, j], high.iat[i, j] = lo, hi
    counts = pd.Series([len(pool[t]) for t in scores.columns], index=scores.columns, name="unjudged")
    return ScoreBounds(scores, low, high, counts, str(parsed), G)


def ranking(docs: dict[str, float], trec: bool) -> list[str]:
    """The documents in rank order: as pytrec_eval (single precision scores, ties by decreasing id)
    or as the MS MARCO evaluator (double scores, ties by increasing id), see
    :mod:`riskeval.evaluation.kernels`."""
    if trec:
        return [d for d, _ in sorted(docs.items(), key=lambda i: (np.float32(i[1]), i[0]), reverse=True)]
    return [d for d, _ in sorted(docs.items(), key=lambda i: (-i[1], i[0]))]


def _bounds(
    plan: Any, ranking: list[str], judged: dict[str, int], pooled: int, G: int
) -> tuple[float, float]:
    """(low, high) of one run on one topic: ``ranking`` its documents in rank order, ``judged`` the
    topic's qrels (grades ≥ 0), ``pooled`` = |U|."""
    k = len(ranking) if plan.cutoff == 0 else min(plan.cutoff, len(ranking))
    grades = [judged.get(d, -1) for d in ranking[:k]]
    own = [i for i, g in enumerate(grades) if g < 0]  # A: positions of unjudged documents
    relevant = sum(g >= plan.rel for g in judged.values())
    if plan.kind == kernels.NDCG:
        ideal = sorted(judged.values(), reverse=True)
        dcg = sum(g / math.log2(i + 2.0) for i, g in enumerate(grades) if g > 0)
        best = _dcg(ideal, plan.cutoff)
        most = _dcg(sorted([*ideal, *[G] * pooled], reverse=True), plan.cutoff)
        gained = dcg + sum(G / math.log2(i + 2.0) for i in own)
        low = dcg / most if most > 0 else 0.0
        high = min(1.0, gained / best) if best > 0 else (1.0 if gained > 0 else 0.0)
        return low, high
    hits = [g >= plan.rel for g in grades]
    if G < plan.rel:  # no completion makes a document relevant
        own, pooled = [], 0
    mine = set(own)
    made = [h or i in mine for i, h in enumerate(hits)]
    found = sum(hits)
    if plan.kind == kernels.PRECISION:
        return found / plan.cutoff, (found + len(own)) / plan.cutoff
    if plan.kind == kernels.RR:
        return _reciprocal(hits), _reciprocal(made)
    if plan.kind == kernels.RECALL:
        outside = pooled - len(own)
        low_r = relevant + outside
        high_r = relevant + len(own)
        return (found / low_r if low_r else 0.0), ((found + len(own)) / high_r if high_r else 0.0)
    # AP: low over the most relevant documents possible; high the best first m of A, exact
    total = relevant + pooled
    numerator = _precisions(hits)
    low = numerator / total if total else 0.0
    high = numerator / relevant if relevant else 0.0
    if own:
        # the first m of A made relevant: the m-th (at rank p) adds (relevant above p, plus 1)/p
        # and 1/i for each judged relevant document at a rank i below p
        flags = np.asarray(hits, dtype=np.float64)
        before = np.cumsum(flags) - flags
        after = np.cumsum((flags / np.arange(1, k + 1))[::-1])[::-1] - flags / np.arange(1, k + 1)
        p = np.asarray(own)
        m = np.arange(len(own))
        sums = numerator + np.cumsum((before[p] + m + 1) / (p + 1) + after[p])
        high = max(high, float(np.max(sums / (relevant + m + 1))))
    return low, high


def _dcg(grades: list[int], cutoff: int) -> float:
    """DCG of grades in decreasing order (trec_eval's gain = grade, discount log2(rank + 1))."""
    top = grades if cutoff == 0 else grades[:cutoff]
    return sum(g / math.log2(i + 2.0) for i, g in enumerate(top) if g > 0)


def _reciprocal(hits: list[bool]) -> float:
    return next((1.0 / (i + 1) for i, h in enumerate(hits) if h), 0.0)


def _precisions(hits: list[bool]) -> float:
    """Σ over the relevant ranks i of (relevant at ranks ≤ i)/i: the numerator of AP."""
    total, found = 0.0, 0
    for i, h in enumerate(hits):
        if h:
            found += 1
            total += found / (i + 1)
    return total
