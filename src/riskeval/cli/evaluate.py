"""``riskeval evaluate``: TREC run files evaluated against qrels, as ``trec_eval`` and ``ir_measures``
print them.

By default the mean of each measure over the topics, per system (``trec_eval``'s ``all`` lines,
``ir_measures``' aggregate): for people one row per system and one column per measure; in csv and
json the long columns ``system, measure, score``.  ``--per-topic`` gives each topic's score instead
(``trec_eval -q``), as the long columns ``system, topic, measure, score`` in every format, whatever
the number of measures: what ``riskeval risk`` reads back.
"""

from __future__ import annotations

from typing import Any

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import DEFAULT_MEASURE, WholeNumber
from riskeval.cli._output import warnings_to_stderr


@click.command("evaluate")
@click.option(
    "--qrels",
    required=True,
    type=click.Path(dir_okay=False),
    help="TREC qrels file 'qid iteration docno grade' (plain or gzip).",
)
@click.option(
    "--measure",
    "-m",
    "measures",
    multiple=True,
    default=(DEFAULT_MEASURE,),
    help="ir_measures measure name, e.g. nDCG@10, ERR@20, 'AP(rel=2)', \"nDCG(dcg='exp-log2')@20\". "
    "Repeat for several measures.",
)
@click.option(
    "--name",
    "names",
    multiple=True,
    help="System name of each run, in the order of the run files (repeat once per run). "
    "Default: the run tag, 6th field of the first line.",
)
@opts.option(
    "name-from",
    help="Without --name: name systems by run tag or by file name (without .gz, .txt, .run, ...).",
)
@opts.option(
    "missing",
    default="zero",
    help="Topics judged in the qrels but absent from a run: score 0 (as trec_eval -c), drop the "
    "topic for every system, or stop with an error.",
)
@opts.option("unjudged")
@click.option(
    "--jobs",
    "-j",
    type=WholeNumber(1),
    help="Worker processes (default: the CPUs this process may use, or one for runs under 256 MB).",
)
@click.option(
    "--engine",
    type=click.Choice(["compiled", "ir_measures"]),
    default="compiled",
    help="compiled: trec_eval's measures and Judged@k by compiled kernels equal to ir_measures, the "
    "others by ir_measures; ir_measures: every measure by ir_measures but Judged@k (same values, "
    "slower).",
)
@click.option(
    "--per-topic",
    is_flag=True,
    help="Each topic's score (system, topic, measure, score), as trec_eval -q, instead of each "
    "system's mean over the topics.",
)
@click.option(
    "--judged",
    is_flag=True,
    help="Add Judged@k at the depth of each measure (Judged@10 for nDCG@10; Judged, every returned "
    "document, for AP): the fraction of each run's top k that the qrels judge.",
)
@opts.option("progress", fill="Progress bar over runs on stderr.")
@opts.cluster_options
@opts.output_options()
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
def evaluate(
    qrels: str,
    measures: tuple[str, ...],
    judged: bool,
    names: tuple[str, ...],
    name_from: str,
    missing: str,
    unjudged: str,
    jobs: int | None,
    engine: str,
    per_topic: bool,
    progress: bool | None,
    out: opts.Output,
    runs: tuple[str, ...],
    client: Any,
) -> None:
    """Evaluate TREC RUNS (plain or .gz) against --qrels: each system's mean of each measure over
    the topics (as trec_eval and ir_measures print it), or with --per-topic each topic's score.

    \b
    Examples:
      riskeval evaluate --qrels qrels.txt -m nDCG@10 -m AP a.run b.run.gz
      riskeval evaluate --qrels qrels.txt -m nDCG@10 --judged a.run b.run.gz
      riskeval evaluate --qrels qrels.txt --per-topic --format csv a.run b.run.gz > scores.csv
      riskeval evaluate --qrels qrels.txt --unjudged condensed new.run
    """
    from riskeval.errors import RiskevalError
    from riskeval.evaluation.api import LONG_COLUMNS, per_topic_scores
    from riskeval.io.table_export import write_csv_rows

    if names and name_from == "file":
        raise RiskevalError("Use either --name (once per run) or --name-from file, not both.")
    if names and len(names) != len(runs):
        raise RiskevalError(
            f"--name was given {len(names)} time(s) for {len(runs)} run file(s): give one per run."
        )
    chosen = list(names) if names else ("file" if name_from == "file" else None)
    if judged:
        from riskeval.io.measure_depth import judged_measure

        measures = (*measures, *(judged_measure(m) for m in measures))
    with warnings_to_stderr():  # riskeval's warnings: counts of missing topics
        scores = per_topic_scores(
            qrels,
            list(runs),
            list(measures),
            names=chosen,
            missing=missing,
            progress=progress,
            n_jobs=jobs,
            client=client,
            engine=engine,
            unjudged=unjudged,
        )
    if per_topic and out.fmt == "csv" and out.columns is None and out.sort is None and out.top is None:
        out.write(lambda stream: write_csv_rows(LONG_COLUMNS, scores.long_rows(), stream))
        return  # the table as it is: written without pandas
    from riskeval.evaluation.score_inputs import mean_scores

    table = scores.long_frame()
    if per_topic or not out.human:
        out.emit(table if per_topic else mean_scores(table))
        return
    caption = f"Mean over {table['topic'].nunique()} topic(s) of {qrels}; --per-topic for each topic's score"
    out.emit(mean_scores(table, wide=True), caption=caption)
