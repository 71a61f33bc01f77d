"""The score matrix: a pandas DataFrame, systems (rows, index ``"system"``) × topics (columns,
``"topic"``), finite float values.  Every public function that takes a matrix validates it here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import MissingTopicsError, RiskevalError


def as_matrix(X: Any, *, name: str = "X") -> pd.DataFrame:
    """Validate ``X`` as a systems × topics score matrix and return it as a float64 DataFrame.

    A DataFrame keeps its labels (converted to ``str``); another 2-D array-like gets systems
    ``"0".."r-1"`` and topics ``"0".."c-1"``.  Missing cells (NaN) are refused: build the matrix
    with :func:`riskeval.score_matrix` and choose a missing-topic policy instead.
    """
    if isinstance(X, pd.DataFrame):
        frame = X
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise RiskevalError(
                f"{name} must be a 2-D systems × topics matrix; got an array with {arr.ndim} "
                "dimension(s)."
            )
        frame = pd.DataFrame(arr)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise RiskevalError(f"{name} must have at least one system and one topic; got {frame.shape}.")
    try:
        values = frame.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise RiskevalError(f"{name} must hold numbers only: {exc}") from None
    index = pd.Index(frame.index.map(str), name="system")
    columns = pd.Index(frame.columns.map(str), name="topic")
    for labels, what in ((index, "system"), (columns, "topic")):
        if labels.has_duplicates:
            dup = labels[labels.duplicated()].unique().tolist()[:5]
            raise RiskevalError(f"{name} has duplicate {what} labels: {dup}.")
    # A finite total implies finite cells (NaN and inf propagate); only then scan cell by cell.
    if not np.isfinite(values.sum()) and not np.isfinite(values).all():
        _refuse_nonfinite(values, index, columns, name)
    return pd.DataFrame(values, index=index, columns=columns, copy=False)


def _refuse_nonfinite(values: np.ndarray, index: pd.Index, columns: pd.Index, name: str) -> None:
    nan = np.isnan(values)
    if nan.any():
        rows, cols = np.nonzero(nan)
        cells = ", ".join(f"({index[i]}, {columns[j]})" for i, j in zip(rows[:5], cols[:5], strict=True))
        raise MissingTopicsError(
            f"{name} has {int(nan.sum())} missing (NaN) cell(s), e.g. (system, topic) {cells}. "
            "Build the matrix with riskeval.score_matrix(..., missing='zero' or 'drop') to choose "
            "how missing topics are handled."
        )
    rows, cols = np.nonzero(~np.isfinite(values))
    raise RiskevalError(
        f"{name} has {rows.size} infinite cell(s), e.g. system {index[rows[0]]!r}, topic "
        f"{columns[cols[0]]!r}: scores must be finite numbers."
    )
