"""Table 7 of Dinçer, Macdonald & Ounis, SIGIR 2016 (risk_profile / evaluate) and the synthetic set."""

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.ltr import make_ranking
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
    X, y, group, qid = make_ranking(25, 12, 5, rng=4)
    booster = lgb.train({**PARAMS, "objective": "lambdarank"}, lgb.Dataset(X, y, group=group), 5)
    by_group = ndcg_per_query(booster.predict(X), y, group, k=5)
    np.testing.assert_array_equal(by_group, ndcg_per_query(booster.predict(X), y, qid=qid, k=5))
    profile = evaluate({"m": booster}, X, y, group, baselines={"f0": 0, "given": by_group}, k=5)
    frame = profile.to_frame()
    assert frame.loc[("given", "m"), "Risk"] == 0 and frame.loc[("given", "m"), "Wins"] == 0
    assert frame.loc[("f0", "m"), "NDCG"] == pytest.approx(by_group.mean())


def test_synthetic_set_is_seeded_and_has_ties_in_the_last_feature():
    a, b = make_ranking(20, 10, 4, rng=7), make_ranking(20, 10, 4, rng=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.X.shape == (200, 4) and a.group.tolist() == [10] * 20
    assert np.unique(a.X[:, -1]).size <= 4 and a.y.max() == 4


def test_synthetic_set_with_given_label_shares():
    # MSLR-Web10K's label distribution, as the benchmark at its shape draws it
    d = make_ranking(50, 40, 3, label_shares=(0.52, 0.32, 0.13, 0.02, 0.01), rng=3)
    np.testing.assert_allclose(
        np.bincount(d.y, minlength=5) / d.y.size, [0.52, 0.32, 0.13, 0.02, 0.01], atol=1e-3
    )
    with pytest.raises(RiskevalError, match="label_shares must give one share"):
        make_ranking(5, 4, 3, label_shares=(0.5, 0.5))
