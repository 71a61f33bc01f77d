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
