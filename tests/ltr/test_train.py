"""``riskeval.ltr.train``: α = 0 gives LightGBM's own lambdarank model for every objective (SIGIR 2014,
footnote 6; SIGIR 2016, footnote 5), the documented quick-start example, and parameter errors."""

import lightgbm as lgb
import numpy as np
import pytest

from riskeval.errors import RiskevalError
from riskeval.ltr import make_ranking, train
from riskeval.ltr.baselines import ranking_ndcg
from riskeval.ltr.groups import default_gains, query_bounds
from riskeval.ltr.objectives import lowest_label_first

ROUNDS = 15
BASE = {"num_leaves": 15, "learning_rate": 0.1, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1}


def _baselines(X, y, group):
    bounds = query_bounds(group, n_docs=y.shape[0])
    columns = [np.asarray(X[:, [j]].toarray()).ravel() if hasattr(X, "tocsc") else X[:, j] for j in (1, 2, 3)]
    return np.vstack([ranking_ndcg(col, y, bounds, 10, default_gains()) for col in columns])


@pytest.mark.parametrize("norm", [True, False])
@pytest.mark.parametrize("tied", [False, True])
def test_alpha_zero_is_lightgbm_lambdarank_for_every_objective_and_variant(letor_train, norm, tied):
    X, y, group = letor_train.X, letor_train.y, letor_train.group
    if tied:
        # four binary features: many documents share a score, at every iteration
        X = (X[:, [10, 11, 18, 21]] > 0.5).astype(np.float64).toarray()
    params = {**BASE, "lambdarank_norm": norm, "lambdarank_truncation_level": 20}
    native = lgb.train({**params, "objective": "lambdarank"}, lgb.Dataset(X, y, group=group), ROUNDS).predict(
        X
    )
    if tied:
        assert np.unique(native).size < native.size / 4
    # Jforests ranks documents of equal score lowest label first: LightGBM's lambdarank on the same
    # documents given in that order within each query
    first = lowest_label_first(y, query_bounds(group, n_docs=y.shape[0]))
    native_jforests = lgb.train(
        {**params, "objective": "lambdarank"}, lgb.Dataset(X[first], y[first], group=group), ROUNDS
    ).predict(X)
    systems = _baselines(X, y, group)
    baselines = {
        "lambdarank": None,
        "ucro": 0,
        "tsaro": 1,
        "tfaro": systems[0],
        "tstar_faro": systems,
        "georisk": systems,
    }
    jobs = [(o, "paper") for o in baselines] + [
        (o, "jforests") for o in ("ucro", "tsaro", "tfaro", "tstar_faro")
    ]
    for objective, variant in jobs:
        booster = train(
            params,
            X,
            y,
            group,
            objective=objective,
            alpha=0.0,
            baseline=baselines[objective],
            variant=variant,
            num_boost_round=ROUNDS,
        )
        expected = native_jforests if variant == "jforests" else native
        np.testing.assert_array_equal(booster.predict(X), expected, err_msg=f"{objective} {variant}")


def test_alpha_changes_the_model(letor_train):
    X, y, group = letor_train.X, letor_train.y, letor_train.group
    native = lgb.train({**BASE, "objective": "lambdarank"}, lgb.Dataset(X, y, group=group), ROUNDS).predict(X)
    risky = train(BASE, X, y, group, objective="ucro", alpha=5.0, baseline=0, num_boost_round=ROUNDS).predict(
        X
    )
    assert np.abs(risky - native).max() > 1e-3


def test_quick_start_example():
    X, y, group, _ = make_ranking(30, 20, 6, rng=0)
    params = {"num_leaves": 7, "verbose": -1, "num_threads": 1}
    # --- as written in the quick start of docs/ltr.md ---
    from riskeval.ltr import train

    booster = train(params, X, y, group, objective="ucro", alpha=0.0, baseline=0)  # baseline: feature index
    # ---
    assert isinstance(booster, lgb.Booster)
    assert booster.current_iteration() == 100  # lightgbm.train's default num_boost_round


def test_objective_argument_wins_and_kwargs_reach_lightgbm():
    X, y, group, qid = make_ranking(40, 15, 5, rng=1)
    params = {**BASE, "objective": "regression", "metric": "ndcg", "eval_at": [5]}
    valid = lgb.Dataset(X, y, group=group)
    record = {}
    booster = train(
        params,
        X,
        y,
        group,
        objective="lambdarank",
        num_boost_round=4,
        valid_sets=[valid],
        valid_names=["v"],
        callbacks=[lgb.record_evaluation(record)],
    )
    native = lgb.train({**BASE, "objective": "lambdarank"}, lgb.Dataset(X, y, group=group), 4)
    np.testing.assert_array_equal(booster.predict(X), native.predict(X))
    assert len(record["v"]["ndcg@5"]) == 4
    # query ids instead of group sizes give the same model
    by_qid = train(params, X, y, qid=qid, objective="lambdarank", num_boost_round=4)
    np.testing.assert_array_equal(by_qid.predict(X), native.predict(X))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"objective": "lambdamart"}, "must be one of 'lambdarank', 'ucro'"),
        ({"objective": "ucro"}, "needs a baseline"),
        ({"objective": "lambdarank", "baseline": 0}, "takes no baseline"),
        ({"objective": "ucro", "baseline": 99}, "out of range: X has 5 features"),
        ({"objective": "ucro", "baseline": np.ones(7)}, "one value per training query (10)"),
        ({"objective": "ucro", "baseline": np.ones((2, 10))}, "takes one baseline system"),
        ({"objective": "georisk", "baseline": -np.ones((2, 10))}, "values >= 0"),
        ({"objective": "ucro", "baseline": 0, "alpha": -1}, "'alpha' parameter of train"),
        ({"objective": "tsaro", "baseline": 0, "sx_update": "first"}, "'sx_update' parameter of train"),
        ({"objective": "ucro", "baseline": 0, "k": 0}, "'k' parameter"),
    ],
)
def test_parameter_errors(kwargs, message):
    X, y, group, _ = make_ranking(10, 8, 5, rng=2)
    with pytest.raises(RiskevalError, match=None) as info:
        train(BASE, X, y, group, num_boost_round=1, **kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "y, group, qid, message",
    [
        ([0, 1, 2.5, 0], [2, 2], None, "integer relevance labels 0..30"),
        ([0, 1, -1, 0], [2, 2], None, "[2] = -1"),
        ([0, 1, 1, 0], [2, 3], None, "add up to 5 documents but there are 4"),
        ([0, 1, 1, 0], None, [1, 2, 1, 1], "Query 1 is split"),
        ([0, 1, 1, 0], [2, 2], [1, 1, 2, 2], "not both"),
    ],
)
def test_group_and_label_errors(y, group, qid, message):
    X = np.zeros((4, 2))
    with pytest.raises(RiskevalError) as info:
        train(BASE, X, np.asarray(y), group, qid=qid, num_boost_round=1)
    assert message in str(info.value)


def test_estimator_fits_the_same_model_as_train():
    from riskeval.ltr import RiskLambdaMART

    X, y, group, qid = make_ranking(30, 10, 5, rng=3)
    est = RiskLambdaMART("tfaro", alpha=2.0, num_boost_round=5, num_leaves=7, num_threads=1)
    with pytest.raises(RiskevalError, match="not fitted"):
        est.predict(X)
    scores = est.fit(X, y, qid=qid, baseline=0).predict(X)
    direct = train(
        {"num_leaves": 7, "num_threads": 1, "verbose": -1},
        X,
        y,
        group,
        objective="tfaro",
        alpha=2.0,
        baseline=0,
        num_boost_round=5,
    )
    np.testing.assert_array_equal(scores, direct.predict(X))
    assert est.set_params(alpha=3.0, num_leaves=15).get_params()["num_leaves"] == 15
    assert est.alpha == 3.0
    jf = RiskLambdaMART(
        "tfaro", alpha=2.0, variant="jforests", num_boost_round=5, num_leaves=7, num_threads=1
    )
    assert jf.get_params()["variant"] == "jforests"
    jf_scores = jf.fit(X, y, qid=qid, baseline=0).predict(X)
    assert np.abs(jf_scores - scores).max() > 0  # another model than the paper's equations
    every = RiskLambdaMART(
        "tfaro", alpha=2.0, sx_update="every_tree", num_boost_round=5, num_leaves=7, num_threads=1
    )
    assert every.get_params()["sx_update"] == "every_tree"
    every_direct = train(
        {"num_leaves": 7, "num_threads": 1, "verbose": -1},
        X,
        y,
        group,
        objective="tfaro",
        alpha=2.0,
        baseline=0,
        sx_update="every_tree",
        num_boost_round=5,
    )
    np.testing.assert_array_equal(every.fit(X, y, group, baseline=0).predict(X), every_direct.predict(X))


def test_no_bare_value_or_type_errors_from_bad_arguments():
    X, y, group, _ = make_ranking(10, 8, 5, rng=2)
    with pytest.raises(RiskevalError, match="X must be a 2-D array"):
        train(BASE, X.tolist(), y, group, num_boost_round=1)
    with pytest.raises(RiskevalError, match="'lambdarank_truncation_level' must be an integer"):
        train({**BASE, "lambdarank_truncation_level": "deep"}, X, y, group, num_boost_round=1)
    with pytest.raises(RiskevalError, match="make_ranking needs integers"):
        make_ranking("10", 8, 5)
    with pytest.raises(RiskevalError, match="The 'objective' parameter of train must be one of"):
        train(BASE, X, y, group, objective="LambdaRank", num_boost_round=1)
