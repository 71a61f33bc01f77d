"""A table written in one of the formats of the command line's ``--format``: for people (text,
LaTeX, Markdown: the rules of :mod:`riskeval.formatting`, labels from input files with their
control characters escaped) or for programs (CSV, JSON: full precision, exact labels,
:mod:`riskeval.io.table_export`); its rows sorted by a column and cut to the first of each group
(the command line's ``--sort`` and ``--top``, :func:`sort_rows`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING

from riskeval.errors import RiskevalError
from riskeval.io.table_export import PEOPLE_FORMATS

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.inference.comparison import Comparison

#: The suffixes of a sort column that choose the order: ``urisk:asc``, ``urisk:desc``.
ORDERS = {"asc": True, "desc": False}


def sort_rows(
    frame: pd.DataFrame,
    sort: str | None = None,
    top: int | None = None,
    *,
    groups: Sequence[str] | None = None,
    baseline: str | None = None,
    best: Mapping[str, str] | None = None,
    caller: str = "sort_rows",
    parameter: str = "sort",
) -> pd.DataFrame:
    """The rows of ``frame`` (a named index as columns) sorted by the column ``sort`` within each
    group, and the first ``top`` rows of each group.

    The groups are the rows sharing their values of ``groups`` (default measure and α, those the
    table has), kept in the order they come in: a risk table sorted by URisk lists each α's
    systems best first, one α after the other.  ``sort`` is a column's name (a risk measure's
    header too, ``URisk`` for ``urisk``; the case is free), best first where the column has a better
    direction (:func:`riskeval.formatting.better`, or ``best``: a larger mean or URisk, fewer
    losses, a smaller rank) and ascending otherwise (names, p-values); ``COLUMN:asc`` or
    ``COLUMN:desc`` chooses; missing values come last.  A baseline's own rows (against itself:
    :func:`riskeval.formatting.own_rows`, with ``baseline``) come last in their group, and are
    left out with ``top``.  An unknown column is an error naming ``parameter`` of ``caller``, the
    close matches and the columns there are.
    """
    from riskeval import formatting

    flat = frame.reset_index() if any(name is not None for name in frame.index.names) else frame
    if sort is None and top is None:
        return flat
    keys = [g for g in (formatting.GROUPS if groups is None else groups) if g in flat.columns]
    column, ascending = (None, True) if sort is None else _sort_column(flat, sort, best, caller, parameter)
    keys = [k for k in keys if k != column]
    group = flat.groupby(keys, sort=False, dropna=False).ngroup() if keys else 0
    own = formatting.own_rows(flat, baseline)
    work = flat.assign(__group=group, __own=own)
    if column is not None:
        work = work.sort_values(column, ascending=ascending, kind="stable", na_position="last")
    work = work.sort_values(["__group", "__own"], kind="stable")
    if top is not None:
        work = work.loc[~work["__own"]]
        work = work.loc[work.groupby("__group").cumcount() < top]
    return work.drop(columns=["__group", "__own"]).reset_index(drop=True)


def _sort_column(
    flat: pd.DataFrame, sort: str, best: Mapping[str, str] | None, caller: str, parameter: str
) -> tuple[str, bool]:
    """The column named by ``sort`` (``COLUMN[:asc|:desc]``) and whether it sorts ascending."""
    import difflib

    from riskeval import formatting

    text = sort.strip()
    name, _, suffix = text.rpartition(":")
    if suffix not in ORDERS:
        name, suffix = text, ""
    names = [str(c) for c in flat.columns]
    lowered = {n.lower(): n for n in names}
    for n in names:
        lowered.setdefault(formatting.header(n).lower(), n)
    found = lowered.get(name.lower())
    if found is None:
        close = difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(repr(lowered[c]) for c in close)}?" if close else ""
        raise RiskevalError(
            f"The '{parameter}' {'option' if parameter.startswith('--') else 'parameter'} of {caller} "
            f"names the column {name!r}, which the table lacks.{hint} The columns are: "
            f"{', '.join(names)} (add :asc or :desc to choose the order)."
        )
    if suffix:
        return found, ORDERS[suffix]
    return found, formatting.better(found, best) != "max"


def order_note(
    frame: pd.DataFrame, sort: str | None, top: int | None, best: Mapping[str, str] | None = None
) -> str:
    """What :func:`sort_rows` did, for a caption: ``; sorted by urisk (best first); the first 3
    rows of each group`` (empty when it did nothing)."""
    from riskeval import formatting

    flat = frame.reset_index() if any(name is not None for name in frame.index.names) else frame
    note, column = "", None
    if sort is not None:
        column, ascending = _sort_column(flat, sort, best, "sort_rows", "sort")
        known = formatting.better(column, best) is not None and ":" not in sort
        how = "best first" if known else "ascending" if ascending else "descending"
        note = f"; sorted by {column} ({how})"
    if top is None:
        return note
    keys = [g for g in formatting.GROUPS if g in flat.columns and g != column]
    return note + f"; the first {top} rows" + (f" of each {' and '.join(keys)}" if keys else "")


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
    sort: str | None = None,
    top: int | None = None,
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
    values LaTeX and Markdown bold the best value and ``sort`` sorts (default: measure and α).
    ``columns``: ``"all"`` or a comma list of the columns shown, in that order, in every format (an
    unknown one is an error naming ``parameter`` of ``caller``); by default the formats for people
    show the compact columns of a risk table (:data:`riskeval.formatting.COMPACT`) and CSV and JSON
    every column.  ``sort``, ``top``: the rows' order and how many of each group, in every format
    (:func:`sort_rows`; named ``--sort`` when ``parameter`` is an option).
    """
    from riskeval import formatting

    words = "--sort" if parameter.startswith("--") else "sort"
    flat = sort_rows(frame, sort, top, groups=groups, baseline=baseline, caller=caller, parameter=words)
    if caption is not None:
        caption += order_note(frame, sort, top)
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


def write_comparison(
    comparison: Comparison,
    fmt: str,
    out: IO,
    *,
    digits: int = 4,
    sort: str | None = None,
    top: int | None = None,
    caller: str = "write_comparison",
) -> None:
    """Write the table of :func:`riskeval.compare` to ``out`` in ``fmt``: LaTeX and Markdown as
    :meth:`~riskeval.inference.comparison.Comparison.to_latex` and ``to_markdown`` write it (the
    letters of the systems each one is significantly better than as superscripts, † on significant
    risk values), text with its caption and CSV and JSON every column of ``to_frame``
    (:func:`write_table`).  ``sort``, ``top``: the systems' order (a mean or a risk column best
    first, :func:`sort_rows`) and how many are shown; each system keeps its letter.
    """
    frame = comparison.to_frame()
    best = dict.fromkeys(map(str, comparison.means.columns), "max")
    for (_, risk), name in comparison.risk_columns().items():
        best[name] = "max" if risk.higher_is_better else "min"
    words = "--sort" if caller.startswith("riskeval") else "sort"
    systems = sort_rows(frame, sort, top, groups=(), best=best, caller=caller, parameter=words)["system"]
    shown = dataclasses.replace(comparison, means=comparison.means.loc[systems])
    caption = shown.caption().removesuffix(".") + order_note(frame, sort, top, best) + "."
    if fmt in ("latex", "markdown"):
        render = shown.to_latex if fmt == "latex" else shown.to_markdown
        out.write(render(caption=caption, digits=digits))
        return
    write_table(shown.to_frame(), fmt, out, digits=digits, caption=caption, caller=caller)
