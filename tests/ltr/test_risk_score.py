"""One definition of the risk-reward score x = δ if δ ≥ 0 else (1+α)δ (Dinçer, Macdonald & Ounis,
SIGIR 2014, eq. 3): the numba twin used inside the LambdaMART kernels equals the numpy reference."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy.special import ndtr

from riskeval.core.paired import risk_score, risk_scores
from riskeval.ltr import kernels
from riskeval.ltr.objectives import georisk_parameters, risk_sd

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
alphas = st.floats(0, 50, allow_nan=False)


@njit(cache=False)
def _compiled_scores(values, alpha):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = risk_score(values[i], alpha)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=1, max_size=30), alphas)
def test_compiled_twin_equals_the_reference(values, alpha):
    delta = np.asarray(values, dtype=np.float64)
    reference = risk_scores(delta, alpha)
    # called from Python, and compiled into another kernel
    assert [risk_score(float(d), alpha) for d in delta] == reference.tolist()
    np.testing.assert_array_equal(_compiled_scores(delta, alpha), reference)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1, 1, allow_nan=False), alphas, st.floats(0, 2, allow_nan=False))
def test_the_kernels_query_alpha_uses_the_reference_score(d, alpha, sx):
    # T-SARO/T-FARO's α'_q = [1 − Φ(x_q / s_x)]·α (SIGIR 2014, eq. 21 and 25)
    x = float(risk_scores(np.array([d]), alpha)[0])
    tr = x / sx if sx > 0 else 0.0
    expected = (1.0 - float(ndtr(tr))) * alpha  # scipy's Φ; the kernel's agrees to 2e-14
    assert kernels.query_alpha(d, alpha, sx) == pytest.approx(expected, rel=1e-13, abs=1e-14 * alpha)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=20), alphas)
def test_risk_sd_is_the_sd_of_the_reference_scores(values, alpha):
    delta = np.asarray(values)
    assert risk_sd(delta, alpha) == float(np.std(risk_scores(delta, alpha), ddof=1))


def test_georisk_weighting_is_the_same_function_of_z():
    # ZRisk = Σ w(z) with w the risk-reward score of z (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 5);
    # the compiled GeoRisk ratio swaps one query's w(z) for its new value with the twin
    rng = np.random.default_rng(0)
    m, B = rng.uniform(0.05, 0.9, 40), rng.uniform(0.05, 0.9, (3, 40))
    qp, gp = georisk_parameters(m, B, 2.0, "shortcut")
    assert gp[4] == float(np.sum(risk_scores(qp[:, 2], 2.0)))
    assert math.isclose(gp[4], math.fsum(risk_score(float(z), 2.0) for z in qp[:, 2]), rel_tol=1e-12)
