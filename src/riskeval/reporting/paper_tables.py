"""The papers' analyses beyond the measures as tables with their captions, for people (text,
LaTeX, Markdown: the columns people read) or for programs (every column), as the command line
prints them.

Each function takes the systems × topics matrix (or one per measure), ``about`` (the first words of
the caption: what the scores are and where they come from) and ``systems`` (the rows shown, a
comma list; every analysis still uses every system), and returns a :class:`PaperTable`:

- :func:`correlation_table`: each system's correlation with the baseline beside its URisk
  (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3);
- :func:`rankings_table`: risk rankings against several baselines and their agreement (ECIR 2014,
  Table 3);
- :func:`pair_table`: two runs topic by topic, each the other's baseline, and the test of their
  difference (ECIR 2014, Figure 3);
- :func:`tradeoff_table`: mean score beside FRisk and FReward with the Pareto front (ECIR 2014, §5);
- :func:`pca_table`: the topics that load on the second principal axis (ECIR 2014, §2.4);
- :func:`residuals_table`: the residuals behind ZRisk and the chi-square test (Dinçer, Macdonald &
  Ounis, SIGIR 2016, eq. 4–6);
- :func:`ranks_table`: every risk measure with its rank at each α (SIGIR 2016, Table 6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.measures.declared import RiskMeasure
    from riskeval.settings import RiskSettings

#: How the rows of chosen systems are asked for, in errors about unknown names.
SYSTEMS_OPTION = "--systems"


class PaperTable(NamedTuple):
    """A table, its caption (the lines above a text table), and the baseline whose rows against
    itself the formats for people leave out (``None``: none)."""

    table: pd.DataFrame
    caption: str
    baseline: str | None = None


def shown(table: pd.DataFrame, systems: str | None, known: Any, column: str = "system") -> pd.DataFrame:
    """The rows of ``systems`` (a comma list; every row when ``None``), names checked against
    ``known`` (:func:`riskeval.analysis.by_measure.select_systems`)."""
    from riskeval.analysis.by_measure import select_systems

    return select_systems(table, systems, known, SYSTEMS_OPTION, column)


def correlation_table(
    X: pd.DataFrame,
    about: str,
    baseline: str | None,
    settings: RiskSettings,
    *,
    systems: str | None = None,
    human: bool = False,
) -> PaperTable:
    """:func:`riskeval.analysis.baseline_correlation` at each α of ``settings`` (with its
    leave-one-out): one row per (baseline, system); the caption gives Pearson's r between the
    correlations and URisk (and FRisk) across the pairs (ECIR 2014, §2.3), over every pair whatever
    the rows shown.  ``baseline=None``: every system in turn."""
    import pandas as pd

    from riskeval.analysis.correlation import baseline_correlation
    from riskeval.formatting import p_equals

    alphas, leave_one_out = settings.alphas, settings.leave_one_out
    results = [baseline_correlation(X, baseline, alpha, leave_one_out=leave_one_out) for alpha in alphas]
    table = pd.concat([r.table for r in results], ignore_index=True)
    against = "each system in turn" if baseline is None else results[0].baseline
    caption = "\n".join(
        [
            f"{about}; URisk against {against}; "
            f"{results[0].n_pairs} pairs (a system against itself left out)",
            *(
                f"α = {r.alpha:g}: Pearson r of the correlation with the baseline and URisk: "
                f"{r.statistic:.3f} ({p_equals(r.pvalue)}); and FRisk: "
                f"{r.frisk_statistic:.3f} ({p_equals(r.frisk_pvalue)})"
                for r in results
            ),
        ]
    )
    table = shown(table, systems, X.index)
    if human:
        table = table[~table["is_baseline"]].drop(columns=["is_baseline"])
        table = table.drop(
            columns=[c for c in ("alpha",) if len(alphas) == 1] + (["baseline"] if baseline else [])
        )
    return PaperTable(table, caption)


def rankings_table(
    matrices: Mapping[str, pd.DataFrame],
    about: str,
    baselines: Sequence[str],
    ranking: RiskMeasure,
    settings: RiskSettings,
    *,
    show: str = "table",
    systems: str | None = None,
    human: bool = False,
) -> PaperTable:
    """:func:`riskeval.analysis.baseline_rankings` of each measure's matrix by ``ranking`` at its own
    α, else at each α of ``settings`` (with its leave-one-out): ``show="table"``, for people one row
    per system with each baseline and α side by side (ECIR 2014, Table 3); ``"tidy"`` (and
    ``"table"`` for programs), one row per (system, baseline, α); ``"agreement"``, Kendall's τ and
    τ_AP between the rankings (:func:`riskeval.analysis.ranking_agreement`)."""
    import pandas as pd

    from riskeval.analysis import baseline_ranks as br
    from riskeval.analysis.alpha_tables import integral_ranks, per_measure
    from riskeval.formatting import format_alpha

    alphas = [ranking.alpha] if ranking.alpha is not None else list(settings.alphas)
    leave_one_out = settings.leave_one_out
    names: list[str] = []  # the baselines as the tables name them (MEAN, a system...)

    def layout(M: pd.DataFrame) -> pd.DataFrame:
        tidy = br.baseline_rankings(M, list(baselines), alphas, risk=ranking, leave_one_out=leave_one_out)
        names.extend(str(b) for b in pd.unique(tidy["baseline"]))
        tidy = shown(tidy, systems, M.index)
        if show == "agreement":
            agreement = br.ranking_agreement(tidy)
            if human:  # α as written (5, not 5.0000); blank beside the mean score
                agreement["reference_alpha"] = [
                    "" if pd.isna(a) else format_alpha(a) for a in agreement["reference_alpha"]
                ]
            return agreement
        if show == "tidy" or not human:
            return tidy
        wide = br.rankings_wide(tidy)
        wide.columns = [" ".join(p for p in (b, a.replace("α = ", "α="), f) if p) for b, a, f in wide.columns]
        return wide.reset_index()

    table = per_measure(matrices, layout)
    caption = (
        f"{about}; {ranking.name} against "
        f"{', '.join(dict.fromkeys(names))} at α = {', '.join(f'{a:g}' for a in alphas)}; rank 1 = best"
    )
    return PaperTable(integral_ranks(table), caption)


def pair_table(
    X: pd.DataFrame,
    source: str,
    a: str,
    b: str,
    settings: RiskSettings,
    *,
    test: str = "t",
    n_resamples: int = 10_000,
    rng: Any = None,
    show: str = "topics",
    human: bool = False,
) -> PaperTable:
    """Runs ``a`` and ``b`` of ``X`` compared (ECIR 2014, Figure 3) at each α of ``settings``:
    ``show="topics"``, one row per topic and α (:func:`riskeval.analysis.compare_runs`: both scores,
    δ = A − B, x_a with B as the baseline, x_b with A as the baseline) under the difference and its
    test, one line per statistic; ``"summary"``, that test as the table
    (:func:`riskeval.inference.comparison.pair_summary`: the mean of A − B and URisk of A against B
    at each α, with the p-value of ``test`` and its interval at confidence 1 − the level of
    ``settings``). ``source``: where the scores come from, for the caption."""
    import pandas as pd

    from riskeval.analysis.run_comparison import compare_runs
    from riskeval.formatting import p_equals
    from riskeval.inference.comparison import pair_summary

    alphas, level = list(settings.alphas), settings.level
    tables = [compare_runs(X, a, b, alpha) for alpha in alphas]
    summary = pair_summary(X, a, b, alphas, test=test, level=level, n_resamples=n_resamples, rng=rng)
    head = f"{a} and {b} on {X.shape[1]} topics of {source}; {test_note(summary)}"
    if show == "summary":
        return PaperTable(summary.drop(columns=["test", "level"]) if human else summary, head)
    lines = [head]
    for (_, row), t in zip(summary.iterrows(), [None, *tables], strict=True):
        where = "mean" if t is None else f"α = {row['alpha']:g}: URisk"
        line = (
            f"{where} of {a} − {b}: {row['estimate']:.4f}"
            if t is None
            else (f"{where} of {a} against {b}: {row['estimate']:.4f} ({int((t['x_a'] < 0).sum())} losses)")
        )
        line += f", {p_equals(row['pvalue'])}"
        if pd.notna(row["low"]):
            line += f", interval [{row['low']:.4f}, {row['high']:.4f}]"
        if t is not None:
            xb = t["x_b"]
            line += f"; of {b} against {a}: {xb.mean():.4f} ({int((xb < 0).sum())} losses)"
        lines.append(line)
    table = pd.concat(tables, ignore_index=True)
    if human:
        table = table.drop(columns=["system_a", "system_b", *(["alpha"] if len(alphas) == 1 else [])])
    return PaperTable(table, "\n".join(lines))


def test_note(summary: pd.DataFrame) -> str:
    """Which test gave the p-values and intervals of a
    :func:`~riskeval.inference.comparison.pair_summary`."""
    test = str(summary["test"].iloc[0])
    confidence = f"{1 - float(summary['level'].iloc[0]):.0%}"
    if test == "t":
        return f"p-values: paired t test; intervals: {confidence} t intervals"
    resamples = f"{summary['n_resamples'].iloc[0]} resamples, seed {summary['seed'].iloc[0]}"
    if test == "permutation":
        return f"p-values: sign-flip randomisation test, {resamples} (no interval)"
    return f"p-values and {confidence} intervals: BCa bootstrap over topics, {resamples}"


def tradeoff_table(
    matrices: Mapping[str, pd.DataFrame],
    about: str,
    settings: RiskSettings,
    *,
    systems: str | None = None,
    human: bool = False,
) -> PaperTable:
    """:func:`riskeval.analysis.risk_reward_tradeoff` of each measure's matrix: mean score beside
    FRisk and FReward against the baseline of ``settings`` (with its leave-one-out), with the
    Pareto front (ECIR 2014, §5)."""
    from riskeval.analysis.alpha_tables import per_measure
    from riskeval.analysis.run_comparison import risk_reward_tradeoff

    table = per_measure(
        matrices,
        lambda M: shown(
            risk_reward_tradeoff(M, settings.baseline, leave_one_out=settings.leave_one_out), systems, M.index
        ),
    )
    caption = (
        f"{about}; FRisk against "
        f"{table['baseline'].iloc[0]}; pareto: no system has a higher mean and a lower FRisk"
    )
    own = str(table["baseline"].iloc[0])
    if human:
        table = table.drop(columns=["baseline"])
    return PaperTable(table, caption, own)


def pca_table(X: pd.DataFrame, about: str, n_topics: int = 10) -> PaperTable:
    """:func:`riskeval.analysis.pca_biplot` of the runs: the ``n_topics`` topics that load most on
    PC2, and the virtual MEAN, MEDIAN and MAX projected onto the axes in the caption (ECIR 2014,
    §2.4)."""
    from riskeval.analysis.pca import pca_biplot

    res = pca_biplot(X, n_topics=n_topics)
    supp = ", ".join(
        f"{k} ({round(v['PC1'], 3) + 0.0:.3f}, {round(v['PC2'], 3) + 0.0:.3f})"
        for k, v in res.supplementary.iterrows()
    )
    caption = (
        f"{about}; PC1 {res.explained['PC1']:.1f}%, "
        f"PC2 {res.explained['PC2']:.1f}% of the variance\nprojected baselines (PC1, PC2): {supp}"
    )
    return PaperTable(res.pc2_topics, caption)


def residuals_table(
    X: pd.DataFrame,
    about: str,
    baseline: str | None,
    settings: RiskSettings,
    *,
    systems: str | None = None,
    below: bool = False,
    human: bool = False,
) -> PaperTable:
    """:func:`riskeval.analysis.chisq_residuals` at each α of ``settings`` (expected values e_ij, standardised
    residuals z_ij; SIGIR 2016, eq. 4–6), each system within [system; ``baseline``] or, with
    ``baseline=None``, every system a baseline of every other; ``below``: only the topics where a
    system falls below expectation.  The caption gives Pearson's chi-square test of the matrix."""
    import pandas as pd

    from riskeval.analysis.chisq import chisq_residuals, chisq_test
    from riskeval.formatting import p_equals

    alphas = settings.alphas
    parts = [chisq_residuals(X, baseline, alpha) for alpha in alphas]
    if len(alphas) > 1:
        parts = [part.assign(alpha=alpha) for part, alpha in zip(parts, alphas, strict=True)]
    table = shown(pd.concat(parts, ignore_index=True), systems, X.index)
    if below:
        table = table[table["below"]]
    test = chisq_test(X)
    caption = (
        f"{about}; expected values against "
        f"{table['baseline'].iloc[0] if len(table) else baseline}\n"
        f"Chi-square test of the matrix: G² = {test.statistic:.4f}, df = {test.df}, "
        f"{p_equals(test.pvalue)}"
    )
    if human:
        table = table.drop(columns=["baseline"])
    return PaperTable(table, caption)


def ranks_table(
    X: pd.DataFrame,
    about: str,
    settings: RiskSettings,
    *,
    tidy: bool = False,
    systems: str | None = None,
    human: bool = False,
) -> PaperTable:
    """:func:`riskeval.analysis.measure_rankings`: URisk, TRisk, T*Risk, ZRisk and GeoRisk with
    their ranks at each α of ``settings``, against its baseline (SIGIR 2016, Table 6), for people
    in the paper's layout (one row per system) unless ``tidy`` (one row per system, α and
    measure)."""
    from riskeval.analysis.alpha_tables import integral_ranks
    from riskeval.analysis.measure_ranks import measure_rankings, measure_rankings_wide

    s = settings
    table = shown(
        measure_rankings(X, s.baseline, list(s.alphas), leave_one_out=s.leave_one_out), systems, X.index
    )
    caption = (
        f"{about}; URisk and TRisk against "
        f"{table['baseline'].iloc[0]}, T*Risk against MEAN, ZRisk and GeoRisk against every system; "
        "rank 1 = best"
    )
    if tidy or not human:
        return PaperTable(integral_ranks(table), caption)
    wide = measure_rankings_wide(table)
    wide.columns = [
        " ".join(p for p in (a.replace("α = ", "α="), m, "" if f == "value" else f) if p)
        for a, m, f in wide.columns
    ]
    return PaperTable(integral_ranks(wide), caption)


def bias_study_caption(
    about: str, alphas: Sequence[float], overview: pd.DataFrame, *, named: bool, show: str = "summary"
) -> str:
    """What a table of :func:`riskeval.analysis.alpha_tables.bias_study_tables` shows (ECIR 2014,
    §4): ``about`` (the scores and their source), the α; under it, unless the table is the overview
    itself, one line per measure (named when ``named``) and α with the Friedman test of the
    rankings and the PCA variance of the ``overview`` rows."""
    from riskeval.formatting import p_equals

    caption = f"{about}; URisk at α = {', '.join(f'{a:g}' for a in alphas)}"
    if show == "overview":
        return caption
    return caption + "".join(
        f"\n{f'{row.measure}, ' if named else ''}α = {row.alpha:g}: Friedman test of the rankings, "
        f"each of the {row.systems} systems as the baseline: chi² = {row.friedman_statistic:.2f}, "
        f"{p_equals(row.friedman_pvalue)}; PCA: PC1 {row.pc1_pct:.1f}%, PC2 "
        f"{row.pc2_pct:.1f}% of the variance"
        for row in overview.itertuples()
    )
