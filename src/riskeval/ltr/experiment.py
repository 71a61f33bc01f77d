"""A k-fold learning-to-rank experiment in the papers' protocol (Dinçer, Macdonald & Ounis, SIGIR 2014,
§6.4; SIGIR 2016, §6.1).

1. Optionally hold out a share of the queries to pre-train *learned baselines* (two thirds for
   training, one third for validation), as the SIGIR 2016 paper does with four learners; they never
   see the other queries.
2. Split the remaining queries into ``folds`` parts.  Fold i tests on part i, validates on part
   i − 1 and trains on the rest (3/1/1 with five parts: MSLR-Web10K's rotation).
3. Train every objective at every α on each fold's training queries.  Each model is selected on the
   fold's validation queries: early stopping on validation NDCG@k and, with a ``grid``, the grid
   point of highest validation NDCG@k (the papers tuned LightGBM's parameters per fold on
   validation NDCG@10).  Then score the fold's test queries, so that every query is tested once.
4. Report Table 7 (:mod:`riskeval.ltr.model_evaluation`) with the mean test NDCG at 1 and 10
   whatever the objectives' cut-off: against the feature baseline (e.g. BM25) and, macro-averaged,
   against the learned baselines; and the significance of every model against plain LambdaMART and
   against every baseline: TRisk (SIGIR 2014, eq. 13) and the randomisation test of URisk
   (:func:`riskeval.permutation_test`), with a multiple-testing correction over all the tests.

U-CRO, T-SARO and T-FARO learn against the feature baseline; T*-FARO and GeoRisk against the
learned baselines when there are some (else against the feature).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.ltr.baselines import feature_column, ranking_ndcg
from riskeval.ltr.groups import check_labels, label_gains, query_bounds
from riskeval.ltr.model_evaluation import RiskProfile, risk_profile
from riskeval.ltr.objectives import OBJECTIVES
from riskeval.ltr.options import LEARNERS, OBJECTIVE_NAMES, check_ltr_options
from riskeval.options import check_alpha, check_alphas, check_correction, check_option

DEFAULT_PARAMS = {"num_leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20, "verbose": -1}

#: A small grid for per-fold model selection (``grid=DEFAULT_GRID``, ``--grid default``): two
#: learning rates around the papers' 0.075 and 0.1, and two tree sizes up to the papers' 50 leaves.
DEFAULT_GRID: dict[str, tuple[Any, ...]] = {"learning_rate": (0.05, 0.1), "num_leaves": (15, 50)}

#: Cut-offs of the mean test NDCG reported beside Table 7, whatever the objectives' k.
EVAL_AT = (1, 10)

# LightGBM parameters that the training Dataset is built with: a grid over one of them needs the
# Dataset's feature pre-filter off (LightGBM refuses to change them on a built Dataset otherwise)
_LEAF_SIZE = ("min_data_in_leaf", "min_child_samples", "min_data_per_leaf", "min_data", "min_samples_leaf")


@dataclass(frozen=True)
class ExperimentResult:
    """Per-query test effectiveness of every model and baseline, Table 7 and the tests.

    ``ndcg`` has one row per system (models named ``"<objective> a=<α>"``, baselines by name) and
    one column per tested query (query index in the input): NDCG@k, the measure of Table 7 and of
    the tests; ``ndcg_at`` holds the same at the cut-offs of :data:`EVAL_AT`.  ``models`` maps each
    model name to its (objective, α).  ``tests``: one row per (model, compared with), see
    :func:`run_experiment`.  ``selected``: per model and fold, the grid point chosen, its boosting
    rounds and its validation NDCG@k.
    """

    ndcg: pd.DataFrame
    profile: RiskProfile
    models: dict[str, tuple[str, float]]
    baselines: tuple[str, ...]
    ndcg_at: dict[int, pd.DataFrame] = field(default_factory=dict)
    tests: pd.DataFrame = field(default_factory=pd.DataFrame)
    selected: pd.DataFrame = field(default_factory=pd.DataFrame)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """Table 7: rows (baseline block, objective, α); the mean test NDCG at 1 and 10 (and k),
        then Reward, Risk, Reward/Risk, Wins, Losses, W/L and Loss>20% on NDCG@k."""
        k = self.settings.get("k", 10)
        wide = self.profile.to_frame().reset_index()
        models = wide["model"]
        wide = wide.drop(columns="NDCG")
        means = {f"NDCG@{c}": frame.mean(axis=1) for c, frame in sorted(self.ndcg_at.items())}
        means.setdefault(f"NDCG@{k}", self.ndcg.mean(axis=1))
        for i, (name, values) in enumerate(sorted(means.items(), key=lambda kv: int(kv[0][5:]))):
            wide.insert(2 + i, name, values.reindex(models).to_numpy())
        wide.insert(2, "objective", [OBJECTIVES[self.models[m][0]].title for m in models])
        wide.insert(3, "alpha", [self.models[m][1] for m in models])
        return wide.drop(columns="model").set_index(["baseline", "objective", "alpha"])


def _rows(bounds: np.ndarray, queries: np.ndarray) -> np.ndarray:
    return np.concatenate([np.arange(bounds[q], bounds[q + 1]) for q in queries])


def _subset(X: Any, rows: np.ndarray) -> Any:
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _learner(name: str, params: dict, rounds: int):
    """Train function (X, y, group, valid) -> predictor for one learned baseline."""
    import lightgbm

    def boosted(objective: str):
        def fit(X, y, group, valid):
            p = {**params, "objective": objective}
            if objective != "regression":
                p.setdefault("metric", "ndcg")
            train_set = lightgbm.Dataset(X, y, group=group)
            valid_set = lightgbm.Dataset(valid[0], valid[1], group=valid[2], reference=train_set)
            return lightgbm.train(
                p,
                train_set,
                rounds,
                valid_sets=[valid_set],
                callbacks=[lightgbm.early_stopping(max(rounds // 10, 5), verbose=False)],
            )

        return fit

    def linear(X, y, group, valid):
        dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
        mean, sd = dense.mean(axis=0), dense.std(axis=0)
        sd[sd == 0] = 1.0
        Z = np.column_stack([(dense - mean) / sd, np.ones(dense.shape[0])])
        coef = np.linalg.solve(Z.T @ Z + np.eye(Z.shape[1]), Z.T @ y)  # ridge, λ = 1

        class Linear:
            def predict(self, A):
                A = A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=np.float64)
                return ((A - mean) / sd) @ coef[:-1] + coef[-1]

        return Linear()

    return {
        "lambdamart": boosted("lambdarank"),
        "gbrt": boosted("regression"),
        "xendcg": boosted("rank_xendcg"),
        "linear": linear,
    }[name]


def _check_int(value: Any, name: str, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise RiskevalError(
            f"The '{name}' parameter of run_experiment must be an integer >= {minimum}. Got {value!r}."
        )


def grid_points(grid: Mapping[str, Sequence[Any]] | None) -> list[dict[str, Any]]:
    """Every combination of a grid ``{parameter: values}`` ({} for no grid), in a fixed order."""
    if not grid:
        return [{}]
    if not isinstance(grid, Mapping):
        raise RiskevalError(
            "The 'grid' parameter of run_experiment must map LightGBM parameters to lists of values."
        )
    keys = sorted(grid)
    values = []
    for key in keys:
        choices = grid[key]
        if isinstance(choices, (str, bytes)) or not isinstance(choices, Sequence) or not choices:
            raise RiskevalError(
                f"The grid must give each parameter a non-empty list of values; {key!r} has {choices!r}."
            )
        values.append(list(choices))
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def _fit(params: dict, train_set: Any, fobj: Any, rounds: int, valid_set: Any, stopping: int | None) -> Any:
    """One booster on a fold's training Dataset, early-stopped on its validation Dataset."""
    import lightgbm

    kwargs: dict[str, Any] = {}
    if stopping:
        kwargs["valid_sets"] = [valid_set]
        kwargs["callbacks"] = [lightgbm.early_stopping(stopping, verbose=False)]
    return lightgbm.train({**params, "objective": fobj}, train_set, rounds, **kwargs)


def significance(
    ndcg: pd.DataFrame,
    models: Sequence[str],
    against: Sequence[str],
    *,
    alpha: float = 1.0,
    correction: str | None = "holm",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> pd.DataFrame:
    """TRisk and the randomisation test of every model against every system of ``against`` (itself
    excepted), on the per-query values of ``ndcg`` (systems × queries).

    Columns: ``URisk`` (at ``alpha``), ``TRisk`` and its two-sided ``p`` (Student t; Dinçer,
    Macdonald & Ounis, SIGIR 2014, eq. 13), ``p_perm`` (sign-flip randomisation test of URisk,
    :func:`riskeval.permutation_test`, ``n_resamples`` with ``seed``; 0 resamples: not run) and the
    same p-values adjusted by ``correction`` over all the rows (``p_adj``, ``p_perm_adj``).
    """
    from riskeval.inference.permutation import permutation_test
    from riskeval.measures.paired import trisk

    rows = []
    for model in models:
        for other in against:
            if other == model:
                continue
            s, b = ndcg.loc[model].to_numpy(), ndcg.loc[other].to_numpy()
            t = trisk(s, b, alpha)
            perm = (
                permutation_test(s, b, alpha=alpha, n_resamples=n_resamples, rng=seed).pvalue
                if n_resamples
                else np.nan
            )
            rows.append(
                {
                    "model": model,
                    "against": other,
                    "URisk": t.urisk,
                    "TRisk": t.statistic,
                    "p": t.pvalue,
                    "p_perm": perm,
                }
            )
    frame = pd.DataFrame(rows, columns=["model", "against", "URisk", "TRisk", "p", "p_perm"])
    if correction is not None and len(frame):
        from riskeval.core.corrections import adjust_pvalues

        frame["p_adj"] = adjust_pvalues(frame["p"].to_numpy(), correction)
        frame["p_perm_adj"] = adjust_pvalues(frame["p_perm"].to_numpy(), correction)
    return frame.set_index(["model", "against"])


def run_experiment(
    X: Any,
    y: Any,
    group: Any = None,
    *,
    qid: Any = None,
    objectives: Sequence[str] = OBJECTIVE_NAMES,
    alphas: Sequence[float] = (1.0, 5.0),
    baseline_feature: Any = None,
    learned_baselines: Sequence[str] = (),
    holdout: float = 0.2,
    folds: int | Sequence[int] = 5,
    params: dict | None = None,
    num_boost_round: int = 100,
    early_stopping_rounds: int | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
    k: int = 10,
    se: str = "first",
    georisk_update: str = "first_order",
    variant: str = "paper",
    test_alpha: float = 1.0,
    correction: str | None = "holm",
    n_resamples: int = 10_000,
    seed: int = 0,
    progress: bool = False,
) -> ExperimentResult:
    """Run the k-fold experiment described in the module docstring.

    ``folds`` is the number of parts (queries assigned at random with ``seed``) or one part
    number per query (e.g. MSLR-Web10K's S1–S5 subsets, see :func:`riskeval.ltr.folds.read_folds`).
    ``lambdarank`` is run once, as α = 0; the others at every α in ``alphas``.  ``learned_baselines``
    names learners from ``LEARNERS`` trained on the ``holdout`` share of the queries.  ``params`` are
    LightGBM parameters for every model (default ``DEFAULT_PARAMS``); ``grid`` maps LightGBM
    parameters to values tried per fold and model (e.g. :data:`DEFAULT_GRID`), the best on the
    validation part kept; ``early_stopping_rounds`` stops each model when validation NDCG@k has not
    improved for that many rounds.  ``se``, ``georisk_update`` and ``variant`` are those of
    :func:`riskeval.ltr.train`.

    Significance (``result.tests``): every model against LambdaMART (when run) and against every
    baseline system, on the test NDCG@k: TRisk at α = ``test_alpha`` and the randomisation test
    (``n_resamples``, 0 to skip it), p-values adjusted by ``correction`` (``"holm"``, ``"bh"``,
    ``"bonferroni"`` or ``None``) over all those tests.
    """
    import lightgbm
    from tqdm.auto import tqdm

    from riskeval.ltr.training import make_objective

    func = "run_experiment"
    params = dict(DEFAULT_PARAMS if params is None else params)
    alphas = [float(a) for a in check_alphas(alphas, func)]
    if isinstance(objectives, str) or not objectives:
        raise RiskevalError("The 'objectives' parameter of run_experiment must list at least one objective.")
    objectives = [check_option(o, OBJECTIVE_NAMES, func, "objectives") for o in objectives]
    if isinstance(learned_baselines, str):
        learned_baselines = [learned_baselines]
    learned_baselines = [
        check_option(name, LEARNERS, func, "learned_baselines") for name in learned_baselines
    ]
    _, se, georisk_update, variant = check_ltr_options(
        func, se=se, georisk_update=georisk_update, variant=variant
    )
    test_alpha = check_alpha(test_alpha, func)
    correction = check_correction(correction, func)
    points = grid_points(grid)
    _check_int(num_boost_round, "num_boost_round", 1)
    _check_int(k, "k", 1)
    _check_int(n_resamples, "n_resamples", 0)
    if early_stopping_rounds is not None:
        _check_int(early_stopping_rounds, "early_stopping_rounds", 1)
    gains = label_gains(params.get("label_gain"))
    labels = check_labels(y, gains)
    bounds = query_bounds(group, qid, n_docs=labels.shape[0])
    sizes = np.diff(bounds)
    nq = bounds.shape[0] - 1
    rng = np.random.default_rng(seed)
    needs_feature = {"ucro", "tsaro", "tfaro"} & set(objectives)
    if needs_feature and baseline_feature is None:
        raise RiskevalError(
            f"{sorted(needs_feature)} learn against a baseline feature: give "
            "baseline_feature (e.g. MSLR's BM25 feature, 110)."
        )
    if not learned_baselines and baseline_feature is None:
        raise RiskevalError("Give a baseline_feature or learned_baselines to compare against.")

    # 1. the queries of the learned baselines
    if learned_baselines:
        if not 0 < holdout < 1:
            raise RiskevalError(f"holdout must be strictly between 0 and 1; got {holdout!r}.")
        held = np.sort(rng.permutation(nq)[: max(3, int(round(holdout * nq)))])
    else:
        held = np.array([], dtype=np.int64)
    main = np.setdiff1d(np.arange(nq), held)

    # 2. folds of the main queries
    if isinstance(folds, (int, np.integer)) and not isinstance(folds, bool):
        n_parts = int(folds)
        if n_parts < 3 or main.size < n_parts:
            raise RiskevalError(
                f"folds must be >= 3 and at most the number of queries ({main.size}); got {folds}."
            )
        part = np.full(nq, -1, dtype=np.int64)
        part[main] = rng.permutation(main.size) % n_parts
    else:
        given = np.asarray(folds)
        if given.shape != (nq,):
            raise RiskevalError(f"folds must give one part number per query ({nq}); got shape {given.shape}.")
        values, part = np.unique(given, return_inverse=True)
        n_parts = values.size
        if n_parts < 3:
            raise RiskevalError(f"folds must have at least 3 parts; got {n_parts}.")
        part[held] = -1

    column = None if baseline_feature is None else feature_column(X, baseline_feature)
    cutoffs = sorted(set(EVAL_AT) | {int(k)})
    systems: dict[int, dict[str, np.ndarray]] = {c: {} for c in cutoffs}  # per-query NDCG@c, all queries
    feature_name = f"feature {baseline_feature}"
    if column is not None:
        for c in cutoffs:
            systems[c][feature_name] = ranking_ndcg(column, labels, bounds, c, gains)
    jobs = [("lambdarank", 0.0)] if "lambdarank" in objectives else []
    jobs += [(o, a) for o in objectives if o != "lambdarank" for a in alphas]
    bar = tqdm(
        total=len(learned_baselines) + n_parts * len(jobs) * len(points),
        disable=not progress,
        desc="training",
        unit="model",
    )

    # the learned baselines, scored on every query
    if learned_baselines:
        cut = max(1, (2 * held.size) // 3)
        tr, va = held[:cut], held[cut:]
        for name in learned_baselines:
            fit = _learner(name, params, num_boost_round)
            rows_tr, rows_va = _rows(bounds, tr), _rows(bounds, va)
            model = fit(
                _subset(X, rows_tr),
                labels[rows_tr],
                sizes[tr],
                (_subset(X, rows_va), labels[rows_va], sizes[va]),
            )
            scores = np.asarray(model.predict(X), dtype=np.float64)
            for c in cutoffs:
                systems[c][name] = ranking_ndcg(scores, labels, bounds, c, gains)
            bar.update()
    learned = np.vstack([systems[k][name] for name in learned_baselines]) if learned_baselines else None
    feature_row = None if column is None else systems[k][feature_name]

    # 3. the folds
    names = {(o, a): f"{o} a={a:g}" for o, a in jobs}
    test_ndcg = {c: {name: np.full(nq, np.nan) for name in names.values()} for c in cutoffs}
    chosen = []
    base = {key: value for key, value in params.items() if key != "objective"}
    if early_stopping_rounds:
        base.update(metric="ndcg", eval_at=[int(k)])
    dataset_params = {"verbose": -1, **base}
    if any(key in _LEAF_SIZE for key in (grid or {})):
        dataset_params["feature_pre_filter"] = False
    for i in range(n_parts):
        test_q = np.flatnonzero(part == i)
        valid_q = np.flatnonzero(part == (i - 1) % n_parts)
        train_q = np.flatnonzero((part >= 0) & (part != i) & (part != (i - 1) % n_parts))
        rows_tr, rows_va, rows_te = (_rows(bounds, q) for q in (train_q, valid_q, test_q))
        X_tr, X_va, X_te = _subset(X, rows_tr), _subset(X, rows_va), _subset(X, rows_te)
        bounds_va = np.concatenate([[0], np.cumsum(sizes[valid_q])])
        bounds_te = np.concatenate([[0], np.cumsum(sizes[test_q])])
        train_set = lightgbm.Dataset(
            X_tr, labels[rows_tr], group=sizes[train_q], params=dataset_params, free_raw_data=False
        )
        valid_set = lightgbm.Dataset(X_va, labels[rows_va], group=sizes[valid_q], reference=train_set)
        for objective, alpha in jobs:
            kind = OBJECTIVES[objective].baseline
            if kind == "none":
                baseline = None
            elif kind == "single" or learned is None:
                assert feature_row is not None  # checked above: a feature or learned baselines
                baseline = feature_row[train_q]
            else:
                baseline = learned[:, train_q]
            best: tuple[float, dict[str, Any], Any] | None = None
            for point in points:
                fold_params = {**base, **point}
                fobj = make_objective(
                    fold_params,
                    X_tr,
                    labels[rows_tr],
                    sizes[train_q],
                    objective=objective,
                    alpha=alpha,
                    baseline=baseline,
                    k=k,
                    se=se,
                    georisk_update=georisk_update,
                    variant=variant,
                )
                booster = _fit(
                    fold_params, train_set, fobj, num_boost_round, valid_set, early_stopping_rounds
                )
                bar.update()
                if len(points) == 1:
                    best = (np.nan, point, booster)
                    break
                scores = booster.predict(X_va, num_iteration=booster.best_iteration or None)
                value = float(
                    ranking_ndcg(
                        np.asarray(scores, dtype=np.float64), labels[rows_va], bounds_va, k, gains
                    ).mean()
                )
                if best is None or value > best[0]:
                    best = (value, point, booster)
            assert best is not None
            value, point, booster = best
            rounds = booster.best_iteration or booster.current_iteration()
            scores = np.asarray(booster.predict(X_te, num_iteration=rounds), dtype=np.float64)
            name = names[(objective, alpha)]
            for c in cutoffs:
                test_ndcg[c][name][test_q] = ranking_ndcg(scores, labels[rows_te], bounds_te, c, gains)
            chosen.append({"model": name, "fold": i, **point, "rounds": rounds, "valid_ndcg": value})
    bar.close()

    # 4. Table 7 and the tests over the tested queries
    tested = main
    query_index = pd.Index(tested.astype(str), name="query")

    def frame_at(c: int) -> pd.DataFrame:
        models = pd.DataFrame({n: v[tested] for n, v in test_ndcg[c].items()}).T
        baselines = pd.DataFrame({n: v[tested] for n, v in systems[c].items()}).T
        out = pd.concat([models, baselines])
        out.columns = query_index
        return out

    ndcg_at = {c: frame_at(c) for c in cutoffs}
    ndcg = ndcg_at[k]
    model_names = list(names.values())
    baseline_names = list(systems[k])
    frames = []
    if column is not None:
        frames.append(risk_profile(ndcg.loc[model_names], ndcg.loc[[feature_name]]).long)
    if learned_baselines:
        long = risk_profile(ndcg.loc[model_names], ndcg.loc[list(learned_baselines)]).long
        if len(learned_baselines) > 1:
            long = long[long["baseline"] == "macro"]
        frames.append(long)
    profile = RiskProfile(pd.concat(frames, ignore_index=True), tuple(baseline_names))
    plain = [names[("lambdarank", 0.0)]] if ("lambdarank", 0.0) in names else []
    tests = significance(
        ndcg,
        model_names,
        plain + baseline_names,
        alpha=test_alpha,
        correction=correction,
        n_resamples=int(n_resamples),
        seed=seed,
    )
    return ExperimentResult(
        ndcg=ndcg,
        profile=profile,
        models={name: job for job, name in names.items()},
        baselines=tuple(baseline_names),
        ndcg_at={c: ndcg_at[c] for c in cutoffs},
        tests=tests,
        selected=pd.DataFrame(chosen).set_index(["model", "fold"]),
        settings={
            "folds": n_parts,
            "holdout_queries": int(held.size),
            "k": int(k),
            "seed": seed,
            "num_boost_round": num_boost_round,
            "early_stopping_rounds": early_stopping_rounds,
            "grid": {key: list(v) for key, v in (grid or {}).items()},
            "params": params,
            "variant": variant,
            "test_alpha": test_alpha,
            "correction": correction,
            "n_resamples": int(n_resamples),
        },
    )
