"""Tables over several measures, and the rows of chosen systems.

Every analysis table of riskeval takes one systems × topics matrix; :func:`for_each_measure` runs
it on each measure's matrix (:func:`riskeval.model.by_measure.measure_matrices`) and stacks the
tables with a ``measure`` column first.  :func:`select_systems` keeps the rows of some systems of a
table computed over all of them, so that aggregate baselines (MEAN, MEDIAN, MAX), ZRisk, GeoRisk
and ranks still use every system (Dinçer, Macdonald & Ounis, SIGIR 2016, §4: ZRisk and GeoRisk
compare each system with all the others).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.model.by_measure import MEASURE, measure_matrices


def for_each_measure(X: Any, compute: Callable[[Any], pd.DataFrame]) -> pd.DataFrame | None:
    """``compute`` of each measure's matrix, stacked with a ``measure`` column first; ``None``
    when ``X`` is one matrix (the caller then computes it as usual)."""
    matrices = measure_matrices(X)
    if matrices is None:
        return None
    parts = []
    for name, matrix in matrices.items():
        table = compute(matrix)
        flat = table.reset_index() if any(n is not None for n in table.index.names) else table
        parts.append(flat.drop(columns=MEASURE, errors="ignore").assign(**{MEASURE: name}))
    stacked = pd.concat(parts, ignore_index=True)
    return stacked[[MEASURE, *(c for c in stacked.columns if c != MEASURE)]]


def check_systems(systems: Iterable[Any] | str | None, known: Iterable[Any], caller: str) -> list[str] | None:
    """``systems`` as a list of names of ``known`` (a comma list is split); unknown names are an
    error, starting with ``caller`` (e.g. ``"The 'systems' parameter of risk_table"``), that
    lists close matches."""
    if systems is None:
        return None
    wanted = (
        [s.strip() for s in systems.split(",")] if isinstance(systems, str) else [str(s) for s in systems]
    )
    wanted = [s for s in wanted if s]
    if not wanted:
        raise RiskevalError(f"{caller} names no system.")
    names = [str(k) for k in known]
    unknown = [s for s in wanted if s not in names]
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
            hints.append(f"{name!r}" + (f" (did you mean {', '.join(map(repr, close))}?)" if close else ""))
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        raise RiskevalError(
            f"{caller} names unknown system(s): {'; '.join(hints)}. The systems are: {shown}."
        )
    return list(dict.fromkeys(wanted))


def select_systems(
    table: pd.DataFrame,
    systems: Iterable[Any] | str | None,
    known: Iterable[Any],
    caller: str,
    column: str = "system",
) -> pd.DataFrame:
    """The rows of ``table`` whose ``column`` is one of ``systems`` (all rows for ``None``), in the
    table's order; names are checked by :func:`check_systems`."""
    chosen = check_systems(systems, known, caller)
    if chosen is None:
        return table
    keep = table[column].astype(str).isin(chosen).to_numpy()
    return table.loc[keep].reset_index(drop=True)
