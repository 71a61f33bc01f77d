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
from collections.abc import Iterable

import pandas as pd

from riskeval.io.decoding import lines, read_text
from riskeval.io.problems import Problems
from riskeval.io.system_names import did_you_mean, unlisted_systems

_SEPARATOR = re.compile(r"\s*[,\t]\s*|\s+")


def read_baseline_map(path: str | os.PathLike[str], systems: Iterable[str] | None = None) -> pd.Series:
    """The system → baseline mapping of ``path`` as a Series (index ``system``, name ``baseline``).

    Raises :class:`~riskeval.errors.InputFormatError`, naming the file and line of every problem: a
    line without exactly two fields, a system listed twice, a file without any mapping; with the
    ``systems`` of the scores, also a system of them the file does not map (and the names of the
    file that are not systems, with the close ones: a misspelt name), and a baseline that is not one
    of them (with the close ones), at its line.
    """
    location = os.fspath(path)
    mapped: list[str] = []
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
        mapped.append(system)
        baselines.append(base)
    if not mapped and not problems:
        problems.append((location, "the baseline map lists no system"))
    if systems is not None and not problems:
        names = [str(s) for s in systems]
        known = set(names)
        lines_of = {s: f"{location}:{seen[s]}" for s in mapped}
        problems.extend(unlisted_systems(lines_of, names, location, "baseline"))
        problems.extend(
            [
                (
                    lines_of[s],
                    f"the baseline {b!r} of {s!r} is not a system of the scores{did_you_mean(b, names)}",
                )
                for s, b in zip(mapped, baselines, strict=True)
                if s in known and b not in known
            ]
        )
    problems.raise_any()
    return pd.Series(baselines, index=pd.Index(mapped, name="system"), name="baseline", dtype=object)
