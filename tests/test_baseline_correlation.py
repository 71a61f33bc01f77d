"""Correlation with the baseline beside URisk (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3): checked
against scipy's pearsonr and riskeval's urisk system by system, and against the bias study for
every system in turn as the baseline; properties with hypothesis; the display and the command."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import riskeval as rk
from riskeval.cli.main import main

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 20)
    rows = [
        base,
        *(np.clip(base * w + rng.uniform(0, 1, 20) * (1 - w), 0, 1) for w in np.linspace(0, 0.9, 7)),
    ]
    return pd.DataFrame(
        rows, index=["base", *[f"s{i}" for i in range(7)]], columns=[f"t{j}" for j in range(20)]
    )


def test_against_one_baseline_brute_force(X):
    res = rk.analysis.baseline_correlation(X, "base", alpha=5)
    t = res.table.set_index("system")
    assert t.loc["base", "is_baseline"] and not t.drop(index="base")["is_baseline"].any()
    for s in X.index.drop("base"):
        assert t.loc[s, "pearson"] == pytest.approx(
            stats.pearsonr(X.loc[s], X.loc["base"]).statistic, abs=1e-12
        )
        assert t.loc[s, "urisk"] == pytest.approx(rk.urisk(X.loc[s], X.loc["base"], alpha=5), abs=1e-12)
        r = rk.analysis.risk_reward(X.loc[s], X.loc["base"])
        assert t.loc[s, "frisk"] == pytest.approx(r.frisk) and t.loc[s, "ugain"] == pytest.approx(r.ugain)
    others = t.drop(index="base")
    ref = stats.pearsonr(others["pearson"], others["urisk"])
    assert (res.statistic, res.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
    statistic, pvalue = res
    assert statistic == res.statistic and res.n_pairs == 7 and res.baseline == "base"
    assert res.frisk_statistic == pytest.approx(stats.pearsonr(others["pearson"], others["frisk"]).statistic)
    # the systems built to follow the baseline more closely gain URisk: the paper's claim holds here
    assert res.statistic > 0.5 and res.frisk_statistic < -0.5
    assert list(res.to_frame().columns) == [
        "statistic",
        "pvalue",
        "frisk_statistic",
        "frisk_pvalue",
        "n_pairs",
        "alpha",
        "baseline",
    ]


def test_every_system_in_turn_matches_the_bias_study(X):
    res = rk.analysis.baseline_correlation(X, alpha=10)
    study = rk.bias_study(X, alpha=10, virtual=())
    t = res.table
    assert len(t) == 64 and res.n_pairs == 56 and res.baseline == "each system"
    wide = t.pivot(index="baseline", columns="system", values="urisk").loc[X.index, X.index]
    np.testing.assert_allclose(wide.to_numpy(), study.urisk.loc[X.index, X.index].to_numpy(), atol=1e-12)
    rho = t.pivot(index="baseline", columns="system", values="pearson").loc[X.index, X.index]
    np.testing.assert_allclose(rho.to_numpy(), study.correlation.loc[X.index, X.index].to_numpy(), atol=1e-12)


def test_aggregate_and_per_system_baselines(X):
    res = rk.analysis.baseline_correlation(X, "mean", alpha=1, leave_one_out=True)
    loo = rk.analysis.loo_baseline(X, "mean")
    got = res.table.set_index("system")["pearson"]
    for s in X.index:
        assert got[s] == pytest.approx(np.corrcoef(X.loc[s], loo.loc[s])[0, 1], abs=1e-12)
    own = rk.analysis.baseline_runs(X, {s: "base" for s in X.index})
    by_frame = rk.analysis.baseline_correlation(X, own, alpha=1).table
    named = rk.analysis.baseline_correlation(X, "base", alpha=1).table
    pd.testing.assert_frame_equal(by_frame.drop(columns="baseline"), named.drop(columns="baseline"))


def test_constant_run_is_left_out():
    X = pd.DataFrame([[0.5, 0.5, 0.5], [0.1, 0.4, 0.2], [0.3, 0.2, 0.9], [0.2, 0.6, 0.1]], index=list("abcd"))
    res = rk.analysis.baseline_correlation(X, "b")
    assert np.isnan(res.table.set_index("system").loc["a", "pearson"]) and res.n_pairs == 2
    assert np.isnan(res.statistic)  # fewer than 3 pairs
    with pytest.raises(rk.RiskevalError, match="alpha"):
        rk.analysis.baseline_correlation(X, "b", alpha=-1)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 9)), elements=st.floats(0, 1, width=32))
)
def test_properties(values):
    X = pd.DataFrame(values)
    t = rk.analysis.baseline_correlation(X, alpha=2).table
    rho = t["pearson"].dropna()
    assert ((rho >= -1) & (rho <= 1)).all()
    # URisk = UGain − α·FRisk, FRisk ≥ 0, and a system against itself has URisk 0
    np.testing.assert_allclose(t["urisk"], t["ugain"] - 2 * t["frisk"], atol=1e-12)
    assert (t["frisk"] >= 0).all() and (t.loc[t["is_baseline"], "urisk"].abs() < 1e-12).all()


def test_display(X):
    from riskeval.plots.paper import BaselineCorrelationDisplay, plot_baseline_correlation

    d = plot_baseline_correlation(X, "base", alpha=5)
    assert len(d.labels_) == 7 and d.fit_line_ is not None
    np.testing.assert_allclose(d.points_.get_offsets()[:, 0], d.table["pearson"].iloc[1:])
    assert "r = " in d.ax_.get_title()
    again = BaselineCorrelationDisplay.from_result(rk.analysis.baseline_correlation(X, alpha=5)).plot(
        annotate=False
    )
    assert len(again.points_.get_offsets()) == 56 and again.labels_ == []
    matplotlib.pyplot.close("all")


def test_command(X, tmp_path, capsys):
    path = tmp_path / "scores.csv"
    X.rename_axis(index="system").to_csv(path)
    main(["baseline-correlation", str(path), "--baseline", "base", "--alpha", "5", "--format", "csv"])
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(got["urisk"], rk.analysis.baseline_correlation(X, "base", 5).table["urisk"])
    main(["baseline-correlation", str(path)])
    out = capsys.readouterr().out
    assert "against each system in turn; 56 pairs" in out.splitlines()[0]
    with pytest.raises(SystemExit) as exc:
        main(["baseline-correlation", str(path), "--baseline", "nope"])
    assert exc.value.code == 2 and "names no system" in capsys.readouterr().err
