"""Regression snapshot of the public measures' defaults: a call that leaves out α, the standard
error, the level or the baseline gets the same result as one that spells out today's default, so
that a changed default is a decision, not an accident."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import riskeval as rk

X = pd.DataFrame(
    np.random.default_rng(11).beta(2, 5, size=(4, 12)),
    index=["a", "b", "c", "d"],
    columns=[f"t{j}" for j in range(12)],
)
S, B = X.loc["a"], X.loc["b"]


def test_snapshot_paired_measures_default_to_alpha_1():
    assert rk.urisk(S, B) == rk.urisk(S, B, alpha=1.0) != rk.urisk(S, B, alpha=2.0)
    default, explicit = rk.trisk(S, B), rk.trisk(S, B, alpha=1.0, se="parametric", level=0.05)
    assert (default.statistic, default.pvalue) == (explicit.statistic, explicit.pvalue)
    assert default.significant == explicit.significant
    pd.testing.assert_frame_equal(
        rk.topic_risk(S, B), rk.topic_risk(S, B, alpha=1.0, level=0.05, correction=None)
    )


@pytest.mark.parametrize("measure", [rk.zrisk, rk.georisk])
def test_snapshot_chi_square_measures_default_to_alpha_0_against_the_matrix(measure):
    pd.testing.assert_series_equal(measure(X), measure(X, alpha=0.0, baseline=None))
    assert not measure(X).equals(measure(X, alpha=5.0))


def test_snapshot_baseline_defaults_to_the_mean():
    pd.testing.assert_series_equal(rk.analysis.baseline(X), rk.analysis.baseline(X, "mean"))
    pd.testing.assert_frame_equal(rk.risk_table(X), rk.risk_table(X, "mean", [0.0, 1.0, 5.0, 10.0]))
