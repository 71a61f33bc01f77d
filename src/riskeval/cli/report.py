"""``riskeval report``: the self-contained HTML risk report (:func:`riskeval.report`)."""

from __future__ import annotations

from pathlib import Path

import click

from riskeval.cli._cluster import cluster_options
from riskeval.cli._input import (
    correction_arg,
    load_scores,
    parse_alphas,
    risk_options,
    scores_options,
)
from riskeval.cli.variations import variation_data


@click.command()
@scores_options
@risk_options
@cluster_options
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    default="riskeval-report.html",
    show_default=True,
    help="The HTML file to write.",
)
@click.option("--title", default=None, help="Page title. [default: Risk report]")
@click.option(
    "--n-risky",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="How many of the riskiest systems get a per-topic analysis.",
)
@click.option(
    "--variations",
    type=click.Path(dir_okay=False),
    help="Query-variation table (system, topic, variant, score): adds the mean-variance section.",
)
@click.option(
    "--bias-variance",
    "bias_target",
    metavar="TARGET",
    help="Adds the bias-variance section against TARGET: perfect, best, a system or a number.",
)
def report(
    inputs,
    example,
    qrels,
    measure,
    name_from,
    missing,
    baseline,
    alphas,
    level,
    correction,
    se,
    leave_one_out,
    output,
    title,
    n_risky,
    variations,
    bias_target,
):
    """Write the risk report: one HTML file with the tables, the plots (inline SVG) and the inputs
    and settings, readable in any browser without a server.  Prints the path written.

    The scores come from one per-topic score table (CSV, TSV or Parquet; long or wide), from TREC
    run files evaluated against --qrels, or from the shipped example (--example).

    \b
    Examples:
      riskeval report --example -o riskeval-report.html
      riskeval report scores.csv --measure nDCG@10 --baseline bm25 -o report.html
      riskeval report --qrels qrels.txt --measure ERR@20 a.run b.run.gz -o report.html
    """
    import riskeval as rk

    if not Path(output).resolve().parent.is_dir():
        raise click.BadParameter(f"the folder of {output!r} does not exist.", param_hint="'--output'")
    from riskeval.io.atomic import refuse_inputs

    refuse_inputs(output, [*inputs, qrels, variations])  # before any work: never write over an input
    scores = load_scores(inputs, example, qrels, measure, name_from, missing)
    data, files = variation_data(variations, bias_target)
    result = rk.report(
        scores.matrix,
        baseline=baseline,
        alphas=parse_alphas(alphas),
        level=level,
        correction=correction_arg(correction),
        se=se,
        leave_one_out=leave_one_out,
        measure=scores.measure,
        inputs=[*scores.files, *files],
        title=title,
        n_risky=n_risky,
        data=data,
        path=output,
    )
    click.echo(str(Path(result.path).resolve()))
