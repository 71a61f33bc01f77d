"""Error rates and coverage by simulation (slow: ``python -m pytest -m slow``; the longer version is
``python benchmarks/bench_inference.py --coverage``).  Each check allows four Monte Carlo standard
errors; the interval check also allows the known small-sample undercoverage of bootstrap intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import riskeval as rk

pytestmark = pytest.mark.slow

REPS = 300
SE = np.sqrt(0.05 * 0.95 / REPS)


def test_randomisation_type_one_error_and_maxt_familywise_error():
    """H0 at α = 5 for 8 systems: x_j symmetric about 0 (δ = x above 0, x/(1+α) below)."""
    rng = np.random.default_rng(1)
    cell, fwer = [], []
    for k in range(REPS):
        x = rng.normal(0, 0.1, size=(8, 30))
        base = rng.uniform(0.2, 0.6, 30)
        X = pd.DataFrame(base + np.where(x >= 0, x, x / 6), index=[f"s{i}" for i in range(8)])
        t = rk.risk_permutation_table(X, base, [5.0], n_resamples=499, rng=k)
        cell.append((t["pvalue"] < 0.05).mean())
        fwer.append((t["pvalue_maxt"] < 0.05).any())
    assert abs(np.mean(cell) - 0.05) < 4 * np.sqrt(0.05 * 0.95 / (8 * REPS))  # 8 independent cells each
    assert np.mean(fwer) < 0.05 + 4 * SE


def test_tukey_familywise_error_under_the_complete_null():
    rng = np.random.default_rng(2)
    hits = [
        (
            rk.tukey_hsd(pd.DataFrame(rng.beta(2, 5, size=(6, 30))), n_resamples=199, rng=k).table[
                "pvalue_hsd"
            ]
            < 0.05
        ).any()
        for k in range(REPS)
    ]
    assert np.mean(hits) < 0.05 + 4 * SE


def test_bca_interval_coverage_of_urisk():
    rng = np.random.default_rng(3)
    big = rng.normal(0.02, 0.1, 1_000_000)
    truth = np.where(big >= 0, big, 2 * big).mean()
    hits = []
    for k in range(REPS):
        d = rng.normal(0.02, 0.1, 40)
        ci = rk.bootstrap_ci(
            pd.DataFrame([0.5 + d]),
            np.full(40, 0.5),
            [1.0],
            measures="urisk",
            method="bca",
            n_resamples=499,
            seed=k,
        )
        hits.append(ci["low"].iloc[0] <= truth <= ci["high"].iloc[0])
    assert np.mean(hits) > 0.95 - 0.02 - 4 * SE


def test_parallel_kernels_equal_their_serial_twins():
    """The fast suite's inputs run the serial twins; the parallel kernels (numba prange, runs of
    resamples counted apart) give the same numbers on inputs large enough to use them."""
    from riskeval.inference import _kernels as K

    rng = np.random.default_rng(4)
    X = rng.beta(2, 5, size=(60, 40))
    Xt = np.ascontiguousarray(X.T)
    key = np.uint64(77)
    obs = rng.uniform(0, 0.1, size=(60, 60))
    words = rng.integers(0, 2**64, (3000, 1), dtype=np.uint64)
    Tp, Tn = rng.normal(size=(8, 32, 60)), rng.normal(size=(8, 32, 60))  # 8 groups of 5 topics
    f, sc, th = np.array([1.0, 3.0]), np.ones((2, 60)), np.full((2, 60), 2.0)
    cases = {
        K.tukey_counts: (Xt, key, 300, obs, np.unique(obs), 16),
        K.permuted_sums: (Xt, key, 300, 16),
    }
    for kernel, args in cases.items():
        got, want = kernel(*args), K._TWINS[kernel](*args)
        for a, b in zip(
            got if isinstance(got, tuple) else (got,),
            want if isinstance(want, tuple) else (want,),
            strict=True,
        ):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    outs = []
    for kernel in (K.flip_hits, K._TWINS[K.flip_hits]):
        hits, maxima = np.zeros((2, 60)), np.empty(3000)
        kernel(words, np.concatenate([Tp, Tn], axis=2), 5, f, sc, th, hits, maxima, 16)
        outs.append((hits, maxima))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12)
