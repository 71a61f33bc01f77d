"""Score tables held in pandas DataFrames: long (one row per system, topic, score) and wide
(one row per system, one column per topic).

The readers of files and of other tools' results end here too: they locate each row (``file:line``
or a row label) so that every problem can be reported where it is.

Order of the result: systems and topics in order of first appearance (long tables: reading the rows
top to bottom; wide tables: the rows and columns as they are).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.measures import check_measure, describe_available, resolve_measure
from riskeval.io.problems import MAX_PROBLEMS, show
from riskeval.model.matrix import MAX_MAGNITUDE, apply_missing, huge, is_complex
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

Locate = Callable[[int], str]
"""Maps a row position of the table to the place it came from (``"file:line"``, ``"row 3"``)."""

MEASURE_COLUMN = "measure"

#: Cells spelled like this (any case, surrounding spaces ignored) are missing, not malformed.
MISSING_STRINGS = frozenset({"", "na", "n/a", "nan", "null", "none"})

#: A long table's matrix may have empty cells (missing topics), but one of more than this many
#: cells (128 MiB of float64) must have at least one row for every :data:`MAX_CELLS_PER_ROW` cells:
#: otherwise a small file of distinct labels (100,000 rows naming 50,000 systems and 50,000
#: topics: 4 MB of text) would make a matrix of 2.5 billion cells (20 GB).
DENSE_FLOOR = 2**24
MAX_CELLS_PER_ROW = 4


def from_long(
    df: pd.DataFrame,
    *,
    system: Hashable = "system",
    topic: Hashable = "topic",
    score: Hashable = "score",
    measure: Any = None,
    missing: MissingPolicy = "raise",
) -> pd.DataFrame:
    """Score matrix from a long table: one row per (system, topic) with its score.

    Parameters
    ----------
    df : DataFrame
        Columns ``system``, ``topic`` and ``score`` (named by the arguments below); index levels of
        those names count as columns.  Other columns are ignored, except a ``"measure"`` column
        (as in tidy per-query results from ir_measures or PyTerrier), whose rows ``measure``
        selects.
    system, topic, score : column labels
        The columns holding system names, topic ids and scores.
    measure : str or ir_measures measure, optional
        With a ``"measure"`` column: the measure to keep (trec_eval or ir_measures name; required
        when the column holds several measures).
    missing : {"raise", "zero", "drop"}
        What to do with topics scored for some systems only; see :func:`apply_missing`.

    Returns
    -------
    DataFrame
        Systems × topics, float64, ``str`` labels, in order of first appearance.

    Raises
    ------
    InputFormatError
        Listing every bad row: missing columns, empty labels, non-numeric, NaN or infinite scores,
        duplicate (system, topic) pairs.
    """
    check_option(missing, MISSING_POLICIES, "from_long", "missing")
    check_measure(measure)
    frame = index_to_columns(df, (system, topic, score))
    return long_to_matrix(
        frame,
        system=system,
        topic=topic,
        score=score,
        measure=measure,
        missing=missing,
        locate=row_labels(df),
        source="the long table",
    )


def from_wide(
    df: pd.DataFrame, *, system: Hashable = "system", missing: MissingPolicy = "raise"
) -> pd.DataFrame:
    """Score matrix from a wide table: one row per system, one column per topic.

    The systems are the ``system`` column if the table has one, otherwise the index.  Every other
    column is a topic.  Empty cells (NaN, or strings such as ``""``, ``"NA"``, ``"nan"``) are topics
    not evaluated for that system: ``missing`` decides what happens to them (see
    :func:`apply_missing`).  Infinite and non-numeric cells are errors.

    Returns
    -------
    DataFrame
        Systems × topics, float64, ``str`` labels, rows and columns in the table's order (topics
        dropped by ``missing="drop"`` removed).
    """
    check_option(missing, MISSING_POLICIES, "from_wide", "missing")
    return wide_to_matrix(df, system=system, missing=missing, locate=row_labels(df), source="the wide table")


def frame_to_matrix(
    frame: pd.DataFrame,
    *,
    system: Hashable,
    topic: Hashable,
    score: Hashable,
    measure: Any,
    missing: MissingPolicy,
    locate: Locate,
    source: str,
) -> pd.DataFrame:
    """A long or wide table (the rule of :func:`is_long`) as a score matrix."""
    if is_long(frame.columns, (system, topic, score)):
        return long_to_matrix(
            frame,
            system=system,
            topic=topic,
            score=score,
            measure=measure,
            missing=missing,
            locate=locate,
            source=source,
        )
    if measure is not None:
        raise RiskevalError(
            f"{source}: measure={str(measure)!r} applies to long tables only; this table is wide "
            f"(it does not have two of the columns {system!r}, {topic!r}, {score!r})."
        )
    return wide_to_matrix(frame, system=system, missing=missing, locate=locate, source=source)


def refuse_levels(labels: pd.Index, what: str, source: str) -> None:
    """Refuse a MultiIndex of ``what`` ("column", "row") labels: a score table has one header row
    and one label per system.  (A Parquet file written from a ``pivot_table`` holds one.)"""
    if isinstance(labels, pd.MultiIndex):
        example = show(labels[0]) if len(labels) else "()"
        raise InputFormatError(
            [
                (
                    source,
                    f"has {labels.nlevels} levels of {what} labels (a MultiIndex, e.g. {example}): a "
                    f"score table has one label per {what}. Select one level (df['score'] after a "
                    "pivot_table), or join the levels into one label, before reading it.",
                )
            ]
        )


def is_long(columns: Sequence[Hashable], names: Sequence[Hashable]) -> bool:
    """The long/wide rule: a table is long when at least two of ``names`` (system, topic, score
    column names) are among its columns; otherwise it is wide."""
    present = set(columns)
    return sum(name in present for name in names) >= 2


def index_to_columns(df: pd.DataFrame, names: Sequence[Hashable]) -> pd.DataFrame:
    """``df`` with the index levels named in ``names`` (and not already columns) moved into
    columns."""
    levels = [
        level for level in df.index.names if level is not None and level in names and level not in df.columns
    ]
    return df.reset_index(level=levels) if levels else df


def row_labels(df: pd.DataFrame) -> Locate:
    """Locate rows of an in-memory table by their index label."""
    return lambda i: f"row {show(df.index[i])}"


def long_to_matrix(
    frame: pd.DataFrame,
    *,
    system: Hashable,
    topic: Hashable,
    score: Hashable,
    measure: Any,
    missing: MissingPolicy,
    locate: Locate,
    source: str,
) -> pd.DataFrame:
    """:func:`from_long` with rows located by ``locate`` and messages citing ``source``."""
    refuse_levels(frame.columns, "column", source)
    if len(frame) == 0:
        raise InputFormatError([(source, "is empty: expected one row per (system, topic) with its score.")])
    _require_columns(frame, (system, topic, score), source)
    rows = None  # positions of the rows kept in the table given, when a measure selects them
    if MEASURE_COLUMN in frame.columns and MEASURE_COLUMN not in (system, topic, score):
        kept = _measure_rows(frame[MEASURE_COLUMN], measure, source)
        if len(kept) < len(frame):
            rows, frame = kept, frame.iloc[kept]
    elif measure is not None:
        raise InputFormatError(
            [
                (
                    source,
                    f"measure={str(measure)!r} was given but the table has no "
                    f"{MEASURE_COLUMN!r} column (its columns: {_columns(frame)}).",
                )
            ]
        )
    s_codes, s_names = label_codes(frame[system])
    t_codes, t_names = label_codes(frame[topic])
    raw = frame[score].to_numpy()
    values, absent, bad = to_float(raw)
    flagged: list[tuple[np.ndarray, Callable[[int], str]]] = [
        (s_codes < 0, lambda i: f"field {system!r} is empty: every row needs one."),
        (t_codes < 0, lambda i: f"field {topic!r} is empty: every row needs one."),
        (bad, lambda i: f"field {score!r}: {not_a_number(raw[i])}"),
        (
            absent,
            lambda i: (
                f"field {score!r} is empty or NaN: a long table lists the evaluated topics "
                "only; leave the row out (the missing-topic policy then applies)."
            ),
        ),
        (huge(values), lambda i: f"field {score!r} is {_infinite_or_huge(values[i])}"),
    ]
    if not any(mask.any() for mask, _ in flagged):
        refuse_sparse(len(s_names), len(t_names), len(values), (system, topic), source)
        matrix = _assemble((s_codes, s_names), (t_codes, t_names), values)
        # every row fills a cell of its own unless a (system, topic) pair repeats
        if matrix.size - np.count_nonzero(np.isnan(matrix.to_numpy())) == len(values):
            del s_codes, t_codes, values, raw
            return apply_missing(matrix, missing, source=source)
    key = s_codes.astype(np.int64) * len(t_names) + t_codes
    first = first_occurrence(key)
    position = (lambda i: i) if rows is None else rows.__getitem__
    repeated = (first != np.arange(len(first))) & (s_codes >= 0) & (t_codes >= 0)
    flagged.append(
        (
            repeated,
            lambda i: (
                f"duplicate (system, topic) ({s_names[s_codes[i]]!r}, {t_names[t_codes[i]]!r}): "
                f"first at {locate(position(first[i]))}."
            ),
        )
    )
    raise _row_problems(flagged, lambda i: locate(position(i)))


def _row_problems(flagged: list[tuple[np.ndarray, Callable[[int], str]]], locate: Locate) -> InputFormatError:
    """The error listing, in row order, the rows each mask of ``flagged`` marks with the message
    its function writes: the first :data:`~riskeval.io.problems.MAX_PROBLEMS` written, the others
    counted, so that a table of a million bad rows costs no million messages."""
    rows = [np.flatnonzero(mask) for mask, _ in flagged]
    kinds = np.concatenate([np.full(len(r), k) for k, r in enumerate(rows)])
    at = np.concatenate(rows)
    order = np.lexsort((kinds, at))[:MAX_PROBLEMS]
    kept = [(locate(int(at[j])), flagged[kinds[j]][1](int(at[j]))) for j in order]
    return InputFormatError(kept, omitted=len(at) - len(kept))


def refuse_sparse(
    systems: int, topics: int, rows: int, names: tuple[Hashable, Hashable], source: str
) -> None:
    """Refuse a long table whose matrix would be past :data:`DENSE_FLOOR` cells and more than
    :data:`MAX_CELLS_PER_ROW` times as many cells as the table has rows, before it is allocated."""
    cells = systems * topics
    if cells <= DENSE_FLOOR or cells <= MAX_CELLS_PER_ROW * rows:
        return
    raise InputFormatError(
        [
            (
                source,
                f"has {rows:,} rows for {systems:,} systems × {topics:,} topics: its matrix would "
                f"have {cells:,} cells ({cells * 8 / 2**30:,.1f} GiB), {cells / rows:,.0f} for each "
                f"row, but a table of scores of systems on common topics fills at least one cell in "
                f"{MAX_CELLS_PER_ROW}. Check its system and topic columns ({names[0]!r}, {names[1]!r}).",
            )
        ]
    )


def wide_to_matrix(
    frame: pd.DataFrame,
    *,
    system: Hashable,
    missing: MissingPolicy,
    locate: Locate,
    source: str,
) -> pd.DataFrame:
    """:func:`from_wide` with rows located by ``locate`` and messages citing ``source``."""
    refuse_levels(frame.columns, "column", source)
    if system in frame.columns:
        if int((frame.columns == system).sum()) > 1:
            raise InputFormatError([(source, f"column {system!r} appears more than once.")])
        raw_systems = frame[system]
        cells = frame.drop(columns=system)
    else:
        refuse_levels(frame.index, "row", source)
        raw_systems = frame.index.to_series()
        cells = frame
    if cells.shape[0] == 0 or cells.shape[1] == 0:
        raise InputFormatError(
            [(source, f"is empty: expected systems (rows) × topics (columns); got {cells.shape}.")]
        )
    problems: list[tuple[tuple[int, int], str, str]] = []  # ((row, column), location, message)
    systems, empty = labels(raw_systems)
    topics, empty_topic = labels(pd.Series(cells.columns, dtype=object))
    for j in _where(empty_topic):
        problems.append(((-1, j), source, f"topic column {j + 1} has no name."))
    first_topic = first_occurrence(encode(topics)[0])
    for j in _where((first_topic != np.arange(len(topics))) & ~empty_topic):
        problems.append(((-1, j), source, f"topic column {topics[j]!r} appears more than once."))
    for i in _where(empty):
        problems.append(((i, -1), locate(i), "the system label is empty."))
    first_system = first_occurrence(encode(systems)[0])
    for i in _where((first_system != np.arange(len(systems))) & ~empty):
        problems.append(
            (
                (i, -1),
                locate(i),
                f"system {systems[i]!r} appears again (first at {locate(first_system[i])}).",
            )
        )
    values, bad_cells, problems_cells = _wide_values(cells, topics, locate)
    problems += problems_cells
    if problems:
        problems.sort(key=lambda p: p[0])
        found = [(loc, msg) for _, loc, msg in problems]
        if bad_cells.all(axis=0).any():
            found.insert(0, (source, _wide_hint(cells, bad_cells)))
        raise InputFormatError(found)
    matrix = pd.DataFrame(values, index=pd.Index(systems), columns=pd.Index(topics), copy=False)
    return apply_missing(matrix, missing, source=source)  # a copy: never a view of the table


def _wide_values(
    cells: pd.DataFrame, topics: np.ndarray, locate: Locate
) -> tuple[np.ndarray, np.ndarray, list]:
    """Cell values of a wide table, the mask of cells that are not numbers (text) and one problem
    per bad cell (text, booleans, complex numbers)."""
    if all(_is_number_dtype(dtype) for dtype in set(cells.dtypes)):
        values = cells.to_numpy(dtype=np.float64)
        raw = values
        bad = np.zeros(values.shape, dtype=bool)
    else:
        raw = cells.to_numpy(dtype=object)
        flat, _, bad_flat = to_float(raw.ravel())
        values, bad = flat.reshape(raw.shape), bad_flat.reshape(raw.shape)
    problems = []
    text = bad.copy()  # the cells that are not numbers at all (booleans and complex numbers are)
    for i, j in zip(*np.nonzero(bad) if bad.any() else ((), ()), strict=True):
        problems.append(((i, j), f"{locate(i)}, topic {topics[j]!r}", not_a_number(raw[i, j])))
        text[i, j] = not (isinstance(raw[i, j], (bool, np.bool_)) or is_complex(raw[i, j]))
    for i, j in zip(*np.nonzero(huge(values)), strict=True):
        problems.append(((i, j), f"{locate(i)}, topic {topics[j]!r}", _huge_cell(values[i, j])))
    return values, text, problems


def _infinite_or_huge(value: float) -> str:
    if np.isinf(value):
        return "infinite: scores must be finite."
    return (
        f"{show(value)}: scores must be of magnitude below {MAX_MAGNITUDE:g} (rescale them, "
        "which changes no ranking)."
    )


def _huge_cell(value: float) -> str:
    if np.isinf(value):
        return "infinite score: scores must be finite."
    return f"score {_infinite_or_huge(value)}"


def _wide_hint(cells: pd.DataFrame, bad: np.ndarray) -> str:
    text = [str(c) for c in cells.columns[bad.all(axis=0)][:5]]
    return (
        f"column(s) {text} hold no numbers. The table was read as wide (one row per system, one "
        "column per topic) because it lacks two of the columns named by system=, topic=, score= "
        f"(its columns: {_columns(cells)}); for a long table pass the names of its system, topic "
        "and score columns."
    )


def distinct_text(column: pd.Series) -> list[str]:
    """The distinct values of ``column`` as text, in order of first appearance (one conversion per
    distinct value, not per row)."""
    return [str(value) for value in dict.fromkeys(pd.unique(column).astype(str))]


def labels(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Labels as an object array of ``str`` and the mask of empty ones (NaN, None or "")."""
    series = pd.Series(np.asarray(values, dtype=object), dtype=object)
    missing = series.isna().to_numpy()
    if pd.api.types.infer_dtype(series, skipna=True) != "string":
        series = series.map(str)
    text = series.to_numpy(dtype=object, copy=True)
    text[missing] = ""
    return text, missing | (text == "")


def to_float(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Convert cells to float64: ``(values, missing, non_numeric)``.

    Missing cells (NaN, None, strings in :data:`MISSING_STRINGS`) and non-numeric cells are NaN in
    ``values``.
    """
    if _is_number_dtype(raw.dtype):
        values = np.asarray(raw, dtype=np.float64)
        return values, np.isnan(values), np.zeros(values.shape, dtype=bool)
    if raw.dtype.kind in "bc":  # booleans, complex numbers: not scores (see non_real)
        nan = np.full(raw.shape, np.nan)
        return nan, np.zeros(raw.shape, dtype=bool), np.ones(raw.shape, dtype=bool)
    series = pd.Series(raw, dtype=object)
    odd = _non_real_cells(series)
    numbers = pd.to_numeric(series.mask(odd) if odd.any() else series, errors="coerce")
    values = np.asarray(numbers, dtype=np.float64)
    nan = np.isnan(values)
    missing = series.isna().to_numpy(copy=True)
    for i in _where(nan & ~missing):
        cell = raw[i]
        missing[i] = isinstance(cell, str) and cell.strip().lower() in MISSING_STRINGS
    return values, missing, nan & ~missing


def _non_real_cells(series: pd.Series) -> np.ndarray:
    """The mask of booleans and complex numbers among object cells; pandas' type inference (in C)
    skips the scan of columns that hold strings or real numbers only."""
    inferred = pd.api.types.infer_dtype(series, skipna=True)
    if inferred in ("string", "floating", "integer", "mixed-integer-float", "decimal", "empty"):
        return np.zeros(len(series), dtype=bool)
    return np.fromiter(
        (isinstance(cell, (bool, np.bool_)) or is_complex(cell) for cell in series),
        dtype=bool,
        count=len(series),
    )


def not_a_number(cell: Any) -> str:
    """Why a score cell is refused: ``'x' is not a number``; a boolean or complex number is named
    as such (``True`` would otherwise read as 1.0)."""
    if isinstance(cell, (bool, np.bool_)):
        return f"{show(cell)} is a boolean, not a score: scores are real numbers."
    if is_complex(cell):
        return f"{show(cell)} is a complex number, not a score: scores are real numbers."
    return f"{show(cell)} is not a number."


def label_codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of labels in order of first appearance (−1 for an empty label: NaN, None or
    ""), and the distinct labels as ``str``.  Only the distinct labels become Python strings, never
    one per row; distinct values that read the same as text (``1`` and ``"1"``) share a code."""
    codes, uniques = pd.factorize(values, sort=False)
    text, empty = labels(uniques)
    merged = np.full(len(text) + 1, -1, dtype=np.int32)  # the last entry maps code −1 to −1
    merged[:-1][~empty], distinct = pd.factorize(text[~empty], sort=False)
    return merged[codes], np.asarray(distinct, dtype=object)


def encode(text: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of labels and the distinct labels, in order of first appearance."""
    return pd.factorize(pd.Series(text, dtype=object), sort=False)


def first_occurrence(codes: np.ndarray) -> np.ndarray:
    """For each row, the position of the first row with the same code."""
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return first[inverse.ravel()]


def assemble(systems: np.ndarray, topics: np.ndarray, values: Any) -> pd.DataFrame:
    """Systems × topics frame (NaN where a pair is absent) from unique (system, topic, value) rows,
    systems and topics in order of first appearance."""
    return _assemble(encode(systems), encode(topics), values)


def _assemble(systems: tuple[np.ndarray, Any], topics: tuple[np.ndarray, Any], values: Any) -> pd.DataFrame:
    (s_codes, s_uniques), (t_codes, t_uniques) = systems, topics
    # pandas' own layout, as a wide table has it: each topic's scores side by side in memory (the
    # analyses run 2-4x slower on the transposed layout of a large matrix)
    matrix = np.full((len(s_uniques), len(t_uniques)), np.nan, order="F")
    matrix[s_codes, t_codes] = values
    return pd.DataFrame(
        matrix,
        index=pd.Index(s_uniques, name="system").astype(str),
        columns=pd.Index(t_uniques, name="topic").astype(str),
        copy=False,
    )


def _measure_rows(column: pd.Series, measure: Any, source: str) -> np.ndarray:
    """Positions of the rows of the requested measure in a table's ``measure`` column."""
    codes, names = label_codes(column)
    available = list(names) + ([""] if (codes < 0).any() else [])  # "": rows naming no measure
    if measure is None:
        if len(available) == 1:
            return np.arange(len(codes))
        raise InputFormatError(
            [
                (
                    source,
                    f"there are {len(available)} measures (column {MEASURE_COLUMN!r}): "
                    f"{describe_available(available)}; choose one with measure=.",
                )
            ]
        )
    chosen = resolve_measure(measure, available)
    if chosen is None:
        raise InputFormatError(
            [
                (
                    source,
                    f"measure {str(measure)!r} is not in the {MEASURE_COLUMN!r} column; the "
                    f"measures there are: {describe_available(available)}.",
                )
            ]
        )
    return np.flatnonzero(codes == available.index(chosen))


def _require_columns(frame: pd.DataFrame, names: Sequence[Hashable], source: str) -> None:
    absent = [name for name in names if name not in frame.columns]
    if absent:
        raise InputFormatError(
            [
                (
                    source,
                    f"missing required column(s) {absent}; the table has columns "
                    f"{_columns(frame)}. Name the columns holding systems, topics and scores "
                    "with system=, topic=, score=.",
                )
            ]
        )
    repeated = [name for name in names if int((frame.columns == name).sum()) > 1]
    if repeated:
        raise InputFormatError([(source, f"column(s) {repeated} appear more than once.")])


def _columns(frame: pd.DataFrame) -> list:
    return list(frame.columns)


def _where(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask).tolist()


def _is_number_dtype(dtype: Any) -> bool:
    """A dtype of real numbers: numeric, neither boolean nor complex."""
    return (
        pd.api.types.is_numeric_dtype(dtype)
        and not pd.api.types.is_bool_dtype(dtype)
        and not pd.api.types.is_complex_dtype(dtype)
    )
