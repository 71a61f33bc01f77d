"""The k-fold experiment (Dinçer, Macdonald & Ounis, SIGIR 2014, §6.4; SIGIR 2016, §6.1): its steps
recomputed independently, recorded results, seeds and settings."""

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.ltr import Experiment, make_ranking
from riskeval.ltr.model_evaluation import MEASURES, ndcg_per_query

PARAMS = {"num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1}
ALL = ["lambdarank", "ucro", "tsaro", "tfaro", "tstar_faro", "georisk"]


def _cases():
    X, y, group, _ = make_ranking(60, 15, 6, rng=0)
    learned = Experiment(
        objectives=ALL,
        alphas=[1.0, 5.0],
        folds=3,
        baseline_feature=0,
        learned_baselines=["gbrt", "linear", "lambdamart", "xendcg"],
        holdout=0.25,
        params=PARAMS,
        rounds=5,
        n_resamples=200,
        rng=3,
    )
    yield pytest.param("learned", learned, (X, y, group), id="learned")
    X, y, group, _ = make_ranking(40, 12, 5, rng=2)
    grid = Experiment(
        objectives=["lambdarank", "tsaro", "tstar_faro"],
        alphas=[2.0],
        folds=np.arange(40) % 4,
        baseline_feature=1,
        params=PARAMS,
        rounds=20,
        early_stopping=3,
        grid={"learning_rate": [0.05, 0.3], "min_data_in_leaf": [3, 5]},
        k=5,
        sx_update="every_tree",
        test_alpha=2.0,
        correction="bh",
        n_resamples=100,
        rng=1,
    )
    yield pytest.param("grid", grid, (X, y, group), id="grid")
    X, y, group, _ = make_ranking(36, 10, 5, rng=5)
    jforests = Experiment(
        objectives=["ucro", "tfaro", "georisk"],
        alphas=[1.0, 10.0],
        folds=4,
        baseline_feature=2,
        params=PARAMS,
        rounds=6,
        variant="jforests",
        georisk_update="shortcut",
        correction=None,
        n_resamples=0,
        rng=0,
    )
    yield pytest.param("jforests", jforests, (X, y, group), id="jforests")


# Per case: per system, its mean test NDCG@k and NDCG@1; the number of tests and the sum of each
# column; with a grid, per model and fold the point chosen, its rounds and validation NDCG@k.
SNAPSHOTS = {
    "learned": {
        "ndcg": {
            "lambdarank a=0": (0.8357173302064385, 0.6939682539682539),
            "ucro a=1": (0.8196470486478885, 0.6808465608465608),
            "ucro a=5": (0.8366155092156843, 0.7140740740740741),
            "tsaro a=1": (0.8349661482221044, 0.6825396825396826),
            "tsaro a=5": (0.8318798127502478, 0.6744973544973545),
            "tfaro a=1": (0.8284903433416583, 0.71005291005291),
            "tfaro a=5": (0.8313900737616031, 0.6573544973544974),
            "tstar_faro a=1": (0.8285248079975771, 0.6560846560846562),
            "tstar_faro a=5": (0.836305780970004, 0.7092063492063493),
            "georisk a=1": (0.8305694155164943, 0.7185185185185184),
            "georisk a=5": (0.8227988679983945, 0.6328042328042328),
            "feature 0": (0.8439568639545041, 0.7178835978835979),
            "gbrt": (0.8156874678846614, 0.644021164021164),
            "linear": (0.8864081823159111, 0.7589417989417989),
            "lambdamart": (0.7703239699391082, 0.5771428571428571),
            "xendcg": (0.7535010182698891, 0.5386243386243386),
        },
        "tests": (
            65,
            {
                "URisk": -2.280751336528043,
                "TRisk": -65.35796556599958,
                "p": 10.917922606134265,
                "p_perm": 12.049751243781095,
                "p_adj": 53.99296079665797,
                "p_perm_adj": 57.83084577114428,
            },
        ),
    },
    "grid": {
        "ndcg": {
            "lambdarank a=0": (0.8327877800664265, 0.7238095238095238),
            "tsaro a=2": (0.8306587618697054, 0.6954761904761905),
            "tstar_faro a=2": (0.8555470637364522, 0.7854761904761904),
            "feature 1": (0.6644078348960909, 0.5700000000000001),
        },
        "tests": (
            5,
            {
                "URisk": 0.20668014694458084,
                "TRisk": 2.027495247280413,
                "p": 1.5072965053184628,
                "p_perm": 1.613861386138614,
                "p_adj": 1.958216152727343,
                "p_perm_adj": 2.0783828382838285,
            },
        ),
        "selected": [
            ("lambdarank a=0", 0, 0.05, 5, 2, 0.9263422502997718),
            ("tsaro a=2", 0, 0.3, 5, 4, 0.9170341322570355),
            ("tstar_faro a=2", 0, 0.05, 5, 2, 0.9292163508203272),
            ("lambdarank a=0", 1, 0.05, 3, 1, 0.7741165635678838),
            ("tsaro a=2", 1, 0.05, 3, 4, 0.8384754499536384),
            ("tstar_faro a=2", 1, 0.05, 3, 6, 0.7977030051423509),
            ("lambdarank a=0", 2, 0.3, 3, 3, 0.939337652170968),
            ("tsaro a=2", 2, 0.05, 5, 2, 0.9266883010873403),
            ("tstar_faro a=2", 2, 0.05, 5, 3, 0.9207690298315795),
            ("lambdarank a=0", 3, 0.05, 5, 6, 0.8763541162717996),
            ("tsaro a=2", 3, 0.05, 5, 9, 0.8661296656232599),
            ("tstar_faro a=2", 3, 0.05, 3, 3, 0.87013863797554),
        ],
    },
    "jforests": {
        "ndcg": {
            "ucro a=1": (0.8173006676826317, 0.5939153439153437),
            "ucro a=10": (0.8085527886588344, 0.5574074074074074),
            "tfaro a=1": (0.8383614495992953, 0.6201058201058199),
            "tfaro a=10": (0.8221670322489855, 0.5404761904761903),
            "georisk a=1": (0.8284928662465552, 0.5785714285714285),
            "georisk a=10": (0.8514961654660751, 0.672222222222222),
            "feature 2": (0.7168325625273845, 0.39867724867724863),
        },
        "tests": (
            6,
            {"URisk": 0.3570961272556443, "TRisk": 6.614633244172619, "p": 1.967824098389417, "p_perm": 0.0},
        ),
    },
}


@pytest.mark.parametrize(
    ("name", "experiment", "data"), list(_cases()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_snapshot_experiment_results(name, experiment, data):
    # learned baselines and every objective; a grid with early stopping, given parts and
    # sx_update="every_tree"; the Jforests variant, GeoRisk's shortcut and no correction
    expected = SNAPSHOTS[name]
    result = experiment.run(*data)
    assert list(result.ndcg.index) == list(expected["ndcg"])
    for system, (mean_k, mean_1) in expected["ndcg"].items():
        assert result.ndcg.loc[system].mean() == pytest.approx(mean_k, rel=1e-12, abs=0)
        assert result.ndcg_at[1].loc[system].mean() == pytest.approx(mean_1, rel=1e-12, abs=0)
    count, sums = expected["tests"]
    assert len(result.tests) == count and list(result.tests.columns) == list(sums)
    for column, total in sums.items():
        assert np.nansum(result.tests[column].to_numpy()) == pytest.approx(total, rel=1e-12, abs=0)
    if "selected" in expected:
        rows = [
            (m, f, row["learning_rate"], int(row["min_data_in_leaf"]), int(row["rounds"]))
            for (m, f), row in result.selected.iterrows()
        ]
        assert rows == [s[:5] for s in expected["selected"]]
        np.testing.assert_allclose(
            result.selected["valid_ndcg"], [s[5] for s in expected["selected"]], rtol=1e-12
        )


def test_each_fold_trains_and_tests_as_lightgbm_lambdarank_on_its_queries():
    # parts given: fold i tests on part i, validates on part i - 1, trains on the rest; its
    # lambdarank model is LightGBM's, trained on those queries alone
    X, y, group, _ = make_ranking(30, 10, 5, rng=8)
    parts = np.arange(30) % 3
    experiment = Experiment(
        objectives=["lambdarank"], folds=parts, baseline_feature=0, params=PARAMS, rounds=5
    )
    result = experiment.run(X, y, group)
    starts = np.concatenate([[0], np.cumsum(group)])

    def rows(queries):
        return np.concatenate([np.arange(starts[q], starts[q + 1]) for q in queries])

    for i in range(3):
        train_q, test_q = np.flatnonzero(parts == (i + 1) % 3), np.flatnonzero(parts == i)
        booster = lgb.train(
            {**PARAMS, "objective": "lambdarank"},
            lgb.Dataset(X[rows(train_q)], y[rows(train_q)], group=group[train_q]),
            5,
        )
        expected = ndcg_per_query(booster.predict(X[rows(test_q)]), y[rows(test_q)], group[test_q], k=10)
        np.testing.assert_allclose(
            result.ndcg.loc["lambdarank a=0", test_q.astype(str)], expected, rtol=1e-12
        )
    feature = ndcg_per_query(X[:, 0], y, group, k=10)
    np.testing.assert_array_equal(result.ndcg.loc["feature 0"], feature)
    assert result.ndcg.columns.tolist() == [str(q) for q in range(30)]


def test_learned_baselines_train_on_the_held_out_queries_and_score_every_query():
    X, y, group, _ = make_ranking(40, 8, 4, rng=6)
    result = Experiment(
        objectives=["lambdarank", "georisk"],
        alphas=[1.0],
        folds=3,
        learned_baselines=["linear"],
        holdout=0.25,
        params=PARAMS,
        rounds=3,
        n_resamples=0,
        rng=5,
    ).run(X, y, group)
    # the held-out queries: drawn first from the seed; the others are the tested ones
    held = np.sort(np.random.default_rng(5).permutation(40)[:10])
    assert result.settings["holdout_queries"] == 10
    assert result.ndcg.columns.tolist() == [str(q) for q in np.setdiff1d(np.arange(40), held)]
    # ridge regression (λ = 1, intercept penalised too) on standardised features of the first
    # two thirds of them, solved as least squares on the augmented system
    starts = np.concatenate([[0], np.cumsum(group)])
    docs = np.concatenate([np.arange(starts[q], starts[q + 1]) for q in held[:6]])
    mean, sd = X[docs].mean(axis=0), X[docs].std(axis=0)
    sd[sd == 0] = 1
    Z = np.column_stack([(X[docs] - mean) / sd, np.ones(docs.size)])
    A, b = np.vstack([Z, np.eye(Z.shape[1])]), np.concatenate([y[docs], np.zeros(Z.shape[1])])
    coef = np.linalg.lstsq(A, b, rcond=None)[0]
    scores = ((X - mean) / sd) @ coef[:-1] + coef[-1]
    expected = ndcg_per_query(scores, y, group, k=10)[np.setdiff1d(np.arange(40), held)]
    np.testing.assert_allclose(result.ndcg.loc["linear"], expected, rtol=1e-9)
    assert result.baselines == ("linear",)
    assert set(result.to_frame().index.get_level_values("baseline")) == {"linear"}


def test_every_query_tested_once_and_table7():
    X, y, group, _ = make_ranking(60, 15, 6, rng=0)
    result = Experiment(
        objectives=["lambdarank", "ucro", "georisk"],
        alphas=[1.0],
        folds=3,
        baseline_feature=0,
        learned_baselines=["gbrt", "linear"],
        holdout=0.25,
        params=PARAMS,
        rounds=5,
        n_resamples=0,
    ).run(X, y, group)
    held = result.settings["holdout_queries"]
    assert held == 15
    assert result.ndcg.shape == (3 + 3, 60 - held)
    assert not result.ndcg.isna().any().any()
    table = result.to_frame()
    assert list(table.columns) == ["NDCG@1", "NDCG@10", *MEASURES[1:]]
    assert table.loc[("feature 0", "U-CRO", 1.0), "NDCG@10"] == result.ndcg.loc["ucro a=1"].mean()
    assert (result.ndcg_at[1].loc["ucro a=1"] <= 1).all() and (result.ndcg_at[1] >= 0).all().all()
    assert set(table.index.get_level_values("baseline")) == {"feature 0", "macro"}
    assert ("macro", "LambdaMART", 0.0) in table.index


def test_given_parts_rotate_as_mslr_folds(monkeypatch):
    # four parts told apart by their query length (5, 6, 7, 8 documents): the fold that tests part
    # i validates on part i - 1 and trains on the other two (MSLR-Web10K: Fold1 trains S1-S3,
    # validates on S4, tests S5)
    import riskeval.ltr.experiment as module

    sets = [make_ranking(6, n, 4, rng=n) for n in (5, 6, 7, 8)]
    X = np.vstack([d.X for d in sets])
    y = np.concatenate([d.y for d in sets])
    group = np.concatenate([d.group for d in sets])
    seen = []
    boost = module._boost

    def recording(params, train_set, fobj, rounds, valid_set, stopping):
        seen.append((np.unique(train_set.group).tolist(), np.unique(valid_set.group).tolist()))
        return boost(params, train_set, fobj, rounds, valid_set, stopping)

    monkeypatch.setattr(module, "_boost", recording)
    experiment = Experiment(
        objectives=["lambdarank"],
        folds=np.repeat(np.arange(4), 6),
        baseline_feature=0,
        params=PARAMS,
        rounds=2,
        early_stopping=1,
    )
    folds = list(experiment.split(24).folds())
    assert [(f.train.tolist(), f.valid.tolist(), f.test.tolist()) for f in folds[:1]] == [
        (list(range(6, 18)), list(range(18, 24)), list(range(0, 6)))
    ]
    result = experiment.run(X, y, group)
    assert not result.ndcg.isna().any().any()
    assert seen == [([6, 7], [8]), ([7, 8], [5]), ([5, 8], [6]), ([5, 6], [7])]


def test_each_model_selected_on_validation_and_tested():
    X, y, group, _ = make_ranking(45, 12, 5, rng=2)
    experiment = Experiment(
        objectives=["lambdarank", "tfaro"],
        alphas=[2.0],
        folds=3,
        baseline_feature=0,
        params=PARAMS,
        rounds=30,
        early_stopping=3,
        grid={"learning_rate": [0.05, 0.3], "num_leaves": [3, 7]},
        k=5,
        n_resamples=200,
    )
    result = experiment.run(X, y, group)
    # per model and fold: the grid point of best validation NDCG@5, early-stopped
    selected = result.selected
    assert selected.shape[0] == 2 * 3
    assert set(selected["learning_rate"]) <= {0.05, 0.3} and set(selected["num_leaves"]) <= {3, 7}
    assert (selected["rounds"] <= 30).all() and selected["valid_ndcg"].between(0, 1).all()
    # NDCG@1 and @10 reported besides the objectives' NDCG@5
    assert list(result.to_frame().columns[:3]) == ["NDCG@1", "NDCG@5", "NDCG@10"]
    # significance: T-FARO against LambdaMART and the feature, LambdaMART against the feature
    tests = result.tests
    assert list(tests.index) == [
        ("lambdarank a=0", "feature 0"),
        ("tfaro a=2", "lambdarank a=0"),
        ("tfaro a=2", "feature 0"),
    ]
    s, b = result.ndcg.loc["tfaro a=2"].to_numpy(), result.ndcg.loc["feature 0"].to_numpy()
    t = rk.trisk(s, b, 1.0)
    row = tests.loc[("tfaro a=2", "feature 0")]
    assert row["TRisk"] == pytest.approx(t.statistic) and row["p"] == pytest.approx(t.pvalue)
    np.testing.assert_allclose(tests["p_adj"], rk.inference.adjust_pvalues(tests["p"].to_numpy(), "holm"))
    perm = rk.permutation_test(s, b, alpha=1.0, n_resamples=200, rng=0)
    assert row["p_perm"] == pytest.approx(perm.pvalue)
    # the tests with other settings: Bonferroni and TRisk's jackknife SE (SIGIR 2014, eq. 17-18)
    other = experiment.test(result.ndcg, rk.RiskSettings(correction="bonferroni", se="jackknife"))
    jack = rk.trisk(s, b, 1.0, se="jackknife")
    assert other.loc[("tfaro a=2", "feature 0"), "TRisk"] == pytest.approx(jack.statistic, rel=1e-12)
    np.testing.assert_allclose(other["p_adj"], np.minimum(3 * other["p"], 1))
    unadjusted = experiment.test(result.ndcg, rk.RiskSettings())
    assert list(unadjusted.columns) == ["URisk", "TRisk", "p", "p_perm"]


def test_rng_seeds_the_split_and_the_tests_and_the_seed_is_recorded():
    X, y, group, _ = make_ranking(24, 8, 4, rng=1)
    config = {"objectives": ["lambdarank"], "folds": 3, "baseline_feature": 0, "params": PARAMS}
    config.update(rounds=2, n_resamples=50)
    drawn = Experiment(**config, rng=np.random.default_rng(11)).run(X, y, group)
    seed = drawn.settings["seed"]
    assert isinstance(seed, int)
    again = Experiment(**config, rng=seed).run(X, y, group)
    pd.testing.assert_frame_equal(drawn.ndcg, again.ndcg, check_exact=True)
    pd.testing.assert_frame_equal(drawn.tests, again.tests, check_exact=True)
    assert isinstance(Experiment(**config, rng=None).run(X, y, group).settings["seed"], int)
    # the parts of a seed: queries permuted by numpy's generator of that seed, dealt in turn
    split = Experiment(**config, rng=4).split(24)
    np.testing.assert_array_equal(split.part, np.random.default_rng(4).permutation(24) % 3)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"objectives": ["ucro"], "learned_baselines": ["linear"]},
            "'baseline_feature' parameter of Experiment",
        ),
        (
            {"baseline_feature": 0, "learned_baselines": ["svm"]},
            "'learned_baselines' parameter of Experiment",
        ),
        ({"objectives": ["lambdarank"]}, "give 'baseline_feature' or 'learned_baselines'"),
        ({"baseline_feature": 0, "folds": np.arange(12) % 2}, "'folds' parameter of Experiment"),
        ({"baseline_feature": 0, "folds": 2}, "'folds' parameter of Experiment must be an integer >= 3"),
        ({"baseline_feature": 0, "objectives": "ucro"}, "'objectives' parameter of Experiment"),
        ({"baseline_feature": 0, "sx_update": "every"}, "'sx_update' parameter of Experiment"),
        ({"baseline_feature": 0, "rounds": 0}, "'rounds' parameter of Experiment must be an integer >= 1"),
        ({"baseline_feature": 0, "early_stopping": 0}, "'early_stopping' parameter of Experiment"),
        ({"baseline_feature": 0, "rng": -1}, "'rng' parameter of Experiment"),
        ({"baseline_feature": 0, "correction": "sidak"}, "'correction' parameter of Experiment"),
        ({"learned_baselines": ["linear"], "objectives": ["georisk"], "holdout": 1}, "'holdout' parameter"),
        ({"baseline_feature": 0, "grid": {"num_leaves": []}}, "non-empty list of values"),
        (
            {"baseline_feature": 0, "n_resamples": -1},
            "'n_resamples' parameter of Experiment must be an integer >= 0",
        ),
        (
            {"baseline_feature": 0, "n_resamples": 10**7 + 1},
            "'n_resamples' parameter of Experiment must be at most 10,000,000",
        ),
    ],
)
def test_configuration_errors_name_the_parameter(config, message):
    with pytest.raises(RiskevalError, match=message):
        Experiment(**config)


def test_run_errors_name_the_data():
    X, y, group, _ = make_ranking(12, 5, 3, rng=0)
    with pytest.raises(RiskevalError, match="one part number per query \\(12\\)"):
        Experiment(baseline_feature=0, folds=np.arange(10) % 3).run(X, y, group)
    with pytest.raises(RiskevalError, match="at most the number of queries in the folds \\(12\\)"):
        Experiment(baseline_feature=0, folds=13).run(X, y, group)
    with pytest.raises(RiskevalError, match="one row per label of y \\(60\\)"):
        Experiment(baseline_feature=0).run(X[:10], y, group)
