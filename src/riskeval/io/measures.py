"""Measure names in the spellings of ir_measures, trec_eval and ranx, and choosing one measure
among those an input holds.

trec_eval output names measures ``ndcg_cut_10``, ``P_10``, ``map``; ir_measures names them
``nDCG@10``, ``P@10``, ``AP``; ranx ``ndcg@10``, ``precision@10``, ``map``.  :data:`MEASURE_NAMES` is
the one table between the three; :func:`canonical_measure` gives the ir_measures spelling of any of
them (trec_eval names outside the table go through ``ir_measures.parse_trec_measure``).  A name
selects a measure of an input when both have the same ir_measures spelling.

A measure to evaluate is checked before any evaluator sees it (:func:`measure_problems`): its
parameters (:func:`parameter_problem`), then whether an installed ir_measures evaluator computes it
(:func:`evaluator_problem`); each refusal says what is wrong and what to write instead.
"""

from __future__ import annotations

import ast
import difflib
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


class _Domain(NamedTuple):
    """What a parameter means and the values it takes: whole numbers from ``low`` (``dtype`` int),
    or real numbers between ``low`` and ``high`` (each bound included unless ``open_low`` /
    ``open_high``)."""

    what: str
    dtype: type
    low: float
    high: float
    open_low: bool = False
    open_high: bool = False
    example: Any = None


_LOW, _HIGH = INT_RANGE
#: The parameters whose values are bounded, by name.  A cutoff and a relevance level are counts and
#: grades from 1 (pytrec_eval aborts the interpreter on a cutoff of 0; negative grades are judged
#: not relevant, see :mod:`riskeval.evaluation.inputs`).  ``p`` is a persistence: the probability
#: that the user goes on to the next document in RBP (Moffat & Zobel, "Rank-biased precision for
#: measurement of retrieval effectiveness", TOIS 2008), Compat and NERR10, so 0 < p < 1; ``T`` the
#: total gain the user wants in INST and its relatives (Moffat, Bailey, Scholer & Thomas, TOIS
#: 2017), T > 0; ``alpha`` the probability that a nugget judged present is missed, in α-nDCG
#: (Clarke et al., SIGIR 2008) and NRBP, 0 ≤ α ≤ 1; ``recall`` a recall level in [0, 1].
_DOMAINS: dict[str, _Domain] = {
    "cutoff": _Domain("cutoff", int, 1, _HIGH, example=10),
    "rel": _Domain("rel (the lowest grade counted relevant)", int, 1, _HIGH, example=2),
    "min_rel": _Domain("min_rel (the lowest relevance grade)", int, _LOW, _HIGH, example=0),
    "max_rel": _Domain("max_rel (the highest relevance grade)", int, _LOW, _HIGH, example=3),
    "p": _Domain("p (persistence)", float, 0, 1, open_low=True, open_high=True, example=0.8),
    "T": _Domain("T (total desired gain)", float, 0, math.inf, open_low=True, example=1.0),
    "alpha": _Domain("alpha", float, 0, 1, example=0.5),
    "beta": _Domain("beta", float, 0, math.inf, open_low=True, example=0.5),
    "recall": _Domain("recall level", float, 0, 1, example=0.5),
}
#: Cutoffs of the examples in messages: ERR@20 is the official measure of TREC Web 2010–2014.
_EXAMPLE_CUTOFF = {"ERR": 20}


def parameter_problem(measure: Any) -> str | None:
    """What is wrong with the parameters of an ir_measures measure and what to write instead, or
    ``None``.

    Checked before any evaluator sees them (pytrec_eval aborts the interpreter on a cutoff of 0):
    every parameter is one the measure declares and required ones are given; a cutoff and a
    relevance level ``rel`` are whole numbers from 1 to 2³¹−1, other integers (``min_rel``...) fit
    in 32 bits; RBP's persistence ``p`` is in (0, 1), a desired gain ``T`` is > 0, ``alpha`` and a
    recall level are in [0, 1], other real numbers are finite (see :data:`_DOMAINS` for the
    sources); gains map 32-bit integers to finite numbers; the rest as ir_measures declares (type,
    choices).  The message names every problem, then ``Write e.g.`` the measure with each fixed::

        INSQ's T (total desired gain) must be a number > 0; got -1; INSQ needs max_rel (the
        highest relevance grade). Write e.g. INSQ(T=1.0,max_rel=3)
    """
    name = _name(measure)
    supported = getattr(measure, "SUPPORTED_PARAMS", {}) or {}
    params = dict(getattr(measure, "params", {}) or {})
    unknown = [key for key in params if key not in supported]
    if unknown:
        takes = ", ".join(supported) or "none"
        return f"{name} has no parameter {unknown[0]!r} (its parameters: {takes})"
    problems, fixed = [], dict(params)
    for key, info in supported.items():
        value = params.get(key, _ABSENT)
        if value is _ABSENT:
            if info.required:
                problems.append(f"{name} needs {_describe(key)}")
                fixed[key] = _example(measure, key, info)
            continue
        problem = _value_problem(name, key, value, info)
        if problem is not None:
            problems.append(problem)
            fixed[key] = _example(measure, key, info)
    if not problems:
        return None
    return f"{'; '.join(problems)}. Write e.g. {_spell(measure, fixed)}"


def _name(measure: Any) -> str:
    """The family name of an ir_measures measure (``nDCG`` for ``nDCG@10``)."""
    name = getattr(measure, "NAME", None)
    return name if isinstance(name, str) else str(measure)


def _describe(key: str) -> str:
    domain = _DOMAINS.get(key)
    if key == "cutoff":
        return "a cutoff"
    return domain.what if domain is not None else key


def _value_problem(name: str, key: str, value: Any, info: Any) -> str | None:
    what = f"{name}'s {_describe(key).removeprefix('a ')}"
    domain = _DOMAINS.get(key)
    if info.dtype is int:
        low, high = (domain.low, domain.high) if domain is not None else INT_RANGE
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"{what} must be a whole number from {low} to {high}; got {value!r}"
        return None
    if info.dtype is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{what} must be a finite number; got {value!r}"
        if domain is not None and not _within(value, domain):
            return f"{what} must be a number {_interval(domain)}; got {value!r}"
        return None
    if info.dtype is bool and not isinstance(value, bool):
        return f"{what} must be True or False; got {value!r}"
    if info.dtype is dict and isinstance(value, dict):
        for grade, gain in value.items():
            if isinstance(grade, bool) or not isinstance(grade, int) or not _LOW <= grade <= _HIGH:
                return f"{name}'s gains must map whole-number grades to numbers; got grade {grade!r}"
            if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not math.isfinite(gain):
                return f"{name}'s gains must be finite numbers; got {gain!r} for grade {grade}"
    if not info.validate(value):
        choices = getattr(info, "choices", None)
        if isinstance(choices, (list, tuple, set)):
            return f"{what} must be one of {', '.join(map(repr, choices))}; got {value!r}"
        kind = getattr(info.dtype, "__name__", "valid")
        return f"{what} must be a {kind} value; got {value!r}"
    return None


def _within(value: float, domain: _Domain) -> bool:
    above = value > domain.low if domain.open_low else value >= domain.low
    below = value < domain.high if domain.open_high else value <= domain.high
    return above and below


def _interval(domain: _Domain) -> str:
    if math.isinf(domain.high):
        return f"> {domain.low:g}" if domain.open_low else f">= {domain.low:g}"
    if domain.open_low and domain.open_high:
        return f"strictly between {domain.low:g} and {domain.high:g}"
    return f"from {domain.low:g} to {domain.high:g}"


def _example(measure: Any, key: str, info: Any) -> Any:
    """A valid value of parameter ``key`` for the examples of messages: the declared default when
    it is valid, else a typical value."""
    default = getattr(info, "default", _ABSENT)
    name = getattr(measure, "NAME", "")
    if key == "cutoff":
        return _EXAMPLE_CUTOFF.get(name, 10)
    if default is not _ABSENT and default is not None and _value_problem(name, key, default, info) is None:
        return default
    domain = _DOMAINS.get(key)
    if domain is not None:
        return domain.example
    choices = getattr(info, "choices", None)
    return next(iter(choices)) if isinstance(choices, (list, tuple)) and choices else default


def _spell(measure: Any, params: dict[str, Any]) -> str:
    """The ir_measures spelling of ``measure``'s family with ``params`` (every one written out,
    defaults included): ``Name(k=v,...)@cutoff``."""
    params = dict(params)
    at = getattr(measure, "AT_PARAM", "cutoff")
    cutoff = params.pop(at, None)
    inner = ",".join(f"{key}={value!r}" for key, value in params.items())
    return _name(measure) + (f"({inner})" if inner else "") + (f"@{cutoff!r}" if cutoff is not None else "")


def parse_ir_measure(spec: Any) -> Any:
    """The ir_measures measure a name denotes (any spelling of :func:`canonical_measure`), its
    parameters not yet checked (see :func:`parameter_problem`).

    ir_measures' parser refuses negative numbers (``AP(rel=-1)``, ``ERR@-5``); they are read here
    as written so that the message can say what is wrong with them.

    Raises
    ------
    NameError
        No measure has that name.
    ValueError
        The text is not of the form ``Name(param=value, ...)@cutoff``.
    """
    spelled = canonical_spelling(spec)
    try:
        return ir_measures.parse_measure(spelled)
    except ValueError:
        if not isinstance(spelled, str):
            raise
        loose = _parse_literals(spelled)
        if loose is None:
            raise
        return loose


def _parse_literals(text: str) -> Any:
    """``Name(param=value, ...)@cutoff`` with any Python literals as values (``-1``, ``1e999``), or
    ``None`` when the text has another form."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
        at = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            at = ast.literal_eval(node.right)
            node = node.left
        params = {}
        if isinstance(node, ast.Call) and not node.args:
            params = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
            if len(params) != len(node.keywords):
                return None
            node = node.func
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Name):
        return None
    family = ir_measures.measures.registry.get(node.id)
    if family is None:
        raise NameError(f"measure not found: {node.id}")
    if at is not None:
        params[family.AT_PARAM] = at
    return family(**params)


#: How measures are named, appended to the message when a name is not understood.
MEASURE_HELP = (
    "Measures are named as in ir_measures: Name@cutoff or Name(param=value)@cutoff, e.g. nDCG@10, "
    "AP(rel=2), P@10, RR(rel=2)@10, ERR@20, nDCG(dcg='exp-log2')@20 (gdeval's nDCG); trec_eval's "
    "(ndcg_cut_10, map, recip_rank) and ranx's (ndcg@10, map-l2, mrr@10) names work too; names are "
    "case-sensitive. Known names: {names}."
)


def measure_problems(specs: Sequence[Any]) -> list[str]:
    """One line per measure that cannot be evaluated here, saying what is wrong and what to write;
    ``[]`` when every one can.

    A measure is refused when its name is unknown or malformed (then :data:`MEASURE_HELP` ends the
    list), when a parameter is invalid (:func:`parameter_problem`), or when no installed ir_measures
    evaluator computes it as written: the line then says what an installed evaluator needs (``ERR
    needs a cutoff``) or what to install.
    """
    problems, misnamed = [], False
    for spec in specs:
        try:
            measure = parse_ir_measure(spec)
        except NameError:
            problems.append(_unknown_name(spec))
            misnamed = True
            continue
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
            problems.append(
                f"measure {str(spec)!r} is not of the form Name@cutoff or Name(param=value, ...)@cutoff"
            )
            misnamed = True
            continue
        problem = parameter_problem(measure) or evaluator_problem(measure)
        if problem is not None:
            problems.append(f"measure {str(spec)!r}: {problem}.")
    if misnamed:
        problems.append(MEASURE_HELP.format(names=", ".join(sorted(ir_measures.measures.registry))))
    return problems


def _unknown_name(spec: Any) -> str:
    name = re.split(r"[(@]", str(spec), maxsplit=1)[0].strip()
    known = list(ir_measures.measures.registry)
    close = [k for k in known if k.lower() == name.lower()]
    if not close:
        lowered = difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=3)
        close = [k for k in known if k.lower() in lowered]
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"unknown measure {str(spec)!r}: no measure is called {name!r}{hint}"


def evaluating_provider(measure: Any) -> Any:
    """The ir_measures provider that evaluates ``measure``: the first of ir_measures' default
    pipeline that supports it and is installed, or ``None``.

    Providers are asked in that order and only until one supports the measure, so a provider is
    loaded only when it evaluates the measure (ranx's provider imports ranx, numba and matplotlib).
    """
    return next(
        (p for p in ir_measures.DefaultPipeline.providers if p.supports(measure) and p.is_available()),
        None,
    )


def evaluator_problem(measure: Any) -> str | None:
    """Why no installed ir_measures evaluator computes ``measure`` (its parameters valid) and what
    to write or install instead, or ``None`` when one does."""
    from ir_measures.providers.base import NOT_PROVIDED, Choices

    if evaluating_provider(measure) is not None:
        try:
            ir_measures.evaluator([measure], {"q": {"d": 1}})
        except Exception as exc:  # an evaluator's own refusal: its words are all there is
            return f"ir_measures cannot evaluate it: {exc}"
        return None
    providers = list(ir_measures.providers.registry.values())
    installed = [p for p in providers if p.is_available()]  # every one: to say what would do
    name = measure.NAME
    fixes = []
    for provider in installed:
        for declared in provider.SUPPORTED_MEASURES:
            if declared.NAME != name:
                continue
            changes, params = [], dict(measure.params)
            for key, spec in declared.params.items():
                if spec.validate(measure[key]):
                    continue
                choices = spec.choices if isinstance(spec, Choices) else None
                if choices == (NOT_PROVIDED,):
                    changes.append(f"{name} takes no {_describe(key).removeprefix('a ')}")
                    params.pop(key, None)
                elif choices:
                    allowed = ", ".join(repr(c) for c in choices if c is not NOT_PROVIDED)
                    changes.append(f"{name}'s {key} must be {allowed}")
                    params[key] = next(c for c in choices if c is not NOT_PROVIDED)
                else:
                    changes.append(f"{name} needs {_describe(key)}")
                    params[key] = _example(measure, key, measure.SUPPORTED_PARAMS[key])
            fixes.append((len(changes), provider.NAME, changes, params))
    if fixes:
        _, provider_name, changes, params = min(fixes, key=lambda fix: fix[0])
        return (
            f"{'; '.join(changes)} for {provider_name}, the installed evaluator of {name}. "
            f"Write e.g. {_spell(measure, params)}"
        )
    elsewhere = [p for p in providers if p not in installed and p.supports(measure)]
    if elsewhere:
        how = "; ".join(f"{p.NAME}: {p.install_instructions() or 'see its documentation'}" for p in elsewhere)
        return f"no installed evaluator computes {name}; install one that does ({how})"
    return f"no evaluator ir_measures knows computes {name} with these parameters"


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
