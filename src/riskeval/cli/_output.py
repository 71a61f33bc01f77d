"""How every subcommand prints a table: human-readable text, LaTeX, Markdown, CSV or JSON
(``--format``).  The three formats for people share the rules of :mod:`riskeval.formatting`;
CSV and JSON keep full precision.

``--format csv`` is safe to open in a spreadsheet: a text cell that a spreadsheet would run as a
formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, the OWASP rule) is
written with a leading ``'``, which spreadsheets show as text; numbers, and text that is a plain
decimal number (``-0.5``), are written as they are.  ``--format csv-raw`` writes every cell
verbatim, for programs.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("table", "latex", "markdown", "csv", "csv-raw", "json")
#: The formats for people: the columns people read, numbers rounded, the caption.
HUMAN_FORMATS = ("table", "latex", "markdown")

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: aligned text for people; latex: a booktabs table (significant values marked †, "
    "the best of each column bold, a caption); markdown: a pipe table; csv and json: every column "
    "at full precision for programs (csv: text cells a spreadsheet would run as formulas get a "
    "leading '; csv-raw: every cell verbatim).",
)

#: The first characters of a text cell that spreadsheets treat as a formula (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def emit(
    frame: pd.DataFrame,
    fmt: str,
    *,
    out: TextIO | None = None,
    digits: int = 4,
    caption: str | None = None,
    baseline: str | None = None,
    groups: Sequence[str] | None = None,
    columns: str | None = None,
) -> None:
    """Write ``frame`` to ``out`` (stdout) in ``fmt``.

    ``table``, ``latex`` and ``markdown`` are for people (:mod:`riskeval.formatting`): ``caption``
    (the lines above a text table, a LaTeX ``\\caption``) says what the table shows, and the rows of
    ``baseline`` against itself are left out and said once.  CSV and JSON keep full precision and
    every row, without caption.  JSON is a list of records (one object per row, the index included
    as columns).  ``csv`` neutralises text cells that a spreadsheet would run
    (:func:`neutralise_formulas`); ``csv-raw`` does not.  ``groups``: the columns within whose
    values LaTeX and Markdown bold the best value (default: measure and α).  ``columns`` (the
    ``--columns`` of ``riskeval risk``): ``"all"`` or a comma list of the columns shown, in that
    order, in every format; by default the formats for people show the compact columns of a risk
    table (:data:`riskeval.formatting.COMPACT`) and CSV and JSON every column.
    """
    out = out or sys.stdout
    flat = frame.reset_index() if _has_named_index(frame) else frame
    if columns is not None and fmt not in HUMAN_FORMATS:
        from riskeval.formatting import select_columns

        flat = select_columns(flat, columns, "riskeval risk", parameter="--columns")
    if fmt == "csv":
        neutralise_formulas(flat).to_csv(out, index=False)
    elif fmt == "csv-raw":
        flat.to_csv(out, index=False)
    elif fmt == "json":
        # Not DataFrame.to_json: its double_precision counts decimal places (at most 15), so a
        # p-value of 1.5e-8 would keep 8 significant digits.  json writes the shortest repr.
        records = flat.astype(object).where(flat.notna(), None).to_dict(orient="records")
        json.dump(records, out, default=_plain, allow_nan=False)
        out.write("\n")
    else:
        from riskeval import formatting

        if columns is not None:  # named in the command line's words
            formatting.select_columns(flat, columns, "riskeval risk", parameter="--columns")
        if fmt == "table":
            text = formatting.to_text(
                flat, caption=caption, digits=digits, baseline=baseline, columns=columns
            )
            out.write(text)
            return
        render = formatting.to_latex if fmt == "latex" else formatting.to_markdown
        chosen = formatting.GROUPS if groups is None else groups
        out.write(
            render(flat, caption=caption, digits=digits, baseline=baseline, groups=chosen, columns=columns)
        )


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``'`` before every text cell and column name that starts like a formula
    (:data:`FORMULA_START`) and is not a plain decimal number; numeric columns are untouched."""
    import pandas as pd

    out = frame.copy()
    for j in range(out.shape[1]):
        column = out.iloc[:, j]
        if not (pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype)):
            out.isetitem(j, column.map(_neutral_cell, na_action="ignore"))
    out.columns = pd.Index([_neutral_cell(c) for c in out.columns], dtype=object)
    return out


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


def _has_named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)
