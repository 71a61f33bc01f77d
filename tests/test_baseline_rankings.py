"""Risk rankings against MEAN, MEDIAN and MAX side by side (Dinçer, Ounis & Macdonald, ECIR 2014,
Table 3): the rank columns of risk_table, baseline_rankings, rankings_wide, ranking_agreement (τ
and τ_AP checked against scipy and a direct loop), the command and the report section."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import riskeval as rk
from riskeval.analysis.baseline_ranks import (
    MEAN_SCORE,
    baseline_rankings,
    ranking_agreement,
    rankings_wide,
)
from riskeval.cli.main import main


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    return pd.DataFrame(
        rng.beta(2, 3, (9, 30)), index=[f"run{i}" for i in range(9)], columns=[f"t{j}" for j in range(30)]
    )


def test_rank_columns_of_risk_table(X):
    t = rk.risk_table(X, baseline="run3", alphas=[0, 5, 10])
    for _, part in t.groupby("alpha"):
        others = part[part["system"] != "run3"]
        for col in ("urisk", "trisk"):
            want = stats.rankdata(-others[col].to_numpy())  # 1 = highest, ties averaged
            np.testing.assert_array_equal(others[f"rank_{col}"].to_numpy(), want)
        np.testing.assert_array_equal(part["rank_georisk"], stats.rankdata(-part["georisk"].to_numpy()))
        own = part[part["system"] == "run3"]
        assert own[["rank_urisk", "rank_trisk"]].isna().all(axis=None)  # the baseline is not ranked
        assert own["rank_georisk"].notna().all()  # GeoRisk has every system as a baseline


def test_baseline_rankings_match_risk_table(X):
    tidy = baseline_rankings(X, ["mean", "median", "max"], [5, 10])
    assert list(tidy.columns) == [
        "system",
        "baseline",
        "alpha",
        "risk",
        "value",
        "rank",
        "mean",
        "rank_mean",
    ]
    assert list(pd.unique(tidy["baseline"])) == ["MEAN", "MEDIAN", "MAX"] and len(tidy) == 9 * 6
    for spec in ("mean", "median", "max"):
        t = rk.risk_table(X, baseline=spec, alphas=[5, 10]).sort_values("alpha", kind="stable")
        part = tidy[tidy["baseline"] == spec.upper()]
        np.testing.assert_allclose(part["value"], t["urisk"])
        np.testing.assert_array_equal(part["rank"], t["rank_urisk"])
    np.testing.assert_allclose(tidy["mean"].iloc[:9], X.mean(axis=1))
    trisk = baseline_rankings(X, "median", [1], risk="TRisk")
    np.testing.assert_allclose(trisk["value"].to_numpy(), rk.risk_table(X, "median", [1])["trisk"])
    at_own = baseline_rankings(X, "median", [5, 10], risk=rk.TRisk(alpha=1, se="jackknife"))
    np.testing.assert_array_equal(at_own["value"].to_numpy(), trisk["value"].to_numpy())
    assert set(at_own["alpha"]) == {1.0} and set(at_own["risk"]) == {"TRisk"}
    with pytest.raises(rk.RiskevalError, match="must be a measure against the baseline.*URisk, TRisk") as err:
        baseline_rankings(X, risk="ZRisk")
    assert "Got 'ZRisk', computed with every system as a baseline." in str(err.value)
    with pytest.raises(rk.RiskevalError, match="Got 'TStarRisk', computed against the per-topic MEAN"):
        baseline_rankings(X, risk="T*Risk")


def test_max_baseline_ranks_by_mean(X):
    # Against MAX every topic is a loss or a tie: URisk(α) = (1 + α)(mean − mean of MAX), so its
    # ranking is the ranking by mean score at every α (ECIR 2014, Table 3, columns MAX).
    tidy = baseline_rankings(X, "max", [0, 5, 10])
    top = X.max().mean()
    np.testing.assert_allclose(tidy["value"], (1 + tidy["alpha"]) * (tidy["mean"] - top), atol=1e-12)
    np.testing.assert_array_equal(tidy["rank"], tidy["rank_mean"])


def test_mean_baseline_ugain_is_the_mean_minus_the_grand_mean(X):
    # Against MEAN, URisk(α) = UGain − (1 + α)·ULoss, so 2·URisk(5) − URisk(10) = UGain − ULoss: the
    # run's mean minus the mean of the per-topic MEAN (ECIR 2014, Table 3, columns MEAN).
    wide = baseline_rankings(X, "mean", [5, 10]).pivot(index="system", columns="alpha", values="value")
    np.testing.assert_allclose(2 * wide[5.0] - wide[10.0], X.mean(axis=1) - X.to_numpy().mean(), atol=1e-12)


def _tau_ap_loop(ref: np.ndarray, ev: np.ndarray) -> float:
    """Yilmaz, Aslam & Robertson (SIGIR 2008), eq. 2, for rankings without ties."""
    order = np.argsort(-ev)
    n = len(order)
    total = 0.0
    for i in range(1, n):
        above = order[:i]
        total += np.sum(ref[above] > ref[order[i]]) / i
    return 2 * total / (n - 1) - 1


def test_ranking_agreement_brute_force(X):
    tidy = baseline_rankings(X, ["mean", "median"], [1, 10])
    agree = ranking_agreement(tidy)
    assert len(agree) == 5 * 4 and (agree["n_systems"] == 9).all()
    series = {(MEAN_SCORE, None): X.mean(axis=1).to_numpy()}
    for (b, a), part in tidy.groupby(["baseline", "alpha"]):
        series[(b, a)] = part.set_index("system").loc[X.index, "value"].to_numpy()
    for row in agree.itertuples():
        ref = series[(row.reference_baseline, None if np.isnan(row.reference_alpha) else row.reference_alpha)]
        ev = series[(row.baseline, None if np.isnan(row.alpha) else row.alpha)]
        assert row.tau == pytest.approx(stats.kendalltau(ref, ev).statistic)
        assert row.tau_ap == pytest.approx(_tau_ap_loop(ref, ev))
    # a named baseline is left out of every ranking
    named = ranking_agreement(baseline_rankings(X, ["mean", "run0"], [5]))
    assert (named["n_systems"] == 8).all()


def test_rankings_wide_is_table_3_layout(X):
    wide = rankings_wide(baseline_rankings(X))
    assert wide.columns[:2].tolist() == [("", "", "mean"), ("", "", "rank")]
    assert wide.columns[2:4].tolist() == [("MEAN", "α = 5", "URisk"), ("MEAN", "α = 5", "rank")]
    assert wide.shape == (9, 2 + 12) and wide[("", "", "mean")].is_monotonic_decreasing


def test_command(X, tmp_path, capsys):
    path = tmp_path / "scores.csv"
    X.rename_axis(index="system").to_csv(path)
    main(["baseline-rankings", str(path)])
    lines = capsys.readouterr().out.splitlines()
    assert "URisk against MEAN, MEDIAN, MAX at α = 5, 10" in lines[0] and "MAX α=10 rank" in lines[1]
    main(["baseline-rankings", str(path), "--alpha", "1", "--show", "agreement", "--format", "csv"])
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    want = ranking_agreement(baseline_rankings(X, alphas=[1]))
    np.testing.assert_allclose(got["tau_ap"], want["tau_ap"])
    main(
        [
            "baseline-rankings",
            str(path),
            "--baselines",
            "mean,run2",
            "--risk",
            "TRisk",
            "--format",
            "csv",
        ]
    )
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(got["baseline"]) == {"MEAN", "run2"} and set(got["risk"]) == {"TRisk"}


def test_report_section(X):
    from riskeval.reporting.paper_sections import baseline_rankings_section

    Y = X.rename(index={"run0": "<b>run0</b>"})
    r = rk.report(Y, alphas=[0, 5], sections=[baseline_rankings_section])
    assert r.sections == ("Risk rankings under unbiased baselines",)
    assert "&lt;b&gt;run0&lt;/b&gt;" in r.html and "<b>run0" not in r.html
    assert "MEDIAN, α = 5" in r.html and "τ_AP" in r.html


def test_report_ranks_keep_ties():
    from riskeval.reporting.paper_sections import rank

    assert [rank(v) for v in (1.0, 2.5, float("nan"), None)] == ["1", "2.5", "–", "–"]
    tied = pd.DataFrame([[0.2, 0.4], [0.2, 0.4], [0.5, 0.1]], index=["a", "b", "c"], columns=["t1", "t2"])
    t = rk.risk_table(tied, "mean", [1])
    assert t["rank_urisk"].tolist() == [1.5, 1.5, 3.0]
    from riskeval.reporting.sections import summary_section

    html = rk.report(tied, alphas=[1], sections=[summary_section]).html  # the full risk table
    assert html.count("<td>1.5</td>") >= 2 and "<td>1.5000</td>" not in html
