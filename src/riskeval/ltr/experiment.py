"""A k-fold learning-to-rank experiment in the papers' protocol (Dinçer, Macdonald & Ounis, SIGIR 2014,
§6.4; SIGIR 2016, §6.1), held in one :class:`Experiment`.

1. Optionally hold out a share of the queries to pre-train *learned baselines* (two thirds for
   training, one third for validation), as the SIGIR 2016 paper does with four learners; they never
   see the other queries (:meth:`Experiment.split`, :meth:`Experiment.baselines`).
2. Split the remaining queries into ``folds`` parts.  Fold i tests on part i, validates on part
   i − 1 and trains on the rest (3/1/1 with five parts: MSLR-Web10K's rotation).
3. Train every objective at every α on each fold's training queries (:meth:`Experiment.fit`).  Each
   model is selected on the fold's validation queries: early stopping on validation NDCG@k and,
   with a ``grid``, the grid point of highest validation NDCG@k (the papers tuned LightGBM's
   parameters per fold on validation NDCG@10).  Then score the fold's test queries
   (:meth:`Experiment.evaluate`), so that every query is tested once.
4. Report Table 7 (:mod:`riskeval.ltr.model_evaluation`) with the mean test NDCG at 1 and 10
   whatever the objectives' cut-off: against the feature baseline (e.g. BM25) and, macro-averaged,
   against the learned baselines; and the significance of every model against plain LambdaMART and
   against every baseline (:meth:`Experiment.test`): TRisk (SIGIR 2014, eq. 13) and the
   randomisation test of URisk (:func:`riskeval.permutation_test`), with a multiple-testing
   correction over all the tests.

U-CRO, T-SARO and T-FARO learn against the feature baseline; T*-FARO and GeoRisk against the
learned baselines when there are some (else against the feature).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from riskeval import _display
from riskeval.errors import RiskevalError
from riskeval.inference._common import check_n_resamples, resolve_rng
from riskeval.ltr.baselines import feature_column, ranking_ndcg
from riskeval.ltr.groups import check_labels, label_gains, query_bounds
from riskeval.ltr.lightgbm_params import check_lightgbm_params
from riskeval.ltr.model_evaluation import RiskProfile, risk_profile
from riskeval.ltr.objectives import OBJECTIVES
from riskeval.ltr.options import LEARNERS, OBJECTIVE_NAMES, check_ltr_options
from riskeval.measures.declared import TRisk, URisk
from riskeval.options import check_alpha, check_alphas, check_correction, check_option
from riskeval.settings import RiskSettings, resolve_settings

DEFAULT_PARAMS = {"num_leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20, "verbose": -1}

#: A small grid for per-fold model selection (``grid=DEFAULT_GRID``, ``--grid default``): two
#: learning rates around the papers' 0.075 and 0.1, and two tree sizes up to the papers' 50 leaves.
DEFAULT_GRID: dict[str, tuple[Any, ...]] = {"learning_rate": (0.05, 0.1), "num_leaves": (15, 50)}

#: Cut-offs of the mean test NDCG reported beside Table 7, whatever the objectives' k.
EVAL_AT = (1, 10)

# LightGBM parameters that the training Dataset is built with: a grid over one of them needs the
# Dataset's feature pre-filter off (LightGBM refuses to change them on a built Dataset otherwise)
_LEAF_SIZE = ("min_data_in_leaf", "min_child_samples", "min_data_per_leaf", "min_data", "min_samples_leaf")

#: Per cut-off c, per system name, a vector of per-query NDCG@c.
Scores = dict[int, dict[str, np.ndarray]]


@dataclass(frozen=True)
class ExperimentResult:
    """Per-query test effectiveness of every model and baseline, Table 7 and the tests.

    ``ndcg`` has one row per system (models named ``"<objective> a=<α>"``, baselines by name) and
    one column per tested query (query index in the input): NDCG@k, the measure of Table 7 and of
    the tests; ``ndcg_at`` holds the same at the cut-offs of :data:`EVAL_AT`.  ``models`` maps each
    model name to its (objective, α).  ``tests``: one row per (model, compared with), see
    :meth:`Experiment.test`.  ``selected``: per model and fold, the grid point chosen, its boosting
    rounds and its validation NDCG@k.  ``settings``: the configuration of the run (``folds``: the
    number of parts; ``holdout_queries``; ``k``; ``rounds``; ``early_stopping``; ``grid``;
    ``params``; ``sx_update``; ``georisk_update``; ``variant``; ``test_alpha``; ``correction``;
    ``n_resamples``) and the ``seed`` it drew with (``rng=seed`` repeats it).
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

    def _facts(self) -> list[str]:
        s = self.settings
        facts = [
            f"{len(self.models)} models, {len(self.baselines)} baselines",
            f"{self.ndcg.shape[1]:,} test queries",
            f"NDCG@{s.get('k', 10)}",
        ]
        if "folds" in s:
            facts.append(f"{s['folds']} folds")
        if "seed" in s:
            facts.append(f"seed {s['seed']}")
        return facts

    def __repr__(self) -> str:
        return f"<ExperimentResult: {'; '.join(self._facts())}>"

    def _repr_html_(self) -> str:
        return _display.block(
            "Risk-sensitive learning to rank",
            self._facts(),
            [("Table 7: test effectiveness and risk of each model", self.to_frame())],
            note="ndcg: per-query NDCG of every model; tests: the paired tests; selected: the grid points.",
        )


@dataclass(frozen=True)
class Queries:
    """The documents of an experiment: features ``X``, checked ``labels``, query ``bounds`` (query q
    is rows ``bounds[q]:bounds[q + 1]``) and the ``gains`` of the labels."""

    X: Any
    labels: np.ndarray
    bounds: np.ndarray
    gains: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        """Documents per query."""
        return np.diff(self.bounds)

    def rows(self, queries: np.ndarray) -> np.ndarray:
        """The document rows of ``queries``, query by query."""
        return np.concatenate([np.arange(self.bounds[q], self.bounds[q + 1]) for q in queries])

    def features(self, queries: np.ndarray) -> Any:
        """The feature rows of ``queries``."""
        rows = self.rows(queries)
        return self.X.iloc[rows] if hasattr(self.X, "iloc") else self.X[rows]

    def ndcg(self, scores: np.ndarray, k: int, queries: np.ndarray | None = None) -> np.ndarray:
        """Per-query NDCG@k of ``queries`` (default every query) ranked by ``scores``, one per
        document of theirs."""
        if queries is None:
            return ranking_ndcg(scores, self.labels, self.bounds, k, self.gains)
        bounds = np.concatenate([[0], np.cumsum(self.sizes[queries])])
        return ranking_ndcg(scores, self.labels[self.rows(queries)], bounds, k, self.gains)


@dataclass(frozen=True)
class Fold:
    """The queries (indices) that fold ``index`` trains, validates and tests on."""

    index: int
    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray


@dataclass(frozen=True)
class Split:
    """The queries ``held`` out for the learned baselines, and per query its ``part`` (−1: held
    out) among ``n_parts``."""

    held: np.ndarray
    part: np.ndarray
    n_parts: int

    @property
    def tested(self) -> np.ndarray:
        """The queries of the folds, each tested by one of them."""
        return np.flatnonzero(self.part >= 0)

    def folds(self) -> Iterator[Fold]:
        """Fold i tests on part i, validates on part i − 1 and trains on the other parts."""
        for i in range(self.n_parts):
            previous = (i - 1) % self.n_parts
            train = (self.part >= 0) & (self.part != i) & (self.part != previous)
            yield Fold(
                i,
                np.flatnonzero(train),
                np.flatnonzero(self.part == previous),
                np.flatnonzero(self.part == i),
            )


@dataclass(frozen=True)
class FoldModel:
    """The model kept for one (objective, α) on a fold: its ``booster``, the grid ``point`` chosen,
    the boosting ``rounds`` used to score and its ``valid_ndcg`` (NaN without a grid)."""

    booster: Any
    point: dict[str, Any]
    rounds: int
    valid_ndcg: float


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
            f"The '{name}' parameter of Experiment must be an integer >= {minimum}. Got {value!r}."
        )


def grid_points(grid: Mapping[str, Sequence[Any]] | None) -> list[dict[str, Any]]:
    """Every combination of a grid ``{parameter: values}`` ({} for no grid), in a fixed order."""
    if not grid:
        return [{}]
    if not isinstance(grid, Mapping):
        raise RiskevalError(
            "The 'grid' parameter of Experiment must map LightGBM parameters to lists of values."
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


def _boost(params: dict, train_set: Any, fobj: Any, rounds: int, valid_set: Any, stopping: int | None) -> Any:
    """One booster on a fold's training Dataset, early-stopped on its validation Dataset."""
    import lightgbm

    kwargs: dict[str, Any] = {}
    if stopping:
        kwargs["valid_sets"] = [valid_set]
        kwargs["callbacks"] = [lightgbm.early_stopping(stopping, verbose=False)]
    return lightgbm.train({**params, "objective": fobj}, train_set, rounds, **kwargs)


def _nothing() -> None:
    """No progress to show."""


@dataclass(frozen=True)
class _FoldData:
    """A fold's training and validation documents, and their LightGBM Datasets."""

    X_train: Any
    labels_train: np.ndarray
    X_valid: Any
    train_set: Any
    valid_set: Any


@dataclass(frozen=True)
class Experiment:
    """The k-fold experiment of the module docstring: its configuration, and a method per step.

    ``Experiment(...).run(X, y, group)`` runs every step; :meth:`split`, :meth:`baselines`,
    :meth:`fit`, :meth:`evaluate` and :meth:`test` are the steps, to run or inspect one at a time.
    The configuration is checked when the object is made.

    Attributes
    ----------
    objectives : sequence of str, default every objective of ``OBJECTIVE_NAMES``
        ``lambdarank`` is run once, as α = 0; the others at every α of ``alphas``.
    alphas : sequence of float, default (1, 5)
        Risk aversion α ≥ 0 of the risk-sensitive objectives.
    baseline_feature : int or str, optional
        The feature whose ranking of each query is the feature baseline (e.g. MSLR's BM25
        feature, 110); U-CRO, T-SARO and T-FARO learn against it.
    learned_baselines : sequence of str, default ()
        Learners of ``LEARNERS`` trained on the ``holdout`` share of the queries (SIGIR 2016, §6.1).
    holdout : float, default 0.2
        The share of the queries held out for the learned baselines (0 < holdout < 1).
    folds : int or sequence of int, default 5
        The number of parts (≥ 3; queries assigned at random with ``rng``) or one part number per
        query (e.g. MSLR-Web10K's S1–S5 subsets, see :func:`riskeval.ltr.folds.read_folds`).
    params : dict, default :data:`DEFAULT_PARAMS`
        LightGBM parameters of every model and of the boosted learned baselines.
    rounds : int, default 100
        Boosting rounds of every model (at most, with ``early_stopping``).
    early_stopping : int, optional
        Stop each model when its validation NDCG@k has not improved for this many rounds, and
        keep its best iteration.
    grid : mapping, optional
        LightGBM parameters → values tried per fold and model (e.g. :data:`DEFAULT_GRID`), the
        point of highest validation NDCG@k kept.
    k : int, default 10
        The cut-off of the NDCG@k of the objectives, of Table 7's risk measures and of the tests.
    sx_update, georisk_update, variant
        Those of :func:`riskeval.ltr.train`, for every model.
    test_alpha : float, default 1
        The α of the TRisk and randomisation tests.
    correction : {"holm", "bh", "bonferroni", None}, default "holm"
        Multiple-testing correction over all the tests (``"none"`` is read as None).
    n_resamples : int, default 10,000
        Sign flips of each randomisation test, at most :data:`~riskeval.options.MAX_RESAMPLES`;
        0 skips them.
    rng : int, None or numpy.random.Generator, default 0
        Draws the held-out queries and the random parts, and seeds each randomisation test.
        :meth:`run` records the seed it used in ``result.settings["seed"]``.
    progress : bool, default False
        A progress bar over the models trained.
    """

    objectives: Sequence[str] = OBJECTIVE_NAMES
    alphas: Sequence[float] = (1.0, 5.0)
    baseline_feature: Any = None
    learned_baselines: Sequence[str] = ()
    holdout: float = 0.2
    folds: int | Sequence[int] = 5
    params: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_PARAMS))
    rounds: int = 100
    early_stopping: int | None = None
    grid: Mapping[str, Sequence[Any]] | None = None
    k: int = 10
    sx_update: str = "first_tree"
    georisk_update: str = "first_order"
    variant: str = "paper"
    test_alpha: float = 1.0
    correction: str | None = "holm"
    n_resamples: int = 10_000
    rng: Any = 0
    progress: bool = False

    def __post_init__(self) -> None:
        func = "Experiment"
        if isinstance(self.objectives, str) or not self.objectives:
            raise RiskevalError(
                f"The 'objectives' parameter of {func} must list at least one of {list(OBJECTIVE_NAMES)}. "
                f"Got {self.objectives!r}."
            )
        learned = self.learned_baselines
        _, sx_update, georisk_update, variant = check_ltr_options(
            func, sx_update=self.sx_update, georisk_update=self.georisk_update, variant=self.variant
        )
        if not isinstance(self.params, Mapping):
            raise RiskevalError(
                f"The 'params' parameter of {func} must be a dict of LightGBM parameters. "
                f"Got {self.params!r}."
            )
        checked = {
            "objectives": tuple(
                check_option(o, OBJECTIVE_NAMES, func, "objectives") for o in self.objectives
            ),
            "alphas": tuple(float(a) for a in check_alphas(self.alphas, func)),
            "learned_baselines": tuple(
                check_option(name, LEARNERS, func, "learned_baselines")
                for name in ([learned] if isinstance(learned, str) else learned)
            ),
            "params": dict(self.params),
            "sx_update": sx_update,
            "georisk_update": georisk_update,
            "variant": variant,
            "test_alpha": check_alpha(self.test_alpha, func),
            "correction": check_correction(self.correction, func),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)
        for name in ("rounds", "k"):
            _check_int(getattr(self, name), name, 1)
        object.__setattr__(self, "n_resamples", check_n_resamples(self.n_resamples, func, minimum=0))
        if self.early_stopping is not None:
            _check_int(self.early_stopping, "early_stopping", 1)
        for point in grid_points(self.grid):
            check_lightgbm_params({**self.params, **point}, func)
        self._check_baselines()
        self._check_folds()
        if not isinstance(self.rng, np.random.Generator) and self.rng is not None:
            resolve_rng(self.rng, func)
        if not isinstance(self.progress, bool):
            raise RiskevalError(
                f"The 'progress' parameter of {func} must be True or False. Got {self.progress!r}."
            )

    def _check_baselines(self) -> None:
        needs_feature = sorted({"ucro", "tsaro", "tfaro"} & set(self.objectives))
        if needs_feature and self.baseline_feature is None:
            raise RiskevalError(
                f"The 'baseline_feature' parameter of Experiment is needed: {needs_feature} learn "
                "against a baseline feature (e.g. MSLR's BM25 feature, 110). Got None."
            )
        if not self.learned_baselines and self.baseline_feature is None:
            raise RiskevalError(
                "Experiment needs a baseline to compare against: give 'baseline_feature' or "
                "'learned_baselines'."
            )
        if self.learned_baselines and not 0 < self.holdout < 1:
            raise RiskevalError(
                "The 'holdout' parameter of Experiment must be strictly between 0 and 1. "
                f"Got {self.holdout!r}."
            )

    def _check_folds(self) -> None:
        if isinstance(self.folds, (int, np.integer)) and not isinstance(self.folds, bool):
            if self.folds < 3:
                raise RiskevalError(
                    f"The 'folds' parameter of Experiment must be an integer >= 3 or one part number "
                    f"per query. Got {self.folds!r}."
                )
            return
        parts = np.asarray(self.folds)
        if parts.ndim != 1 or np.unique(parts).size < 3:
            raise RiskevalError(
                "The 'folds' parameter of Experiment must be an integer >= 3 or one part number per "
                f"query, with at least 3 parts. Got {self.folds!r}."
            )

    @property
    def cutoffs(self) -> list[int]:
        """The cut-offs of the per-query NDCG kept: :data:`EVAL_AT` and ``k``."""
        return sorted(set(EVAL_AT) | {int(self.k)})

    @property
    def models(self) -> dict[str, tuple[str, float]]:
        """The models, named ``"<objective> a=<α>"``, and their (objective, α): ``lambdarank`` once
        at α = 0, every other objective at every α."""
        jobs = [("lambdarank", 0.0)] if "lambdarank" in self.objectives else []
        jobs += [(o, a) for o in self.objectives if o != "lambdarank" for a in self.alphas]
        return {f"{o} a={a:g}": (o, a) for o, a in jobs}

    @property
    def feature_name(self) -> str:
        """The name of the feature baseline's row in the results."""
        return f"feature {self.baseline_feature}"

    def queries(self, X: Any, y: Any, group: Any = None, *, qid: Any = None) -> Queries:
        """The documents, their labels checked, and the queries from ``group`` sizes or ``qid``."""
        gains = label_gains(self.params.get("label_gain"))
        labels = check_labels(y, gains)
        if getattr(X, "ndim", 2) != 2 or not hasattr(X, "shape") or X.shape[0] != labels.shape[0]:
            raise RiskevalError(
                f"The 'X' parameter of Experiment.run must be a 2-D array, sparse matrix or DataFrame "
                f"with one row per label of y ({labels.shape[0]}). Got {type(X).__name__} of shape "
                f"{getattr(X, 'shape', None)}."
            )
        return Queries(X, labels, query_bounds(group, qid, n_docs=labels.shape[0]), gains)

    def split(self, n_queries: int) -> Split:
        """The queries held out for the learned baselines (with learned baselines, ``holdout`` of
        them, at least 3) and the parts of the others, drawn with ``rng``."""
        rng = np.random.default_rng(self.rng)
        held = np.array([], dtype=np.int64)
        if self.learned_baselines:
            held = np.sort(rng.permutation(n_queries)[: max(3, int(round(self.holdout * n_queries)))])
        main = np.setdiff1d(np.arange(n_queries), held)
        if isinstance(self.folds, (int, np.integer)):
            if main.size < self.folds:
                raise RiskevalError(
                    f"The 'folds' parameter of Experiment must be at most the number of queries in "
                    f"the folds ({main.size}). Got {self.folds}."
                )
            part = np.full(n_queries, -1, dtype=np.int64)
            part[main] = rng.permutation(main.size) % int(self.folds)
            return Split(held, part, int(self.folds))
        given = np.asarray(self.folds)
        if given.shape != (n_queries,):
            raise RiskevalError(
                f"The 'folds' parameter of Experiment must give one part number per query "
                f"({n_queries}). Got shape {given.shape}."
            )
        values, part = np.unique(given, return_inverse=True)
        part[held] = -1
        return Split(held, part, values.size)

    def baselines(self, queries: Queries, split: Split, progress: Callable[[], Any] = _nothing) -> Scores:
        """Per-query NDCG (at every cut-off of :attr:`cutoffs`, on every query) of the feature
        baseline and of each learned baseline, trained on two thirds of the held-out queries and
        early-stopped on the last third; ``progress`` is called after each learner."""
        systems: Scores = {c: {} for c in self.cutoffs}
        if self.baseline_feature is not None:
            column = feature_column(queries.X, self.baseline_feature)
            for c in self.cutoffs:
                systems[c][self.feature_name] = queries.ndcg(column, c)
        cut = max(1, (2 * split.held.size) // 3)
        train, valid = split.held[:cut], split.held[cut:]
        for name in self.learned_baselines:
            fit = _learner(name, dict(self.params), self.rounds)
            model = fit(
                queries.features(train),
                queries.labels[queries.rows(train)],
                queries.sizes[train],
                (queries.features(valid), queries.labels[queries.rows(valid)], queries.sizes[valid]),
            )
            scores = np.asarray(model.predict(queries.X), dtype=np.float64)
            for c in self.cutoffs:
                systems[c][name] = queries.ndcg(scores, c)
            progress()
        return systems

    def _lightgbm_params(self) -> dict[str, Any]:
        """The LightGBM parameters of every model (the objective is the model's own)."""
        params = {key: value for key, value in self.params.items() if key != "objective"}
        if self.early_stopping:
            params.update(metric="ndcg", eval_at=[int(self.k)])
        return params

    def _fold_data(self, queries: Queries, fold: Fold) -> _FoldData:
        import lightgbm

        dataset_params = {"verbose": -1, **self._lightgbm_params()}
        if any(key in _LEAF_SIZE for key in (self.grid or {})):
            dataset_params["feature_pre_filter"] = False
        X_train, labels_train = queries.features(fold.train), queries.labels[queries.rows(fold.train)]
        X_valid, labels_valid = queries.features(fold.valid), queries.labels[queries.rows(fold.valid)]
        train_set = lightgbm.Dataset(
            X_train, labels_train, group=queries.sizes[fold.train], params=dataset_params, free_raw_data=False
        )
        valid_set = lightgbm.Dataset(
            X_valid, labels_valid, group=queries.sizes[fold.valid], reference=train_set
        )
        return _FoldData(X_train, labels_train, X_valid, train_set, valid_set)

    def fit(
        self, queries: Queries, fold: Fold, baselines: Scores, progress: Callable[[], Any] = _nothing
    ) -> dict[str, FoldModel]:
        """Train every model of :attr:`models` on the fold's training queries, each selected on its
        validation queries; ``baselines`` as :meth:`baselines` gives them, ``progress`` called
        after each booster."""
        data = self._fold_data(queries, fold)
        learned = (
            np.vstack([baselines[self.k][n] for n in self.learned_baselines])
            if self.learned_baselines
            else None
        )
        chosen = {}
        for name, (objective, alpha) in self.models.items():
            kind = OBJECTIVES[objective].baseline
            if kind == "none":
                baseline = None
            elif kind == "single" or learned is None:
                baseline = baselines[self.k][self.feature_name][fold.train]
            else:
                baseline = learned[:, fold.train]
            chosen[name] = self._select(queries, fold, data, objective, alpha, baseline, progress)
        return chosen

    def _select(
        self,
        queries: Queries,
        fold: Fold,
        data: _FoldData,
        objective: str,
        alpha: float,
        baseline: np.ndarray | None,
        progress: Callable[[], Any],
    ) -> FoldModel:
        """One objective at one α on a fold: the booster of each grid point, the one of highest
        validation NDCG@k kept (the only one without a grid)."""
        from riskeval.ltr.training import make_objective

        points = grid_points(self.grid)
        best: tuple[float, dict[str, Any], Any] | None = None
        for point in points:
            params = {**self._lightgbm_params(), **point}
            fobj = make_objective(
                params,
                data.X_train,
                data.labels_train,
                queries.sizes[fold.train],
                objective=objective,
                alpha=alpha,
                baseline=baseline,
                k=self.k,
                sx_update=self.sx_update,
                georisk_update=self.georisk_update,
                variant=self.variant,
            )
            booster = _boost(params, data.train_set, fobj, self.rounds, data.valid_set, self.early_stopping)
            progress()
            if len(points) == 1:
                best = (np.nan, point, booster)
                break
            scores = booster.predict(data.X_valid, num_iteration=booster.best_iteration or None)
            value = float(queries.ndcg(np.asarray(scores, dtype=np.float64), self.k, fold.valid).mean())
            if best is None or value > best[0]:
                best = (value, point, booster)
        assert best is not None  # grid_points gives at least one point
        value, point, booster = best
        return FoldModel(booster, point, booster.best_iteration or booster.current_iteration(), value)

    def evaluate(self, queries: Queries, fold: Fold, models: Mapping[str, FoldModel]) -> Scores:
        """Per-query NDCG (at every cut-off of :attr:`cutoffs`) of each model on the fold's test
        queries, scored with the model's selected rounds."""
        X_test = queries.features(fold.test)
        scores: Scores = {c: {} for c in self.cutoffs}
        for name, model in models.items():
            predicted = np.asarray(
                model.booster.predict(X_test, num_iteration=model.rounds), dtype=np.float64
            )
            for c in self.cutoffs:
                scores[c][name] = queries.ndcg(predicted, c, fold.test)
        return scores

    def test(self, ndcg: pd.DataFrame, settings: RiskSettings | None = None) -> pd.DataFrame:
        """TRisk and the randomisation test of every model against plain LambdaMART (when run) and
        against every baseline, on per-query values.

        Parameters
        ----------
        ndcg : DataFrame
            Systems × queries (as ``ExperimentResult.ndcg``): the rows named as :attr:`models`
            are the models, the other rows the baselines.
        settings : :class:`riskeval.RiskSettings`, optional
            Its ``correction`` adjusts the p-values over all the rows, and its ``se`` is the
            standard error of TRisk (``"parametric"``: SIGIR 2014, eq. 12; ``"jackknife"``:
            eq. 17–18); default the experiment's ``correction`` and the parametric SE.

        Returns
        -------
        DataFrame
            Indexed by (model, against): ``URisk`` (at ``test_alpha``), ``TRisk`` and its
            two-sided Student t ``p`` (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 13), ``p_perm``
            (sign-flip randomisation test of URisk, :func:`riskeval.permutation_test`, seeded with
            ``rng``; NaN with ``n_resamples=0``) and, with a correction, ``p_adj`` and
            ``p_perm_adj``.
        """
        from riskeval.inference.permutation import permutation_test
        from riskeval.measures.paired import trisk

        if settings is None:
            settings = RiskSettings(correction=self.correction)  # type: ignore[arg-type]
        settings = resolve_settings(settings, "Experiment.test")
        models = [name for name in self.models if name in ndcg.index]
        plain = [name for name in models if self.models[name][0] == "lambdarank"]
        against = plain + [name for name in ndcg.index if name not in self.models]
        rows = []
        for model, other in itertools.product(models, against):
            if other == model:
                continue
            s, b = ndcg.loc[model].to_numpy(), ndcg.loc[other].to_numpy()
            t = trisk(s, b, self.test_alpha, se=settings.se)
            perm = np.nan
            if self.n_resamples:
                perm = permutation_test(
                    s, b, alpha=self.test_alpha, n_resamples=self.n_resamples, rng=self.rng
                ).pvalue
            rows.append([model, other, t.urisk, t.statistic, t.pvalue, perm])
        frame = pd.DataFrame(rows, columns=["model", "against", URisk.header, TRisk.header, "p", "p_perm"])
        if settings.correction is not None and len(frame):
            from riskeval.core.corrections import adjust_pvalues

            frame["p_adj"] = adjust_pvalues(frame["p"].to_numpy(), settings.correction)
            frame["p_perm_adj"] = adjust_pvalues(frame["p_perm"].to_numpy(), settings.correction)
        return frame.set_index(["model", "against"])

    def profile(self, ndcg: pd.DataFrame) -> RiskProfile:
        """Table 7 of the models on per-query values (rows as in :meth:`test`): against the
        feature baseline and, macro-averaged with several, against the learned baselines."""
        models = list(self.models)
        frames = []
        if self.baseline_feature is not None:
            frames.append(risk_profile(ndcg.loc[models], ndcg.loc[[self.feature_name]]).long)
        if self.learned_baselines:
            long = risk_profile(ndcg.loc[models], ndcg.loc[list(self.learned_baselines)]).long
            if len(self.learned_baselines) > 1:
                long = long[long["baseline"] == "macro"]
            frames.append(long)
        baselines = tuple(name for name in ndcg.index if name not in self.models)
        return RiskProfile(pd.concat(frames, ignore_index=True), baselines)

    def run(self, X: Any, y: Any, group: Any = None, *, qid: Any = None) -> ExperimentResult:
        """Run every step on documents ``X`` (rows), labels ``y`` and queries given by ``group``
        sizes or one ``qid`` per document; every query outside the held-out ones is tested once."""
        experiment = replace(self, rng=resolve_rng(self.rng, "Experiment")[1])
        queries = experiment.queries(X, y, group, qid=qid)
        split = experiment.split(queries.sizes.size)
        total = len(self.learned_baselines) + split.n_parts * len(self.models) * len(grid_points(self.grid))
        bar = _display.progress_bar(total=total, disable=not self.progress, desc="training", unit="model")
        systems = experiment.baselines(queries, split, bar.update)
        tested = {c: {n: np.full(queries.sizes.size, np.nan) for n in self.models} for c in self.cutoffs}
        chosen = []
        for fold in split.folds():
            models = experiment.fit(queries, fold, systems, bar.update)
            for c, scores in experiment.evaluate(queries, fold, models).items():
                for name, values in scores.items():
                    tested[c][name][fold.test] = values
            chosen += [
                {"model": name, "fold": fold.index, **m.point, "rounds": m.rounds, "valid_ndcg": m.valid_ndcg}
                for name, m in models.items()
            ]
        bar.close()
        return experiment._result(split, tested, systems, pd.DataFrame(chosen).set_index(["model", "fold"]))

    def _result(
        self, split: Split, tested: Scores, systems: Scores, selected: pd.DataFrame
    ) -> ExperimentResult:
        index = pd.Index(split.tested.astype(str), name="query")
        ndcg_at = {}
        for c in self.cutoffs:
            frames = [
                pd.DataFrame({n: v[split.tested] for n, v in d.items()}).T for d in (tested[c], systems[c])
            ]
            ndcg_at[c] = pd.concat(frames).set_axis(index, axis=1)
        ndcg = ndcg_at[self.k]
        return ExperimentResult(
            ndcg=ndcg,
            profile=self.profile(ndcg),
            models=self.models,
            baselines=tuple(systems[self.k]),
            ndcg_at=ndcg_at,
            tests=self.test(ndcg),
            selected=selected,
            settings={
                "folds": split.n_parts,
                "holdout_queries": int(split.held.size),
                "k": int(self.k),
                "seed": self.rng,
                "rounds": self.rounds,
                "early_stopping": self.early_stopping,
                "grid": {key: list(v) for key, v in (self.grid or {}).items()},
                "params": self.params,
                "sx_update": self.sx_update,
                "georisk_update": self.georisk_update,
                "variant": self.variant,
                "test_alpha": self.test_alpha,
                "correction": self.correction,
                "n_resamples": int(self.n_resamples),
            },
        )
