"""Per-query results of ir_measures: ``Metric(query_id, measure, value)`` records, as yielded by
``ir_measures.iter_calc`` (or any object with those three attributes)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.measures import check_measure
from riskeval.io.tables import long_to_matrix
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

_FIELDS = ("query_id", "measure", "value")


def from_ir_measures(
    results: Iterable[Any] | Mapping[str, Iterable[Any]],
    measure: Any = None,
    *,
    system: str | None = None,
    missing: MissingPolicy = "raise",
) -> pd.DataFrame:
    """Score matrix from ir_measures per-query results.

    Parameters
    ----------
    results : iterable of Metric, or dict of system name -> iterable of Metric
        ``ir_measures.iter_calc(measures, qrels, run)`` for one system (name it with ``system=``),
        or a dict holding one such iterable per system.
    measure : str or ir_measures measure, optional
        The measure to keep (``"nDCG@10"``, ``ir_measures.nDCG@10``, or a trec_eval name such as
        ``"ndcg_cut_10"``).  Required when the results hold several measures.
    system : str
        The system's name when ``results`` is one iterable.
    missing : {"raise", "zero", "drop"}
        Queries evaluated for some systems only: see :func:`riskeval.io.apply_missing`.  (ir_measures
        leaves out queries a run has no results for.)

    Returns
    -------
    DataFrame
        Systems (in the dict's order) × topics (``query_id``, in order of first appearance).

    Raises
    ------
    InputFormatError
        Records without ``query_id``/``measure``/``value``, non-finite values, a query measured
        twice for a system, a measure that is absent (listing those present).
    """
    check_option(missing, MISSING_POLICIES, "from_ir_measures", "missing")
    check_measure(measure)
    if isinstance(results, Mapping):
        if system is not None:
            raise RiskevalError(
                "system= names the system of a single iterable of results; with a dict of "
                "results, the dict keys are the system names."
            )
        by_system = results
    else:
        if not isinstance(system, str) or not system:
            raise RiskevalError(
                "Name the system of these results with system='name' (or pass a dict of system "
                f"name -> results); got system={system!r}."
            )
        by_system = {system: results}
    rows: list[tuple[str, Any, Any, Any]] = []
    problems: list[tuple[str, str]] = []
    for name, records in by_system.items():
        for k, record in enumerate(records, 1):
            try:
                rows.append((str(name), *(getattr(record, f) for f in _FIELDS)))
            except AttributeError:
                problems.append(
                    (
                        f"system {str(name)!r}, result {k}",
                        f"expected an ir_measures Metric (query_id, measure, value); got {record!r}.",
                    )
                )
    if problems:
        raise InputFormatError(problems)
    if not rows:
        raise InputFormatError([("ir_measures results", "are empty: no per-query result.")])
    frame = pd.DataFrame(rows, columns=["system", *_FIELDS], dtype=object)
    frame["measure"] = frame["measure"].map(str)
    return long_to_matrix(
        frame,
        system="system",
        topic="query_id",
        score="value",
        measure=measure,
        missing=missing,
        locate=lambda i: _locate(frame, i),
        source="ir_measures results",
    )


def _locate(frame: pd.DataFrame, i: int) -> str:
    row = frame.iloc[i]
    return f"system {row['system']!r}, query {row['query_id']!r}, measure {row['measure']}"


def looks_like_metric(item: Any) -> bool:
    """Whether ``item`` has the attributes of an ir_measures ``Metric``."""
    return all(hasattr(item, f) for f in _FIELDS)
