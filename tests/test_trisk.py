"""URisk/TRisk and the per-topic analysis (Dinçer, Macdonald & Ounis, SIGIR 2014, §2–5)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import riskeval as rk

X = pd.DataFrame(
    [[0.05, 0.15, 0.30, 0.45, 0.55], [0.40, 0.35, 0.30, 0.25, 0.20]],
    index=["s1", "s2"],
    columns=list("abcde"),
)

scores = st.floats(0.0, 1.0, allow_nan=False, width=64)


@st.composite
def pairs(draw, min_size=3, max_size=60):
    c = draw(st.integers(min_size, max_size))
    s = draw(arrays(np.float64, c, elements=scores))
    b = draw(arrays(np.float64, c, elements=scores))
    return s, b


def test_urisk_and_jackknife_trisk_of_the_readme_example():
    """The README's URisk and TRisk calls, against eq. 4 worked by hand and the jackknife SE."""
    u = rk.urisk(X.loc["s2"], X.loc["s1"], alpha=1.0)
    assert isinstance(u, float)
    # δ = (.35, .20, 0, −.20, −.35): URisk(1) = (.55 − 2·.55)/5 = −0.11 (eq. 4)
    assert u == pytest.approx(-0.11)
    r = rk.trisk(X.loc["s2"], X.loc["s1"], alpha=1.0, se="jackknife")
    assert (r.urisk, r.df) == (pytest.approx(-0.11), 4)
    x = np.array([0.35, 0.20, 0.0, -0.40, -0.70])
    assert r.se == pytest.approx(x.std(ddof=1) / np.sqrt(5))
    assert r.statistic == pytest.approx(-0.11 / r.se)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(r.statistic), 4))
    statistic, pvalue = r
    assert (statistic, pvalue) == (r.statistic, r.pvalue)


def test_risk_reward_summary():
    rr = rk.analysis.risk_reward(X.loc["s2"], X.loc["s1"])
    assert (rr.frisk, rr.freward, rr.ugain) == pytest.approx((0.11, 0.11, 0.0))
    assert (rr.wins, rr.losses, rr.ties, rr.n_topics) == (2, 2, 1, 5)
    # losses: d (.45 → .25, 44%) and e (.55 → .20, 64%) both lose more than 20%
    assert rr.loss20 == 2
    assert rr.reward_risk == pytest.approx(1.0) and rr.win_loss == 1.0
    assert rr.to_frame().shape == (1, 10)


@settings(max_examples=60, deadline=None)
@given(pairs())
def test_trisk_at_alpha_zero_is_paired_t_test(pair):
    """TRisk(α=0) = TGain = scipy.stats.ttest_rel (SIGIR 2014, eq. 7–10)."""
    s, b = pair
    r = rk.trisk(s, b, alpha=0.0)
    d = s - b
    if d.std(ddof=1) <= 1e-12 * max(1.0, np.abs(d).max()):
        return  # no variance: ttest_rel is undefined too
    ref = stats.ttest_rel(s, b)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-9, abs=1e-9)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)
    assert r.df == ref.df


@settings(max_examples=60, deadline=None)
@given(pairs(), st.floats(0, 20))
def test_jackknife_se_equals_parametric_se(pair, alpha):
    """The jackknife SE of a mean equals s_x/√c (SIGIR 2014, §3.3: an RMSE of 0.000 between the two)."""
    s, b = pair
    j = rk.trisk(s, b, alpha, se="jackknife")
    p = rk.trisk(s, b, alpha, se="parametric")
    # leave-one-out means carry rounding of order eps·max|x|; beyond that the two must agree.
    # Squares of differences below √(smallest normal double) ≈ 1.5e-154 underflow in either form.
    scale = (1 + alpha) * max(np.abs(s - b).max(), 1e-300)
    underflow = 10 * np.sqrt(np.finfo(np.float64).tiny)
    assert j.se == pytest.approx(p.se, rel=1e-9, abs=max(1e-13 * scale, underflow))


@settings(max_examples=60, deadline=None)
@given(pairs(), st.floats(0, 20), st.floats(0, 20))
def test_urisk_is_linear_in_alpha(pair, a1, a2):
    """URisk(α) = UGain − α·FRisk (eq. 4)."""
    s, b = pair
    rr = rk.analysis.risk_reward(s, b)
    for a in (a1, a2):
        assert rk.urisk(s, b, a) == pytest.approx(rr.ugain - a * rr.frisk, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(pairs(), st.floats(0, 10), st.randoms(use_true_random=False))
def test_topic_order_does_not_matter(pair, alpha, rnd):
    s, b = pair
    order = list(range(s.size))
    rnd.shuffle(order)
    a, z = rk.trisk(s, b, alpha), rk.trisk(s[order], b[order], alpha)
    assert a.urisk == pytest.approx(z.urisk, abs=1e-12)
    assert a.se == pytest.approx(z.se, rel=1e-9, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(pairs())
def test_swapping_system_and_baseline_flips_ugain(pair):
    s, b = pair
    assert rk.analysis.risk_reward(s, b).ugain == pytest.approx(
        -rk.analysis.risk_reward(b, s).ugain, abs=1e-12
    )
    assert rk.urisk(s, b, 0.0) == pytest.approx(-rk.urisk(b, s, 0.0), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 12)), elements=scores),
    st.lists(st.floats(0, 30), min_size=2, max_size=6),
)
def test_georisk_is_non_increasing_in_alpha(values, alphas):
    M = pd.DataFrame(values)
    alphas = sorted(alphas)
    geo = np.array([rk.georisk(M, a).to_numpy() for a in alphas])
    assert np.all(np.diff(geo, axis=0) <= 1e-12)


def test_system_against_itself_is_nan_with_reason():
    r = rk.trisk(X.loc["s1"], X.loc["s1"], alpha=1.0)
    assert r.urisk == 0.0 and np.isnan(r.statistic) and np.isnan(r.pvalue)
    assert "equals the baseline" in r.reason
    c = rk.trisk([0.5, 0.75, 1.0], [0.25, 0.5, 0.75], alpha=1.0)
    assert np.isnan(c.statistic) and "zero variance" in c.reason


def test_topic_risk_tr_and_tj():
    """TR_j = x_j/s_x (eq. 21); TJ_j = (x_j − x̄)/s_x: eq. 23 read with the sign and scale under which
    a loss is negative, as in the paper's Figure 2 (as printed it is the opposite sign, √c larger)."""
    t = rk.topic_risk(X.loc["s2"], X.loc["s1"], alpha=1.0)
    x = np.array([0.35, 0.20, 0.0, -0.40, -0.70])
    sx = x.std(ddof=1)
    np.testing.assert_allclose(t["x"], x)
    np.testing.assert_allclose(t["tr"], x / sx)
    np.testing.assert_allclose(t["tj"], (x - x.mean()) / sx)
    np.testing.assert_allclose(t["critical"], stats.t.ppf(0.975, 4))
    assert (t["alpha"] == 1.0).all() and (t["level"] == 0.05).all()
    assert t["system"].iloc[0] == "s2" and t["baseline"].iloc[0] == "s1"
    assert t["significant"].dtype == bool
    assert list(t.index) == list("abcde")
    assert (t["significant"] == 0).all()


def test_topic_risk_flags_significant_loss():
    rng = np.random.default_rng(3)
    b = rng.uniform(0.3, 0.5, 50)
    s = b + rng.normal(0.0, 0.01, 50)
    s[7] = b[7] - 0.4  # one catastrophic topic
    t = rk.topic_risk(s, b, alpha=1.0)
    crit = t["critical"].iloc[0]
    assert t["significant"].iloc[7] and t["tr"].iloc[7] < -crit and t["tj"].iloc[7] < -crit
    adj = rk.topic_risk(s, b, alpha=1.0, correction="holm")
    assert adj["significant"].iloc[7] and adj["tr"].iloc[7] < 0
    assert (adj["pvalue_adj"] >= adj["pvalue"]).all()


def test_series_are_aligned_by_topic():
    s = X.loc["s2"]
    b = X.loc["s1"].iloc[::-1]
    assert rk.urisk(s, b, 1.0) == pytest.approx(-0.11)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: rk.urisk([0.1, 0.2], [0.1, 0.2], alpha=-1),
            r"'alpha' parameter of urisk must be a finite number >= 0\. Got -1",
        ),
        (lambda: rk.urisk([0.1, 0.2], [0.1, 0.2], alpha="x"), r"'alpha' parameter of urisk"),
        (
            lambda: rk.trisk([0.1, 0.2], [0.1, 0.2], se="boot"),
            r"'se' parameter of trisk must be one of 'parametric', 'jackknife'\. Got 'boot'",
        ),
        (
            lambda: rk.trisk([0.1, 0.2], [0.1, 0.2], alternative="lower"),
            r"'alternative' parameter of trisk must be one of 'two-sided', 'less', 'greater'\. Got 'lower'",
        ),
        (
            lambda: rk.trisk([0.1, 0.2], [0.1, 0.2], level=1.5),
            r"'level' parameter of trisk must be a number strictly between 0 and 1\. Got 1.5",
        ),
        (lambda: rk.urisk([0.1, 0.2, 0.3], [0.1, 0.2]), r"system has 3 topic scores and the baseline 2"),
        (
            lambda: rk.urisk([0.1, np.nan], [0.1, 0.2]),
            r"'system' of urisk has a non-finite score \(nan\) at position 1",
        ),
        (
            lambda: rk.urisk(X.loc["s1"], X.loc["s2"].drop("c")),
            r"'baseline' of urisk has no score for 1 topic\(s\) of the system: \['c'\]",
        ),
        (
            lambda: rk.urisk(X.loc["s1"].drop("c"), X.loc["s2"]),
            r"'baseline' of urisk has 1 topic\(s\) the system lacks: \['c'\]",
        ),
        (lambda: rk.urisk("abc", [0.1, 0.2]), r"'system' parameter of urisk must be a 1-D vector"),
        (
            lambda: rk.topic_risk([0.1, 0.2], [0.2, 0.1], correction="fdr"),
            r"'correction' parameter of topic_risk must be one of 'holm', 'bh', 'bonferroni'",
        ),
    ],
)
def test_bad_parameters(call, message):
    with pytest.raises(rk.RiskevalError, match=message):
        call()


def test_topic_risk_columns_and_decisions_against_scipy():
    """Every column of topic_risk (SIGIR 2014, eq. 19–21) on a hand-made pair with one large loss,
    two-sided and one-sided, the p-values and critical values from scipy.stats.t."""
    topics = [f"q{j}" for j in range(12)]
    b = pd.Series(0.5, index=topics, name="base")
    d = np.array([0.05, -0.02, 0.03, 0.01, -0.4, 0.02, 0.04, -0.01, 0.03, 0.0, 0.02, 0.06])
    s = (b + d).rename("run")
    x = np.where(d >= 0, d, 3.0 * d)  # alpha = 2
    tr = x / x.std(ddof=1)
    two = rk.topic_risk(s, b, 2.0)
    assert list(two.columns) == [
        "system", "baseline", "alpha", "level", "critical", "score", "baseline_score", "delta", "x",
        "tr", "tj", "pvalue", "significant",
    ]  # fmt: skip
    assert (two["system"] == "run").all() and (two["baseline"] == "base").all()
    tj = (x - x.mean()) / x.std(ddof=1)
    for column, want in (("score", s), ("baseline_score", b), ("delta", d), ("x", x), ("tr", tr), ("tj", tj)):
        np.testing.assert_allclose(two[column], want, rtol=1e-12, atol=1e-15, err_msg=column)
    np.testing.assert_allclose(two["pvalue"], 2 * stats.t.sf(np.abs(tr), 11), rtol=1e-10)
    assert two["critical"].iloc[0] == pytest.approx(stats.t.ppf(0.975, 11), rel=1e-12)
    assert two["significant"].tolist() == (np.abs(tr) > stats.t.ppf(0.975, 11)).tolist()
    assert two["significant"].sum() == 1
    for alternative, signed, p in (("less", -tr, stats.t.cdf(tr, 11)), ("greater", tr, stats.t.sf(tr, 11))):
        one = rk.topic_risk(s, b, 2.0, alternative=alternative, level=0.2)
        assert list(one.columns[3:7]) == ["level", "critical", "alternative", "score"]
        assert (one["alternative"] == alternative).all()
        assert one["critical"].iloc[0] == pytest.approx(stats.t.ppf(0.8, 11), rel=1e-12)
        np.testing.assert_allclose(one["pvalue"], p, rtol=1e-10)
        assert one["significant"].tolist() == (signed > stats.t.ppf(0.8, 11)).tolist()
    flat = rk.topic_risk(s, s, 2.0)  # no spread: nothing to standardise by
    assert flat[["tr", "tj", "pvalue"]].isna().all().all() and not flat["significant"].any()


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_trisk_decision_and_interval_at_alpha_zero_are_those_of_ttest_rel(alternative):
    """At α = 0 TRisk is the paired t-test: its decision at level 0.3 and its intervals equal
    scipy.stats.ttest_rel's, for a system better than its baseline and for the reverse."""
    rng = np.random.default_rng(21)
    b = rng.beta(2, 5, 30)
    s = b + rng.normal(0.04, 0.08, 30)  # t = 1.09: significant at 0.3 two-sided and one way one-sided
    for x, y in ((s, b), (b, s)):
        r = rk.trisk(x, y, alpha=0.0, level=0.3, alternative=alternative)
        ref = stats.ttest_rel(x, y, alternative=alternative)
        assert r.alternative == alternative and r.reason is None and r.bias is None
        assert r.significant == (ref.pvalue < 0.3)
        for level in (0.9, 0.5):
            np.testing.assert_allclose(
                r.confidence_interval(level), ref.confidence_interval(level), rtol=1e-12
            )
    assert [
        rk.trisk(x, y, 0.0, level=0.3, alternative=alternative).significant for x, y in ((s, b), (b, s))
    ] == {
        "two-sided": [True, True],
        "less": [False, True],
        "greater": [True, False],
    }[alternative]
