"""The model-family file of ``riskeval bias-variance-families``: which family and parameter value
each system belongs to (Zhang, Song, Wang & Hou, SIGIR 2013, §3: the combined query model for λ =
0.1 … 0.9, RM with a share r_n of non-relevant documents removed, ...).

A CSV or TSV file with a header line naming the columns ``system`` and ``family`` and optionally
``parameter`` (a number; empty for a one-model family).  The text goes through the decoding layer
of every reader (compression, encodings, line breaks).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable

import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.decoding import lines, read_text
from riskeval.io.system_names import unlisted_systems


def read_families(path: str | os.PathLike[str], systems: Iterable[str] | None = None) -> pd.DataFrame:
    """The families of ``path``: a DataFrame with columns ``system, family, parameter`` (the last
    NaN where not given).  Raises :class:`~riskeval.errors.InputFormatError` naming the file for a
    missing column or a file without rows, and the file and line for a parameter that is not a
    number or a system listed twice; with the ``systems`` of the scores, also for a system of them
    the file leaves out (and, at their lines, the names of the file that are not systems, with the
    close ones: a misspelt name)."""
    location = os.fspath(path)
    text = read_text(location)
    sep = "\t" if "\t" in text.split("\n", 1)[0] else ","
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, skipinitialspace=True
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputFormatError([(location, f"not a CSV/TSV table of model families: {exc}")]) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in ("system", "family") if c not in frame.columns]
    if missing:
        raise InputFormatError(
            [(location, f"a families file needs the columns system, family [, parameter]; missing {missing}")]
        )
    if frame.empty:
        raise InputFormatError([(location, "the families file lists no system")])
    # the line of each row: pandas skips blank lines (and a quoted field may span lines: then the
    # rows are located by the file alone)
    numbers = [n for n, line in enumerate(lines(text), start=1) if line.strip()][1:]
    where = [f"{location}:{n}" for n in numbers] if len(numbers) == len(frame) else [location] * len(frame)
    raw = frame["parameter"].str.strip() if "parameter" in frame.columns else pd.Series("", index=frame.index)
    parameter = pd.to_numeric(raw.where(raw != ""), errors="coerce")
    bad = parameter.isna() & (raw != "")
    if bad.any():
        i = int(bad.to_numpy().argmax())
        raise InputFormatError([(where[i], f"the parameter {raw.iloc[i]!r} is not a number")])
    names = frame["system"].str.strip()
    first: dict[str, str] = {}
    problems = []
    for name, at in zip(names, where, strict=True):
        if name in first:
            problems.append((at, f"system {name!r} is listed twice (first at {first[name]}); list each once"))
        else:
            first[name] = at
    if systems is not None and not problems:
        problems = unlisted_systems(first, systems, location, "family")
    if problems:
        raise InputFormatError(problems)
    return pd.DataFrame(
        {
            "system": names,
            "family": frame["family"].str.strip(),
            "parameter": parameter.astype(float),
        }
    )
