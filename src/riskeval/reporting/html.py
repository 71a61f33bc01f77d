"""HTML building blocks of the report: tables, inline SVG figures, paragraphs.

Everything returns :class:`markupsafe.Markup` (safe HTML) built from escaped text, so section
builders compose them without escaping twice.  Figures are embedded as inline ``<svg>`` elements:
no external file, no script, text kept as text (searchable, scalable).
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from riskeval._optional import require

if TYPE_CHECKING:
    from markupsafe import Markup, escape
else:  # without the report extra: the error that names it, not a bare ModuleNotFoundError
    _markupsafe = require("markupsafe", "riskeval.report")
    Markup, escape = _markupsafe.Markup, _markupsafe.escape

Formatter = Callable[[Any], str]


def number(digits: int = 4) -> Formatter:
    """Fixed-point with ``digits`` decimals; NaN as an en dash."""
    return lambda v: "–" if _missing(v) else f"{float(v):.{digits}f}"


def integer(v: Any) -> str:
    return "–" if _missing(v) else f"{int(v)}"


def pvalue(v: Any) -> str:
    """p-values: 3 decimals, or ``<0.001``."""
    if _missing(v):
        return "–"
    return "<0.001" if v < 0.001 else f"{float(v):.3f}"


def table(
    frame: pd.DataFrame,
    *,
    formats: dict[Any, Formatter] | None = None,
    cell_class: pd.DataFrame | None = None,
    index: bool = True,
    caption: str | None = None,
    css_class: str = "data",
    table_id: str | None = None,
) -> Markup:
    """An HTML table of ``frame`` (two header rows when its columns are a 2-level MultiIndex).

    ``formats`` maps a column (or, with a MultiIndex, its last level) to a formatter; numbers
    default to 4 decimals.  ``cell_class``: same shape as ``frame``, CSS classes per cell (or
    ``None``).  The index is written as the first column(s) unless ``index=False``.  ``table_id``:
    the table's ``id`` (for the page script).
    """
    formats = formats or {}
    cols = frame.columns
    multi = isinstance(cols, pd.MultiIndex)
    index_names = [n if n is not None else "" for n in frame.index.names] if index else []
    head: list[str] = []
    if multi:
        top = ["<tr>", *(f'<th rowspan="2">{escape(n)}</th>' for n in index_names)]
        for label, span in _runs(cols.get_level_values(0)):
            top.append(f'<th colspan="{span}" class="group">{escape(label)}</th>')
        head += [
            *top,
            "</tr>",
            "<tr>",
            *(f"<th>{escape(c)}</th>" for c in cols.get_level_values(-1)),
            "</tr>",
        ]
    else:
        head += [
            "<tr>",
            *(f"<th>{escape(n)}</th>" for n in index_names),
            *(f"<th>{escape(c)}</th>" for c in cols),
            "</tr>",
        ]
    leaf = list(cols.get_level_values(-1)) if multi else list(cols)
    fmts = [formats.get(c, formats.get(leaf[j], _default)) for j, c in enumerate(cols)]
    classes = None if cell_class is None else cell_class.to_numpy(dtype=object)
    body: list[str] = []
    for i, (label, row) in enumerate(zip(frame.index, frame.itertuples(index=False), strict=True)):
        labels = label if isinstance(label, tuple) else (label,)
        cells = [f'<th scope="row">{escape(v)}</th>' for v in labels] if index else []
        for j, value in enumerate(row):
            cls = classes[i, j] if classes is not None and classes[i, j] else None
            attr = f' class="{escape(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{escape(fmts[j](value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    ident = f' id="{escape(table_id)}"' if table_id else ""
    return Markup(
        f'<div class="scroll"><table class="{escape(css_class)}"{ident}>{cap}'
        f"<thead>{''.join(head)}</thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def figure(display_or_figure: Any, caption: str | None = None, *, prefix: str = "f1-") -> Markup:
    """A matplotlib figure (or a display holding one in ``figure_``) as an inline ``<figure>``.

    ``prefix`` is put in front of every id of the SVG: give each figure of a page its own.
    """
    fig = getattr(display_or_figure, "figure_", display_or_figure)
    cap = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return Markup(f'<figure class="plot">{svg(fig, prefix)}{cap}</figure>')


_ID_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def svg(fig: Any, prefix: str) -> str:
    """The figure as an ``<svg>`` element: text as ``<text>``, no metadata, no XML prologue, every
    id (and reference to one) prefixed so that several figures can share a page."""
    import matplotlib as mpl

    buf = io.StringIO()
    # Labels are user text (system names, topic ids): '$' is a character, never mathtext, both in
    # the texts already drawn and in the tick labels made while saving.
    for text in fig.findobj(mpl.text.Text):
        text.set_parse_math(False)
    # A fixed hash salt keeps the output the same from run to run.
    with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "riskeval", "text.parse_math": False}):
        fig.savefig(buf, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    text = buf.getvalue()
    return _ID_REF.sub(lambda m: m.group(1) + prefix + m.group(2), text[text.index("<svg") :])


def json_script(element_id: str, data: Any) -> Markup:
    """``data`` as JSON in a ``<script type="application/json">`` element: every ``<``, ``>`` and
    ``&`` is written as a ``\\u`` escape, so no text in the data (a run called ``</script>``) can
    end the element or open a comment; ``JSON.parse`` gives the text back unchanged.  Numbers must
    be finite or infinite (a risk at a huge α): JSON has no infinity, so ±∞ is written as
    ``{"__inf__": ±1}``, which the page's script turns back into a number; NaN is written as
    ``null``, shown as a missing value."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a non-finite number: rare, so the common case pays nothing for it
        text = json.dumps(_json_safe(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return Markup(f'<script type="application/json" id="{escape(element_id)}">{text}</script>')


def _json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced as :func:`json_script` describes."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else {"__inf__": 1 if value > 0 else -1}
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def short_paths(paths: Iterable[Any]) -> list[dict[str, Any]]:
    """Input paths grouped by folder, for display: ``[{"folder": ..., "files": [...], "paths":
    [...]}]`` (``paths``: folder/file, as shown when a folder has few files) with the
    folder relative to the working directory when it lies under it or beside it (``../data``), else
    absolute, and each file by its name."""
    import os
    from pathlib import Path

    groups: dict[str, list[str]] = {}
    shown: dict[str, list[str]] = {}
    for p in paths:
        path = Path(p)
        folder = str(path.parent)
        try:
            folder = os.path.relpath(path.parent) if path.is_absolute() else folder
        except ValueError:  # another drive (Windows)
            pass
        if folder.startswith(os.pardir + os.sep + os.pardir):  # two levels up or more: absolute
            folder = str(path.parent if path.is_absolute() else path.parent.resolve())
        groups.setdefault(folder, []).append(path.name)
        shown.setdefault(folder, []).append(path.name if folder == "." else os.path.join(folder, path.name))
    return [
        {"folder": "" if f == "." else f, "files": names, "paths": shown[f]} for f, names in groups.items()
    ]


def paragraph(text: str) -> Markup:
    return Markup(f"<p>{escape(text)}</p>")


def join(parts: Iterable[Any]) -> Markup:
    """Concatenate markup (plain strings are escaped)."""
    return Markup("").join(parts)


def slug(text: str) -> str:
    """An HTML id from a title."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _default(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return number(4)(v)
    return "–" if _missing(v) else str(v)


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and math.isnan(v))


def _runs(labels: Iterable[Any]) -> list[tuple[Any, int]]:
    """Consecutive equal labels as (label, count)."""
    out: list[tuple[Any, int]] = []
    for label in labels:
        if out and out[-1][0] == label:
            out[-1] = (label, out[-1][1] + 1)
        else:
            out.append((label, 1))
    return out
