"""``score_matrix``: the one front door that turns any supported input into a score matrix."""

from __future__ import annotations

import itertools
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.io.formats import DEFAULT_COLUMNS, Request, read_files, refuse_columns
from riskeval.io.ir_measures_results import from_ir_measures, looks_like_metric
from riskeval.io.measures import check_measure
from riskeval.io.ranx_scores import from_ranx, looks_like_ranx_scores
from riskeval.io.tables import (
    frame_to_matrix,
    index_to_columns,
    long_to_matrix,
    row_labels,
    wide_to_matrix,
)
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

#: the columns of PyTerrier's pt.Experiment(..., perquery=True): name, qid, measure, value
_PYTERRIER_COLUMNS = {"system": "name", "topic": "qid", "score": "value"}


def score_matrix(
    data: Any,
    *,
    measure: Any = None,
    missing: MissingPolicy = "raise",
    system: Hashable = "system",
    topic: Hashable = "topic",
    score: Hashable = "score",
    names: str | Sequence[str] | None = None,
    format: str | None = None,
) -> pd.DataFrame:
    """A validated systems × topics score matrix from any supported input.

    Parameters
    ----------
    data
        One of:

        - a DataFrame, **long** (one row per system, topic, score) or **wide** (one row per
          system, one column per topic).  It is long when at least two of the columns named by
          ``system``, ``topic``, ``score`` are present (index levels with those names count as
          columns); then all three are required.  Otherwise it is wide: the ``system`` column, or
          else the index, names the systems, and every other column is a topic.
        - a Series with a two-level (system, topic) index;
        - a 2-D numpy array (systems ``"0".."r-1"`` × topics ``"0".."c-1"``);
        - a path to a score file: a CSV, TSV or Parquet table (long or wide, same rule; see
          :func:`read_scores`), or trec_eval or ir_measures ``-q`` output (see
          :func:`read_trec_eval`, :func:`riskeval.io.read_ir_measures`); its format is told by
          ``format``, else its extension and content (:mod:`riskeval.io.formats`);
        - a list of paths to trec_eval or ir_measures ``-q`` output files, one tool's;
        - ir_measures per-query results: an iterable of ``Metric`` (name the system with
          ``names="name"``) or a dict of system name -> iterable of ``Metric``;
        - PyTerrier's ``pt.Experiment(..., perquery=True)`` output (columns ``name, qid, measure,
          value``), recognised by its columns;
        - ranx per-query scores: ``run.scores`` after ``ranx.evaluate`` or ``ranx.compare``
          (``{metric: {query_id: score}}``; name the system with ``names="name"``), a ranx
          ``Run`` holding them, or a dict of system name -> either (see
          :mod:`riskeval.io.ranx_scores`).
    measure : str or ir_measures measure, optional
        The measure to read: required for trec_eval output, and for long tables or ir_measures
        results holding several measures (a ``"measure"`` column).  ir_measures (``"nDCG@10"``),
        trec_eval (``"ndcg_cut_10"``) and ranx (``"ndcg@10"``) names all work
        (:func:`riskeval.io.measures.canonical_measure`).
    missing : {"raise", "zero", "drop"}
        What to do with topics evaluated for some systems only (see :func:`apply_missing`):
        raise :class:`~riskeval.errors.MissingTopicsError` (default), score them 0 (as trec_eval
        ``-c``), or drop them; ``"zero"`` and ``"drop"`` warn with the counts.
    system, topic, score : column labels
        Column names of a long table (``system`` also names the system column of a wide one).
    names : None, "file", list of str, or str
        System names of trec_eval outputs (see :func:`read_trec_eval`), or the system name of a
        single iterable of ir_measures results.
    format : {"csv", "tsv", "parquet", "trec_eval", "ir_measures"}, optional
        The format of a file, overriding its extension and content: a name of
        :func:`riskeval.io.formats.format_names`.

    Returns
    -------
    DataFrame
        float64, index ``"system"``, columns ``"topic"``, ``str`` labels.  Order: wide inputs keep
        their row and column order; long inputs, trec_eval outputs and ir_measures results list
        systems and topics in order of first appearance.

    Raises
    ------
    InputFormatError
        Every problem of the input at once, each located (``file:line``, ``row label``).
    MissingTopicsError
        Topics missing for some systems with ``missing="raise"``.
    RiskevalError
        Bad parameters, unsupported inputs, unknown formats.
    """
    check_option(missing, MISSING_POLICIES, "score_matrix", "missing")
    check_measure(measure)
    columns = {"system": system, "topic": topic, "score": score}
    if isinstance(data, pd.DataFrame):
        _refuse(names=names, format=format, what="a DataFrame")
        if columns == DEFAULT_COLUMNS and _is_pyterrier_perquery(data):
            columns = dict(_PYTERRIER_COLUMNS)
        return frame_to_matrix(
            index_to_columns(data, tuple(columns.values())),
            **columns,
            measure=measure,
            missing=missing,
            locate=row_labels(data),
            source="the table",
        )
    if isinstance(data, pd.Series):
        _refuse(names=names, format=format, what="a Series")
        return _from_series(data, columns, measure, missing)
    if isinstance(data, np.ndarray):
        _refuse(measure=measure, names=names, format=format, what="a numpy array")
        if data.ndim != 2:
            raise RiskevalError(
                f"A numpy array must be 2-D (systems × topics); got {data.ndim} dimension(s)."
            )
        frame = pd.DataFrame(data)
        return wide_to_matrix(
            frame, system=None, missing=missing, locate=row_labels(frame), source="the array"
        )
    if isinstance(data, (str, os.PathLike)):
        return _from_files([data], format, measure, names, missing, columns)
    if looks_like_ranx_scores(data):
        _refuse(format=format, what="ranx scores")
        refuse_columns(columns, "ranx scores")
        system = None if names is None else _single_name(names, "ranx scores")
        return from_ranx(data, measure, system=system, missing=missing)
    if isinstance(data, Mapping):
        _refuse(names=names, format=format, what="a dict of ir_measures results")
        refuse_columns(columns, "ir_measures results")
        return from_ir_measures(data, measure, missing=missing)
    if isinstance(data, Iterable):
        items = iter(data)
        first = next(items, None)
        if first is None:
            raise RiskevalError("score_matrix got an empty list: nothing to read.")
        data = itertools.chain([first], items)
        if isinstance(first, (str, os.PathLike)):
            return _from_files(list(data), format, measure, names, missing, columns)
        if looks_like_metric(first):
            _refuse(format=format, what="ir_measures results")
            refuse_columns(columns, "ir_measures results")
            return from_ir_measures(data, measure, system=_single_name(names), missing=missing)
    raise RiskevalError(
        f"score_matrix cannot read a {type(data).__name__}: pass a DataFrame (long or wide), a "
        "path to a CSV/TSV/Parquet file, trec_eval -q output file(s) with measure=, or "
        "ir_measures per-query results."
    )


def _from_files(
    paths: list[Any],
    format: str | None,
    measure: Any,
    names: Any,
    missing: MissingPolicy,
    columns: dict[str, Hashable],
) -> pd.DataFrame:
    """The one matrix of score files, in their format (:mod:`riskeval.io.formats`)."""
    request = Request(None if measure is None else [measure], True, names, missing, columns)
    [matrix] = read_files(paths, format, request, "score_matrix").values()
    return matrix


def _is_pyterrier_perquery(frame: pd.DataFrame) -> bool:
    """PyTerrier's per-query results: its four columns, and none of riskeval's default ones."""
    present = set(frame.columns) | set(frame.index.names)
    return {"name", "qid", "measure", "value"} <= present and not present & set(DEFAULT_COLUMNS)


def _from_series(
    data: pd.Series, columns: dict[str, Hashable], measure: Any, missing: MissingPolicy
) -> pd.DataFrame:
    if data.index.nlevels != 2:
        raise RiskevalError(
            "A Series must have a two-level index (system, topic) with the scores as values; got "
            f"{data.index.nlevels} level(s)."
        )
    frame = pd.DataFrame(
        {
            columns["system"]: data.index.get_level_values(0),
            columns["topic"]: data.index.get_level_values(1),
            columns["score"]: data.to_numpy(),
        }
    )
    return long_to_matrix(
        frame,
        **columns,
        measure=measure,
        missing=missing,
        locate=row_labels(data.to_frame()),
        source="the Series",
    )


def _single_name(names: Any, what: str = "ir_measures results") -> str | None:
    """The system name of a single iterable of ir_measures results (or of one run's ``what``)."""
    if isinstance(names, str):
        return names
    if isinstance(names, Sequence) and len(names) == 1 and isinstance(names[0], str):
        return names[0]
    raise RiskevalError(
        f"Name the system of these {what} with names='name' (or pass a dict of "
        f"system name -> results); got names={names!r}."
    )


def _refuse(*, what: str, **given: Any) -> None:
    """Parameters that mean nothing for this kind of input are errors, not silently ignored."""
    for param, value in given.items():
        if value is not None:
            raise RiskevalError(
                f"The '{param}' parameter of score_matrix does not apply to {what}; got {value!r}."
            )
