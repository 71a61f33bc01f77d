"""Measure names parsed by ir_measures and checked before any evaluator sees them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from riskeval.errors import RiskevalError
from riskeval.io.measures import measure_problems, parse_ir_measure


def parse_measures(measures: Sequence[Any]) -> list[Any]:
    """ir_measures ``Measure`` objects for the given names, checked to be computable here.

    The parameters are checked before any evaluator sees them
    (:func:`riskeval.io.measures.parameter_problem`: a cutoff is a whole number >= 1, ...).

    Raises :class:`~riskeval.errors.RiskevalError` naming every measure that cannot be parsed, has
    an invalid parameter or no installed ir_measures evaluator, each with what to write instead
    (:func:`riskeval.io.measures.measure_problems`).
    """
    problems = measure_problems(measures)
    if problems:
        raise RiskevalError("\n".join(problems))
    parsed: list[Any] = []
    for spec in measures:
        measure = parse_ir_measure(spec)
        if measure not in parsed:
            parsed.append(measure)
    return parsed
