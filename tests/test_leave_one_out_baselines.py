"""The per-topic aggregate baselines over systems (Dinçer, Ounis & Macdonald, ECIR 2014, eq. 2):
the leave-one-out MEDIAN and MAX against a direct computation without each row, and the rule that
ties a MEAN or MEDIAN with a score within the rounding of decimal scores, in both of its forms."""

from __future__ import annotations

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


def test_the_leave_one_out_mean_ties_with_the_score_within_the_tolerance():
    """Without s0 (0.2), t0's scores 0.3 and 0.1 have the mean 0.2, which s0 ties; the floating-point
    total less 0.2, over 2, is not 0.2.  Every other cell is the floating-point mean of the others."""
    X = np.array([[0.2, 0.2, 0.5], [0.3, 0.3, 0.25], [0.1, 0.1, 1.0]])
    assert (X[:, 0].sum() - 0.2) / 2 != 0.2
    want = (X.sum(axis=0) - X) / 2
    want[0, :2] = 0.2
    np.testing.assert_array_equal(baselines.aggregate_loo(X, "mean"), want)


@pytest.mark.parametrize("compiled", [False, True])
def test_the_mean_ties_with_the_nearest_score_within_the_tolerance(monkeypatch, compiled):
    """0.1, 0.2 and 0.3 sum to 0.6000000000000001 in floating point, whose third is not 0.2; the
    MEAN is 0.2, in the numpy form and in the compiled one (forced here on a small matrix).  No
    score is near the other topics' means, which stay the floating-point ones."""
    if compiled:
        monkeypatch.setattr(baselines, "NUMPY_CELLS", 0)
    X = np.array([[0.1, 0.5, 0.25], [0.2, 0.5, 0.25], [0.3, 0.8, 0.2]])
    assert X[:, 0].sum() / 3 != 0.2
    np.testing.assert_array_equal(baselines.aggregate(X, "mean"), [0.2, *(X.sum(axis=0)[1:] / 3)])


def test_the_compiled_form_runs_from_16384_cells(monkeypatch):
    """Matrices of fewer than NUMPY_CELLS = 16,384 cells find the scores their MEAN ties with by
    numpy; from that size on, in one compiled pass."""
    assert baselines.NUMPY_CELLS == 16_384
    calls = []

    def compiled(A, values, tol, topics_first):
        calls.append(A.size)
        return values

    monkeypatch.setattr(baselines, "_nearest_ties", compiled)
    for c in (4095, 4096):
        baselines.aggregate(np.full((4, c), 0.5), "mean")
    assert calls == [16_384]


def test_the_tie_tolerance_is_2_to_the_minus_38_of_the_largest_magnitude():
    assert baselines.TIE_RTOL == 2**14 * EPS
    got = baselines.tie_tolerance(np.array([2.0, 0.5, 0.0]), np.array([-3.0, 0.25, 0.0]))
    np.testing.assert_array_equal(got, [2**-38 * 3.0, 2**-38 * 0.5, 0.0])


@pytest.mark.parametrize("form", ["numpy", "compiled, systems first", "compiled, topics first"])
def test_a_baseline_takes_the_nearest_score_within_the_tolerance_and_no_other(form):
    """With a baseline of 5 and a tolerance of 0.25 (exact in binary): a score within 0.25, the ends
    included, ties (the nearest one, the first on equal distances); 4.625 and 5.375 do not."""
    cases = [
        ([5.25], 5.25),
        ([4.75], 4.75),
        ([4.625], 5.0),
        ([5.375], 5.0),
        ([4.9, 5.1, 5.05, 4.95], 5.05),
        ([5.1, 4.9], 5.1),
        ([3.0, 7.0], 5.0),
    ]
    for column, want in cases:
        X, values, tol = np.array(column)[:, None], np.array([5.0]), np.array([0.25])
        if form == "numpy":
            got = baselines.nearest_ties(X, values, tol)
        else:
            topics_first = form.endswith("topics first")
            got = baselines._nearest_ties(X.T if topics_first else X, values, tol, topics_first)
        assert got[0] == want, column


def test_the_compiled_and_numpy_forms_tie_the_same_scores():
    """On P@10-like scores (many at their topic's MEAN), continuous ones and a long thin matrix of
    quarters, row-major and column-major, the compiled pass over the whole matrix equals the numpy
    form on slices of it."""
    rng = np.random.default_rng(3)
    changed = 0
    for X in (rng.integers(0, 11, (5, 3000)) / 10, rng.random((200, 90)), rng.integers(0, 3, (5, 4000)) / 4):
        means = X.sum(axis=0) / X.shape[0]
        tol = baselines.tie_tolerance(X.max(axis=0), X.min(axis=0))
        for layout in (np.ascontiguousarray(X), np.asfortranarray(X)):
            compiled = baselines.nearest_ties(layout, means, tol)
            for k in range(0, X.shape[1], 50):  # 50 topics: below NUMPY_CELLS
                part = slice(k, k + 50)
                numpy = baselines.nearest_ties(X[:, part], means[part], tol[part])
                np.testing.assert_array_equal(compiled[part], numpy)
            changed += (compiled != means).sum()
    assert changed > 0


def test_each_cell_ties_with_its_own_baseline_within_the_tolerance():
    """cell_ties: a cell's baseline within the tolerance of the cell's score becomes that score;
    the tolerance is TIE_RTOL times the topic's largest |score| (here 4: 2⁻³⁶)."""
    x = np.array([[1.0, 4.0], [-4.0, 2.0]])
    tol = 2**-36
    B = np.array([[1.0 + tol, 4.0 - 2 * tol], [-4.0 - tol, 2.5]])
    got = baselines.cell_ties(x, B, np.array([-4.0, 2.0]), np.array([1.0, 4.0]))
    np.testing.assert_array_equal(got, [[1.0, 4.0 - 2 * tol], [-4.0, 2.5]])


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
