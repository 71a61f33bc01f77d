"""``riskeval report``: the self-contained HTML risk report (:func:`riskeval.report`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import WholeNumber, cli_baseline
from riskeval.cli.bayes import Sampler, sampler_options

if TYPE_CHECKING:
    from riskeval.measures.declared import RiskMeasure
    from riskeval.settings import RiskSettings


@opts.command()
@opts.input_options
@opts.risk_options()
@opts.risk_option(
    help="The risk measures whose columns the risk tables show, each at its own α (a measure "
    "without α: at every --alpha) [default: every measure]."
)
@opts.cluster_options
@opts.option(
    "output",
    type=click.Path(dir_okay=False, writable=True),
    default="riskeval-report.html",
    help="The HTML file to write: a new path or a regular file, replaced atomically; '-' or "
    "/dev/stdout for standard output.",
)
@click.option("--title", help="Page title. [default: Risk report]")
@click.option(
    "--n-risky",
    type=WholeNumber(0),
    default=3,
    help="How many of the riskiest systems get a per-topic analysis.",
)
@opts.option(
    "systems",
    help="Systems to focus on (comma list): drawn in colour in the plots, always among the systems "
    "whose per-topic values and curves the page holds, and first in its system picker; every "
    "table keeps every system, and baselines, ZRisk and GeoRisk still use them all.",
)
@click.option(
    "--topics-file",
    type=click.Path(dir_okay=False),
    help="Topic texts shown beside the ids: TREC DL .tsv (id<TAB>text), id:text lines, TREC <top> or "
    "<topic number=...> XML.",
)
@opts.inference_options(
    test="p-values of the risk table: Student's t (TRisk), the sign-flip randomisation test or the "
    "BCa bootstrap of URisk (as in riskeval risk).",
    seed="Seed of the resamples and, with --bayes, of the sampler (recorded).",
)
@opts.option("progress", fill="Each step with its elapsed time on stderr.")
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
@click.option(
    "--bayes",
    is_flag=True,
    help="Adds the Bayesian champion–challenger section (SIGIR 2020): one fit per --alpha of "
    "every system, --champion against --challengers, credible intervals at 1 − --level; the "
    "sampler seeded by --seed. Needs the bayes extra.",
)
@sampler_options
def report(
    source: opts.ScoreSource,
    settings: RiskSettings,
    risks: list[RiskMeasure] | None,
    client: object,
    output: str,
    title: str | None,
    n_risky: int,
    systems: str | None,
    topics_file: str | None,
    resampling: opts.Resampling,
    progress: bool | None,
    variations: str | None,
    bias_target: str | None,
    bayes: bool,
    sampler: Sampler,
) -> None:
    """Write the risk report: one HTML file with the tables, the plots and the inputs and settings,
    readable in any browser without a server or network.  Prints the path written.

    Several measures (--measure repeated) give one tab each.  The page is interactive (sortable tables, α
    and system pickers, plots with values on hover) and works offline; without scripts it shows
    the tables at the largest α.

    \b
    Examples:
      riskeval report --example -o riskeval-report.html
      riskeval report scores.csv --measure nDCG@10 --baseline bm25 -o report.html
      riskeval report --example --risk URisk --risk GeoRisk --alpha 1,5 -o report.html
      riskeval report --qrels qrels.txt --measure ERR@20 a.run b.run.gz -o report.html
      riskeval report --qrels qrels.txt --measure nDCG@10 --measure "AP(rel=2)" --baseline bm25 \\
          --systems mine --topics-file topics.tsv --correction holm runs/* -o report.html
      riskeval report scores.csv --baseline bm25 --alpha 0,5 --bayes --champion bm25 -o report.html
    """
    import riskeval as rk
    from riskeval._optional import require
    from riskeval.analysis.by_measure import check_systems
    from riskeval.io.atomic import check_target, is_stdout, refuse_inputs

    for module in ("matplotlib", "jinja2", "markupsafe"):  # a missing extra before any other output
        require(module, "riskeval.report")
    if not bayes and (sampler.champion is not None or sampler.challengers is not None):
        raise click.UsageError("--champion and --challengers go with --bayes.")
    if bayes:
        from riskeval.cli.bayes import require_extra

        require_extra(sampler.model)

    if not is_stdout(output):
        if not Path(output).resolve().parent.is_dir():
            raise click.BadParameter(f"the folder of {output!r} does not exist.", param_hint="'--output'")
        check_target(output)  # a device, a FIFO, a link or a folder fails before the work
    import sys

    refuse_inputs(output, [*source.files, variations, topics_file])  # never write over an input
    texts = None
    if topics_file is not None:
        from riskeval.io.topic_texts import read_topic_texts

        texts = read_topic_texts(topics_file)
    show = sys.stderr.isatty() if progress is None else progress
    scores = source.load(client, bounds=True, judged=True)  # runs: how much of each ranking is judged
    settings = cli_baseline(settings, scores)
    matrices = scores.matrices
    if show:
        r, c = scores.matrix.shape
        click.echo(f"riskeval report: {r} systems × {c} topics, {len(matrices)} measure(s)", err=True)
    from riskeval.io.variation_inputs import report_variation_data

    data, files = report_variation_data(variations, bias_target)
    if source.unjudged == "bounds":  # the section "Losses the qrels cannot decide"
        data = {**data, "unjudged": {m: source.bounds(m) for m in matrices}}
    comparison = None
    if bayes:
        from riskeval.cli.bayes import compare

        comparison, _ = compare(
            scores.one(),
            sampler,
            alphas=list(settings.alphas),
            level=1 - settings.level,
            seed=resampling.seed,
            progress=show,
            command="riskeval report --bayes",
        )
    result = rk.report(
        matrices if len(matrices) > 1 else scores.matrix,
        settings=settings,
        risk=risks,
        measure=scores.measure,
        inputs=[*scores.files, *files, *([topics_file] if topics_file else [])],
        title=title,
        n_risky=n_risky,
        systems=check_systems(systems, scores.matrix.index, "--systems"),
        topics=texts,
        test=resampling.test,
        n_resamples=resampling.n_resamples,
        rng=resampling.seed,
        progress=show,
        data=data,
        bayes=comparison,
        judged=scores.judged,
        path=output,
    )
    if not is_stdout(output):
        click.echo(str(Path(result.path).resolve()))
