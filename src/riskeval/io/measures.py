"""Choosing one measure among those an input holds, by trec_eval or ir_measures name.

trec_eval output names measures ``ndcg_cut_10``, ``P_10``, ``map``; ir_measures names them
``nDCG@10``, ``P@10``, ``AP``.  Either spelling selects the measure: an exact name first, otherwise
the name parsed by ir_measures (``ir_measures.parse_measure``, then
``ir_measures.parse_trec_measure``) and compared with the available names parsed the same way.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import ir_measures

from riskeval.errors import RiskevalError


def resolve_measure(requested: Any, available: Sequence[str]) -> str | None:
    """The name in ``available`` that ``requested`` (a name or an ir_measures measure) denotes.

    Returns ``None`` when no available name denotes it.
    """
    text = str(requested)
    if text in available:
        return text
    wanted = requested if not isinstance(requested, str) else _parse(requested)
    if wanted is None:
        return None
    return next((name for name in available if _parse(name) == wanted), None)


def check_measure(measure: Any) -> None:
    """Refuse a ``measure`` argument that is neither a name nor an ir_measures measure, or an
    ir_measures measure whose parameters are invalid (see :func:`parameter_problem`)."""
    if measure is not None and not isinstance(measure, (str, ir_measures.measures.BaseMeasure)):
        raise RiskevalError(
            "The 'measure' parameter must be a measure name such as 'ndcg_cut_10' or 'nDCG@10', "
            f"or an ir_measures measure; got {measure!r}."
        )
    if isinstance(measure, ir_measures.measures.BaseMeasure):
        problem = parameter_problem(measure)
        if problem is not None:
            raise RiskevalError(f"The 'measure' parameter {str(measure)!r} is invalid: {problem}.")


#: Integer parameters are C ``int`` in the evaluators (pytrec_eval): 32-bit signed.
INT_RANGE = (-(2**31), 2**31 - 1)
_ABSENT = object()


def parameter_problem(measure: Any) -> str | None:
    """What is wrong with the parameters of an ir_measures measure, or ``None``.

    Checked before any evaluator sees them (pytrec_eval aborts the interpreter on a cutoff of 0):
    required parameters are given; a cutoff and a relevance level ``rel`` are whole numbers from 1
    to 2³¹−1 (negative grades are judged not relevant, see :mod:`riskeval.effectiveness`); other
    integers (``min_rel``...) fit in 32 bits; real numbers (``p``, ``alpha``...) are finite; gains
    map 32-bit integers to finite numbers; the rest as ir_measures declares (type, choices).
    """
    name = getattr(measure, "NAME", str(measure))
    supported = getattr(measure, "SUPPORTED_PARAMS", {}) or {}
    params = getattr(measure, "params", {}) or {}
    for key, info in supported.items():
        value = params.get(key, _ABSENT)
        if value is _ABSENT:
            if info.required:
                example = f"{name}@10" if key == "cutoff" else f"{name}({key}=...)"
                return f"the parameter {key!r} is required, e.g. {example}"
            continue
        problem = _value_problem(key, value, info)
        if problem is not None:
            return problem
    return None


def _value_problem(key: str, value: Any, info: Any) -> str | None:
    low, high = INT_RANGE
    if info.dtype is int:
        lowest = 1 if key in ("cutoff", "rel") else low
        if isinstance(value, bool) or not isinstance(value, int) or not lowest <= value <= high:
            what = {"cutoff": "the cutoff", "rel": "the relevance level 'rel'"}.get(
                key, f"the parameter {key!r}"
            )
            return f"{what} must be a whole number from {lowest} to {high}; got {value!r}"
        return None
    if info.dtype is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"the parameter {key!r} must be a finite number; got {value!r}"
    if info.dtype is dict and isinstance(value, dict):
        for grade, gain in value.items():
            if isinstance(grade, bool) or not isinstance(grade, int) or not low <= grade <= high:
                return f"the gains must map whole-number grades to numbers; got grade {grade!r}"
            if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not math.isfinite(gain):
                return f"the gains must be finite numbers; got {gain!r} for grade {grade}"
    if not info.validate(value):
        choices = getattr(info, "choices", None)
        allowed = f" one of {list(choices)}" if isinstance(choices, (list, tuple, set)) else ""
        kind = getattr(info.dtype, "__name__", "valid")
        return f"the parameter {key}={value!r} is not{allowed or ' a ' + kind + ' value'}"
    return None


def describe_available(available: Sequence[str]) -> str:
    """The available measure names, each with its ir_measures name where that differs."""
    shown = []
    for name in available:
        parsed = _parse(name)
        alias = f" ({parsed})" if parsed is not None and str(parsed) != name else ""
        shown.append(f"{name}{alias}")
    return ", ".join(shown) if shown else "(none)"


@functools.lru_cache(maxsize=4096)
def _parse(name: str) -> Any:
    """``name`` as one ir_measures measure (ir_measures or trec_eval syntax), or ``None``."""
    try:
        return ir_measures.parse_measure(name)
    except Exception:  # ir_measures raises NameError, SyntaxError, ValueError... for unknown names
        pass
    try:
        import pytrec_eval

        if name in pytrec_eval.supported_nicknames:  # groups of measures, not one
            return None
        parsed = ir_measures.parse_trec_measure(name)
    except Exception:
        return None
    return parsed[0] if len(parsed) == 1 else None
