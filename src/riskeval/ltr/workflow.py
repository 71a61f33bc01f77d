"""The steps of a risk-sensitive LambdaMART run from files: LETOR data read and aligned, LightGBM
parameters and grids parsed from ``KEY=VALUE`` text, the baselines scored, the training baseline,
validation and early stopping, the parts of a k-fold experiment, and Table 7 ready to print
(Dinçer, Macdonald & Ounis, SIGIR 2014, §6, and SIGIR 2016, §6 and Table 7).

``riskeval ltr train``, ``evaluate`` and ``experiment`` are these steps around
:func:`riskeval.ltr.train`, :func:`riskeval.ltr.model_evaluation.risk_profile` and
:class:`riskeval.ltr.Experiment`.  numpy, scipy, LightGBM and tqdm are imported on use.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from riskeval import _display
from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.io.letor import LetorData

#: The query counts of Table 7 (SIGIR 2016): integers, or means over the baselines in a macro block.
COUNTS = ("Wins", "Losses", "Loss>20%")


class Baselines(NamedTuple):
    """The baselines a model is trained against or compared with: feature rankings (column indices)
    and LightGBM model files."""

    features: tuple[int, ...]
    models: tuple[str, ...]


class Boosting(NamedTuple):
    """The LightGBM parameters (checked), the boosting rounds and the early stopping of a training."""

    params: dict[str, Any]
    rounds: int
    early_stopping: int | None

    @classmethod
    def parse(cls, params: tuple[str, ...], rounds: int, early_stopping: int | None, func: str) -> Boosting:
        """The ``KEY=VALUE`` texts of ``params`` read (:func:`parse_params`) and checked
        (:func:`riskeval.ltr.check_lightgbm_params`, errors naming ``func``)."""
        from riskeval.ltr.lightgbm_params import check_lightgbm_params

        checked = parse_params(params)
        check_lightgbm_params(checked, func)
        return cls(checked, rounds, early_stopping)


#: LightGBM's threads when the command line's ``--param`` names none: one.  On a machine whose
#: cores are busy, LightGBM's default (one OpenMP thread per core, which spin while they wait for
#: work) used 2.4 times the CPU time of one thread for the same model, and twice its wall time
#: (docs/ltr.md, "Threads"); ``--param num_threads=0`` asks for LightGBM's default.
DEFAULT_THREADS = 1


def parse_params(items: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """LightGBM parameters from ``KEY=VALUE`` texts, each value an int, else a float, else the text;
    ``verbose`` is -1 and ``num_threads`` :data:`DEFAULT_THREADS` unless given (by any alias)."""
    from riskeval.ltr.objectives import _NUM_THREADS

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
    if not any(alias in params for alias in _NUM_THREADS):
        params["num_threads"] = DEFAULT_THREADS
    return params


def parse_grid(items: tuple[str, ...] | list[str]) -> dict[str, list[Any]] | None:
    """A grid of LightGBM parameters for :class:`riskeval.ltr.Experiment` from ``KEY=V1,V2`` texts
    (values read as :func:`parse_params` reads them) or ``default``
    (:data:`riskeval.ltr.experiment.DEFAULT_GRID`); ``None`` when empty."""
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
        grid[name] = [parse_params((f"{name}={v}",))[name] for v in values.split(",") if v.strip()]
    return grid or None


def read_letor_files(paths: list[str], query_file: str | None = None) -> tuple[LetorData, list[int]]:
    """One or more LETOR files as one set, feature columns aligned, and the number of queries of
    each file."""
    import numpy as np
    import scipy.sparse as sp

    from riskeval.io.letor import LetorData, read_letor

    parts = [read_letor(p, query_file=query_file if len(paths) == 1 else None) for p in paths]
    width = max(d.X.shape[1] for d in parts)
    X = sp.vstack([widen(d.X, width) for d in parts], format="csr")
    data = LetorData(
        X,
        np.concatenate([d.y for d in parts]),
        np.concatenate([d.group for d in parts]),
        None,
        ",".join(paths),
    )
    return data, [d.group.size for d in parts]


def widen(X: Any, width: int) -> Any:
    """CSR features with ``width`` columns (missing trailing features are 0)."""
    import scipy.sparse as sp

    return sp.csr_matrix(X, shape=(X.shape[0], width))


def model_scores(booster: Any, model: str, data: LetorData) -> Any:
    """The scores the LightGBM ``booster`` read from the file ``model`` gives the documents of
    ``data``.

    Data of fewer feature columns than the model was trained on is widened (a feature a LETOR line
    does not list is 0); data of more columns is an :class:`~riskeval.errors.InputFormatError`
    naming both files and both counts, as is any other refusal of LightGBM's, never LightGBM's own
    error.
    """
    from riskeval.ltr.model_evaluation import model_predict

    return model_predict(booster, data.X, model, data.path)


def check_model_target(path: str, inputs: list[str]) -> None:
    """Refuse, before any training, a model path whose folder does not exist, standard output
    (which carries the table), a path that is not a new path or a regular file, or an input."""
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
def lightgbm_errors(command: str) -> Iterator[None]:
    """LightGBM's own errors (a parameter it refuses) as a :class:`RiskevalError` naming
    ``riskeval ltr <command>``."""
    import lightgbm

    try:
        yield
    except lightgbm.basic.LightGBMError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise RiskevalError(f"riskeval ltr {command}: LightGBM refused the training: {reason}") from None


def baseline_ndcg(data: LetorData, baselines: Baselines, k: int) -> dict[str, Any]:
    """Per-query NDCG@k of every baseline on ``data``: ``feature <j>`` or the model file's stem →
    vector (SIGIR 2016, §6: the baselines of Table 7)."""
    from riskeval.ltr.baselines import feature_column
    from riskeval.ltr.model_evaluation import ndcg_per_query
    from riskeval.ltr.models import read_model

    out = {}
    for j in baselines.features:
        out[f"feature {j}"] = ndcg_per_query(feature_column(data.X, j), data.y, data.group, k=k)
    for path in baselines.models:
        out[Path(path).stem] = ndcg_per_query(
            model_scores(read_model(path), path, data), data.y, data.group, k=k
        )
    return out


def training_baseline(objective: str, data: LetorData, baselines: Baselines, k: int) -> Any:
    """What :func:`riskeval.ltr.train` learns ``objective`` against: nothing (lambdarank), the one
    feature, or the per-query NDCG@k of every baseline (systems × queries, as T*-FARO and GeoRisk
    take them: SIGIR 2016, §6)."""
    import numpy as np

    if objective == "lambdarank":
        return None
    if not baselines.features and not baselines.models:
        raise RiskevalError(f"--objective {objective} needs --baseline-feature or --baseline-model.")
    if len(set(baselines.features)) == 1 and not baselines.models:
        return baselines.features[0]
    return np.vstack(list(baseline_ndcg(data, baselines, k).values()))


def validation(
    train_set: LetorData, valid: str | None, early_stopping: int | None, k: int, params: dict[str, Any]
) -> tuple[LetorData, LetorData, dict[str, Any]]:
    """The training set with as many columns as ``valid``, the set Table 7 is reported on (``valid``,
    else the training set), and the keywords of ``lightgbm.train`` that early-stop on ``valid``
    (``params`` then gets LightGBM's NDCG@k metric)."""
    import lightgbm

    kwargs: dict[str, Any] = {"callbacks": []}
    if not valid:
        if early_stopping:
            raise RiskevalError("--early-stopping needs --valid.")
        return train_set, train_set, kwargs
    report, _ = read_letor_files([valid])
    width = max(report.X.shape[1], train_set.X.shape[1])
    train_set = train_set._replace(X=widen(train_set.X, width))
    report = report._replace(X=widen(report.X, width))
    if early_stopping:
        params.setdefault("metric", "ndcg")
        params.setdefault("eval_at", [k])
        kwargs["valid_sets"] = [lightgbm.Dataset(report.X, report.y, group=report.group)]
        kwargs["callbacks"].append(lightgbm.early_stopping(early_stopping, verbose=False))
    return train_set, report, kwargs


def progress_callback(total: int, progress: bool | None) -> Callable[[Any], None]:
    """A LightGBM callback drawing a progress bar of ``total`` trees on stderr (by default when it
    is a terminal), shown from the first tree (not for input that fails before)."""
    bars: list[Any] = []

    def callback(env: Any) -> None:
        if not (sys.stderr.isatty() if progress is None else progress):
            return
        if not bars:
            bars.append(_display.progress_bar(total=total, desc="boosting", unit="tree", file=sys.stderr))
        bars[0].update()
        if env.iteration + 1 >= env.end_iteration:
            bars[0].close()

    return callback


def trained_table(name: str, booster: Any, report: LetorData, baselines: Baselines, k: int) -> pd.DataFrame:
    """Table 7 (SIGIR 2016) of a trained model on ``report`` against the baselines; without
    baselines, its mean NDCG@k (one row, indexed by ``model``)."""
    import pandas as pd

    from riskeval.ltr.model_evaluation import ndcg_per_query, risk_profile

    model = {name: ndcg_per_query(booster.predict(report.X), report.y, report.group, k=k)}
    if baselines.features or baselines.models:
        return risk_profile(model, baseline_ndcg(report, baselines, k)).to_frame()
    means = {"NDCG": [v.mean() for v in model.values()]}
    return pd.DataFrame(means, index=pd.Index(list(model), name="model"))


def models_table(data: str, query_file: str | None, models: tuple[str, ...], baselines: Baselines, k: int):
    """Table 7 (SIGIR 2016) of LightGBM model files on the LETOR file ``data`` against the
    baselines."""
    from riskeval.ltr.model_evaluation import ndcg_per_query, risk_profile
    from riskeval.ltr.models import read_model

    if not baselines.features and not baselines.models:
        raise RiskevalError("Give at least one --baseline-feature or --baseline-model.")
    boosters = {path: read_model(path) for path in models}  # bad model files fail before the data is read
    test, _ = read_letor_files([data], query_file)
    scored = {
        Path(path).stem: ndcg_per_query(model_scores(booster, path, test), test.y, test.group, k=k)
        for path, booster in boosters.items()
    }
    return risk_profile(scored, baseline_ndcg(test, baselines, k)).to_frame()


def experiment_data(
    data: tuple[str, ...], folds_dir: str | None, folds_by_file: bool, folds: int
) -> tuple[LetorData, Any]:
    """The queries of an experiment and its ``folds``: the Fold1..FoldK layout of ``folds_dir``
    (:func:`riskeval.ltr.folds.read_folds`), one part per ``data`` file (``folds_by_file``), or
    ``folds`` random parts."""
    import numpy as np

    if folds_dir:
        if data or folds_by_file:
            raise RiskevalError("Give either --folds-dir or DATA files, not both.")
        from riskeval.ltr.folds import read_folds

        layout = read_folds(folds_dir)
        return layout.data, layout.part
    if not data:
        raise RiskevalError("Give DATA files or --folds-dir.")
    dataset, sizes = read_letor_files(list(data))
    if not folds_by_file:
        return dataset, folds
    if len(data) < 3:
        raise RiskevalError("--folds-by-file needs at least 3 DATA files.")
    return dataset, np.repeat(np.arange(len(sizes)), sizes)


def table7_for_print(frame: pd.DataFrame, text: bool) -> tuple[pd.DataFrame, str | None]:
    """A Table 7 frame flat, its query counts as integers; in a ``macro`` block they are averages
    over the baselines, written with one decimal when ``text`` (a text table, then with the note
    under it that says so) and kept as floats otherwise."""
    import numpy as np

    from riskeval.ltr.model_evaluation import MACRO

    flat = frame.reset_index()
    macro = (flat["baseline"] == MACRO).to_numpy() if "baseline" in flat else np.zeros(len(flat), bool)
    counts = [c for c in COUNTS if c in flat]
    for column in counts:
        if text:
            flat[column] = [
                f"{v:.1f}" if m else f"{int(v)}" for v, m in zip(flat[column], macro, strict=True)
            ]
        elif not macro.any():
            flat[column] = flat[column].astype(np.int64)
    if not (text and counts and macro.any()):
        return flat, None
    return flat, f"{MACRO}: each measure averaged over the baselines; {', '.join(counts)} are mean counts."


def tests_heading(result: Any) -> str:
    """The line above the significance tests of an :class:`riskeval.ltr.ExperimentResult`: NDCG@k,
    the α of the tests and the correction of the p-values over all rows."""
    k, alpha, correction = (result.settings[key] for key in ("k", "test_alpha", "correction"))
    over = f"{correction} over all rows" if correction else "none"
    return f"Significance on NDCG@{k}, α = {alpha:g} (p_adj: {over}):"
