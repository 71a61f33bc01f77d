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
            risk="urisk",
            method="bca",
            n_resamples=499,
            rng=k,
        )
        hits.append(ci["low"].iloc[0] <= truth <= ci["high"].iloc[0])
    assert np.mean(hits) > 0.95 - 0.02 - 4 * SE
