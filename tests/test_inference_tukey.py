"""Randomised Tukey HSD: family-wise p never below the pairwise p, the shuffles keep each topic's
scores, two systems reduce to Fisher's randomisation test, and the compact letter display."""

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
from riskeval.inference._kernels import accepted, digits3, permuted_sums, pick
from riskeval.inference.tukey import compact_letters


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(2, 15), st.integers(0, 2**16), st.sampled_from([None, 0.0, 2.0]))
def test_familywise_never_below_pairwise(r, c, seed, alpha):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 10, size=(r, c)) / 10, index=[f"s{i}" for i in range(r)])
    kw = {} if alpha is None else {"baseline": "mean", "alpha": alpha}
    res = rk.tukey_hsd(X, n_resamples=200, rng=seed, **kw)
    t = res.table
    assert len(t) == r * (r - 1) // 2
    assert (t["pvalue_hsd"] >= t["pvalue"]).all()
    assert ((t["pvalue"] >= 1 / 201) & (t["pvalue_hsd"] <= 1)).all()


def test_shuffles_keep_every_topics_scores():
    """Each resample is a within-topic permutation: the grand total is unchanged, and with one topic
    the sums are a permutation of that topic's scores; every position is reached."""
    rng = np.random.default_rng(0)
    Y = rng.uniform(size=(5, 7))
    key = np.uint64(2**63 + 12345)
    shuffle = pick(permuted_sums, 0)  # the serial twin: same code, no thread pool
    sums = shuffle(np.ascontiguousarray(Y.T), key, 400, 4)
    np.testing.assert_allclose(sums.sum(axis=1), Y.sum(), rtol=1e-12)
    one = shuffle(np.ascontiguousarray(Y[:, :1].T), key, 2000, 4)
    assert all(sorted(row) == sorted(Y[:, 0]) for row in one)
    # uniform over positions: each score lands in each position 1/5 of the time
    share = (one == Y[0, 0]).mean(axis=0)
    assert np.all(np.abs(share - 0.2) < 5 * np.sqrt(0.16 / 2000))
    # the resamples' streams depend on the key only: the same key gives the same sums
    np.testing.assert_array_equal(shuffle(np.ascontiguousarray(Y.T), key, 400, 4), sums)


def _orders(rows: np.ndarray) -> np.ndarray:
    """How often each order of a row's values was drawn (all orders listed, drawn or not)."""
    r = rows.shape[1]
    seen = dict.fromkeys(itertools.permutations(range(r)), 0)
    for row in np.argsort(rows, axis=1):
        seen[tuple(int(v) for v in row)] += 1
    return np.array(list(seen.values()))


@pytest.mark.parametrize("c", [1, 2, 3])
def test_every_order_equally_likely_and_topics_independent(c):
    """Topics are shuffled two at a time from the halves of one generator output (the last of an
    odd number alone): each topic's 5! orders are drawn equally often, and the two topics of a pair
    independently (the pair of positions of their first scores is uniform over 5 × 5)."""
    key = np.uint64(424242)
    Y = np.arange(5.0)[:, None] * 10.0 ** np.arange(c)[None, :]  # topic j in digit j
    sums = pick(permuted_sums, 0)(np.ascontiguousarray(Y.T), key, 12_000, 4)
    digits = [np.round(sums / 10.0**j) % 10 for j in range(c)]
    for d in digits:
        counts = _orders(d)
        assert stats.chisquare(counts).pvalue > 1e-3
    if c >= 2:
        first = [np.argmax(d == 0, axis=1) for d in digits[:2]]
        joint = np.bincount(first[0] * 5 + first[1], minlength=25)
        assert stats.chisquare(joint).pvalue > 1e-3


def test_bounded_integers_are_the_mixed_radix_digits():
    """Three indices from one 32-bit word are the mixed-radix digits of ⌊w·abc/2³²⌋ with the
    leftover w·abc mod 2³²; a word is kept exactly when its leftover reaches 2³² mod abc, which
    leaves every value of ⌊w·abc/2³²⌋ the same number of words (Brackett-Rozinsky & Lemire)."""
    rng = np.random.default_rng(5)
    for a, b, c in [(100, 101, 102), (2, 3, 4), (1623, 1624, 1625), (7, 1, 1), (2**31 + 11, 1, 1)]:
        p = a * b * c
        assert p < 2**32
        # words whose leftover is near the cut: w = ⌈v·2³²/p⌉ + δ
        v = rng.integers(0, p, 200)
        near = [(int(x) * 2**32 + p - 1) // p + d for x in v for d in (0, 1)]
        words = [w for w in near + [int(w) for w in rng.integers(0, 2**32, 500)] if w < 2**32]
        for w in words:
            i, j, k, left = (int(t) for t in digits3(np.uint64(w), *map(np.uint64, (a, b, c))))
            assert (i * b + j) * c + k == w * p >> 32 and left == w * p % 2**32
            assert i < a and j < b and k < c
            assert accepted(np.uint64(left), np.uint64(p)) == (left >= 2**32 % p)
    # every value of ⌊w·p/2³²⌋ keeps exactly ⌊2³²/p⌋ words; with p just below 2³² that is one word
    # per value, whose run of words has one or two (the first is dropped then)
    p = 1623 * 1624 * 1625
    cut = 2**32 % p
    for value in [0, 1, p - 1, *map(int, rng.integers(0, p, 300))]:
        lo, hi = -(-value * 2**32 // p), -(-(value + 1) * 2**32 // p)
        assert sum((w * p % 2**32) >= cut for w in range(lo, hi)) == 2**32 // p


def test_shuffles_of_many_systems():
    """Beyond 1,625 systems the first steps draw one index per half-word: each topic of a pair is
    still permuted, and its first score lands in every part of the ranking as often."""
    r = 1700
    Y = np.arange(float(r))[:, None] * np.array([1.0, 10_000.0])
    sums = pick(permuted_sums, 0)(np.ascontiguousarray(Y.T), np.uint64(9), 1000, 4)
    for d in (sums % 10_000, sums // 10_000):
        assert (np.sort(d, axis=1) == np.arange(float(r))).all()
        where = np.argmax(d == 0, axis=1)
        assert stats.chisquare(np.bincount(where // 100, minlength=17)).pvalue > 1e-3


def test_two_systems_is_fisher_randomisation_test():
    """With two systems, shuffling a topic swaps them or not: the Tukey HSD p-values equal the
    sign-flip p of their difference, up to Monte Carlo error."""
    X = example_scores().loc[["idst_bert_p1", "p_bert"]]
    res = rk.tukey_hsd(X, n_resamples=20_000, rng=3)
    row = res.table.iloc[0]
    assert row["pvalue"] == row["pvalue_hsd"]
    ref = rk.permutation_test(X.iloc[0], X.iloc[1], n_resamples=20_000, rng=4).pvalue
    assert abs(row["pvalue"] - ref) < 5 * np.sqrt(ref * (1 - ref) / 20_000) + 1e-3
    d = X.iloc[0] - X.iloc[1]
    assert row["difference"] == pytest.approx(d.mean())
    assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))


def test_risk_reward_scores_against_a_baseline():
    X = example_scores().loc[["ICT-BERT2", "TUA1-1", "p_bert", "runid3", "UNH_bm25", "bm25base_p"]]
    res = rk.tukey_hsd(X, baseline="bm25base_p", alpha=5.0, n_resamples=300, rng=1)
    t = res.table
    u = {s: rk.urisk(X.loc[s], X.loc["bm25base_p"], 5.0) for s in X.index}
    np.testing.assert_allclose(t["mean_a"], [u[s] for s in t["system_a"]])
    np.testing.assert_allclose(
        t["difference"], [u[a] - u[b] for a, b in zip(t["system_a"], t["system_b"], strict=True)]
    )
    assert (t["baseline"] == "bm25base_p").all() and (t["alpha"] == 5.0).all() and res.seed == 1
    x = risk_scores(X.iloc[0] - X.iloc[1], 0.0)  # the shared definition of x_j is used
    assert x.mean() == pytest.approx(X.iloc[0].mean() - X.iloc[1].mean())
    with pytest.raises(rk.RiskevalError, match="'alpha' parameter of tukey_hsd needs a 'baseline'"):
        rk.tukey_hsd(X, alpha=1.0)
    with pytest.raises(rk.RiskevalError, match="at least two systems"):
        rk.tukey_hsd(X.iloc[:1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(0, 2**16), st.floats(0.0, 1.0))
def test_letters_share_a_letter_iff_not_significant(r, seed, density):
    rng = np.random.default_rng(seed)
    means = rng.uniform(size=r)
    sig = np.triu(rng.uniform(size=(r, r)) < density, 1)
    sig |= sig.T
    letters = compact_letters(means, sig)
    for i, k in itertools.combinations(range(r), 2):
        assert bool(set(letters[i]) & set(letters[k])) == (not sig[i, k])
    assert all(letters)
    assert "a" in letters[int(np.argmax(means))]


def test_letter_display_of_the_example():
    res = rk.tukey_hsd(example_scores(), n_resamples=500, rng=2)
    d = res.letters
    assert list(d.columns) == ["system", "mean", "letters"]
    assert d["mean"].is_monotonic_decreasing and "a" in d["letters"].iloc[0]
    # the weakest run (UNH_exDL_bm25, nDCG@10 0.08) differs from every other run
    assert len(set(d["letters"].iloc[-1]) & set("".join(d["letters"].iloc[:-1]))) == 0


def test_pair_effect_sizes_equal_numpy_and_are_nan_for_constant_differences():
    from riskeval.inference._kernels import pair_effect_sizes

    Y = np.random.default_rng(5).uniform(size=(6, 9))
    Y[4] = Y[1]  # no difference at all: no spread
    iu, ku = np.triu_indices(6, 1)
    d = Y[iu] - Y[ku]
    with np.errstate(invalid="ignore"):
        want = d.mean(axis=1) / d.std(axis=1, ddof=1)
    got = pair_effect_sizes(Y)
    constant = (iu == 1) & (ku == 4)
    assert np.isnan(got[constant]).all()
    np.testing.assert_allclose(got[~constant], want[~constant], rtol=1e-12)
