"""Analyses over a grid of α (and of measures) stacked into one tidy table, as the command line
and Python users print them: the per-topic risk of one system (Dinçer, Macdonald & Ounis, SIGIR
2014, §5, eq. 19–23), the baseline-bias study (Dinçer, Ounis & Macdonald, ECIR 2014, §4), the
mean-variance evaluation over query variations (Zuccon, Palotti & Hanbury, CIKM 2016), the one risk
measure that ranks the systems of the baseline rankings (ECIR 2014, Table 3), and rank columns as
integers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from riskeval.errors import RiskevalError
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.settings import RiskSettings


#: The risk measures that rank the systems of :func:`riskeval.analysis.baseline_rankings`.
def ranking_measures() -> list[type[RiskMeasure]]:
    """The declared measures that rank systems against a baseline (Dinçer, Ounis & Macdonald,
    ECIR 2014, Table 3): those computed from paired sums against the settings' baseline (URisk,
    TRisk, and any such measure declared with :func:`riskeval.register_risk`)."""
    return [cls for cls in RISK_MEASURES.values() if cls.needs == "baseline"]


def per_measure(
    matrices: Mapping[str, pd.DataFrame], compute: Callable[[pd.DataFrame], pd.DataFrame]
) -> pd.DataFrame:
    """``compute`` of the one matrix; with several measures, of each, stacked with a ``measure``
    column first (:func:`riskeval.analysis.by_measure.for_each_measure`)."""
    from typing import cast

    import pandas as pd

    from riskeval.analysis.by_measure import for_each_measure

    if len(matrices) == 1:
        return compute(next(iter(matrices.values())))
    return cast(pd.DataFrame, for_each_measure(dict(matrices), compute))


def topic_risk_by_alpha(X: pd.DataFrame, system: str, settings: RiskSettings) -> pd.DataFrame:
    """:func:`riskeval.analysis.topics.system_topic_risk` of one system against the baseline of
    ``settings`` (per topic x_j, TR_j and TJ_j: SIGIR 2014, §5, eq. 19–23) for each α of
    ``settings``, tidy: one row per (α, topic)."""
    import pandas as pd

    from riskeval.analysis.topics import system_topic_risk

    s = settings
    parts = [
        system_topic_risk(
            X,
            system,
            s.baseline,
            alpha,
            level=s.level,
            correction=s.correction,
            leave_one_out=s.leave_one_out,
        ).reset_index()
        for alpha in s.alphas
    ]
    return pd.concat(parts, ignore_index=True)


def bias_study_tables(
    matrices: Mapping[str, pd.DataFrame],
    alphas: Sequence[float],
    *,
    show: str = "summary",
    virtual: Sequence[str] = ("mean", "median", "max"),
    systems: Any = None,
    systems_option: str = "The 'systems' parameter of bias_study_tables",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The baseline-bias study (ECIR 2014, §4: every system in turn as the baseline, the Friedman
    test of the URisk rankings, the PCA of the runs) of each measure's matrix at each α, once each:
    the table ``show`` of :func:`riskeval.analysis.bias_tables.study_table` (an ``alpha`` column
    when several α are given, a ``measure`` column first when several measures are), and the
    :func:`~riskeval.analysis.bias_tables.bias_overview` rows (Friedman test, PCA variance) with
    ``measure`` first.  ``systems`` (the rows shown) are checked against every matrix before any
    study, an unknown name an error naming ``systems_option``."""
    import pandas as pd

    from riskeval.analysis.baseline_bias import bias_study
    from riskeval.analysis.bias_tables import bias_overview, study_table
    from riskeval.analysis.by_measure import check_systems

    for X in matrices.values():
        check_systems(systems, X.index, systems_option)

    parts, overviews = [], []
    for name, X in matrices.items():
        for alpha in alphas:
            study = bias_study(X, alpha, virtual=virtual)
            overview = bias_overview(study)
            frame = overview.copy() if show == "overview" else study_table(study, X, show, systems)
            if len(alphas) > 1 and "alpha" not in frame.columns:
                frame.insert(0, "alpha", alpha)
            if len(matrices) > 1:
                frame.insert(0, "measure", name)
            parts.append(frame)
            overviews.append(overview.assign(measure=name))
    overview = pd.concat(overviews, ignore_index=True)
    table = pd.concat(parts, ignore_index=True)
    return table, overview[["measure", *(c for c in overview.columns if c != "measure")]]


def ranking_measure(risk: list[RiskMeasure], caller: str) -> RiskMeasure:
    """The one measure of ``risk`` that ranks the systems of the baseline rankings (ECIR 2014,
    Table 3): one of :func:`ranking_measures`, optionally with its α; ``caller`` names the option
    in the error."""
    ranking = ranking_measures()
    if len(risk) != 1 or type(risk[0]) not in ranking:
        raise RiskevalError(
            f"{caller} takes one of {', '.join(cls.name for cls in ranking)}, "
            f"optionally with its α (URisk@5). Got {', '.join(map(str, risk))}."
        )
    return risk[0]


def integral_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    """Rank columns (those whose name holds ``rank``) as nullable integers when no rank is tied,
    so that tables print ``3``, not ``3.0000``; ``frame`` as it is otherwise."""
    cols = [c for c in frame.columns if "rank" in c]
    if not cols:
        return frame
    ranks = frame[cols].astype("float64")
    observed = ranks.to_numpy()[ranks.notna().to_numpy()]
    return frame.astype(dict.fromkeys(cols, "Int64")) if (observed % 1 == 0).all() else frame


def mean_variance_table(df: pd.DataFrame, alphas: Sequence[float], **options: Any) -> pd.DataFrame:
    """:func:`riskeval.analysis.variations.mean_variance` (O = mean − α·variance per system, Zuccon,
    Palotti & Hanbury, CIKM 2016, eq. 5–9) at each α, stacked with ``system`` and ``alpha`` first;
    except in the intra-topic form, with each system's competition rank by O (1 = best, ties
    share the best rank) and the rows ranked first, higher mean first among ties.  ``options``:
    the keywords of ``mean_variance``."""
    import pandas as pd

    from riskeval.analysis.variations import mean_variance
    from riskeval.core.rank_correlation import competition_ranks

    parts = []
    for alpha in alphas:
        part = mean_variance(df, alpha, **options)
        if options.get("form", "general") != "intra":
            part = part.assign(rank=competition_ranks(part["value"].to_numpy()))
            part = part.sort_values(["rank", "mean"], ascending=[True, False], kind="stable")
        part = part.reset_index() if any(n is not None for n in part.index.names) else part
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    return table[["system", "alpha", *(c for c in table.columns if c not in ("system", "alpha"))]]
