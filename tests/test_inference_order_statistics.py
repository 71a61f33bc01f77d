"""Exact quantiles of streamed bootstrap distributions: the passes over regenerated blocks select the
same order statistics as a kept distribution does (and as numpy's quantile gives), whatever the
shape of the values, and bootstrap_ci gives the same intervals either way, in memory that does not
grow with the number of resamples."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.datasets import example_scores
from riskeval.inference import bootstrap, order_statistics
from riskeval.inference.order_statistics import quantiles, streamed_intervals, summaries

PROBS = (np.array([0.025]), np.array([0.975]))


def shaped(kind: str, m: int, B: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, B))
    if kind == "ties":
        A = np.round(A, 1)
    elif kind == "heavy":
        A = rng.standard_cauchy(size=(m, B))
    elif kind == "nan":
        A[rng.uniform(size=A.shape) < 0.3] = np.nan
        A[0] = np.nan  # a row with no defined value
    elif kind == "constant":
        A[:] = 1.5
        A[1, ::97] = 2.0  # a few values apart from a heavy tie
    elif kind == "drift":  # the first block is no guide to the range of the rest
        A += np.linspace(0, 50, B)
    return A


def stream(A: np.ndarray, size: int = 100):
    def blocks():
        for start in range(0, A.shape[1], size):
            yield np.ascontiguousarray(A[:, start : start + size])

    return blocks


def kept(A: np.ndarray, estimate: np.ndarray, probs) -> tuple[object, list[np.ndarray]]:
    sums = summaries(A, estimate)
    return sums, quantiles(A, sums, *probs)


@pytest.mark.parametrize("kind", ["normal", "ties", "heavy", "nan", "constant", "drift"])
@pytest.mark.parametrize("cells", [None, 64])  # 64: too little memory to keep a bin, binned again
def test_streamed_quantiles_equal_the_kept_ones(kind, cells, monkeypatch):
    if cells is not None:
        monkeypatch.setattr(order_statistics, "_CELLS", cells)
    A = shaped(kind, 12, 3000, seed=1)
    estimate = np.nanmedian(np.where(np.isnan(A).all(axis=1)[:, None], 0.0, A), axis=1)
    probs = (np.linspace(0.0, 0.2, 12), np.linspace(1.0, 0.6, 12))
    s1, (lo1, hi1) = streamed_intervals(stream(A), 12, estimate, lambda s: probs)
    s2, (lo2, hi2) = kept(A, estimate, probs)
    np.testing.assert_array_equal(lo1, lo2)
    np.testing.assert_array_equal(hi1, hi2)
    for f in ("valid", "below_est", "below_null"):
        np.testing.assert_array_equal(getattr(s1, f), getattr(s2, f))
    np.testing.assert_allclose(s1.se, s2.se, rtol=1e-12, equal_nan=True)
    defined = ~np.isnan(A).all(axis=1)
    want = [np.nanquantile(A[i], [probs[0][i], probs[1][i]]) for i in np.flatnonzero(defined)]
    np.testing.assert_array_equal(np.c_[lo1, hi1][defined], np.array(want))
    assert np.isnan(lo1[~defined]).all()


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=400),
    st.floats(0.0, 1.0),
    st.integers(1, 50),
)
def test_streamed_order_statistics_on_small_integer_streams(values, p, size):
    """Heavy ties, tiny rows, any block size: still numpy's quantile, exactly."""
    A = np.array(values, dtype=np.float64)[None, :] / 4
    _, (q,) = streamed_intervals(stream(A, size), 1, np.zeros(1), lambda s: (np.array([p]),))
    assert q[0] == np.quantile(A[0], p)


def test_passes_are_counted_and_few(monkeypatch):
    A = shaped("normal", 40, 20_000, seed=2)
    calls = []

    def blocks():
        calls.append(1)
        yield from stream(A, 500)()

    streamed_intervals(blocks, 40, np.zeros(40), lambda s: PROBS)
    assert len(calls) == 2  # summaries and histograms, then the values of the bins wanted
    calls.clear()
    monkeypatch.setattr(order_statistics, "_CELLS", 2048)  # 49 bins, too full to keep at once
    _, (lo, hi) = streamed_intervals(blocks, 40, np.zeros(40), lambda s: PROBS)
    assert 3 <= len(calls) <= 12
    np.testing.assert_array_equal(lo, np.quantile(A, 0.025, axis=1))
    np.testing.assert_array_equal(hi, np.quantile(A, 0.975, axis=1))


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_ci_streamed_equals_kept(method, monkeypatch):
    X = example_scores().iloc[:12]
    kw = {
        "measures": ["urisk", "trisk", "zrisk", "georisk"],
        "method": method,
        "n_resamples": 1500,
        "seed": 5,
    }
    want = rk.bootstrap_ci(X, "mean", [0, 1, 5], **kw)
    monkeypatch.setattr(bootstrap, "KEEP_BYTES", 0)
    got = rk.bootstrap_ci(X, "mean", [0, 1, 5], **kw)
    for col in ("estimate", "low", "high", "pvalue"):
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy())
    np.testing.assert_allclose(got["se"], want["se"], rtol=1e-12)


def test_streamed_memory_does_not_grow_with_the_resamples(monkeypatch):
    monkeypatch.setattr(bootstrap, "KEEP_BYTES", 0)
    X = example_scores()

    def peak(n: int) -> float:
        tracemalloc.start()
        rk.bootstrap_ci(X, "mean", [0, 5], measures=["urisk", "georisk"], n_resamples=n, seed=1)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    small, large = peak(2_000), peak(20_000)
    # kept, 20,000 resamples of 148 rows would take 23.7 MB
    assert large < 1.3 * small + 1e6


@pytest.mark.parametrize("guess", ["fits", "narrow", "none"])
def test_order_stats_whatever_the_guessed_range(guess):
    """The histogram's guessed range only speeds the selection up: ranks outside it, or no range at
    all, give the same order statistics (the row's own range is measured instead)."""
    from riskeval.inference._kernels import _TWINS, order_stats

    A = shaped("heavy", 30, 5000, seed=4)
    ranks = np.tile([3, 4, 4990, 4990], (30, 1))
    lo, hi = {"fits": (-1e6, 1e6), "narrow": (-0.1, 0.1), "none": (np.nan, np.nan)}[guess]
    want = np.sort(A, axis=1)[:, [3, 4, 4990, 4990]]
    for kernel in (order_stats, _TWINS[order_stats]):
        got = kernel(A, np.full(30, 5000.0), ranks, np.full(30, lo), np.full(30, hi))
        np.testing.assert_array_equal(got, want)


def test_rank_intervals_counted_block_by_block_equal_numpys_quantiles():
    from scipy.stats import rankdata

    from riskeval.inference.bootstrap import ResampledMeasures

    X = example_scores().iloc[:15]
    got = rk.rank_intervals(X, measure="urisk", alpha=2.0, baseline="mean", n_resamples=700, rng=8)
    engine = ResampledMeasures(X.to_numpy(), X.to_numpy().mean(axis=0), np.array([2.0]), ["urisk"])
    boot = engine.resample(np.random.default_rng(8), 700)["urisk"][:, 0, :].T
    ranks = rankdata(-boot, method="min", axis=1)
    np.testing.assert_array_equal(got["rank_low"], np.quantile(ranks, 0.025, axis=0, method="lower"))
    np.testing.assert_array_equal(got["rank_high"], np.quantile(ranks, 0.975, axis=0, method="higher"))
    np.testing.assert_allclose(got["rank_mean"], ranks.mean(axis=0), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 700),
    st.sampled_from(["edges", "ties", "spread"]),
    st.floats(0.0, 0.4),
    st.sampled_from(["exact", "inside", "wide", "none"]),
    st.integers(0, 2**32 - 1),
)
def test_order_stats_on_bin_edges_ties_and_odd_lengths(B, kind, nan_share, guess, seed):
    """The selection is exact whatever the row length (runs of values binned and checked together,
    and the values left over), with values on the bins' very edges or just below the lowest, ties
    and undefined values: both twins give the sorted defined values at the ranks asked for."""
    from riskeval.inference._kernels import _BINS, _TWINS, order_stats

    rng = np.random.default_rng(seed)
    m = 3
    lo, hi = -1.0, 3.0
    if kind == "edges":  # every edge lo + g·(hi − lo)/_BINS, its neighbours, values below lo
        edges = lo + np.arange(-2, _BINS + 3) * ((hi - lo) / _BINS)
        tiny = [-1e-20, -5e-324, 5e-324, 1e-20]  # below and above the lower edge of "inside"
        pool = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf), tiny])
        A = rng.choice(pool, size=(m, B))
    elif kind == "ties":
        A = rng.integers(-2, 5, size=(m, B)).astype(float)
    else:
        A = rng.normal(1.0, 2.0, size=(m, B))
    A[rng.uniform(size=A.shape) < nan_share] = np.nan
    valid = (~np.isnan(A)).sum(axis=1).astype(float)
    ranks = np.zeros((m, 4), dtype=np.int64)
    want = np.full((m, 4), np.nan)
    for i in range(m):
        v = np.sort(A[i][~np.isnan(A[i])])
        if v.size == 0:
            continue
        for p in range(2):
            k = int(rng.integers(0, v.size))
            ranks[i, 2 * p : 2 * p + 2] = k, min(k + int(rng.integers(0, 2)), v.size - 1)
        want[i] = v[ranks[i]]
    g_lo, g_hi = {"exact": (lo, hi), "inside": (0.0, 1.0), "wide": (-50.0, 60.0), "none": (np.nan, np.nan)}[
        guess
    ]
    for kernel in (order_stats, _TWINS[order_stats]):
        got = kernel(np.ascontiguousarray(A), valid, ranks, np.full(m, g_lo), np.full(m, g_hi))
        np.testing.assert_array_equal(got, want)


def test_order_stats_values_a_hair_below_the_guessed_range():
    """A value a hair below the lowest edge lies below the range, not in its first bin: its
    t = (x − lo)·scale is negative however small (t + 1 would round to 1)."""
    from riskeval.inference._kernels import _TWINS, order_stats

    row = np.array([-5e-324] * 5 + [0.0] * 5 + [0.5] * 7 + [-1e-300] * 3)
    ranks = np.array([[8, 9, 10, 10]])
    want = np.sort(row)[[8, 9, 10, 10]]
    for kernel in (order_stats, _TWINS[order_stats]):
        got = kernel(row[None, :], np.array([20.0]), ranks, np.array([0.0]), np.array([1.0]))
        np.testing.assert_array_equal(got[0], want)
