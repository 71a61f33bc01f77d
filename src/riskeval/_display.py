"""How result objects show in a notebook: a compact HTML block (``_repr_html_``) of a title, the
result's size and settings, and at most a screen of table rows, with every text escaped (run names
and topic ids come from the user's files).

Only the standard library (pandas for the tables it is given): every layer's result objects use it.
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Rows of a table shown in a notebook; the rest are counted under the table.
MAX_ROWS = 12
#: Columns of a table shown in a notebook (the index not counted); the rest are counted.
MAX_COLS = 12
#: Significant digits of the numbers shown.
DIGITS = 4


def number(value: Any, digits: int = DIGITS) -> str:
    """A value as a notebook cell shows it: floats to ``digits`` significant digits (``–`` for
    NaN or None), integers and text as they are."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        return "–" if math.isnan(v) else f"{v:.{digits}g}"
    return str(value)


def _label(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, tuple) else number(value)


def table(
    frame: pd.DataFrame, caption: str = "", *, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS
) -> str:
    """``frame`` as an HTML table: its index as row headers, its first ``max_rows`` rows and
    ``max_cols`` columns, and a last line that counts what was left out."""
    rows, cols = frame.shape
    shown = frame.iloc[:max_rows, :max_cols]
    e = html.escape
    names = [n for n in frame.index.names if n is not None]
    index_head = e(", ".join(map(str, names)))
    head = f"<th>{index_head}</th>" + "".join(f"<th>{e(_label(c))}</th>" for c in shown.columns)
    body = "".join(
        f"<tr><th>{e(_label(label))}</th>" + "".join(f"<td>{e(number(v))}</td>" for v in values) + "</tr>"
        for label, values in zip(shown.index, shown.itertuples(index=False, name=None), strict=True)
    )
    left = [f"{rows - max_rows:,} more rows"] if rows > max_rows else []
    left += [f"{cols - max_cols:,} more columns"] if cols > max_cols else []
    more = f'<p style="margin:0;color:#666">… {" and ".join(left)}</p>' if left else ""
    cap = f'<caption style="text-align:left">{e(caption)}</caption>' if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def block(
    title: str,
    facts: Iterable[str],
    tables: Iterable[tuple[str, pd.DataFrame]] = (),
    *,
    note: str = "",
) -> str:
    """The HTML of a result: ``title`` in bold, ``facts`` (size and settings) joined by "; ", the
    tables (caption, frame) and a ``note`` (what else the object holds); every text escaped."""
    e = html.escape
    said = "; ".join(facts)
    parts = [f"<strong>{e(title)}</strong>" + (f": {e(said)}" if said else "")]
    parts += [table(frame, caption) for caption, frame in tables]
    if note:
        parts.append(f'<p style="margin:0;color:#666">{e(note)}</p>')
    return '<div class="riskeval-result">' + "".join(parts) + "</div>"


def fields(title: str, values: Mapping[str, Any], *, note: str = "") -> str:
    """The HTML of a result of scalar fields: one row per field."""
    import pandas as pd

    frame = pd.DataFrame({"value": [number(v) for v in values.values()]}, index=list(values))
    return block(title, [], [("", frame)], note=note)


def progress_bar(**kwargs: Any) -> Any:
    """A tqdm progress bar: the notebook widget where ipywidgets is installed (``tqdm.auto``),
    the text bar otherwise, which a notebook shows as text (``tqdm.auto`` without ipywidgets
    warns "IProgress not found" and falls back to it)."""
    try:
        import ipywidgets  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        from tqdm import tqdm
    else:
        from tqdm.auto import tqdm
    return tqdm(**kwargs)
