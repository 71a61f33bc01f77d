"""The model-family file of ``riskeval bias-variance-families``: which family and parameter value
each system belongs to (Zhang, Song, Wang & Hou, SIGIR 2013, §3: the combined query model for λ =
0.1 … 0.9, RM with a share r_n of non-relevant documents removed, ...).

A CSV or TSV file with a header line naming the columns ``system`` and ``family`` and optionally
``parameter`` (a number; empty for a one-model family).  The text goes through the decoding layer
of every reader (compression, encodings, line breaks).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.delimited import read_delimited
from riskeval.io.system_names import unlisted_systems


def read_families(path: str | os.PathLike[str], systems: Iterable[str] | None = None) -> pd.DataFrame:
    """The families of ``path``: a DataFrame with columns ``system, family, parameter`` (the last
    NaN where not given).  Raises :class:`~riskeval.errors.InputFormatError` naming the file for a
    missing column or a file without rows, and the file and line for a parameter that is not a
    number or a system listed twice; with the ``systems`` of the scores, also for a system of them
    the file leaves out (and, at their lines, the names of the file that are not systems, with the
    close ones: a misspelt name)."""
    location = os.fspath(path)
    frame, numbers, found = read_delimited(location, None, lambda header: set(range(len(header))))
    found.raise_any()
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in ("system", "family") if c not in frame.columns]
    if missing:
        raise InputFormatError(
            [(location, f"a families file needs the columns system, family [, parameter]; missing {missing}")]
        )
    if frame.empty:
        raise InputFormatError([(location, "the families file lists no system")])
    where = [f"{location}:{n}" for n in numbers]  # the line of each row
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
