"""The evaluator of one process: per-topic values of a run file, or of a run held in memory.

Two engines compute the values, both equal to ir_measures' per-query values:

- ``"compiled"`` (the default): the measures that ir_measures computes with pytrec_eval (trec_eval's
  ``nDCG``, ``AP``, ``P@k``, ``R@k``, ``RR``) or, for ``RR@k``, with the MS MARCO evaluator, are
  computed by the kernels of :mod:`riskeval.evaluation.kernels` from the judged lines read as arrays
  (:mod:`riskeval.evaluation.run_arrays`), and so is ``Judged@k`` (ir_measures' ``judged``
  provider); every other measure by ir_measures' evaluator.  Runs of less than
  :data:`COMPILED_MIN_BYTES` of text in all are left to the other engine (:func:`engine_for`);
- ``"ir_measures"``: every measure by ir_measures' evaluator, fed the parsed run, but ``Judged@k``,
  counted from the parsed run by :func:`riskeval.evaluation.kernels.judged_fraction` to the same
  values (ir_measures' provider sorts every topic's documents in Python: three times the CPU of the
  rest of an ``nDCG@10`` evaluation).

``Judged@k`` describes the ranking the run returns whatever the ``unjudged`` policy
(:mod:`riskeval.evaluation.unjudged`): it is the fraction of the top ``k`` that the policy leaves
alone.  Computed after the policy it would say nothing: ``"condensed"`` keeps the judged documents
alone, as ``trec_eval -J`` does, and ``"relevant"`` judges every retrieved document, so it would be
1 for every topic.  A document the qrels list at a negative grade is judged under the default
policy, as in ir_measures, and unjudged under the other two, which read a negative grade as
trec_eval does.

A run file is read as a stream of pieces of whole topics (:mod:`riskeval.evaluation.run_pieces`), so
memory is bounded by the piece size, not the run's; a topic found in several pieces is evaluated
again from all its lines.
"""

from __future__ import annotations

import os
import threading
from typing import Any, NamedTuple

import numpy as np

from riskeval.errors import InputFormatError
from riskeval.evaluation import kernels, run_pieces
from riskeval.evaluation.run_arrays import JudgedDocuments, JudgedLines, read_judged_lines
from riskeval.evaluation.run_pieces import RunPiece, topic_piece
from riskeval.evaluation.unjudged import (
    Unjudged,
    completed_qrels,
    completed_ranks,
    condensed_ranks,
    condensed_run,
)
from riskeval.io.measures import evaluating_provider
from riskeval.io.problems import Problems
from riskeval.io.runs import Run, no_run_line, parse_run

#: The engines of :func:`riskeval.evaluate_runs` (``engine=``).
ENGINES = ("compiled", "ir_measures")

#: Below this much run text in one evaluation (bytes of the run files on disk, a gzip file counted
#: :data:`GZIP_RATIO` times), the compiled engine leaves every measure to ir_measures, whose values
#: are the same: numba's start-up in a process (importing it, preparing its compiler and loading the
#: kernels from its cache, about 0.8 CPU-s) costs more than the kernels save below it: whole
#: commands on TREC DL 2019 took 1.65 + 0.018 CPU-s per MB of gzip runs compiled against 0.84 +
#: 0.064 by ir_measures, equal at about 18 MB of gzip, 66 MB of text (``benchmarks/README.md``).
COMPILED_MIN_BYTES = 64 * 2**20
#: How many times its size on disk a gzip run file holds (TREC DL 2019: 3.7).
GZIP_RATIO = 4


def engine_for(engine: str, paths: list[str]) -> str:
    """The engine that evaluates the run files ``paths``: ``engine``, or ``"ir_measures"`` in place
    of ``"compiled"`` below :data:`COMPILED_MIN_BYTES` of run text (decided by the sizes alone)."""
    if engine != "compiled":
        return engine
    return engine if run_text_bytes(paths) >= COMPILED_MIN_BYTES else "ir_measures"


def run_text_bytes(paths: list[str]) -> int:
    """The bytes of text of the run files ``paths``, from their sizes on disk (a gzip file counted
    :data:`GZIP_RATIO` times; a path that is not a file, 0)."""
    text = 0
    for path in paths:
        size = os.path.getsize(path) if os.path.isfile(path) else 0
        text += size * GZIP_RATIO if path.endswith(".gz") else size
    return text


#: trec_eval's default: an unjudged document is not relevant.
NONRELEVANT = Unjudged()


class RunScores(NamedTuple):
    """What evaluating one run (or one piece of it) yields: small, it crosses process boundaries."""

    tag: str | None
    present: frozenset[str]  # judged topics the run has
    skipped: tuple[str, ...]  # topics of the run that the qrels do not judge
    values: dict[tuple[str, str], float]  # (measure, topic) -> ir_measures' value
    problems: list[tuple[str, str]]
    omitted: int = 0  # problems found past the budget of the reader, only counted


class Compiled(NamedTuple):
    """A measure that :mod:`riskeval.evaluation.kernels` computes as ir_measures' provider does."""

    measure: Any
    kind: int
    cutoff: int  # 0: none
    rel: int
    trec: bool  # ranked as pytrec_eval ranks, else as the MS MARCO evaluator


def compiled_plan(measure: Any) -> Compiled | None:
    """How to compute ``measure`` with the compiled kernels, or ``None``: the measure has a
    parameter they do not implement, or ir_measures computes it with another provider than
    pytrec_eval (trec_eval's measures), for ``RR@k`` the MS MARCO evaluator, for ``Judged[@k]``
    its ``judged`` provider."""
    from ir_measures.providers.base import NOT_PROVIDED

    if measure.NAME == "Judged":
        depth = measure["cutoff"]
        depth = 0 if depth is NOT_PROVIDED else depth
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            return None
        if getattr(evaluating_provider(measure), "NAME", None) != "judged":
            return None
        if depth == 0 and measure["cutoff"] is not NOT_PROVIDED:
            return None  # Judged@0: ir_measures divides by zero
        return Compiled(measure, kernels.JUDGED, depth, 0, False)
    kinds = {
        "nDCG": kernels.NDCG,
        "AP": kernels.AP,
        "P": kernels.PRECISION,
        "R": kernels.RECALL,
        "RR": kernels.RR,
    }
    if measure.NAME not in kinds or measure["judged_only"] is not False:
        return None
    cutoff = measure["cutoff"]
    cutoff = 0 if cutoff is NOT_PROVIDED else cutoff
    if measure.NAME == "nDCG":
        if measure["dcg"] != "log2" or measure["gains"] is not NOT_PROVIDED:
            return None
        rel = 1
    else:
        rel = measure["rel"]
    if isinstance(rel, bool) or not isinstance(rel, int) or rel < 1:
        return None
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 0:
        return None
    if cutoff == 0 and measure.NAME in ("P", "R"):
        return None
    provider = getattr(evaluating_provider(measure), "NAME", None)
    expected = "msmarco" if measure.NAME == "RR" and cutoff else "pytrec_eval"
    if provider != expected:
        return None
    return Compiled(measure, kinds[measure.NAME], cutoff, rel, expected == "pytrec_eval")


class RunEvaluator:
    """The evaluator of one process for the qrels, measures and engine, built once per process.

    It pickles without its ir_measures evaluators (rebuilt where it is unpickled), so it can be sent
    once to each worker process or Dask worker.  ``unjudged``: what an unjudged retrieved document
    counts as (:mod:`riskeval.evaluation.unjudged`)."""

    def __init__(
        self,
        qrels: dict[str, dict[str, int]],
        measures: list[Any],
        engine: str = "compiled",
        unjudged: Unjudged = NONRELEVANT,
    ):
        self.topics = frozenset(qrels)
        self.qrels = qrels
        self.measures = measures
        self.engine = engine
        self.unjudged = unjudged
        plans = [compiled_plan(m) for m in measures]
        kernel = engine == "compiled"
        self.compiled = [p for p in plans if p is not None and kernel]
        self.others = [m for m, p in zip(measures, plans, strict=True) if p is None or not kernel]
        # Judged@k: counted from a parsed run where it is not computed by the kernels
        self.counted = [p for p in plans if p is not None and p.kind == kernels.JUDGED]
        self.judgments = JudgedDocuments.from_qrels(qrels) if self.compiled else None
        self._evaluators: dict[bool, Any] = {}
        self.lock = threading.Lock()  # one evaluation at a time (Dask workers run tasks in threads)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_evaluators", "lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _evaluators={}, lock=threading.Lock())

    def __call__(self, path: str) -> RunScores:
        """Evaluate a run file piece by piece."""
        results: list[RunScores] = []
        try:
            for piece in run_pieces.run_pieces(path, run_pieces.PIECE_BYTES):
                results.append(self.piece(piece))
        except InputFormatError as exc:
            results.append(failed(exc.problems, exc.omitted))
        except OSError as exc:
            return failed([(path, f"cannot read: {exc.strerror or exc}")])
        return combine(path, results, self)

    def piece(self, piece: RunPiece) -> RunScores:
        """Evaluate the topics of one piece of a run file."""
        if piece.data.isspace():  # blank lines only
            return RunScores(None, frozenset(), (), {}, [])
        judged = read_judged_lines(piece.data, self.judgments) if self.judgments is not None else None
        if judged is not None and not self.others:
            return RunScores(
                judged.tag, frozenset(judged.topics), tuple(judged.skipped), self._compiled(judged), []
            )
        try:
            run = parse_run(
                piece.data,
                piece.location,
                topics=self.topics,
                first_line=piece.first_line,
                line_numbers=piece.line_numbers,
            )
        except InputFormatError as exc:
            return failed(exc.problems, exc.omitted)
        if judged is None:
            return self.evaluate(run)
        scores = self.evaluate(run, every=False)
        scores.values.update(self._compiled(judged))
        return scores

    def evaluate(self, run: Run, *, every: bool = True) -> RunScores:
        """Evaluate a run read (or given in memory) and restricted to the judged topics, with
        ir_measures: every measure, or (``every=False``) those without a compiled kernel; ``Judged@k``
        counted from the run as it is (:func:`riskeval.evaluation.kernels.judged_fraction`)."""
        wanted = self.measures if every else self.others
        counted = [p for p in self.counted if p.measure in wanted]
        values: dict[tuple[str, str], float] = {}
        for plan in counted:
            name = str(plan.measure)
            for topic, docs in run.scores.items():
                judged = self.qrels.get(topic)
                if judged:
                    values[name, topic] = kernels.judged_fraction(docs, judged, plan.cutoff)
        provided = [m for m in wanted if all(m != p.measure for p in counted)]
        scores = run.scores
        if self.unjudged.policy == "condensed":
            scores = condensed_run(scores, self.qrels)
        with self.lock:
            if not provided:
                evaluator = None
            elif self.unjudged.policy == "relevant":  # the run's own qrels: an evaluator for it
                import ir_measures

                evaluator = ir_measures.evaluator(
                    provided, completed_qrels(self.qrels, scores, self.unjudged.grade)
                )
            else:
                evaluator = self._evaluator(every, provided)
            if evaluator is not None:
                values.update(
                    ((str(m.measure), m.query_id), float(m.value))
                    for m in evaluator.iter_calc(scores)
                    if m.query_id in scores
                )
        return RunScores(run.tag, frozenset(run.scores), run.skipped_topics, values, [])

    def _evaluator(self, every: bool, measures: list[Any]) -> Any:
        """ir_measures' evaluator of ``measures``: those it computes of every measure
        (``every``), or of those without a compiled kernel."""
        if every not in self._evaluators:
            import ir_measures

            self._evaluators[every] = ir_measures.evaluator(measures, self.qrels)
        return self._evaluators[every]

    def _compiled(self, lines: JudgedLines) -> dict[tuple[str, str], float]:
        """The values of the measures with compiled kernels for the judged lines of a piece."""
        assert self.judgments is not None
        values: dict[tuple[str, str], float] = {}
        orders: dict[bool, np.ndarray] = {}
        for plan in self.compiled:
            if plan.trec not in orders:
                orders[plan.trec] = kernels.rank(
                    lines.text, lines.doc_starts, lines.doc_ends, lines.scores, lines.offsets, plan.trec
                )
            ranked, offsets = lines.grades[orders[plan.trec]], lines.offsets
            judged, ideal, ideal_offsets = lines.judged, self.judgments.ideal, self.judgments.offsets
            if plan.kind == kernels.JUDGED:
                pass  # the ranking as returned, whatever the policy (see the module)
            elif self.unjudged.policy == "condensed":
                ranked, offsets = condensed_ranks(ranked, offsets)
            elif self.unjudged.policy == "relevant":
                ranked, judged, ideal, ideal_offsets = completed_ranks(
                    ranked, offsets, judged, ideal, ideal_offsets, self.unjudged.grade
                )
            per_topic = kernels.topic_values(
                plan.kind, plan.cutoff, plan.rel, ranked, offsets, judged, ideal, ideal_offsets
            )
            name = str(plan.measure)
            values.update(((name, t), v) for t, v in zip(lines.topics, per_topic.tolist(), strict=True))
        return values


def failed(problems: list[tuple[str, str]], omitted: int = 0) -> RunScores:
    """The scores of a run (or piece) whose text has problems: the problems alone."""
    return RunScores(None, frozenset(), (), {}, problems, omitted)


def combine(path: str, results: list[RunScores], evaluator: RunEvaluator) -> RunScores:
    """One run's scores from those of its pieces (in file order).  The judged topics found in
    several pieces are evaluated again by ``evaluator`` from all their lines
    (:func:`riskeval.evaluation.run_pieces.topic_piece`), as in a file of one piece."""
    problems = Problems()
    for r in results:
        problems.extend(r.problems, r.omitted)
    if not problems and not any(r.present or r.skipped for r in results):
        problems.extend(no_run_line(path).problems)
    values: dict[tuple[str, str], float] = {}
    for r in results:
        values.update(r.values)
    counts: dict[str, int] = {}
    for r in results:
        for topic in r.present:
            counts[topic] = counts.get(topic, 0) + 1
    split = {topic for topic, count in counts.items() if count > 1}
    if split and not problems:
        whole = evaluator.piece(topic_piece(path, split))
        problems.extend(whole.problems, whole.omitted)
        values = {key: value for key, value in values.items() if key[1] not in split}
        values.update(whole.values)
    if problems:
        return failed(problems.kept, problems.omitted)
    tag = next((r.tag for r in results if r.tag is not None), None)
    present = frozenset().union(*(r.present for r in results))
    skipped = tuple(sorted(set().union(*(r.skipped for r in results))))
    return RunScores(tag, present, skipped, values, [])
