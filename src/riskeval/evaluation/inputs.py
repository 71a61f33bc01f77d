"""Qrels and runs held in memory, in the forms of PyTerrier, ranx and ir_measures, made into what the
file readers produce.

Qrels: a PyTerrier DataFrame (``qid, docno, label``), an ir_measures DataFrame
(``query_id, doc_id, relevance``), a ranx ``Qrels``, an iterable of ir_measures ``Qrel`` records,
a dict ``{query_id: {doc_id: grade}}``, or an ir_datasets id ``"irds:<id>"``
(:mod:`riskeval.io.irds`).  Each becomes the DataFrame :func:`riskeval.io.qrels.read_qrels`
returns.

Runs: a PyTerrier results DataFrame (``qid, docno, score`` and optionally ``rank``), an ir_measures
DataFrame (``query_id, doc_id, score``), a ranx ``Run``, an iterable of ir_measures ``ScoredDoc``
records, or a dict ``{query_id: {doc_id: score}}``.  Each becomes ``{topic: {docno: score}}``, what
:func:`riskeval.io.runs.read_run` reads from a run file, so the evaluation and its values are the
same as for the file.  :func:`qrels_dict` gives the qrels, from a file or from memory, as the evaluators
take them.

Order of documents: the evaluators (trec_eval's, through ir_measures) rank by score, and documents
with equal scores by document id in reverse string order; the order of the rows and PyTerrier's
``rank`` column are not used, as trec_eval does not use the rank field of a run file.  A PyTerrier
ranking whose ``rank`` breaks ties otherwise (PyTerrier keeps the retrieval order of tied
documents) is evaluated as its run file would be by trec_eval.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.problems import show
from riskeval.io.qrels import read_judgments
from riskeval.io.ranx_scores import is_ranx
from riskeval.io.runs import Run

if TYPE_CHECKING:
    import pandas as pd

#: column names of a qrels DataFrame: PyTerrier's, then ir_measures' (what read_qrels returns)
QRELS_COLUMNS = (("qid", "docno", "label"), ("query_id", "doc_id", "relevance"))
#: column names of a run DataFrame: PyTerrier's, ir_measures', ranx's (Run.to_dataframe)
RUN_COLUMNS = (("qid", "docno", "score"), ("query_id", "doc_id", "score"), ("q_id", "doc_id", "score"))
_IR_MEASURES_QRELS = QRELS_COLUMNS[1]


class MemoryRun(NamedTuple):
    """A run given in memory, as parsed.

    Attributes
    ----------
    label : how messages name it (``run 'bm25'``).
    tag : its name when it carries one (a ranx ``Run``'s ``name``), else ``None``.
    scores : ``{topic: {docno: score}}``.
    """

    label: str
    tag: str | None
    scores: dict[str, dict[str, float]]

    def restrict(self, topics: frozenset[str]) -> Run:
        """The run as :func:`riskeval.io.runs.read_run` gives a file restricted to ``topics``."""
        kept = {t: docs for t, docs in self.scores.items() if t in topics}
        skipped = tuple(sorted(t for t in self.scores if t not in topics))
        return Run(self.label, self.tag, kept, skipped)


def is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def is_frame(value: Any) -> bool:
    """Whether ``value`` is a pandas DataFrame, without importing pandas (no DataFrame exists
    before pandas is imported)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def qrels_input(qrels: Any) -> Any:
    """A qrels path unchanged, any other supported qrels as ir_measures' DataFrame
    (``query_id, doc_id, relevance``, ``str`` ids, integer grades)."""
    if isinstance(qrels, str) and qrels.startswith("irds:"):
        from riskeval.io.irds import irds_qrels

        return irds_qrels(qrels)
    if is_path(qrels):
        return qrels
    if is_frame(qrels):
        return _qrels_frame(qrels)
    if is_ranx(qrels, "Qrels"):
        from riskeval.io.ranx_objects import ranx_nested

        nested = ranx_nested(qrels)
        rows = _nested_rows(qrels.to_dict() if nested is None else nested, "the ranx Qrels", "grade")
        return _grades(rows, "the ranx Qrels")
    if isinstance(qrels, Mapping):
        return _grades(_nested_rows(qrels, "the qrels dict", "grade"), "the qrels dict")
    if isinstance(qrels, Iterable):
        return _grades(_record_rows(qrels, "the qrels", "Qrel", "relevance"), "the qrels")
    raise RiskevalError(
        "The 'qrels' parameter of evaluate_runs must be a qrels file, an ir_datasets id "
        "('irds:...'), a DataFrame (PyTerrier's qid, docno, label or ir_measures' query_id, doc_id, "
        f"relevance), a ranx Qrels, ir_measures Qrel records or a dict; got {type(qrels).__name__}."
    )


def qrels_dict(qrels: Any, *, negative_unjudged: bool = False) -> dict[str, dict[str, int]]:
    """Qrels as ir_measures' dict of dicts, with Python ints as grades.

    Negative grades (TREC Web's -2 for spam) are handed to the evaluators as 0, judged not
    relevant: pytrec_eval, which computes trec_eval's measures, corrupts memory (and crashes the
    process) on negative grades, and every measure already treats grades <= 0 as not relevant
    (gdeval's ERR and nDCG give the same values either way).  With ``negative_unjudged``, the
    documents of negative grade are left out instead (their topic stays): unjudged, as trec_eval
    reads a negative grade ("in the pool, not judged"), for the policies of
    :mod:`riskeval.evaluation.unjudged`.
    """
    qrels = qrels_input(qrels)  # qrels given in memory or by ir_datasets id: a DataFrame
    if isinstance(qrels, (str, os.PathLike)):
        qids, docs, grades = read_judgments(qrels)
    elif is_frame(qrels):
        import pandas as pd

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
        qids = qrels["query_id"].astype(str).tolist()
        docs = qrels["doc_id"].astype(str).tolist()
        grades = qrels["relevance"].astype(np.int64).tolist()
    else:
        raise RiskevalError(
            "The 'qrels' parameter of evaluate_runs must be a path or a DataFrame; got "
            f"{type(qrels).__name__}."
        )
    result: dict[str, dict[str, int]] = {}
    for qid, doc, grade in zip(qids, docs, grades, strict=True):
        judged = result.setdefault(qid, {})
        if grade >= 0 or not negative_unjudged:
            judged[doc] = grade if grade > 0 else 0
    if not result:
        raise RiskevalError("The qrels hold no judgments.")
    return result


def _qrels_frame(frame: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    columns = next((c for c in QRELS_COLUMNS if set(c) <= set(frame.columns)), None)
    if columns is None:
        raise RiskevalError(
            "A qrels DataFrame needs PyTerrier's columns qid, docno, label or ir_measures' columns "
            f"query_id, doc_id, relevance; got columns {list(frame.columns)}."
        )
    ids = frame[list(columns[:2])]
    if ids.isna().to_numpy().any():
        row = frame.index[ids.isna().any(axis=1).to_numpy()][0]
        raise InputFormatError(
            [(f"the qrels DataFrame, row {show(row)}", "the topic or document id is missing.")]
        )
    out = pd.DataFrame(
        {
            "query_id": ids[columns[0]].astype(str).to_numpy(),
            "doc_id": ids[columns[1]].astype(str).to_numpy(),
            "relevance": frame[columns[2]].to_numpy(),
        }
    )
    return out


def _nested_rows(nested: Mapping[Any, Any], what: str, value: str) -> list[tuple[str, str, Any]]:
    """(topic, document, value) rows of ``{topic: {document: value}}``."""
    rows = []
    for qid, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise RiskevalError(
                f"{what} must map each topic to {{document: {value}}}; topic {qid!r} maps to "
                f"{type(docs).__name__}."
            )
        rows += [(str(qid), str(doc), v) for doc, v in docs.items()]
    return rows


def _record_rows(records: Iterable[Any], what: str, kind: str, value: str) -> list[tuple[str, str, Any]]:
    """(topic, document, value) rows of ir_measures records (``Qrel``, ``ScoredDoc``)."""
    rows = []
    for k, record in enumerate(records, 1):
        try:
            rows.append((str(record.query_id), str(record.doc_id), getattr(record, value)))
        except AttributeError:
            expected = f"expected an ir_measures {kind} (query_id, doc_id, {value}); got {record!r}."
            raise InputFormatError([(f"{what}, record {k}", expected)]) from None
    return rows


def _grades(rows: list[tuple[str, str, Any]], what: str) -> pd.DataFrame:
    problems = [
        (f"{what}, topic {q!r}, document {d!r}", f"the grade must be a whole number; got {show(g)}.")
        for q, d, g in rows
        if isinstance(g, bool) or not isinstance(g, (int, np.integer))
    ]
    if problems:
        raise InputFormatError(problems)
    import pandas as pd

    return pd.DataFrame(rows, columns=list(_IR_MEASURES_QRELS)).astype({"relevance": np.int64})


def run_inputs(runs: Any, names: Any) -> tuple[list[Any], Any]:
    """The runs as a list of paths and :class:`MemoryRun`, and the system names.

    A mapping gives each run its name (``names`` must then be ``None``); a list holds paths.
    """
    if is_path(runs):
        return [os.fspath(runs)], names
    if isinstance(runs, Mapping):
        if names is not None:
            raise RiskevalError(
                "With runs given as a mapping name -> run, the keys are the system names; "
                f"leave names= out (got names={names!r})."
            )
        sources = [
            os.fspath(run) if is_path(run) else memory_run(run, str(name)) for name, run in runs.items()
        ]
        return sources, [str(name) for name in runs]
    if is_frame(runs) or is_ranx(runs, "Run"):
        raise RiskevalError(
            "Pass an in-memory run as a mapping name -> run, e.g. runs={'bm25': results}; "
            f"got one {type(runs).__name__}."
        )
    items = list(runs)
    others = [type(r).__name__ for r in items if not is_path(r)]
    if others:
        raise RiskevalError(
            "A list of runs holds run file paths; give in-memory runs (DataFrames, ranx Runs, "
            f"ir_measures records) as a mapping name -> run; got {', '.join(sorted(set(others)))}."
        )
    return [os.fspath(r) for r in items], names


def memory_run(run: Any, name: str) -> MemoryRun:
    """One in-memory run (see the module's description) as :class:`MemoryRun`."""
    label = f"run {name!r}"
    if is_frame(run):
        return MemoryRun(label, None, _run_frame(run, label))
    if is_ranx(run, "Run"):
        from riskeval.io.ranx_objects import ranx_nested

        scores = ranx_nested(run)  # finite scores, read in one compiled pass
        if scores is None:  # a score to locate: entry by entry
            rows = _nested_rows(run.to_dict(), f"{label} (ranx Run)", "score")
            scores = _run_pairs(_checked_scores(rows, label), label)
        if not scores:
            raise RiskevalError(f"{label} holds no results.")
        return MemoryRun(label, run.name or None, scores)
    if isinstance(run, Mapping):
        rows = _nested_rows(run, label, "score")
        return MemoryRun(label, None, _run_pairs(_checked_scores(rows, label), label))
    if isinstance(run, Iterable) and not isinstance(run, (str, bytes)):
        rows = _record_rows(run, label, "ScoredDoc", "score")
        return MemoryRun(label, None, _run_pairs(_checked_scores(rows, label), label))
    raise RiskevalError(
        f"{label} must be a run file path, a DataFrame (PyTerrier's qid, docno, score or "
        "ir_measures' query_id, doc_id, score), a ranx Run, ir_measures ScoredDoc records or a dict "
        f"{{query_id: {{doc_id: score}}}}; got {type(run).__name__}."
    )


def _run_frame(frame: pd.DataFrame, label: str) -> dict[str, dict[str, float]]:
    import pandas as pd

    columns = next((c for c in RUN_COLUMNS if set(c) <= set(frame.columns)), None)
    if columns is None:
        raise RiskevalError(
            f"{label}: a results DataFrame needs PyTerrier's columns qid, docno, score or "
            f"ir_measures' columns query_id, doc_id, score; got columns {list(frame.columns)}."
            + (" Retrieve with metadata=['docno'] to have PyTerrier add docno." if "docid" in frame else "")
        )
    qid, docno, score = (frame[c] for c in columns)
    problems = []
    missing = (qid.isna() | docno.isna()).to_numpy()
    problems += [
        (f"{label}, row {show(r)}", "the topic or document id is missing.") for r in frame.index[missing]
    ]
    if not pd.api.types.is_numeric_dtype(score) or pd.api.types.is_bool_dtype(score):
        raise InputFormatError(
            [(f"{label}, column {columns[2]!r}", f"scores must be numbers; got dtype {score.dtype}.")]
        )
    values = score.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    problems += [
        (f"{label}, row {show(r)}", f"the score must be a finite number; got {show(v)}.")
        for r, v in zip(frame.index[bad], values[bad], strict=True)
    ]
    if problems:
        raise InputFormatError(problems)
    return _run_pairs(
        zip(qid.astype(str).tolist(), docno.astype(str).tolist(), values.tolist(), strict=True),
        label,
        frame.index,
    )


def _checked_scores(rows: list[tuple[str, str, Any]], label: str) -> list[tuple[str, str, float]]:
    def finite(v: Any) -> bool:
        return (
            isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, bool)
            and math.isfinite(v)
        )

    problems = [
        (f"{label}, topic {q!r}, document {d!r}", f"the score must be a finite number; got {show(s)}.")
        for q, d, s in rows
        if not finite(s)
    ]
    if problems:
        raise InputFormatError(problems)
    return [(q, d, float(s)) for q, d, s in rows]


def _run_pairs(
    rows: Iterable[tuple[str, str, float]], label: str, index: Any = None
) -> dict[str, dict[str, float]]:
    """``{topic: {docno: score}}``; a document twice in a topic is an error, as in a run file."""
    scores: dict[str, dict[str, float]] = {}
    problems = []
    for k, (qid, doc, score) in enumerate(rows):
        docs = scores.setdefault(qid, {})
        if doc in docs:
            where = f"row {show(index[k])}" if index is not None else f"topic {qid!r}"
            problems.append((f"{label}, {where}", f"document {doc!r} is ranked twice for topic {qid!r}."))
        docs[doc] = score
    if problems:
        raise InputFormatError(problems)
    if not scores:
        raise RiskevalError(f"{label} holds no results.")
    return scores
