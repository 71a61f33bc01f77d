"""The options of riskeval's public functions, declared once, and the checks of every parameter.

Each fixed set of choices is a :data:`typing.Literal` type with its tuple of values beside it; the
functions, the command line (``click.Choice``) and the documentation all take the values from here.
Option values are lower-case strings and are compared case-sensitively everywhere, as in
scikit-learn.  A bad value raises :class:`~riskeval.errors.RiskevalError` with a message in
scikit-learn's form, naming the parameter, the function, the allowed values and what was given::

    The 'missing' parameter of score_matrix must be one of 'zero', 'drop', 'raise'. Got 'Zero'.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from riskeval.errors import RiskevalError

if TYPE_CHECKING:  # numpy is imported on use, so the command line's --help stays fast
    import numpy as np

#: How topics that are not evaluated for every system are handled: scored 0 (as ``trec_eval -c``),
#: dropped, or refused.
MissingPolicy = Literal["zero", "drop", "raise"]
MISSING_POLICIES: tuple[str, ...] = get_args(MissingPolicy)

#: Standard error of URisk: ``s_x/√c`` (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 8) or the
#: jackknife (eq. 17–18); for a mean the two are the same number.
SEMethod = Literal["parametric", "jackknife"]
SE_METHODS: tuple[str, ...] = get_args(SEMethod)

#: Multiple-testing corrections: Holm (1979), Benjamini–Hochberg (1995), Bonferroni.
Correction = Literal["holm", "bh", "bonferroni"]
CORRECTIONS: tuple[str, ...] = get_args(Correction)

#: Per-topic aggregate baselines (Dinçer, Ounis & Macdonald, ECIR 2014, eq. 2).
Aggregate = Literal["mean", "median", "max"]
AGGREGATES: tuple[str, ...] = get_args(Aggregate)

#: Bootstrap intervals: percentile, or bias-corrected and accelerated (Efron & Tibshirani, 1993,
#: ch. 13 and §14.3).
BootstrapMethod = Literal["percentile", "bca"]
BOOTSTRAP_METHODS: tuple[str, ...] = get_args(BootstrapMethod)

#: Significance test of URisk: Student's t (TRisk), the sign-flip randomisation test, or the
#: bootstrap over topics.
RiskTest = Literal["t", "permutation", "bootstrap"]
RISK_TESTS: tuple[str, ...] = get_args(RiskTest)

#: The alternative hypothesis of a test, as in :mod:`scipy.stats`: the statistic (URisk, a difference)
#: differs from 0, is below 0 (the system loses to its baseline) or is above 0.
Alternative = Literal["two-sided", "less", "greater"]
ALTERNATIVES: tuple[str, ...] = get_args(Alternative)


#: Topics with unequal numbers of query variants: refuse, drop them, subsample every topic to the
#: smallest count (seeded), or keep NaN-padded cells (Zuccon, Palotti & Hanbury, CIKM 2016, §4).
UnequalPolicy = Literal["raise", "drop", "downsample", "keep"]
UNEQUAL_POLICIES: tuple[str, ...] = get_args(UnequalPolicy)

#: Forms of mean–variance evaluation over query variations (Zuccon, Palotti & Hanbury, CIKM 2016, §3).
MeanVarianceForm = Literal["general", "intra", "inter"]
MEAN_VARIANCE_FORMS: tuple[str, ...] = get_args(MeanVarianceForm)

#: Forms of the bias–variance decomposition (Zhang, Song, Wang & Hou, SIGIR 2013, eq. 8–9).
BiasVarianceForm = Literal["ap", "delta"]
BIAS_VARIANCE_FORMS: tuple[str, ...] = get_args(BiasVarianceForm)


#: What an unjudged retrieved document counts as in an evaluation (a document absent from the qrels of
#: its topic, or with a negative grade, which trec_eval reads as "in the pool, not judged"):
#: non-relevant (trec_eval's default), absent (the run is condensed to its judged documents before
#: scoring, as ``trec_eval -J`` does: Sakai, "Alternatives to bpref", SIGIR 2007), or relevant at a
#: grade (``"relevant=G"``, default grade :data:`UNJUDGED_GRADE`).
UnjudgedPolicy = Literal["nonrelevant", "condensed", "relevant"]
UNJUDGED_POLICIES: tuple[str, ...] = get_args(UnjudgedPolicy)
#: The grade of an unjudged document under ``unjudged="relevant"`` without ``=G``.
UNJUDGED_GRADE = 1


def check_unjudged(value: Any, func: str, name: str = "unjudged") -> tuple[str, int]:
    """The policy and grade of an ``unjudged`` value: ``"nonrelevant"``, ``"condensed"``,
    ``"relevant"`` (grade :data:`UNJUDGED_GRADE`) or ``"relevant=G"`` with ``G`` a whole number
    ≥ 1.  The grade is :data:`UNJUDGED_GRADE` for the other policies (unused)."""
    if isinstance(value, str) and value.startswith("relevant="):
        text = value[len("relevant=") :]
        if text.isascii() and text.isdigit() and int(text) >= 1 and len(text) <= 9:
            return "relevant", int(text)
        raise RiskevalError(
            f"The '{name}' parameter of {func} takes relevant=G with G a whole number from 1 (the "
            f"grade an unjudged document counts at). Got {value!r}."
        )
    # "relevant=G" itself was refused above: only the policies pass
    return check_option(value, (*UNJUDGED_POLICIES, "relevant=G"), func, name), UNJUDGED_GRADE


def check_option(value: Any, choices: Sequence[str], func: str, name: str) -> str:
    """``value`` if it is one of ``choices`` (case-sensitive), else a :class:`RiskevalError`."""
    if isinstance(value, str) and value in choices:
        return value
    allowed = ", ".join(repr(c) for c in choices)
    hint = ""
    if isinstance(value, str) and value.lower() in choices:
        hint = f" Option values are lower case: use {value.lower()!r}."
    raise RiskevalError(f"The '{name}' parameter of {func} must be one of {allowed}. Got {value!r}.{hint}")


def check_correction(value: Any, func: str) -> str | None:
    """A multiple-testing correction, or ``None`` (also written ``"none"``) for none."""
    if value is None or value == "none":
        return None
    return check_option(value, CORRECTIONS, func, "correction")


#: The largest risk aversion |α|.  The papers weigh a loss up to 1 + α = 21 times a win (Dinçer,
#: Macdonald & Ounis, SIGIR 2016, Table 6, α ≤ 20; TREC Web 2013–2014, α ≤ 10); 10⁶ leaves
#: room for any sweep while keeping the arithmetic finite: (1 + α)·δ with scores below 10¹⁰⁰
#: (:data:`riskeval.model.matrix.MAX_MAGNITUDE`) stays below 10¹⁰⁷, its squares and their sums over
#: any number of topics below float64's 1.8·10³⁰⁸ (at α = 10³⁰⁸ the standard error is infinite).
MAX_ALPHA = 1e6


def check_alpha(alpha: Any, func: str, *, negative_ok: bool = False) -> float:
    """The risk-aversion parameter α: a real number, ≥ 0 unless ``negative_ok``, of magnitude at
    most :data:`MAX_ALPHA`."""
    try:
        value = float(alpha)
    except (TypeError, ValueError, OverflowError):
        value = math.nan
    if isinstance(alpha, bool) or not math.isfinite(value) or (value < 0 and not negative_ok):
        want = "a finite real number" if negative_ok else "a finite number >= 0"
        raise RiskevalError(f"The 'alpha' parameter of {func} must be {want}. Got {alpha!r}.")
    if abs(value) > MAX_ALPHA:
        bound = f"from {-MAX_ALPHA:g} to {MAX_ALPHA:g}" if negative_ok else f"at most {MAX_ALPHA:g}"
        raise RiskevalError(
            f"The 'alpha' parameter of {func} must be {bound}. Got {alpha!r}. A larger α weighs a "
            "loss more than a million times a win of its size, which no paper uses (they take α up "
            "to 20), and brings (1 + α)·δ and its squares towards float64's overflow (α = 1e308 "
            "makes the standard error infinite)."
        )
    return value


def check_alphas(alphas: Any, func: str, *, negative_ok: bool = False) -> np.ndarray:
    """A non-empty list of α values, each as :func:`check_alpha` takes it."""
    import numpy as np

    if isinstance(alphas, np.ndarray) and alphas.ndim == 1 and alphas.dtype.kind in "iuf":
        values = alphas.astype(np.float64)  # a numeric vector: checked at once when valid
        if (
            values.size
            and (np.abs(values) <= MAX_ALPHA).all()  # NaN compares False
            and (negative_ok or (values >= 0).all())
        ):
            return values
    seq = [alphas] if np.isscalar(alphas) else list(alphas)
    if not seq:
        raise RiskevalError(f"The 'alphas' parameter of {func} must list at least one value.")
    return np.array([check_alpha(a, func, negative_ok=negative_ok) for a in seq], dtype=np.float64)


#: The most resamples a resampling procedure (permutation, bootstrap, Tukey HSD) draws.  Time grows
#: linearly with them (about 3 s per 10⁵ sign flips of a 37 × 43 matrix, 25 s per 10⁵ bootstrap
#: resamples, on one core) and the bootstrap keeps 8 bytes per resample and result row, while the
#: Monte Carlo error of a p-value p is √(p(1 − p)/n): 7·10⁻⁵ at p = 0.05 and n = 10⁷, far below
#: any decision.
MAX_RESAMPLES = 10**7
#: Why :data:`MAX_RESAMPLES`, and what to choose instead: said with every refusal.
RESAMPLES_REASON = (
    "More resamples take time in proportion (hours at 10^8) and the bootstrap 8 bytes per resample "
    "and result row, for a Monte Carlo error of p already below 1e-4 at 10^7; 10,000 (the default) "
    "decides at level 0.05, 10^6 at the levels of a correction over thousands of tests."
)


def check_level(level: Any, func: str, name: str = "level") -> float:
    """A significance level (or confidence) strictly between 0 and 1."""
    try:
        value = float(level)
    except (TypeError, ValueError):
        value = math.nan
    if not 0.0 < value < 1.0:
        raise RiskevalError(
            f"The '{name}' parameter of {func} must be a number strictly between 0 and 1. Got {level!r}."
        )
    return value
