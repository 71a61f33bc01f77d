"""The mean–variance kernels over query variations (Zuccon, Palotti & Hanbury, CIKM 2016,
eq. 2–9): their defaults, the shapes of one system and of a stack, and every message they give
for weights and degrees of freedom they refuse."""

from __future__ import annotations

import numpy as np
import pytest

from riskeval.core import mve
from riskeval.errors import RiskevalError


def _message(call) -> str:
    with pytest.raises(RiskevalError) as e:
        call()
    return str(e.value)


def test_weights_are_normalised_and_zero_weights_allowed():
    np.testing.assert_array_equal(mve.normalise_weights(None, 4), [0.25] * 4)
    np.testing.assert_array_equal(mve.normalise_weights(np.array([0.0, 1.0, 3.0]), 3), [0.0, 0.25, 0.75])


def test_refused_weights_are_named_with_what_was_given():
    assert _message(lambda: mve.normalise_weights(np.ones(3), 4)) == (
        "weights must hold one weight per topic (4); got shape (3,)."
    )
    bad = -np.arange(1.0, 13.0)  # twelve weights: the message shows the first ten
    assert _message(lambda: mve.normalise_weights(bad, 12, name="topic_weights")) == (
        "topic_weights must be finite and >= 0; got "
        "[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0]."
    )
    assert _message(lambda: mve.normalise_weights(np.array([1.0, np.nan]), 2)) == (
        "weights must be finite and >= 0; got [1.0, nan]."
    )
    assert _message(lambda: mve.normalise_weights(np.zeros(3), 3)) == "weights must not all be zero."


def test_ddof_is_0_or_1_and_needs_more_observations():
    R = np.arange(6.0).reshape(2, 3)  # 2 topics × 3 users
    w = mve.normalise_weights(None, 2)
    assert _message(lambda: mve.general_moments(R, w, ddof=2)) == (
        "The 'ddof' parameter must be 0 or 1; got 2."
    )
    one_user = R[:, :1]
    want = (
        "A variance with ddof=1 needs more than 1 variants per topic (users); got 1. "
        "Use ddof=0 or provide more observations."
    )
    assert _message(lambda: mve.general_moments(one_user, w)) == want
    assert _message(lambda: mve.topic_variance(one_user, w)) == want
    assert _message(lambda: mve.topic_variance(np.ones((3, 2, 1)), w)) == want  # 3 systems
    assert _message(lambda: mve.intra_topic_moments(np.array([[1.0, np.nan], [2.0, 3.0]]))) == (
        "A variance with ddof=1 needs more than 1 variants in every topic; got 1. "
        "Use ddof=0 or provide more observations."
    )
    assert _message(lambda: mve.intra_topic_moments(np.zeros((0, 3)), ddof=0)) == (
        "A variance with ddof=0 needs more than 0 variants in every topic; got 0. "
        "Use ddof=0 or provide more observations."
    )
    assert _message(lambda: mve.inter_topic_moments(np.array([0.5]), np.ones(1))) == (
        "A variance with ddof=1 needs more than 1 topics; got 1. Use ddof=0 or provide more observations."
    )


def test_one_system_and_a_stack_of_systems_give_the_sample_moments_by_default():
    """Defaults are ddof = 1; one system's N × M array gives scalars, a stack one value per system.
    References: numpy's mean and var of each user's weighted mean (eq. 3–4), of each topic's users
    (eq. 8), and the sample variance over topics (eq. 9 with uniform weights)."""
    rng = np.random.default_rng(2)
    R = rng.random((3, 4, 5))  # 3 systems, 4 topics, 5 users
    w = mve.normalise_weights(np.array([1.0, 2.0, 3.0, 4.0]), 4)
    for stack in (R, R[0]):
        mean, var = mve.general_moments(stack, w)
        y = np.einsum("i,...ik->...k", w, stack)
        np.testing.assert_allclose(mean, y.mean(axis=-1), rtol=1e-14)
        np.testing.assert_allclose(var, y.var(axis=-1, ddof=1), rtol=1e-14)
        np.testing.assert_allclose(
            mve.topic_variance(stack, w), stack.var(axis=-1, ddof=1) @ w**2, rtol=1e-14
        )
        mean, var = mve.intra_topic_moments(stack)
        np.testing.assert_allclose(var, stack.var(axis=-1, ddof=1), rtol=1e-14)
    u = mve.normalise_weights(None, 4)
    r = R[0, :, 0]
    mean, var = mve.inter_topic_moments(r, u)
    assert mean == pytest.approx(r.mean(), rel=1e-14)
    assert var == pytest.approx(r.var(ddof=1), rel=1e-14)
    mean, var = mve.inter_topic_moments(R[:, :, 0], u)
    np.testing.assert_allclose(var, R[:, :, 0].var(axis=-1, ddof=1), rtol=1e-14)
