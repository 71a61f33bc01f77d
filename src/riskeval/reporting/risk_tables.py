"""The risk table of systems with the p-values of a chosen test, against one baseline or each
system's own baseline run (Dinçer, Ounis & Macdonald, ECIR 2014, §5), as ``riskeval risk`` prints
it.

:func:`riskeval.risk_table` gives URisk, TRisk (Student's t p-values), T*Risk, ZRisk and GeoRisk;
:func:`riskeval.inference.tables.with_test` replaces the p-values by those of the sign-flip
randomisation test or the BCa bootstrap of URisk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.measures.declared import RiskMeasure
    from riskeval.settings import RiskSettings


def baseline_for(M: pd.DataFrame, baseline: Any, own: Mapping[str, str] | None) -> Any:
    """``baseline``, or with ``own`` (system -> its baseline run) each system's own baseline run
    (:func:`riskeval.measures.baselines.baseline_runs`)."""
    if own is None:
        return baseline
    from riskeval.measures.baselines import baseline_runs

    return baseline_runs(M, own)


def tested_risk_table(
    M: pd.DataFrame,
    settings: RiskSettings,
    *,
    risk: list[RiskMeasure] | None = None,
    alternative: str = "two-sided",
    test: str = "t",
    n_resamples: int = 10_000,
    rng: Any = None,
    own: Mapping[str, str] | None = None,
    caller: str = "tested_risk_table",
) -> pd.DataFrame:
    """:func:`riskeval.risk_table` of ``M`` against ``settings.baseline`` (or, with ``own``, each
    system against its own baseline run, named in the ``baseline`` column) with the p-values of
    ``test``: ``"t"``, Student's t of TRisk with ``alternative`` (Dinçer, Macdonald & Ounis, SIGIR
    2014, eq. 7–12); else those of :func:`riskeval.inference.tables.with_test` (``"permutation"``,
    ``"bootstrap"``, the latter with the BCa interval ``low``, ``high`` of URisk), ``n_resamples``
    of them drawn from ``rng``.
    ``risk``: the measures whose columns the table holds (default: every column); with a
    resampling test, TRisk at each of their α is added to hold the p-values."""
    from riskeval.analysis.table import risk_table

    if risk is not None and test != "t":
        risk = with_test_measures(risk, settings, caller)
    base = baseline_for(M, settings.baseline, own)
    table = risk_table(M, baseline=base, risk=risk, settings=settings, alternative=alternative)
    if own is not None:
        table["baseline"] = table["system"].map(own).astype(object)
    if test == "t":
        return table
    from riskeval.inference.tables import with_test

    return with_test(
        table,
        M,
        test=test,
        baseline=base,
        n_resamples=n_resamples,
        rng=rng,
        leave_one_out=settings.leave_one_out,
    )


def with_test_measures(risks: list[RiskMeasure], settings: RiskSettings, caller: str) -> list[RiskMeasure]:
    """``risks`` (each at every α of ``settings`` when it has none) and TRisk at each of their α:
    the TRisk columns then hold the p-values of a resampling test
    (:func:`riskeval.inference.tables.with_test`) beside the measures asked for."""
    from riskeval.measures.declared import TRisk, expand_risks

    measures = expand_risks(risks, settings.alphas, caller)
    se = next((m.se for m in measures if isinstance(m, TRisk)), settings.se)
    alphas = dict.fromkeys(float(m.alpha) for m in measures if m.alpha is not None)
    return [*measures, *(TRisk(alpha=a, se=se) for a in alphas)]


#: How a caption names the resampling test behind a table's p-values.
TEST_NAMES = {
    "permutation": "sign-flip randomisation test of URisk (pvalue_maxt: max-T over systems and α)",
    "bootstrap": "BCa bootstrap of URisk over topics",
}


def risk_caption(
    about: str,
    table: pd.DataFrame,
    settings: RiskSettings,
    *,
    alternative: str = "two-sided",
    shown: bool = False,
    baseline_map: str | None = None,
) -> str:
    """What a risk table of systems (:func:`tested_risk_table`) shows: ``about`` (its size and
    source), how many systems are shown when ``shown`` (only some are), the baseline (or the file
    ``baseline_map`` that names each system's own), the critical |t| of TRisk and the test of the
    p-values."""
    caption = (
        about
        + (f" ({table['system'].nunique()} shown)" if shown else "")
        + "; baseline "
        + (str(table["baseline"].iloc[0]) if baseline_map is None else "of each system: " + baseline_map)
    )
    if "critical" in table.columns:
        caption += critical_note(table, settings, alternative)
    if "test" in table.columns:
        test = str(table["test"].iloc[0])
        caption += (
            f"\np-values: {TEST_NAMES[test]}, {table['n_resamples'].iloc[0]} resamples, "
            f"seed {table['seed'].iloc[0]}"
        )
        if "low" in table.columns:
            caption += f"; low, high: the BCa {1 - settings.level:.0%} interval of URisk"
    return caption


def critical_note(
    table: pd.DataFrame, settings: RiskSettings, alternative: str = "two-sided", across: str = ""
) -> str:
    """The critical |t| of the table's TRisk tests (SIGIR 2014, eq. 7–12), their level, correction
    (``across``: over what) and alternative."""
    note = f"; critical |t| = {table['critical'].iloc[0]:.3f} at level {settings.level:g}"
    note += f", {settings.correction}-adjusted{across}" if settings.correction else ""
    if alternative != "two-sided":
        note += f", one-sided: the alternative is URisk {'<' if alternative == 'less' else '>'} 0"
    return note


def mark_note(table: pd.DataFrame, marked: bool) -> str:
    """How LaTeX and Markdown (``marked``) mark significance, said in the caption when the table has
    marks."""
    return "; † significant" if marked and "significant" in table.columns else ""


def system_topics_table(
    matrices: Mapping[str, pd.DataFrame],
    system: str,
    settings: RiskSettings,
    about: str,
    *,
    losses_only: bool = False,
    top: int | None = None,
) -> tuple[pd.DataFrame, str]:
    """The per-topic analysis of ``system`` against the baseline of ``settings`` (x_j, TR_j and TJ_j
    at each α: SIGIR 2014, §5, eq. 19–23) of each measure's matrix, worst topics first
    (:func:`riskeval.analysis.riskiest_topics`: ``losses_only``, the ``top`` riskiest per α), and
    its caption (``about``: the topics and their source).  The p-values are computed (and
    adjusted) over every topic; the rows shown are chosen after."""
    from riskeval.analysis.alpha_tables import per_measure, topic_risk_by_alpha
    from riskeval.analysis.topics import riskiest_topics

    frame = per_measure(matrices, lambda M: topic_risk_by_alpha(M, system, settings))
    caption = (
        f"{system} against {frame['baseline'].iloc[0]} on {about}"
        f"{critical_note(frame, settings, across=' across topics')}"
    )
    frame = riskiest_topics(frame, losses_only=losses_only, top=top)
    shown = " where it loses" if losses_only else ""
    shown += f", the {top} riskiest per α" if top is not None else ""
    return frame, caption + f"; topics{shown}, worst first"


def check_baseline_name(given: str, systems: list[str]) -> None:
    """Refuse a baseline that is neither an aggregate (mean, median, max: the per-topic MEAN, MEDIAN,
    MAX of every system; MEAN is the unbiased baseline of Dinçer, Ounis & Macdonald, ECIR 2014,
    eq. 2) nor one of ``systems``, with the close matches (an aggregate in another case first) and
    the systems there are."""
    import difflib

    from riskeval import options

    if given in options.AGGREGATES or given in systems:
        return
    close = [given.lower()] if given.lower() in options.AGGREGATES else []  # aggregates are lower case
    close += difflib.get_close_matches(given, [*systems, *options.AGGREGATES], n=3 - len(close), cutoff=0.6)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    shown = ", ".join(systems[:10]) + (f" and {len(systems) - 10} more" if len(systems) > 10 else "")
    raise RiskevalError(
        f"The '-b/--baseline' option must be a run name, mean, median or max; {given!r} is none of "
        f"them.{hint} The runs are: {shown}."
    )


def tukey_table(
    X: pd.DataFrame,
    settings: RiskSettings,
    *,
    own: Mapping[str, str] | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    systems: str | None = None,
    human: bool = False,
) -> tuple[pd.DataFrame, str]:
    """The randomised Tukey HSD of URisk at each α of ``settings``
    (:func:`riskeval.inference.tables.tukey_tables`) against its baseline (or each system's ``own``
    baseline run): for people the letters of the systems (``systems``: the rows shown), for programs
    every pair; and the caption."""
    from riskeval.analysis.by_measure import select_systems
    from riskeval.inference.tables import tukey_tables

    pairs, letters = tukey_tables(
        X,
        baseline_for(X, settings.baseline, own),
        list(settings.alphas),
        n_resamples=n_resamples,
        rng=rng,
        level=settings.level,
        leave_one_out=settings.leave_one_out,
    )
    letters = select_systems(letters, systems, X.index, "--systems", "system")
    caption = (
        f"Randomised Tukey HSD of URisk against {letters['baseline'].iloc[0]}, {X.shape[0]} "
        f"systems × {X.shape[1]} topics, {n_resamples} resamples, seed {letters['seed'].iloc[0]}; "
        f"systems sharing a letter do not differ at level {settings.level:g}"
    )
    return letters if human else pairs, caption
