"""The vectorised normal distribution function Φ of the bootstrap kernel: as accurate as the C
library's erfc against mpmath, equal to scipy.special.ndtr to rounding, the same value in a vector
lane as alone, and its polynomial the one tools/make_erfc_polynomial.py computes."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from numba import njit
from scipy.special import ndtr as scipy_ndtr

from riskeval.core import normal_cdf
from riskeval.core.normal_cdf import ndtr

TOOL = Path(__file__).resolve().parents[1] / "tools" / "make_erfc_polynomial.py"


@njit(error_model="numpy")
def _phi_loop(y, out):  # a loop over contiguous values, which vectorises
    for i in range(y.size):
        out[i] = ndtr(y[i])


@njit(error_model="numpy")
def _libm_loop(y, out):
    for i in range(y.size):
        out[i] = 0.5 * math.erfc(-y[i] * math.sqrt(0.5))


@njit
def _phi_one(y):  # one value at a time, no vector lanes
    return ndtr(y)


def _grid() -> np.ndarray:
    rng = np.random.default_rng(3)
    edges = np.array([0.0, -0.0, 1e-300, -1e-300, 8.3, 9.0, -37.0, -37.5, -38.4])
    return np.concatenate(
        [rng.uniform(-38, 9, 4000), rng.normal(0, 1.5, 4000), np.linspace(-1, 1, 801), edges]
    )


def _ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return np.abs(got - ref) / np.spacing(np.abs(ref))


def test_as_accurate_as_the_c_library_against_mpmath():
    y = _grid()
    mp.mp.dps = 40
    ref = np.array([float(mp.ncdf(mp.mpf(float(v)))) for v in y])
    ours, libm = np.empty_like(y), np.empty_like(y)
    _phi_loop(y, ours)
    _libm_loop(y, libm)
    normal = ref > np.finfo(float).tiny  # subnormal results have no relative accuracy
    # most of either's error in the lower tail is the rounding of y/√2, amplified by 2x²
    assert (_ulps(ours, ref)[normal] <= _ulps(libm, ref)[normal] + 8).all()
    central = normal & (np.abs(y) <= 2)
    assert _ulps(ours, ref)[central].max() <= 8
    np.testing.assert_array_equal(ours[~normal] == 0, ref[~normal] == 0)


def test_equals_scipy_to_rounding():
    y = np.linspace(-8, 8, 16001)
    ours = np.empty_like(y)
    _phi_loop(y, ours)
    np.testing.assert_allclose(ours, scipy_ndtr(y), rtol=2e-14, atol=0)


def test_special_values():
    y = np.array([np.nan, np.inf, -np.inf, 40.0, -40.0, 1e308, -1e308, 0.0, -0.0])
    ours = np.empty_like(y)
    _phi_loop(y, ours)
    np.testing.assert_array_equal(ours[:7], [np.nan, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(ours[7:], 0.5, rtol=np.finfo(float).eps, atol=0)  # within an ulp


def test_a_vector_lane_gives_the_value_computed_alone():
    y = _grid()
    ours = np.empty_like(y)
    _phi_loop(y, ours)
    np.testing.assert_array_equal(ours, [_phi_one(v) for v in y])


@pytest.mark.parametrize("y", [-5.0, -0.7, 0.3, 2.0])
def test_symmetry(y):
    assert _phi_one(y) + _phi_one(-y) == pytest.approx(1.0, abs=2e-16)


def test_polynomial_is_the_tools():
    spec = importlib.util.spec_from_file_location("make_erfc_polynomial", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.powers(tool.chebyshev()) == list(normal_cdf._G)
