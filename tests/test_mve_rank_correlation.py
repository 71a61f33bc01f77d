"""Kendall's τ and AP correlation τ_AP between system rankings (Yilmaz, Aslam & Robertson 2008)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import riskeval as rk
from riskeval.core.rank_correlation import competition_ranks, rank_correlations, tie_groups
from riskeval.errors import RiskevalError

# Scores giving the reference ranking A > B > C > D.
REF = [4.0, 3.0, 2.0, 1.0]


@pytest.mark.parametrize(
    ("evaluated", "expected"),
    [
        # B > A > C > D.  C(2) = 0 (B is above A in the evaluated ranking, not in the reference),
        # C(3) = 2, C(4) = 3: τ_AP = 2/3 · (0/1 + 2/2 + 3/3) − 1 = 1/3.
        ([3.0, 4.0, 2.0, 1.0], 1 / 3),
        # A > B > D > C: C(2) = 1, C(3) = 2, C(4) = 2: τ_AP = 2/3 · (1 + 1 + 2/3) − 1 = 7/9.
        # Same Kendall τ (2/3) as above, but the swap is lower down, so τ_AP is higher.
        ([4.0, 3.0, 1.0, 2.0], 7 / 9),
        (REF, 1.0),
        ([1.0, 2.0, 3.0, 4.0], -1.0),
    ],
)
def test_tau_ap_hand_computed_from_the_definition(evaluated, expected):
    # τ_AP = 2/(n−1) Σ_{i=2..n} C(i)/(i−1) − 1 (Yilmaz et al. 2008, eq. 2)
    assert rk.variations.tau_ap(REF, evaluated) == pytest.approx(expected)


def test_tau_ap_is_asymmetric():
    # reference A > B > C > D, evaluated B > C > A > D: C(2) = 1 (B above C: agreed), C(3) = 0,
    # C(4) = 3 → 2/3 · (1 + 0 + 1) − 1 = 1/3.  Roles swapped (reference B > C > A > D, evaluated
    # A > B > C > D): C(2) = 0, C(3) = 1, C(4) = 3 → 2/3 · (0 + 1/2 + 1) − 1 = 0.
    other = [2.0, 4.0, 3.0, 1.0]
    assert rk.variations.tau_ap(REF, other) == pytest.approx(1 / 3)
    assert rk.variations.tau_ap(other, REF) == pytest.approx(0.0)


def tau_ap_loop(x, y):
    """τ_AP of the ranking by y against the ranking by x, straight from the definition."""
    order = np.argsort(-np.asarray(y), kind="stable")
    n = len(x)
    total = 0.0
    for i in range(1, n):
        c = sum(x[order[j]] > x[order[i]] for j in range(i))
        total += c / i
    return 2 * total / (n - 1) - 1


def tau_ap_ties_brute_force(x, y):
    """τ_AP with ties broken as the module says, from the definition over all pairs: the reference
    orders ties by input position; the evaluated ranking orders its ties by the reference."""
    n = len(x)
    ref_above = [[x[j] > x[i] or (x[j] == x[i] and j < i) for i in range(n)] for j in range(n)]
    ev_above = [[y[j] > y[i] or (y[j] == y[i] and ref_above[j][i]) for i in range(n)] for j in range(n)]
    total = 0.0
    for i in range(n):
        above = [j for j in range(n) if ev_above[j][i]]
        if above:
            total += sum(ref_above[j][i] for j in above) / len(above)
    return 2 * total / (n - 1) - 1


distinct = st.integers(2, 30).flatmap(
    lambda n: st.tuples(st.permutations(list(range(n))), st.permutations(list(range(n))))
)


@settings(max_examples=80, deadline=None)
@given(distinct)
def test_tau_ap_and_tau_without_ties(pair):
    x, y = (np.asarray(p, dtype=float) for p in pair)
    tau, tau_ap = rank_correlations(x, y[:, None])
    assert tau_ap[0] == pytest.approx(tau_ap_loop(x, y), abs=1e-12)
    assert tau[0] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(2, 25), st.integers(1, 8)),
        elements=st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5]),
    ),
    st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5]), min_size=25, max_size=25),
)
def test_ties_equal_scipy_and_the_definition(evaluated, reference):
    ref = np.asarray(reference[: evaluated.shape[0]])
    tau, tau_ap = rank_correlations(ref, evaluated)
    for a in range(evaluated.shape[1]):
        expected = stats.kendalltau(ref, evaluated[:, a]).statistic
        if np.isnan(expected):
            assert np.isnan(tau[a])
        else:
            assert tau[a] == pytest.approx(expected, abs=1e-12)
        assert tau_ap[a] == pytest.approx(tau_ap_ties_brute_force(ref, evaluated[:, a]), abs=1e-12)


def test_identical_scores_with_ties_give_one():
    x = np.array([0.3, 0.3, 0.1, 0.5, 0.1])
    tau, tau_ap = rank_correlations(x, x[:, None])
    assert tau[0] == pytest.approx(1.0) and tau_ap[0] == pytest.approx(1.0)


def test_floating_point_noise_is_a_tie():
    # 0.1 + 0.2 != 0.3 in binary floating point; as means of P@10 values they are the same.
    assert tie_groups(np.array([0.1 + 0.2, 0.3, 0.2])).tolist() == [0, 0, 1]
    assert competition_ranks(np.array([0.2, 0.1 + 0.2, 0.3, 0.5])).tolist() == [4, 2, 2, 1]


def test_tau_ap_input_checks():
    with pytest.raises(RiskevalError, match="same length"):
        rk.variations.tau_ap([1, 2, 3], [1, 2])


def test_many_columns_equal_column_by_column():
    # Many columns, some of them ranking alike: the same values as one column at a time.
    rng = np.random.default_rng(2)
    ref = rng.random(60)
    ev = rng.random((60, 1500))
    ev[:, 701] = ev[:, 700] * 2
    tau, tau_ap = rank_correlations(ref, ev)
    assert tau[701] == tau[700] and tau_ap[701] == tau_ap[700]
    for a in (0, 700, 1499):
        assert tau_ap[a] == pytest.approx(tau_ap_loop(ref, ev[:, a]), abs=1e-12)
        assert tau[a] == pytest.approx(stats.kendalltau(ref, ev[:, a]).statistic, abs=1e-12)


def test_thousands_of_systems_equal_scipy_and_the_definition():
    rng = np.random.default_rng(7)
    ref = rng.random(3000)
    ev = np.column_stack([ref + rng.normal(0, s, 3000) for s in (0.0, 0.1, 1.0)])
    ev = np.round(ev, 2)  # ties in the evaluated rankings
    tau, tau_ap = rank_correlations(ref, ev)
    for a in range(3):
        assert tau[a] == pytest.approx(stats.kendalltau(ref, ev[:, a]).statistic, abs=1e-12)
    x = ref[:400]
    assert rank_correlations(x, ev[:400, 1:2])[1][0] == pytest.approx(
        tau_ap_ties_brute_force(x, ev[:400, 1]), abs=1e-12
    )
