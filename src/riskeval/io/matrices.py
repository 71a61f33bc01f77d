"""``score_matrices``: the score matrices of several measures from one input, measure by measure."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.inputs import TREC_EVAL_FORMAT, score_matrix
from riskeval.io.measures import describe_available, resolve_measure
from riskeval.io.per_query import IR_MEASURES, per_query_format, read_per_query
from riskeval.io.score_files import TABLE_FORMATS, table_columns, table_format
from riskeval.io.tables import MEASURE_COLUMN
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

#: The key of the one matrix of an input that names no measure.
UNNAMED = "score"


def score_matrices(
    data: Any,
    measures: Sequence[Any] | None = None,
    *,
    missing: MissingPolicy = "raise",
    names: str | Sequence[str] | None = None,
    format: str | None = None,
) -> dict[str, pd.DataFrame]:
    """Systems × topics score matrices of several measures, in the order given.

    Parameters
    ----------
    data
        Any input of :func:`riskeval.score_matrix`; a long table (DataFrame or file) with a
        ``measure`` column, or PyTerrier's ``pt.Experiment(..., perquery=True)`` output, gives one
        matrix per measure; trec_eval or ir_measures ``-q`` output files (a path or a list of
        paths, told apart by content, see :mod:`riskeval.io.per_query`) are read once for all
        measures; a mapping of measure name -> matrix (DataFrame or 2-D array) is checked matrix
        by matrix.
    measures : sequence of measure names, optional
        The measures to read, in any spelling :func:`riskeval.io.measures.canonical_measure` knows.
        ``None``: every measure of the input, in order of first appearance.  An input that names no
        measure (a wide table) gives one matrix, keyed by the one name given or else ``"score"``.
    missing, names, format
        As in :func:`riskeval.score_matrix`; ``format`` may also be ``"ir_measures"``.

    Returns
    -------
    dict
        Measure name (as requested, or as the input spells it) -> matrix.
    """
    check_option(missing, MISSING_POLICIES, "score_matrices", "missing")
    wanted = None if measures is None else ([measures] if isinstance(measures, str) else list(measures))
    if wanted is not None and not wanted:
        raise RiskevalError("score_matrices: 'measures' lists no measure; pass None for every one.")
    if isinstance(data, Mapping) and data and all(_is_matrix(v) for v in data.values()):
        return _from_mapping(data, wanted, missing)
    if _is_paths(data) and format not in TABLE_FORMATS:
        paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
        if format in (TREC_EVAL_FORMAT, IR_MEASURES) or len(paths) > 1 or looks_per_query(paths[0]):
            return read_per_query(paths, wanted, names=names, missing=missing)
    present = _measures_in(data, format)
    if present is None and isinstance(data, (pd.DataFrame, str, os.PathLike)):
        if wanted is not None and len(wanted) > 1:
            raise RiskevalError(
                f"score_matrices: {len(wanted)} measures were asked for ({', '.join(map(str, wanted))}) "
                f"but the table has no {MEASURE_COLUMN!r} column: it holds one measure."
            )
        key = UNNAMED if wanted is None else str(wanted[0])  # the measure of a wide table, by name
        return {key: score_matrix(data, missing=missing, names=names, format=format)}
    if wanted is None and present is None:
        return {UNNAMED: score_matrix(data, missing=missing, names=names, format=format)}
    return {
        str(m): score_matrix(data, measure=m, missing=missing, names=names, format=format)
        for m in dict.fromkeys(wanted or present or ())
    }


def _from_mapping(
    data: Mapping[Any, Any], wanted: list[Any] | None, missing: MissingPolicy
) -> dict[str, pd.DataFrame]:
    keys = [str(k) for k in data]
    values = dict(zip(keys, data.values(), strict=True))
    chosen: list[str] = keys if wanted is None else []
    if wanted is not None:
        absent: list[str] = []
        for m in wanted:
            found = resolve_measure(m, keys)
            (chosen if found is not None else absent).append(found if found is not None else str(m))
        if absent:
            raise RiskevalError(
                f"measure(s) {absent} are not among the matrices given: {describe_available(keys)}."
            )
    return {k: score_matrix(values[k], missing=missing) for k in dict.fromkeys(chosen)}


def _is_matrix(value: Any) -> bool:
    return isinstance(value, pd.DataFrame) or (isinstance(value, np.ndarray) and value.ndim == 2)


def _is_paths(data: Any) -> bool:
    if isinstance(data, (str, os.PathLike)):
        return True
    return (
        isinstance(data, Sequence)
        and not isinstance(data, str)
        and len(data) > 0
        and all(isinstance(p, (str, os.PathLike)) for p in data)
    )


def looks_per_query(path: str | os.PathLike) -> bool:
    """Whether ``path`` is read as trec_eval or ir_measures ``-q`` output: a file without a score
    table's extension, or a CSV/TSV file whose first line is a per-query line (ir_measures' output
    saved as ``.tsv``) rather than a header (:func:`riskeval.io.per_query.per_query_format`)."""
    if not is_score_table(path):
        return True
    if table_format(path, None) == "parquet":
        return False
    try:
        per_query_format(path)
    except InputFormatError:
        return False
    return True


def is_score_table(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a score table (CSV/TSV/Parquet) by its extension."""
    try:
        table_format(path, None)
    except RiskevalError:
        return False
    return True


def _measures_in(data: Any, format: str | None) -> list[Any] | None:
    """The measures of a long table's ``measure`` column (file or DataFrame), in order, or ``None``."""
    if isinstance(data, pd.DataFrame):
        frame = data.reset_index() if MEASURE_COLUMN in data.index.names else data
        if MEASURE_COLUMN in frame.columns:
            return _distinct_text(frame[MEASURE_COLUMN])
        return None
    if isinstance(data, (str, os.PathLike)) and MEASURE_COLUMN in table_columns(data, format):
        return score_table_measures(data, format)
    return None


def score_table_measures(path: str | os.PathLike, format: str | None = None) -> list[Any]:
    """The measures named in the ``measure`` column of a score table file, in order."""
    from riskeval.io.score_files import _DELIMITER, read_delimited

    fmt = table_format(path, format)
    if fmt == "parquet":
        column = pd.read_parquet(path, columns=[MEASURE_COLUMN], read_dictionary=[MEASURE_COLUMN])[
            MEASURE_COLUMN
        ]
    else:
        frame, _, _ = read_delimited(
            path, _DELIMITER[fmt], lambda header: {j for j, n in enumerate(header) if n == MEASURE_COLUMN}
        )
        column = frame[MEASURE_COLUMN]
    return _distinct_text(column.dropna())


def _distinct_text(column: pd.Series) -> list[str]:
    """The distinct values of ``column`` as text, in order of first appearance (one conversion per
    distinct value, not per row)."""
    return [str(value) for value in dict.fromkeys(pd.unique(column).astype(str))]
