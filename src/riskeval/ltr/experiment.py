"""A k-fold learning-to-rank experiment in the papers' protocol (Dinçer, Macdonald & Ounis, SIGIR 2014,
§6.4; SIGIR 2016, §6.1).

1. Optionally hold out a share of the queries to pre-train *learned baselines* (two thirds for
   training, one third for validation), as the SIGIR 2016 paper does with four learners; they never see the
   other queries.
2. Split the remaining queries into ``folds`` parts.  Fold i tests on part i, validates on part
   i − 1 and trains on the rest (3/1/1 with five parts: MSLR-Web10K's rotation).
3. Train every objective at every α on each fold's training queries (early stopping on the
   validation queries when asked) and score its test queries, so that every query is tested once.
4. Report Table 7 (:mod:`riskeval.ltr.model_evaluation`): against the feature baseline (e.g. BM25) and,
   macro-averaged, against the learned baselines.

U-CRO, T-SARO and T-FARO learn against the feature baseline; T*-FARO and GeoRisk against the
learned baselines when there are some (else against the feature).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.ltr.baselines import feature_column, ranking_ndcg
from riskeval.ltr.groups import check_labels, label_gains, query_bounds
from riskeval.ltr.model_evaluation import RiskProfile, risk_profile
from riskeval.ltr.objectives import OBJECTIVES
from riskeval.ltr.options import LEARNERS, OBJECTIVE_NAMES
from riskeval.options import check_alphas, check_option

DEFAULT_PARAMS = {"num_leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20, "verbose": -1}


@dataclass(frozen=True)
class ExperimentResult:
    """Per-query test NDCG@k of every model and baseline, and their :class:`RiskProfile`.

    ``ndcg`` has one row per system (models named ``"<objective> a=<α>"``, baselines by name) and
    one column per evaluated query (query index in the input).  ``models`` maps each model name to
    its (objective, α).
    """

    ndcg: pd.DataFrame
    profile: RiskProfile
    models: dict[str, tuple[str, float]]
    baselines: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """Table 7: rows (baseline block, model), with the objective and α of each model."""
        wide = self.profile.to_frame().reset_index()
        wide.insert(2, "objective", [OBJECTIVES[self.models[m][0]].title for m in wide["model"]])
        wide.insert(3, "alpha", [self.models[m][1] for m in wide["model"]])
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


def run_experiment(
    X: Any,
    y: Any,
    group: Any = None,
    *,
    qid: Any = None,
    objectives: Sequence[str] = ("lambdarank", "ucro", "tsaro", "tfaro", "tstar_faro", "georisk"),
    alphas: Sequence[float] = (1.0, 5.0),
    baseline_feature: Any = None,
    learned_baselines: Sequence[str] = (),
    holdout: float = 0.2,
    folds: int | Sequence[int] = 5,
    params: dict | None = None,
    num_boost_round: int = 100,
    early_stopping_rounds: int | None = None,
    k: int = 10,
    se: str = "first",
    georisk_update: str = "first_order",
    seed: int = 0,
    progress: bool = False,
) -> ExperimentResult:
    """Run the k-fold experiment described in the module docstring.

    ``folds`` is the number of parts (queries assigned at random with ``seed``) or one part
    number per query (e.g. MSLR-Web10K's S1–S5 subsets, see docs/ltr.md).  ``lambdarank`` is run
    once, as α = 0; the others at every α in ``alphas``.  ``learned_baselines`` names learners
    from ``LEARNERS`` trained on the ``holdout`` share of the queries.  ``params`` are LightGBM
    parameters for every model (default ``DEFAULT_PARAMS``).
    """
    from tqdm.auto import tqdm

    from riskeval.ltr.training import train

    params = dict(DEFAULT_PARAMS if params is None else params)
    alphas = [float(a) for a in check_alphas(alphas, "run_experiment")]
    if isinstance(objectives, str) or not objectives:
        raise RiskevalError("The 'objectives' parameter of run_experiment must list at least one objective.")
    objectives = [check_option(o, OBJECTIVE_NAMES, "run_experiment", "objectives") for o in objectives]
    if isinstance(learned_baselines, str):
        learned_baselines = [learned_baselines]
    learned_baselines = [
        check_option(name, LEARNERS, "run_experiment", "learned_baselines") for name in learned_baselines
    ]
    gains = label_gains(params.get("label_gain"))
    labels = check_labels(y, gains)
    bounds = query_bounds(group, qid, n_docs=labels.shape[0])
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
    if isinstance(folds, (int, np.integer)):
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
    systems: dict[str, np.ndarray] = {}  # per-query NDCG@k over all queries
    if column is not None:
        systems[f"feature {baseline_feature}"] = ranking_ndcg(column, labels, bounds, k, gains)
    jobs = [("lambdarank", 0.0)] if "lambdarank" in objectives else []
    jobs += [(o, a) for o in objectives if o != "lambdarank" for a in alphas]
    bar = tqdm(
        total=len(learned_baselines) + n_parts * len(jobs),
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
                np.diff(bounds)[tr],
                (_subset(X, rows_va), labels[rows_va], np.diff(bounds)[va]),
            )
            systems[name] = ranking_ndcg(
                np.asarray(model.predict(X), dtype=np.float64), labels, bounds, k, gains
            )
            bar.update()
    learned = np.vstack([systems[name] for name in learned_baselines]) if learned_baselines else None
    feature_row = None if column is None else systems[f"feature {baseline_feature}"]

    # 3. the folds
    names = {(o, a): f"{o} a={a:g}" for o, a in jobs}
    test_ndcg = {name: np.full(nq, np.nan) for name in names.values()}
    for i in range(n_parts):
        test_q = np.flatnonzero(part == i)
        valid_q = np.flatnonzero(part == (i - 1) % n_parts)
        train_q = np.flatnonzero((part >= 0) & (part != i) & (part != (i - 1) % n_parts))
        rows_tr, rows_va, rows_te = (_rows(bounds, q) for q in (train_q, valid_q, test_q))
        X_tr, X_te = _subset(X, rows_tr), _subset(X, rows_te)
        kwargs: dict[str, Any] = {"num_boost_round": num_boost_round}
        if early_stopping_rounds:
            import lightgbm

            fold_params = {**params, "metric": "ndcg", "eval_at": [k]}
            kwargs["valid_sets"] = [
                lightgbm.Dataset(_subset(X, rows_va), labels[rows_va], group=np.diff(bounds)[valid_q])
            ]
            kwargs["callbacks"] = [lightgbm.early_stopping(early_stopping_rounds, verbose=False)]
        else:
            fold_params = params
        for objective, alpha in jobs:
            kind = OBJECTIVES[objective].baseline
            if kind == "none":
                baseline = None
            elif kind == "single" or learned is None:
                assert feature_row is not None  # checked above: a feature or learned baselines
                baseline = feature_row[train_q]
            else:
                baseline = learned[:, train_q]
            booster = train(
                fold_params,
                X_tr,
                labels[rows_tr],
                np.diff(bounds)[train_q],
                objective=objective,
                alpha=alpha,
                baseline=baseline,
                k=k,
                se=se,
                georisk_update=georisk_update,
                **kwargs,
            )
            scores = booster.predict(X_te, num_iteration=booster.best_iteration or None)
            test_bounds = np.concatenate([[0], np.cumsum(np.diff(bounds)[test_q])])
            test_ndcg[names[(objective, alpha)]][test_q] = ranking_ndcg(
                np.asarray(scores, dtype=np.float64), labels[rows_te], test_bounds, k, gains
            )
            bar.update()
    bar.close()

    # 4. Table 7 over the tested queries
    tested = main
    models = pd.DataFrame({n: v[tested] for n, v in test_ndcg.items()}).T
    base = pd.DataFrame({n: v[tested] for n, v in systems.items()}).T
    frames = []
    if column is not None:
        frames.append(risk_profile(models, base.loc[[f"feature {baseline_feature}"]]).long)
    if learned_baselines:
        long = risk_profile(models, base.loc[list(learned_baselines)]).long
        if len(learned_baselines) > 1:
            long = long[long["baseline"] == "macro"]
        frames.append(long)
    profile = RiskProfile(pd.concat(frames, ignore_index=True), tuple(base.index))
    ndcg = pd.concat([models, base])
    ndcg.columns = pd.Index(tested.astype(str), name="query")
    return ExperimentResult(
        ndcg=ndcg,
        profile=profile,
        models={name: job for job, name in names.items()},
        baselines=tuple(base.index),
        settings={
            "folds": n_parts,
            "holdout_queries": int(held.size),
            "k": k,
            "seed": seed,
            "num_boost_round": num_boost_round,
            "params": params,
        },
    )
