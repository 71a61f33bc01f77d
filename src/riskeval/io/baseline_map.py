"""The mapping file of ``riskeval risk --baseline-map``: which run is each system's own baseline.

Dinçer, Ounis & Macdonald (ECIR 2014, §5) evaluate each participant's runs against the baseline run
of the same participant rather than one common baseline.  The file has two columns, the system and
its baseline (a system of the same score table), separated by a comma, a tab or spaces; an optional
first line ``system,baseline`` (any of those separators) is a header; empty lines and lines starting
with ``#`` are skipped.  The text goes through the decoding layer of every reader (compression,
encodings, line breaks).
"""

from __future__ import annotations

import os
import re

import pandas as pd

from riskeval.io.decoding import lines, read_text
from riskeval.io.problems import Problems

_SEPARATOR = re.compile(r"\s*[,\t]\s*|\s+")


def read_baseline_map(path: str | os.PathLike[str]) -> pd.Series:
    """The system → baseline mapping of ``path`` as a Series (index ``system``, name ``baseline``).

    Raises :class:`~riskeval.errors.InputFormatError`, naming the file and line of every problem: a
    line without exactly two fields, a system listed twice, a file without any mapping.
    """
    location = os.fspath(path)
    systems: list[str] = []
    baselines: list[str] = []
    seen: dict[str, int] = {}
    problems = Problems()
    for number, raw in enumerate(lines(read_text(location)), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = _SEPARATOR.split(line)
        if len(fields) != 2 or not all(fields):
            problems.append(
                (
                    f"{location}:{number}",
                    "a baseline map line has two fields, the system and its baseline (comma, tab or "
                    f"space separated); got {len(fields)}: {line[:80]!r}",
                )
            )
            continue
        system, base = fields
        if not seen and not problems and (system.lower(), base.lower()) == ("system", "baseline"):
            seen[""] = number  # the header
            continue
        if system in seen:
            problems.append(
                (f"{location}:{number}", f"system {system!r} is mapped twice (first on line {seen[system]})")
            )
            continue
        seen[system] = number
        systems.append(system)
        baselines.append(base)
    if not systems and not problems:
        problems.append((location, "the baseline map lists no system"))
    problems.raise_any()
    return pd.Series(baselines, index=pd.Index(systems, name="system"), name="baseline", dtype=object)
