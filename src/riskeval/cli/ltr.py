"""``riskeval ltr``: train, evaluate and compare risk-sensitive LambdaMART models (Dinçer, Macdonald &
Ounis, SIGIR 2014 and SIGIR 2016, §6).

Data files are SVMlight/LETOR (``riskeval.io.letor``); models are LightGBM model files.  numpy,
LightGBM and numba are imported inside the commands.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import DecimalRange, ResampleCount, WholeNumber
from riskeval.cli._output import emit
from riskeval.io.terminal import escape_controls
from riskeval.ltr.options import GEORISK_UPDATES, LEARNERS, OBJECTIVE_NAMES, SX_UPDATES, VARIANTS

if TYPE_CHECKING:
    from riskeval.settings import RiskSettings

_data = click.argument("data", type=click.Path(exists=True, dir_okay=False))
_query_file = click.option(
    "--query-file",
    type=click.Path(exists=True, dir_okay=False),
    help="LightGBM group sizes when the data lines have no qid (default: DATA.query).",
)
_k = click.option("-k", "k", type=WholeNumber(1), default=10, help="The cut-off of NDCG@k.")


class Baselines(NamedTuple):
    """The baselines of ``train`` and ``evaluate``: feature rankings and LightGBM model files."""

    features: tuple[int, ...]
    models: tuple[str, ...]


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


class Boosting(NamedTuple):
    """The LightGBM parameters (checked), the boosting rounds and the early stopping."""

    params: dict[str, Any]
    rounds: int
    early_stopping: int | None


def _boosting(params: tuple[str, ...], rounds: int, early_stopping: int | None) -> Boosting:
    from riskeval.ltr.lightgbm_params import check_lightgbm_params

    checked = _parse_params(params)
    check_lightgbm_params(checked, opts.given_command())
    return Boosting(checked, rounds, early_stopping)


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
    _boosting,
)


def _parse_params(items: tuple[str, ...]) -> dict[str, Any]:
    from riskeval.errors import RiskevalError

    params: dict[str, Any] = {"verbose": -1}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RiskevalError(f"--param must be KEY=VALUE; got {item!r}.")
        for cast in (int, float):
            try:
                params[key.strip()] = cast(value)
                break
            except ValueError:
                continue
        else:
            params[key.strip()] = value.strip()
    return params


def _read(paths: list[str], query_file: str | None = None, n_features: int | None = None):
    """Read one or more LETOR files into one set, columns aligned (to ``n_features`` if given)."""
    import numpy as np
    import scipy.sparse as sp

    from riskeval.io.letor import LetorData, read_letor

    parts = [read_letor(p, query_file=query_file if len(paths) == 1 else None) for p in paths]
    width = max([d.X.shape[1] for d in parts] + [n_features or 0])
    if n_features is not None and width > n_features:
        from riskeval.errors import RiskevalError

        raise RiskevalError(
            f"The data has {width} feature columns but the model was trained on {n_features}."
        )
    X = sp.vstack([_widen(d.X, width) for d in parts], format="csr")
    data = LetorData(
        X,
        np.concatenate([d.y for d in parts]),
        np.concatenate([d.group for d in parts]),
        None,
        ",".join(paths),
    )
    return data, [d.group.size for d in parts]


def _widen(X, width: int):
    """CSR features with ``width`` columns (missing trailing features are 0)."""
    import scipy.sparse as sp

    return sp.csr_matrix(X, shape=(X.shape[0], width))


def _booster(path: str):
    """A LightGBM model file, checked complete before LightGBM reads it, or a
    :class:`RiskevalError` naming it (:func:`riskeval.ltr.read_model`)."""
    from riskeval.ltr.models import read_model

    return read_model(path)


def _check_output(path: str, inputs: list[str]) -> None:
    """Refuse, before any training, a model path whose folder does not exist, standard output
    (which carries the table), a path that is not a new path or a regular file, or an input."""
    from riskeval.errors import RiskevalError
    from riskeval.io.atomic import check_target, is_stdout, refuse_inputs

    if is_stdout(path):
        raise RiskevalError(
            f"Cannot save the model to {path}: standard output carries the table. Give a file."
        )
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise RiskevalError(f"Cannot save the model to {path}: the folder {folder} does not exist.")
    check_target(path)
    refuse_inputs(path, inputs)


@contextmanager
def _lightgbm_errors(command: str) -> Iterator[None]:
    """LightGBM's own errors (a parameter it refuses) as a :class:`RiskevalError`."""
    import lightgbm

    from riskeval.errors import RiskevalError

    try:
        yield
    except lightgbm.basic.LightGBMError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise RiskevalError(f"riskeval ltr {command}: LightGBM refused the training: {reason}") from None


def _baselines(data, baselines: Baselines, k: int):
    """Per-query NDCG@k of every baseline on ``data``: name → vector."""
    from riskeval.ltr.baselines import feature_column
    from riskeval.ltr.model_evaluation import ndcg_per_query

    out = {}
    for j in baselines.features:
        out[f"feature {j}"] = ndcg_per_query(feature_column(data.X, j), data.y, data.group, k=k)
    for path in baselines.models:
        booster = _booster(path)
        out[Path(path).stem] = ndcg_per_query(booster.predict(data.X), data.y, data.group, k=k)
    return out


COUNTS = ("Wins", "Losses", "Loss>20%")


def _emit_table7(frame, fmt: str) -> None:
    """Print a Table 7 frame.  Query counts are integers; in a ``macro`` block they are averages over
    the baselines, printed with one decimal in the text table, which says so below it."""
    import numpy as np

    from riskeval.ltr.model_evaluation import MACRO

    flat = frame.reset_index()
    macro = (flat["baseline"] == MACRO).to_numpy() if "baseline" in flat else np.zeros(len(flat), bool)
    counts = [c for c in COUNTS if c in flat]
    for column in counts:
        if fmt == "table":
            flat[column] = [
                f"{v:.1f}" if m else f"{int(v)}" for v, m in zip(flat[column], macro, strict=True)
            ]
        elif not macro.any():
            flat[column] = flat[column].astype(np.int64)
    emit(flat, fmt, groups=("baseline",))  # the models (each with its own α) against each baseline
    if fmt == "table" and counts and macro.any():
        click.echo(f"{MACRO}: each measure averaged over the baselines; {', '.join(counts)} are mean counts.")


def _progress_callback(total: int, progress: bool | None):
    """A progress bar on stderr (by default when it is a terminal), shown from the first tree (not
    for input that fails before)."""
    from tqdm.auto import tqdm

    bars: list[Any] = []

    def callback(env) -> None:
        if not (sys.stderr.isatty() if progress is None else progress):
            return
        if not bars:
            bars.append(tqdm(total=total, desc="boosting", unit="tree", file=sys.stderr))
        bars[0].update()
        if env.iteration + 1 >= env.end_iteration:
            bars[0].close()

    return callback


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
    from riskeval.ltr.models import write_model

    lgb_params, k = boosting.params, lambdamart["k"]
    inputs = [data, query_file, valid, *baselines.models]
    _check_output(output, [p for p in inputs if p])
    for path in baselines.models:
        _booster(path)  # a bad model file fails before the data is read and the model trained
    train_set, _ = _read([data], query_file)
    baseline = _training_baseline(objective, train_set, baselines, k)
    train_set, report, kwargs = _validation(train_set, valid, boosting.early_stopping, k, lgb_params)
    kwargs["callbacks"].insert(0, _progress_callback(boosting.rounds, progress))
    with _lightgbm_errors("train"):
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
    write_model(booster, output, inputs=tuple(p for p in inputs if p))
    click.echo(f"saved {escape_controls(output)} ({booster.current_iteration()} trees)", err=True)
    _emit_trained(Path(output).stem, booster, report, baselines, k, fmt)


def _emit_trained(name, booster, report, baselines: Baselines, k: int, fmt: str) -> None:
    """The Table 7 of a trained model on ``report`` against the baselines; without baselines,
    its mean NDCG@k."""
    import pandas as pd

    from riskeval.ltr.model_evaluation import ndcg_per_query, risk_profile

    model = {name: ndcg_per_query(booster.predict(report.X), report.y, report.group, k=k)}
    if baselines.features or baselines.models:
        _emit_table7(risk_profile(model, _baselines(report, baselines, k)).to_frame(), fmt)
    else:
        means = {"NDCG": [v.mean() for v in model.values()]}
        emit(pd.DataFrame(means, index=pd.Index(list(model), name="model")), fmt)


def _training_baseline(objective, data, baselines: Baselines, k: int):
    """What ``train`` learns against: nothing (lambdarank), the one feature, or the per-query
    NDCG@k of every baseline (systems × queries)."""
    import numpy as np

    from riskeval.errors import RiskevalError

    if objective == "lambdarank":
        return None
    if not baselines.features and not baselines.models:
        raise RiskevalError(f"--objective {objective} needs --baseline-feature or --baseline-model.")
    if len(set(baselines.features)) == 1 and not baselines.models:
        return baselines.features[0]
    return np.vstack(list(_baselines(data, baselines, k).values()))


def _validation(train_set, valid, early_stopping, k, lgb_params):
    """The set Table 7 is reported on (--valid, else DATA), the training set with as many columns,
    and the keywords of ``lightgbm.train`` that early-stop on --valid (``lgb_params`` then gets
    LightGBM's NDCG@k metric)."""
    import lightgbm

    from riskeval.errors import RiskevalError

    kwargs: dict[str, Any] = {"callbacks": []}
    if not valid:
        if early_stopping:
            raise RiskevalError("--early-stopping needs --valid.")
        return train_set, train_set, kwargs
    report, _ = _read([valid])
    width = max(report.X.shape[1], train_set.X.shape[1])
    train_set = train_set._replace(X=_widen(train_set.X, width))
    report = report._replace(X=_widen(report.X, width))
    if early_stopping:
        lgb_params.setdefault("metric", "ndcg")
        lgb_params.setdefault("eval_at", [k])
        kwargs["valid_sets"] = [lightgbm.Dataset(report.X, report.y, group=report.group)]
        kwargs["callbacks"].append(lightgbm.early_stopping(early_stopping, verbose=False))
    return train_set, report, kwargs


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
@opts.option("format")
def evaluate(
    data: str, query_file: str | None, models: tuple[str, ...], baselines: Baselines, k: int, fmt: str
) -> None:
    """Table 7 of models on DATA against baselines (Dinçer et al., SIGIR 2016): NDCG@k, Risk..."""

    from riskeval.errors import RiskevalError
    from riskeval.ltr.model_evaluation import ndcg_per_query, risk_profile

    if not baselines.features and not baselines.models:
        raise RiskevalError("Give at least one --baseline-feature or --baseline-model.")
    boosters = {Path(p).stem: _booster(p) for p in models}
    width = max(b.num_feature() for b in boosters.values())
    test, _ = _read([data], query_file, n_features=width)
    scored = {
        name: ndcg_per_query(b.predict(test.X), test.y, test.group, k=k) for name, b in boosters.items()
    }
    _emit_table7(risk_profile(scored, _baselines(test, baselines, k)).to_frame(), fmt)


def _parse_grid(items: tuple[str, ...]) -> dict[str, list[Any]] | None:
    """``--grid KEY=V1,V2`` (repeatable) or ``--grid default`` as a grid of LightGBM parameters."""
    from riskeval.errors import RiskevalError
    from riskeval.ltr.experiment import DEFAULT_GRID

    grid: dict[str, list[Any]] = {}
    for item in items:
        if item == "default":
            grid.update({key: list(values) for key, values in DEFAULT_GRID.items()})
            continue
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise RiskevalError(f"--grid must be KEY=V1,V2,... or 'default'; got {item!r}.")
        name = key.strip()
        grid[name] = [_parse_params((f"{name}={v}",))[name] for v in values.split(",") if v.strip()]
    return grid or None


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

    grid_values = _parse_grid(grid)
    dataset, parts = _experiment_data(data, folds_dir, folds_by_file, folds)
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
    with _lightgbm_errors("experiment"):
        result = setup.run(dataset.X, dataset.y, dataset.group)
    _emit_experiment(result, fmt, show_tests)


def _emit_experiment(result, fmt: str, show_tests: bool) -> None:
    """Table 7 of an experiment, then its tests; one of them in a machine format (``--tests``)."""
    if fmt == "table" or not show_tests:
        _emit_table7(result.to_frame(), fmt)
    if fmt == "table" or show_tests:
        if fmt == "table":
            k, alpha, correction = (result.settings[key] for key in ("k", "test_alpha", "correction"))
            over = f"{correction} over all rows" if correction else "none"
            click.echo(f"\nSignificance on NDCG@{k}, α = {alpha:g} (p_adj: {over}):")
        emit(result.tests, fmt)


def _names(text: str) -> list[str]:
    """The names of a comma list, blanks ignored."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _experiment_data(data, folds_dir, folds_by_file, folds):
    """The queries of ``experiment`` and their parts: the --folds-dir layout, one part per DATA
    file (--folds-by-file), or ``folds`` random parts."""
    import numpy as np

    from riskeval.errors import RiskevalError

    if folds_dir:
        if data or folds_by_file:
            raise RiskevalError("Give either --folds-dir or DATA files, not both.")
        from riskeval.ltr.folds import read_folds

        layout = read_folds(folds_dir)
        return layout.data, layout.part
    if not data:
        raise RiskevalError("Give DATA files or --folds-dir.")
    dataset, sizes = _read(list(data))
    if not folds_by_file:
        return dataset, folds
    if len(data) < 3:
        raise RiskevalError("--folds-by-file needs at least 3 DATA files.")
    return dataset, np.repeat(np.arange(len(sizes)), sizes)
