"""Per-topic evaluation of TREC runs against qrels: the score matrix every risk measure starts from.

The values are ir_measures' per-query values (its default provider for each measure: pytrec_eval for
trec_eval's measures, the MS MARCO evaluator for ``RR@k``, gdeval for ERR and
``nDCG(dcg='exp-log2')``, ...).  What this module adds is speed on many large runs and explicit
handling of topics that a run and the qrels do not share:

- runs are read as a stream of pieces of whole topics (:mod:`riskeval.io.run_pieces`); the lines of
  unjudged topics (most lines of a TREC DL run) are checked but never parsed;
- the measures that pytrec_eval or the MS MARCO evaluator compute for ir_measures are computed by
  compiled kernels (:mod:`riskeval.core.trec_measures`) from the judged lines read as arrays
  (:mod:`riskeval.io.run_arrays`), with the same values; the others by ir_measures' evaluator, built
  once per process and fed the filtered run;
- runs are evaluated in parallel processes when the input is large enough to repay starting them.

Topics judged in the qrels but absent from a run follow the ``missing`` policy (``"zero"``: score 0,
as ``trec_eval -c`` and ``gdeval -c`` do; ``"drop"``; ``"raise"``), with a warning that counts the
cells affected.  Topics of a run that the qrels do not judge are left out, with a warning that counts
them.  See ``docs/evaluation.md``.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd

from riskeval.core import trec_measures
from riskeval.errors import InputFormatError, RiskevalError, RiskevalWarning
from riskeval.io.measures import canonical_spelling, parameter_problem
from riskeval.io.memory import MemoryRun, qrels_input, run_inputs
from riskeval.io.qrels import read_qrels
from riskeval.io.run_arrays import JudgedDocuments, JudgedLines, read_judged_lines
from riskeval.io.run_pieces import PIECE_BYTES, RunPiece, contiguity_problems, run_pieces
from riskeval.io.runs import Run, parse_run, read_run
from riskeval.io.variations import read_mapping
from riskeval.model.matrix import apply_missing
from riskeval.model.variations import variations_from_scores
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

# Below this much input (bytes on disk) starting worker processes costs more than it saves.
_PARALLEL_MIN_BYTES = 8_000_000

_MEASURE_HELP = (
    "Measures are named as in ir_measures: Name@cutoff or Name(param=value)@cutoff, e.g. nDCG@10, "
    "AP(rel=2), P@10, RR(rel=2)@10, ERR@20, nDCG(dcg='exp-log2')@20 (gdeval's nDCG); trec_eval's "
    "(ndcg_cut_10, map, recip_rank) and ranx's (ndcg@10, map-l2, mrr@10) names work too; names are "
    "case-sensitive. Known names: {names}."
)


def evaluate_runs(
    qrels: Any,
    runs: Any,
    measure: Any = "nDCG@10",
    *,
    names: Any = None,
    missing: str = "zero",
    progress: bool | None = None,
    n_jobs: int | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """Evaluate TREC run files per topic: a systems × topics score matrix for one measure.

    Parameters
    ----------
    qrels : path of a TREC qrels file (plain or gzip); an ir_datasets id ``"irds:<id>"`` (qrels
        ir_datasets holds on this machine, see :mod:`riskeval.io.irds`); a DataFrame with
        PyTerrier's columns ``qid, docno, label`` or ir_measures' ``query_id, doc_id, relevance``
        (as :func:`riskeval.io.qrels.read_qrels` returns); a ranx ``Qrels``; an iterable of
        ir_measures ``Qrel`` records; or a dict ``{query_id: {doc_id: grade}}``.
    runs : paths of TREC run files (plain or gzip), or one path; or a mapping system name -> run,
        each run a path, a PyTerrier results DataFrame (``qid, docno, score``; its ``rank`` is not
        used), an ir_measures DataFrame (``query_id, doc_id, score``), a ranx ``Run``, an iterable
        of ir_measures ``ScoredDoc`` records or a dict ``{query_id: {doc_id: score}}``.  Documents
        are ranked by score, ties by document id in reverse order, as trec_eval ranks a run file,
        so a run in memory has the values of its run file (see :mod:`riskeval.io.memory`).
    measure : one measure, named as in ir_measures (``"nDCG@10"``, ``"ERR@20"``, ``"AP(rel=2)"``,
        ``"nDCG(dcg='exp-log2')@20"``, ...), trec_eval (``"ndcg_cut_10"``, ``"map"``) or ranx
        (``"ndcg@10"``, ``"map-l2"``), see :func:`riskeval.io.measures.canonical_measure`.  For
        several measures use :func:`evaluate_runs_long`.
    names : system names.  ``None``: each run's tag (the 6th field of its first line), or the keys
        of a mapping of runs; ``"file"``: the file name without ``.gz`` and without a
        ``.txt``/``.run``/``.trec``/``.res`` extension; or a list with one name per run.  Names must
        be distinct.
    missing : what to do with topics judged in the qrels but absent from a run: ``"zero"`` (score 0,
        as ``trec_eval -c`` and ``gdeval -c``), ``"drop"`` (drop the topic for every system) or
        ``"raise"`` (:class:`~riskeval.errors.MissingTopicsError`), applied by
        :func:`riskeval.apply_missing`; ``"zero"`` and ``"drop"`` warn
        (:class:`~riskeval.errors.MissingTopicsWarning`) with the number of cells affected.  Topics of
        a run that the qrels do not judge are left out with a
        :class:`~riskeval.errors.RiskevalWarning` that counts them.
    progress : show a progress bar over the runs on stderr; ``None``: only when stderr is a terminal.
    n_jobs : worker processes; ``None`` chooses: one per idle CPU (the CPUs other processes leave
        idle, measured over 0.05 s; at most one per run) when the runs total 8 MB or more, else none.
    client : a ``dask.distributed.Client``: the runs are evaluated as tasks on its cluster (``n_jobs``
        is then unused), a run of more than 4 MiB on disk split into pieces of whole topics (see
        :mod:`riskeval.io.run_pieces`); the workers must see the run files at the same paths.  The
        values are those of the local evaluation.  See ``docs/scale.md``.

    Returns
    -------
    DataFrame, index ``"system"`` (run order), columns ``"topic"`` (judged topics, in numeric order
    when all are integers), float64 values equal to ir_measures' per-query values.

    Raises
    ------
    InputFormatError
        Every malformed line and repeated document of every input file at once (``file:line``).
    RiskevalError
        An unknown measure, bad ``names`` or duplicate system names.
    MissingTopicsError
        ``missing="raise"`` and a run lacks judged topics.

    Examples
    --------
    >>> import riskeval as rk
    >>> M = rk.evaluate_runs("qrels.txt", ["a.run", "b.run.gz"], measure="ERR@20")  # doctest: +SKIP
    """
    if not isinstance(measure, str) and _is_sequence(measure):
        raise RiskevalError(
            "The 'measure' parameter of evaluate_runs takes one measure; got "
            f"{list(measure)!r}. Use riskeval.evaluate_runs_long for several measures."
        )
    scores = _evaluate(qrels, runs, [measure], names, missing, progress, n_jobs, client)
    return scores.matrices[0]


def evaluate_runs_long(
    qrels: Any,
    runs: Any,
    measures: Any = ("nDCG@10",),
    *,
    names: Any = None,
    missing: str = "zero",
    progress: bool | None = None,
    n_jobs: int | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """Evaluate TREC run files per topic for several measures: a tidy long table.

    Same parameters as :func:`evaluate_runs`, with ``measures`` a list of measure names (or one).

    Returns
    -------
    DataFrame with columns ``system, topic, measure, score``, one row per (measure, system, topic),
    ordered by measure (as given), system (run order) and topic.  ``measure`` is ir_measures'
    canonical spelling of the measure.  The missing-topic policy is applied once, to all measures.
    """
    wanted = [measures] if isinstance(measures, str) or not _is_sequence(measures) else list(measures)
    scores = _evaluate(qrels, runs, wanted, names, missing, progress, n_jobs, client)
    parts = []
    for name, M in zip(scores.measures, scores.matrices, strict=True):
        part = M.stack().rename("score").reset_index()
        part.insert(2, "measure", name)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


class _Scores(NamedTuple):
    measures: list[str]
    matrices: list[pd.DataFrame]


class _RunScores(NamedTuple):
    """What evaluating one run file yields (small: it crosses process boundaries)."""

    tag: str | None
    present: frozenset[str]  # judged topics the run has
    skipped: tuple[str, ...]  # topics of the run that the qrels do not judge
    values: dict[tuple[str, str], float]  # (measure, topic) -> ir_measures' value
    problems: list[tuple[str, str]]


def _evaluate(
    qrels: Any,
    runs: Any,
    measures: list[Any],
    names: Any,
    missing: str,
    progress: bool | None,
    n_jobs: int | None,
    client: Any = None,
) -> _Scores:
    policy = cast(MissingPolicy, check_option(missing, MISSING_POLICIES, "evaluate_runs", "missing"))
    sources, names = run_inputs(runs, names)  # run file paths and runs given in memory
    paths = [s for s in sources if isinstance(s, str)]
    if not sources:
        raise RiskevalError("The 'runs' parameter of evaluate_runs must list at least one run file.")
    if not measures:
        raise RiskevalError("The 'measures' parameter of evaluate_runs_long must name at least one measure.")
    parsed = parse_measures(measures)
    qrels_dict = _qrels_dict(qrels)
    warm_up = _load_kernels if any(_compiled(m) for m in parsed) else None
    workers = 1 if client is not None else _workers(n_jobs, paths, warm_up)
    from_files = iter(list(_run_all(paths, qrels_dict, parsed, progress, workers, client)))
    in_memory = [s for s in sources if not isinstance(s, str)]
    from_memory = iter(_evaluate_in_memory(in_memory, qrels_dict, parsed))
    results = [next(from_files) if isinstance(s, str) else next(from_memory) for s in sources]
    problems = [p for r in results for p in r.problems]
    if problems:
        raise InputFormatError(problems)
    labels = [s if isinstance(s, str) else s.label for s in sources]
    systems = _system_names(names, labels, [r.tag for r in results])
    topics = sorted(qrels_dict, key=_topic_key)
    _warn_unjudged(systems, results)
    present = pd.DataFrame(
        [[t in r.present for t in topics] for r in results],
        index=pd.Index(systems, name="system"),
        columns=pd.Index(topics, name="topic"),
    )
    presence = present.astype(np.float64).where(present)  # NaN: a judged topic the run lacks
    kept = apply_missing(presence, policy, source="the runs (judged topics absent from a run)").columns
    matrices = []
    for m in parsed:
        values = [[r.values.get((str(m), t), m.DEFAULT) for t in kept] for r in results]
        matrices.append(
            pd.DataFrame(
                np.asarray(values, dtype=np.float64).reshape(len(systems), -1),
                index=present.index,
                columns=kept,
            )
        )
    return _Scores([str(m) for m in parsed], matrices)


def parse_measures(measures: Sequence[Any]) -> list[Any]:
    """ir_measures ``Measure`` objects for the given names, checked to be computable here.

    The parameters are checked before any evaluator sees them
    (:func:`riskeval.io.measures.parameter_problem`: a cutoff is a whole number >= 1, ...).

    Raises :class:`~riskeval.errors.RiskevalError` naming every measure that cannot be parsed or has
    no available ir_measures provider, with how measures are spelled.
    """
    import ir_measures

    parsed, problems = [], []
    for spec in measures:
        try:
            measure = ir_measures.parse_measure(canonical_spelling(spec))
            invalid = parameter_problem(measure)  # before any evaluator sees them
            if invalid is not None:
                problems.append(f"unknown or unsupported measure {str(spec)!r}: {invalid}")
                continue
            ir_measures.evaluator([measure], {"q": {"d": 1}})
        except (
            ValueError,
            NameError,
            KeyError,
            TypeError,
            AssertionError,
            SyntaxError,
            RecursionError,
        ) as exc:
            problems.append(_measure_problem(spec, exc, list(ir_measures.measures.registry)))
            continue
        if measure not in parsed:
            parsed.append(measure)
    if problems:
        known = ", ".join(sorted(ir_measures.measures.registry))
        raise RiskevalError("\n".join([*problems, _MEASURE_HELP.format(names=known)]))
    return parsed


def _measure_problem(spec: Any, exc: Exception, known: list[str]) -> str:
    if isinstance(exc, NameError):
        name = re.split(r"[(@]", str(spec), maxsplit=1)[0].strip()
        close = [k for k in known if k.lower() == name.lower()]
        if not close:
            lowered = difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=3)
            close = [k for k in known if k.lower() in lowered]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return f"unknown measure {spec!r}: no measure is called {name!r}{hint}"
    if isinstance(exc, KeyError):
        return f"unknown measure {spec!r}: the measure has no parameter {exc.args[0]!r}"
    return f"unknown or unsupported measure {spec!r}: {exc}"


def _qrels_dict(qrels: Any) -> dict[str, dict[str, int]]:
    """Qrels as ir_measures' dict of dicts, with Python ints as grades.

    Negative grades (TREC Web's -2 for spam) are handed to the evaluators as 0, judged not
    relevant: pytrec_eval, which computes trec_eval's measures, corrupts memory (and crashes the
    process) on negative grades, and every measure already treats grades <= 0 as not relevant
    (gdeval's ERR and nDCG give the same values either way).
    """
    qrels = qrels_input(qrels)  # qrels given in memory or by ir_datasets id: a DataFrame
    if isinstance(qrels, (str, os.PathLike)):
        frame = read_qrels(qrels)
    elif isinstance(qrels, pd.DataFrame):
        need = {"query_id", "doc_id", "relevance"}
        if not need <= set(qrels.columns):
            raise RiskevalError(
                "The 'qrels' parameter of evaluate_runs must be a qrels file or a DataFrame with "
                f"columns {sorted(need)}; got columns {list(qrels.columns)}."
            )
        dup = qrels.duplicated(["query_id", "doc_id"])
        if dup.any():
            first = qrels.loc[dup, ["query_id", "doc_id"]].iloc[0].tolist()
            raise RiskevalError(
                f"The qrels DataFrame judges {int(dup.sum())} (query_id, doc_id) pair(s) twice, e.g. "
                f"{tuple(first)}; each document needs one grade per topic."
            )
        if not pd.api.types.is_integer_dtype(qrels["relevance"]):
            raise RiskevalError(
                "The 'relevance' column of the qrels DataFrame must hold integer grades; got dtype "
                f"{qrels['relevance'].dtype}."
            )
        frame = qrels
    else:
        raise RiskevalError(
            "The 'qrels' parameter of evaluate_runs must be a path or a DataFrame; got "
            f"{type(qrels).__name__}."
        )
    result: dict[str, dict[str, int]] = {}
    for qid, doc, grade in zip(
        frame["query_id"].astype(str).tolist(),
        frame["doc_id"].astype(str).tolist(),
        frame["relevance"].astype(np.int64).tolist(),
        strict=True,
    ):
        result.setdefault(qid, {})[doc] = grade if grade > 0 else 0
    if not result:
        raise RiskevalError("The qrels hold no judgments.")
    return result


class _Compiled(NamedTuple):
    """A measure that :mod:`riskeval.core.trec_measures` computes as ir_measures' provider does."""

    measure: Any
    kind: int
    cutoff: int  # 0: none
    rel: int
    trec: bool  # ranked as pytrec_eval ranks, else as the MS MARCO evaluator


def _compiled(measure: Any) -> _Compiled | None:
    """How to compute ``measure`` with the compiled kernels, or ``None``: the measure has a
    parameter they do not implement, or ir_measures computes it with another provider than
    pytrec_eval (trec_eval's measures) or, for ``RR@k``, the MS MARCO evaluator."""
    import ir_measures
    from ir_measures.providers.base import NOT_PROVIDED

    kinds = {
        "nDCG": trec_measures.NDCG,
        "AP": trec_measures.AP,
        "P": trec_measures.PRECISION,
        "R": trec_measures.RECALL,
        "RR": trec_measures.RR,
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
    provider = next(
        (p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(measure) and p.is_available()),
        None,
    )
    expected = "msmarco" if measure.NAME == "RR" and cutoff else "pytrec_eval"
    if provider != expected:
        return None
    return _Compiled(measure, kinds[measure.NAME], cutoff, rel, expected == "pytrec_eval")


class _RunEvaluator:
    """The evaluator of one process for the qrels and measures, built once per process.

    Measures that :mod:`riskeval.core.trec_measures` implements are computed by its kernels from
    the run's text read by :func:`riskeval.io.run_arrays.read_judged_lines`; the others, and every
    run whose text has a problem to report, by ir_measures' evaluator (built when first needed)."""

    def __init__(self, qrels: dict[str, dict[str, int]], measures: list[Any]):
        self.topics = frozenset(qrels)
        self.qrels = qrels
        self.measures = measures
        plans = [_compiled(m) for m in measures]
        self.compiled = [p for p in plans if p is not None]
        self.others = [m for m, p in zip(measures, plans, strict=True) if p is None]
        self.judgments = JudgedDocuments.from_qrels(qrels) if self.compiled else None
        self._evaluators: dict[bool, Any] = {}
        self.lock = threading.Lock()  # one evaluation at a time (Dask workers run tasks in threads)

    def __call__(self, path: str) -> _RunScores:
        """Evaluate a run file piece by piece: memory is bounded by the piece size, not the run's."""
        results: list[_RunScores] = []
        lines: list[int] = []
        try:
            for piece in run_pieces(path, _PIECE_BYTES):
                results.append(self.piece(piece))
                lines.append(piece.first_line)
        except InputFormatError as exc:
            results.append(_failed(exc.problems))
            lines.append(0)
        except OSError as exc:
            return _failed([(path, f"cannot read: {exc.strerror or exc}")])
        return _combine(path, results, lines)

    def piece(self, piece: RunPiece) -> _RunScores:
        """Evaluate the topics of one piece of a run file."""
        judged = read_judged_lines(piece.data, self.judgments) if self.judgments is not None else None
        if judged is not None and not self.others:
            return _RunScores(
                judged.tag, frozenset(judged.topics), tuple(judged.skipped), self._compiled(judged), []
            )
        try:
            run = parse_run(piece.data, piece.location, topics=self.topics, first_line=piece.first_line)
        except InputFormatError as exc:
            return _failed(exc.problems)
        if judged is None:
            return self.evaluate(run)
        scores = self.evaluate(run, every=False)
        scores.values.update(self._compiled(judged))
        return scores

    def evaluate(self, run: Run, *, every: bool = True) -> _RunScores:
        """Evaluate a run read (or given in memory) and restricted to the judged topics, with
        ir_measures: every measure, or (``every=False``) those without a compiled kernel."""
        with self.lock:
            values = {
                (str(m.measure), m.query_id): float(m.value)
                for m in self._evaluator(every).iter_calc(run.scores)
                if m.query_id in run.scores
            }
        return _RunScores(run.tag, frozenset(run.scores), run.skipped_topics, values, [])

    def _evaluator(self, every: bool) -> Any:
        """ir_measures' evaluator for every measure, or for those without a compiled kernel."""
        if every not in self._evaluators:
            import ir_measures

            self._evaluators[every] = ir_measures.evaluator(
                self.measures if every else self.others, self.qrels
            )
        return self._evaluators[every]

    def _compiled(self, lines: JudgedLines) -> dict[tuple[str, str], float]:
        """The values of the measures with compiled kernels for the judged lines of a piece."""
        assert self.judgments is not None
        values: dict[tuple[str, str], float] = {}
        orders: dict[bool, np.ndarray] = {}
        for plan in self.compiled:
            if plan.trec not in orders:
                orders[plan.trec] = trec_measures.rank(
                    lines.text, lines.doc_starts, lines.doc_ends, lines.scores, lines.offsets, plan.trec
                )
            per_topic = trec_measures.topic_values(
                plan.kind,
                plan.cutoff,
                plan.rel,
                lines.grades[orders[plan.trec]],
                lines.offsets,
                lines.judged,
                self.judgments.ideal,
                self.judgments.offsets,
            )
            name = str(plan.measure)
            values.update(((name, t), v) for t, v in zip(lines.topics, per_topic.tolist(), strict=True))
        return values


#: Text bytes per piece of a run (:mod:`riskeval.io.run_pieces`); with a Dask client, a run file of
#: more than a quarter of this on disk (compressed text is about four times smaller) is split into
#: pieces evaluated as separate tasks.
_PIECE_BYTES = PIECE_BYTES


def _failed(problems: list[tuple[str, str]]) -> _RunScores:
    return _RunScores(None, frozenset(), (), {}, problems)


def _combine(path: str, results: list[_RunScores], first_lines: list[int]) -> _RunScores:
    """One run's scores from those of its pieces (in file order); a topic found in two pieces is a
    problem (:func:`riskeval.io.run_pieces.contiguity_problems`)."""
    problems = [p for r in results for p in r.problems]
    if not problems and len(results) > 1:
        topics = [r.present | frozenset(r.skipped) for r in results]
        problems = contiguity_problems(path, topics, first_lines)
    if not problems and not any(r.present or r.skipped for r in results):
        try:
            read_run(path)  # a file without any run line: its message
        except InputFormatError as exc:
            problems = exc.problems
    if problems:
        return _failed(problems)
    values: dict[tuple[str, str], float] = {}
    for r in results:
        values.update(r.values)
    tag = next((r.tag for r in results if r.tag is not None), None)
    present = frozenset().union(*(r.present for r in results))
    skipped = tuple(sorted(set().union(*(r.skipped for r in results))))
    return _RunScores(tag, present, skipped, values, problems)


def _evaluate_in_memory(
    runs: list[MemoryRun], qrels: dict[str, dict[str, int]], measures: list[Any]
) -> list[_RunScores]:
    """Evaluate the runs given in memory, in order, restricted to the judged topics."""
    if not runs:
        return []
    evaluator = _RunEvaluator(qrels, measures)
    return [evaluator.evaluate(run.restrict(evaluator.topics)) for run in runs]


def _load_kernels() -> None:
    """Load (or compile) the compiled kernels of evaluation by evaluating a one-line run."""
    _RunEvaluator({"q": {"d": 1}}, parse_measures(["nDCG@10", "RR@10"])).piece(
        RunPiece("", 1, b"q 0 d 1 1 t\n")
    )


_worker: _RunEvaluator | None = None


def _init_worker(qrels: dict[str, dict[str, int]], measures: list[Any]) -> None:
    global _worker
    _worker = _RunEvaluator(qrels, measures)


def _evaluate_in_worker(path: str) -> _RunScores:
    return _worker(path)  # type: ignore[misc]  # set by _init_worker in every worker


def _run_all(
    paths: list[str],
    qrels: dict[str, dict[str, int]],
    measures: list[Any],
    progress: bool | None,
    workers: int,
    client: Any = None,
) -> Iterator[_RunScores]:
    """Evaluate every run, in order, with a progress bar over runs."""
    from tqdm import tqdm

    show = sys.stderr.isatty() if progress is None else bool(progress)
    with tqdm(total=len(paths), desc="evaluating runs", unit="run", disable=not show) as bar:
        if client is not None:
            for result in _run_on_cluster(client, paths, qrels, measures):
                yield result
                bar.update()
            return
        if workers <= 1:
            evaluate = _RunEvaluator(qrels, measures)
            for path in paths:
                yield evaluate(path)
                bar.update()
            return
        # the largest runs first, so that no worker is left with a large run at the end
        order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
        results: list[_RunScores | None] = [None] * len(paths)
        with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(qrels, measures)) as pool:
            done = pool.map(_evaluate_in_worker, [paths[i] for i in order])
            for i, result in zip(order, done, strict=True):
                results[i] = result
                bar.update()
        yield from cast(list[_RunScores], results)


def _size(path: str) -> int:
    return os.path.getsize(path) if os.path.isfile(path) else 0


def _run_on_cluster(
    client: Any, paths: list[str], qrels: dict[str, dict[str, int]], measures: list[Any]
) -> Iterator[_RunScores]:
    """Evaluate the runs as tasks of a ``dask.distributed.Client``, in order.

    The qrels and measures go to every worker once; each worker builds its evaluator once.  A run of
    at most a quarter of the piece size on disk is one task that reads the file; a larger run is
    read here as a stream and cut into pieces of whole topics, each a task, with at most two pieces
    per worker thread waiting or running, so that memory stays bounded.
    """
    [setup] = client.scatter([(qrels, measures)], broadcast=True)
    in_flight = max(2, 2 * sum(client.nthreads().values()))
    planned: list[tuple[str, list[Any], list[int]]] = []
    pending: list[Any] = []
    for path in paths:
        if not os.path.isfile(path) or os.path.getsize(path) <= _PIECE_BYTES // 4:
            planned.append((path, [client.submit(_evaluate_run_task, setup, path, pure=False)], []))
            continue
        futures: list[Any] = []
        lines: list[int] = []
        try:
            for piece in run_pieces(path, _PIECE_BYTES):
                while sum(not f.done() for f in pending) >= in_flight:
                    next(f for f in pending if not f.done()).result()
                [data] = client.scatter([piece])
                futures.append(client.submit(_evaluate_piece_task, setup, data, pure=False))
                lines.append(piece.first_line)
                pending = [f for f in pending if not f.done()] + [futures[-1]]
        except (InputFormatError, OSError) as exc:
            problems = exc.problems if isinstance(exc, InputFormatError) else [(path, f"cannot read: {exc}")]
            futures.append(client.submit(_failed, problems, pure=False))
            lines.append(0)
        planned.append((path, futures, lines))
    for path, futures, lines in planned:
        results = client.gather(futures)
        yield results[0] if not lines else _combine(path, results, lines)


_cached: tuple[Any, _RunEvaluator] | None = None
_cache_lock = threading.Lock()


def _evaluator_for(setup: tuple[dict[str, dict[str, int]], list[Any]]) -> _RunEvaluator:
    """The evaluator of a Dask worker for the qrels and measures scattered to it (built once)."""
    global _cached
    with _cache_lock:
        if _cached is None or _cached[0] is not setup:
            _cached = (setup, _RunEvaluator(*setup))
        return _cached[1]


def _evaluate_run_task(setup: tuple[dict[str, dict[str, int]], list[Any]], path: str) -> _RunScores:
    return _evaluator_for(setup)(path)


def _evaluate_piece_task(setup: tuple[dict[str, dict[str, int]], list[Any]], piece: RunPiece) -> _RunScores:
    return _evaluator_for(setup).piece(piece)


def _workers(n_jobs: int | None, paths: list[str], warm_up: Callable[[], None] | None = None) -> int:
    """Worker processes for the runs; ``warm_up`` (loading the compiled kernels, which forked
    workers inherit) runs here first, while the machine's idle CPUs are measured."""
    if n_jobs is not None:
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
            raise RiskevalError(
                f"The 'n_jobs' parameter of evaluate_runs must be an integer >= 1 or None. Got {n_jobs!r}."
            )
        if n_jobs > 1 and len(paths) > 1 and warm_up is not None:
            warm_up()
        return min(n_jobs, len(paths))
    size = sum(_size(p) for p in paths)
    if len(paths) < 2 or size < _PARALLEL_MIN_BYTES:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    # CPUs that other work leaves idle: on a busy machine more processes only compete for them
    return max(1, min(cpus, _idle_cpus(cpus, warm_up), len(paths)))


def _idle_cpus(cpus: int, during: Callable[[], None] | None = None, interval: float = 0.05) -> int:
    """How many CPUs other processes leave idle now: the idle share of the machine's CPU time
    (``/proc/stat``) over at least ``interval`` seconds, while ``during`` runs, adding back the CPU
    time this process spends meanwhile (its own work does not count, as it would in the load
    average); else CPUs less the 1-minute load average."""
    try:
        before, own = _cpu_times(), time.process_time()
    except (OSError, ValueError, IndexError):
        before = None
    start = time.monotonic()
    if during is not None:
        during()
    if before is None:
        busy = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        return int(cpus - busy + 0.5)
    time.sleep(max(0.0, interval - (time.monotonic() - start)))
    after, own = _cpu_times(), time.process_time() - own
    total = sum(after) - sum(before)
    # idle and iowait ticks, and the ticks this process used
    idle = (after[3] + after[4]) - (before[3] + before[4]) + own * os.sysconf("SC_CLK_TCK")
    machine = os.cpu_count() or cpus
    return int(machine * min(1.0, idle / total) + 0.5) if total > 0 else cpus


def _cpu_times() -> list[int]:
    """The machine's CPU time by state (``/proc/stat``'s ``cpu`` line: user, nice, system, idle,
    iowait, ...), in clock ticks."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    if fields[0] != "cpu":
        raise ValueError("/proc/stat does not start with the cpu line")
    return [int(f) for f in fields[1:]]


_RUN_SUFFIXES = (".txt", ".run", ".trec", ".res", ".tsv")


def _run_name_from_file(path: str) -> str:
    """A system name from a run's file name: without ``.gz`` and a usual run-file extension."""
    name = os.path.basename(path)
    name = name.removesuffix(".gz")
    for suffix in _RUN_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _system_names(names: Any, paths: list[str], tags: list[str | None]) -> list[str]:
    if names is None:
        untagged = [p for p, t in zip(paths, tags, strict=True) if t is None]
        if untagged:
            raise RiskevalError(
                f"Cannot name the run(s) {untagged}: no run tag (6th field) on the first line, or no "
                "line at all. Name the runs with names=[...] (command line: --name), or names='file'."
            )
        systems = [str(t) for t in tags]
    elif isinstance(names, str):
        if names != "file":
            raise RiskevalError(
                "The 'names' parameter of evaluate_runs must be None (run tags), 'file' (file names) "
                f"or a list of names, one per run. Got {names!r}."
            )
        systems = [_run_name_from_file(p) for p in paths]
    else:
        systems = [str(n) for n in names]
        if len(systems) != len(paths):
            raise RiskevalError(
                f"The 'names' parameter of evaluate_runs must give one name per run: got "
                f"{len(systems)} name(s) for {len(paths)} run(s)."
            )
    clashes = pd.Series(paths).groupby(systems, sort=False).agg(list)
    clashes = clashes[clashes.map(len) > 1]
    if len(clashes):
        listed = "; ".join(f"{name!r}: {', '.join(files)}" for name, files in clashes.items())
        raise RiskevalError(
            f"Several runs have the same system name ({listed}). Name them with names=[...] "
            "(command line: --name, once per run) or names='file' (command line: --name-from file)."
        )
    return systems


def _warn_unjudged(systems: list[str], results: list[_RunScores]) -> None:
    counts = {s: len(r.skipped) for s, r in zip(systems, results, strict=True) if r.skipped}
    if not counts:
        return
    topics = sorted({t for r in results for t in r.skipped}, key=_topic_key)
    runs = ", ".join(f"{s} has {n}" for s, n in list(counts.items())[:5])
    more = f", ... ({len(counts)} runs)" if len(counts) > 5 else ""
    warnings.warn(
        f"{sum(counts.values())} (run, topic) pair(s) left out: {len(topics)} topic(s) of the runs "
        f"have no judgments in the qrels ({runs}{more}; e.g. topics {', '.join(topics[:5])}).",
        RiskevalWarning,
        stacklevel=4,
    )


def _topic_key(topic: str) -> tuple[int, int, str, str]:
    """Numeric order for topic ids of ASCII digits (any length), then the others in string order.

    ``str.isdigit`` is also true of superscripts (``'¹'``) and other scripts' digits, which ``int``
    may refuse: only ASCII digits are numbers here.
    """
    if topic.isascii() and topic.isdigit():
        significant = topic.lstrip("0")
        return (0, len(significant), significant, topic)
    return (1, 0, topic, "")


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, pd.Index, np.ndarray, pd.Series))


def variations_from_runs(
    qrels,
    runs,
    mapping: str | Path | pd.DataFrame,
    *,
    measure: str = "P@10",
    names=None,
    missing: str = "zero",
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Tidy variation table from TREC runs over the query variants, qrels per query, and a mapping.

    The runs are evaluated per query by :func:`riskeval.evaluate_runs` (``measure``, ``names``,
    ``missing`` and ``n_jobs`` are its parameters; ``measure`` an ir_measures name such as
    ``"P@10"`` or ``"AP"``), then mapped as by :func:`riskeval.variations_from_scores`.
    """
    matrix = evaluate_runs(qrels, runs, measure, names=names, missing=missing, n_jobs=n_jobs)
    return variations_from_scores(
        matrix, mapping if isinstance(mapping, pd.DataFrame) else read_mapping(mapping)
    )
