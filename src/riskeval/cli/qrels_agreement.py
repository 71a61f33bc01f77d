"""``riskeval qrels-agreement``: the same TREC runs evaluated against several qrels of the same topics,
and how much their ranking and their losses against the baseline change
(:func:`riskeval.analysis.qrels_comparison.qrels_agreement`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import DEFAULT_MEASURE
from riskeval.cli._output import warnings_to_stderr

if TYPE_CHECKING:
    from riskeval.settings import RiskSettings

#: --table: the tables of the result, by attribute name.
TABLES = ("ranking", "losses", "risk", "spread", "scores")


@click.command("qrels-agreement")
@click.option(
    "--qrels",
    "qrels",
    multiple=True,
    required=True,
    type=click.Path(dir_okay=False),
    help="A TREC qrels file of the topics (plain or gzip). Give it at least twice; the first is the "
    "reference of τ_AP.",
)
@click.option(
    "--label",
    "labels",
    multiple=True,
    help="The name of each --qrels, in their order (repeat once per --qrels). Default: the file names.",
)
@click.option(
    "--measure",
    "-m",
    default=DEFAULT_MEASURE,
    help="The measure evaluated under each qrels, named as in ir_measures or trec_eval.",
)
@opts.option("name-from")
@opts.option("missing")
@opts.risk_options("baseline", "alphas", "leave_one_out")
@click.option(
    "--table",
    type=click.Choice(TABLES),
    default="ranking",
    help="ranking: Kendall's τ and τ_AP of the orders by URisk and TRisk per pair of qrels and α; "
    "losses: per system, the topics whose sign against the baseline agrees and the losses under each "
    "qrels; risk: the risk table under each qrels; spread: mean and variance of each system across "
    "the qrels (mean-variance, each qrels a variant); scores: every per-topic score (system, topic, "
    "variant, score).",
)
@opts.output_options()
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
def qrels_agreement(
    qrels: tuple[str, ...],
    labels: tuple[str, ...],
    measure: str,
    name_from: str,
    missing: Any,
    settings: RiskSettings,
    table: str,
    out: opts.Output,
    runs: tuple[str, ...],
) -> None:
    """Evaluate TREC RUNS against each --qrels and compare: the risk of every system under each,
    Kendall's τ and τ_AP of the system orders, and per topic whether the loss against the baseline
    is a loss under every qrels.

    \b
    Examples:
      riskeval qrels-agreement --qrels graded.txt --qrels binary.txt -b bm25 runs/*
      riskeval qrels-agreement --qrels people.txt --qrels llm.txt --label people --label llm \\
          -m nDCG@10 -b bm25 --alpha 0,5 --table losses runs/*
    """
    from riskeval.analysis.qrels_comparison import qrels_agreement as agreement
    from riskeval.cli._input import Scores, cli_baseline
    from riskeval.errors import RiskevalError
    from riskeval.evaluation.several_qrels import evaluate_under_qrels

    if labels and len(labels) != len(qrels):
        raise RiskevalError(
            f"--label was given {len(labels)} time(s) for {len(qrels)} --qrels: give one per --qrels."
        )
    if len(qrels) < 2:
        raise RiskevalError("Give --qrels at least twice: the qrels to compare.")
    with warnings_to_stderr():
        matrices = evaluate_under_qrels(
            list(qrels),
            list(runs),
            measure,
            labels=list(labels) or None,
            names="file" if name_from == "file" else None,
            missing=missing or "zero",
        )
        first = next(iter(matrices.values()))
        settings = cli_baseline(settings, Scores(first, "", [], measure, {measure: first}))
        result = agreement(matrices, settings=settings)
    chosen = getattr(result, table)
    if table == "spread":
        chosen = chosen.reset_index()
    r, c = first.shape
    caption = (
        f"{measure} of {r} systems under {len(result.qrels)} qrels ({', '.join(result.qrels)}), "
        f"{result.scores['topic'].nunique()} common topics; baseline {result.risk['baseline'].iloc[0]}"
    )
    out.emit(chosen, caption=caption)
