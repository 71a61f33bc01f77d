"""How every subcommand prints a table: human-readable text, LaTeX, Markdown, CSV or JSON
(``--format``).  The three formats for people share the rules of :mod:`riskeval.formatting`;
CSV and JSON keep full precision.

CSV and JSON are written by :func:`riskeval.io.table_export.write_for_programs` (``csv`` every
cell verbatim; ``csv-spreadsheet`` with text cells a spreadsheet would run as formulas neutralised;
``json`` with NaN and ±infinity as ``null``).

In the formats for people, the control characters of labels taken from input files (a run tag
holding ``ESC [ 31 m``) are shown escaped (:func:`riskeval.io.terminal.escape_controls`); CSV
and JSON keep them exactly.  A failed write to standard output (a full disk) is an
:class:`~riskeval.errors.OutputError` that says so.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

import click

from riskeval.errors import OutputError
from riskeval.io.table_export import PROGRAM_FORMATS

if TYPE_CHECKING:
    import pandas as pd

#: The formats for people: the columns people read, numbers rounded, the caption.
HUMAN_FORMATS = ("table", "latex", "markdown")
FORMATS = (*HUMAN_FORMATS, *PROGRAM_FORMATS)


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
    names and the caption are shown escaped.  CSV and JSON keep full precision, every row and the
    exact labels, without caption (:func:`riskeval.io.table_export.write_for_programs`).
    ``groups``: the columns within whose values LaTeX and Markdown bold the best value (default:
    measure and α).  ``columns`` (the ``--columns`` of ``riskeval risk``): ``"all"`` or a comma list
    of the columns shown, in that order, in every format; by default the formats for people show
    the compact columns of a risk
    table (:data:`riskeval.formatting.COMPACT`) and CSV and JSON every column.
    """
    flat = frame.reset_index() if _has_named_index(frame) else frame
    if columns is not None and fmt not in HUMAN_FORMATS:
        from riskeval.formatting import select_columns

        flat = select_columns(flat, columns, "riskeval risk", parameter="--columns")
    if fmt not in HUMAN_FORMATS:
        from riskeval.io.table_export import write_for_programs

        write_for_programs(flat, fmt, out)
    else:
        from riskeval import formatting
        from riskeval.io.table_export import for_terminal
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


@contextmanager
def warnings_to_stderr() -> Iterator[None]:
    """Show riskeval's warnings (counts of dropped, filled or missing cells) as one line each on
    stderr (:func:`echo_warning`), once the block is done; numpy's RuntimeWarnings (about NaN it
    computes on purpose) are not shown."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
    for warning in caught:
        if issubclass(warning.category, UserWarning):
            echo_warning(warning.message)


def _has_named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)
