"""The numba kernels: sorting, NDCG@k, LightGBM's sigmoid table and ideal DCG."""

import math

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc, nDCG

from riskeval.ltr import kernels
from riskeval.ltr.groups import default_gains


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=80))
def test_stable_argsort_descending_keeps_ties_in_input_order(values):
    scores = np.asarray(values, dtype=np.float64)
    # the query occupies rows 2..n+1 of a longer array, as in a training set
    padded = np.concatenate([[9.0, -9.0], scores, [5.0]])
    scratch = (np.empty(80), np.empty(80, dtype=np.int64), np.empty(80), np.empty(80, dtype=np.int64))
    ranked = kernels.stable_argsort_desc(padded, 2, 2 + scores.size, *scratch)
    expected = np.argsort(-scores, kind="stable") + 2
    np.testing.assert_array_equal(ranked[: scores.size], expected)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=80), st.randoms(use_true_random=False))
def test_rerank_from_any_previous_ranking_gives_the_stable_ranking(values, rnd):
    # the previous ranking is nearly sorted (insertion sort), reversed (past the move budget:
    # sorted afresh) or shuffled; the result depends on the scores only
    scores = np.asarray(values, dtype=np.float64)
    padded = np.concatenate([[9.0, -9.0], scores, [5.0]])
    stop = 2 + scores.size
    expected = np.argsort(-scores, kind="stable") + 2
    scratch = (np.empty(80), np.empty(80, dtype=np.int64), np.empty(80), np.empty(80, dtype=np.int64))
    shuffled = list(range(2, stop))
    rnd.shuffle(shuffled)
    nearly = expected.copy()
    if scores.size > 1:
        nearly[[0, -1]] = nearly[[-1, 0]]
    for previous in (expected, expected[::-1], np.array(shuffled), nearly, np.arange(2, stop)):
        order = np.concatenate([[0, 1], previous, [stop]]).astype(np.int64)
        kernels.rerank(padded, 2, stop, order, *scratch)
        np.testing.assert_array_equal(order[2:stop], expected)
        np.testing.assert_array_equal(order[[0, 1, stop]], [0, 1, stop])


def test_ndcg_at_k_matches_ir_measures_with_exponential_gains():
    # two queries, graded labels 0-3; gains 2^l - 1 as LightGBM (ir_measures' gains parameter)
    labels = np.array([2, 0, 3, 1, 0, 1, 0, 0, 2, 1, 0], dtype=np.int64)
    scores = np.array([3.0, 2.0, 1.0, 0.5, 0.1, 0.4, 0.9, 0.3, 0.2, 0.8, 0.7])
    bounds = np.array([0, 5, 11])
    ours = kernels.ndcg_at_k(scores, labels, bounds, 3, default_gains())
    qrels = [Qrel(f"q{q}", f"d{i}", int(labels[i])) for q in (0, 1) for i in range(bounds[q], bounds[q + 1])]
    run = [
        ScoredDoc(f"q{q}", f"d{i}", float(scores[i])) for q in (0, 1) for i in range(bounds[q], bounds[q + 1])
    ]
    measure = nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7}) @ 3
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    np.testing.assert_allclose(ours, [theirs["q0"], theirs["q1"]], rtol=1e-12)
    # by hand, query 0: DCG@3 = 3 + 0 + 7/2, ideal = 7 + 3/log2(3) + 1/2
    assert ours[0] == pytest.approx(6.5 / (7.5 + 3 / math.log2(3)), rel=1e-12)


def test_ndcg_is_zero_without_relevant_documents():
    out = kernels.ndcg_at_k(np.array([1.0, 2.0]), np.array([0, 0]), np.array([0, 2]), 10, default_gains())
    assert out[0] == 0.0


def test_sigmoid_table_is_lightgbms():
    # LightGBM: 2^20 bins over [-50/σ/2, 50/σ/2), table[i] = 1/(1 + exp(σ·(i/factor + lo)))
    table, lo, hi, factor = kernels.sigmoid_table(2.0)
    assert table.shape == (1 << 20,)
    assert (lo, hi) == (-12.5, 12.5)
    assert factor == (1 << 20) / 25.0
    i = np.array([0, 1, 12345, (1 << 20) - 1])
    np.testing.assert_allclose(table[i], 1 / (1 + np.exp(2.0 * (i / factor + lo))), rtol=1e-15)


def test_ideal_dcg_at_k():
    labels = np.array([1, 3, 0, 2, 2], dtype=np.int64)
    disc = kernels.discounts()
    ideal = kernels.max_dcg(labels, 0, 5, 3, default_gains(), disc)
    assert ideal == pytest.approx(7 + 3 / math.log2(3) + 3 / 2, rel=1e-15)
    # k beyond the query's length: all documents
    assert kernels.max_dcg(labels, 0, 2, 30, default_gains(), disc) == pytest.approx(7 + 1 / math.log2(3))


@pytest.mark.parametrize(
    "d, delta, phi",
    [
        (0.2, 0.1, 0.0),  # above the baseline, stays above
        (0.2, -0.1, 0.0),
        (-0.2, -0.1, 1.0),  # below, stays below
        (-0.2, 0.1, 1.0),
        (0.1, -0.3, 2 / 3),  # degrading swap crosses: 0.2 of 0.3 lies below
        (-0.1, 0.4, 0.25),  # improving swap crosses: 0.1 of 0.4 lies below
        (0.0, -0.2, 1.0),  # at the baseline (upside by convention)
        (0.0, 0.2, 0.0),
        (-0.1, 0.0, 1.0),  # no change in NDCG@k: the limit
        (0.1, 0.0, 0.0),
    ],
)
def test_crossing_ratio_is_the_share_below_the_baseline(d, delta, phi):
    assert kernels.crossing_ratio(delta, 3.0, d) == pytest.approx(1.0 + 3.0 * phi, abs=1e-15)
