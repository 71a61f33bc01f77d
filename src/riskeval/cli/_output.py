"""How every subcommand prints a table: human-readable text, LaTeX, Markdown, CSV or JSON
(``--format``).  The three formats for people share the rules of :mod:`riskeval.formatting`;
CSV and JSON keep full precision.

``--format csv`` writes every cell verbatim, so that a table read back by riskeval or another
program (``riskeval evaluate --format csv | riskeval risk -``) has the same labels.  ``--format
csv-spreadsheet`` is for a file opened in a spreadsheet: a text cell that a spreadsheet would run
as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, the OWASP rule
for CSV injection) is written with a leading ``'``, which spreadsheets show as text; numbers, and
text that is a plain decimal number (``-0.5``), are written as they are.

``--format json`` writes NaN and ±infinity as ``null``, as pandas' ``DataFrame.to_json`` and
JavaScript's ``JSON.stringify`` do: JSON has no number for them.

In the formats for people, the control characters of labels taken from input files (a run tag
holding ``ESC [ 31 m``) are shown escaped (:func:`riskeval.io.terminal.escape_controls`); CSV
and JSON keep them exactly.  A failed write to standard output (a full disk) is an
:class:`~riskeval.errors.OutputError` that says so.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

import click

from riskeval.errors import OutputError

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("table", "latex", "markdown", "csv", "csv-spreadsheet", "json")
#: The formats for people: the columns people read, numbers rounded, the caption.
HUMAN_FORMATS = ("table", "latex", "markdown")

#: The first characters of a text cell that spreadsheets treat as a formula (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def emit(frame: pd.DataFrame, fmt: str, *, out: IO | None = None, **keywords: Any) -> None:
    """Write ``frame`` to ``out`` (stdout) in ``fmt``, as :func:`write` does; a failed write to
    standard output (a full disk) is an :class:`~riskeval.errors.OutputError`, a closed pipe
    (``BrokenPipeError``) is left to the caller."""
    stream = out or sys.stdout
    try:
        write(frame, fmt, stream, **keywords)
    except BrokenPipeError:
        raise
    except OSError as exc:
        if stream is not sys.stdout:
            raise
        raise stdout_error(exc) from exc


def write(
    frame: pd.DataFrame,
    fmt: str,
    out: IO,
    *,
    digits: int = 4,
    caption: str | None = None,
    baseline: str | None = None,
    groups: Sequence[str] | None = None,
    columns: str | None = None,
) -> None:
    """Write ``frame`` to ``out`` in ``fmt``.

    ``table``, ``latex`` and ``markdown`` are for people (:mod:`riskeval.formatting`): ``caption``
    (the lines above a text table, a LaTeX ``\\caption``) says what the table shows, and the rows of
    ``baseline`` against itself are left out and said once; control characters in labels, column
    names and the caption are shown escaped (:func:`for_terminal`).  CSV and JSON keep full
    precision, every row and the exact labels, without caption.  JSON is a list of records (one
    object per row, the index included as columns), NaN and ±infinity as ``null``.
    ``csv-spreadsheet`` neutralises text cells that a spreadsheet would run
    (:func:`neutralise_formulas`); ``csv`` does not.  ``groups``: the columns within whose values
    LaTeX and Markdown bold the best value (default: measure and α).  ``columns`` (the
    ``--columns`` of ``riskeval risk``): ``"all"`` or a comma list of the columns shown, in that
    order, in every format; by default the formats for people show the compact columns of a risk
    table (:data:`riskeval.formatting.COMPACT`) and CSV and JSON every column.
    """
    flat = frame.reset_index() if _has_named_index(frame) else frame
    if columns is not None and fmt not in HUMAN_FORMATS:
        from riskeval.formatting import select_columns

        flat = select_columns(flat, columns, "riskeval risk", parameter="--columns")
    if fmt == "csv":
        flat.to_csv(out, index=False)
    elif fmt == "csv-spreadsheet":
        neutralise_formulas(flat).to_csv(out, index=False)
    elif fmt == "json":
        # Not DataFrame.to_json: its double_precision counts decimal places (at most 15), so a
        # p-value of 1.5e-8 would keep 8 significant digits.  json writes the shortest repr.
        json.dump(json_records(flat), out, default=_plain, allow_nan=False)
        out.write("\n")
    else:
        from riskeval import formatting
        from riskeval.io.terminal import escape_controls

        if columns is not None:  # named in the command line's words
            formatting.select_columns(flat, columns, "riskeval risk", parameter="--columns")
        flat = for_terminal(flat)
        caption = None if caption is None else escape_controls(caption, keep_lines=True)
        baseline = None if baseline is None else escape_controls(baseline)
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


def stdout_error(exc: OSError) -> OutputError:
    """The error for a failed write to standard output.  Standard output is then pointed at the
    null device, so that the text still buffered is not written again (and fails again) when
    Python exits."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a captured stream)
        pass
    else:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(f"cannot write to standard output: {reason}.")


def finish_stdout() -> None:
    """Flush standard output, raising :func:`stdout_error`'s error when that fails (a full disk);
    a closed pipe (``BrokenPipeError``) is left to the caller."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise stdout_error(exc) from exc


def echo_warning(message: object) -> None:
    """``riskeval: warning: <message>`` on stderr, control characters escaped."""
    from riskeval.io.terminal import escape_controls

    click.echo(f"riskeval: warning: {escape_controls(str(message), keep_lines=True)}", err=True)


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


def _has_named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)
