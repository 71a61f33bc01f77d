"""Topic weights: one ``topic weight`` pair per line, whitespace separated, ``#`` comments.

The file goes through :mod:`riskeval.io.decoding` like every input and is read one line at a time;
its problems are kept up to the budget of :mod:`riskeval.io.problems`.
"""

from __future__ import annotations

import math
import os

from riskeval.io.decoding import lines, read_text
from riskeval.io.numbers import parse_decimal
from riskeval.io.problems import Problems


def read_topic_weights(path: str | os.PathLike) -> dict[str, float]:
    """Topic -> weight (a finite number >= 0), in file order.

    Raises
    ------
    InputFormatError
        Lines without two fields, weights that are not finite numbers >= 0, a topic weighted
        twice, or a file without weights, each as ``file:line``.
    """
    location = os.fspath(path)
    weights: dict[str, float] = {}
    first: dict[str, int] = {}
    problems = Problems()
    for lineno, line in enumerate(lines(read_text(location)), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        where = f"{location}:{lineno}"
        if len(fields) != 2:
            problems.append((where, f"expected 2 fields 'topic weight', found {len(fields)}"))
            continue
        value = parse_decimal(fields[1])
        if value is None or not math.isfinite(value) or value < 0:
            problems.append((where, f"weight {fields[1][:40]!r} is not a finite number >= 0"))
        elif fields[0] in first:
            problems.append((where, f"topic {fields[0]!r} has a weight already (line {first[fields[0]]})"))
        else:
            weights[fields[0]] = value
            first[fields[0]] = lineno
    if not weights and not problems:
        problems.append((location, "holds no weights: expected lines 'topic weight'"))
    problems.raise_any()
    return weights
