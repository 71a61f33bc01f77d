"""Measure names parsed by ir_measures and checked before any evaluator sees them."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

from riskeval.errors import RiskevalError
from riskeval.io.measures import canonical_spelling, parameter_problem

_MEASURE_HELP = (
    "Measures are named as in ir_measures: Name@cutoff or Name(param=value)@cutoff, e.g. nDCG@10, "
    "AP(rel=2), P@10, RR(rel=2)@10, ERR@20, nDCG(dcg='exp-log2')@20 (gdeval's nDCG); trec_eval's "
    "(ndcg_cut_10, map, recip_rank) and ranx's (ndcg@10, map-l2, mrr@10) names work too; names are "
    "case-sensitive. Known names: {names}."
)


def parse_measures(measures: Sequence[Any]) -> list[Any]:
    """ir_measures ``Measure`` objects for the given names, checked to be computable here.

    The parameters are checked before any evaluator sees them
    (:func:`riskeval.io.measures.parameter_problem`: a cutoff is a whole number >= 1, ...).

    Raises :class:`~riskeval.errors.RiskevalError` naming every measure that cannot be parsed or has
    no available ir_measures provider, with how measures are spelled.
    """
    import ir_measures

    parsed, problems = [], []
    for spec in measures:
        try:
            measure = ir_measures.parse_measure(canonical_spelling(spec))
            invalid = parameter_problem(measure)  # before any evaluator sees them
            if invalid is not None:
                problems.append(f"unknown or unsupported measure {str(spec)!r}: {invalid}")
                continue
            ir_measures.evaluator([measure], {"q": {"d": 1}})
        except (
            ValueError,
            NameError,
            KeyError,
            TypeError,
            AssertionError,
            SyntaxError,
            RecursionError,
        ) as exc:
            problems.append(_measure_problem(spec, exc, list(ir_measures.measures.registry)))
            continue
        if measure not in parsed:
            parsed.append(measure)
    if problems:
        known = ", ".join(sorted(ir_measures.measures.registry))
        raise RiskevalError("\n".join([*problems, _MEASURE_HELP.format(names=known)]))
    return parsed


def _measure_problem(spec: Any, exc: Exception, known: list[str]) -> str:
    if isinstance(exc, NameError):
        name = re.split(r"[(@]", str(spec), maxsplit=1)[0].strip()
        close = [k for k in known if k.lower() == name.lower()]
        if not close:
            lowered = difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=3)
            close = [k for k in known if k.lower() in lowered]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return f"unknown measure {spec!r}: no measure is called {name!r}{hint}"
    if isinstance(exc, KeyError):
        return f"unknown measure {spec!r}: the measure has no parameter {exc.args[0]!r}"
    return f"unknown or unsupported measure {spec!r}: {exc}"
