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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

import click

from riskeval.errors import OutputError

if TYPE_CHECKING:
    import pandas as pd


def emit(frame: pd.DataFrame, fmt: str, *, out: IO | None = None, **keywords: Any) -> None:
    """Write ``frame`` to ``out`` (stdout) in ``fmt``, as
    :func:`riskeval.reporting.table_output.write_table` does (``--columns`` and ``--sort`` named as
    the running command's options)."""
    from riskeval.reporting.table_output import write_table

    ctx = click.get_current_context(silent=True)
    keywords.setdefault("caller", ctx.command_path if ctx is not None else "riskeval")
    to_stream(lambda stream: write_table(frame, fmt, stream, parameter="--columns", **keywords), out)


def to_stream(write: Callable[[IO], None], out: IO | None = None) -> None:
    """``write(out)`` (standard output without ``out``); a failed write to standard output (a full
    disk) is an :class:`~riskeval.errors.OutputError`, a closed pipe (``BrokenPipeError``) is left
    to the caller."""
    stream = out or sys.stdout
    try:
        write(stream)
    except BrokenPipeError:
        raise
    except OSError as exc:
        if stream is not sys.stdout:
            raise
        raise stdout_error(exc) from exc


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
