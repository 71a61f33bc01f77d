"""Tables for people and for papers: aligned text, LaTeX (booktabs) and Markdown.

The same rules in the three: p-values with three significant digits, in scientific notation below
10⁻³ (``2.1e-11``, as scipy prints them) and never ``0`` (a p-value that underflows to 0, below
the smallest double, prints as ``<1e-300``); α without
trailing zeros (``5``); counts and untied ranks as integers; a risk measure's column with the
decimals its measure declares (:attr:`riskeval.RiskMeasure.decimals`); other numbers with ``digits``
decimals.
A system's row against itself (the baseline's own row, all zeros and NaN) is left out and said once.
LaTeX and Markdown also mark significant values with † (from the ``significant`` column) and set
the best value of each column in bold, within each measure and α; a risk measure's column is
headed by its measure's header (``tstar`` -> ``T*Risk``).  Text from the data (run names,
topic ids, captions) is escaped for the target: LaTeX's special characters, Markdown's ``|``,
``*``, ``_``, backticks, brackets and angle brackets.

The three choose and order their columns (``columns=``).  A risk table (the columns of
:func:`riskeval.risk_table`) shows :func:`compact` by default, the columns the command line's
``riskeval risk`` shows too; ``columns="all"`` shows every column.  Other tables show every column.

What a risk measure's column shows (header, decimals, direction, mark) is read from the registry of
risk measures (:data:`riskeval.measures.declared.RISK_MEASURES`) at each call, so a measure declared
with :func:`riskeval.register_risk` is shown as the built-in ones are.

CSV and JSON output is not made here: it keeps every digit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure

#: Columns other than the risk measures' where a larger value is better, and where a smaller one is
#: (for bold best values); a declared risk measure says it itself
#: (:attr:`riskeval.RiskMeasure.higher_is_better`), by its column and by its header.
HIGHER_IS_BETTER = frozenset(
    {"mean", "score", "ugain", "freward", "wins", "reward_risk", "win_loss", "delta", "x"}
    | {"Reward", "Reward/Risk", "Wins", "W/L"}  # learning to rank (Table 7)
)
LOWER_IS_BETTER = frozenset({"frisk", "losses", "loss20", "variance", "risk", "Risk", "Losses", "Loss>20%"})
#: Columns holding counts (printed as integers when every value is whole).
COUNTS = frozenset({"wins", "losses", "ties", "loss20", "df", "systems", "topics", "runs", "n", "k"})
#: Columns that group rows for the best value: one best per measure and α.
GROUPS = ("measure", "alpha")
#: The mark of a significant value, and the column that says which are.
MARK = "†"
SIGNIFICANT = "significant"
#: Columns of per-topic and paired tables whose value carries the significance mark, after the
#: columns of the risk measures that declare :attr:`riskeval.RiskMeasure.marked` (see :func:`marked`).
MARKED_OTHERS = ("x", "tr", "delta")
#: How a p-value that underflowed to 0 is printed: a true bound (a double of 0 is below 1e-323),
#: written as people write a bound rather than as the smallest double (``2.2e-308``).
UNDERFLOW = "<1e-300"
_BASELINE_REASON = "the system is the baseline"
#: The columns of a risk table shown by default before the risk measures' (see :func:`compact`).
COMPACT_FIRST = ("measure", "system", "alpha", "mean")
#: The columns of a test shown by default, after the marked measures' columns: ``low`` and
#: ``high`` are a bootstrap interval, ``pvalue_maxt`` a max-T p-value, where a test gave them.
COMPACT_TEST = ("pvalue", "pvalue_maxt", "pvalue_adj", "low", "high", "significant")
#: The columns of a risk table shown by default after the risk measures'.
COMPACT_LAST = ("wins", "losses", "loss20")
#: The columns that every risk table has (:func:`riskeval.risk_table`, with or without ``risk=``):
#: a table holding them gets :func:`compact` by default.
RISK_TABLE = frozenset({"system", "alpha", "baseline", "baseline_mean"})


def measure_columns() -> dict[str, type[RiskMeasure]]:
    """Each declared risk measure (:data:`riskeval.measures.declared.RISK_MEASURES`, built-in or
    :func:`riskeval.register_risk`) by its column, in table order."""
    return {cls.column: cls for cls in RISK_MEASURES.values()}


def marked() -> tuple[str, ...]:
    """The columns whose value carries the significance mark, in order of preference: the risk
    measures that declare :attr:`~riskeval.RiskMeasure.marked` (URisk, TRisk), then
    :data:`MARKED_OTHERS`.  A table marks the first of them that it has."""
    return (*(c for c, cls in measure_columns().items() if cls.marked), *MARKED_OTHERS)


def compact() -> tuple[str, ...]:
    """The columns of a risk table shown by default, in this order (those the table has): by
    :func:`to_text`, :func:`to_latex`, :func:`to_markdown` and ``riskeval risk``.

    :data:`COMPACT_FIRST`, the marked risk measures (their own column), :data:`COMPACT_TEST`, the
    other risk measures (their own column), then :data:`COMPACT_LAST`; the measures in the order
    of the registry, so a measure declared with :func:`riskeval.register_risk` shows too.
    """
    measures = measure_columns()
    first = [c for c, cls in measures.items() if cls.marked]
    rest = [c for c, cls in measures.items() if not cls.marked]
    return (*COMPACT_FIRST, *first, *COMPACT_TEST, *rest, *COMPACT_LAST)


def __getattr__(name: str) -> tuple[str, ...]:
    """``COMPACT``: the default columns of a risk table now (:func:`compact`)."""
    if name == "COMPACT":
        return compact()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def header(column: Hashable) -> str:
    """A column's header in LaTeX and Markdown: a risk measure's declared header (``tstar`` ->
    ``T*Risk``), else the column's name."""
    cls = measure_columns().get(str(column))
    return cls.header if cls is not None else str(column)


@dataclass(frozen=True)
class _Cells:
    """A table rendered to strings, with what the renderers need to know about it."""

    text: pd.DataFrame  # the cells as strings
    numeric: list[bool]  # per column: numbers (right-aligned)
    bold: np.ndarray  # cells holding their column's best value
    notes: list[str]  # sentences to print once under the table
    marks: frozenset[tuple[int, int]] = frozenset()  # cells of significant values
    sups: dict[tuple[int, int], str] | None = None  # cells -> their superscript


def is_pvalue(column: Hashable) -> bool:
    """Whether a column holds p-values, by its name (``p``, ``p_adj``, ``pvalue``, ``pvalue_adj``,
    ``friedman_pvalue``...)."""
    name = str(column)
    return name == "p" or name.startswith(("pvalue", "p_")) or name.endswith("_pvalue")


def format_pvalue(p: float) -> str:
    """``0.0159`` -> ``"0.0159"``, ``2.13e-11`` -> ``"2.13e-11"``, ``0.0`` -> ``"<1e-300"``."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    p = float(p)
    if p == 0.0:
        return UNDERFLOW
    if abs(p) < 1e-3:
        return np.format_float_scientific(p, precision=2, trim="-", exp_digits=1)
    return f"{p:.3g}"


def p_equals(p: float) -> str:
    """A p-value in a sentence: ``p = 0.0159``, ``p = 2.13e-11``, or ``p < 1e-300`` where it
    underflowed to 0 (:func:`format_pvalue`)."""
    text = format_pvalue(p)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def format_alpha(alpha: float) -> str:
    """α as written: ``5.0`` -> ``"5"``, ``0.5`` -> ``"0.5"``."""
    return f"{float(alpha):g}"


def select_columns(
    table: pd.DataFrame, columns: str | Sequence[str] | None, func: str, *, parameter: str = "columns"
) -> pd.DataFrame:
    """The columns of ``table`` (its named index as columns) chosen by ``columns``, in its order.

    ``None``: :func:`compact` for a risk table (one with the columns :data:`RISK_TABLE`), every
    column otherwise; ``"all"``: every column; a list or a comma list of names: those columns, in
    that order.  A name the table lacks is an error naming ``parameter`` of ``func`` and the
    table's columns.
    """
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    names = [str(c) for c in frame.columns]
    if columns is None:
        if not RISK_TABLE <= set(names):
            return frame
        order = compact()
        return frame[[c for c in frame.columns if str(c) in order]].pipe(_ordered, order)
    if isinstance(columns, str) and columns.strip() == "all":
        return frame
    wanted = (
        [c.strip() for c in columns.split(",")] if isinstance(columns, str) else [str(c) for c in columns]
    )
    wanted = [c for c in wanted if c]
    unknown = [c for c in wanted if c not in names]
    if unknown or not wanted:
        import difflib

        given = ", ".join(map(repr, unknown)) if unknown else "no column"
        close = difflib.get_close_matches(unknown[0], names, n=3, cutoff=0.6) if unknown else []
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise RiskevalError(
            f"The '{parameter}' {'option' if parameter.startswith('--') else 'parameter'} of {func} "
            f"names {given}{hint}; the table has the columns "
            f"{', '.join(names)} (or give 'all')."
        )
    by_name = {str(c): c for c in frame.columns}
    return frame[[by_name[c] for c in dict.fromkeys(wanted)]]


def _ordered(frame: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    rank = {name: i for i, name in enumerate(order)}
    return frame[sorted(frame.columns, key=lambda c: rank[str(c)])]


def to_text(
    table: pd.DataFrame,
    *,
    caption: str | None = None,
    digits: int = 4,
    baseline: str | None = None,
    columns: str | Sequence[str] | None = None,
    decimals: Mapping[str, int] | None = None,
) -> str:
    """Aligned text: the caption's lines, the table, then its notes.  ``digits``, ``columns``,
    ``decimals``: as for :func:`to_latex`; the headers are the columns' names (those
    ``columns`` takes)."""
    cells = _cells(
        table,
        digits=digits,
        baseline=baseline,
        nan="",
        columns=columns,
        decimals=decimals,
        func="to_text",
    )
    frame = cells.text
    body = frame.to_string(index=False) if len(frame) else "(no rows)"
    return "\n".join([*([caption] if caption else []), body, *cells.notes]) + "\n"


def to_latex(
    table: pd.DataFrame,
    *,
    caption: str | None = None,
    label: str | None = None,
    digits: int = 4,
    baseline: str | None = None,
    bold_best: bool = True,
    best: Mapping[str, str] | None = None,
    groups: Sequence[str] = GROUPS,
    columns: str | Sequence[str] | None = None,
    superscripts: Mapping[str, Sequence[str]] | None = None,
    decimals: Mapping[str, int] | None = None,
) -> str:
    """A LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``).

    Parameters
    ----------
    table : DataFrame
        Any table of riskeval (or yours); a ``significant`` column marks the values of the first
        column of :func:`marked` (a risk measure declaring ``marked``: URisk, TRisk; then ``x``,
        ``tr``, ``delta``) with † and is not shown itself.  A risk measure's column is headed by
        its measure's ``header``.
    caption, label : str, optional
        ``\\caption`` (escaped; α, ×, ≥, ², † become math) and ``\\label`` (used as given).
    digits : int
        Decimals of the numbers other than p-values, α, counts and risk measures (each of which
        shows the ``decimals`` its measure declares).
    baseline : str, optional
        The system whose rows against itself are left out (the caption says so).
    bold_best : bool
        Set the best value of each column in bold, per measure and α.
    best : mapping column -> "max" or "min", optional
        Which columns have a best value, and whether it is the largest or the smallest;
        default: each risk measure's ``higher_is_better`` (by its column or header),
        :data:`HIGHER_IS_BETTER` and :data:`LOWER_IS_BETTER` (ranks: smallest).
    groups : column names
        The best value is per group of rows sharing these columns' values (those the table has);
        default: per measure and α, the risk tables' evaluation settings.
    columns : "all", a list of column names or a comma list, optional
        The columns shown, in that order (the table's named index counts as columns); a name the
        table lacks is an error listing its columns.  Default: :func:`compact` for a risk table
        (the 30 columns of :func:`riskeval.risk_table` are many for a page), every column of other
        tables.  The ``significant`` column marks values whether or not it is chosen.
    superscripts : mapping column -> one text per row, optional
        Text set as a superscript after the value of each row (``\\textsuperscript``), e.g. the
        letters of the systems a row is significantly better than (:func:`riskeval.compare`).
    decimals : mapping column -> int, optional
        Decimals of these columns, before a risk measure's declared ones and ``digits``.
    """
    cells = _marked_cells(
        table,
        caption,
        "--",
        digits,
        baseline,
        best if bold_best else {},
        groups,
        columns=columns,
        superscripts=superscripts,
        decimals=decimals,
        func="to_latex",
    )
    text, marks, notes = cells.text, cells.marks, cells.notes
    spec = "".join("r" if num else "l" for num in cells.numeric)
    lines = ["\\begin{table}", "\\centering"]
    full_caption = " ".join(_sentence(part) for part in (*(caption or "").split("\n"), *notes) if part)
    if full_caption:
        lines.append(f"\\caption{{{latex_escape(full_caption)}}}")
    if label:
        lines.append(f"\\label{{{label}}}")
    lines += [f"\\begin{{tabular}}{{{spec}}}", "\\toprule"]
    lines.append(" & ".join(_latex_header(c) for c in text.columns) + " \\\\")
    lines.append("\\midrule")
    for i in range(len(text)):
        row = []
        for j, num in enumerate(cells.numeric):
            value = str(text.iat[i, j])
            cell = _latex_number(value) if num else latex_escape(value)
            if (i, j) in marks:
                cell += "$^\\dagger$"
            sup = (cells.sups or {}).get((i, j))
            if sup:
                cell += "\\textsuperscript{" + latex_escape(sup).replace("$^\\dagger$", "\\dag{}") + "}"
            row.append(f"\\textbf{{{cell}}}" if cells.bold[i, j] else cell)
        lines.append(" & ".join(row) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def to_markdown(
    table: pd.DataFrame,
    *,
    caption: str | None = None,
    digits: int = 4,
    baseline: str | None = None,
    bold_best: bool = True,
    best: Mapping[str, str] | None = None,
    groups: Sequence[str] = GROUPS,
    columns: str | Sequence[str] | None = None,
    superscripts: Mapping[str, Sequence[str]] | None = None,
    decimals: Mapping[str, int] | None = None,
) -> str:
    """A Markdown pipe table (GitHub, pandoc), with the caption above and the notes below.

    Same parameters and marks as :func:`to_latex` (superscripts as ``<sup>…</sup>``); cells are
    escaped so that a run name holding ``|``, ``*`` or ``<b>`` stays text.
    """
    cells = _marked_cells(
        table,
        caption,
        "",
        digits,
        baseline,
        best if bold_best else {},
        groups,
        columns=columns,
        superscripts=superscripts,
        decimals=decimals,
        func="to_markdown",
    )
    text, marks, notes = cells.text, cells.marks, cells.notes
    head = "| " + " | ".join(markdown_escape(header(c)) for c in text.columns) + " |"
    rule = "| " + " | ".join("---:" if num else ":---" for num in cells.numeric) + " |"
    rows = []
    for i in range(len(text)):
        row = []
        for j, num in enumerate(cells.numeric):
            value = str(text.iat[i, j])
            cell = value if num else markdown_escape(value)
            if (i, j) in marks:
                cell += MARK
            sup = (cells.sups or {}).get((i, j))
            if sup:
                cell += f"<sup>{markdown_escape(sup)}</sup>"
            row.append(f"**{cell}**" if cells.bold[i, j] and cell else cell)
        rows.append("| " + " | ".join(row) + " |")
    parts = [line for part in (caption or "").split("\n") if part for line in (markdown_escape(part), "")]
    parts += [head, rule, *rows]
    if notes:
        parts += ["", *(markdown_escape(n) for n in notes)]
    return "\n".join(parts) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "α": r"$\alpha$",
    "×": r"$\times$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "∈": r"$\in$",
    "²": r"$^2$",
    "χ": r"$\chi$",
    "†": r"$^\dagger$",
    "−": "-",
    "\n": " ",
    "\r": " ",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


def latex_escape(text: str) -> str:
    """``text`` safe in LaTeX's text mode: its special characters escaped, a few symbols as math."""
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group(0)], str(text))


_MARKDOWN_RE = re.compile(r"([\\`*_{}\[\]<>|#])")


def markdown_escape(text: str) -> str:
    """``text`` safe in a Markdown table cell: its markup characters backslash-escaped, line breaks
    as spaces."""
    return _MARKDOWN_RE.sub(r"\\\1", str(text).replace("\r", " ").replace("\n", " "))


def _sentence(text: str) -> str:
    return text if text.rstrip().endswith((".", "!", "?")) else text.rstrip() + "."


def _latex_header(column: Hashable) -> str:
    return r"$\alpha$" if str(column) == "alpha" else latex_escape(header(column))


def _latex_number(value: str) -> str:
    """A formatted number in LaTeX: a true minus sign, scientific notation as a power of ten."""
    if not value or value == "--":
        return value
    sign = "$-$" if value.startswith("-") else ""
    body = value.lstrip("-")
    if body.startswith("<"):
        return "$<$" + _latex_number(body[1:])
    mantissa, _, exponent = body.partition("e")
    if exponent:
        return f"{sign}${mantissa} \\times 10^{{{int(exponent)}}}$"
    return sign + body


def _marked_cells(
    table: pd.DataFrame,
    caption: str | None,
    nan: str,
    digits: int,
    baseline: str | None,
    best: Mapping[str, str] | None,
    groups: Sequence[str],
    *,
    columns: str | Sequence[str] | None,
    superscripts: Mapping[str, Sequence[str]] | None,
    decimals: Mapping[str, int] | None,
    func: str,
) -> _Cells:
    """The cells of a paper table (:func:`to_latex`, :func:`to_markdown`): significance marks,
    and among the notes the mark's meaning unless ``caption`` already says it."""
    cells = _cells(
        table,
        digits=digits,
        baseline=baseline,
        nan=nan,
        best=best,
        marks=True,
        groups=groups,
        columns=columns,
        superscripts=superscripts,
        decimals=decimals,
        func=func,
    )
    if cells.marks and MARK not in (caption or ""):
        return replace(cells, notes=[*cells.notes, f"{MARK}: significant."])
    return cells


def _cells(
    table: pd.DataFrame,
    *,
    digits: int,
    baseline: str | None,
    nan: str,
    best: Mapping[str, str] | None = None,
    marks: bool = False,
    groups: Sequence[str] = GROUPS,
    columns: str | Sequence[str] | None = None,
    superscripts: Mapping[str, Sequence[str]] | None = None,
    decimals: Mapping[str, int] | None = None,
    func: str = "to_text",
) -> _Cells:
    """The cells of ``table`` as strings, with the ``columns`` chosen (:func:`select_columns`);
    with ``marks``, the ``significant`` column becomes marks on the first :func:`marked` column.
    A number has the decimals of ``decimals``, else of its risk measure, else ``digits``."""
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    own = own_rows(frame, baseline)
    sups = {str(name): np.asarray(list(texts), dtype=object) for name, texts in (superscripts or {}).items()}
    for name, texts in sups.items():
        if name not in frame.columns or len(texts) != len(frame):
            raise RiskevalError(
                f"The 'superscripts' parameter of {func} takes, for a column of the table, one text "
                f"per row ({len(frame)}); got {len(texts)} for {name!r}."
            )
    chosen = list(select_columns(frame, columns, func).columns)
    if marks and SIGNIFICANT in frame.columns and SIGNIFICANT not in chosen:
        chosen.append(SIGNIFICANT)
    frame = frame[chosen]
    notes = []
    if own.any():
        names = list(dict.fromkeys(frame.loc[own, "system"].astype(str)))
        notes.append(
            f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} the baseline: "
            f"{'its' if len(names) == 1 else 'their'} own row{'s' if own.sum() > 1 else ''} "
            "against itself left out."
        )
        frame = frame.loc[~own]
        sups = {name: texts[~own] for name, texts in sups.items()}
    frame = frame.reset_index(drop=True)
    marked_cells: frozenset[tuple[int, int]] = frozenset()
    if marks and SIGNIFICANT in frame.columns:
        flags = frame[SIGNIFICANT].fillna(False).astype(bool).to_numpy()
        frame = frame.drop(columns=SIGNIFICANT)
        target = next((c for c in marked() if c in frame.columns), None)
        if target is not None:
            j = list(frame.columns).index(target)
            marked_cells = frozenset((int(i), j) for i in np.flatnonzero(flags))
    strings = {}
    numeric = []
    measures = measure_columns()
    for name in frame.columns:
        column = frame[name]
        is_number = _is_number(column)
        numeric.append(is_number)
        cls = measures.get(str(name))
        places = (decimals or {}).get(str(name), cls.decimals if cls is not None else digits)
        strings[name] = _format_column(name, column, places, nan) if is_number else _text(column, nan)
    text = pd.DataFrame(strings, index=frame.index, columns=frame.columns)
    bold = np.zeros(text.shape, dtype=bool)
    for j, name in enumerate(frame.columns):
        direction = better(str(name), best)
        if direction is not None and numeric[j]:
            bold[:, j] = _best_cells(frame, name, direction, groups)
    where = {str(name): j for j, name in enumerate(frame.columns)}
    placed = {
        (i, where[name]): str(t)
        for name, texts in sups.items()
        if name in where
        for i, t in enumerate(texts)
        if t
    }
    return _Cells(text, numeric, bold, notes, marked_cells, placed)


def own_rows(frame: pd.DataFrame, baseline: str | None) -> np.ndarray:
    """Rows of a system against itself: ``system`` equal to ``baseline`` (given or a column)."""
    if "system" not in frame.columns:
        return np.zeros(len(frame), dtype=bool)
    systems = frame["system"].astype(str).to_numpy()
    if baseline is not None:
        return systems == str(baseline)
    if "reason" in frame.columns:
        return (frame["reason"].astype(str) == _BASELINE_REASON).to_numpy()
    if "baseline" in frame.columns:
        return systems == frame["baseline"].astype(str).to_numpy()
    return np.zeros(len(frame), dtype=bool)


def _is_number(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype)


def _format_column(name: Hashable, column: pd.Series, digits: int, nan: str) -> list[str]:
    values = column.astype("float64").to_numpy()
    present = ~np.isnan(values)
    fmt: Callable[[float], str]
    if is_pvalue(name):
        fmt = format_pvalue
    elif str(name) == "alpha":
        fmt = format_alpha
    elif pd.api.types.is_integer_dtype(column.dtype) or (
        _is_whole_named(name) and bool(np.all(values[present] % 1 == 0))
    ):
        fmt = _integer
    else:
        fmt = lambda v: f"{v:.{digits}f}"  # noqa: E731
    return [fmt(v) if ok else nan for v, ok in zip(values, present, strict=True)]


def _integer(value: float) -> str:
    return str(int(value))


def _is_whole_named(name: Hashable) -> bool:
    text = str(name)
    return text in COUNTS or "rank" in text


def _text(column: pd.Series, nan: str) -> list[str]:
    return [nan if _missing(v) else str(v) for v in column.tolist()]


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def better(name: str, best: Mapping[str, str] | None = None) -> str | None:
    """Which way a column's values are better: ``"max"`` (a mean, a risk measure whose larger
    value is better, wins), ``"min"`` (losses, ranks, a risk measure whose smaller value is better)
    or ``None`` (names, p-values, anything else); ``best`` (column -> direction), where given,
    decides alone."""
    if best is not None:
        return best.get(name)
    for cls in RISK_MEASURES.values():
        if name in (cls.column, cls.header):
            return "max" if cls.higher_is_better else "min"
    if name in HIGHER_IS_BETTER or name.startswith("NDCG@"):
        return "max"
    if name in LOWER_IS_BETTER or name.startswith("rank"):
        return "min"
    return None


def _best_cells(frame: pd.DataFrame, column: Hashable, direction: str, groups: Sequence[str]) -> np.ndarray:
    """Cells equal to the best value of ``column`` within their group (e.g. measure and α)."""
    values = frame[column].astype("float64")
    keys = [frame[g] for g in groups if g in frame.columns and g != column]
    if not keys:
        keys = [pd.Series(0, index=frame.index)]
    grouped = values.groupby(keys, sort=False)
    target = grouped.transform("max" if direction == "max" else "min")
    several = grouped.transform("count") > 1  # a value alone in its group is not "the best"
    return ((values == target) & several).to_numpy()
