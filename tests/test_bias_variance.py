"""Bias–variance decomposition, robustness index, GMAP (Zhang, Song, Wang & Hou, SIGIR 2013)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import riskeval as rk
from riskeval.errors import RiskevalError

# Zhang et al. 2013, Table 1: AP of models A, B, C and target T on queries q1, q2.
TABLE1 = [[0.3, 0.1], [0.6, 0.08], [0.65, 0.03], [0.7, 0.2]]
TARGET = [0.7, 0.2]

aps = arrays(
    np.float64,
    st.tuples(st.integers(1, 6), st.integers(1, 12)),
    elements=st.floats(0, 1, allow_nan=False),
)


def test_zhang_et_al_table1_with_corrected_values():
    # Golden values of Zhang et al.'s Table 1 (AP form); Var(B) = 0.0676 and Bias²+Var(C) = 0.1082 are
    # the corrected values (the paper prints 0.0646 and 0.182).
    bv = rk.variations.bias_variance([[.3,.1],[.6,.08],[.65,.03],[.7,.2]], target=[.7,.2])  # fmt: skip
    np.testing.assert_allclose(bv.bias, [0.25, 0.11, 0.11, 0.0], atol=1e-12)
    np.testing.assert_allclose(bv.variance, [0.01, 0.0676, 0.0961, 0.0625], atol=1e-12)
    np.testing.assert_allclose(bv.total, [0.0725, 0.0797, 0.1082, 0.0625], atol=1e-12)
    np.testing.assert_allclose(bv.mean, [0.2, 0.34, 0.34, 0.45], atol=1e-12)  # MAP column
    assert bv.form == "ap" and bv.target_mean == pytest.approx(0.45)


def test_table1_ranking_of_total_error():
    # "T has the best overall quality; B is more desirable than C; B and C reduce the bias of A
    # but enlarge the variance and the total error" (§1).
    bv = rk.variations.bias_variance(TABLE1, target=TARGET)
    a, b, c, t = bv.total
    assert t < a < b < c
    assert bv.bias[1] < bv.bias[0] and bv.variance[1] > bv.variance[0]


@pytest.mark.parametrize("target", ["3", 0.45, TARGET, pd.Series([0.2, 0.7], index=["1", "0"])])
def test_table1_target_given_as_system_mean_or_vector(target):
    # A target system (row 3 = T), the target MAP only, a per-topic vector, a Series by topic.
    bv = rk.variations.bias_variance(TABLE1, target=target)
    np.testing.assert_allclose(bv.total, [0.0725, 0.0797, 0.1082, 0.0625], atol=1e-12)


def test_table2_delta_form():
    # Table 2: Δ = AP_T − AP; Var 0.0225/0.0001/0.0036/0, Bias²+Var 0.0850/0.0122/0.0157/0.
    bv = rk.variations.bias_variance(TABLE1, target=TARGET, form="delta")
    np.testing.assert_allclose(bv.bias, [0.25, 0.11, 0.11, 0.0], atol=1e-12)
    np.testing.assert_allclose(bv.variance, [0.0225, 0.0001, 0.0036, 0.0], atol=1e-12)
    np.testing.assert_allclose(bv.total, [0.0850, 0.0122, 0.0157, 0.0], atol=1e-12)


def test_table1_robustness_index_and_init_against_model_a():
    # Table 1 columns "Robust Index" 0/0/0/1 and "<Init" 0/0.5/0.5/0, A the original model.
    frame = pd.DataFrame(TABLE1, index=list("ABCT"), columns=["q1", "q2"])
    ri = rk.variations.robustness_index(frame, reference="A")
    np.testing.assert_array_equal(ri.robustness_index, [0, 0, 0, 1])
    np.testing.assert_array_equal(ri.below_init, [0, 0.5, 0.5, 0])
    np.testing.assert_array_equal(ri.n_better, [0, 1, 1, 2])
    assert list(ri.to_frame().index) == list("ABCT")


def test_c_changed_to_032_011():
    # §1: with C's APs changed to 0.32 and 0.11, "its MAP, <Init and Robustness Index become 0.215,
    # 0 and 1" — stabler but less effective than B.  The total error settles it: C' 0.06625 <
    # B 0.0797, so C' is the better model overall.
    frame = pd.DataFrame(TABLE1, index=list("ABCT"), columns=["q1", "q2"])
    frame.loc["C"] = [0.32, 0.11]
    ri = rk.variations.robustness_index(frame, reference="A")
    assert ri.below_init[2] == 0 and ri.robustness_index[2] == 1
    bv = rk.variations.bias_variance(frame, target="T")
    assert bv.mean[2] == pytest.approx(0.215)
    assert bv.bias[2] == pytest.approx(0.235)
    assert bv.variance[2] == pytest.approx(0.011025)
    assert bv.total[2] == pytest.approx(0.06625)
    assert bv.total[2] < bv.total[1]


def test_ties_count_neither_way_in_robustness():
    ri = rk.variations.robustness_index([[0.5, 0.2, 0.3]], reference=[0.5, 0.1, 0.4])
    assert (ri.n_better[0], ri.n_worse[0]) == (1, 1)
    assert ri.robustness_index[0] == 0 and ri.below_init[0] == pytest.approx(1 / 3)


@settings(max_examples=60, deadline=None)
@given(aps)
def test_decompositions_are_exact(ap):
    # eq. 3: Bias² + Var(AP) = E(AP − MAP_T)²; eq. 7: Bias²(Δ) + Var(Δ) = E(AP − AP_T)²;
    # eq. 9: E(AP − 1)² = (1 − MAP)² + Var(AP), the same with the perfect target in either form.
    target = ap.max(axis=0)
    ap_form = rk.variations.bias_variance(ap, target="best")
    np.testing.assert_allclose(ap_form.total, ((ap - target.mean()) ** 2).mean(axis=1), atol=1e-12)
    delta = rk.variations.bias_variance(ap, target="best", form="delta")
    np.testing.assert_allclose(delta.total, ((ap - target) ** 2).mean(axis=1), atol=1e-12)
    np.testing.assert_allclose(delta.bias, ap_form.bias, atol=1e-12)  # §2.4: the biases agree
    perfect = ((ap - 1.0) ** 2).mean(axis=1)
    for form in ("ap", "delta"):
        bv = rk.variations.bias_variance(ap, target="perfect", form=form)
        np.testing.assert_allclose(bv.total, perfect, atol=1e-12)
        np.testing.assert_allclose(bv.error_to_perfect, perfect, atol=1e-12)
    # eq. 8: E(AP−1)² = E(AP−AP_T)² + E(AP_T−1)² + 2E[(AP−AP_T)(AP_T−1)]
    eq8 = delta.total + ((target - 1) ** 2).mean() + 2 * ((ap - target) * (target - 1)).mean(1)
    np.testing.assert_allclose(eq8, perfect, atol=1e-12)


def test_best_target_of_a_subset():
    frame = pd.DataFrame([[0.1, 0.9], [0.5, 0.2], [0.4, 0.4]], index=["x", "y", "z"])
    bv = rk.variations.bias_variance(frame, target="best", best_of=["x", "y"], form="delta")
    # target per topic: max(0.1, 0.5) = 0.5 and max(0.9, 0.2) = 0.9
    np.testing.assert_allclose(bv.bias, [0.2, 0.35, 0.3])
    assert bv.target == "best"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": 0.5, "form": "delta"}, "per-topic target"),
        ({"target": [0.1, 0.2, 0.3]}, "one finite score per topic"),
        ({"target": "nobody"}, "neither 'perfect', 'best' nor a system"),
        ({"target": "perfect", "best_of": ["0"]}, "best_of"),
        ({"target": "best", "best_of": ["9"]}, "unknown"),
        ({"form": "squared"}, "'form' parameter"),
        ({"target": ["a", "b"]}, "numeric"),
    ],
)
def test_bad_parameters_are_named(kwargs, message):
    with pytest.raises(RiskevalError, match=message):
        rk.variations.bias_variance(TABLE1, **kwargs)


def test_to_frame_is_tidy_per_system():
    frame = rk.variations.bias_variance(TABLE1, target=TARGET).to_frame()
    assert list(frame.columns) == ["mean", "bias", "bias2", "variance", "total", "error_to_perfect"]
    assert frame.index.name == "system"
    np.testing.assert_allclose(frame["bias2"] + frame["variance"], frame["total"])


@settings(max_examples=40, deadline=None)
@given(aps)
def test_gmap_is_scipy_gmean_of_floored_scores(ap):
    expected = stats.gmean(np.maximum(ap, 1e-5), axis=1)
    np.testing.assert_allclose(rk.variations.gmap(ap).to_numpy(), expected, rtol=1e-12)


def test_gmap_floor_and_bad_floor():
    assert rk.variations.gmap([[0.0, 1.0]]).iloc[0] == pytest.approx(np.sqrt(1e-5))
    with pytest.raises(RiskevalError, match="floor"):
        rk.variations.gmap([[0.1]], floor=0)
