"""``riskeval mean-variance`` and ``riskeval bias-variance``: stability of systems across query
variations and topics (Zuccon et al. 2016; Zhang et al. 2013)."""

from __future__ import annotations

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import DECIMAL, WholeNumber, parse_alphas
from riskeval.cli._output import warnings_to_stderr
from riskeval.io.variation_inputs import topic_weights
from riskeval.options import BIAS_VARIANCE_FORMS, MEAN_VARIANCE_FORMS, UNEQUAL_POLICIES

#: --unequal: the library's policies but 'keep' (NaN-padded cells are for the Python API's intra form)
UNEQUAL = tuple(u for u in UNEQUAL_POLICIES if u != "keep")


#: The options of the mean-variance evaluation (``--form`` to ``--missing``): the keywords of
#: :func:`riskeval.analysis.variations.mean_variance`, given to the command as ``options``.
mean_variance_options = opts.group(
    [
        click.option("--form", type=click.Choice(MEAN_VARIANCE_FORMS), default="general"),
        click.option(
            "--variant", help="With --form inter: the variant that is each topic's query (e.g. pivot)."
        ),
        click.option(
            "--ddof",
            type=WholeNumber(0, 1),
            default=1,
            help="Variance: 1 sample, 0 population.",
        ),
        click.option(
            "--weights", type=click.Path(exists=True, dir_okay=False), help="'topic weight' per line."
        ),
        click.option(
            "--unequal",
            type=click.Choice(UNEQUAL),
            default="raise",
            help="Topics with different numbers of variants: stop, drop them, or downsample (--seed).",
        ),
        opts.option("seed", "--seed", "rng", type=WholeNumber(), help="Seed of --unequal downsample."),
        opts.option(
            "missing",
            default="raise",
            help="Cells some systems lack: stop, score 0, or drop the cell for every system.",
        ),
    ],
    "options",
    lambda weights, **options: {"weights": topic_weights(weights), **options},
)


@click.command("mean-variance")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--mapping",
    type=click.Path(exists=True, dir_okay=False),
    help="'query topic variant' per line; the arguments are then trec_eval or ir_measures -q files, one "
    "per system.",
)
@click.option(
    "--measure",
    "-m",
    default="P_10",
    help="trec_eval measure name read from trec_eval -q files and the CLEF folder (P_10, map, ...).",
)
@opts.option("clef2015")
@opts.setting_option("alphas", help="Risk preference α (any real); repeat or give a comma list. [default: 1]")
@mean_variance_options
@click.option(
    "--decompose",
    is_flag=True,
    help="General form: add the within-topic and covariance parts of the variance.",
)
@click.option(
    "--sweep",
    metavar="START:STOP:STEP",
    help="Instead of the table: Kendall τ and τ_AP against the mean-only ranking over this α grid.",
)
@click.option(
    "--rank-change",
    nargs=2,
    type=DECIMAL,
    metavar="FROM TO",
    help="Instead of the table: each system's rank at α = FROM and α = TO, largest changes first.",
)
@opts.output_options()
def mean_variance(
    inputs: tuple[str, ...],
    mapping: str | None,
    measure: str,
    clef_root: str | None,
    alphas: tuple[str, ...],
    options: dict,
    decompose: bool,
    sweep: str | None,
    rank_change: tuple[float, float] | None,
    out: opts.Output,
) -> None:
    """Mean-variance evaluation over query variations: O = mean − α·variance per system.

    INPUTS: one table with columns system, topic, variant, score (CSV, TSV or Parquet), or
    trec_eval -q files with --mapping; or none with --clef2015.

    \b
    Examples:
      riskeval mean-variance --clef2015 clef-ehealth-2015-task2 --alpha 0,1,5
      riskeval mean-variance scores.csv --sweep -20:20:0.1 --format csv
      riskeval mean-variance --mapping map.txt runs/*.eval --form intra
    """
    from riskeval.analysis.alpha_tables import mean_variance_table
    from riskeval.analysis.variations import mean_variance_sweep, rank_changes
    from riskeval.errors import RiskevalError
    from riskeval.io.variation_inputs import read_variations, sweep_alphas

    if sweep and rank_change:
        raise RiskevalError("Use either --sweep or --rank-change, not both.")
    with warnings_to_stderr():
        df = read_variations(inputs, mapping, measure, clef_root)
        if sweep:
            table = mean_variance_sweep(df, sweep_alphas(sweep), **options).to_frame()
        elif rank_change:
            table = rank_changes(df, *rank_change, **options)
        else:
            table = mean_variance_table(df, parse_alphas(alphas, [1.0]), decompose=decompose, **options)
    out.emit(table)


@opts.command("bias-variance")
@opts.input_options
@opts.option("clef2015")
@click.option(
    "--variant",
    help="With --clef2015: only this variant's queries (e.g. pivot), needs as topics; default: all queries.",
)
@opts.option(
    "target",
    help="perfect, best (per-topic best of all or of --best-of systems), a system name, or a number "
    "(target mean only).",
)
@click.option("--best-of", multiple=True, help="With --target best: a system of the set (repeat).")
@click.option(
    "--form",
    type=click.Choice(BIAS_VARIANCE_FORMS),
    default="ap",
    help="ap: bias and variance of the scores; delta: of target − score per topic.",
)
@click.option("--reference", help="Add the robustness index and <Init against this system.")
@opts.output_options(systems=True)
def bias_variance(
    source: opts.ScoreSource,
    clef_root: str | None,
    variant: str | None,
    target: str,
    best_of: tuple[str, ...],
    form: str,
    reference: str | None,
    out: opts.Output,
) -> None:
    """Bias-variance decomposition of each system's per-topic scores, with GMAP.

    The scores may also come from the CLEF eHealth 2015 folder (--clef2015, --measure read from
    its evaluations, default P_10).
    Total = bias² + variance; smaller is better (Zhang et al. 2013).

    \b
    Examples:
      riskeval bias-variance scores.csv --target best --reference bm25
      riskeval bias-variance --qrels qrels.txt --measure AP a.run b.run --target best
      riskeval bias-variance --clef2015 clef-ehealth-2015-task2 --measure map --target best
    """
    from riskeval.analysis.variance_tables import bias_variance_table
    from riskeval.errors import RiskevalError
    from riskeval.io.variation_inputs import clef2015_matrix, number_or_label

    with warnings_to_stderr():
        if clef_root is not None:
            if source.inputs or source.example or source.qrels:
                raise RiskevalError("Give either --clef2015 or scores (a table, runs, --example), not both.")
            if len(source.measure) > 1:
                raise RiskevalError("--clef2015 reads one --measure at a time.")
            matrix = clef2015_matrix(clef_root, source.measure[0] if source.measure else "P_10", variant)
        else:
            if variant is not None:
                raise RiskevalError("--variant applies to --clef2015 only.")
            matrix = source.load().one()
        named = number_or_label(target)
        table = bias_variance_table(
            matrix, named, form=form, best_of=list(best_of) or None, reference=reference
        )
        if out.systems is not None:  # the rows shown; the 'best' target uses every system
            name = table.index.name or "system"
            table = out.select(table.rename_axis(name).reset_index(), matrix.index).set_index(name)
    out.emit(table.sort_values("total", kind="stable"))
