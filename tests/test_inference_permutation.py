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
    to within Monte Carlo error plus a small allowance for the two tests' own difference."""
    X = example_scores()
    res = rk.permutation_test(X.loc[system], X.loc["p_bert"], n_resamples=20_000, rng=5)
    t = stats.ttest_rel(X.loc[system], X.loc["p_bert"]).pvalue
    mc = np.sqrt(t * (1 - t) / 20_000)
    assert abs(res.pvalue - t) < 4 * mc + 0.01
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


@pytest.mark.parametrize("size", [4, 5, 6, 7, 8])
def test_sign_tables_hold_every_signed_sum_of_each_group(size: int) -> None:
    from riskeval.inference._common import sign_tables

    v = np.random.default_rng(3).normal(size=(4, 19))  # the last group padded
    groups = -(-19 // size)
    T = sign_tables(v, size)
    assert T.shape == (groups, 2**size, 4)
    padded = np.zeros((4, groups * size))
    padded[:, :19] = v
    for g in range(groups):
        for s in (0, 1, 2**size - 1, *np.random.default_rng(g).integers(0, 2**size, 4)):
            signs = np.array([-1.0 if s >> t & 1 else 1.0 for t in range(size)])
            np.testing.assert_allclose(T[g, s], padded[:, size * g : size * g + size] @ signs, atol=1e-14)


@pytest.mark.parametrize("size", [4, 5, 6, 7, 8])
@pytest.mark.parametrize("c", [19, 70, 130])
def test_flipped_sums_read_every_group_of_the_sign_words(size: int, c: int) -> None:
    """The kernel's flipped sums equal ``δ⁺·ε + δ⁻·ε`` computed from the bits of the sign words,
    for every group size, with groups straddling two words (c = 70, 130)."""
    from riskeval.inference._common import random_signs, sign_tables
    from riskeval.inference._kernels import _TWINS, flip_hits

    rng = np.random.default_rng(c * size)
    pos = np.maximum(rng.normal(size=(3, c)), 0.0)
    neg = np.minimum(rng.normal(size=(3, c)), 0.0)
    words = next(random_signs(rng, c, 200))
    bits = (words[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    eps = 1.0 - 2.0 * bits.reshape(200, -1)[:, :c].astype(float)  # 200 × c
    hits, maxima = np.zeros((1, 3)), np.empty(200)
    Tpn = sign_tables(np.concatenate([pos, neg]), size)
    _TWINS[flip_hits](words, Tpn, size, np.ones(1), np.ones((1, 3)), np.full((1, 3), -1.0), hits, maxima, 4)
    np.testing.assert_allclose(maxima, np.abs(eps @ (pos + neg).T).max(axis=1), rtol=1e-12, atol=1e-12)
    assert (hits == 200).all()


def test_sign_group_size_keeps_the_tables_small() -> None:
    from riskeval.inference._common import SIGN_TABLE_BYTES, sign_group_size

    assert sign_group_size(2, 50) == 8  # one system: groups of 8
    assert sign_group_size(200, 50) == 7  # 100 systems × 50 topics
    assert sign_group_size(60, 500) == 5  # 30 systems × 500 topics
    assert sign_group_size(20_000, 5000) == 4  # the smallest groups, however large the table
    for rows, c in [(200, 50), (60, 500), (8, 43)]:
        size = sign_group_size(rows, c)
        assert -(-c // size) * 2**size * rows * 8 <= SIGN_TABLE_BYTES
        assert size == 8 or -(-c // (size + 1)) * 2 ** (size + 1) * rows * 8 > SIGN_TABLE_BYTES


def test_every_grouping_reads_the_same_sign_vectors() -> None:
    """A table of 300 systems groups its topics by 5, a single test by 8: with the same seed they
    flip the same signs, so each cell's p-value is the single test's."""
    from riskeval.inference._common import sign_group_size

    assert (sign_group_size(600, 60), sign_group_size(2, 60)) == (5, 8)
    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.beta(2, 5, size=(300, 60)), index=[f"s{i}" for i in range(300)])
    base = X.mean()
    t = rk.risk_permutation_table(X, base, [2.0], n_resamples=300, rng=4)
    for i in (0, 17, 299):
        one = rk.permutation_test(X.iloc[i], base, alpha=2.0, n_resamples=300, rng=4)
        assert t["pvalue"].iloc[i] == one.pvalue
