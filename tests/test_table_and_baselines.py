"""Baselines (Dinçer, Ounis & Macdonald, ECIR 2014, §3), risk_table (every α from one pass over the
matrix) and multiple-testing corrections."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from statsmodels.stats.multitest import multipletests

import riskeval as rk

RNG = np.random.default_rng(20140413)
M = pd.DataFrame(
    RNG.beta(2, 5, size=(7, 40)),
    index=[f"run{i}" for i in range(7)],
    columns=[str(400 + j) for j in range(40)],
)

matrices = arrays(
    np.float64,
    st.tuples(st.integers(2, 7), st.integers(1, 9)),
    elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 1.0]),
)


def test_baselines_and_risk_table_of_the_readme_example():
    X = pd.DataFrame(
        [[0.05, 0.15, 0.30, 0.45, 0.55], [0.40, 0.35, 0.30, 0.25, 0.20]],
        index=["s1", "s2"],
        columns=list("abcde"),
    )
    b = rk.analysis.baseline(X, "mean")
    assert isinstance(b, pd.Series) and list(b.index) == list("abcde")
    np.testing.assert_allclose(b, [0.225, 0.25, 0.30, 0.35, 0.375])
    t = rk.risk_table(X, baseline="mean", alphas=[0, 1, 5, 10])
    assert isinstance(t, pd.DataFrame) and len(t) == 8
    assert list(t[["system", "alpha"]].itertuples(index=False, name=None))[:2] == [("s1", 0.0), ("s1", 1.0)]


@settings(max_examples=80, deadline=None)
@given(matrices, st.sampled_from(["mean", "median", "max"]))
def test_leave_one_out_baselines_match_brute_force(values, kind):
    X = pd.DataFrame(values)
    loo = rk.analysis.loo_baseline(X, kind).to_numpy()
    f = {"mean": np.mean, "median": np.median, "max": np.max}[kind]
    for i in range(values.shape[0]):
        others = np.delete(values, i, axis=0)
        np.testing.assert_allclose(loo[i], f(others, axis=0), atol=1e-15)


def test_aggregate_baselines():
    np.testing.assert_allclose(rk.analysis.baseline(M, "median"), np.median(M.to_numpy(), axis=0))
    np.testing.assert_allclose(rk.analysis.baseline(M, "max"), M.max())
    assert rk.analysis.baseline(M, "max").name == "MAX"


@pytest.mark.parametrize("baseline", ["mean", "median", "max", "run3"])
@pytest.mark.parametrize("leave_one_out", [False, True])
def test_risk_table_matches_per_system_functions(baseline, leave_one_out):
    alphas = [0, 0.5, 1, 5, 10]
    t = rk.risk_table(M, baseline=baseline, alphas=alphas, leave_one_out=leave_one_out)
    assert len(t) == len(M) * len(alphas)
    for row in t.itertuples():
        if baseline in M.index:
            b = M.loc[baseline]
        elif leave_one_out:
            b = rk.analysis.baseline(M.drop(index=row.system), baseline)
        else:
            b = rk.analysis.baseline(M, baseline)
        s = M.loc[row.system]
        ref = rk.trisk(s, b, alpha=row.alpha)
        rr = rk.analysis.risk_reward(s, b)
        assert row.urisk == pytest.approx(ref.urisk, abs=1e-12)
        assert row.se == pytest.approx(ref.se, rel=1e-9, abs=1e-15)
        if np.isnan(ref.statistic):
            assert np.isnan(row.trisk) and row.reason == "the system is the baseline"
        else:
            assert row.trisk == pytest.approx(ref.statistic, rel=1e-9)
            assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
        assert (row.wins, row.losses, row.loss20) == (rr.wins, rr.losses, rr.loss20)
        assert (row.frisk, row.freward) == pytest.approx((rr.frisk, rr.freward), abs=1e-12)
        mean_b = (
            rk.analysis.baseline(M.drop(index=row.system), "mean")
            if leave_one_out
            else rk.analysis.baseline(M)
        )
        tstar = rk.trisk(s, mean_b, alpha=row.alpha).statistic
        assert row.tstar == pytest.approx(tstar, rel=1e-9)
        assert row.zrisk == pytest.approx(rk.zrisk(M, row.alpha)[row.system], rel=1e-12)
        assert row.georisk == pytest.approx(rk.georisk(M, row.alpha)[row.system], rel=1e-12)


@pytest.mark.parametrize(
    ("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")]
)
def test_corrections_match_statsmodels(ours, theirs):
    p = np.r_[RNG.uniform(0, 0.1, 10), RNG.uniform(0, 1, 20), np.nan]
    got = rk.inference.adjust_pvalues(p, ours)
    ref = multipletests(p[:-1], method=theirs)[1]
    np.testing.assert_allclose(got[:-1], ref, rtol=1e-12)
    assert np.isnan(got[-1])


def test_risk_table_correction_per_alpha():
    t = rk.risk_table(M, baseline="mean", alphas=[0, 5], correction="holm")
    for _, part in t.groupby("alpha"):
        ref = multipletests(part["pvalue"], method="holm")[1]
        np.testing.assert_allclose(part["pvalue_adj"], ref, rtol=1e-12)
        assert (part["significant"] == (part["pvalue_adj"] < 0.05)).all()


def test_risk_table_self_baseline_row_has_reason_not_exception():
    t = rk.risk_table(M, baseline="run2", alphas=[1])
    row = t.set_index("system").loc["run2"]
    assert row.urisk == 0 and np.isnan(row.trisk) and row.reason == "the system is the baseline"
    assert not row.significant


def test_risk_table_negative_scores_warn_and_leave_zrisk_nan():
    with pytest.warns(rk.errors.RiskevalWarning, match="ZRisk and GeoRisk need scores >= 0"):
        t = rk.risk_table(M - 0.5, alphas=[1])
    assert t["zrisk"].isna().all() and t["urisk"].notna().all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"baseline": "nosuch"}, r"names no system of the matrix: 'nosuch'"),
        ({"baseline": [0.1, 0.2]}, r"or a vector of 40 scores\. Got list of shape \(2,\)"),
        ({"alphas": []}, r"'alphas' parameter of risk_table must list at least one value"),
        ({"alphas": [1, -2]}, r"'alpha' parameter of risk_table must be a finite number >= 0\. Got -2"),
        ({"correction": "sidak"}, r"'correction' parameter of risk_table must be one of"),
        ({"level": 0}, r"'level' parameter of risk_table"),
    ],
)
def test_risk_table_bad_parameters(kwargs, message):
    with pytest.raises(rk.RiskevalError, match=message):
        rk.risk_table(M, **kwargs)


def test_matrix_with_missing_cells_points_to_the_policy():
    X = M.copy()
    X.iloc[1, 3] = np.nan
    with pytest.raises(
        rk.errors.MissingTopicsError, match=r"1 missing \(NaN\) cell.*missing='zero' or 'drop'"
    ):
        rk.risk_table(X)
