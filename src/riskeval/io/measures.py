"""Measure names in the spellings of ir_measures, trec_eval and ranx, and choosing one measure
among those an input holds.

trec_eval output names measures ``ndcg_cut_10``, ``P_10``, ``map``; ir_measures names them
``nDCG@10``, ``P@10``, ``AP``; ranx ``ndcg@10``, ``precision@10``, ``map``.  :data:`MEASURE_NAMES` is
the one table between the three; :func:`canonical_measure` gives the ir_measures spelling of any of
them (trec_eval names outside the table go through ``ir_measures.parse_trec_measure``).  A name
selects a measure of an input when both have the same ir_measures spelling.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

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
    to 2³¹−1 (negative grades are judged not relevant, see :mod:`riskeval.evaluation.inputs`); other
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
    """``name`` (any spelling of :func:`canonical_measure`) as one ir_measures measure, or ``None``."""
    spelled = canonical_spelling(name)
    try:
        return ir_measures.parse_measure(spelled)
    except Exception:  # ir_measures raises NameError, SyntaxError, ValueError... for unknown names
        return None


class MeasureSpelling(NamedTuple):
    """One measure family in the three spellings (``None``: the tool has no name for it).

    Attributes
    ----------
    ir_measures : the family's ir_measures name (``nDCG``): ``nDCG``, ``nDCG@10``.
    trec_eval : trec_eval's name without a cutoff (``ndcg``).
    trec_eval_cut : trec_eval's prefix before a cutoff (``ndcg_cut_`` for ``ndcg_cut_10``).
    ranx : ranx's name (``ndcg``), followed by ``@k`` for a cutoff; ``-lN`` for a relevance
        level N where ``rel`` is true.
    cutoff_optional : the family may be named without a cutoff (ir_measures' ``cutoff`` parameter
        is not required).
    rel : ranx's ``-lN`` is ir_measures' ``rel=N`` (the grade from which a document is relevant).
    """

    ir_measures: str
    trec_eval: str | None
    trec_eval_cut: str | None
    ranx: str | None
    cutoff_optional: bool
    rel: bool


#: The one table of measure names.  Every row denotes the same values in each spelling (checked
#: against trec_eval's and ranx's own values on TREC DL 2019 in the tests), with two notes:
#: trec_eval's names always mean relevance level 1 (``trec_eval -l2`` is not part of the name), so
#: ``AP(rel=2)`` has no trec_eval spelling; and ranx's ``ndcg`` is nDCG with linear gains (Järvelin
#: and Kekäläinen, TOIS 2002), as trec_eval's ``ndcg_cut`` and ir_measures' ``nDCG``, whereas ranx's
#: ``ndcg_burges`` (gains 2^grade - 1) is not in the table.
MEASURE_NAMES: tuple[MeasureSpelling, ...] = (
    MeasureSpelling("nDCG", "ndcg", "ndcg_cut_", "ndcg", True, False),
    MeasureSpelling("P", None, "P_", "precision", False, True),
    MeasureSpelling("R", None, "recall_", "recall", False, True),
    MeasureSpelling("AP", "map", "map_cut_", "map", True, True),
    MeasureSpelling("RR", "recip_rank", None, "mrr", True, True),
    MeasureSpelling("Rprec", "Rprec", None, "r-precision", True, True),
    MeasureSpelling("Success", None, "success_", "hit_rate", False, True),
    MeasureSpelling("Bpref", "bpref", None, "bpref", True, False),
    MeasureSpelling("NumRel", "num_rel", None, None, True, False),
    MeasureSpelling("infAP", "infAP", None, None, True, False),
)

_RANX = re.compile(r"(?P<name>[a-z_-]+?)(?:@(?P<cutoff>[1-9][0-9]*))?(?:-l(?P<rel>[1-9][0-9]*))?")
_CUTOFF = re.compile(r"[1-9][0-9]*")


def canonical_measure(name: Any) -> str:
    """The ir_measures spelling of a measure named in ir_measures', trec_eval's or ranx's spelling.

    ``"ndcg_cut_10"``, ``"ndcg@10"`` and ``"nDCG@10"`` all give ``"nDCG@10"``; ``"map"`` gives
    ``"AP"``; ``"precision@10-l2"`` (ranx) gives ``"P(rel=2)@10"``.  An ir_measures measure object
    gives its own spelling.  Names are case-sensitive, as in each tool.  See :data:`MEASURE_NAMES`.

    Raises
    ------
    RiskevalError
        The name is none of these spellings, or a trec_eval group name (``P``, ``ndcg_cut``) that
        stands for several measures.
    """
    if isinstance(name, ir_measures.measures.BaseMeasure):
        return str(name)
    found = _canonical(str(name)) if isinstance(name, str) else None
    if found is None:
        raise RiskevalError(
            f"Unknown measure name {name!r}: expected an ir_measures name (nDCG@10, P@10, AP(rel=2), "
            "RR@10, R@100), a trec_eval name (ndcg_cut_10, P_10, map, recip_rank, recall_100) or a "
            "ranx name (ndcg@10, precision@10, map, mrr@10, recall@100)."
        )
    return found


def canonical_spelling(spec: Any) -> Any:
    """``spec`` in ir_measures' spelling when it is a name :func:`canonical_measure` knows, else
    ``spec`` unchanged (for the caller to report in its own words)."""
    if not isinstance(spec, str):
        return spec
    try:
        ir_measures.parse_measure(spec)
        return spec  # already ir_measures' spelling, kept as written for the caller's checks
    except Exception:  # ir_measures raises NameError, SyntaxError, ValueError... for other names
        return _canonical(spec) or spec


def spellings(name: Any) -> dict[str, str | None]:
    """The measure's names in each tool: ``{"ir_measures": ..., "trec_eval": ..., "ranx": ...}``,
    ``None`` where a tool has no name for it (per :data:`MEASURE_NAMES`)."""
    canonical = canonical_measure(name)
    measure = ir_measures.parse_measure(canonical)
    row = next((r for r in MEASURE_NAMES if r.ir_measures == measure.NAME), None)
    params = dict(measure.params)
    cutoff, rel = params.pop("cutoff", None), params.pop("rel", None)
    if row is None or params or (rel is not None and not row.rel):
        return {"ir_measures": canonical, "trec_eval": None, "ranx": None}
    if cutoff is None:
        trec = row.trec_eval
    else:
        trec = f"{row.trec_eval_cut}{cutoff}" if row.trec_eval_cut else None
    ranx = None
    if row.ranx is not None and (cutoff is not None or row.cutoff_optional):
        ranx = row.ranx + (f"@{cutoff}" if cutoff is not None else "") + (f"-l{rel}" if rel else "")
    return {"ir_measures": canonical, "trec_eval": trec if rel is None else None, "ranx": ranx}


def _canonical(name: str) -> str | None:
    """:func:`canonical_measure` of a string, or ``None`` when it names no one measure."""
    text = name.strip()
    try:
        return str(ir_measures.parse_measure(text))
    except Exception:  # ir_measures raises NameError, SyntaxError, ValueError... for unknown names
        pass
    for row in MEASURE_NAMES:
        if row.trec_eval is not None and text == row.trec_eval:
            return row.ir_measures
        if row.trec_eval_cut is not None and text.startswith(row.trec_eval_cut):
            cutoff = text[len(row.trec_eval_cut) :]
            if _CUTOFF.fullmatch(cutoff):
                return f"{row.ir_measures}@{cutoff}"
    ranx = _RANX.fullmatch(text)
    if ranx is not None:
        family = next((r for r in MEASURE_NAMES if r.ranx == ranx["name"]), None)
        if (
            family is not None
            and (ranx["cutoff"] or family.cutoff_optional)
            and (family.rel or not ranx["rel"])
        ):
            params = f"(rel={ranx['rel']})" if ranx["rel"] and ranx["rel"] != "1" else ""
            cutoff = f"@{ranx['cutoff']}" if ranx["cutoff"] else ""
            return f"{family.ir_measures}{params}{cutoff}"
    return _trec_eval_other(text)


def _trec_eval_other(name: str) -> str | None:
    """Other trec_eval names, as ir_measures parses them (``iprec_at_recall_0.10``)."""
    try:
        import pytrec_eval

        if name in pytrec_eval.supported_nicknames:  # groups of measures, not one
            return None
        parsed = ir_measures.parse_trec_measure(name)
    except Exception:
        return None
    return str(parsed[0]) if len(parsed) == 1 else None
