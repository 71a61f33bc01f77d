"""The partitions of a long (system, topic, [measure,] score) table as codes into small label sets.

A long table repeats a few thousand system and topic labels over millions of rows.  Each partition
is handed to the passes of :mod:`riskeval.distributed.risk` as a :class:`Piece`: per row, the
position of its system and of its topic in the partition's labels, and its score.  Labels are
never materialised per row: Parquet's dictionary-encoded columns are read as their dictionary
indices (``pyarrow``'s ``dictionary_columns``), a pandas categorical column gives its codes, and
only a column of plain values is factorised (``pandas.factorize``).  Labels are text, as the
in-memory readers give them (``str`` of each value).

A Parquet source is read with ``pyarrow.dataset`` (a file, a folder, hive-partitioned folders or
a glob of files), one partition per file; a file whose row groups hold more than
``2 × BLOCK_BYTES`` of uncompressed data is cut into runs of whole row groups of about
``BLOCK_BYTES``, so that a worker never holds much more than that.
"""

from __future__ import annotations

import glob
import os
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from riskeval._optional import require
from riskeval.errors import RiskevalError
from riskeval.io.score_files import cannot_open, unreadable_parquet

#: Uncompressed Parquet bytes a partition aims at (Dask's default block size).
BLOCK_BYTES = 256 * 2**20
_LABELS = ("system", "topic", "measure")
_EXTENSIONS = (".parquet", ".parq", ".pq")


class Piece(NamedTuple):
    """Rows of a long table: ``systems[system[k]]``, ``topics[topic[k]]`` and ``score[k]`` are row
    ``k``'s labels and score.  The label sets are unique text, in no particular order, and may
    hold labels no row uses."""

    system: np.ndarray  # intp codes
    systems: pd.Index
    topic: np.ndarray
    topics: pd.Index
    score: np.ndarray  # float64; NaN where the value is not a number


def partitions(source: Any, measure: str | None, func: str, compute: Any) -> list[Any]:
    """Delayed :class:`Piece`\\ s of ``source`` (a Parquet path, a dask or a pandas DataFrame), the
    rows of ``measure`` when the table has a ``measure`` column; ``compute`` computes a delayed
    object (the measures the table holds)."""
    dask = require("dask", f"{func} (a long table on Dask)")
    if isinstance(source, (str, os.PathLike)):
        parts, columns = _parquet_parts(os.fspath(source), func)
    else:
        parts, columns = _frame_parts(source, func)
    missing = [c for c in ("system", "topic", "score") if c not in columns]
    if missing:
        raise RiskevalError(
            f"The table of {func} needs the columns system, topic, score (and measure with several "
            f"measures); it lacks {missing}, has {list(columns)}."
        )
    chosen = None
    if "measure" in columns:
        found = compute(dask.delayed(list)([dask.delayed(_measures)(part) for part in parts]))
        measures = sorted(set().union(*found))
        if measure is None and len(measures) > 1:
            raise RiskevalError(
                f"The table of {func} holds several measures ({', '.join(measures)}); "
                "choose one with measure=."
            )
        if measure is not None and measure not in measures:
            raise RiskevalError(
                f"The table of {func} has no measure {measure!r}; it has {', '.join(measures)}."
            )
        chosen = measure if measure is not None else (measures[0] if measures else None)
    elif measure is not None:
        raise RiskevalError(f"The table of {func} has no measure column; leave measure=None.")
    return [dask.delayed(piece)(part, chosen) for part in parts]


def piece(part: Any, measure: str | None) -> Piece:
    """The :class:`Piece` of one partition (a pandas DataFrame, or a Parquet fragment read here),
    its rows of ``measure`` when that is not ``None``."""
    columns = ["system", "topic", "score"] + ([] if measure is None else ["measure"])
    data = _read(part, columns)
    system, systems = _codes(data["system"], "system")
    topic, topics = _codes(data["topic"], "topic")
    score = _scores(data["score"])
    if measure is not None:
        codes, names = _codes(data["measure"], "measure")
        keep = codes == names.get_indexer([measure])[0]
        if not keep.all():
            system, topic, score = system[keep], topic[keep], score[keep]
    return Piece(system, systems, topic, topics, score)


def _measures(part: Any) -> set[str]:
    """The measures the rows of a partition hold."""
    codes, names = _codes(_read(part, ["measure"])["measure"], "measure")
    return set(names[pd.unique(codes)])


# --- sources -----------------------------------------------------------------------------------


def _parquet_parts(path: str, func: str) -> tuple[list[Any], list[str]]:
    """Runs of row groups of a Parquet data set, read with their dictionary indices; files of a
    folder (``.parquet``, ``.parq``, ``.pq``, hive-partitioned folders included) and of a glob in
    natural order (``part2`` before ``part10``)."""
    ds = require("pyarrow.dataset", f"{func} of a Parquet table")
    from dask.utils import natural_sort_key

    files: Any = path
    base = None
    if os.path.isdir(path):
        files = [
            os.path.join(top, name)
            for top, _, names in os.walk(path)
            for name in names
            if name.endswith(_EXTENSIONS) and not name.startswith(("_", "."))
        ]
        base = path
    elif glob.has_magic(path):
        files = glob.glob(path)
    if isinstance(files, list):
        files.sort(key=natural_sort_key)
        if not files:
            raise RiskevalError(f"No Parquet file (.parquet, .parq, .pq) in {path!r} ({func}).")
    fmt = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=list(_LABELS)))
    try:
        data = ds.dataset(files, format=fmt, partitioning="hive", partition_base_dir=base)
        parts = []
        for fragment in data.get_fragments():
            groups = fragment.row_groups
            sizes = [group.total_byte_size for group in groups]
            if sum(sizes) <= 2 * BLOCK_BYTES:
                parts.append(_Fragment(fragment, data.schema))
                continue
            run: list[int] = []
            size = 0
            for group, nbytes in zip(groups, sizes, strict=True):
                if run and size + nbytes > BLOCK_BYTES:
                    parts.append(_Fragment(fragment.subset(row_group_ids=run), data.schema))
                    run, size = [], 0
                run.append(group.id)
                size += nbytes
            parts.append(_Fragment(fragment.subset(row_group_ids=run), data.schema))
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        if cannot_open(exc):
            raise
        raise unreadable_parquet(path, exc, "file or folder of Parquet files") from None
    return parts, list(data.schema.names)


class _Fragment(NamedTuple):
    """Row groups of a Parquet file, and the data set's schema (it holds the hive partitions'
    columns)."""

    fragment: Any
    schema: Any


def _frame_parts(source: Any, func: str) -> tuple[list[Any], list[str]]:
    """Delayed pandas partitions of a pandas or dask DataFrame."""
    dd = require("dask.dataframe", f"{func} (a long table on Dask)")
    if isinstance(source, pd.DataFrame):
        frame = dd.from_pandas(source, npartitions=max(1, len(source) // 1_000_000))
    elif isinstance(source, dd.DataFrame):
        frame = source
    else:
        raise RiskevalError(
            f"The 'source' of {func} must be a Parquet path, a dask DataFrame or a pandas DataFrame; "
            f"got {type(source).__name__}."
        )
    columns = list(frame.columns)
    present = [c for c in (*_LABELS, "score") if c in columns]
    return list(frame[present].to_delayed()), columns


def _read(part: Any, columns: list[str]) -> Any:
    """The ``columns`` of a partition: a pandas DataFrame, or a ``pyarrow.Table`` of a fragment (an
    :class:`~riskeval.errors.InputFormatError` naming its file when a page is damaged, as in
    memory)."""
    if isinstance(part, pd.DataFrame):
        return part
    try:
        return part.fragment.to_table(schema=part.schema, columns=columns, use_threads=False)
    except (OSError, ValueError) as exc:  # a damaged page (the footer was read by _parquet_parts)
        if cannot_open(exc):
            raise
        raise unreadable_parquet(part.fragment.path, exc) from None


# --- columns -----------------------------------------------------------------------------------


def _codes(column: Any, name: str) -> tuple[np.ndarray, pd.Index]:
    """Each row's position in the column's labels (unique text), and the labels.  An Arrow
    dictionary column (of Parquet) or a pandas categorical gives its codes; other columns are
    factorised."""
    if not isinstance(column, pd.Series):  # an Arrow column of a Parquet file
        if _is_dictionary(column.type):
            codes, labels = _arrow_codes(column)
        else:  # not a text column (e.g. numbers), or a hive partition's column
            column = column.to_pandas()
    if isinstance(column, pd.Series):
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes, labels = column.cat.codes.to_numpy(), column.cat.categories
        else:
            codes, labels = pd.factorize(column)
    codes = codes.astype(np.intp, copy=False)
    labels = pd.Index(labels)
    if labels.hasnans:  # a missing label (a null in a dictionary, a NaN category): no label
        codes = np.where(labels.isna().to_numpy()[codes], -1, codes)
    labels = labels.astype(str)
    if len(codes) and codes.min() < 0:
        raise RiskevalError(
            f"The long table has a row with no {name} (row {int(np.argmax(codes < 0))} of a partition); "
            f"give every row a {name}."
        )
    if not labels.is_unique:  # e.g. the categories 1 and "1": one label, as in memory
        unique = labels.unique()
        codes, labels = unique.get_indexer(labels)[codes], unique
    return codes, labels


def _is_dictionary(kind: Any) -> bool:
    import pyarrow

    return bool(pyarrow.types.is_dictionary(kind))


def _arrow_codes(column: Any) -> tuple[np.ndarray, pd.Index]:
    """Codes and labels of an Arrow dictionary column: each chunk's indices mapped through its
    dictionary to one label set (the row groups of a Parquet file have their own dictionaries)."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    dictionaries: list[Any] = []
    which = []
    for chunk in chunks:
        k = next((n for n, seen in enumerate(dictionaries) if chunk.dictionary.equals(seen)), None)
        if k is None:
            k = len(dictionaries)
            dictionaries.append(chunk.dictionary)
        which.append(k)
    values = [pd.Index(d.to_pandas()).astype(str) for d in dictionaries]
    labels = values[0].append(values[1:]).unique() if values else pd.Index([], dtype=str)
    to_labels = [np.append(labels.get_indexer(v), -1) for v in values]  # -1: a row with no label
    codes = np.empty(len(column), np.intp)
    start = 0
    for chunk, k in zip(chunks, which, strict=True):
        indices = chunk.indices.fill_null(-1) if chunk.null_count else chunk.indices
        codes[start : start + len(chunk)] = to_labels[k][indices.to_numpy()]
        start += len(chunk)
    return codes, labels


def _scores(column: Any) -> np.ndarray:
    """The scores as float64 (NaN where a value is not a number: reported by the first pass)."""
    if not isinstance(column, pd.Series):  # an Arrow column
        column = column.to_pandas()
    return pd.to_numeric(column, errors="coerce").to_numpy(np.float64, na_value=np.nan)
