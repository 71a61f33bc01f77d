"""Per-topic evaluation of TREC runs against qrels: the score matrix every risk measure starts from.

The values are ir_measures' per-query values (its default provider for each measure: pytrec_eval for
trec_eval's measures, the MS MARCO evaluator for ``RR@k``, gdeval for ERR and
``nDCG(dcg='exp-log2')``, ...), computed by the engine of :mod:`riskeval.evaluation.engine` in this
process, in worker processes or on a Dask cluster (:mod:`riskeval.evaluation.executors`).

Topics judged in the qrels but absent from a run follow the ``missing`` policy (``"zero"``: score 0,
as ``trec_eval -c`` and ``gdeval -c`` do; ``"drop"``; ``"raise"``), with a warning that counts the
cells affected.  Topics of a run that the qrels do not judge are left out, with a warning that counts
them.  See ``docs/evaluation.md``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from riskeval.errors import InputFormatError, RiskevalError, RiskevalWarning
from riskeval.evaluation.engine import ENGINES, RunEvaluator, RunScores, engine_for
from riskeval.evaluation.executors import evaluate_files
from riskeval.evaluation.inputs import qrels_dict, run_inputs
from riskeval.evaluation.measures import parse_measures
from riskeval.evaluation.unjudged import Unjudged
from riskeval.io.system_names import system_name_from_file
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option, check_unjudged

if TYPE_CHECKING:
    import pandas as pd


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
    engine: str = "compiled",
    unjudged: str = "nonrelevant",
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
        so a run in memory has the values of its run file (see :mod:`riskeval.evaluation.inputs`).
    measure : one measure, named as in ir_measures (``"nDCG@10"``, ``"ERR@20"``, ``"AP(rel=2)"``,
        ``"nDCG(dcg='exp-log2')@20"``, ...), trec_eval (``"ndcg_cut_10"``, ``"map"``) or ranx
        (``"ndcg@10"``, ``"map-l2"``), see :func:`riskeval.io.measures.canonical_measure`.  For
        several measures use :func:`evaluate_runs_long`.
    names : system names.  ``None``: each run's tag (the 6th field of its first line), or the keys
        of a mapping of runs; ``"file"``: the file name without ``.gz`` and a run-file extension
        (:func:`riskeval.io.system_names.system_name_from_file`); or a list with one name per run.  Names must
        be distinct.
    missing : what to do with topics judged in the qrels but absent from a run: ``"zero"`` (score 0,
        as ``trec_eval -c`` and ``gdeval -c``), ``"drop"`` (drop the topic for every system) or
        ``"raise"`` (:class:`~riskeval.errors.MissingTopicsError`), applied by
        :func:`riskeval.io.apply_missing`; ``"zero"`` and ``"drop"`` warn
        (:class:`~riskeval.errors.MissingTopicsWarning`) with the number of cells affected.  Topics of
        a run that the qrels do not judge are left out with a
        :class:`~riskeval.errors.RiskevalWarning` that counts them.
    progress : show a progress bar over the runs on stderr; ``None``: only when stderr is a terminal.
    n_jobs : worker processes for the run files, at most one per run.  ``None``: the CPUs this
        process may use, or none (this process evaluates every run) when the run files total less
        than 256 MB on disk.  The processes are started with ``spawn``
        (:mod:`riskeval.evaluation.executors`).  The values do not depend on ``n_jobs``.
    client : a ``dask.distributed.Client`` (see :func:`riskeval.distributed.cluster`): the runs are
        evaluated as tasks on its cluster (``n_jobs`` is then unused), a run of more than 4 MiB on
        disk split into pieces of whole topics (see :mod:`riskeval.evaluation.run_pieces`); the
        workers must see the run files at the same paths.  The values are those of the local
        evaluation.  See ``docs/scale.md``.
    engine : ``"compiled"`` (default): the measures of trec_eval that ir_measures computes with
        pytrec_eval, ``RR@k`` and ``Judged@k``, by compiled kernels equal to ir_measures bit for
        bit, the others by ir_measures; ``"ir_measures"``: every measure by ir_measures' evaluator
        but ``Judged@k``, which riskeval counts (the same values, slower).  See
        :mod:`riskeval.evaluation.engine`.
    unjudged : what a retrieved document that the qrels do not judge (absent from its topic's
        qrels, or with a negative grade) counts as: ``"nonrelevant"`` (default, trec_eval's
        default), ``"condensed"`` (removed from the run before scoring, as ``trec_eval -J``:
        Sakai's condensed lists, SIGIR 2007), ``"relevant"`` (relevant at grade 1) or
        ``"relevant=G"`` (at grade ``G``, in the ideal ranking and the count of relevant documents
        too).  Both engines give the same values.  See :mod:`riskeval.evaluation.unjudged`.

    Returns
    -------
    DataFrame
        Index ``"system"`` (run order), columns ``"topic"`` (judged topics, in numeric order when
        all are integers), float64 values equal to ir_measures' per-query values.

    Raises
    ------
    InputFormatError
        Every malformed line and repeated document of every input file at once (``file:line``).
    RiskevalError
        An unknown measure or engine, bad ``names`` or duplicate system names.
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
            f"{list(measure)!r}. Use riskeval.io.evaluate_runs_long for several measures."
        )
    scores = per_topic_scores(
        qrels,
        runs,
        [measure],
        names=names,
        missing=missing,
        progress=progress,
        n_jobs=n_jobs,
        client=client,
        engine=engine,
        unjudged=unjudged,
    )
    return scores.matrix(0)


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
    engine: str = "compiled",
    unjudged: str = "nonrelevant",
) -> pd.DataFrame:
    """Evaluate TREC run files per topic for several measures: a tidy long table.

    Same parameters as :func:`evaluate_runs`, with ``measures`` a list of measure names (or one).

    Returns
    -------
    DataFrame
        Columns ``system, topic, measure, score``, one row per (measure, system, topic), ordered by
        measure (as given), system (run order) and topic.  ``measure`` is ir_measures' canonical
        spelling of the measure.  The missing-topic policy is applied once, to all measures.
    """
    wanted = [measures] if isinstance(measures, str) or not _is_sequence(measures) else list(measures)
    scores = per_topic_scores(
        qrels,
        runs,
        wanted,
        names=names,
        missing=missing,
        progress=progress,
        n_jobs=n_jobs,
        client=client,
        engine=engine,
        unjudged=unjudged,
    )
    return scores.long_frame()


#: The columns of :func:`evaluate_runs_long`'s table, in order.
LONG_COLUMNS = ("system", "topic", "measure", "score")


class Scores(NamedTuple):
    """Per-topic values of runs: ``values[m, s, t]`` is measure ``measures[m]`` of system
    ``systems[s]`` on topic ``topics[t]`` (the topics kept by the missing-topic policy)."""

    measures: list[str]
    systems: list[str]
    topics: list[str]
    values: np.ndarray  # float64, measures × systems × topics

    def matrix(self, m: int) -> pd.DataFrame:
        """The systems × topics frame of measure ``m`` (:func:`evaluate_runs`)."""
        import pandas as pd

        return pd.DataFrame(
            self.values[m],
            index=pd.Index(self.systems, name="system"),
            columns=pd.Index(self.topics, name="topic"),
        )

    def long_frame(self) -> pd.DataFrame:
        """The long table of :func:`evaluate_runs_long`."""
        import pandas as pd

        parts = []
        for m, name in enumerate(self.measures):
            part = self.matrix(m).stack().rename("score").reset_index()
            part.insert(2, "measure", name)
            parts.append(part)
        return pd.concat(parts, ignore_index=True)

    def long_rows(self) -> Iterator[tuple[str, str, str, float]]:
        """The rows of :meth:`long_frame` (columns :data:`LONG_COLUMNS`), without pandas."""
        for name, matrix in zip(self.measures, self.values.tolist(), strict=True):
            for system, row in zip(self.systems, matrix, strict=True):
                yield from (
                    (system, topic, name, value) for topic, value in zip(self.topics, row, strict=True)
                )


def per_topic_scores(
    qrels: Any,
    runs: Any,
    measures: list[Any],
    *,
    names: Any = None,
    missing: str = "zero",
    progress: bool | None = None,
    n_jobs: int | None = None,
    client: Any = None,
    engine: str = "compiled",
    unjudged: str = "nonrelevant",
) -> Scores:
    """The evaluation of :func:`evaluate_runs_long` (same parameters, ``measures`` a list) as
    :class:`Scores`, without pandas for run files and qrels files under 8 MB
    (:data:`riskeval.io.qrels.COMPILED_BYTES`): it is imported only for inputs given as
    DataFrames, larger qrels, or when a DataFrame is asked of the result."""
    policy = cast(MissingPolicy, check_option(missing, MISSING_POLICIES, "evaluate_runs", "missing"))
    treated = Unjudged(*check_unjudged(unjudged, "evaluate_runs"))
    check_option(engine, ENGINES, "evaluate_runs", "engine")
    sources, names = run_inputs(runs, names)  # run file paths and runs given in memory
    if not sources:
        raise RiskevalError("The 'runs' parameter of evaluate_runs must list at least one run file.")
    if not measures:
        raise RiskevalError("The 'measures' parameter of evaluate_runs_long must name at least one measure.")
    parsed = parse_measures(measures)
    paths = [s for s in sources if isinstance(s, str)]
    evaluator = RunEvaluator(
        qrels_dict(qrels, negative_unjudged=treated.policy != "nonrelevant"),
        parsed,
        engine_for(engine, paths),
        unjudged=treated,
    )
    from_files = iter(evaluate_files(evaluator, paths, progress, n_jobs, client))
    results = [
        next(from_files) if isinstance(s, str) else evaluator.evaluate(s.restrict(evaluator.topics))
        for s in sources
    ]
    problems = [p for r in results for p in r.problems]
    if problems:
        raise InputFormatError(problems, omitted=sum(r.omitted for r in results))
    labels = [s if isinstance(s, str) else s.label for s in sources]
    systems = _system_names(names, labels, [r.tag for r in results])
    topics = sorted(evaluator.topics, key=_topic_key)
    if not any(r.present for r in results):
        _no_common_topic(qrels, labels, topics, results)
    _warn_unjudged(systems, results)
    present = [[t in r.present for t in topics] for r in results]
    kept = topics if all(map(all, present)) else _kept_topics(present, systems, topics, policy)
    measure_names = [str(m) for m in parsed]
    values = [
        [[r.values.get((name, t), m.DEFAULT) for t in kept] for r in results]
        for name, m in zip(measure_names, parsed, strict=True)
    ]
    shape = (len(parsed), len(systems), len(kept))
    return Scores(measure_names, systems, kept, np.asarray(values, dtype=np.float64).reshape(shape))


def _kept_topics(
    present: list[list[bool]], systems: list[str], topics: list[str], policy: MissingPolicy
) -> list[str]:
    """The topics kept by the missing-topic policy when runs lack judged topics (``present``:
    systems × topics), with its warning or error (:func:`riskeval.model.matrix.kept_topics`)."""
    from riskeval.model.matrix import kept_topics

    source = "the runs (judged topics absent from a run)"
    kept = kept_topics(~np.asarray(present, dtype=bool), systems, topics, policy, source)
    return [t for t, keep in zip(topics, kept.tolist(), strict=True) if keep]


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
        systems = [system_name_from_file(p) for p in paths]
    else:
        systems = [str(n) for n in names]
        if len(systems) != len(paths):
            raise RiskevalError(
                f"The 'names' parameter of evaluate_runs must give one name per run: got "
                f"{len(systems)} name(s) for {len(paths)} run(s)."
            )
    files: dict[str, list[str]] = {}
    for name, path in zip(systems, paths, strict=True):
        files.setdefault(name, []).append(path)
    clashes = {name: given for name, given in files.items() if len(given) > 1}
    if clashes:
        listed = "; ".join(f"{name!r}: {', '.join(given)}" for name, given in clashes.items())
        raise RiskevalError(
            f"Several runs have the same system name ({listed}). Name them with names=[...] "
            "(command line: --name, once per run) or names='file' (command line: --name-from file)."
        )
    return systems


def _warn_unjudged(systems: list[str], results: list[RunScores]) -> None:
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


def _no_common_topic(qrels: Any, labels: list[str], judged: list[str], results: list[RunScores]) -> None:
    """Refuse runs of which no topic is judged in the qrels: every score would be 0 (a wrong qrels
    file, or topic ids written differently), which is a mistake, not a result."""
    source = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else "the qrels given"
    ranked = sorted({t for r in results for t in r.skipped}, key=_topic_key)
    runs = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
    raise RiskevalError(
        f"No topic of the run(s) {runs} is judged in {source}: the qrels judge topics "
        f"{', '.join(judged[:5]) or 'none'}{' ...' if len(judged) > 5 else ''}; the runs rank topics "
        f"{', '.join(ranked[:5]) or 'none'}{' ...' if len(ranked) > 5 else ''}. Check that the qrels "
        "belong to these runs (and write topic ids alike)."
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
    pandas = sys.modules.get("pandas")  # no pandas object exists before pandas is imported
    return isinstance(value, (list, tuple, np.ndarray)) or (
        pandas is not None and isinstance(value, (pandas.Index, pandas.Series))
    )
