"""``score_matrices``: the score matrices of several measures from one input, measure by measure."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.io.formats import UNNAMED, Request, read_files, unnamed_key
from riskeval.io.inputs import score_matrix
from riskeval.io.measures import describe_available, resolve_measure
from riskeval.io.tables import MEASURE_COLUMN, distinct_text
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option


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
        paths, each file's format told by its extension and content, see
        :mod:`riskeval.io.formats`) are read once for all measures; a mapping of measure name ->
        matrix (DataFrame or 2-D array) is checked matrix by matrix.
    measures : sequence of measure names, optional
        The measures to read, in any spelling :func:`riskeval.io.measures.canonical_measure` knows.
        ``None``: every measure of the input, in order of first appearance.  An input that names no
        measure (a wide table) gives one matrix, keyed by the one name given or else ``"score"``.
    missing, names, format
        As in :func:`riskeval.score_matrix`.

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
    if _is_paths(data):
        paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
        request = Request(wanted, names=names, missing=missing)
        return read_files(paths, format, request, "score_matrices")
    present = _measures_in(data)
    if present is None and isinstance(data, pd.DataFrame):
        return {unnamed_key(wanted): score_matrix(data, missing=missing, names=names, format=format)}
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


def _measures_in(data: Any) -> list[Any] | None:
    """The measures of a DataFrame's ``measure`` column, in order, or ``None``."""
    if isinstance(data, pd.DataFrame):
        frame = data.reset_index() if MEASURE_COLUMN in data.index.names else data
        if MEASURE_COLUMN in frame.columns:
            return distinct_text(frame[MEASURE_COLUMN])
    return None
