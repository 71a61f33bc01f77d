"""A table written in one of the formats of the command line's ``--format``: for people (text,
LaTeX, Markdown: the rules of :mod:`riskeval.formatting`, labels from input files with their
control characters escaped) or for programs (CSV, JSON: full precision, exact labels,
:mod:`riskeval.io.table_export`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from riskeval.io.table_export import PEOPLE_FORMATS

if TYPE_CHECKING:
    import pandas as pd


def write_table(
    frame: pd.DataFrame,
    fmt: str,
    out: IO,
    *,
    digits: int = 4,
    caption: str | None = None,
    baseline: str | None = None,
    groups: Sequence[str] | None = None,
    columns: str | None = None,
    caller: str = "write_table",
    parameter: str = "columns",
) -> None:
    """Write ``frame`` (a named index as columns) to ``out`` in ``fmt``.

    ``table``, ``latex`` and ``markdown`` are for people (:mod:`riskeval.formatting`): ``caption``
    (the lines above a text table, a LaTeX ``\\caption``) says what the table shows, and the rows of
    ``baseline`` against itself are left out and said once; control characters in labels, column
    names and the caption are shown escaped (:func:`riskeval.io.table_export.for_terminal`).  CSV
    and JSON keep full precision, every row and the exact labels, without caption
    (:func:`riskeval.io.table_export.write_for_programs`).  ``groups``: the columns within whose
    values LaTeX and Markdown bold the best value (default: measure and α).  ``columns``: ``"all"``
    or a comma list of the columns shown, in that order, in every format (an unknown one is an
    error naming ``parameter`` of ``caller``); by default the formats for people show the compact
    columns of a risk table (:data:`riskeval.formatting.COMPACT`) and CSV and JSON every column.
    """
    from riskeval import formatting

    flat = frame.reset_index() if any(name is not None for name in frame.index.names) else frame
    if fmt not in PEOPLE_FORMATS:
        from riskeval.io.table_export import write_for_programs

        if columns is not None:
            flat = formatting.select_columns(flat, columns, caller, parameter=parameter)
        write_for_programs(flat, fmt, out)
        return
    from riskeval.io.table_export import for_terminal
    from riskeval.io.terminal import escape_controls

    if columns is not None:  # checked here, to be named in the caller's words
        formatting.select_columns(flat, columns, caller, parameter=parameter)
    flat = for_terminal(flat)
    caption = None if caption is None else escape_controls(caption, keep_lines=True)
    baseline = None if baseline is None else escape_controls(baseline)
    if fmt == "table":
        out.write(
            formatting.to_text(flat, caption=caption, digits=digits, baseline=baseline, columns=columns)
        )
        return
    render = formatting.to_latex if fmt == "latex" else formatting.to_markdown
    chosen = formatting.GROUPS if groups is None else groups
    out.write(render(flat, caption=caption, digits=digits, baseline=baseline, groups=chosen, columns=columns))
