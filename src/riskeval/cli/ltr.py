"""``riskeval ltr``: train, evaluate and compare risk-sensitive LambdaMART models (Dinçer, Macdonald &
Ounis, SIGIR 2014 and SIGIR 2016, §6).

Data files are SVMlight/LETOR (``riskeval.io.letor``); models are LightGBM model files.  numpy,
LightGBM and numba are imported inside the commands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import DecimalRange, ResampleCount, WholeNumber
from riskeval.cli._output import emit
from riskeval.io.terminal import escape_controls
from riskeval.ltr.options import GEORISK_UPDATES, LEARNERS, OBJECTIVE_NAMES, SX_UPDATES, VARIANTS
from riskeval.ltr.workflow import Baselines, Boosting

if TYPE_CHECKING:
    from riskeval.settings import RiskSettings

_data = click.argument("data", type=click.Path(exists=True, dir_okay=False))
_query_file = click.option(
    "--query-file",
    type=click.Path(exists=True, dir_okay=False),
    help="LightGBM group sizes when the data lines have no qid (default: DATA.query).",
)
_k = click.option("-k", "k", type=WholeNumber(1), default=10, help="The cut-off of NDCG@k.")


_baselines_options = opts.group(
    [
        click.option(
            "--baseline-feature",
            "features",
            multiple=True,
            type=WholeNumber(0),
            help="A feature whose ranking is a baseline (repeatable), e.g. 110 for MSLR's BM25.",
        ),
        click.option(
            "--baseline-model",
            "baseline_models",
            multiple=True,
            type=click.Path(exists=True, dir_okay=False),
            help="A LightGBM model file used as a baseline system (repeatable).",
        ),
    ],
    "baselines",
    lambda features, baseline_models: Baselines(features, baseline_models),
)
#: -k and how the risk-sensitive objectives are computed: keywords of :func:`riskeval.ltr.train`
#: and :class:`riskeval.ltr.Experiment`, given to ``train`` and ``experiment`` as ``lambdamart``.
_lambdamart = opts.group(
    [
        _k,
        click.option(
            "--sx-update",
            type=click.Choice(SX_UPDATES),
            default="first_tree",
            help="T-SARO/T-FARO/T*-FARO: s_x estimated during the first tree and kept, or at every tree.",
        ),
        click.option(
            "--georisk-update",
            type=click.Choice(GEORISK_UPDATES),
            default="first_order",
            help="GeoRisk: every other query's z moved to first order, or the paper's shortcut.",
        ),
        click.option(
            "--variant",
            type=click.Choice(VARIANTS),
            default="paper",
            help="U-CRO/T-SARO/T-FARO/T*-FARO by the papers' equations, or as the Jforests code computes "
            "them.",
        ),
    ],
    "lambdamart",
    dict,
)


_boosting_options = opts.group(
    [
        click.option(
            "--param",
            "params",
            multiple=True,
            metavar="KEY=VALUE",
            help="A LightGBM parameter (repeatable), e.g. num_leaves=50.",
        ),
        click.option("--rounds", type=WholeNumber(1), default=100, help="Boosting rounds (trees)."),
        click.option(
            "--early-stopping",
            type=WholeNumber(1),
            help="Stop when NDCG@k on the validation data (train: --valid; experiment: each fold's "
            "validation part) has not improved for this many rounds.",
        ),
    ],
    "boosting",
    lambda params, rounds, early_stopping: Boosting.parse(
        params, rounds, early_stopping, opts.given_command()
    ),
)


def _emit_table7(frame, fmt: str, out: opts.Output | None = None) -> None:
    """Print a Table 7 frame (:func:`riskeval.ltr.workflow.table7_for_print`), the models (each
    with its own α) against each baseline (to ``out``'s file, sorted and cut, where given)."""
    from riskeval.ltr.workflow import table7_for_print

    flat, note = table7_for_print(frame, fmt == "table")
    out = out or opts.Output(fmt)
    out.emit(flat, groups=("baseline",))
    if note:
        click.echo(note)


@click.group()
def ltr() -> None:
    """Risk-sensitive LambdaMART (U-CRO, T-SARO, T-FARO, T*-FARO, GeoRisk) with LightGBM."""


@ltr.command()
@_data
@_query_file
@click.option("--objective", type=click.Choice(OBJECTIVE_NAMES), default="lambdarank")
@click.option("--alpha", type=DecimalRange(min=0), default=0.0, help="Risk aversion α ≥ 0.")
@_baselines_options
@_lambdamart
@_boosting_options
@click.option(
    "--valid",
    type=click.Path(exists=True, dir_okay=False),
    help="Validation data (LETOR) for early stopping and the report.",
)
@opts.option(
    "output",
    required=True,
    default=None,
    help="Where to save the LightGBM model: a new path or a regular file, replaced atomically.",
)
@opts.option("progress", fill="Progress bar on stderr.")
@opts.option("format")
def train(
    data: str,
    query_file: str | None,
    objective: str,
    alpha: float,
    baselines: Baselines,
    lambdamart: dict[str, Any],
    boosting: Boosting,
    valid: str | None,
    output: str,
    progress: bool | None,
    fmt: str,
) -> None:
    """Train a model on DATA and save it; print its Table 7 on --valid (else on DATA)."""
    from riskeval.ltr import train as fit
    from riskeval.ltr import workflow as w
    from riskeval.ltr.models import read_model, write_model

    lgb_params, k = boosting.params, lambdamart["k"]
    inputs = [p for p in (data, query_file, valid, *baselines.models) if p]
    w.check_model_target(output, inputs)
    for path in baselines.models:
        read_model(path)  # a bad model file fails before the data is read and the model trained
    train_set, _ = w.read_letor_files([data], query_file)
    baseline = w.training_baseline(objective, train_set, baselines, k)
    train_set, report, kwargs = w.validation(train_set, valid, boosting.early_stopping, k, lgb_params)
    kwargs["callbacks"].insert(0, w.progress_callback(boosting.rounds, progress))
    with w.lightgbm_errors("train"):
        booster = fit(
            lgb_params,
            train_set.X,
            train_set.y,
            train_set.group,
            objective=objective,
            alpha=alpha,
            baseline=baseline,
            num_boost_round=boosting.rounds,
            **lambdamart,
            **kwargs,
        )
    write_model(booster, output, inputs=tuple(inputs))
    click.echo(f"saved {escape_controls(output)} ({booster.current_iteration()} trees)", err=True)
    table = w.trained_table(Path(output).stem, booster, report, baselines, k)
    if baselines.features or baselines.models:
        _emit_table7(table, fmt)
    else:
        emit(table, fmt)


@ltr.command()
@_data
@_query_file
@click.option(
    "--model",
    "models",
    multiple=True,
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A LightGBM model file to evaluate (repeatable).",
)
@_baselines_options
@_k
@opts.output_options()
def evaluate(
    data: str, query_file: str | None, models: tuple[str, ...], baselines: Baselines, k: int, out: opts.Output
) -> None:
    """Table 7 of models on DATA against baselines (Dinçer et al., SIGIR 2016): NDCG@k, Risk..."""

    from riskeval.ltr.workflow import models_table

    _emit_table7(models_table(data, query_file, models, baselines, k), out.fmt, out)


@ltr.command()
@click.argument("data", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--folds-dir",
    type=click.Path(exists=True, file_okay=False),
    help="A folder with Fold1..FoldK/{train,vali,test}.txt rotating as MSLR-Web10K's (instead of DATA).",
)
@click.option("--objectives", default=",".join(OBJECTIVE_NAMES), help="Comma-separated objectives.")
@opts.risk_options(
    "alphas",
    "correction",
    grid=(1.0, 5.0),
    alphas=dict(
        decls=("--alpha", "-a", "--alphas", "alphas"),
        help="Risk aversion α of the risk-sensitive objectives; repeat or give a comma list.",
    ),
    correction=dict(default="holm", help="Multiple-testing correction over all the tests."),
)
@click.option(
    "--baseline-feature",
    "feature",
    type=WholeNumber(0),
    help="The feature baseline (U-CRO, T-SARO, T-FARO learn against it).",
)
@click.option(
    "--learned-baselines",
    default="",
    help=f"Comma-separated learners trained on held-out queries ({', '.join(LEARNERS)}).",
)
@click.option(
    "--holdout",
    type=DecimalRange(0, 1, min_open=True, max_open=True),
    default=0.2,
    help="Share of the queries for the learned baselines.",
)
@click.option("--folds", type=WholeNumber(3), default=5)
@click.option(
    "--folds-by-file",
    is_flag=True,
    help="Each DATA file is one part (e.g. MSLR's S1..S5), instead of random parts.",
)
@_boosting_options
@click.option(
    "--grid",
    "grid",
    multiple=True,
    metavar="KEY=V1,V2",
    help="LightGBM parameter values tried per fold and model, the best on validation kept "
    "(repeatable); 'default': learning_rate=0.05,0.1 and num_leaves=15,50.",
)
@_lambdamart
@click.option(
    "--test-alpha",
    type=DecimalRange(min=0),
    default=1.0,
    help="α of the TRisk and randomisation tests.",
)
@click.option(
    "--resamples",
    type=ResampleCount(0),
    default=10000,
    help="Sign flips of the randomisation test (0: TRisk only).",
)
@click.option(
    "--tests",
    "show_tests",
    is_flag=True,
    help="Print the significance tests instead of Table 7 (the text format prints both).",
)
@opts.option("seed", type=WholeNumber(), default=0, help="Seed of the experiment's random draws.")
@opts.option("progress", fill="Progress bar on stderr.")
@opts.option("format")
def experiment(
    data: tuple[str, ...],
    folds_dir: str | None,
    objectives: str,
    settings: RiskSettings,
    feature: int | None,
    learned_baselines: str,
    holdout: float,
    folds: int,
    folds_by_file: bool,
    boosting: Boosting,
    grid: tuple[str, ...],
    lambdamart: dict[str, Any],
    test_alpha: float,
    resamples: int,
    show_tests: bool,
    seed: int,
    progress: bool | None,
    fmt: str,
) -> None:
    """k-fold train/validate/test of several objectives and α values; prints Table 7 and the tests
    of every model against LambdaMART and the baselines."""
    from riskeval.ltr import Experiment
    from riskeval.ltr.workflow import experiment_data, lightgbm_errors, parse_grid

    grid_values = parse_grid(grid)
    dataset, parts = experiment_data(data, folds_dir, folds_by_file, folds)
    setup = Experiment(
        objectives=_names(objectives),
        alphas=list(settings.alphas),
        baseline_feature=feature,
        learned_baselines=_names(learned_baselines),
        holdout=holdout,
        folds=parts,
        params=boosting.params,
        rounds=boosting.rounds,
        early_stopping=boosting.early_stopping,
        grid=grid_values,
        **lambdamart,
        test_alpha=test_alpha,
        correction=settings.correction,
        n_resamples=resamples,
        rng=seed,
        progress=sys.stderr.isatty() if progress is None else progress,
    )
    with lightgbm_errors("experiment"):
        result = setup.run(dataset.X, dataset.y, dataset.group)
    _emit_experiment(result, fmt, show_tests)


def _emit_experiment(result, fmt: str, show_tests: bool) -> None:
    """Table 7 of an experiment, then its tests; one of them in a machine format (``--tests``)."""
    if fmt == "table" or not show_tests:
        _emit_table7(result.to_frame(), fmt)
    if fmt == "table" or show_tests:
        if fmt == "table":
            from riskeval.ltr.workflow import tests_heading

            click.echo("\n" + tests_heading(result))
        emit(result.tests, fmt)


def _names(text: str) -> list[str]:
    """The names of a comma list, blanks ignored."""
    return [name.strip() for name in text.split(",") if name.strip()]
