"""Bootstrap over topics: intervals for URisk, TRisk, ZRisk, GeoRisk (percentile and BCa) against
scipy.stats.bootstrap on the same resamples, the batched chi-square kernel against a recomputation on
duplicated topics, the difference between two systems and rank intervals."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import riskeval as rk
from riskeval.core import _numba, chisq, paired
from riskeval.core.paired import risk_scores
from riskeval.datasets import example_scores
from riskeval.errors import RiskevalError
from riskeval.inference.bootstrap import ResampledMeasures, intervals
from riskeval.measures.baselines import ResolvedBaseline
from riskeval.measures.declared import parse_risk

#: Every built-in measure of the registry (the resampled paths run each).
EVERY = ["URisk", "TRisk", "TStarRisk", "ZRisk", "GeoRisk"]


def engine(
    values: np.ndarray, base: np.ndarray | None, alphas: np.ndarray, risks: list[str]
) -> ResampledMeasures:
    """The bootstrap's engine of ``risks`` (names), the paired measures against ``base`` (the MEAN
    too), at the α grid ``alphas``."""
    bases: dict[str, ResolvedBaseline | None] = {"matrix": None}
    if base is not None:
        rb = ResolvedBaseline(np.asarray(base, dtype=float), "baseline", np.zeros(len(values), bool))
        bases.update(baseline=rb, mean=rb)
    return ResampledMeasures(values, bases, [(parse_risk(m), np.asarray(alphas)) for m in risks])


def by_column(eng: ResampledMeasures, values: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The engine's arrays (one per measure) by the measures' columns."""
    return {m.column: v for (m, _), v in zip(eng.measures, values, strict=True)}


RNG = np.random.default_rng(7)
M = pd.DataFrame(
    RNG.beta(2, 4, size=(8, 30)), index=[f"run{i}" for i in range(8)], columns=[f"t{j}" for j in range(30)]
)


def test_bootstrap_is_seeded_and_brackets_estimates():
    a = rk.bootstrap_ci(M, baseline="mean", alphas=[0, 5], n_resamples=300, rng=11)
    b = rk.bootstrap_ci(M, baseline="mean", alphas=[0, 5], n_resamples=300, rng=11)
    pd.testing.assert_frame_equal(a, b)
    assert (a["seed"] == 11).all() and len(a) == 8 * 2 * 3
    assert (a["seed"] == 11).all() and (a["method"] == "percentile").all()
    assert (a["low"] <= a["high"]).all()
    inside = (a["low"] <= a["estimate"]) & (a["estimate"] <= a["high"])
    assert inside.mean() > 0.9


def test_bootstrap_weights_equal_explicit_resample():
    """A resample as topic counts gives the same URisk/GeoRisk as the duplicated-column matrix."""
    counts = RNG.multinomial(30, np.full(30, 1 / 30)).astype(float)
    idx = np.repeat(np.arange(30), counts.astype(int))
    values, b = M.to_numpy(), M.mean().to_numpy()
    w = paired.paired_sums(values, b, counts)
    e = paired.paired_sums(values[:, idx], b[idx])
    np.testing.assert_allclose(paired.urisk_from(w, 3.0), paired.urisk_from(e, 3.0), atol=1e-12)
    np.testing.assert_allclose(paired.variance_from(w, 3.0), paired.variance_from(e, 3.0), rtol=1e-9)
    gw = chisq.georisk_from(chisq.zsums(values, weights=counts), 3.0)
    ge = chisq.georisk_from(chisq.zsums(values[:, idx]), 3.0)
    np.testing.assert_allclose(gw, ge, rtol=1e-12)


def test_bootstrap_bad_parameters():
    with pytest.raises(rk.RiskevalError, match="Unknown risk measure 'ndcg': use one of URisk, TRisk"):
        rk.bootstrap_ci(M, risk=["ndcg"])
    with pytest.raises(rk.RiskevalError, match="'risk' parameter of bootstrap_ci must name at least one"):
        rk.bootstrap_ci(M, risk=[])
    with pytest.raises(rk.RiskevalError, match="'rng' parameter of bootstrap_ci"):
        rk.bootstrap_ci(M, rng="x")
    with pytest.raises(rk.RiskevalError, match="'alternative' parameter of bootstrap_ci"):
        rk.bootstrap_ci(M, alternative="lower")
    with pytest.raises(rk.RiskevalError, match="'n_resamples' parameter of bootstrap_ci"):
        rk.bootstrap_ci(M, n_resamples=1)
    with pytest.raises(rk.RiskevalError, match="'method' parameter of bootstrap_ci"):
        rk.bootstrap_ci(M, method="BCa")
    with pytest.raises(rk.RiskevalError, match="ZRisk and GeoRisk need scores >= 0"):
        rk.bootstrap_ci(M - 0.5, risk=["zrisk"])


def test_batched_kernel_recomputes_the_whole_chi_square_matrix():
    """Every row of weights gives ZRisk/GeoRisk of the matrix with each topic repeated w_j times
    (weights 0 included: the topic is gone), computed from scratch by riskeval.zrisk/georisk."""
    values = M.to_numpy()
    W = np.stack([RNG.multinomial(30, np.full(30, 1 / 30)) for _ in range(4)] + [1 - np.eye(30)[3]]).astype(
        float
    )
    eng = engine(values, None, np.array([0.0, 4.0]), ["zrisk", "georisk"])
    got = by_column(eng, eng.values_for(W))
    for b, w in enumerate(W):
        idx = np.repeat(np.arange(30), w.astype(int))
        dup = pd.DataFrame(values[:, idx], index=M.index)
        for k, a in enumerate((0.0, 4.0)):
            np.testing.assert_allclose(got["zrisk"][:, k, b], rk.zrisk(dup, a), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(got["georisk"][:, k, b], rk.georisk(dup, a), rtol=1e-10)
    # all-zero topic and all-zero system: z = 0 there, nothing NaN
    Z = values.copy()
    Z[:, 0] = 0
    Z[2] = 0
    eng = engine(Z, None, np.array([0.0, 4.0]), ["zrisk"])
    got = eng.values_for(np.ones((1, 30)))[0][:, :, 0]
    ref = chisq.zsums(Z)
    want = np.stack([chisq.zrisk_from(ref, a) for a in (0.0, 4.0)], axis=1)
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.isfinite(got).all()


@pytest.mark.parametrize("r", [13, 37, 100])
def test_systems_with_the_same_scores_get_the_same_resampled_values(r):
    """Two systems with the same scores tie in every resample, for every measure, wherever they
    stand in the matrix (in a vector lane of the kernel or in its scalar remainder), in both twins."""
    rng = np.random.default_rng(r)
    V = rng.beta(2, 5, size=(r, 43))
    V[r - 1] = V[0]
    V[r - 3] = V[2]
    eng = engine(V, V.mean(axis=0), np.array([0.0, 1.0, 5.0]), EVERY)
    W = np.stack([rng.multinomial(43, np.full(43, 1 / 43)) for _ in range(200)]).astype(float)
    for serial in (False, True):
        with pytest.MonkeyPatch.context() as mp:
            if serial:  # every kernel's serial compilation
                for module in (paired, chisq):
                    mp.setattr(module, "by_size", lambda kernel, work: _numba.by_size(kernel, 0))
            for rows in eng.values_for(W):
                np.testing.assert_array_equal(rows[0], rows[r - 1])
                np.testing.assert_array_equal(rows[2], rows[r - 3])


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_urisk_interval_equals_scipy_bootstrap(method):
    """scipy.stats.bootstrap of the mean of x_j with the same seed draws the same resamples, in
    batches of any size (here 9,000 resamples, batches of 1,000 against scipy's 2,048)."""
    X = example_scores()
    s, b = X.loc["p_bert"], X.loc["bm25base_p"]
    for alpha in (0.0, 5.0):
        x = risk_scores(s.to_numpy() - b.to_numpy(), alpha)
        ref = stats.bootstrap(
            (x,),
            np.mean,
            n_resamples=9000,
            rng=3,
            batch=2048,
            method=method,
            confidence_level=0.9,
        )
        t = rk.bootstrap_ci(
            X.loc[["p_bert"]],
            b,
            [alpha],
            risk="urisk",
            method=method.lower(),
            n_resamples=9000,
            confidence_level=0.9,
            rng=3,
        )
        assert t["low"].iloc[0] == pytest.approx(ref.confidence_interval.low, rel=1e-9)
        assert t["high"].iloc[0] == pytest.approx(ref.confidence_interval.high, rel=1e-9)
        assert t["se"].iloc[0] == pytest.approx(ref.standard_error, rel=1e-9)


def test_bca_of_every_measure_against_scipy_on_the_two_systems_matrix():
    """GeoRisk of a system within the 2-row matrix [s; b] is a statistic of the paired topic
    columns: scipy.stats.bootstrap(paired=True) with the same seed gives the same BCa interval."""
    X = example_scores().loc[["p_bert", "bm25base_p"]]
    t = rk.bootstrap_ci(
        X,
        "bm25base_p",
        [2.0],
        risk=["urisk", "trisk", "zrisk", "georisk"],
        method="bca",
        n_resamples=800,
        rng=5,
    )

    def stat(measure):
        """The measure of the first row within [s; b], from the formulas (vectorised over resamples)."""

        def f(s, b, axis=-1):
            c = s.shape[-1]
            if measure == "trisk":
                x = risk_scores(s - b, 2.0)
                return x.mean(axis=-1) / (x.std(axis=-1, ddof=1) / np.sqrt(c))
            S, N = s.sum(axis=-1, keepdims=True), (s + b).sum(axis=-1, keepdims=True)
            e = S * (s + b) / N
            z = np.divide(s - e, np.sqrt(e), out=np.zeros_like(e), where=e > 0)
            Z = np.maximum(z, 0).sum(axis=-1) + 3.0 * np.minimum(z, 0).sum(axis=-1)
            return Z if measure == "zrisk" else np.sqrt(S[..., 0] / c * stats.norm.cdf(Z / c))

        return f

    s0, b0 = X.iloc[0].to_numpy(), X.iloc[1].to_numpy()
    assert stat("georisk")(s0, b0) == pytest.approx(rk.georisk(X, 2.0).iloc[0])
    assert stat("zrisk")(s0, b0) == pytest.approx(rk.zrisk(X, 2.0).iloc[0])
    for measure in ("trisk", "zrisk", "georisk"):
        ref = stats.bootstrap(
            (s0, b0),
            stat(measure),
            paired=True,
            n_resamples=800,
            rng=5,
            batch=2048,
            method="BCa",
            vectorized=True,
        )
        row = t[(t["risk"].str.lower() == measure) & (t["system"] == "p_bert")].iloc[0]
        assert row["low"] == pytest.approx(ref.confidence_interval.low, rel=1e-7)
        assert row["high"] == pytest.approx(ref.confidence_interval.high, rel=1e-7)


def test_bootstrap_pvalue_agrees_with_the_interval():
    t = rk.bootstrap_ci(
        example_scores(), "bm25base_p", [0, 5], risk=["urisk"], method="bca", n_resamples=500, rng=2
    )
    outside = (t["low"] > 0) | (t["high"] < 0)
    assert ((t["pvalue"] < 0.05) == outside)[t["system"] != "bm25base_p"].all()
    assert (t["pvalue"] >= 2 / 501 - 1e-12).all()


def test_difference_of_georisk():
    X = example_scores()
    res = rk.inference.bootstrap_difference(
        X, "p_bert", "idst_bert_p1", risk="georisk", alpha=1.0, n_resamples=600, rng=4
    )
    g = rk.georisk(X, 1.0)
    assert res.statistic == pytest.approx(g["p_bert"] - g["idst_bert_p1"])
    assert res.low <= res.statistic <= res.high
    assert res.confidence_interval() == (res.low, res.high)
    lo90, hi90 = res.confidence_interval(0.9)
    assert res.low <= lo90 <= hi90 <= res.high
    assert res.seed == 4 and res.bootstrap_distribution.shape == (600,)
    assert "bootstrap_distribution" not in res.to_frame().columns
    assert (res.pvalue < 0.05) == (res.low > 0 or res.high < 0)
    assert res.effect_size == pytest.approx(res.statistic / (res.standard_error * np.sqrt(43)))
    same = rk.inference.bootstrap_difference(
        X, "p_bert", "p_bert", risk="zrisk", n_resamples=50, rng=1, method="percentile"
    )
    assert same.statistic == 0 and same.pvalue == 1.0
    u = rk.inference.bootstrap_difference(
        X, "p_bert", "runid3", risk="urisk", baseline="bm25base_p", n_resamples=300, rng=1
    )
    assert u.statistic == pytest.approx(rk.urisk(X.loc["p_bert"], X.loc["runid3"], 0.0))
    with pytest.raises(rk.RiskevalError, match="'system_b' parameter of bootstrap_difference"):
        rk.inference.bootstrap_difference(X, "p_bert", "nope")


def test_rank_intervals():
    X = example_scores()
    t = rk.inference.rank_intervals(X, risk="urisk", alpha=5.0, baseline="mean", n_resamples=300, rng=6)
    u = X.apply(lambda s: rk.urisk(s, X.mean(), 5.0), axis=1)
    assert list(t["rank"]) == list(u.rank(ascending=False, method="min").astype(int))
    assert ((t["rank_low"] <= t["rank"]) & (t["rank"] <= t["rank_high"])).mean() > 0.9
    assert (t["rank_low"] >= 1).all() and (t["rank_high"] <= 37).all()
    g = rk.inference.rank_intervals(X, risk="georisk", n_resamples=200, rng=6)
    assert g["estimate"].to_numpy() == pytest.approx(rk.georisk(X).to_numpy())
    assert g["rank"].min() == 1 and (g["seed"] == 6).all()


def test_effect_size_is_standardised_urisk():
    X = example_scores()
    t = rk.bootstrap_ci(X, "bm25base_p", [0, 5], risk=["urisk", "georisk"], n_resamples=50, rng=1)
    row = t[(t["system"] == "p_bert") & (t["alpha"] == 5) & (t["risk"] == "URisk")].iloc[0]
    x = risk_scores(X.loc["p_bert"].to_numpy() - X.loc["bm25base_p"].to_numpy(), 5.0)
    assert row["effect_size"] == pytest.approx(x.mean() / x.std(ddof=1))
    assert t.loc[t["risk"] == "GeoRisk", "effect_size"].isna().all()


def test_one_or_two_topics():
    """Two topics: the jackknife leaves one, whose TRisk is undefined (no crash); one topic: every
    resample is the same topic, TRisk undefined, and BCa (which leaves a topic out) is refused."""
    X = example_scores().iloc[:6]
    kw = {"risk": ["urisk", "trisk", "zrisk", "georisk"], "n_resamples": 200, "rng": 3}
    two = rk.bootstrap_ci(X.iloc[:, :2], "mean", [0, 5], method="bca", **kw)
    assert two["low"].notna().all()
    one = rk.bootstrap_ci(X.iloc[:, :1], "mean", [0, 5], **kw)
    assert one.loc[one["risk"] == "TRisk", "low"].isna().all()
    assert one.loc[one["risk"] == "URisk", "low"].notna().all()
    with pytest.raises(RiskevalError, match="method='bca' needs at least 2 topics"):
        rk.bootstrap_ci(X.iloc[:, :1], "mean", [0, 5], method="bca", **kw)
    with pytest.raises(RiskevalError, match="needs at least 2 topics"):
        rk.inference.bootstrap_difference(
            X.iloc[:, :1], X.index[0], X.index[1], method="bca", n_resamples=50, rng=1
        )


def test_rank_intervals_counted_batch_by_batch_equal_numpys_quantiles():
    """The ranks counted per batch give numpy's "lower"/"higher" quantiles and the mean of the ranks
    of the kept distribution."""
    from scipy.stats import rankdata

    X = example_scores().iloc[:15]
    got = rk.inference.rank_intervals(
        X, risk="urisk", alpha=2.0, baseline="mean", n_resamples=700, rng=8, batch=97
    )
    eng = engine(X.to_numpy(), X.to_numpy().mean(axis=0), np.array([2.0]), ["urisk"])
    boot = eng.resample(np.random.default_rng(8), 700, None).T  # resamples × systems
    ranks = rankdata(-boot, method="min", axis=1)
    np.testing.assert_array_equal(got["rank_low"], np.quantile(ranks, 0.025, axis=0, method="lower"))
    np.testing.assert_array_equal(got["rank_high"], np.quantile(ranks, 0.975, axis=0, method="higher"))
    np.testing.assert_allclose(got["rank_mean"], ranks.mean(axis=0), rtol=1e-12)


def test_results_do_not_depend_on_the_batch():
    """The same seed draws the same resamples whatever the batch: bit-identical results."""
    X = example_scores().iloc[:10]
    kw = {"risk": EVERY, "method": "bca", "n_resamples": 1100, "rng": 5}
    want = rk.bootstrap_ci(X, "mean", [0, 5], batch=None, **kw)
    for batch in (1, 64, 1000):
        pd.testing.assert_frame_equal(rk.bootstrap_ci(X, "mean", [0, 5], batch=batch, **kw), want)
    one = rk.inference.bootstrap_difference(X, X.index[0], X.index[1], n_resamples=500, rng=2, batch=None)
    other = rk.inference.bootstrap_difference(X, X.index[0], X.index[1], n_resamples=500, rng=2, batch=33)
    assert one == other
    np.testing.assert_array_equal(one.bootstrap_distribution, other.bootstrap_distribution)
    with pytest.raises(RiskevalError, match="'batch' parameter of bootstrap_ci"):
        rk.bootstrap_ci(X, batch=0)


def test_percentile_interval_equals_numpy_quantiles_of_the_distribution():
    """Bounds are numpy's (linear) quantiles of each row's defined resamples, the standard error
    their standard deviation; a resample where TRisk is undefined is left out of its row."""
    X = example_scores().iloc[:8, :3]  # three topics: a ninth of the resamples give TRisk no spread
    t = rk.bootstrap_ci(X, "mean", [0, 3], risk=["urisk", "trisk"], n_resamples=400, rng=9)
    eng = engine(X.to_numpy(), X.to_numpy().mean(axis=0), np.array([0.0, 3.0]), ["urisk", "trisk"])
    dist = eng.resample(np.random.default_rng(9), 400, None)
    assert np.isnan(dist).any()
    for row, values in enumerate(dist):
        ok = values[~np.isnan(values)]
        assert t["low"].iloc[row] == np.quantile(ok, 0.025)
        assert t["high"].iloc[row] == np.quantile(ok, 0.975)
        assert t["se"].iloc[row] == pytest.approx(np.std(ok, ddof=1), rel=1e-12)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_pvalue_below_one_minus_level_exactly_when_zero_is_outside(method):
    """p < 1 − confidence_level exactly when 0 lies outside [low, high], over many cells, seeds,
    levels and resample counts, for both methods (the p-value inverts the interval on the same
    order statistics)."""
    X = example_scores()
    cells = 0
    for seed, n, level in ((4242, 3000, 0.95), (1, 999, 0.9), (2, 400, 0.8), (3, 2000, 0.99)):
        t = rk.bootstrap_ci(
            X,
            "mean",
            [0, 1, 5],
            risk=["urisk", "trisk"],
            method=method,
            n_resamples=n,
            confidence_level=level,
            rng=seed,
        )
        outside = (t["low"] > 0) | (t["high"] < 0)
        np.testing.assert_array_equal((t["pvalue"] < 1 - level).to_numpy(), outside.to_numpy())
        cells += len(t)
    assert cells == 4 * 37 * 3 * 2


def test_pvalue_at_the_reported_boundary():
    """A bound a hair below 0 (ms_duet_passage, URisk at α = 1 against MEAN, 3,000 resamples):
    the p-value is below 0.05, as the interval says."""
    t = rk.bootstrap_ci(
        example_scores(), "mean", [1], risk=["urisk"], method="percentile", n_resamples=3000, rng=4242
    )
    row = t[t["system"] == "ms_duet_passage"].iloc[0]
    assert -1e-3 < row["high"] < 0
    assert row["pvalue"] < 0.05


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(-6, 6), min_size=2, max_size=60),
    st.floats(0.5, 0.99),
    st.sampled_from(["percentile", "bca"]),
    st.floats(-1.5, 1.5),
    st.floats(-0.3, 0.3),
)
def test_pvalue_and_interval_agree_on_any_distribution(values, level, method, estimate, a):
    """On any bootstrap distribution, heavy ties and exact zeros included, any estimate (hence any
    bias correction) and any acceleration: the interval at ``level`` excludes 0 exactly when
    p < 1 − level, and 2/(B + 1) ≤ p ≤ 1."""
    boot = np.array(values, dtype=np.float64)[None, :] / 4
    floor = 2 / (boot.shape[1] + 1)
    iv = intervals(boot, np.array([estimate]), np.array([a]), level, method)
    if np.isnan(iv.low[0]):  # an estimate outside the distribution: no BCa interval
        return
    outside = iv.low[0] > 0 or iv.high[0] < 0
    p = iv.pvalue[0]
    if 1 - level > floor:
        assert (p < 1 - level) == outside
    assert floor - 1e-15 <= p <= 1


def test_same_bits_whatever_the_kernel_and_the_threads(monkeypatch):
    """The serial kernel, and the parallel one on one and on two threads, give bit-identical
    results: every resample's values come from its own counts alone."""
    X = example_scores().iloc[:12]

    def run(threads: int) -> pd.DataFrame:
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            return rk.bootstrap_ci(X, "mean", [0, 5], risk=EVERY, method="bca", n_resamples=700, rng=3)
        finally:
            numba.set_num_threads(before)

    with pytest.MonkeyPatch.context() as mp:  # every kernel's serial compilation
        for module in (paired, chisq):
            mp.setattr(module, "by_size", lambda kernel, work: _numba.by_size(kernel, 0))
        want = run(1)
    for module in (paired, chisq):  # every kernel's parallel compilation
        monkeypatch.setattr(module, "by_size", lambda kernel, work: _numba.by_size(kernel, 0, 0))
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        pd.testing.assert_frame_equal(run(threads), want)
