"""The tests and intervals take declared risk measures (objects or text), one settings object, rng
and the alternative hypothesis: settings= equals the keywords, objects equal their text, sign-flip
tests refuse ZRisk/GeoRisk, and the one-sided p-values are checked against scipy and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import riskeval as rk
from riskeval.core.paired import risk_scores
from riskeval.datasets import example_scores
from riskeval.errors import RiskevalError
from riskeval.inference.tables import tukey_tables, with_test

ALTERNATIVES = ("two-sided", "less", "greater")


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    scores = example_scores()
    return pd.concat([scores.iloc[:7], scores.loc[["bm25base_p"]]])


# --- bootstrap_ci ---------------------------------------------------------------------------------


def test_bootstrap_ci_settings_equal_keywords(X):
    s = rk.RiskSettings(baseline="bm25base_p", alphas=(1.0, 5.0), level=0.1, leave_one_out=True)
    kw = {"risk": ["URisk", "GeoRisk"], "n_resamples": 200, "rng": 3}
    by_settings = rk.bootstrap_ci(X, settings=s, **kw)
    by_keywords = rk.bootstrap_ci(X, "bm25base_p", [1, 5], leave_one_out=True, confidence_level=0.9, **kw)
    pd.testing.assert_frame_equal(by_settings, by_keywords)
    assert (by_settings["confidence_level"] == 0.9).all()
    # a keyword overrides the settings
    other = rk.bootstrap_ci(X, settings=s, alphas=[0], **kw)
    assert set(other["alpha"]) == {0.0}


def test_bootstrap_ci_objects_equal_their_text_and_keep_their_alpha(X):
    kw = {"n_resamples": 150, "rng": 4, "alphas": [0, 1, 5]}
    objects = rk.bootstrap_ci(X, risk=[rk.URisk(), rk.TRisk(alpha=1), rk.GeoRisk(alpha=5)], **kw)
    text = rk.bootstrap_ci(X, risk=["URisk", "TRisk@1", "GeoRisk(alpha=5)"], **kw)
    pd.testing.assert_frame_equal(objects, text)
    assert list(pd.unique(objects["risk"])) == ["URisk", "TRisk", "GeoRisk"]
    assert objects.groupby("risk", sort=False)["alpha"].unique().map(list).to_dict() == {
        "URisk": [0.0, 1.0, 5.0],
        "TRisk": [1.0],
        "GeoRisk": [5.0],
    }
    # a measure at one α gives the rows the whole grid gives there: the same resamples
    full = rk.bootstrap_ci(X, risk=["TRisk", "GeoRisk"], **kw)
    for name, alpha in (("TRisk", 1.0), ("GeoRisk", 5.0)):
        pick = (objects["risk"] == name) & (objects["alpha"] == alpha)
        want = (full["risk"] == name) & (full["alpha"] == alpha)
        pd.testing.assert_frame_equal(objects[pick].reset_index(drop=True), full[want].reset_index(drop=True))


def test_bootstrap_ci_tstar_is_trisk_against_the_mean(X):
    kw = {"n_resamples": 150, "rng": 5, "alphas": [0, 5], "method": "bca"}
    tstar = rk.bootstrap_ci(X, "bm25base_p", risk=rk.TStarRisk(), **kw)
    trisk = rk.bootstrap_ci(X, "mean", risk="TRisk", **kw)
    assert (tstar["risk"] == "TStarRisk").all() and (tstar["baseline"] == "MEAN").all()
    cols = ["system", "alpha", "estimate", "low", "high", "se", "pvalue", "effect_size"]
    pd.testing.assert_frame_equal(tstar[cols], trisk[cols])
    point = rk.risk_table(X, "bm25base_p", [0, 5])
    np.testing.assert_allclose(tstar["estimate"], point["tstar"], rtol=1e-12)


def _urisk_resamples(x: np.ndarray, seed: int, n: int) -> np.ndarray:
    """URisk of each bootstrap resample drawn as scipy.stats.bootstrap draws it."""
    idx = np.random.default_rng(seed).integers(0, x.size, (n, x.size))
    return x[idx].mean(axis=1)


def _crossing(boot: np.ndarray) -> float:
    """The probability q where numpy's linear quantile of ``boot`` crosses 0 (bisection)."""
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.quantile(boot, mid) < 0 else (lo, mid)
    return lo


def test_one_sided_bootstrap_pvalues_against_brute_force(X):
    """Percentile interval: the one-sided bounds are numpy's quantiles at 1 − cl and cl of the
    resampled URisk, "greater" is the probability where the quantile function crosses 0, "less"
    one minus it, and the two-sided p-value is min(1, 2·min(less, greater))."""
    n, seed, cl = 400, 7, 0.9
    base = X.loc["bm25base_p"].to_numpy()
    got = {
        alt: rk.bootstrap_ci(
            X, "bm25base_p", [0, 2], risk="URisk", n_resamples=n, rng=seed, confidence_level=cl,
            alternative=alt,
        )
        for alt in ALTERNATIVES
    }  # fmt: skip
    assert "alternative" not in got["two-sided"] and (got["less"]["alternative"] == "less").all()
    checked = 0
    for i, row in got["two-sided"].iterrows():
        x = risk_scores(X.loc[row["system"]].to_numpy() - base, row["alpha"])
        if not x.any():
            continue  # the baseline itself
        boot = _urisk_resamples(x, seed, n)
        less, greater = got["less"].loc[i], got["greater"].loc[i]
        assert less["low"] == -np.inf and greater["high"] == np.inf
        assert less["high"] == pytest.approx(np.quantile(boot, cl), rel=1e-12)
        assert greater["low"] == pytest.approx(np.quantile(boot, 1 - cl), rel=1e-12)
        floor = 1 / (n + 1)
        if boot.min() < 0 < boot.max():
            q = _crossing(boot)
            assert greater["pvalue"] == pytest.approx(max(q, floor), abs=1e-9)
            assert less["pvalue"] == pytest.approx(max(1 - q, floor), abs=1e-9)
            checked += 1
        else:
            assert min(less["pvalue"], greater["pvalue"]) == pytest.approx(floor)
        assert row["pvalue"] == pytest.approx(min(1.0, 2 * min(less["pvalue"], greater["pvalue"])), abs=1e-15)
    assert checked >= 3


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_one_sided_pvalue_below_the_level_exactly_when_zero_is_outside(X, method, alternative):
    for cl in (0.8, 0.9, 0.95):
        t = rk.bootstrap_ci(
            X, "mean", [0, 5], risk=["URisk", "TRisk"], method=method, n_resamples=300, rng=2,
            confidence_level=cl, alternative=alternative,
        )  # fmt: skip
        t = t[t["pvalue"].notna()]
        outside = (t["low"] > 0) | (t["high"] < 0)
        assert ((t["pvalue"] < 1 - cl) == outside).all()
        two = rk.bootstrap_ci(
            X, "mean", [0, 5], risk=["URisk", "TRisk"], method=method, n_resamples=300, rng=2,
        )  # fmt: skip
        other = rk.bootstrap_ci(
            X, "mean", [0, 5], risk=["URisk", "TRisk"], method=method, n_resamples=300, rng=2,
            alternative="less" if alternative == "greater" else "greater",
        )  # fmt: skip
        pair = np.minimum(t["pvalue"].to_numpy(), other.loc[t.index, "pvalue"].to_numpy())
        np.testing.assert_allclose(two.loc[t.index, "pvalue"], np.minimum(1.0, 2 * pair), atol=1e-15)


# --- bootstrap_difference and rank_intervals ------------------------------------------------------


def test_bootstrap_difference_risk_settings_and_alternative(X):
    kw = {"n_resamples": 300, "rng": 8, "method": "percentile"}
    by_object = rk.inference.bootstrap_difference(X, X.index[1], X.index[2], risk=rk.URisk(alpha=5), **kw)
    by_text = rk.inference.bootstrap_difference(X, X.index[1], X.index[2], risk="urisk", alpha=5, **kw)
    assert by_object == by_text and by_object.risk == "URisk" and by_object.alpha == 5
    s = rk.RiskSettings(baseline="bm25base_p", level=0.1, leave_one_out=True)
    by_settings = rk.inference.bootstrap_difference(
        X, X.index[1], X.index[2], risk="TRisk@1", settings=s, **kw
    )
    by_keywords = rk.inference.bootstrap_difference(
        X, X.index[1], X.index[2], risk="TRisk@1", baseline="bm25base_p", leave_one_out=True,
        confidence_level=0.9, **kw,
    )  # fmt: skip
    assert by_settings == by_keywords and by_settings.confidence_level == 0.9
    one = {
        alt: rk.inference.bootstrap_difference(
            X, X.index[1], X.index[2], risk="URisk@5", alternative=alt, **kw
        )
        for alt in ALTERNATIVES
    }
    assert one["two-sided"].pvalue == pytest.approx(
        min(1.0, 2 * min(one["less"].pvalue, one["greater"].pvalue)), abs=1e-15
    )
    assert one["less"].low == -np.inf and one["greater"].high == np.inf
    assert one["less"].high == pytest.approx(np.quantile(one["less"].bootstrap_distribution, 0.95))
    assert one["less"].confidence_interval(0.8) == (
        -np.inf,
        pytest.approx(np.quantile(one["less"].bootstrap_distribution, 0.8)),
    )
    with pytest.raises(RiskevalError, match="names one risk measure"):
        rk.inference.bootstrap_difference(X, X.index[1], X.index[2], risk=["URisk", "GeoRisk"], **kw)


def test_rank_intervals_risk_and_settings(X):
    kw = {"n_resamples": 200, "rng": 9}
    by_object = rk.inference.rank_intervals(X, risk=rk.URisk(alpha=5), baseline="bm25base_p", **kw)
    by_text = rk.inference.rank_intervals(
        X, risk="URisk", alpha=5, settings=rk.RiskSettings(baseline="bm25base_p"), **kw
    )
    pd.testing.assert_frame_equal(by_object, by_text)
    assert (by_object["risk"] == "URisk").all() and (by_object["baseline"] == "bm25base_p").all()
    narrow = rk.inference.rank_intervals(X, risk="GeoRisk", settings=rk.RiskSettings(level=0.5), **kw)
    assert (narrow["confidence_level"] == 0.5).all()


# --- sign-flip tests --------------------------------------------------------------------------------


def test_permutation_test_alternatives_equal_scipy_exact():
    rng = np.random.default_rng(3)
    s, b = rng.uniform(size=9), rng.uniform(size=9)
    for alpha in (0.0, 2.0):
        x = risk_scores(s - b, alpha)
        for alt in ALTERNATIVES:
            ref = stats.permutation_test(
                (x,), lambda v, axis: np.mean(v, axis=axis), permutation_type="samples",
                n_resamples=np.inf, alternative=alt,
            )  # fmt: skip
            res = rk.permutation_test(s, b, alpha, n_resamples=2**9, alternative=alt)
            assert res.exact and res.alternative == alt
            assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_permutation_test_takes_urisk_and_trisk_and_refuses_the_others():
    X = example_scores()
    s, b = X.loc["p_bert"], X.loc["bm25base_p"]
    kw = {"n_resamples": 500, "rng": 2, "alternative": "less"}
    ref = rk.permutation_test(s, b, alpha=5, **kw)
    assert rk.permutation_test(s, b, risk=rk.URisk(alpha=5), **kw) == ref
    assert rk.permutation_test(s, b, risk="TRisk@5", **kw) == ref
    assert rk.permutation_test(s, b, 5, risk="URisk", **kw) == ref
    for other in ("ZRisk", rk.GeoRisk(alpha=5)):
        with pytest.raises(RiskevalError, match="must be URisk or TRisk.*with the bootstrap"):
            rk.permutation_test(s, b, risk=other)
    # T*Risk is a measure of the risk-reward scores, but against the MEAN: the reason says so
    with pytest.raises(RiskevalError, match="T\\*Risk is against the per-topic MEAN"):
        rk.permutation_test(s, b, risk="TStarRisk")
    with pytest.raises(RiskevalError, match="'alpha' parameter \\(1\\) differs from the α"):
        rk.permutation_test(s, b, 1, risk="URisk@5")
    with pytest.raises(RiskevalError, match="'risk' parameter of permutation_test names one risk measure"):
        rk.permutation_test(s, b, risk=["URisk@1", "URisk@5"])
    with pytest.raises(RiskevalError, match="'alternative' parameter of permutation_test"):
        rk.permutation_test(s, b, alternative="smaller")


def brute_force_signed_maxt(cells: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided p-values and max-T p-values by enumerating every sign vector, with the signed
    Student t of the flipped scores (ddof = 1) as the statistic."""
    c = cells.shape[1]

    def t_signed(v: np.ndarray) -> np.ndarray:
        sd = v.std(axis=-1, ddof=1)
        m = sign * v.mean(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = m / (sd / np.sqrt(c))
        return np.where(
            sd > 1e-12 * np.abs(v).max(axis=-1, initial=0),
            t,
            np.where(m > 0, np.inf, np.where(m < 0, -np.inf, 0.0)),
        )

    obs = np.nan_to_num(t_signed(cells))
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=c)))
    T = np.nan_to_num(t_signed(signs[:, None, :] * cells[None, :, :]))  # 2^c × cells
    tol = 1e-9 * np.maximum(np.abs(obs), 1)
    return (T >= obs - tol).mean(axis=0), (T.max(axis=1)[:, None] >= obs - tol).mean(axis=0)


@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_one_sided_maxt_equals_brute_force_on_a_tiny_table(alternative):
    rng = np.random.default_rng(12)
    Y = pd.DataFrame(rng.integers(0, 100, size=(4, 7)) / 100, index=list("abcd"))
    t = rk.risk_permutation_table(Y, "a", [0, 1, 5], n_resamples=128, rng=0, alternative=alternative)
    base = Y.loc["a"].to_numpy()
    cells = np.array([risk_scores(row - base, a) for row in Y.to_numpy() for a in (0, 1, 5)])
    p, p_max = brute_force_signed_maxt(cells, 1.0 if alternative == "greater" else -1.0)
    assert t["exact"].all() and (t["alternative"] == alternative).all()
    np.testing.assert_allclose(t["pvalue"], p, atol=1e-12)
    np.testing.assert_allclose(t["pvalue_maxt"], p_max, atol=1e-12)
    assert (t["pvalue_maxt"] >= t["pvalue"]).all()
    # each cell is the single test with the same sign vectors
    one = rk.permutation_test(Y.loc["c"], base, 5.0, n_resamples=128, alternative=alternative)
    assert one.pvalue == pytest.approx(t.loc[(t["system"] == "c") & (t["alpha"] == 5), "pvalue"].item())


def test_risk_permutation_table_settings_risk_and_refusals(X):
    kw = {"n_resamples": 300, "rng": 4}
    s = rk.RiskSettings(baseline="bm25base_p", alphas=(1.0, 5.0), leave_one_out=True)
    by_settings = rk.risk_permutation_table(X, settings=s, **kw)
    pd.testing.assert_frame_equal(
        by_settings, rk.risk_permutation_table(X, "bm25base_p", [1, 5], leave_one_out=True, **kw)
    )
    by_risk = rk.risk_permutation_table(X, "bm25base_p", risk=[rk.URisk(alpha=5), "TRisk@1"], **kw)
    pd.testing.assert_frame_equal(by_risk, rk.risk_permutation_table(X, "bm25base_p", [1, 5], **kw))
    assert "alternative" not in by_risk.columns
    with pytest.raises(RiskevalError, match="must be URisk or TRisk.*GeoRisk compares each system"):
        rk.risk_permutation_table(X, risk=["URisk", "GeoRisk"])


# --- Tukey HSD and the tables beside risk_table ---------------------------------------------------


def test_tukey_hsd_settings_and_risk(X):
    kw = {"n_resamples": 300, "rng": 5}
    s = rk.RiskSettings(baseline="bm25base_p", level=0.1, leave_one_out=True)
    by_settings = rk.tukey_hsd(X, risk="URisk@5", settings=s, **kw)
    by_keywords = rk.tukey_hsd(X, "bm25base_p", 5, level=0.1, leave_one_out=True, **kw)
    pd.testing.assert_frame_equal(by_settings.table, by_keywords.table)
    assert by_settings.level == 0.1 and by_settings.alpha == 5 and by_settings.baseline == "bm25base_p"
    assert rk.tukey_hsd(X, **kw).baseline is None  # effectiveness
    assert rk.tukey_hsd(X, settings=rk.RiskSettings(), **kw).baseline == "MEAN"
    with pytest.raises(RiskevalError, match="'risk' parameter of tukey_hsd must be URisk"):
        rk.tukey_hsd(X, risk="GeoRisk")


def test_tukey_tables_take_settings(X):
    s = rk.RiskSettings(baseline="bm25base_p", alphas=(0.0, 5.0), level=0.1)
    pairs, letters = tukey_tables(X, settings=s, n_resamples=200, rng=6)
    again, _ = tukey_tables(X, "bm25base_p", [0, 5], level=0.1, n_resamples=200, rng=6)
    pd.testing.assert_frame_equal(pairs, again)
    assert set(letters["alpha"]) == {0.0, 5.0}
    by_risk, _ = tukey_tables(X, risk=["URisk@0", rk.URisk(alpha=5)], settings=s, n_resamples=200, rng=6)
    pd.testing.assert_frame_equal(by_risk, pairs)
    with pytest.raises(RiskevalError, match="'risk' parameter of tukey_hsd must be URisk"):
        tukey_tables(X, risk="ZRisk", settings=s, n_resamples=200, rng=6)


def test_with_test_follows_a_one_sided_table(X):
    table = rk.risk_table(X, "bm25base_p", [0, 5], alternative="less")
    out = with_test(table, X, test="permutation", baseline="bm25base_p", n_resamples=300, rng=7)
    ref = rk.risk_permutation_table(X, "bm25base_p", [0, 5], n_resamples=300, rng=7, alternative="less")
    np.testing.assert_allclose(out["pvalue"], ref["pvalue"])
    boot = with_test(
        table, X, test="bootstrap", settings=rk.RiskSettings(baseline="bm25base_p"), n_resamples=200, rng=7
    )
    defined = boot["pvalue"].notna()
    assert (boot.loc[defined, "low"] == -np.inf).all()


# --- trisk and topic_risk ---------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_trisk_alternative_equals_scipy_ttest_rel(alternative):
    rng = np.random.default_rng(8)
    s, b = rng.uniform(size=25), rng.uniform(size=25)
    res = rk.trisk(s, b, 0.0, alternative=alternative, level=0.1)
    ref = stats.ttest_rel(s, b, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.alternative == alternative
    low, high = res.confidence_interval(0.9)
    ref_ci = ref.confidence_interval(0.9)
    assert low == pytest.approx(ref_ci.low, rel=1e-12) and high == pytest.approx(ref_ci.high, rel=1e-12)
    assert res.significant == (res.pvalue < 0.1)
    # α > 0: the one-sided p-values of the same statistic add up to 1, the two-sided is twice the least
    ps = {a: rk.trisk(s, b, 3.0, alternative=a).pvalue for a in ALTERNATIVES}
    assert ps["less"] + ps["greater"] == pytest.approx(1.0)
    assert ps["two-sided"] == pytest.approx(2 * min(ps["less"], ps["greater"]))


def test_topic_risk_settings_and_alternative():
    rng = np.random.default_rng(9)
    s = pd.Series(rng.uniform(size=30), name="s")
    b = pd.Series(rng.uniform(size=30), name="b")
    st = rk.RiskSettings(level=0.1, correction="holm")
    pd.testing.assert_frame_equal(
        rk.topic_risk(s, b, 2.0, settings=st), rk.topic_risk(s, b, 2.0, level=0.1, correction="holm")
    )
    assert "pvalue_adj" not in rk.topic_risk(s, b, 2.0, settings=st, correction="none")
    less = rk.topic_risk(s, b, 2.0, alternative="less")
    np.testing.assert_allclose(less["pvalue"], stats.t.cdf(less["tr"], df=29), rtol=1e-12)
    greater = rk.topic_risk(s, b, 2.0, alternative="greater")
    np.testing.assert_allclose(greater["pvalue"], stats.t.sf(greater["tr"], df=29), rtol=1e-12)
    assert (less["alternative"] == "less").all()
    np.testing.assert_array_equal(less["significant"], less["tr"] < -stats.t.ppf(0.95, 29))
    assert less["critical"].iloc[0] == pytest.approx(stats.t.ppf(0.95, 29))
