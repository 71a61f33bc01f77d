"""Zobel's test of pool reusability: the qrels without the documents that one run alone brought
to the pool (Zobel, "How reliable are the results of large-scale information retrieval
experiments?", SIGIR 1998).

The pool of a topic is approximated as the union of every run's first ``depth`` documents (ranked
as trec_eval ranks them); a judged document *only one run contributed* is in that run's first
``depth`` and in no other run's.  Removing those from the qrels makes the run a system that was not
in the pool, judged by the others' documents: evaluated against the remaining qrels, its scores and
losses are what a researcher testing a new system on the collection would see.  A pool built with
other documents too (TREC DL 2019 judged passages chosen by active learning beyond the pooled
depth) keeps them: no run contributed them alone at ``depth``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskeval.errors import RiskevalError
from riskeval.evaluation.inputs import qrels_dict, run_inputs
from riskeval.evaluation.score_bounds import ranking
from riskeval.io.runs import read_run


def pool_contributions(
    qrels: Any, runs: Mapping[str, Any], depth: int = 10
) -> dict[str, dict[str, set[str]]]:
    """For each run (a mapping system name -> run file or run in memory, as
    :func:`riskeval.evaluate_runs` takes them): per topic, the judged documents in its first
    ``depth`` documents and in no other run's."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise RiskevalError(
            f"The 'depth' parameter of pool_contributions must be a whole number >= 1. Got {depth!r}."
        )
    judged = qrels_dict(qrels)
    sources, names = run_inputs(dict(runs), None)
    topics = frozenset(judged)
    tops: dict[str, dict[str, set[str]]] = {}
    for name, source in zip(names, sources, strict=True):
        run = read_run(source, topics=topics) if isinstance(source, str) else source.restrict(topics)
        tops[name] = {t: set(ranking(docs, True)[:depth]) for t, docs in run.scores.items()}
    out: dict[str, dict[str, set[str]]] = {}
    for name, top in tops.items():
        out[name] = {}
        for topic, docs in top.items():
            others = set().union(*(o.get(topic, set()) for n, o in tops.items() if n != name))
            alone = {d for d in docs - others if d in judged[topic]}
            if alone:
                out[name][topic] = alone
    return out


def without_run(qrels: Any, runs: Mapping[str, Any], run: str, depth: int = 10) -> dict[str, dict[str, int]]:
    """The qrels (``{topic: {document: grade}}``) without the judged documents that only ``run``
    contributed to the pool of depth ``depth`` (:func:`pool_contributions`)."""
    if run not in runs:
        raise RiskevalError(f"No run {run!r} among the runs: {', '.join(map(str, runs))}.")
    return remove_judgments(qrels, pool_contributions(qrels, runs, depth)[run])


def remove_judgments(qrels: Any, documents: Mapping[str, set[str]]) -> dict[str, dict[str, int]]:
    """The qrels (``{topic: {document: grade}}``) without ``documents`` (topic -> documents)."""
    return {
        t: {d: g for d, g in docs.items() if d not in documents.get(t, set())}
        for t, docs in qrels_dict(qrels).items()
    }
