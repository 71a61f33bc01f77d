"""Subcommands for the papers' analyses beyond the measures.

``riskeval baseline-correlation``: each system's correlation with the baseline across topics beside
its URisk (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3).  ``riskeval baseline-rankings``: the risk
rankings against MEAN, MEDIAN and MAX side by side, and their agreement (ECIR 2014, Table 3).
``compare-runs``, ``risk-reward``, ``pca-topics``: ECIR 2014, Figure 3, §5 and §2.4.  ``chisq``: the
residuals behind ZRisk and the chi-square test, ``risk-ranks``: every measure with its rank
(Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6 and Table 6).  Each is one call of
:mod:`riskeval.reporting.paper_tables`, which makes the table and its caption.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from riskeval.analysis.alpha_tables import ranking_measures
from riskeval.cli import _options as opts
from riskeval.cli._input import RiskType, WholeNumber, cli_baseline

if TYPE_CHECKING:
    from riskeval.measures.declared import RiskMeasure
    from riskeval.settings import RiskSettings

#: The help of a --baseline that is one system or aggregate (mean by default).
BASELINE_HELP = "A system name, or mean, median or max."


@opts.command("baseline-correlation")
@opts.input_options
@opts.risk_options(
    "baseline",
    "alphas",
    "leave_one_out",
    grid=(5.0,),
    baseline=dict(help=f"{BASELINE_HELP} [default: every system in turn]"),
    alphas=dict(help="Risk aversion α of URisk; repeat or give a comma list."),
)
@opts.output_options(systems=True)
def baseline_correlation(source: opts.ScoreSource, settings: RiskSettings, out: opts.Output) -> None:
    """How each system's correlation with the baseline drives its URisk.

    One row per (baseline, system): the Pearson correlation of the system with the baseline across
    topics, its mean, UGain, FRisk and URisk at --alpha; the first line gives Pearson's r between
    the correlations and URisk (and FRisk) across the pairs (Dinçer, Ounis & Macdonald, ECIR 2014,
    §2.3: the more a system correlates with the baseline, the higher its URisk).

    \b
    Examples:
      riskeval baseline-correlation --example --baseline bm25base_p
      riskeval baseline-correlation --example --format csv
    """
    from riskeval.reporting.paper_tables import correlation_table

    scores, baseline = source.load(), opts.given("baseline")
    out.show(correlation_table(scores.one(), scores.about(), baseline, settings, **out.view))


@opts.command("baseline-rankings")
@opts.input_options
@click.option(
    "--baselines",
    default="mean,median,max",
    help="Comma list of baselines: mean, median, max or system names.",
)
@opts.risk_options("alphas", "leave_one_out", grid=(5.0, 10.0))
@click.option(
    "--risk",
    type=RiskType(),
    default="URisk",
    metavar="MEASURE",
    help="The risk measure that ranks the systems, with its own α (URisk@5) or at every --alpha: "
    + " or ".join(f"{cls.name} ({cls.citation})" for cls in ranking_measures())
    + ".",
)
@click.option(
    "--show",
    type=click.Choice(("table", "tidy", "agreement")),
    default="table",
    help="table: one row per system, each baseline and α side by side (ECIR 2014, Table 3); tidy: "
    "one row per (system, baseline, α); agreement: Kendall's τ and τ_AP between the rankings.",
)
@opts.output_options(systems=True)
def baseline_rankings(
    source: opts.ScoreSource,
    baselines: str,
    settings: RiskSettings,
    risk: list[RiskMeasure],
    show: str,
    out: opts.Output,
) -> None:
    """Risk rankings against several baselines side by side, and their agreement.

    URisk (or TRisk) of each system against each baseline at each α, with its rank, beside the
    system's mean score and rank: Table 3 of Dinçer, Ounis & Macdonald (ECIR 2014) with the
    baselines MEAN, MEDIAN and MAX at α = 5 and 10.  --show agreement gives Kendall's τ and the AP
    correlation τ_AP between every pair of rankings, the ranking by mean score included.

    \b
    Examples:
      riskeval baseline-rankings --example
      riskeval baseline-rankings --example --show agreement
      riskeval baseline-rankings --example --baselines mean,bm25base_p --alpha 1,5 --format csv
    """
    from riskeval.analysis.alpha_tables import ranking_measure
    from riskeval.reporting.paper_tables import rankings_table

    scores = source.load()
    ranking = ranking_measure(risk, "The '--risk' option of riskeval baseline-rankings")
    specs = [b.strip() for b in baselines.split(",") if b.strip()]
    out.show(rankings_table(scores.matrices, scores.about(), specs, ranking, settings, show=show, **out.view))


@opts.command("compare-runs")
@opts.input_options
@click.option(
    "--runs", "pair", required=True, metavar="A,B", help="The two systems to compare, comma separated."
)
@opts.risk_options(
    "alphas",
    "level",
    grid=(5.0,),
    alphas=dict(help="Risk aversion α of the per-topic URisk scores; repeat or give a comma list."),
    level=dict(help="Significance level: the intervals are at confidence 1 − LEVEL."),
)
@opts.inference_options(
    test="Test of the difference (mean of A − B, URisk of A against B): Student's paired t test "
    "with its t interval, the sign-flip randomisation test (no interval) or the BCa bootstrap over "
    "topics with its interval.",
    n_resamples="Resamples of --test permutation and bootstrap (at most 10,000,000).",
)
@click.option(
    "--show",
    type=click.Choice(("topics", "summary")),
    default="topics",
    help="topics: one row per topic (the difference and its test above the table, for people); "
    "summary: the difference, its p-value and interval, one row per statistic.",
)
@opts.output_options()
def compare_runs(
    source: opts.ScoreSource,
    pair: str,
    settings: RiskSettings,
    resampling: opts.Resampling,
    show: str,
    out: opts.Output,
) -> None:
    """Two runs topic by topic, each as the other's baseline (ECIR 2014, Figure 3), and the test of
    their difference.

    One row per topic: both scores, δ = A − B, x_a (A's per-topic URisk score with B as the
    baseline) and x_b (B's with A as the baseline).  Above it, the mean of A − B and URisk of A
    against B at each α, with the p-value and interval of --test (--show summary: as a table).

    \b
    Examples:
      riskeval compare-runs --example --runs p_bert,bm25base_p
      riskeval compare-runs --example --runs p_bert,bm25base_p --test bootstrap --seed 1
      riskeval compare-runs --example --runs p_bert,bm25base_p --show summary --format csv
    """
    from riskeval.analysis.by_measure import check_systems
    from riskeval.reporting.paper_tables import pair_table

    scores = source.load()
    X = scores.one()
    names = [p.strip() for p in pair.split(",")]
    if len(names) != 2 or not all(names):
        raise click.BadParameter(f"give two systems as A,B; got {pair!r}.", param_hint="'--runs'")
    check_systems(names, X.index, "--runs")
    (a, b), (test, n, seed, _) = names, resampling
    table = pair_table(
        X, scores.source, a, b, settings, test=test, n_resamples=n, rng=seed, show=show, human=out.human
    )
    out.show(table)


@opts.command("compare")
@opts.input_options
@opts.risk_options("baseline", "alphas", "level", "correction")
@opts.risk_option(help="The risk columns, each at its own α or at every --alpha [default: URisk, TRisk].")
@opts.inference_options(
    test="Test of every pair of systems (the superscripts) and of URisk against --baseline (†).",
    n_resamples="Resamples of --test permutation and bootstrap (at most 10,000,000).",
)
@opts.output_options()
def compare(
    source: opts.ScoreSource,
    settings: RiskSettings,
    risks: list[RiskMeasure] | None,
    resampling: opts.Resampling,
    out: opts.Output,
) -> None:
    """The table of a paper, as riskeval.compare makes it: the mean of each measure with the letters
    of the systems it is significantly better than (ranx's report, Bassani, ECIR 2022), beside the
    risk columns against --baseline with † where URisk differs from 0.

    \b
    Examples:
      riskeval compare --example -b bm25base_p --sort nDCG@10 --top 10
      riskeval compare scores.csv -b bm25 --risk URisk@5 --correction holm --format latex
      riskeval compare --qrels qrels.txt --unjudged bounds -b bm25 bm25.run new.run
    """
    from riskeval.inference.comparison import compare as compare_systems
    from riskeval.reporting.table_output import write_comparison, write_table

    bounded = source.unjudged == "bounds"
    if bounded and not out.human:
        raise click.UsageError(
            "compare --unjudged bounds writes the risk intervals as a second table, for people "
            "(--format table, markdown, latex); for csv or json use riskeval risk --unjudged bounds."
        )
    scores = source.load(bounds=True)
    settings = cli_baseline(settings, scores)
    matrices = scores.matrices
    X = matrices if len(matrices) > 1 else scores.matrix
    test, n, seed, _ = resampling
    measures = None if len(matrices) > 1 or scores.measure is None else scores.measure
    table = compare_systems(
        X, measures=measures, risk=risks, settings=settings, test=test, n_resamples=n, rng=seed
    )
    how: dict[str, Any] = dict(sort=out.sort, top=out.top, caller=opts.given_command())
    if not bounded:
        out.write(lambda stream: write_comparison(table, out.fmt, stream, **how))
        return
    from riskeval.reporting.unjudged import bounds_table

    intervals, caption = bounds_table(source.bounds, list(scores.matrices), settings)

    def both(stream: Any) -> None:
        write_comparison(table, out.fmt, stream, **how)
        stream.write("\n")
        write_table(intervals, out.fmt, stream, caption=caption, caller=opts.given_command())

    out.write(both)


@opts.command("risk-reward")
@opts.input_options
@opts.risk_options("baseline", "leave_one_out", baseline=dict(default="mean", help=BASELINE_HELP))
@opts.output_options(systems=True)
def risk_reward(source: opts.ScoreSource, settings: RiskSettings, out: opts.Output) -> None:
    """Mean score beside FRisk and FReward of every system, with the Pareto front (ECIR 2014, §5).

    \b
    Examples:
      riskeval risk-reward --example --baseline bm25base_p
    """
    from riskeval.reporting.paper_tables import tradeoff_table

    scores = source.load()
    out.show(tradeoff_table(scores.matrices, scores.about(), settings, **out.view))


@opts.command("pca-topics")
@opts.input_options
@click.option("--topics", "n_topics", default=10, type=WholeNumber(1), help="How many topics.")
@opts.output_options()
def pca_topics(source: opts.ScoreSource, n_topics: int, out: opts.Output) -> None:
    """The topics that load most on the second principal axis of the runs (ECIR 2014, §2.4), and
    the virtual MEAN, MEDIAN and MAX projected onto the axes.

    \b
    Examples:
      riskeval pca-topics --example --topics 5
    """
    from riskeval.reporting.paper_tables import pca_table

    scores = source.load()
    out.show(pca_table(scores.one(), scores.about("runs"), n_topics))


@opts.command("chisq")
@opts.input_options
@opts.risk_options(
    "baseline",
    "alphas",
    grid=(0.0,),
    baseline=dict(
        help="A system name, or mean, median or max: each system within [system; baseline]. "
        "[default: every system a baseline of every other]"
    ),
    alphas=dict(help="Risk aversion α of the zrisk_term column; repeat or give a comma list."),
)
@opts.option(
    "systems",
    "--systems",
    "--system",
    "systems",
    multiple=True,
    help="Only the rows of these systems (comma list, or repeat); the expected values use every system.",
)
@click.option("--below", is_flag=True, help="Only the topics where a system falls below expectation.")
@opts.output_options()
def chisq(
    source: opts.ScoreSource, settings: RiskSettings, systems: tuple[str, ...], below: bool, out: opts.Output
) -> None:
    """Expected values e_ij and standardised residuals z_ij behind ZRisk, per system and topic, and
    Pearson's chi-square test of the matrix (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6).

    \b
    Examples:
      riskeval chisq --example --system UNH_bm25 --below
      riskeval chisq --example --baseline bm25base_p --format csv
    """
    from riskeval.reporting.paper_tables import residuals_table

    scores, shown = source.load(), ",".join(systems) or None
    table = residuals_table(
        scores.one(),
        scores.about(),
        opts.given("baseline"),
        settings,
        systems=shown,
        below=below,
        human=out.human,
    )
    out.show(table)


@opts.command("risk-ranks")
@opts.input_options
@opts.risk_options(
    "baseline",
    "alphas",
    "leave_one_out",
    grid=(0.0, 1.0, 5.0, 10.0, 20.0),
    baseline=dict(default="mean", help=f"{BASELINE_HELP} The baseline of URisk and TRisk."),
)
@click.option("--tidy", is_flag=True, help="One row per (system, α, measure) instead of the paper's layout.")
@opts.output_options(systems=True)
def risk_ranks(source: opts.ScoreSource, settings: RiskSettings, tidy: bool, out: opts.Output) -> None:
    """URisk, TRisk, T*Risk, ZRisk and GeoRisk with their ranks at each α (Dinçer, Macdonald &
    Ounis, SIGIR 2016, Table 6): URisk and TRisk against --baseline, T*Risk against the per-topic
    MEAN, ZRisk and GeoRisk with every system as a baseline.

    \b
    Examples:
      riskeval risk-ranks --example --baseline bm25base_p
      riskeval risk-ranks --example --alpha 5 --tidy --format csv
    """
    from riskeval.reporting.paper_tables import ranks_table

    scores = source.load()
    out.show(ranks_table(scores.one(), scores.about(), settings, tidy=tidy, **out.view))


@opts.command("bias-variance-families")
@opts.input_options
@click.option(
    "--families",
    "families_path",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="CSV/TSV with columns system, family and optionally parameter (one row per system).",
)
@opts.option("target")
@click.option(
    "--decomposition",
    is_flag=True,
    help="Instead: E(AP − 1)² in the three terms of eq. 8 beside (1 − MAP)² + Var(AP) (eq. 9).",
)
@opts.output_options()
def bias_variance_families(
    source: opts.ScoreSource, families_path: str, target: str, decomposition: bool, out: opts.Output
) -> None:
    """Bias–variance of model families from a parameter sweep (Zhang, Song, Wang & Hou, SIGIR 2013,
    §3 and Figures 1–2), or the decomposition of the error to a perfect system (eq. 8–9).

    \b
    Examples:
      riskeval bias-variance-families ap.csv --families families.csv --target best
      riskeval bias-variance-families ap.csv --families families.csv --target best --decomposition
    """
    from riskeval.analysis import bias_variance_families as bvf
    from riskeval.io.families import read_families

    scores = source.load()
    X = scores.one()
    families = read_families(families_path, X.index)
    table = (
        bvf.error_decomposition(X, target)
        if decomposition
        else bvf.bias_variance_families(X, families, target)
    )
    what = "E(AP − 1)², eq. 8 and eq. 9" if decomposition else "bias–variance by model family"
    out.emit(table, caption=f"{scores.about()}; target {target}; {what}")
