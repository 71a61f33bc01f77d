"""The jackknife behind TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 14–18): leave-one-out
URisk, Tukey's pseudo-values and the bias estimate in ``rk.trisk(..., se="jackknife")``, checked
against a leave-one-out loop; for URisk, a mean, the bias is 0 and the pseudo-values are the x_j."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import riskeval as rk


def _x(s, b, alpha):
    d = np.asarray(s) - np.asarray(b)
    return np.where(d >= 0, d, (1 + alpha) * d)


def test_fields_against_a_loop():
    rng = np.random.default_rng(4)
    s = pd.Series(rng.uniform(0, 1, 30), index=[f"q{j}" for j in range(30)])
    b = pd.Series(rng.uniform(0, 1, 30), index=s.index)
    r = rk.trisk(s, b, alpha=5, se="jackknife")
    x = _x(s, b, 5)
    c = x.size
    theta = np.array([np.delete(x, j).mean() for j in range(c)])  # URisk without topic j
    np.testing.assert_allclose(r.leave_one_out.to_numpy(), theta, atol=1e-14)
    assert list(r.leave_one_out.index) == list(s.index) and list(r.pseudo_values.index) == list(s.index)
    np.testing.assert_allclose(r.pseudo_values.to_numpy(), c * x.mean() - (c - 1) * theta, atol=1e-12)
    # θ̂ is the reported URisk, from the paired sums (risk_table's bits): x.mean() up to rounding
    assert r.urisk == pytest.approx(x.mean(), abs=1e-15)
    assert r.bias == pytest.approx((c - 1) * (theta.mean() - r.urisk), abs=1e-15)
    assert r.bias_corrected == pytest.approx(c * x.mean() - (c - 1) * theta.mean())
    # varJ from the pseudo-values (Tukey) is the squared SE, and for a mean the pseudo-values are x_j
    assert r.se == pytest.approx(np.sqrt(r.pseudo_values.var(ddof=1) / c))
    np.testing.assert_allclose(r.pseudo_values.to_numpy(), x, atol=1e-12)
    statistic, pvalue = r  # still unpacks as scipy's results
    assert (statistic, pvalue) == (r.statistic, r.pvalue)
    assert r == rk.trisk(s, b, alpha=5, se="jackknife")  # Series fields are not compared
    assert "pseudo_values" not in repr(r) and "leave_one_out" not in r.to_frame().columns
    assert r.to_frame()["bias"].iloc[0] == r.bias


def test_parametric_has_no_jackknife_fields():
    r = rk.trisk([0.1, 0.5, 0.3], [0.2, 0.2, 0.2], alpha=1)
    assert r.leave_one_out is None and r.pseudo_values is None and r.bias is None and r.bias_corrected is None
    same = rk.trisk([0.1, 0.5, 0.3], [0.1, 0.5, 0.3], alpha=1, se="jackknife")
    assert np.isnan(same.statistic) and same.bias == 0 and (same.pseudo_values == 0).all()


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 40), elements=st.floats(0, 1, width=32)),
    arrays(np.float64, 40, elements=st.floats(0, 1, width=32)),
    st.floats(0, 20),
)
def test_urisk_is_unbiased(s, b, alpha):
    b = b[: s.size]
    r = rk.trisk(s, b, alpha=alpha, se="jackknife")
    scale = 1 + alpha
    assert abs(r.bias) <= 1e-12 * scale * s.size
    assert r.bias_corrected == pytest.approx(r.urisk, abs=1e-12 * scale * s.size)
    np.testing.assert_allclose(r.pseudo_values.to_numpy(), _x(s, b, alpha), atol=1e-12 * scale * s.size)
