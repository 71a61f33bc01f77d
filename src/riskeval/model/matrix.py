"""The score matrix: a pandas DataFrame, systems (rows, index ``"system"``) × topics (columns,
``"topic"``), finite float values.  Every public function that takes a matrix validates it here.

The missing-topic policy lives here too: every reader builds a systems × topics frame in which NaN
marks a topic that was not evaluated for a system, and :func:`apply_missing` turns it into a matrix
the way the caller asked (``"raise"``, ``"zero"`` or ``"drop"``), warning with the counts
(:func:`kept_topics`, which applies it to the mask of missing cells alone, without pandas).
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from riskeval.errors import MissingTopicsError, MissingTopicsWarning, RiskevalError
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

if TYPE_CHECKING:
    import pandas as pd

#: Largest magnitude of a score: far beyond any effectiveness measure, and small enough that sums
#: of squares, chi-square expected values and their products stay finite in float64.
MAX_MAGNITUDE = 1e100

_EXAMPLES = 3  # topics (and systems per topic) quoted in messages


def as_matrix(X: Any, *, name: str = "X") -> pd.DataFrame:
    """Validate ``X`` as a systems × topics score matrix and return it as a float64 DataFrame.

    A DataFrame keeps its labels (converted to ``str``); another 2-D array-like gets systems
    ``"0".."r-1"`` and topics ``"0".."c-1"``.  Missing cells (NaN) are refused: build the matrix
    with :func:`riskeval.score_matrix` and choose a missing-topic policy instead.

    Validation does not copy a float64 frame: the result may share (read-only) memory with ``X``,
    so ``.copy()`` it before assigning to cells.
    """
    frame, complete = _float_frame(X, name)
    if not complete:
        values = frame.to_numpy()
        rows, cols = np.nonzero(np.isnan(values))
        cells = ", ".join(
            f"({frame.index[i]}, {frame.columns[j]})" for i, j in zip(rows[:5], cols[:5], strict=True)
        )
        raise MissingTopicsError(
            f"{name} has {rows.size} missing (NaN) cell(s), e.g. (system, topic) {cells}. "
            "Build the matrix with riskeval.score_matrix(..., missing='zero' or 'drop') to choose "
            "how missing topics are handled."
        )
    return frame


def apply_missing(
    matrix: Any, missing: MissingPolicy = "raise", *, source: str = "the score matrix"
) -> pd.DataFrame:
    """Apply a missing-topic policy to a systems × topics frame whose NaN cells are missing topics.

    A topic can be evaluated for some systems and not others (trec_eval ``-q`` omits topics a run
    retrieved nothing for; tables are assembled from several sources).  Nothing is filled or dropped
    without the caller asking, and never without a :class:`~riskeval.errors.MissingTopicsWarning`
    that counts what was affected.

    Parameters
    ----------
    matrix : DataFrame or 2-D array-like
        Systems × topics; NaN marks a missing cell.  Infinite values are always an error.
    missing : {"raise", "zero", "drop"}
        ``"raise"`` (default): :class:`~riskeval.errors.MissingTopicsError` naming the number of
        missing cells and examples.  ``"zero"``: missing cells score 0, as ``trec_eval -c`` and
        ``gdeval -c`` do for topics a run did not retrieve for.  ``"drop"``: keep only the topics
        evaluated for every system.
    source : str
        What the matrix was read from, quoted at the start of the error or warning message.

    Returns
    -------
    DataFrame
        The validated float64 matrix (index ``"system"``, columns ``"topic"``, ``str`` labels), in
        the input's row and column order (dropped topics removed); a new frame that shares no
        memory with ``matrix``.
    """
    check_option(missing, MISSING_POLICIES, "apply_missing", "missing")
    frame, complete = _float_frame(matrix, source)
    if complete:
        return frame.copy()  # the caller's own, writable matrix: never a view of the input
    kept = kept_topics(np.isnan(frame.to_numpy()), list(frame.index), list(frame.columns), missing, source)
    return frame.fillna(0.0) if missing == "zero" else frame.loc[:, kept]


def kept_topics(
    missing_cells: np.ndarray,
    systems: Sequence[str],
    topics: Sequence[str],
    missing: MissingPolicy,
    source: str,
) -> np.ndarray:
    """The missing-topic policy of :func:`apply_missing` applied to the missing cells of a
    matrix (``missing_cells``: systems × topics, some True) labelled ``systems`` and ``topics``:
    the mask of the topics kept (every one under ``"zero"``, whose cells score 0), with the same
    warning, or the same :class:`~riskeval.errors.MissingTopicsError`."""
    if missing == "raise":
        raise MissingTopicsError(
            _describe_missing(missing_cells, systems, topics, source) + " " + _CHOOSE_POLICY
        )
    if missing == "zero":
        _warn(
            _describe_missing(missing_cells, systems, topics, source)
            + " They were scored 0 (missing='zero')."
        )
        return np.ones(missing_cells.shape[1], dtype=bool)
    complete = ~np.asarray(missing_cells.any(axis=0), dtype=bool)
    if not complete.any():
        raise MissingTopicsError(
            _describe_missing(missing_cells, systems, topics, source)
            + " No topic is evaluated for every system, so missing='drop' would leave nothing;"
            " use missing='zero' or remove the systems with few scores."
        )
    discarded = int((~missing_cells[:, ~complete]).sum())
    _warn(
        _describe_missing(missing_cells, systems, topics, source)
        + f" Those {int((~complete).sum())} topic(s) were dropped (missing='drop'), discarding"
        f" {discarded} score(s) of the systems that had them; {int(complete.sum())} topic(s)"
        " remain."
    )
    return complete


_CHOOSE_POLICY = (
    "Choose a missing-topic policy: missing='zero' scores them 0 (as trec_eval -c does), "
    "missing='drop' keeps only the topics evaluated for every system."
)


def _describe_missing(nan: np.ndarray, systems: Sequence[str], topics: Sequence[str], source: str) -> str:
    """One sentence counting the missing cells (``nan``: systems × topics), the topics and systems
    they touch, with examples."""
    touched = np.flatnonzero(nan.any(axis=0))
    affected = np.flatnonzero(nan.any(axis=1))
    examples = []
    for j in touched[:_EXAMPLES].tolist():
        who = [systems[i] for i in np.flatnonzero(nan[:, j]).tolist()]
        shown = ", ".join(repr(s) for s in who[:_EXAMPLES])
        more = f" and {len(who) - _EXAMPLES} more" if len(who) > _EXAMPLES else ""
        examples.append(f"topic {topics[j]!r} has no score for {shown}{more}")
    text = (
        f"{source}: {int(nan.sum())} of {nan.size} (system, topic) cell(s) are missing: "
        f"{touched.size} of {nan.shape[1]} topic(s) are not evaluated for every system, "
        f"{affected.size} of {nan.shape[0]} system(s) affected; e.g. {'; '.join(examples)}."
    )
    empty = [systems[i] for i in np.flatnonzero(nan.all(axis=1)).tolist()]
    if len(empty):
        text += f" System(s) with no score at all: {', '.join(repr(s) for s in empty[:10])}."
    return text


def huge(values: np.ndarray) -> np.ndarray:
    """The mask of scores that are infinite or of magnitude :data:`MAX_MAGNITUDE` or more (NaN:
    False), which a score matrix refuses."""
    with np.errstate(invalid="ignore"):
        return np.abs(values) >= MAX_MAGNITUDE


def _float_frame(X: Any, name: str) -> tuple[pd.DataFrame, bool]:
    """``X`` as a labelled float64 frame (``str`` labels, no duplicates, no infinite value), and
    whether it is complete (no NaN)."""
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        frame = X
        for axis, what in ((frame.index, "system"), (frame.columns, "topic")):
            if isinstance(axis, pd.MultiIndex):
                raise RiskevalError(
                    f"{name} has {axis.nlevels} levels of {what} labels (a MultiIndex): a score "
                    f"matrix has one label per {what}. Select one level (X['score'] after a "
                    "pivot_table) or join the levels into one label."
                )
    else:
        refuse_non_real(X, name)
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise RiskevalError(
                f"{name} must be a 2-D systems × topics matrix; got an array with {arr.ndim} dimension(s)."
            )
        frame = pd.DataFrame(arr)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise RiskevalError(f"{name} must have at least one system and one topic; got {frame.shape}.")
    if isinstance(X, pd.DataFrame) and frame.to_numpy().dtype.kind not in "fiu":
        for column, values in frame.items():
            refuse_non_real(values, f"{name}, topic {column!r}", frame.index)
    try:
        values = frame.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise RiskevalError(f"{name} must hold numbers only: {exc}") from None
    index = _str_labels(frame.index, "system", name)
    columns = _str_labels(frame.columns, "topic", name)
    # One pass: a sum of squares below MAX_MAGNITUDE² implies finite cells of magnitude below
    # MAX_MAGNITUDE (NaN and inf propagate); only otherwise scan cell by cell.  einsum, not the
    # BLAS dot: a threaded BLAS call leaves its threads spinning for a while, and the compiled
    # kernels that follow (resampling, evaluation) then share the cores with them (measured: the
    # Tukey HSD kernel on 30 × 500 took 1.6× as long after a dot of its matrix on 2 cores).
    flat = values.ravel(order="K")
    with np.errstate(over="ignore", invalid="ignore"):
        square = float(np.einsum("i,i->", flat, flat))
    complete = True
    if not square < MAX_MAGNITUDE * MAX_MAGNITUDE:
        complete = not np.isnan(values).any()
        bad = huge(values)
        if bad.any():
            rows, cols = np.nonzero(bad)
            example = float(values[rows[0], cols[0]])
            raise RiskevalError(
                f"{name} has {rows.size} infinite or huge cell(s), e.g. {example!r} for "
                f"system {index[rows[0]]!r}, topic {columns[cols[0]]!r}: scores must be finite numbers "
                f"of magnitude below {MAX_MAGNITUDE:g} (rescale them, which changes no ranking)."
            )
    return pd.DataFrame(values, index=index, columns=columns, copy=False), complete


def refuse_non_real(values: Any, name: str, labels: Any = None) -> None:
    """Refuse booleans and complex numbers among scores: ``True`` is not a score (a CSV cell
    ``True`` is refused the same way), and a complex score would silently lose its imaginary part.

    ``values`` is an array, a Series or a (nested) list; ``name`` says where it is (``"X, topic
    'q1'"``) and ``labels``, when given, names the system of each position.  Object arrays and
    lists are scanned cell by cell for Python and numpy booleans and complex numbers.
    """
    if not hasattr(values, "dtype"):  # a list: numpy would read True as 1.0
        values = np.asarray(values, dtype=object)
    dtype = values.dtype
    kind = getattr(dtype, "kind", "O")
    if kind in "bc":
        raise RiskevalError(f"{name} holds {_NON_REAL[kind]} (dtype {dtype}): {_REAL_ONLY[kind]}")
    if kind == "O":
        cells = np.asarray(values, dtype=object).ravel()
        for position, cell in enumerate(cells):
            odd = "b" if isinstance(cell, (bool, np.bool_)) else "c" if is_complex(cell) else None
            if odd is not None:
                where = f"system {labels[position]!r}" if labels is not None else f"position {position}"
                raise RiskevalError(f"{name} holds {cell!r} ({_ONE[odd]}) for {where}: {_REAL_ONLY[odd]}")


def is_complex(cell: Any) -> bool:
    """A Python or numpy complex number."""
    return isinstance(cell, (complex, np.complexfloating))


_NON_REAL = {"b": "booleans", "c": "complex numbers"}
_ONE = {"b": "a boolean", "c": "a complex number"}
_REAL_ONLY = {
    "b": "scores must be real numbers; convert them explicitly (.astype(float)) if 0 and 1 are the "
    "scores meant.",
    "c": "scores must be real numbers; take .real explicitly if the imaginary parts are 0.",
}


def _str_labels(labels: pd.Index, what: str, name: str) -> pd.Index:
    import pandas as pd

    """Labels as ``str`` named ``what``, refusing missing labels (NaN, None) and duplicates.

    Labels that are strings already are kept as they are (only renamed), and the duplicate check
    runs on the caller's index when the conversion cannot merge two labels (strings, integers):
    pandas computes it once per index, so passing the same frame again costs nothing.
    """
    if isinstance(labels, pd.RangeIndex):  # distinct integers by construction
        return _range_labels(labels.start, labels.stop, labels.step).rename(what)
    if labels.hasnans:  # cached by pandas, as has_duplicates
        position = int(np.flatnonzero(labels.isna())[0])
        where = "row" if what == "system" else "column"
        raise RiskevalError(
            f"{name} has a missing {what} label ({labels[position]!r}) at {where} {position + 1} "
            f"(position {position}): every {what} needs a name."
        )
    if pd.api.types.is_string_dtype(labels.dtype) and labels.dtype != object:
        converted, injective = labels, True
    elif labels.dtype.kind in "iu":
        converted, injective = labels.astype(str), True  # the text of str(), one per integer
    else:
        converted, injective = labels.map(str), False
    if (labels if injective else converted).has_duplicates:
        dup = converted[converted.duplicated()].unique().tolist()[:5]
        raise RiskevalError(f"{name} has duplicate {what} labels: {dup}.")
    return converted.rename(what)  # a new index object: renaming the result leaves ``labels`` alone


@functools.lru_cache(maxsize=4)
def _range_labels(start: int, stop: int, step: int) -> pd.Index:
    import pandas as pd

    """The text of a ``RangeIndex``'s labels, converted once per range: the default labels of a
    frame or array validated again (a matrix's two axes, call after call) are not converted again.
    Callers rename the result, a new Index object, so the one kept here is never exposed."""
    return pd.RangeIndex(start, stop, step).astype(str)


_PACKAGE_DIR = str(Path(__file__).parents[1]) + os.sep


def _warn(message: str) -> None:
    """Warn with :class:`MissingTopicsWarning`, attributed to the first caller outside riskeval."""
    frame = sys._getframe(1)
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, MissingTopicsWarning, stacklevel=level)
