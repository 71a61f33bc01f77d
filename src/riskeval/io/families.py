"""The model-family file of ``riskeval bias-variance-families``: which family and parameter value
each system belongs to (Zhang, Song, Wang & Hou, SIGIR 2013, §3: the combined query model for λ =
0.1 … 0.9, RM with a share r_n of non-relevant documents removed, ...).

A CSV or TSV file with a header line naming the columns ``system`` and ``family`` and optionally
``parameter`` (a number; empty for a one-model family).  The text goes through the decoding layer
of every reader (compression, encodings, line breaks).
"""

from __future__ import annotations

import os

import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.delimited import read_delimited


def read_families(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The families of ``path``: a DataFrame with columns ``system, family, parameter`` (the last
    NaN where not given).  Raises :class:`~riskeval.errors.InputFormatError` naming the file for a
    missing column, a parameter that is not a number, or a file without rows."""
    location = os.fspath(path)
    frame, lines, problems = read_delimited(location, None, lambda header: set(range(len(header))))
    problems.raise_any()
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in ("system", "family") if c not in frame.columns]
    if missing:
        raise InputFormatError(
            [(location, f"a families file needs the columns system, family [, parameter]; missing {missing}")]
        )
    if frame.empty:
        raise InputFormatError([(location, "the families file lists no system")])
    raw = frame["parameter"].str.strip() if "parameter" in frame.columns else pd.Series("", index=frame.index)
    parameter = pd.to_numeric(raw.where(raw != ""), errors="coerce")
    bad = parameter.isna() & (raw != "")
    if bad.any():
        i = int(bad.to_numpy().argmax())
        raise InputFormatError([(f"{location}:{lines[i]}", f"the parameter {raw.iloc[i]!r} is not a number")])
    return pd.DataFrame(
        {
            "system": frame["system"].str.strip(),
            "family": frame["family"].str.strip(),
            "parameter": parameter.astype(float),
        }
    )
