"""ZRisk and GeoRisk against the golden values of Dinçer, Macdonald & Ounis, SIGIR 2016 (eq. 4–8,
Tables 3–5)."""

import re

import numpy as np
import pandas as pd
import pytest

import riskeval as rk

# Table 3 (8 systems × 5 topics).  s1–s6 and column t1 are printed in the paper; the text of columns
# t2–t5 of s7 and s8 is garbled in the seed, and the 4-decimal values below are the only ones that
# reproduce every entry of Tables 4 and 5 (a search over the 4-decimal grid around the solution of
# Table 4's z equations).
TABLE3 = pd.DataFrame(
    [
        [0.05, 0.15, 0.30, 0.45, 0.55],
        [0.40, 0.35, 0.30, 0.25, 0.20],
        [0.30, 0.30, 0.30, 0.30, 0.30],
        [0.25, 0.25, 0.25, 0.25, 0.25],
        [0.40, 0.15, 0.40, 0.15, 0.40],
        [0.20, 0.45, 0.20, 0.45, 0.20],
        [0.2542, 0.2629, 0.2802, 0.2975, 0.3061],
        [0.2918, 0.2994, 0.3147, 0.3301, 0.3378],
    ],
    index=[f"s{i}" for i in range(1, 9)],
    columns=[f"t{j}" for j in range(1, 6)],
)

# Table 4: ZRisk at α = 0 of s_i against the single baseline s1, and of s1 against s_i.
TABLE4 = {
    "s2": (0.1141, -0.1141),
    "s3": (0.1427, -0.1427),
    "s4": (0.1583, -0.1445),
    "s5": (0.0708, -0.0708),
    "s6": (0.1002, -0.1002),
    "s7": (0.1496, -0.1446),
    "s8": (0.1408, -0.1442),
}

# Table 5: ZRisk and GeoRisk with all 8 systems as baselines, α = 0, 1, 5, 10.
TABLE5_Z = {
    0: [-0.049, 0.026, 0.006, 0.005, 0.006, 0.005, -0.001, 0.001],
    1: [-0.727, -0.312, -0.069, -0.063, -0.541, -0.539, -0.008, -0.010],
    5: [-3.442, -1.668, -0.368, -0.336, -2.727, -2.718, -0.036, -0.052],
    10: [-6.835, -3.362, -0.742, -0.677, -5.460, -5.442, -0.072, -0.106],
}
TABLE5_GEO = {
    0: [0.386, 0.388, 0.387, 0.354, 0.387, 0.387, 0.374, 0.397],
    1: [0.364, 0.378, 0.385, 0.352, 0.370, 0.370, 0.374, 0.396],
    5: [0.271, 0.333, 0.376, 0.344, 0.296, 0.297, 0.373, 0.395],
    10: [0.160, 0.274, 0.364, 0.334, 0.203, 0.204, 0.372, 0.393],
}


@pytest.mark.parametrize("alpha", [0, 1, 5, 10])
def test_table5_multiple_baselines(alpha):
    z = rk.zrisk(TABLE3, alpha=alpha)
    g = rk.georisk(TABLE3, alpha=alpha)
    np.testing.assert_array_equal(np.round(z.to_numpy(), 3), TABLE5_Z[alpha])
    np.testing.assert_array_equal(np.round(g.to_numpy(), 3), TABLE5_GEO[alpha])
    assert list(z.index) == list(TABLE3.index)


def test_table5_every_alpha_in_one_call():
    """Several α give a systems × α frame whose columns are Table 5's columns."""
    for measure, table in ((rk.zrisk, TABLE5_Z), (rk.georisk, TABLE5_GEO)):
        got = measure(TABLE3, [0, 1, 5, 10])
        assert got.columns.name == "alpha" and list(got.columns) == [0, 1, 5, 10]
        assert list(got.index) == list(TABLE3.index)
        for alpha, column in table.items():
            np.testing.assert_array_equal(np.round(got[alpha].to_numpy(), 3), column)


def test_table4_single_baseline():
    z = rk.zrisk(TABLE3, alpha=0, baseline="s1")
    for name, (s_vs_s1, s1_vs_s) in TABLE4.items():
        assert round(z[name], 4) == s_vs_s1
        back = rk.zrisk(TABLE3.loc[["s1"]], alpha=0, baseline=TABLE3.loc[name])
        assert round(back["s1"], 4) == s1_vs_s
    assert z["s1"] == pytest.approx(0.0, abs=1e-12)  # a system against itself: every z is 0


def test_single_baseline_equals_two_row_matrix():
    """Single baseline = the 2-row matrix [s; b] (SIGIR 2016, eq. 8 and Table 4)."""
    for name in TABLE3.index[1:]:
        two = rk.zrisk(TABLE3.loc[[name, "s1"]], alpha=3.0)
        assert rk.zrisk(TABLE3, alpha=3.0, baseline="s1")[name] == pytest.approx(two[name], abs=1e-12)


def test_baseline_systems_matrix_equals_stacked_matrix():
    """Against a set of baseline systems Y: ZRisk of s within the matrix [s; Y]."""
    Y = TABLE3.iloc[4:]
    got = rk.georisk(TABLE3.iloc[:4], alpha=2.0, baseline=Y)
    for name in TABLE3.index[:4]:
        stacked = pd.concat([TABLE3.loc[[name]], Y])
        assert got[name] == pytest.approx(rk.georisk(stacked, alpha=2.0)[name], abs=1e-12)


def test_zero_cells_have_zero_z():
    """A cell with e_ij = 0 (all-zero topic or system) has z_ij = 0 (riskeval's convention: eq. 4
    would divide by zero, and such a cell carries no evidence either way)."""
    X = TABLE3.copy()
    X["t6"] = 0.0
    Y = pd.concat([TABLE3, pd.DataFrame([[0.0] * 5], index=["zero"], columns=TABLE3.columns)])
    z = rk.zrisk(Y, alpha=1.0)
    assert z["zero"] == 0.0
    assert rk.georisk(Y, alpha=1.0)["zero"] == 0.0
    # an all-zero topic changes S and N by nothing, so ZRisk is unchanged
    np.testing.assert_allclose(rk.zrisk(X, 1.0), rk.zrisk(TABLE3, 1.0), atol=1e-12)


def test_baseline_systems_with_missing_scores_are_named():
    Y = TABLE3.iloc[4:].copy()
    Y.loc["s6", "t2"] = np.nan
    with pytest.raises(rk.RiskevalError, match=r"^baseline has 1 missing \(NaN\) cell"):
        rk.zrisk(TABLE3.iloc[:4], baseline=Y)


def test_negative_scores_refused():
    X = TABLE3.copy()
    X.loc["s1", "t1"] = 0.0  # zero is allowed, and comes first
    X.loc["s3", "t2"] = -0.1
    message = r"^zrisk needs scores >= 0 \(chi-square expected values\); found 1 negative score\(s\), "
    with pytest.raises(rk.RiskevalError, match=message + r"e.g. -0.1 for system 's3', topic 't2'\.$"):
        rk.zrisk(X)
    b = TABLE3.loc["s1"].copy()
    b["t4"] = -0.2
    with pytest.raises(rk.RiskevalError, match=message + r"e.g. -0.2 for system 'baseline', topic 't4'\.$"):
        rk.zrisk(TABLE3, baseline=b)


def test_baseline_systems_lacking_topics_are_named():
    X = pd.DataFrame(np.full((2, 12), 0.5), index=["a", "b"], columns=[f"t{j:02d}" for j in range(12)])
    Y = X[["t00"]].rename(index={"a": "y1", "b": "y2"})
    names = [f"t{j:02d}" for j in range(1, 11)]  # the first 10 of the 11 missing
    with pytest.raises(rk.RiskevalError, match=re.escape(f"lack 11 topic(s) of the matrix: {names}.")):
        rk.zrisk(X, baseline=Y)
