"""Two runs topic by topic (Dinçer, Ounis & Macdonald, ECIR 2014, Figure 3), the risk–reward
trade-off (§5) and the PCA biplot with projected baselines (Figures 1–2, footnote 5): checked
against riskeval's urisk, a brute-force Pareto front and numpy's SVD; hypothesis for the mirror
identity; displays and commands."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import riskeval as rk
from riskeval.cli.main import main

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        rng.beta(2, 2, (7, 15)), index=[f"r{i}" for i in range(7)], columns=[f"q{j}" for j in range(15)]
    )


def test_compare_runs(X):
    t = rk.compare_runs(X, "r1", "r4", alpha=5)
    assert list(t.columns) == [
        "topic",
        "system_a",
        "system_b",
        "alpha",
        "score_a",
        "score_b",
        "delta",
        "x_a",
        "x_b",
    ]
    assert t["x_a"].mean() == pytest.approx(rk.urisk(X.loc["r1"], X.loc["r4"], alpha=5))
    assert t["x_b"].mean() == pytest.approx(rk.urisk(X.loc["r4"], X.loc["r1"], alpha=5))
    assert ((t["x_a"] < 0).sum(), (t["x_b"] < 0).sum()) == ((t["delta"] < 0).sum(), (t["delta"] > 0).sum())
    with pytest.raises(rk.RiskevalError, match="no system 'zz'"):
        rk.compare_runs(X, "r1", "zz")


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.just(2), st.integers(2, 12)), elements=st.floats(0, 1, width=32)),
    st.floats(0, 20),
)
def test_mirror_identity(values, alpha):
    t = rk.compare_runs(pd.DataFrame(values, index=["a", "b"]), "a", "b", alpha)
    # whichever run loses a topic pays (1 + α) times what the other gains
    np.testing.assert_allclose(t["x_a"] + t["x_b"], -alpha * t["delta"].abs(), atol=1e-12)
    assert (np.sign(t["x_a"]) == np.sign(t["delta"])).all()


def test_risk_reward_tradeoff(X):
    t = rk.analysis.risk_reward_tradeoff(X, "r0")
    table = rk.risk_table(X, "r0", alphas=[0])
    np.testing.assert_allclose(t["frisk"], table["frisk"])
    np.testing.assert_allclose(t["mean"], table["mean"])
    for i, row in t.iterrows():
        others = t.drop(index=i)
        dominated = (
            (others["mean"] >= row["mean"])
            & (others["frisk"] <= row["frisk"])
            & ((others["mean"] > row["mean"]) | (others["frisk"] < row["frisk"]))
        ).any()
        assert row["pareto"] == (not dominated)
    assert t.loc[t["mean"].idxmax(), "pareto"]  # the best mean is never dominated


def test_pca_biplot_projects_the_baselines(X):
    res = rk.analysis.pca_biplot(X, n_topics=4)
    centred = X.to_numpy() - X.to_numpy().mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    np.testing.assert_allclose(np.abs(res.loadings.to_numpy()), np.abs(vt.T), atol=1e-10)
    np.testing.assert_allclose(res.explained.to_numpy(), 100 * s**2 / (s**2).sum())
    # MEAN projects onto the origin exactly (footnote 5); MEDIAN and MAX by the same loadings
    np.testing.assert_allclose(res.supplementary.loc["MEAN"], 0.0, atol=1e-12)
    for kind in ("median", "max"):
        want = (
            rk.analysis.baseline(X, kind).to_numpy() - X.to_numpy().mean(axis=0)
        ) @ res.loadings.to_numpy()
        np.testing.assert_allclose(res.supplementary.loc[kind.upper()], want, atol=1e-12)
    # projecting does not move the axes: the same coordinates as without virtual runs
    bare = rk.analysis.pca_biplot(X, virtual=())
    pd.testing.assert_frame_equal(bare.coordinates, res.coordinates)
    assert bare.supplementary.empty
    pc2 = res.pc2_topics
    assert len(pc2) == 4 and pc2["loading"].abs().is_monotonic_decreasing
    top = res.loadings["PC2"].abs().nlargest(4)
    assert set(pc2["topic"]) == set(top.index)
    assert ((pc2["loading"] >= 0) == (pc2["side"] == "positive")).all()
    with pytest.raises(rk.RiskevalError, match="n_topics"):
        rk.analysis.pca_biplot(X, n_topics=0)


def test_displays(X):
    from riskeval.plots.paper import plot_pca_biplot, plot_risk_reward, plot_run_comparison

    d = plot_run_comparison(X, "r1", "r4", alpha=5)
    assert len(d.axes_) == 3 and len(d.bars_[0]) == 15 and len(d.risk_bars_) == 2
    heights = [bar.get_height() for bar in d.risk_bars_[0]]  # panel b: r4 with r1 as the baseline
    np.testing.assert_allclose(heights, d.table["x_b"])
    rr = plot_risk_reward(X, "mean")
    np.testing.assert_allclose(rr.points_.get_offsets()[:, 1], X.mean(axis=1))
    pb = plot_pca_biplot(X, n_topics=3)
    assert len(pb.arrows_) == 3 and len(pb.supplementary_points_.get_offsets()) == 3
    fig, axes = matplotlib.pyplot.subplots(1, 3)
    with pytest.raises(rk.RiskevalError, match="three axes"):
        d.plot(axes[:2])
    assert d.plot(axes).figure_ is fig
    matplotlib.pyplot.close("all")


def test_commands(X, tmp_path, capsys):
    path = tmp_path / "scores.csv"
    X.rename_axis(index="system").to_csv(path)
    main(["compare-runs", str(path), "--runs", "r1,r4", "--format", "csv"])
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(got["x_b"], rk.compare_runs(X, "r1", "r4")["x_b"])
    main(["risk-reward", str(path), "-b", "r2", "--format", "csv"])
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert got["pareto"].dtype == bool and (got["baseline"] == "r2").all()
    main(["pca-topics", str(path), "--topics", "3"])
    out = capsys.readouterr().out
    assert "projected baselines (PC1, PC2): MEAN (0.000, 0.000)" in out
    with pytest.raises(SystemExit) as exc:
        main(["compare-runs", str(path), "--runs", "r1"])
    assert exc.value.code == 2


def _summary(path, capsys, *options):
    main(["compare-runs", str(path), "--runs", "r1,r4", "--alpha", "1,5", "--show", "summary", *options])
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_compare_runs_t_test_and_interval_are_scipys(X, tmp_path, capsys):
    from scipy import stats

    path = tmp_path / "scores.csv"
    X.to_csv(path)
    got = _summary(path, capsys, "--format", "csv", "--level", "0.1")
    assert list(got.columns) == ["statistic", "alpha", "estimate", "pvalue", "low", "high", "test", "level"]
    a, b = X.loc["r1"].to_numpy(), X.loc["r4"].to_numpy()
    ttest = stats.ttest_rel(a, b)
    ci = ttest.confidence_interval(0.9)
    assert got.loc[0, "statistic"] == "mean r1 − r4" and np.isnan(got.loc[0, "alpha"])
    np.testing.assert_allclose(
        got.loc[0, ["estimate", "pvalue", "low", "high"]].astype(float),
        [(a - b).mean(), ttest.pvalue, ci.low, ci.high],
        rtol=1e-10,
    )
    for k, alpha in enumerate((1.0, 5.0), start=1):
        x = rk.compare_runs(X, "r1", "r4", alpha)["x_a"].to_numpy()
        one = stats.ttest_1samp(x, 0.0)
        ci = one.confidence_interval(0.9)
        assert got.loc[k, "alpha"] == alpha and got.loc[k, "statistic"] == "URisk of r1 against r4"
        np.testing.assert_allclose(
            got.loc[k, ["estimate", "pvalue", "low", "high"]].astype(float),
            [x.mean(), one.pvalue, ci.low, ci.high],
            rtol=1e-10,
        )


def test_compare_runs_resampling_tests_are_riskevals(X, tmp_path, capsys):
    path = tmp_path / "scores.csv"
    X.to_csv(path)
    perm = _summary(
        path, capsys, "--format", "csv", "--test", "permutation", "--seed", "4", "--n-resamples", "999"
    )
    for k, alpha in enumerate((0.0, 1.0, 5.0)):
        res = rk.permutation_test(X.loc["r1"], X.loc["r4"], alpha, n_resamples=999, rng=4)
        assert perm.loc[k, "pvalue"] == pytest.approx(res.pvalue)
    assert perm[["low", "high"]].isna().all().all() and set(perm["seed"]) == {4}
    boot = _summary(
        path, capsys, "--format", "csv", "--test", "bootstrap", "--seed", "4", "--n-resamples", "999"
    )
    want = rk.bootstrap_ci(
        X.loc[["r1", "r4"]], "r4", [0, 1, 5], risk="URisk", method="bca", n_resamples=999, rng=4
    )
    want = want[want["system"] == "r1"].reset_index(drop=True)
    np.testing.assert_allclose(
        boot[["estimate", "pvalue", "low", "high"]], want[["estimate", "pvalue", "low", "high"]]
    )


def test_compare_runs_shows_the_difference_above_the_topics(X, tmp_path, capsys):
    path = tmp_path / "scores.csv"
    X.to_csv(path)
    main(
        [
            "compare-runs",
            str(path),
            "--runs",
            "r1,r4",
            "--test",
            "bootstrap",
            "--seed",
            "2",
            "--n-resamples",
            "500",
        ]
    )
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert "p-values and 95% intervals: BCa bootstrap over topics, 500 resamples, seed 2" in lines[0]
    assert lines[1].startswith("mean of r1 − r4: ") and ", p = " in lines[1] and ", interval [" in lines[1]
    assert lines[2].startswith("α = 5: URisk of r1 against r4: ") and ", interval [" in lines[2]
    assert len([line for line in lines if line.lstrip().startswith("q")]) == X.shape[1]  # the topics
    main(["compare-runs", str(path), "--runs", "r1,r4", "--test", "permutation", "--seed", "2"])
    text = capsys.readouterr().out
    assert "(no interval)" in text and "interval [" not in text
    with pytest.raises(SystemExit) as exit_:
        main(["compare-runs", str(path), "--runs", "r1,r4", "--test", "wilcoxon"])
    assert (
        exit_.value.code == 2
        and "'--test' parameter of riskeval compare-runs must be one of 't', 'permutation', 'bootstrap'. Got 'wilcoxon'."
        in capsys.readouterr().err
    )
