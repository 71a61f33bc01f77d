"""Subcommands for the papers' analyses beyond the measures.

``riskeval baseline-correlation``: each system's correlation with the baseline across topics beside
its URisk (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3).
"""

from __future__ import annotations

import click

from riskeval.cli._input import alpha_option, load_scores, scores_options
from riskeval.cli._output import emit, format_option


@click.command("baseline-correlation")
@scores_options
@click.option(
    "--baseline",
    "-b",
    default=None,
    help="A system name, or mean, median or max. [default: every system in turn]",
)
@alpha_option(multiple=False, default=5.0, help="Risk aversion α of URisk. [default: 5]")
@click.option("--leave-one-out", is_flag=True, help="Aggregate baselines exclude the evaluated system.")
@format_option
def baseline_correlation(
    inputs, example, qrels, measure, name_from, missing, baseline, alphas, leave_one_out, fmt
):
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
    from riskeval.analysis.baseline_correlation import baseline_correlation as analyse

    X, source, _, _ = load_scores(inputs, example, qrels, measure, name_from, missing)
    result = analyse(X, baseline, float(alphas), leave_one_out=leave_one_out)
    table = result.table
    if fmt == "table":
        against = "each system in turn" if baseline is None else result.baseline
        click.echo(
            f"{X.shape[0]} systems × {X.shape[1]} topics from {source}; URisk at α = {result.alpha:g} "
            f"against {against}; {result.n_pairs} pairs (a system against itself left out)\n"
            f"Pearson r of the correlation with the baseline and URisk: {result.statistic:.3f} "
            f"(p = {result.pvalue:.3g}); and FRisk: {result.frisk_statistic:.3f} "
            f"(p = {result.frisk_pvalue:.3g})"
        )
        table = table[~table["is_baseline"]].drop(columns=["alpha", "is_baseline"])
        if baseline is not None:
            table = table.drop(columns=["baseline"])
    emit(table, fmt)
