"""``riskeval risk`` and ``riskeval bias-study``: risk tables from a per-topic score table.

Thin over :func:`riskeval.risk_table`, :func:`riskeval.topic_risk` and :func:`riskeval.bias_study`.
The human table shows the columns people read; ``--format csv|json`` gives every column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from riskeval.cli._cluster import cluster_options
from riskeval.cli._input import (
    Scores,
    WholeNumber,
    alpha_option,
    correction_arg,
    load_scores,
    parse_alphas,
    per_measure,
    risk_options,
    scores_options,
    systems_option,
)
from riskeval.cli._output import HUMAN_FORMATS, emit, format_option
from riskeval.options import RISK_TESTS, check_option

if TYPE_CHECKING:
    import pandas as pd

#: Columns of the human ``risk`` table (csv/json give all of :data:`riskeval.analysis.table.COLUMNS`).
COMPACT = (
    "system",
    "alpha",
    "mean",
    "urisk",
    "trisk",
    "pvalue",
    "pvalue_maxt",
    "pvalue_adj",
    "significant",
    "tstar",
    "zrisk",
    "georisk",
    "wins",
    "losses",
    "loss20",
)


#: How the human table names the test behind its p-values (--test).
TEST_NAMES = {
    "permutation": "sign-flip randomisation test of URisk (pvalue_maxt: max-T over systems and α)",
    "bootstrap": "BCa bootstrap of URisk over topics",
}


@click.command()
@scores_options
@risk_options
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
    "--top",
    type=WholeNumber(1),
    default=None,
    metavar="K",
    help="With --topics: the K riskiest topics of each measure and α (the table is worst first).",
)
@click.option(
    "--test",
    default="t",
    show_default=True,
    metavar="t|permutation|bootstrap",
    help="p-values of URisk: Student's t (TRisk), the sign-flip randomisation test (adds the "
    "max-T p-value over all systems and α, pvalue_maxt) or the BCa bootstrap over topics.",
)
@click.option(
    "--n-resamples",
    type=WholeNumber(1),
    default=10_000,
    show_default=True,
    metavar="N",
    help="Resamples of --test and --tukey.",
)
@click.option(
    "--seed",
    type=WholeNumber(0),
    default=None,
    metavar="S",
    help="Seed of the resamples (recorded in the output).",
)
@click.option(
    "--tukey", is_flag=True, help="Instead: randomised Tukey HSD of all pairs of systems' URisk, per α."
)
@click.option(
    "--baseline-map",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Each system against its own baseline run: FILE has two columns, system and baseline "
    "(a system of the table), comma, tab or space separated (ECIR 2014, §5). Replaces --baseline.",
)
@systems_option
@cluster_options
@format_option
def risk(
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
    topics_of,
    losses_only,
    top,
    test,
    n_resamples,
    seed,
    tukey,
    baseline_map,
    systems,
    fmt,
    client,
):
    """Risk of every system against a baseline, for each α.

    SCORES is a per-topic score table: CSV, TSV or Parquet, long (columns system, topic, score) or
    wide (one row per system, one column per topic); with --scheduler or --workers, a long Parquet
    table: a file, a folder of Parquet files or a glob.  With --qrels, RUNS are TREC run files,
    evaluated per topic first.  URisk and TRisk are against --baseline; T*Risk
    (tstar) against the per-topic MEAN; ZRisk and GeoRisk use every system as a baseline.

    \b
    Examples:
      riskeval risk --example
      riskeval risk scores.csv --baseline bm25 --alpha 0,1,5 --correction holm --format csv
      riskeval risk --example --topics p_bert --alpha 5
      riskeval risk --example --baseline bm25base_p --test permutation --seed 1
      riskeval risk --example --baseline bm25base_p --alpha 0,5 --tukey --seed 1
      riskeval risk --qrels qrels.txt --measure ERR@20 --baseline bm25 bm25.run bert.run.gz
      riskeval risk scores.csv --baseline-map own-baselines.csv --alpha 5
    """
    import riskeval as rk
    from riskeval.analysis.by_measure import select_systems

    if client is not None and not example and qrels is None:
        unsupported = {
            "--topics": topics_of is not None,
            "--tukey": tukey,
            "--test": test != "t",
            "--baseline-map": baseline_map is not None,
        }
        used = [name for name, on in unsupported.items() if on]
        if used:
            raise click.UsageError(
                f"{', '.join(used)} cannot be used with a score table on a cluster (--scheduler/"
                "--workers), which computes the risk table in two passes over the table; leave out the "
                "cluster options to compute them in memory."
            )
        table = _on_cluster(
            inputs,
            measure,
            baseline,
            parse_alphas(alphas),
            level,
            correction_arg(correction),
            se,
            leave_one_out,
        )
        table = select_systems(table, systems, list(table["system"].unique()), "--systems")
        caption = (
            f"{table['system'].nunique()} systems from {inputs[0]} on the Dask cluster; baseline "
            f"{table['baseline'].iloc[0]}; critical |t| = {table['critical'].iloc[0]:.3f} at level "
            f"{_g(level)}"
            + (f", {correction_arg(correction)}-adjusted" if correction_arg(correction) else "")
        )
        own = str(table["baseline"].iloc[0])
        if fmt in HUMAN_FORMATS:
            table = table[[c for c in ("measure", *COMPACT) if c in table.columns]]
        emit(table, fmt, caption=caption + _mark_note(table, fmt), baseline=own)
        return
    scores = load_scores(inputs, example, qrels, measure, name_from, missing, client)
    source, X = scores.source, scores.matrix
    A = parse_alphas(alphas)
    corr = correction_arg(correction)
    n_res = n_resamples
    test = check_option(test, RISK_TESTS, "riskeval risk", "--test")
    human = fmt in HUMAN_FORMATS
    mapping = None
    if baseline_map is not None:
        from riskeval.io.baseline_map import read_baseline_map

        mapping = read_baseline_map(baseline_map)
    if tukey:
        from riskeval.inference.tables import tukey_tables

        X = scores.one()
        pairs, letters = tukey_tables(
            X,
            _baseline_of(X, baseline, mapping),
            A,
            n_resamples=n_res,
            rng=seed,
            level=level,
            leave_one_out=leave_one_out,
        )
        letters = select_systems(letters, systems, X.index, "--systems")
        caption = (
            f"Randomised Tukey HSD of URisk against {letters['baseline'].iloc[0]}, {X.shape[0]} "
            f"systems × {X.shape[1]} topics, {n_res} resamples, seed {letters['seed'].iloc[0]}; "
            f"systems sharing a letter do not differ at level {_g(level)}"
        ) + (" (--format csv: every pair)" if fmt == "table" else "")
        emit(letters if human else pairs, fmt, caption=caption)
        return
    if topics_of is None and (losses_only or top is not None):
        raise click.UsageError("--losses-only and --top go with --topics SYSTEM.")
    if topics_of is not None:
        if systems is not None:
            raise click.UsageError("--topics shows one system: leave out --systems.")
        top_k = top
        if mapping is not None:  # the system's own baseline run, by name
            baseline = mapping.get(topics_of, baseline)
        frame = per_measure(
            scores,
            lambda M: topic_table(
                M, topics_of, baseline, A, level=level, correction=corr, leave_one_out=leave_one_out
            ),
        )
        from riskeval.analysis.topics import riskiest_topics

        caption = (
            f"{topics_of} against {frame['baseline'].iloc[0]} on {X.shape[1]} topics of {source}"
            f"{_measures_note(scores)}; critical |t| = {frame['critical'].iloc[0]:.3f} at level "
            f"{_g(level)}" + (f", {corr}-adjusted across topics" if corr else "")
        )
        # p-values are computed (and adjusted) over every topic; the rows shown are chosen after
        frame = riskiest_topics(frame, losses_only=losses_only, top=top_k)
        shown = " where it loses" if losses_only else ""
        shown += f", the {top_k} riskiest per α" if top_k is not None else ""
        caption += f"; topics{shown}, worst first"
        if human:
            frame = frame.drop(columns=["system", "baseline", "level", "critical"])
        emit(frame, fmt, caption=caption + _mark_note(frame, fmt))
        return

    def table_of(M: pd.DataFrame) -> pd.DataFrame:
        base = _baseline_of(M, baseline, mapping)
        table = rk.risk_table(
            M, baseline=base, alphas=A, se=se, level=level, correction=corr, leave_one_out=leave_one_out
        )
        if mapping is not None:
            table["baseline"] = table["system"].map(mapping).astype(object)
        if test != "t":
            from riskeval.inference.tables import with_test

            table = with_test(
                table, M, test=test, baseline=base, n_resamples=n_res, rng=seed, leave_one_out=leave_one_out
            )
        return select_systems(table, systems, M.index, "--systems")

    table = per_measure(scores, table_of)
    shown = table["system"].nunique()
    caption = (
        f"{X.shape[0]} systems × {X.shape[1]} topics from {source}{_measures_note(scores)}"
        + (f" ({shown} shown)" if systems is not None else "")
        + "; baseline "
        + (str(table["baseline"].iloc[0]) if mapping is None else "of each system: " + baseline_map)
        + f"; critical |t| = {table['critical'].iloc[0]:.3f} at level {_g(level)}"
        + (f", {corr}-adjusted" if corr else "")
    )
    if test != "t":
        caption += f"\np-values: {TEST_NAMES[test]}, {n_res} resamples, seed {table['seed'].iloc[0]}"
    own = None if mapping is not None else str(table["baseline"].iloc[0])
    if human:
        table = table[[c for c in ("measure", *COMPACT) if c in table.columns]]
    emit(table, fmt, caption=caption + _mark_note(table, fmt), baseline=own)


def _on_cluster(
    inputs: tuple[str, ...],
    measure: tuple[str, ...],
    baseline: str,
    alphas: list[float],
    level: float,
    correction: str | None,
    se: str,
    leave_one_out: bool,
) -> pd.DataFrame:
    """:func:`riskeval.analysis.long_risk_table` of a long Parquet score table on the active cluster; with
    several ``--measure``, one after the other, stacked with a ``measure`` column first."""
    import os

    import pandas as pd

    from riskeval.distributed.risk import long_risk_table
    from riskeval.errors import RiskevalError
    from riskeval.io.measures import canonical_measure

    path = inputs[0] if len(inputs) == 1 else None
    if path is None or not (os.path.isdir(path) or path.endswith((".parquet", ".pq")) or "*" in path):
        raise RiskevalError(
            "With --scheduler/--workers, risk reads one long score table (columns system, topic, "
            "[measure,] score) on the cluster: a Parquet file (.parquet, .pq), a folder of Parquet "
            f"files or a glob of them; got {', '.join(inputs) or 'no input'}. Write the table as Parquet, "
            "or leave out the cluster options to read it in memory."
        )
    names: list[str | None] = [canonical_measure(m) for m in measure] or [None]
    tables = []
    for name in names:
        table = long_risk_table(
            path,
            baseline,
            alphas,
            measure=name,
            se=se,
            level=level,
            correction=correction,
            leave_one_out=leave_one_out,
        )
        if name is not None and len(names) > 1:
            table.insert(0, "measure", name)
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]


def _baseline_of(M: pd.DataFrame, baseline: str, mapping: dict[str, str] | None) -> object:
    """The --baseline, or with --baseline-map each system's own baseline run."""
    if mapping is None:
        return baseline
    from riskeval.measures.baselines import baseline_runs

    return baseline_runs(M, mapping)


def _measures_note(scores: Scores) -> str:
    return f", {', '.join(scores.matrices)}" if scores.measure is not None else ""


def _mark_note(table: pd.DataFrame, fmt: str) -> str:
    """How LaTeX and Markdown mark significance, said in the caption when the table has marks."""
    return "; † significant" if fmt in ("latex", "markdown") and "significant" in table.columns else ""


def _g(value: float) -> str:
    return f"{value:g}"


def topic_table(
    X: pd.DataFrame,
    system: str,
    baseline: str,
    alphas: list[float],
    *,
    level: float,
    correction: str | None,
    leave_one_out: bool,
) -> pd.DataFrame:
    """:func:`riskeval.topic_risk` of one system for each α, tidy: one row per (α, topic)."""
    import pandas as pd

    from riskeval.analysis.topics import system_topic_risk

    parts = [
        system_topic_risk(
            X, system, baseline, alpha, level=level, correction=correction, leave_one_out=leave_one_out
        ).reset_index()
        for alpha in alphas
    ]
    return pd.concat(parts, ignore_index=True)


@click.command("bias-study")
@scores_options
@alpha_option(help="Risk aversion α of the URisk rankings; repeat or give a comma list. [default: 1]")
@click.option(
    "--virtual",
    default="mean,median,max",
    show_default=True,
    help="Virtual runs to add as baselines and to the PCA (comma list; 'none' for none).",
)
@click.option(
    "--show",
    type=click.Choice(("summary", "ranks", "pca", "overview")),
    default="summary",
    show_default=True,
    help="summary: one row per run; ranks: URisk and rank of each system under each "
    "baseline; pca: run coordinates; overview: Friedman test and PCA variance.",
)
@systems_option
@format_option
def bias_study(inputs, example, qrels, measure, name_from, missing, alphas, virtual, show, systems, fmt):
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
    import pandas as pd

    import riskeval as rk
    from riskeval.analysis.bias_tables import bias_overview, study_table
    from riskeval.analysis.by_measure import check_systems
    from riskeval.formatting import format_pvalue

    scores = load_scores(inputs, example, qrels, measure, name_from, missing)
    A = parse_alphas(alphas, [1.0])
    kinds = [] if virtual.strip().lower() == "none" else [v.strip() for v in virtual.split(",")]
    r, c = scores.matrix.shape
    visits = len(scores.matrices) * len(A) * r * r * c // 2
    if visits > 10**9:
        click.echo(
            f"riskeval: bias study of {r} systems × {c} topics: every system is every other's "
            f"baseline, {visits:.2e} cell visits.",
            err=True,
        )
    parts, lines = [], []
    for name, X in scores.matrices.items():
        chosen = check_systems(systems, X.index, "--systems")
        for alpha in A:
            study = rk.bias_study(X, alpha, virtual=kinds)
            overview = bias_overview(study)
            row = overview.to_dict("records")[0]
            where = (f"{name}, " if scores.measure is not None else "") + f"α = {alpha:g}"
            lines.append(
                f"{where}: Friedman test of the rankings, each of the {row['systems']} systems as the "
                f"baseline: chi² = {row['friedman_statistic']:.2f}, p = "
                f"{format_pvalue(row['friedman_pvalue'])}; PCA: PC1 {row['pc1_pct']:.1f}%, PC2 "
                f"{row['pc2_pct']:.1f}% of the variance"
            )
            frame = overview if show == "overview" else study_table(study, X, show, chosen)
            if len(A) > 1 and "alpha" not in frame.columns:
                frame.insert(0, "alpha", alpha)
            if len(scores.matrices) > 1:
                frame.insert(0, "measure", name)
            parts.append(frame)
    caption = f"{r} systems × {c} topics from {scores.source}; URisk at α = {', '.join(f'{a:g}' for a in A)}"
    if show != "overview":
        caption += "\n" + "\n".join(lines)
    emit(integral_ranks(pd.concat(parts, ignore_index=True)), fmt, caption=caption)


def integral_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    """Rank columns as (nullable) integers when no rank is tied, so that tables print ``3``, not
    ``3.0000``."""
    cols = [c for c in frame.columns if "rank" in c]
    if not cols:
        return frame
    ranks = frame[cols].astype("float64")
    observed = ranks.to_numpy()[ranks.notna().to_numpy()]
    return frame.astype(dict.fromkeys(cols, "Int64")) if (observed % 1 == 0).all() else frame
