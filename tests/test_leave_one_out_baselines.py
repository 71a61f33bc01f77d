"""The per-topic aggregate baselines over systems (Dinçer, Ounis & Macdonald, ECIR 2014, eq. 2):
the leave-one-out MEDIAN and MAX against a direct computation without each row, the MEAN decided
exactly in both of its forms, and the rounding rule that picks the cells to decide exactly."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from riskeval.core import baselines

EPS = float(np.finfo(np.float64).eps)


def _without_each_row(X: np.ndarray, aggregate) -> np.ndarray:
    """Row i: ``aggregate`` over the rows of X other than i, column by column."""
    return np.array([aggregate(np.delete(X, i, axis=0), axis=0) for i in range(X.shape[0])])


def _matrices():
    rng = np.random.default_rng(8)
    for r in (2, 3, 4, 5, 6, 9):
        yield rng.random((r, 7))  # distinct scores
        yield rng.integers(0, 4, (r, 7)) / 4  # many ties, the largest score repeated
    yield np.array([[0.5, 0.1], [0.5, 0.9], [0.2, 0.9]])  # the largest score twice in a column


@pytest.mark.parametrize("kind", ["median", "max"])
def test_leave_one_out_aggregates_equal_the_aggregate_without_the_row(kind):
    aggregate = np.median if kind == "median" else np.max
    for X in _matrices():
        np.testing.assert_array_equal(baselines.aggregate_loo(X, kind), _without_each_row(X, aggregate))


def test_the_leave_one_out_mean_is_the_exact_mean_of_the_others_rounded_once():
    """Without s0 (0.2), t0's scores 0.3 and 0.1 have the mean 0.2, which s0 ties; the floating-point
    total less 0.2, over 2, is not 0.2.  Every other cell is the exact mean to rounding."""
    X = np.array([[0.2, 0.2, 0.5], [0.3, 0.3, 0.25], [0.1, 0.1, 1.0]])
    assert (X[:, 0].sum() - 0.2) / 2 != 0.2
    want = [[float(sum(map(Fraction, np.delete(X[:, j], i))) / 2) for j in range(3)] for i in range(3)]
    got = baselines.aggregate_loo(X, "mean")
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert got[0, 0] == got[0, 1] == 0.2


@pytest.mark.parametrize("compiled", [False, True])
def test_the_mean_is_the_exact_mean_rounded_once(monkeypatch, compiled):
    """0.1, 0.2 and 0.3 sum to 0.6000000000000001 in floating point, whose third is not 0.2; the
    MEAN is 0.2, in the numpy form and in the compiled one (forced here on a small matrix)."""
    if compiled:
        monkeypatch.setattr(baselines, "NUMPY_CELLS", 0)
    X = np.array([[0.1, 0.5, 0.25], [0.2, 0.5, 0.25], [0.3, 0.8, 0.2]])
    assert X[:, 0].sum() / 3 != 0.2
    want = [float(sum(map(Fraction, X[:, j])) / 3) for j in range(3)]
    got = baselines.aggregate(X, "mean")
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert got[0] == 0.2


def test_the_compiled_check_runs_from_16384_cells(monkeypatch):
    """Matrices of fewer than NUMPY_CELLS = 16,384 cells find the topics to decide exactly with
    numpy; from that size on, in one compiled pass."""
    assert baselines.NUMPY_CELLS == 16_384
    calls = []

    def compiled(X, means, bound):
        calls.append(X.size)
        return baselines.decided_by_rounding(X, means, bound).any(axis=0)

    monkeypatch.setattr(baselines, "topics_decided_by_rounding", compiled)
    for c in (4095, 4096):
        baselines.aggregate(np.full((4, c), 0.5), "mean")
    assert calls == [16_384]


def test_the_rounding_bound_is_r_epsilon_times_the_largest_magnitude():
    got = baselines.rounding_bound(4, np.array([2.0, 0.5, 0.0]), np.array([-3.0, 0.25, 0.0]))
    np.testing.assert_array_equal(got, [4 * EPS * 3.0, 4 * EPS * 0.5, 0.0])


@pytest.mark.parametrize("form", ["numpy", "compiled"])
def test_cells_within_the_bound_are_decided_exactly_and_no_others(form):
    """With a mean of 5 and a bound of 0.25 (exact in binary): a score within 0.25 of the mean, or
    within 0.5 of 0.8 times it (4), is flagged, the ends included; 4.625 and 5.375 are not."""
    means, bound = np.array([5.0]), np.array([0.25])
    cells = {4.75: True, 5.25: True, 4.5: True, 3.5: True, 4.625: False, 5.375: False, 3.375: False}
    for x, flagged in cells.items():
        X = np.array([[x]])
        if form == "numpy":
            got = bool(baselines.decided_by_rounding(X, means, bound)[0, 0])
        else:
            got = bool(baselines.topics_decided_by_rounding(X, means, bound)[0])
        assert got is flagged, x


def test_the_mean_from_partial_sums_is_a_topics_score_where_all_are_equal():
    """Three systems scoring 0.1 sum to 0.30000000000000004, whose third is not 0.1: from the
    smallest and the largest score, equal, the MEAN is 0.1; elsewhere it is the total over r."""
    total = np.array([0.1 + 0.1 + 0.1, 0.1 + 0.2 + 0.3])
    top, low = np.array([0.1, 0.3]), np.array([0.1, 0.1])
    assert total[0] / 3 != 0.1
    got = baselines.aggregate_from_totals("mean", 3, total, top, low)
    np.testing.assert_array_equal(got, [0.1, total[1] / 3])
    np.testing.assert_array_equal(baselines.aggregate_from_totals("mean", 3, total, top), total / 3)


def test_only_mean_and_max_come_from_partial_sums():
    total, top = np.array([3.0]), np.array([2.0])
    np.testing.assert_array_equal(baselines.aggregate_from_totals("max", 2, total, top), [2.0])
    np.testing.assert_array_equal(baselines.aggregate_from_totals("mean", 2, total, None), [1.5])
    with pytest.raises(ValueError) as e:
        baselines.aggregate_from_totals("median", 2, total, top)
    assert str(e.value) == "no 'median' baseline from per-topic sums"
    with pytest.raises(ValueError) as e:
        baselines.aggregate_from_totals("max", 2, total, None)
    assert str(e.value) == "no 'max' baseline from per-topic sums"
