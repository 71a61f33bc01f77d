"""Score matrices of several measures given together: a mapping measure -> matrix, or a long table
with a ``measure`` column (riskeval's ``system, topic, measure, score`` or PyTerrier's
``pt.Experiment(..., perquery=True)`` columns ``name, qid, measure, value``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from riskeval.errors import RiskevalError

MEASURE = "measure"
#: The columns of a long table: riskeval's, then PyTerrier's (system, topic, score).
LONG_COLUMNS = (("system", "topic", "score"), ("name", "qid", "value"))


def measure_matrices(X: Any) -> dict[str, Any] | None:
    """The systems × topics matrix of each measure of ``X``, in order, or ``None`` when ``X`` is
    one matrix.

    ``X`` holds several measures when it is a mapping (measure name -> matrix, returned as given)
    or a DataFrame with a ``measure`` column and the system, topic and score columns named above
    (one matrix per measure, systems and topics in order of first appearance; a topic a system
    lacks is NaN, which :func:`riskeval.io.as_matrix` then refuses with its message).

    Raises
    ------
    RiskevalError
        An empty mapping, or a long table that scores a (system, topic) twice for a measure.
    """
    if isinstance(X, Mapping):
        if not X:
            raise RiskevalError("The mapping of measure -> score matrix is empty.")
        return {str(k): v for k, v in X.items()}
    if not isinstance(X, pd.DataFrame) or MEASURE not in X.columns:
        return None
    names = next((c for c in LONG_COLUMNS if set(c) <= set(X.columns)), None)
    if names is None:
        raise RiskevalError(
            f"A table with a {MEASURE!r} column is read as a long table: it needs the columns "
            f"system, topic, score (or PyTerrier's name, qid, value); got {list(X.columns)}."
        )
    system, topic, score = names
    out = {}
    for measure, part in X.groupby(MEASURE, sort=False):
        twice = part.duplicated([system, topic])
        if twice.any():
            s, t = part.loc[twice, [system, topic]].iloc[0]
            raise RiskevalError(
                f"The long table scores ({s!r}, {t!r}) {int(twice.sum()) + 1} or more times for "
                f"measure {measure!r}: each (system, topic, measure) needs one score."
            )
        matrix = part.pivot(index=system, columns=topic, values=score)
        matrix = matrix.reindex(index=part[system].unique(), columns=part[topic].unique())
        out[str(measure)] = matrix.rename_axis(index="system", columns="topic")
    return out
