"""Score tables in files: CSV, TSV (optionally ``.gz``/``.bz2``/``.xz`` compressed) and Parquet,
long or wide (the rule of :func:`riskeval.io.tables.is_long`)."""

from __future__ import annotations

import csv
import functools
import os
import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from riskeval.errors import InputFormatError, MissingTopicsWarning, RiskevalError
from riskeval.io.decoding import lines, read_text
from riskeval.io.delimited import read_delimited
from riskeval.io.formats import FORMATS, UNNAMED, Request, extension_of, unnamed_key
from riskeval.io.measures import check_measure
from riskeval.io.problems import Problems
from riskeval.io.tables import (
    MEASURE_COLUMN,
    Locate,
    distinct_text,
    frame_to_matrix,
    index_to_columns,
    is_long,
    refuse_sparse,
)
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

#: The formats of :func:`read_scores`; their extensions are those of the registry,
#: :data:`riskeval.io.formats.FORMATS`.
TABLE_FORMATS = ("csv", "tsv", "parquet")
_DELIMITER = {"csv": ",", "tsv": "\t"}


def read_scores(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    measure: Any = None,
    missing: MissingPolicy = "raise",
    system: Hashable = "system",
    topic: Hashable = "topic",
    score: Hashable = "score",
) -> pd.DataFrame:
    """Score matrix from a CSV, TSV or Parquet file holding a long or a wide table.

    Parameters
    ----------
    path : str or path
        The file.  Its format comes from ``format`` or else its extension: ``.csv``, ``.tsv`` /
        ``.tab``, ``.parquet`` / ``.pq``; CSV and TSV may be compressed (``.csv.gz``, ``.tsv.bz2``,
        ``.csv.xz``).
    format : {"csv", "tsv", "parquet"}, optional
        Overrides the extension.
    measure, missing, system, topic, score
        As in :func:`riskeval.io.tables.from_long`; ``measure`` applies to long tables only.

    Notes
    -----
    CSV and TSV files need a header line.  The table is long when the header names at least two
    of the ``system``, ``topic`` and ``score`` columns, otherwise wide: the ``system`` column, or
    else the first column, names the systems and every other column is a topic.  Blank lines are
    skipped; every other line must have as many fields as the header.  Problems are reported as
    ``file:line``.  Parquet files are read with pandas (pyarrow) and follow the DataFrame rules of
    :func:`riskeval.score_matrix` (an index named ``system`` or ``topic`` counts as a column);
    problems are reported as ``file: row N`` (N from 1).
    """
    check_option(missing, MISSING_POLICIES, "read_scores", "missing")
    check_measure(measure)
    fmt = table_format(path, format)
    names = (system, topic, score)
    malformed = Problems()
    if fmt == "parquet":
        # the labels of a long table as Arrow dictionaries: each label held once, not once per row
        columns = table_columns(path, fmt)
        labelled = (system, topic, MEASURE_COLUMN) if is_long(columns, names) else ()
        if labelled and system in columns and topic in columns:
            _refuse_sparse_parquet(path, names, MEASURE_COLUMN in columns)
        frame = index_to_columns(_read_parquet(path, [c for c in labelled if c in columns]), names)
        locate: Locate = lambda i: f"{path}: row {i + 1}"  # noqa: E731
    else:
        frame, lines, malformed = read_delimited(
            path, _DELIMITER[fmt], functools.partial(_label_columns, names=names)
        )
        locate = lambda i: f"{path}:{lines[i]}"  # noqa: E731
        if not is_long(frame.columns, names) and system not in frame.columns:
            first = pd.Index(frame.iloc[:, 0].to_numpy(dtype=object))
            frame = frame.iloc[:, 1:].set_axis(first, axis=0)
    read = functools.partial(
        frame_to_matrix,
        frame,
        system=system,
        topic=topic,
        score=score,
        measure=measure,
        locate=locate,
        source=str(path),
    )
    if not malformed:
        return read(missing=missing)
    # Report the problems of the well-formed lines too, so that all can be fixed at once.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        try:
            if len(frame):
                read(missing="zero")
        except InputFormatError as exc:
            malformed.extend(exc.problems, exc.omitted)
    raise malformed.error()


def table_format(path: str | os.PathLike, format: str | None) -> str:
    """The table format of ``path``: ``format`` if given, else from the file extension."""
    if format is not None:
        return check_option(format, TABLE_FORMATS, "read_scores", "format")
    tables = [f for f in FORMATS if f.name in TABLE_FORMATS]
    found = next((f.name for f in tables if f.claims_extension(path)), None)
    if found is not None:
        return found
    known = ", ".join(e for f in tables for e in f.extensions)
    extension = extension_of(path) or "(none)"
    raise RiskevalError(
        f"{path}: unknown score file extension {extension!r}; known extensions: {known}. "
        "Pass format='csv', 'tsv' or 'parquet' for a score table, or read the file with "
        "riskeval.score_matrix, which also reads trec_eval and ir_measures output."
    )


def read_table(path: str | os.PathLike, format: str, request: Request) -> dict[str, pd.DataFrame]:
    """The score matrices of a score table file, as :class:`riskeval.io.formats.Request` asks:
    one per measure of its ``measure`` column (those requested, or all in order), or the one matrix
    of a table without one, keyed by the measure requested or else ``"score"``."""
    read = functools.partial(read_scores, path, format=format, missing=request.missing, **request.columns)
    wanted = request.measures
    if request.one:
        measure = wanted[0] if wanted else None
        return {UNNAMED if measure is None else str(measure): read(measure=measure)}
    present = score_table_measures(path, format) if MEASURE_COLUMN in table_columns(path, format) else None
    if present is None:
        return {unnamed_key(wanted, os.fspath(path)): read()}
    return {str(m): read(measure=m) for m in dict.fromkeys(wanted or present)}


def score_table_measures(path: str | os.PathLike, format: str | None = None) -> list[str]:
    """The measures named in the ``measure`` column of a score table file, in order."""
    fmt = table_format(path, format)
    if fmt == "parquet":
        column = _read_parquet(path, [MEASURE_COLUMN], [MEASURE_COLUMN])[MEASURE_COLUMN]
    else:
        frame, _, _ = read_delimited(
            path, _DELIMITER[fmt], lambda header: {j for j, n in enumerate(header) if n == MEASURE_COLUMN}
        )
        column = frame[MEASURE_COLUMN]
    return distinct_text(column.dropna())


def table_columns(path: str | os.PathLike, format: str | None = None) -> list[str]:
    """The column names of a score table file, as :func:`read_scores` reads them (CSV/TSV: the
    first non-blank line, through :mod:`riskeval.io.decoding`; Parquet: the schema).

    Raises :class:`InputFormatError` for a CSV/TSV file that is not text (a truncated ``.gz``...);
    returns ``[]`` for an empty file or an unreadable Parquet file, which the reader then reports.
    """
    fmt = table_format(path, format)
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq

            return [str(name) for name in pq.read_schema(path).names]
        except ImportError:
            raise RiskevalError(
                "Reading Parquet files needs pyarrow: pip install 'riskeval[parquet]'."
            ) from None
        except Exception as exc:  # pyarrow's ArrowInvalid and friends: read_scores says what is wrong
            if cannot_open(exc):
                raise
            return []
    header = next((line for line in lines(read_text(path)) if line.strip()), None)
    if header is None:
        return []
    try:
        return next(csv.reader([header], delimiter=_DELIMITER[fmt]), [])
    except csv.Error:
        return header.split(_DELIMITER[fmt])


def _label_columns(header: Sequence[Hashable], names: Sequence[Hashable]) -> set[int]:
    """Positions of the columns holding labels: system, topic (and measure) of a long table, the
    system column (or else the first column) of a wide one."""
    if is_long(header, names):
        wanted = {names[0], names[1], MEASURE_COLUMN}
    else:
        wanted = {names[0]} if names[0] in header else {header[0]}
    return {j for j, name in enumerate(header) if name in wanted}


#: Columns a Parquet file is read in at a time: pyarrow's reader costs about 13 KB per column at
#: once, so that a table of one row and 10,000 columns would cost over 100 MB read whole.
PARQUET_COLUMNS_AT_ONCE = 256


def _read_parquet(
    path: str | os.PathLike, dictionary: Sequence[Hashable] = (), columns: list[str] | None = None
) -> pd.DataFrame:
    """The table (its ``columns``, or all); the ``dictionary`` columns of text read as categorical
    (Arrow dictionaries), decoded by one thread: Arrow's decoding threads each hold buffers, which
    cost a table of many row groups about twice a valid table's memory.  A table of more than
    :data:`PARQUET_COLUMNS_AT_ONCE` columns is read that many at a time, then converted to pandas
    as one.  A file that is not Parquet, or is damaged, is
    an :class:`InputFormatError` naming it."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise RiskevalError("Reading Parquet files needs pyarrow: pip install 'riskeval[parquet]'.") from None
    try:
        file = pq.ParquetFile(path, read_dictionary=list(dictionary) or None)
        schema = file.schema_arrow
        if columns is not None or len(schema.names) <= PARQUET_COLUMNS_AT_ONCE:
            return pd.read_parquet(
                path, columns=columns, read_dictionary=list(dictionary) or None, use_threads=False
            )
        names = schema.names  # every column, the index's too: use_pandas_metadata adds none
        parts = [
            file.read(
                columns=names[k : k + PARQUET_COLUMNS_AT_ONCE], use_pandas_metadata=False, use_threads=False
            )
            for k in range(0, len(names), PARQUET_COLUMNS_AT_ONCE)
        ]
        return pa.Table.from_arrays([c for part in parts for c in part.columns], schema=schema).to_pandas()
    except Exception as exc:  # pyarrow raises ArrowInvalid, and OSError for a damaged footer or page
        if cannot_open(exc):
            raise
        raise unreadable_parquet(path, exc) from None


def _refuse_sparse_parquet(path: str | os.PathLike, names: Sequence[Hashable], measures: bool) -> None:
    """Refuse a long Parquet table too sparse for a matrix (:func:`riskeval.io.tables.refuse_sparse`)
    from its distinct systems and topics, counted in Arrow (text as dictionaries) before any label
    becomes a Python string; with a ``measure`` column only when it names one measure (each
    measure's rows are checked when they are read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    wanted = [str(names[0]), str(names[1]), *([MEASURE_COLUMN] if measures else [])]
    try:
        table = pq.read_table(  # one thread, no read-ahead
            path,
            columns=wanted,
            read_dictionary=wanted,
            use_pandas_metadata=False,
            use_threads=False,
            pre_buffer=False,
        )
        rows, counts = table.num_rows, [_distinct(column) for column in table.unify_dictionaries().columns]
    except Exception as exc:  # the reader reports what pyarrow cannot read
        if cannot_open(exc):
            raise
        return
    finally:  # Arrow's pool keeps what it freed: handed back, it is there for the reading
        table = None
        pa.default_memory_pool().release_unused()
    if not measures or counts[2] <= 1:
        refuse_sparse(counts[0], counts[1], rows, (names[0], names[1]), str(path))


def _distinct(column: Any) -> int:
    """The distinct values of an Arrow column besides null: its dictionary's, once unified (a
    Parquet dictionary holds the values of its row group), or counted."""
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        return len(column.chunk(0).dictionary) if column.num_chunks else 0
    import pyarrow.compute as pc  # a column of numbers

    return int(pc.count_distinct(column).as_py())


def unreadable_parquet(path: str | os.PathLike, exc: BaseException, what: str = "file") -> InputFormatError:
    """The error for the Parquet ``path`` (a ``file``, or a ``what``) that pyarrow cannot read:
    ``exc`` is its ``OSError`` or ``ArrowInvalid`` (a damaged footer, page header or page)."""
    detail = " ".join(str(exc).split()) or type(exc).__name__
    return InputFormatError([(os.fspath(path), f"is not a readable Parquet {what}: {detail}")])


def cannot_open(exc: BaseException) -> bool:
    """Whether ``exc`` says that a file cannot be opened (missing, a folder, no permission: an
    ``OSError`` with an ``errno``), rather than that its content is damaged (pyarrow raises
    ``OSError`` without one for "Couldn't deserialize thrift")."""
    return isinstance(exc, OSError) and exc.errno is not None
