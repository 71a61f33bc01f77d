"""Readers of query-variation data: a tidy table file, a query → (topic, variant) mapping file, and
trec_eval ``-q`` outputs joined with a mapping.  The data model they produce is
:mod:`riskeval.model.variations`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.decoding import lines, read_text
from riskeval.io.delimited import read_delimited
from riskeval.io.problems import Problems
from riskeval.io.score_files import _read_parquet
from riskeval.io.trec_eval import read_trec_eval
from riskeval.model.variations import MAPPING_COLUMNS, as_variations, from_scores
from riskeval.options import MissingPolicy

_DELIMITERS = ("\t", ",", ";", "|")


def read_variation_table(path: str | Path) -> pd.DataFrame:
    """A tidy query-variation table from a file: Parquet (``.parquet``/``.pq``), or CSV/TSV (the
    delimiter, comma, tab, semicolon or bar, is detected from the header line) with a header naming
    the columns ``system``, ``topic``, ``variant``, ``score`` (and optionally ``query``); validated
    by :func:`as_variations`.

    Text files go through :mod:`riskeval.io.decoding` and the CSV/TSV reader of score tables, so
    problems are located as ``file:line`` (Parquet: ``file: row N``, N from 1).
    """
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        frame = _read_parquet(path)
        where = {f"row {label}": f"{path}: row {i + 1}" for i, label in enumerate(frame.index)}
        malformed = Problems()
    else:
        delimiter = _delimiter(read_text(path))
        frame, lines, malformed = read_delimited(path, delimiter, lambda header: set(range(len(header))))
        repeated = sorted({str(c) for c in frame.columns if int((frame.columns == c).sum()) > 1})
        if repeated:
            raise InputFormatError(
                [
                    (
                        str(path),
                        f"column(s) {repeated} appear more than once in the header.",
                    )
                ]
            )
        where = {f"row {i}": f"{path}:{line}" for i, line in enumerate(lines)}
        frame = frame.reset_index(drop=True)
    try:
        table = as_variations(frame, name=str(path))
    except InputFormatError as exc:
        malformed.extend([(where.get(loc, loc), msg) for loc, msg in exc.problems], exc.omitted)
        raise malformed.error() from None
    malformed.raise_any()
    return table


def _delimiter(text: str) -> str:
    """The delimiter of a CSV/TSV table: the first of tab, comma, semicolon, bar in its header."""
    header = next((line for line in lines(text) if line.strip()), "")
    found = [(header.find(d), d) for d in _DELIMITERS if d in header]
    return min(found)[1] if found else ","


def read_mapping(path: str | Path) -> pd.DataFrame:
    """Read a query → (topic, variant) mapping file.

    One mapping per line, three whitespace-separated fields ``query topic variant``; blank lines
    and lines starting with ``#`` are skipped, and a first line ``query topic variant`` is a
    header.  A query listed for several variants was issued by several users.  All malformed lines
    are reported together (``file:line``).  The file goes through :mod:`riskeval.io.decoding`.
    """
    path = Path(path)
    rows: list[tuple[str, str, str]] = []
    numbers: list[int] = []
    problems = Problems()
    for lineno, line in enumerate(lines(read_text(path)), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if tuple(f.lower() for f in fields) == MAPPING_COLUMNS and not rows:
            continue
        if len(fields) != 3:
            problems.append(
                (
                    f"{path}:{lineno}",
                    f"expected 3 fields 'query topic variant', found {len(fields)}",
                )
            )
            continue
        rows.append((fields[0], fields[1], fields[2]))
        numbers.append(lineno)
    if not rows and not problems:
        problems.append((str(path), "no mappings found (expected lines 'query topic variant')"))
    mapping = pd.DataFrame(rows, columns=list(MAPPING_COLUMNS))
    dup = mapping.duplicated(["topic", "variant"], keep=False)
    for idx in np.flatnonzero(dup.to_numpy()):
        q, t, v = rows[idx]
        problems.append(
            (f"{path}:{numbers[idx]}", f"topic {t!r}, variant {v!r} is mapped more than once ({q})")
        )
    problems.raise_any()
    return mapping


def read_variations(
    trec_eval_files,
    mapping: str | Path | pd.DataFrame,
    *,
    measure: str = "P_10",
    names: str | Sequence[str] | None = None,
    missing: MissingPolicy = "raise",
) -> pd.DataFrame:
    """Tidy variation table from trec_eval ``-q`` outputs of the systems over the query variants and
    a mapping (a file for :func:`read_mapping`, or a DataFrame with columns query, topic, variant).

    ``measure``, ``names`` and ``missing`` are those of :func:`riskeval.io.read_trec_eval` (systems
    named by their ``runid`` lines by default; ``missing`` for queries some systems lack).
    """
    matrix = read_trec_eval(trec_eval_files, measure, names=names, missing=missing)
    return from_scores(matrix, _mapping(mapping))


def _mapping(mapping: str | Path | pd.DataFrame) -> pd.DataFrame:
    return mapping if isinstance(mapping, pd.DataFrame) else read_mapping(mapping)
