"""What an unjudged retrieved document counts as: the ``unjudged`` policy of the evaluation.

A document is *unjudged* for a topic when the qrels do not list it for that topic, or list it with a
negative grade, which trec_eval reads as "in the pool but not judged" (trec_eval 9.0.8,
``form_res_rels.c``).  Three policies (:data:`riskeval.options.UNJUDGED_POLICIES`):

- ``"nonrelevant"`` (trec_eval's default): the document is not relevant; the qrels are used as they are;
- ``"condensed"``: the document is removed from the run before scoring, so the judged documents
  below it move up, as ``trec_eval -J`` does: Sakai's *condensed lists* ("Alternatives to bpref",
  SIGIR 2007, §3).  A cut-off then counts judged documents (``nDCG@10`` scores the first ten judged
  documents); judged non-relevant documents (grade 0) stay; a topic left with no document scores 0;
- ``"relevant"`` / ``"relevant=G"``: every unjudged document a run retrieves counts at grade ``G``
  (default :data:`riskeval.options.UNJUDGED_GRADE`, 1) in that run's evaluation: it is added to the
  run's qrels, so it also enters the ideal ranking of nDCG and the number of relevant documents of
  AP and recall.  The qrels completed this way are the run's own: two runs are each evaluated
  against their own unjudged documents made relevant.

``Judged@k`` is computed on the ranking as returned under every policy, the qrels read as the
policy reads them (:mod:`riskeval.evaluation.engine` says why).  Both engines apply the policy to
every other measure, to the same values: ir_measures is given the condensed run or the
completed qrels (:func:`condensed_run`, :func:`completed_qrels`); the compiled kernels are given the
ranked grades without the unjudged rows (:func:`condensed_ranks`) or with them at ``G`` and each
topic's ideal grades with as many ``G`` added (:func:`completed_ranks`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np


class Unjudged(NamedTuple):
    """An ``unjudged`` policy: ``policy`` one of :data:`riskeval.options.UNJUDGED_POLICIES`,
    ``grade`` the grade of an unjudged document under ``"relevant"``."""

    policy: str = "nonrelevant"
    grade: int = 1


def is_judged(qrels: Mapping[str, int], doc: str) -> bool:
    """Whether ``doc`` is judged in one topic's qrels: listed with a grade ≥ 0 (trec_eval's rule)."""
    grade = qrels.get(doc)
    return grade is not None and grade >= 0


def condensed_run(
    scores: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]]
) -> dict[str, dict[str, float]]:
    """The run ``{topic: {doc: score}}`` without its unjudged documents (every topic kept, maybe
    empty)."""
    out: dict[str, dict[str, float]] = {}
    for topic, docs in scores.items():
        judged = qrels.get(topic, {})
        out[topic] = {d: s for d, s in docs.items() if is_judged(judged, d)}
    return out


def completed_qrels(
    qrels: Mapping[str, Mapping[str, int]], scores: Mapping[str, Mapping[str, float]], grade: int
) -> dict[str, dict[str, int]]:
    """The qrels of the run's topics with every unjudged document the run retrieves at ``grade``."""
    out: dict[str, dict[str, int]] = {}
    for topic, docs in scores.items():
        judged = dict(qrels.get(topic, {}))
        for doc in docs:
            if not is_judged(judged, doc):
                judged[doc] = grade
        out[topic] = judged
    return out


def condensed_ranks(ranked: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranked grades of groups ``offsets[g]:offsets[g + 1]`` (negative: unjudged) without the
    unjudged rows, and the new offsets."""
    keep = ranked >= 0
    groups = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    counts = np.bincount(groups[keep], minlength=offsets.size - 1)
    return ranked[keep], np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def completed_ranks(
    ranked: np.ndarray,
    offsets: np.ndarray,
    judged: np.ndarray,
    ideal: np.ndarray,
    ideal_offsets: np.ndarray,
    grade: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ranked grades with the unjudged rows (negative) at ``grade``, and for each group its topic's
    ideal grades (``ideal[ideal_offsets[judged[g]]:...]``, decreasing) with one ``grade`` per
    unjudged row added: ``(ranked, judged, ideal, ideal_offsets)`` for
    :func:`riskeval.evaluation.kernels.topic_values`, group ``g`` owning ideal group ``g``."""
    unjudged = ranked < 0
    parts = []
    for g in range(offsets.size - 1):
        t = judged[g]
        own = ideal[ideal_offsets[t] : ideal_offsets[t + 1]]
        added = int(unjudged[offsets[g] : offsets[g + 1]].sum())
        parts.append(-np.sort(-np.concatenate((own, np.full(added, grade, dtype=np.int64)))))
    sizes = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    new_offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    new_ideal = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    groups = np.arange(offsets.size - 1, dtype=np.int64)
    return np.where(unjudged, grade, ranked), groups, new_ideal.astype(np.int64), new_offsets
