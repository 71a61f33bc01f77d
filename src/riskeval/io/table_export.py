"""Tables written for programs (CSV, JSON) and their text cells made safe for a terminal or a
spreadsheet.

:func:`write_for_programs`: ``csv`` writes every cell verbatim, so that a table read back by
riskeval or another program (``riskeval evaluate --format csv | riskeval risk -``) has the same
labels; ``csv-spreadsheet`` is for a file opened in a spreadsheet: a text cell that a spreadsheet
would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, the
OWASP rule for CSV injection) is written with a leading ``'``, which spreadsheets show as text;
numbers, and text that is a plain decimal number (``-0.5``), are written as they are.  ``json`` is a
list of records, NaN and ±infinity as ``null``, as pandas' ``DataFrame.to_json`` and JavaScript's
``JSON.stringify`` write them: JSON has no number for them.

:func:`for_terminal`: the control characters of labels taken from input files (a run tag holding
``ESC [ 31 m``) escaped (:func:`riskeval.io.terminal.escape_controls`), for the formats for people.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: The formats for people: the columns people read, numbers rounded, the caption
#: (:mod:`riskeval.formatting`).
PEOPLE_FORMATS = ("table", "latex", "markdown")
#: The formats for programs: every column at full precision, every row, the exact labels.
PROGRAM_FORMATS = ("csv", "csv-spreadsheet", "json")
#: Every format a table is written in.
OUTPUT_FORMATS = (*PEOPLE_FORMATS, *PROGRAM_FORMATS)
#: The first characters of a text cell that spreadsheets treat as a formula (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def write_for_programs(frame: pd.DataFrame, fmt: str, out: IO) -> None:
    """Write ``frame`` (its index as it is: reset a named one first) to ``out`` as ``csv``,
    ``csv-spreadsheet`` (:func:`neutralise_formulas`) or ``json`` (:func:`json_records`)."""
    if fmt == "csv":
        frame.to_csv(out, index=False)
    elif fmt == "csv-spreadsheet":
        neutralise_formulas(frame).to_csv(out, index=False)
    elif fmt == "json":
        # Not DataFrame.to_json: its double_precision counts decimal places (at most 15), so a
        # p-value of 1.5e-8 would keep 8 significant digits.  json writes the shortest repr.
        json.dump(json_records(frame), out, default=_plain, allow_nan=False)
        out.write("\n")
    else:
        raise ValueError(f"fmt must be one of {', '.join(PROGRAM_FORMATS)}; got {fmt!r}.")


def write_csv_rows(columns: Sequence[str], rows: Iterable[Sequence[object]], out: IO) -> None:
    """Write a table given as rows to ``out`` as ``csv``, byte for byte what :func:`write_for_programs`
    writes of the same table as a DataFrame (pandas writes it with :mod:`csv`: the same quoting and
    line ends; a number as its ``repr``, NaN as an empty cell), without pandas."""
    writer = csv.writer(out, lineterminator=os.linesep)
    writer.writerow(columns)
    writer.writerows([_csv_cell(cell) for cell in row] for row in rows)


def _csv_cell(cell: object) -> object:
    if isinstance(cell, float):
        return "" if math.isnan(cell) else repr(cell)
    return cell


def json_records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as JSON-ready dicts: missing values, NaN and ±infinity as ``None``."""
    import numpy as np

    infinite = frame.isin([np.inf, -np.inf]).to_numpy(dtype=bool, na_value=False)
    keep = frame.notna().to_numpy(dtype=bool) & ~infinite
    return frame.astype(object).where(keep, None).to_dict(orient="records")


def for_terminal(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the control characters of its text cells and column names escaped
    (:func:`riskeval.io.terminal.escape_controls`); numeric columns are untouched."""
    return _map_text(frame, _terminal_cell)


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``'`` before every text cell and column name that starts like a formula
    (:data:`FORMULA_START`) and is not a plain decimal number; numeric columns are untouched."""
    return _map_text(frame, _neutral_cell)


def _map_text(frame: pd.DataFrame, cell: Callable[[object], object]) -> pd.DataFrame:
    import pandas as pd

    out = frame.copy()
    for j in range(out.shape[1]):
        column = out.iloc[:, j]
        if not (pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype)):
            out.isetitem(j, column.map(cell, na_action="ignore"))
    names = [cell(c) for c in out.columns]
    if names != list(out.columns):
        out.columns = pd.Index(names, dtype=object)
    return out


def _terminal_cell(value: object) -> object:
    from riskeval.io.terminal import escape_controls

    return escape_controls(value) if isinstance(value, str) else value


def _neutral_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _plain(value: object) -> object:
    """numpy scalars as Python numbers."""
    item = getattr(value, "item", None)
    if item is None:
        raise TypeError(f"cannot write {type(value).__name__} as JSON")
    return item()
