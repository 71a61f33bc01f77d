"""How every subcommand prints a table: human-readable, CSV or JSON (``--format``)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("table", "csv", "json")

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: aligned text for people; csv and json: full precision for programs.",
)


def emit(frame: pd.DataFrame, fmt: str, *, out: TextIO | None = None, digits: int = 4) -> None:
    """Write ``frame`` to ``out`` (stdout) in ``fmt``.

    Values are rounded only for the human ``table`` format; CSV and JSON keep full precision.  JSON is
    a list of records (one object per row, the index included as columns).
    """
    out = out or sys.stdout
    flat = frame.reset_index() if _has_named_index(frame) else frame
    if fmt == "csv":
        flat.to_csv(out, index=False)
    elif fmt == "json":
        # Not DataFrame.to_json: its double_precision counts decimal places (at most 15), so a
        # p-value of 1.5e-8 would keep 8 significant digits.  json writes the shortest repr.
        records = flat.astype(object).where(flat.notna(), None).to_dict(orient="records")
        json.dump(records, out, default=_plain, allow_nan=False)
        out.write("\n")
    else:
        out.write(flat.to_string(index=False, float_format=lambda v: f"{v:.{digits}f}"))
        out.write("\n")


def _plain(value: object) -> object:
    """numpy scalars as Python numbers."""
    item = getattr(value, "item", None)
    if item is None:
        raise TypeError(f"cannot write {type(value).__name__} as JSON")
    return item()


def _has_named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)
