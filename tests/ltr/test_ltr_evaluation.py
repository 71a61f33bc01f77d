"""Table 7 of Dinçer, Macdonald & Ounis, SIGIR 2016 (risk_profile / evaluate), the k-fold experiment and the synthetic set."""

import sys

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.ltr import make_ranking
from riskeval.ltr.experiment import run_experiment
from riskeval.ltr.model_evaluation import MEASURES, evaluate, ndcg_per_query, risk_profile

PARAMS = {"num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1}


def test_risk_profile_against_one_baseline_matches_the_core():
    rng = np.random.default_rng(0)
    models = {"a": rng.uniform(size=30), "b": rng.uniform(size=30)}
    base = rng.uniform(size=30)
    base[:3] = models["a"][:3]  # ties are neither wins nor losses
    frame = risk_profile(models, {"bm25": base}).to_frame()
    assert list(frame.columns) == list(MEASURES)
    for name, scores in models.items():
        rr = rk.analysis.risk_reward(scores, base)
        row = frame.loc[("bm25", name)]
        assert row["NDCG"] == pytest.approx(scores.mean())
        assert row["Reward"] == pytest.approx(rr.freward)
        assert row["Risk"] == pytest.approx(rr.frisk)
        assert row["Reward/Risk"] == pytest.approx(rr.reward_risk)
        assert (row["Wins"], row["Losses"], row["Loss>20%"]) == (rr.wins, rr.losses, rr.loss20)
        assert row["W/L"] == pytest.approx(rr.win_loss)


def test_macro_average_is_the_mean_of_the_per_baseline_measures():
    # SIGIR 2016, Table 7, bottom half: each measure against each learned baseline, then averaged
    rng = np.random.default_rng(1)
    models = pd.DataFrame(rng.uniform(size=(2, 20)), index=["m1", "m2"])
    baselines = pd.DataFrame(rng.uniform(size=(3, 20)), index=["b1", "b2", "b3"])
    profile = risk_profile(models, baselines)
    wide = profile.to_frame()
    macro = profile.to_frame("macro")
    for m in ("m1", "m2"):
        per = wide.loc[[(b, m) for b in ("b1", "b2", "b3")]]
        np.testing.assert_allclose(macro.loc[("macro", m)].to_numpy(), per.mean().to_numpy())
    assert set(profile.long["baseline"]) == {"b1", "b2", "b3", "macro"}
    with pytest.raises(RiskevalError, match="same queries"):
        risk_profile(models, baselines.iloc[:, :10])


def test_ndcg_per_query_and_evaluate_on_a_trained_model():
    X, y, group, qid = make_ranking(25, 12, 5, seed=4)
    booster = lgb.train({**PARAMS, "objective": "lambdarank"}, lgb.Dataset(X, y, group=group), 5)
    by_group = ndcg_per_query(booster.predict(X), y, group, k=5)
    np.testing.assert_array_equal(by_group, ndcg_per_query(booster.predict(X), y, qid=qid, k=5))
    profile = evaluate({"m": booster}, X, y, group, baselines={"f0": 0, "given": by_group}, k=5)
    frame = profile.to_frame()
    assert frame.loc[("given", "m"), "Risk"] == 0 and frame.loc[("given", "m"), "Wins"] == 0
    assert frame.loc[("f0", "m"), "NDCG"] == pytest.approx(by_group.mean())


def test_synthetic_set_is_seeded_and_has_ties_in_the_last_feature():
    a, b = make_ranking(20, 10, 4, seed=7), make_ranking(20, 10, 4, seed=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.X.shape == (200, 4) and a.group.tolist() == [10] * 20
    assert np.unique(a.X[:, -1]).size <= 4 and a.y.max() == 4


def test_experiment_tests_every_query_once_and_reports_table7():
    X, y, group, _ = make_ranking(60, 15, 6, seed=0)
    result = run_experiment(
        X,
        y,
        group,
        objectives=["lambdarank", "ucro", "georisk"],
        alphas=[1.0],
        folds=3,
        baseline_feature=0,
        learned_baselines=["gbrt", "linear"],
        holdout=0.25,
        params=PARAMS,
        num_boost_round=5,
    )
    held = result.settings["holdout_queries"]
    assert held == 15
    assert result.ndcg.shape == (3 + 3, 60 - held)
    assert not result.ndcg.isna().any().any()
    table = result.to_frame()
    assert list(table.columns) == ["NDCG@1", "NDCG@10", *MEASURES[1:]]
    assert table.loc[("feature 0", "U-CRO", 1.0), "NDCG@10"] == pytest.approx(
        result.ndcg.loc["ucro a=1"].mean()
    )
    assert (result.ndcg_at[1].loc["ucro a=1"] <= 1).all() and (result.ndcg_at[1] >= 0).all().all()
    assert set(table.index.get_level_values("baseline")) == {"feature 0", "macro"}
    assert ("feature 0", "U-CRO", 1.0) in table.index
    assert ("macro", "LambdaMART", 0.0) in table.index


def test_experiment_parameter_errors():
    X, y, group, _ = make_ranking(12, 5, 3, seed=0)
    with pytest.raises(RiskevalError, match="baseline feature"):
        run_experiment(X, y, group, objectives=["ucro"], learned_baselines=["linear"])
    with pytest.raises(RiskevalError, match="'learned_baselines' parameter of run_experiment"):
        run_experiment(X, y, group, baseline_feature=0, learned_baselines=["svm"])
    with pytest.raises(RiskevalError, match="at least 3 parts"):
        run_experiment(X, y, group, baseline_feature=0, folds=np.arange(12) % 2)


def test_given_parts_rotate_as_mslr_folds(monkeypatch):
    # four parts told apart by their query length (5, 6, 7, 8 documents): the fold that tests part
    # i validates on part i - 1 and trains on the other two (MSLR-Web10K: Fold1 trains S1-S3,
    # validates on S4, tests S5)
    experiment = sys.modules["riskeval.ltr.experiment"]
    sets = [make_ranking(6, n, 4, seed=n) for n in (5, 6, 7, 8)]
    X = np.vstack([d.X for d in sets])
    y = np.concatenate([d.y for d in sets])
    group = np.concatenate([d.group for d in sets])
    parts = np.repeat(np.arange(4), 6)
    seen = []
    real_fit = experiment._fit

    def recording_fit(params, train_set, fobj, rounds, valid_set, stopping):
        seen.append((np.unique(train_set.group).tolist(), np.unique(valid_set.group).tolist()))
        return real_fit(params, train_set, fobj, rounds, valid_set, stopping)

    monkeypatch.setattr(experiment, "_fit", recording_fit)
    result = run_experiment(
        X,
        y,
        group,
        objectives=["lambdarank"],
        folds=parts,
        baseline_feature=0,
        params=PARAMS,
        num_boost_round=2,
        early_stopping_rounds=1,
    )
    assert not result.ndcg.isna().any().any()
    assert seen == [([6, 7], [8]), ([7, 8], [5]), ([5, 8], [6]), ([5, 6], [7])]


def test_experiment_selects_each_model_on_validation_and_tests_it(monkeypatch):
    X, y, group, _ = make_ranking(45, 12, 5, seed=2)
    result = run_experiment(
        X,
        y,
        group,
        objectives=["lambdarank", "tfaro"],
        alphas=[2.0],
        folds=3,
        baseline_feature=0,
        params=PARAMS,
        num_boost_round=30,
        early_stopping_rounds=3,
        grid={"learning_rate": [0.05, 0.3], "num_leaves": [3, 7]},
        k=5,
        n_resamples=200,
    )
    # per model and fold: the grid point of best validation NDCG@5, early-stopped
    selected = result.selected
    assert selected.shape[0] == 2 * 3
    assert set(selected["learning_rate"]) <= {0.05, 0.3} and set(selected["num_leaves"]) <= {3, 7}
    assert (selected["rounds"] <= 30).all() and selected["valid_ndcg"].between(0, 1).all()
    # NDCG@1 and @10 reported besides the objectives' NDCG@5
    table = result.to_frame()
    assert list(table.columns[:3]) == ["NDCG@1", "NDCG@5", "NDCG@10"]
    # significance: T-FARO against LambdaMART and the feature, LambdaMART against the feature
    tests = result.tests
    assert list(tests.index) == [
        ("lambdarank a=0", "feature 0"),
        ("tfaro a=2", "lambdarank a=0"),
        ("tfaro a=2", "feature 0"),
    ]
    s, b = result.ndcg.loc["tfaro a=2"], result.ndcg.loc["feature 0"]
    t = rk.trisk(s.to_numpy(), b.to_numpy(), 1.0)
    row = tests.loc[("tfaro a=2", "feature 0")]
    assert row["TRisk"] == pytest.approx(t.statistic) and row["p"] == pytest.approx(t.pvalue)
    np.testing.assert_allclose(tests["p_adj"], rk.inference.adjust_pvalues(tests["p"].to_numpy(), "holm"))
    perm = rk.permutation_test(s.to_numpy(), b.to_numpy(), alpha=1.0, n_resamples=200, rng=0)
    assert row["p_perm"] == pytest.approx(perm.pvalue)
    assert (tests["p_perm_adj"] >= tests["p_perm"]).all()


def test_synthetic_set_with_given_label_shares():
    # MSLR-Web10K's label distribution, as the benchmark at its shape draws it
    d = make_ranking(50, 40, 3, label_shares=(0.52, 0.32, 0.13, 0.02, 0.01), seed=3)
    np.testing.assert_allclose(
        np.bincount(d.y, minlength=5) / d.y.size, [0.52, 0.32, 0.13, 0.02, 0.01], atol=1e-3
    )
    with pytest.raises(RiskevalError, match="label_shares must give one share"):
        make_ranking(5, 4, 3, label_shares=(0.5, 0.5))
