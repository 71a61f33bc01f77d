"""Choosing one measure among those an input holds, by trec_eval or ir_measures name.

trec_eval output names measures ``ndcg_cut_10``, ``P_10``, ``map``; ir_measures names them
``nDCG@10``, ``P@10``, ``AP``.  Either spelling selects the measure: an exact name first, otherwise
the name parsed by ir_measures (``ir_measures.parse_measure``, then
``ir_measures.parse_trec_measure``) and compared with the available names parsed the same way.
"""

from __future__ import annotations

import functools
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
    """Refuse a ``measure`` argument that is neither a name nor an ir_measures measure."""
    if measure is not None and not isinstance(measure, (str, ir_measures.measures.BaseMeasure)):
        raise RiskevalError(
            "The 'measure' parameter must be a measure name such as 'ndcg_cut_10' or 'nDCG@10', "
            f"or an ir_measures measure; got {measure!r}."
        )


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
