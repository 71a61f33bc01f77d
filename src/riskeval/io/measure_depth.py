"""The depth of a measure as a measure: ``Judged@k`` at the cutoff of ``nDCG@k``, ``ERR@k``, ...
(how much of the ranking a measure reads, and so how much of it the qrels must judge)."""

from __future__ import annotations

from typing import Any

from riskeval.errors import RiskevalError


def judged_measure(measure: Any) -> str:
    """The ``Judged@k`` measure at the depth of ``measure`` (a name in any spelling riskeval reads,
    or an ir_measures measure): ``Judged@10`` for ``nDCG@10``, ``ERR@20``, ``ndcg_cut_10``;
    ``Judged`` (every returned document) for a measure without cutoff such as ``AP``.

    Raises :class:`~riskeval.errors.RiskevalError` for a name that is not a measure.
    """
    from ir_measures.providers.base import NOT_PROVIDED

    from riskeval.io.measures import parse_ir_measure

    try:
        parsed = parse_ir_measure(measure)
    except (NameError, ValueError):
        parsed = None
    if parsed is None:
        raise RiskevalError(
            f"Cannot tell the depth of {str(measure)!r}: it is not a measure name ir_measures reads."
        )
    cutoff: Any = parsed["cutoff"] if "cutoff" in parsed.SUPPORTED_PARAMS else NOT_PROVIDED
    return "Judged" if cutoff is NOT_PROVIDED or cutoff is None else f"Judged@{cutoff}"
