"""Readers of query-variation data: a tidy table file, a query → (topic, variant) mapping file, and
trec_eval ``-q`` outputs joined with a mapping.  The data model they produce is
:mod:`riskeval.model.variations`."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.trec_eval import read_trec_eval
from riskeval.model.variations import MAPPING_COLUMNS, as_variations, variations_from_scores


def read_variation_table(path: str | Path) -> pd.DataFrame:
    """A tidy query-variation table from a file: Parquet (``.parquet``/``.pq``), or CSV/TSV (the
    delimiter is detected) with a header naming the columns ``system``, ``topic``, ``variant``,
    ``score`` (and optionally ``query``); validated by :func:`as_variations`."""
    path = Path(path)
    if path.suffix in (".parquet", ".pq"):
        frame = pd.read_parquet(path)
    else:
        try:
            frame = pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, csv.Error) as exc:
            raise InputFormatError([(str(path), f"not a CSV/TSV table: {exc}")]) from None
    return as_variations(frame, name=str(path))


def read_mapping(path: str | Path) -> pd.DataFrame:
    """Read a query → (topic, variant) mapping file.

    One mapping per line, three whitespace-separated fields ``query topic variant``; blank lines
    and lines starting with ``#`` are skipped, and a first line ``query topic variant`` is a
    header.  A query listed for several variants was issued by several users.  All malformed lines
    are reported together (``file:line``).
    """
    path = Path(path)
    rows: list[tuple[str, str, str]] = []
    problems: list[tuple[str, str]] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
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
    if not rows and not problems:
        problems.append((str(path), "no mappings found (expected lines 'query topic variant')"))
    mapping = pd.DataFrame(rows, columns=list(MAPPING_COLUMNS))
    dup = mapping.duplicated(["topic", "variant"], keep=False)
    for idx in np.flatnonzero(dup.to_numpy()):
        q, t, v = rows[idx]
        problems.append((str(path), f"topic {t!r}, variant {v!r} is mapped more than once ({q})"))
    if problems:
        raise InputFormatError(problems)
    return mapping


def read_variations(
    trec_eval_files,
    mapping: str | Path | pd.DataFrame,
    *,
    measure: str = "P_10",
    names: str | Sequence[str] | None = None,
    missing: str = "raise",
) -> pd.DataFrame:
    """Tidy variation table from trec_eval ``-q`` outputs of the systems over the query variants and
    a mapping (a file for :func:`read_mapping`, or a DataFrame with columns query, topic, variant).

    ``measure``, ``names`` and ``missing`` are those of :func:`riskeval.read_trec_eval` (systems
    named by their ``runid`` lines by default; ``missing`` for queries some systems lack).
    """
    matrix = read_trec_eval(trec_eval_files, measure, names=names, missing=missing)
    return variations_from_scores(matrix, _mapping(mapping))


def _mapping(mapping: str | Path | pd.DataFrame) -> pd.DataFrame:
    return mapping if isinstance(mapping, pd.DataFrame) else read_mapping(mapping)
