"""Per-query scores of ranx (Bassani, ECIR 2022): after ``ranx.evaluate(qrels, run, metrics)`` or
``ranx.compare``, ``run.scores`` is ``{metric: {query_id: score}}``.

Accepted: one run's ``scores`` dict (name the system with ``names=``), a ranx ``Run`` holding scores,
or a mapping system name -> either of them.  Metric names are ranx's (``ndcg@10``, ``map-l2``);
any spelling of :func:`riskeval.io.measures.canonical_measure` chooses one.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Real
from typing import TYPE_CHECKING, Any

from riskeval.errors import RiskevalError
from riskeval.options import MissingPolicy

if TYPE_CHECKING:
    import pandas as pd

_COLUMNS = {"system": "system", "topic": "topic", "score": "score"}


def is_ranx(value: Any, kind: str) -> bool:
    """Whether ``value`` is a ranx ``Qrels`` or ``Run``, without importing ranx."""
    cls = type(value)
    return cls.__name__ == kind and cls.__module__.startswith("ranx.")


def looks_like_ranx_scores(data: Any) -> bool:
    """Whether ``data`` is ranx scores: a ``Run``, ``{metric: {query: score}}``, or a mapping of
    system name -> either of them."""
    if is_ranx(data, "Run"):
        return True
    if not isinstance(data, Mapping) or not data:
        return False
    first = next(iter(data.values()))
    if is_ranx(first, "Run"):
        return True
    if not isinstance(first, Mapping) or not first:
        return False
    inner = next(iter(first.values()))
    if isinstance(inner, Mapping):  # system -> metric -> query -> score
        return bool(inner) and isinstance(next(iter(inner.values())), Real)
    return isinstance(inner, Real)


def from_ranx(
    data: Any, measure: Any, *, system: str | None = None, missing: MissingPolicy = "raise"
) -> pd.DataFrame:
    """Score matrix of ranx per-query scores (see the module's description).

    ``system`` names the system of one run's scores (a ranx ``Run`` is named by its ``name``
    otherwise).  ``measure`` chooses the metric when the scores hold several.
    """
    by_system = _by_system(data, system)
    rows = [
        (name, str(query), str(metric), value)
        for name, scores in by_system.items()
        for metric, per_query in scores.items()
        for query, value in _per_query(per_query, name, metric).items()
    ]
    if not rows:
        raise RiskevalError(
            "The ranx scores are empty: run ranx.evaluate(qrels, run, metrics) (or ranx.compare) "
            "first, which fills run.scores."
        )
    import pandas as pd

    from riskeval.io.tables import long_to_matrix

    frame = pd.DataFrame(rows, columns=["system", "topic", "measure", "score"])
    return long_to_matrix(
        frame,
        **_COLUMNS,
        measure=measure,
        missing=missing,
        locate=lambda r: f"system {frame.at[r, 'system']!r}, query {frame.at[r, 'topic']!r}",
        source="the ranx scores",
    )


def _by_system(data: Any, system: str | None) -> dict[str, Mapping[Any, Any]]:
    if is_ranx(data, "Run"):
        name = system or data.name
        if not name:
            raise RiskevalError("Name the system of this ranx Run with names='name' (its name is not set).")
        return {str(name): data.scores}
    first = next(iter(data.values()))
    if is_ranx(first, "Run") or isinstance(next(iter(first.values()), None), Mapping):
        if system is not None:
            raise RiskevalError(
                "names= names the system of one run's ranx scores; with a mapping of systems, the "
                "keys are the system names."
            )
        return {str(k): v.scores if is_ranx(v, "Run") else v for k, v in data.items()}
    if not system:
        raise RiskevalError(
            "Name the system of these ranx scores with names='name' (or pass a mapping of system "
            "name -> run.scores)."
        )
    return {system: data}


def _per_query(per_query: Any, system: str, metric: Any) -> Mapping[Any, Any]:
    if not isinstance(per_query, Mapping):
        raise RiskevalError(
            f"ranx scores of system {system!r}, metric {metric!r}: expected {{query_id: score}} "
            f"(run.scores after ranx.evaluate); got {type(per_query).__name__}."
        )
    return per_query
