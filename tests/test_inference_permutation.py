"""Sign-flip randomisation test of URisk(α) and the max-T table over systems × α: exact enumeration
against brute force, against scipy.stats.permutation_test and (α = 0) scipy.stats.ttest_rel."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import riskeval as rk
from riskeval.core.paired import risk_scores
from riskeval.datasets import example_scores

# per-topic scores in hundredths: sums of ±x are multiples of 0.01, so ties are exact ties
hundredths = st.lists(st.integers(0, 100), min_size=2, max_size=8).map(lambda v: np.array(v) / 100)


def brute_force_p(x: np.ndarray) -> float:
    """Two-sided sign-flip p-value by enumerating every sign vector (the identity included)."""
    obs = abs(x.sum())
    hits = [abs(np.dot(eps, x)) >= obs - 1e-9 for eps in itertools.product((1.0, -1.0), repeat=x.size)]
    return float(np.mean(hits))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_exact_p_equals_brute_force(data):
    s = data.draw(hundredths)
    b = np.array(data.draw(st.lists(st.integers(0, 100), min_size=s.size, max_size=s.size))) / 100
    alpha = data.draw(st.sampled_from([0.0, 1.0, 5.0]))
    res = rk.permutation_test(s, b, alpha=alpha, n_resamples=2**s.size, rng=0)
    assert res.exact and res.n_resamples == 2**s.size
    assert res.pvalue == pytest.approx(brute_force_p(risk_scores(s - b, alpha)), abs=1e-12)
    assert res.statistic == pytest.approx(rk.urisk(s, b, alpha))


def test_exact_p_equals_scipy_permutation_test():
    rng = np.random.default_rng(3)
    s, b = rng.uniform(size=9), rng.uniform(size=9)
    for alpha in (0.0, 2.0):
        x = risk_scores(s - b, alpha)
        ref = stats.permutation_test(
            (x,), lambda v, axis: np.mean(v, axis=axis), permutation_type="samples", n_resamples=np.inf
        )
        res = rk.permutation_test(s, b, alpha=alpha, n_resamples=1000)
        assert res.exact
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_monte_carlo_close_to_scipy_permutation_test():
    rng = np.random.default_rng(4)
    s, b = rng.beta(2, 3, size=30), rng.beta(2, 3, size=30)
    x = risk_scores(s - b, 1.0)
    ref = stats.permutation_test(
        (x,), lambda v, axis: np.mean(v, axis=axis), permutation_type="samples", n_resamples=20_000, rng=1
    )
    res = rk.permutation_test(s, b, alpha=1.0, n_resamples=20_000, rng=2)
    assert not res.exact and res.n_resamples == 20_000
    assert abs(res.pvalue - ref.pvalue) < 5 * np.sqrt(ref.pvalue * (1 - ref.pvalue) / 20_000) + 1e-3


@pytest.mark.parametrize("system", ["TUW19-p1-re", "idst_bert_p1", "p_exp_bert", "runid3"])
def test_alpha_zero_is_close_to_paired_t_test_on_the_example(system):
    """Fisher's randomisation test and the paired t-test agree on the DL 2019 example (43 topics)
    to within Monte Carlo error plus the two tests' own difference, at most 0.011 over every run
    against p_bert (measured with 400,000 resamples and three seeds; p_exp_bert 0.0093–0.0102)."""
    X = example_scores()
    res = rk.permutation_test(X.loc[system], X.loc["p_bert"], n_resamples=20_000, rng=5)
    t = stats.ttest_rel(X.loc[system], X.loc["p_bert"]).pvalue
    mc = np.sqrt(t * (1 - t) / 20_000)
    assert abs(res.pvalue - t) < 4 * mc + 0.011
    assert res.statistic == pytest.approx((X.loc[system] - X.loc["p_bert"]).mean())
    d = (X.loc[system] - X.loc["p_bert"]).to_numpy()
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1))


def test_seed_is_recorded_and_reproduces():
    rng = np.random.default_rng(9)
    s, b = rng.uniform(size=40), rng.uniform(size=40)
    a = rk.permutation_test(s, b, alpha=1.0, n_resamples=500, rng=np.random.default_rng(1))
    again = rk.permutation_test(s, b, alpha=1.0, n_resamples=500, rng=a.seed)
    assert a == again
    assert rk.permutation_test(s, b, n_resamples=500, rng=None).seed >= 0
    # Monte Carlo p-values are (1 + count)/(1 + n): never 0
    far = rk.permutation_test(s + 1, b, n_resamples=500, rng=1)
    assert far.pvalue == pytest.approx(1 / 501)
    stat, p = far
    assert (stat, p) == (far.statistic, far.pvalue)
    assert list(far.to_frame().columns)[:2] == ["statistic", "pvalue"]


def test_system_against_itself_has_p_one():
    s = np.array([0.1, 0.4, 0.3])
    res = rk.permutation_test(s, s)
    assert res.statistic == 0 and res.pvalue == 1.0 and np.isnan(res.effect_size)


def test_bad_parameters():
    s, b = np.array([0.1, 0.4, 0.3]), np.array([0.2, 0.2, 0.2])
    with pytest.raises(rk.RiskevalError, match="'n_resamples' parameter of permutation_test"):
        rk.permutation_test(s, b, n_resamples=0)
    with pytest.raises(rk.RiskevalError, match="'rng' parameter of permutation_test"):
        rk.permutation_test(s, b, rng="x")
    with pytest.raises(rk.RiskevalError, match="'alpha' parameter of permutation_test"):
        rk.permutation_test(s, b, alpha=-1)


# --- max-T over systems × α ------------------------------------------------------------------


def brute_force_maxt(X: pd.DataFrame, base: np.ndarray, alphas: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Unadjusted and max-T p-values of every (system, α) cell by enumerating all sign vectors,
    with Student's t of the flipped scores (ddof = 1) as the statistic."""
    cells = np.array([risk_scores(row - base, a) for row in X.to_numpy() for a in alphas])
    c = cells.shape[1]

    def t_abs(v: np.ndarray) -> np.ndarray:
        sd = v.std(axis=-1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(v.mean(axis=-1)) / (sd / np.sqrt(c))
        return np.where(
            sd > 1e-12 * np.abs(v).max(axis=-1), t, np.where(np.abs(v.mean(axis=-1)) > 0, np.inf, 0)
        )

    obs = t_abs(cells)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=c)))
    T = t_abs(signs[:, None, :] * cells[None, :, :])  # 2^c × cells
    tol = 1e-9 * np.maximum(obs, 1)
    p = (T >= obs - tol).mean(axis=0)
    p_max = (T.max(axis=1)[:, None] >= obs - tol).mean(axis=0)
    return p, p_max


def test_maxt_equals_brute_force_on_a_tiny_table():
    rng = np.random.default_rng(11)
    X = pd.DataFrame(rng.integers(0, 100, size=(3, 7)) / 100, index=["a", "b", "c"])
    base = X.mean().to_numpy()
    t = rk.risk_permutation_table(X, "mean", [0, 1, 5], n_resamples=128, rng=0)
    p, p_max = brute_force_maxt(X, base, [0, 1, 5])
    assert t["exact"].all() and (t["n_resamples"] == 128).all()
    np.testing.assert_allclose(t["pvalue"], p, atol=1e-12)
    np.testing.assert_allclose(t["pvalue_maxt"], p_max, atol=1e-12)
    np.testing.assert_allclose(
        t["urisk"], [rk.urisk(X.loc[s], base, a) for s in X.index for a in (0, 1, 5)], atol=1e-15
    )


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 4),
    st.integers(3, 12),
    st.lists(st.sampled_from([0.0, 1.0, 3.0, 10.0]), min_size=1, max_size=3, unique=True),
    st.integers(0, 2**16),
)
def test_maxt_never_below_unadjusted(r, c, alphas, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 20, size=(r, c)) / 20, index=[f"s{i}" for i in range(r)])
    t = rk.risk_permutation_table(X, "s0", alphas, n_resamples=300, rng=seed)
    assert (t["pvalue_maxt"] >= t["pvalue"]).all()
    assert ((t["pvalue"] > 0) & (t["pvalue_maxt"] <= 1)).all()
    assert (t.loc[t["system"] == "s0", ["pvalue", "pvalue_maxt"]] == 1).all().all()


def test_table_cell_matches_single_test():
    """A one-system, one-α table with the same seed is the single test: same sign vectors."""
    X = example_scores().iloc[:4]
    t = rk.risk_permutation_table(X, "mean", [5.0], n_resamples=400, rng=3)
    base = X.mean()
    for i, s in enumerate(X.index):
        one = rk.permutation_test(X.loc[s], base, alpha=5.0, n_resamples=400, rng=3)
        assert t["urisk"].iloc[i] == pytest.approx(one.statistic)
        assert t["effect_size"].iloc[i] == pytest.approx(one.effect_size)
    assert list(t.columns) == [
        "system",
        "alpha",
        "baseline",
        "urisk",
        "effect_size",
        "pvalue",
        "pvalue_maxt",
        "n_resamples",
        "exact",
        "seed",
    ]
    single = rk.risk_permutation_table(X.iloc[[1]], base, [5.0], n_resamples=400, rng=3)
    one = rk.permutation_test(X.iloc[1], base, alpha=5.0, n_resamples=400, rng=3)
    assert single["pvalue"].iloc[0] == one.pvalue == single["pvalue_maxt"].iloc[0]


def test_sign_vectors_are_the_bits_of_the_drawn_words_whatever_the_block():
    """Bit t of word w drawn by the generator flips topic 64w + t; blocks of any size read the same
    sign vectors, and the enumeration starts with the identity and lists every vector once."""
    from riskeval.inference._common import all_signs, random_signs

    c = 70  # two words per vector
    words = np.random.default_rng(5).integers(0, 2**64, (300, 2), dtype=np.uint64)
    bits = np.array([[int(w[t // 64]) >> (t % 64) & 1 for t in range(c)] for w in words])
    whole = np.concatenate(list(random_signs(np.random.default_rng(5), c, 300, 300)))
    np.testing.assert_array_equal(whole, 1.0 - 2.0 * bits)
    pieces = np.concatenate(list(random_signs(np.random.default_rng(5), c, 300, 7)))
    np.testing.assert_array_equal(pieces, whole)
    every = np.concatenate(list(all_signs(5, 6)))
    assert every.shape == (32, 5) and (every[0] == 1).all()
    assert len({tuple(v) for v in every}) == 32


@pytest.mark.parametrize("sign", [0.0, 1.0, -1.0])
def test_flip_counts_equal_numpy(sign):
    """The counting pass equals the statistic written out with numpy: ``|P + (1+α)N|·scale``
    (one-sided: ``±(P + (1+α)N)·scale``) against each cell's threshold, and the largest over every
    cell of each sign vector."""
    from riskeval.inference.permutation import count_flips

    rng = np.random.default_rng(6)
    PN = rng.normal(size=(400, 14))  # 7 systems
    factors = np.array([1.0, 2.0, 6.0])
    scale, threshold = rng.uniform(size=(3, 7)), rng.uniform(-3, 3, size=(3, 7))
    hits, top = np.zeros((3, 7), dtype=np.int64), np.empty(400)
    count_flips(PN, factors, scale, threshold, hits, top, sign)
    v = PN[:, None, :7] + factors[None, :, None] * PN[:, None, 7:]  # 400 × 3 × 7
    u = (np.abs(v) if sign == 0 else sign * v) * scale
    np.testing.assert_array_equal(hits, (u >= threshold).sum(axis=0))
    np.testing.assert_array_equal(top, u.max(axis=(1, 2)))


def test_blocks_and_blas_threads_do_not_change_the_counts(monkeypatch):
    """The same table with one block or many, and with BLAS on one thread or two: the flipped sums
    may round differently, but no count moves (comparisons allow 10⁻¹² on a [0, 1] scale)."""
    from threadpoolctl import threadpool_limits

    from riskeval.inference import permutation

    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.beta(2, 5, size=(60, 70)), index=[f"s{i}" for i in range(60)])
    X.iloc[:, ::3] = np.round(X.iloc[:, ::3], 1)  # ties
    run = lambda: rk.risk_permutation_table(X, "mean", [0, 1, 5], n_resamples=3000, rng=4)  # noqa: E731
    with threadpool_limits(limits=1, user_api="blas"):
        one = run()
    with threadpool_limits(limits=2, user_api="blas"):
        two = run()
    pd.testing.assert_frame_equal(one, two)
    monkeypatch.setattr(permutation, "BLOCK_VALUES", 1000)  # blocks of 8 sign vectors
    pd.testing.assert_frame_equal(run(), one)
    for i in (0, 17, 59):  # each cell is the single test with the same seed: the same sign vectors
        one_cell = rk.permutation_test(X.iloc[i], X.mean(), alpha=5.0, n_resamples=3000, rng=4)
        assert one.query("alpha == 5")["pvalue"].iloc[i] == one_cell.pvalue
