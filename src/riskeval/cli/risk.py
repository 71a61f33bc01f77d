"""``riskeval risk`` and ``riskeval bias-study``: risk tables from a per-topic score table.

Thin over :mod:`riskeval.reporting.risk_tables` (the risk table with its test, the topics, Tukey's
HSD, their captions) and :func:`riskeval.analysis.bias_study_tables`.  People see the columns they
read (:data:`riskeval.formatting.COMPACT`); ``--format csv|json`` every one; ``--columns`` chooses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import Scores, cli_baseline

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.measures.declared import RiskMeasure
    from riskeval.settings import RiskSettings

#: The formats that mark significant values (†).
MARKED = ("latex", "markdown")


@opts.command()
@opts.input_options
@opts.risk_options()
@opts.risk_option(
    help="The risk measures whose columns the table shows, each at its own α (a measure without α: "
    "at every --alpha), e.g. --risk URisk@5 --risk GeoRisk."
)
@opts.inference_options(alternative=True, n_resamples="Resamples of --test and --tukey (at most 10,000,000).")
@click.option(
    "--topics",
    "topics_of",
    metavar="SYSTEM",
    help="Instead of the table of systems: the per-topic analysis (x_j, TR_j, TJ_j) of "
    "SYSTEM against the baseline.",
)
@click.option(
    "--losses-only",
    is_flag=True,
    help="With --topics: only the topics where SYSTEM scores below the baseline.",
)
@click.option(
    "--tukey", is_flag=True, help="Instead: randomised Tukey HSD of all pairs of systems' URisk, per α."
)
@click.option(
    "--baseline-map",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Each system against its own baseline run: FILE has two columns, system and baseline "
    "(a system of the table), comma, tab or space separated (ECIR 2014, §5). Replaces --baseline.",
)
@opts.cluster_options
@opts.output_options(
    systems=True,
    columns="table, latex, markdown: system, alpha, mean, urisk, trisk, the p-values, the bootstrap "
    "interval low, high, significant, tstar, zrisk, georisk, wins, losses, loss20",
)
def risk(
    source: opts.ScoreSource,
    settings: RiskSettings,
    risks: list[RiskMeasure] | None,
    resampling: opts.Resampling,
    topics_of: str | None,
    losses_only: bool,
    tukey: bool,
    baseline_map: str | None,
    client: object,
    out: opts.Output,
) -> None:
    """Risk of every system against a baseline, for each α.

    URisk and TRisk are against --baseline; T*Risk (tstar) against the per-topic MEAN; ZRisk and
    GeoRisk use every system as a baseline.  --topics and --tukey give other analyses instead of
    the table.  With --scheduler or --workers, SCORES may be a long Parquet table: a file, a folder
    of Parquet files or a glob.

    \b
    Examples:
      riskeval risk --example
      riskeval risk scores.csv --baseline bm25 --alpha 0,1,5 --correction holm --format csv
      riskeval risk --example --risk URisk@5 --risk GeoRisk --alpha 1,5
      riskeval risk --example --topics p_bert --alpha 5
      riskeval risk --example --baseline bm25base_p --test permutation --seed 1
      riskeval risk --example --baseline bm25base_p --test bootstrap --columns system,alpha,urisk,low,high
      riskeval risk --example --baseline bm25base_p --alpha 0,5 --tukey --seed 1
      riskeval risk --qrels qrels.txt --measure ERR@20 --baseline bm25 bm25.run bert.run.gz
      riskeval risk scores.csv --baseline-map own-baselines.csv --alpha 5
    """
    test, alternative = resampling.test, resampling.alternative
    on_cluster = client is not None and not source.example and source.qrels is None
    _check_modes(
        on_cluster=on_cluster,
        topics=topics_of is not None,
        tukey=tukey,
        table_only={"--risk": risks is not None, "--alternative": alternative != "two-sided"},
        topics_only={"--losses-only": losses_only},
        in_memory_only={"--test": test != "t", "--baseline-map": baseline_map is not None},
        systems=out.systems is not None,
    )
    if alternative != "two-sided" and test != "t":
        raise click.UsageError(
            f"--alternative {alternative} goes with Student's t test of TRisk (--test t); the "
            f"{test} test gives two-sided p-values."
        )
    if on_cluster and source.unjudged != "nonrelevant":
        raise click.UsageError("--unjudged goes with runs evaluated against --qrels.")
    if on_cluster:
        from riskeval.distributed.parquet_tables import cluster_risk_table
        from riskeval.reporting.risk_tables import critical_note, mark_note

        table = cluster_risk_table(source.inputs, source.measure, settings, risks, alternative)
        caption = (
            f"{table['system'].nunique()} systems from {source.inputs[0]} on the Dask cluster; baseline "
            f"{table['baseline'].iloc[0]}{critical_note(table, settings, alternative)}"
        )
        table = out.select(table, list(table["system"].unique()))
        caption += mark_note(table, out.fmt in MARKED)
        out.emit(table, caption=caption, baseline=table["baseline"].iloc[0])
        return
    from riskeval.io.baseline_map import read_baseline_map

    scores = source.load(client, bounds=True)
    settings = cli_baseline(settings, scores)
    if source.unjudged == "bounds":
        _bounds(source, scores, settings, topics_of, losses_only, out, tukey=tukey, test=test, risks=risks)
        return
    mapping = None if baseline_map is None else read_baseline_map(baseline_map, scores.matrix.index)
    if tukey:
        _tukey(scores, settings, mapping, resampling, out)
    elif topics_of is not None:
        _topics(scores, topics_of, settings, mapping, losses_only=losses_only, out=out)
    else:
        _show_table(scores, settings, risks, resampling, baseline_map=baseline_map, own=mapping, out=out)


def _bounds(
    source: opts.ScoreSource,
    scores: Scores,
    settings: RiskSettings,
    topics_of: str | None,
    losses_only: bool,
    out: opts.Output,
    **others: object,
) -> None:
    """``--unjudged bounds``: the systems' URisk and TRisk intervals, or (``--topics``) one
    system's topics labelled (:mod:`riskeval.reporting.unjudged`)."""
    from riskeval.analysis.by_measure import check_systems
    from riskeval.reporting.unjudged import bounds_table, topic_bounds_table

    used = [f"--{k}" for k, v in others.items() if v not in (False, None, "t")]
    if used or click.get_current_context().params.get("baseline_map") is not None:
        raise click.UsageError(
            f"--unjudged bounds gives the URisk and TRisk intervals (and --topics); leave out "
            f"{', '.join(used) or '--baseline-map'}."
        )
    measures = list(scores.matrices)
    if topics_of is None:
        table, caption = bounds_table(source.bounds, measures, settings)
        out.emit(out.select(table, scores.matrix.index), caption=caption, inputs=source.files)
        return
    check_systems([topics_of], scores.matrix.index, "--topics")
    table, caption = topic_bounds_table(source.bounds, measures, topics_of, settings, losses_only=losses_only)
    out.emit(table, caption=caption, inputs=source.files)


def _check_modes(
    *,
    on_cluster: bool,
    topics: bool,
    tukey: bool,
    table_only: dict[str, bool],
    topics_only: dict[str, bool],
    in_memory_only: dict[str, bool],
    systems: bool,
) -> None:
    """Refuse, naming them, the options of another analysis than the one chosen (the table of
    systems, --topics or --tukey) and those that a score table on a cluster cannot take."""
    if topics and tukey:
        raise click.UsageError("--topics and --tukey are two analyses: choose one.")
    if not topics and any(topics_only.values()):
        raise click.UsageError("--losses-only goes with --topics SYSTEM.")
    if topics and systems:
        raise click.UsageError("--topics shows one system: leave out --systems.")
    used = [name for name, on in table_only.items() if on]
    if used and (topics or tukey):
        raise click.UsageError(
            f"{', '.join(used)} {'goes' if len(used) == 1 else 'go'} with the table of systems: "
            f"leave {'it' if len(used) == 1 else 'them'} out with {'--topics' if topics else '--tukey'}."
        )
    if on_cluster:
        cluster = {"--topics": topics, "--tukey": tukey, **in_memory_only}
        used = [name for name, on in cluster.items() if on]
        if used:
            raise click.UsageError(
                f"{', '.join(used)} cannot be used with a score table on a cluster (--scheduler/"
                "--workers), which computes the risk table in two passes over the table; leave out the "
                "cluster options to compute them in memory."
            )


def _show_table(
    scores: Scores,
    settings: RiskSettings,
    risks: list[RiskMeasure] | None,
    resampling: opts.Resampling,
    *,
    baseline_map: str | None,
    own: dict[str, str] | None,
    out: opts.Output,
) -> None:
    """The table of systems: :func:`riskeval.risk_table` of each measure's matrix, with the p-values
    of ``resampling`` (and a bootstrap's interval, ``low`` and ``high``, shown on screen too);
    ``own``: each system's own baseline, read from the ``baseline_map`` file."""
    from riskeval.analysis.alpha_tables import per_measure
    from riskeval.reporting.risk_tables import mark_note, risk_caption, tested_risk_table

    test, n_resamples, seed, alternative = resampling

    def table_of(M: pd.DataFrame) -> pd.DataFrame:
        table = tested_risk_table(
            M,
            settings,
            risk=risks,
            alternative=alternative,
            test=test,
            n_resamples=n_resamples,
            rng=seed,
            own=own,
            caller="riskeval risk",
        )
        return out.select(table, M.index)

    table = per_measure(scores.matrices, table_of)
    caption = risk_caption(
        scores.about() + _measures_note(scores),
        table,
        settings,
        alternative=alternative,
        shown=out.systems is not None,
        baseline_map=baseline_map,
    )
    baseline = None if own is not None else str(table["baseline"].iloc[0])
    out.emit(table, caption=caption + mark_note(table, out.fmt in MARKED), baseline=baseline)


def _topics(
    scores: Scores,
    system: str,
    settings: RiskSettings,
    mapping: dict[str, str] | None,
    *,
    losses_only: bool,
    out: opts.Output,
) -> None:
    """The per-topic analysis of ``system`` (``--topics``), worst topics first (the ``--top`` riskiest
    of each measure and α without ``--sort``)."""
    from riskeval.analysis.by_measure import check_systems
    from riskeval.reporting.risk_tables import mark_note, system_topics_table

    check_systems([system], scores.matrix.index, "--topics")
    s = settings if mapping is None else settings.replace(baseline=mapping.get(system, settings.baseline))
    about = f"{scores.matrix.shape[1]} topics of {scores.source}{_measures_note(scores)}"
    top = out.top if out.sort is None else None
    frame, caption = system_topics_table(scores.matrices, system, s, about, losses_only=losses_only, top=top)
    caption = caption.removesuffix(", worst first") if out.sort is not None else caption
    out = out._replace(top=None) if top is not None else out  # cut there, said in the caption
    if out.human and out.columns is None:
        frame = frame.drop(columns=["system", "baseline", "level", "critical"])
    out.emit(frame, caption=caption + mark_note(frame, out.fmt in MARKED))


def _tukey(
    scores: Scores,
    settings: RiskSettings,
    mapping: dict[str, str] | None,
    resampling: opts.Resampling,
    out: opts.Output,
) -> None:
    """The randomised Tukey HSD of URisk (``--tukey``): letters for people, every pair for programs."""
    from riskeval.reporting.risk_tables import tukey_table

    n, seed = resampling.n_resamples, resampling.seed
    table, caption = tukey_table(scores.one(), settings, own=mapping, n_resamples=n, rng=seed, **out.view)
    out.emit(table, caption=caption + (" (--format csv: every pair)" if out.fmt == "table" else ""))


def _measures_note(scores: Scores) -> str:
    return f", {', '.join(scores.matrices)}" if scores.measure is not None else ""


@opts.command("bias-study")
@opts.input_options
@opts.risk_options(
    "alphas",
    grid=(1.0,),
    alphas=dict(help="Risk aversion α of the URisk rankings; repeat or give a comma list."),
)
@click.option(
    "--virtual",
    default="mean,median,max",
    help="Virtual runs to add as baselines and to the PCA (comma list; 'none' for none).",
)
@click.option(
    "--show",
    type=click.Choice(("summary", "ranks", "pca", "overview")),
    default="summary",
    help="summary: one row per run; ranks: URisk and rank of each system under each "
    "baseline; pca: run coordinates; overview: Friedman test and PCA variance.",
)
@opts.output_options(systems=True)
def bias_study(
    source: opts.ScoreSource, settings: RiskSettings, virtual: str, show: str, out: opts.Output
) -> None:
    """Each system in turn as the baseline: how the choice of baseline changes the ranking.

    URisk ranks of the systems under every baseline (real systems and the virtual MEAN, MEDIAN,
    MAX), the Friedman test of those rankings, and a PCA of the run × topic matrix
    (Dinçer, Macdonald & Ounis, ECIR 2014).  The summary lists, per run, its rank under each
    virtual baseline, its best and worst rank under the real systems, and its PCA coordinates.
    Several --measure or --alpha values give one table with measure and alpha columns.

    \b
    Examples:
      riskeval bias-study --example
      riskeval bias-study --example --show ranks --format csv
      riskeval bias-study --example --alpha 1,5 --show overview --format latex
    """
    from riskeval.analysis.alpha_tables import bias_study_tables, integral_ranks
    from riskeval.reporting.paper_tables import bias_study_caption

    scores = source.load()
    A = settings.alphas
    kinds = [] if virtual.strip().lower() == "none" else [v.strip() for v in virtual.split(",")]
    r, c = scores.matrix.shape
    visits = len(scores.matrices) * len(A) * r * r * c // 2
    if visits > 10**9:
        click.echo(
            f"riskeval: bias study of {r} systems × {c} topics: every system is every other's "
            f"baseline, {visits:.2e} cell visits.",
            err=True,
        )
    table, overview = bias_study_tables(
        scores.matrices, A, show=show, virtual=kinds, systems=out.systems, systems_option="--systems"
    )
    caption = bias_study_caption(scores.about(), A, overview, named=scores.measure is not None, show=show)
    out.emit(integral_ranks(table), caption=caption)
