"""Randomised Tukey HSD: the p-values equal a plain implementation with the same draws, family-wise
p never below the pairwise p, the shuffles keep each topic's scores and draw every order equally
often, the counts do not depend on the threads, two systems reduce to Fisher's randomisation test,
and the compact letter display."""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import riskeval as rk
from riskeval.core._numba import serial_twin
from riskeval.core.paired import risk_scores
from riskeval.core.random import bounded, stream_key, stream_start
from riskeval.datasets import example_scores
from riskeval.inference.tukey import compact_letters, shuffled_means, tukey_counts


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


def shuffled_sums(Y: np.ndarray, key: np.uint64, n: int) -> np.ndarray:
    """Row sums of Y (r × c) after each of the resamples 0 … n − 1 of ``key`` (n × r)."""
    Yt = np.ascontiguousarray(Y.T)
    perm, means = np.empty(Y.shape[0]), np.empty(Y.shape[0])
    out = np.empty((n, Y.shape[0]))
    for b in range(n):
        shuffled_means(Yt, key, b, perm, means)
        out[b] = means * Y.shape[1]
    return out


def test_shuffles_keep_every_topics_scores():
    """Each resample is a within-topic permutation: the grand total is unchanged, and with one topic
    the sums are a permutation of that topic's scores; every position is reached."""
    rng = np.random.default_rng(0)
    Y = rng.uniform(size=(5, 7))
    key = np.uint64(2**63 + 12345)
    sums = shuffled_sums(Y, key, 400)
    np.testing.assert_allclose(sums.sum(axis=1), Y.sum(), rtol=1e-12)
    one = shuffled_sums(Y[:, :1], key, 2000)
    assert all(sorted(row) == sorted(Y[:, 0]) for row in one)
    # uniform over positions: each score lands in each position 1/5 of the time
    share = (one == Y[0, 0]).mean(axis=0)
    assert np.all(np.abs(share - 0.2) < 5 * np.sqrt(0.16 / 2000))
    # the resamples' streams depend on the key only: the same key gives the same sums
    np.testing.assert_array_equal(shuffled_sums(Y, key, 400), sums)


def _orders(rows: np.ndarray) -> np.ndarray:
    """How often each order of a row's values was drawn (all orders listed, drawn or not)."""
    r = rows.shape[1]
    seen = dict.fromkeys(itertools.permutations(range(r)), 0)
    for row in np.argsort(rows, axis=1):
        seen[tuple(int(v) for v in row)] += 1
    return np.array(list(seen.values()))


@pytest.mark.parametrize("c", [1, 2, 3])
def test_every_order_equally_likely_and_topics_independent(c):
    """Each topic's 5! orders are drawn equally often, and the topics of a resample independently
    (the pair of positions of the first scores of two topics is uniform over 5 × 5)."""
    key = np.uint64(424242)
    Y = np.arange(5.0)[:, None] * 10.0 ** np.arange(c)[None, :]  # topic j in digit j
    sums = shuffled_sums(Y, key, 12_000)
    digits = [np.round(sums / 10.0**j) % 10 for j in range(c)]
    for d in digits:
        counts = _orders(d)
        assert stats.chisquare(counts).pvalue > 1e-3
    if c >= 2:
        first = [np.argmax(d == 0, axis=1) for d in digits[:2]]
        joint = np.bincount(first[0] * 5 + first[1], minlength=25)
        assert stats.chisquare(joint).pvalue > 1e-3


def test_shuffles_of_many_systems():
    """With 1,700 systems each topic is still permuted, and its first score lands in every part of
    the ranking as often."""
    r = 1700
    Y = np.arange(float(r))[:, None] * np.array([1.0, 10_000.0])
    sums = shuffled_sums(Y, np.uint64(9), 1000)
    for d in (sums % 10_000, sums // 10_000):
        assert (np.sort(d, axis=1) == np.arange(float(r))).all()
        where = np.argmax(d == 0, axis=1)
        assert stats.chisquare(np.bincount(where // 100, minlength=17)).pvalue > 1e-3


def reference_tukey(Y: np.ndarray, seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise and family-wise p-values of the randomised Tukey HSD (Carterette, TOIS 2012) written
    out plainly, with the draws of riskeval's generator: resample b draws from stream b of the key
    that the seed's generator gives, and shuffles topic after topic by inside-out Fisher–Yates
    (Knuth, TAOCP vol. 2, §3.4.2), system i of the topic going to a uniform position k ≤ i."""
    r, c = Y.shape
    key = stream_key(np.random.default_rng(seed))
    means = np.empty((n, r))
    for b in range(n):
        state = stream_start(key, b)
        shuffled = np.empty((r, c))
        for j in range(c):
            who = [0] * r  # who[i]: the system whose score lands in position i
            for i in range(1, r):
                k, state = bounded(np.uint64(state), i + 1)
                who[i], who[int(k)] = who[int(k)], i
            shuffled[:, j] = Y[who, j]
        means[b] = shuffled.mean(axis=1)
    m = Y.mean(axis=1)
    iu, ku = np.triu_indices(r, 1)
    observed = np.abs(m[iu] - m[ku]) - 1e-9
    pair = (np.abs(means[:, iu] - means[:, ku]) >= observed).sum(axis=0)
    ranges = means.max(axis=1) - means.min(axis=1)
    hsd = (ranges[:, None] >= observed).sum(axis=0)
    return (1 + pair) / (1 + n), (1 + hsd) / (1 + n)


@pytest.mark.parametrize("r, c, alpha", [(2, 5, None), (5, 6, None), (6, 4, 2.0), (9, 8, 0.0)])
def test_pvalues_equal_a_plain_implementation_with_the_same_draws(r, c, alpha):
    """Scores in hundredths, so that ties with the observed differences are exact ties."""
    rng = np.random.default_rng(r * c)
    X = pd.DataFrame(rng.integers(0, 100, size=(r, c)) / 100, index=[f"s{i}" for i in range(r)])
    kw = {} if alpha is None else {"baseline": "mean", "alpha": alpha}
    res = rk.tukey_hsd(X, n_resamples=300, rng=17, **kw)
    Y = X.to_numpy() if alpha is None else risk_scores(X.to_numpy() - X.to_numpy().mean(axis=0), alpha)
    p_pair, p_hsd = reference_tukey(Y, 17, 300)
    np.testing.assert_array_equal(res.table["pvalue"], p_pair)
    np.testing.assert_array_equal(res.table["pvalue_hsd"], p_hsd)
    assert (res.table["pvalue"] < 1).any()  # not every resample reaches every difference


def test_counts_do_not_depend_on_threads_or_runs():
    """The parallel kernel on one thread and on two, with the resamples dealt out to 1, 2 or 3 runs,
    and its serial compilation, give the same counts: each resample draws from its own stream."""
    X = np.random.default_rng(1).beta(2, 5, size=(12, 30))
    Yt = np.ascontiguousarray(X.T)
    m = X.mean(axis=1)
    iu, ku = np.triu_indices(12, 1)
    threshold = np.abs(m[iu] - m[ku]) - 1e-12
    cuts = np.unique(threshold)
    key = np.uint64(987654321)
    want = serial_twin(tukey_counts)(Yt, key, 500, threshold, cuts, 1)
    before = numba.get_num_threads()
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            for runs in (1, 2, 3):
                got = tukey_counts(Yt, key, 500, threshold, cuts, runs)
                for a, b in zip(got, want, strict=True):
                    np.testing.assert_array_equal(a, b)
    finally:
        numba.set_num_threads(before)
    assert want[1].sum() == 500 and want[0].max() <= 500


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
    np.testing.assert_allclose(t["urisk_a"], [u[s] for s in t["system_a"]])  # named for what it holds
    np.testing.assert_allclose(t["urisk_b"], [u[s] for s in t["system_b"]])
    assert "mean_a" not in t.columns
    assert list(res.letters.columns) == ["system", "urisk", "letters"]
    np.testing.assert_allclose(res.letters["urisk"], [u[s] for s in res.letters["system"]])
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
@given(st.integers(1, 9), st.integers(0, 2**16), st.floats(0.0, 1.0), st.booleans())
def test_letters_are_the_maximal_groups_of_a_brute_force(r, seed, density, tied):
    """Each letter is a maximal group of systems no two of which differ (all subsets enumerated),
    each such group has one letter, and the letters follow the members' ranks, best first."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(size=r)
    if tied:
        means = np.round(means, 1)  # equal means: ranked in matrix order
    sig = np.triu(rng.uniform(size=(r, r)) < density, 1)
    sig |= sig.T
    letters = compact_letters(means, sig)
    for i, k in itertools.combinations(range(r), 2):
        assert bool(set(letters[i]) & set(letters[k])) == (not sig[i, k])
    assert all(letters)
    assert "a" in letters[int(np.argmax(means))]
    cliques = [
        set(s)
        for n in range(1, r + 1)
        for s in itertools.combinations(range(r), n)
        if not any(sig[i, k] for i, k in itertools.combinations(s, 2))
    ]
    maximal = [g for g in cliques if not any(g < h for h in cliques)]
    rank = {int(i): n for n, i in enumerate(sorted(range(r), key=lambda i: (-means[i], i)))}
    want = sorted(sorted(rank[i] for i in g) for g in maximal)  # lettered a, b, … in this order
    names = sorted(set("".join(letters)), key=lambda x: (x.isupper(), x))
    got = [sorted(rank[i] for i in range(r) if name in letters[i]) for name in names]
    assert got == want


def test_letters_of_many_systems():
    """200 systems whose means differ significantly when more than 20 apart: each letter covers a
    window of the ranking, letters beyond "Z" carry a number; 1,100 systems none of which differ
    share one letter."""
    means = np.arange(200.0)[::-1]  # system i ranked i
    sig = np.abs(means[:, None] - means[None, :]) > 20
    letters = compact_letters(means, sig)
    names = sorted(set().union(*(set(_split_letters(x)) for x in letters)), key=_letter_position)
    assert len(names) == 180  # windows of 21 systems: 0–20, 1–21, …, 179–199
    for n, name in enumerate(names):
        assert [i for i in range(200) if name in _split_letters(letters[i])] == list(range(n, n + 21))
    assert compact_letters(np.zeros(1100), np.zeros((1100, 1100), dtype=bool)) == ["a"] * 1100


def _split_letters(text: str) -> list[str]:
    """The letters of a display, a letter and the digits after it: "abZ3c" → a, b, Z3, c."""
    out: list[str] = []
    for ch in text:
        if ch.isdigit():
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _letter_position(name: str) -> int:
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return alphabet.index(name[0]) + 52 * int(name[1:] or 0)


def test_letter_display_of_the_example():
    res = rk.tukey_hsd(example_scores(), n_resamples=500, rng=2)
    d = res.letters
    assert list(d.columns) == ["system", "mean", "letters"]
    assert d["mean"].is_monotonic_decreasing and "a" in d["letters"].iloc[0]
    # the weakest run (UNH_exDL_bm25, nDCG@10 0.08) differs from every other run
    assert len(set(d["letters"].iloc[-1]) & set("".join(d["letters"].iloc[:-1]))) == 0


def test_pair_effect_sizes_equal_numpy_and_are_nan_for_constant_differences():
    from riskeval.inference.tukey import pair_effect_sizes

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


_SCRIPT = """
import hashlib, numpy as np, pandas as pd, riskeval as rk
X = pd.DataFrame(np.random.default_rng(3).beta(2, 5, size=(40, 60)))
t = rk.tukey_hsd(X, baseline="mean", alpha=2.0, n_resamples=3000, rng=5).table[["pvalue", "pvalue_hsd"]]
p = rk.risk_permutation_table(X, "mean", [0, 1, 5], n_resamples=3000, rng=6)[["pvalue", "pvalue_maxt"]]
print(hashlib.sha256(t.to_numpy().tobytes() + p.to_numpy().tobytes()).hexdigest())
"""


@pytest.mark.slow
def test_same_bits_with_one_and_two_threads():
    """Fresh processes with numba and BLAS on one thread and on two (the parallel Tukey kernel runs
    at this size) print the same p-values, bit for bit."""
    import os
    import subprocess
    import sys

    digests = set()
    for threads in ("1", "2"):
        env = dict(
            os.environ, NUMBA_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads
        )
        out = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1
