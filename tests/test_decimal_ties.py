"""Wins, losses, ties and Loss > 20% against the MEAN and MEDIAN baselines (Dinçer, Ounis &
Macdonald, ECIR 2014, eq. 2; SIGIR 2016, Table 7), leave-one-out or not, equal the counts of exact
decimal arithmetic on the decimal scores users have: P@10 (multiples of 0.1), trec_eval's four
decimals, and AP-like values of fifteen.

A score of d decimals is the integer ``n`` over ``10**d``; the baseline of a topic is an exact
fraction ``num/den`` of such integers (the MEAN ``Σn/r``, the leave-one-out MEAN ``(Σn − n_i)/(r − 1)``,
the MEDIAN a middle score or the half sum of the two), so a score wins when ``n·den > num``, ties when
they are equal, and loses more than 20% when ``num > 0`` and ``4·num > 5·n·den`` (b − s > 0.2·b).
The matrix handed to riskeval holds ``n / 10**d``: one correctly rounded division of integers
below 2**53, the double nearest the decimal, as ``float()`` of its string gives.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.core import baselines

COUNTS = ("wins", "losses", "ties", "loss20")
KINDS = [("mean", False), ("mean", True), ("median", False), ("median", True)]


def exact_baselines(N: np.ndarray, kind: str, loo: bool) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) of each cell's baseline, r × c integer arrays: its value is num/den in units of
    the scores' last decimal."""
    r, c = N.shape
    if kind == "mean":
        T = N.sum(axis=0)
        if loo:
            return T - N, np.full((r, c), r - 1)
        return np.broadcast_to(T, (r, c)), np.full((r, c), r)
    num, den = np.empty((r, c), dtype=np.int64), np.empty((r, c), dtype=np.int64)
    for j in range(c):
        for i in range(r):
            others = np.sort(np.delete(N[:, j], i) if loo else N[:, j])
            m = others.size
            if m % 2:
                num[i, j], den[i, j] = others[m // 2], 1
            else:
                num[i, j], den[i, j] = others[m // 2 - 1] + others[m // 2], 2
    return num, den


def exact_counts(N: np.ndarray, kind: str, loo: bool) -> pd.DataFrame:
    """Each system's wins, losses, ties and Loss > 20% in exact integer arithmetic."""
    num, den = (a.astype(object) for a in exact_baselines(N, kind, loo))  # Python integers
    s = N.astype(object) * den
    return pd.DataFrame(
        {
            "wins": (s > num).sum(axis=1),
            "losses": (s < num).sum(axis=1),
            "ties": (s == num).sum(axis=1),
            "loss20": ((num > 0) & (4 * num > 5 * s)).sum(axis=1),
        },
        index=[f"s{i}" for i in range(N.shape[0])],
    )


def assert_counts(table: pd.DataFrame, want: pd.DataFrame) -> None:
    """The counts of a risk table (one α) equal ``want``, system by system."""
    got = table.set_index(table["system"].astype(str).to_numpy())[list(COUNTS)].astype(np.int64)
    pd.testing.assert_frame_equal(got.loc[want.index], want.astype(np.int64))


def as_scores(N: np.ndarray, decimals: int) -> pd.DataFrame:
    """The matrix of the decimal scores ``N / 10**decimals``."""
    assert np.abs(N).max() < 2**53
    r, c = N.shape
    return pd.DataFrame(
        N / 10**decimals, index=[f"s{i}" for i in range(r)], columns=[f"t{j}" for j in range(c)]
    )


def planted(rng: np.random.Generator, r: int, c: int, top: int) -> np.ndarray:
    """r × c integer scores in [0, top]: random on half the topics; on the others symmetric about a
    multiple ``a`` of 5 (pairs a ± d, among them 0.8·a and 1.2·a, and a and a when r ≥ 4; a itself
    when r is odd), so that the MEAN and the MEDIAN are ``a`` exactly, the leave-one-out ones too
    for a system at ``a``, and the system at 0.8·a loses exactly 20% of it; rows shuffled within
    each topic."""
    N = rng.integers(0, top + 1, (r, c))
    for j in range(0, c, 2):
        a = 5 * int(rng.integers(1, top // 10 + 1))
        pairs = rng.integers(0, min(a, top - a) + 1, r // 2)
        pairs[0], pairs[-1] = a // 5, 0
        column = np.concatenate([a - pairs, a + pairs, [a] * (r % 2)])
        N[:, j] = rng.permutation(column)
    return N


#: name: (decimals, largest integer score)
GRIDS = {"P@10": (1, 10), "trec_eval, 4 decimals": (4, 10_000), "AP-like, 15 decimals": (15, 10**15 - 1)}
#: (systems, topics): numpy forms below 16,384 cells, compiled ones from there
SHAPES = [(3, 300), (5, 300), (50, 100), (1000, 10), (3, 6000), (50, 400), (1000, 20)]


def grid(name: str, r: int, c: int) -> tuple[np.ndarray, int]:
    decimals, top = GRIDS[name]
    return planted(np.random.default_rng([r, c, decimals]), r, c, top), decimals


@pytest.mark.parametrize("kind, loo", KINDS)
@pytest.mark.parametrize("r, c", SHAPES)
@pytest.mark.parametrize("name", GRIDS)
def test_risk_table_counts_as_exact_decimal_arithmetic(
    name: str, r: int, c: int, kind: str, loo: bool
) -> None:
    N, decimals = grid(name, r, c)
    want = exact_counts(N, kind, loo)
    assert_counts(rk.risk_table(as_scores(N, decimals), kind, [1.0], leave_one_out=loo), want)
    assert want["ties"].sum() > 0


@pytest.mark.parametrize("kind, loo", KINDS)
@pytest.mark.parametrize("name", GRIDS)
def test_risk_reward_counts_as_exact_decimal_arithmetic(name: str, kind: str, loo: bool) -> None:
    """``rk.analysis.risk_reward`` of each system against ``baseline``/``loo_baseline``."""
    N, decimals = grid(name, 5, 300)
    M = as_scores(N, decimals)
    want = exact_counts(N, kind, loo)
    shared, own = rk.analysis.baseline(M, kind), rk.analysis.loo_baseline(M, kind)
    for name_i in M.index:
        b = own.loc[name_i] if loo else shared
        rr = rk.analysis.risk_reward(M.loc[name_i], b)
        assert [getattr(rr, f) for f in COUNTS] == want.loc[name_i].tolist(), name_i


def test_exactly_20_percent_is_not_a_loss_of_more() -> None:
    """The planted grids hold scores at 0.8 times their baseline: the exact counts leave them out of
    Loss > 20% (b − s > 0.2·b is false), and riskeval agrees (the test above); in plain floating
    point 0.088 against 0.11 (and 580 of the 2,000 such pairs of four decimals) would count."""
    N, _ = grid("trec_eval, 4 decimals", 5, 300)
    num, den = exact_baselines(N, "mean", False)
    assert ((num > 0) & (4 * num == 5 * N * den)).sum() > 0
    assert 0.11 - 0.088 > 0.2 * 0.11
    assert rk.analysis.risk_reward(pd.Series([0.088, 0.5]), pd.Series([0.11, 0.5])).loss20 == 0
    assert rk.analysis.risk_reward(pd.Series([0.0879, 0.5]), pd.Series([0.11, 0.5])).loss20 == 1


@pytest.mark.parametrize(
    "column, i, loo, binary",
    [
        # the mean of the doubles, even computed exactly and rounded once, is 0.19999999999999998
        ([0.0, 0.0, 0.1, 0.2, 0.7], 3, False, 0.19999999999999998),
        ([0.2, 0.3, 0.4], 1, True, (0.2 + 0.3 + 0.4 - 0.3) / 2),  # 0.30000000000000004
        ([0.1, 0.1, 0.1], 0, False, (0.1 + 0.1 + 0.1) / 3),  # 0.10000000000000002
    ],
)
def test_a_decimal_score_at_its_mean_ties(column: list[float], i: int, loo: bool, binary: float) -> None:
    """Binary arithmetic misses these decimal ties; riskeval's MEAN is the score itself."""
    X = np.array(column)[:, None]
    exact = [Decimal(repr(x)) for x in column]
    others = [x for k, x in enumerate(exact) if k != i] if loo else exact
    assert sum(others) / len(others) == exact[i] and binary != column[i]
    b = baselines.aggregate_loo(X, "mean")[i] if loo else baselines.aggregate(X, "mean")
    assert b[0] == column[i]


def test_the_median_of_two_middle_decimals_ties_with_the_score_left_out() -> None:
    """Without s2, 0.1 and 0.2 are the middle scores, whose MEDIAN 0.15 is s2's score; (0.1 +
    0.2)/2 is 0.15000000000000002.  (The MEDIAN of all scores is one, or lies between two adjacent
    ones: no score to tie.)"""
    X = np.array([[0.1], [0.2], [0.15], [0.1], [0.2]])
    assert (0.1 + 0.2) / 2 != 0.15
    assert baselines.aggregate_loo(X, "median")[2, 0] == 0.15


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    r=st.integers(2, 9),
    c=st.integers(2, 6),
    decimals=st.sampled_from([1, 2, 4]),
    setting=st.sampled_from(KINDS),
)
def test_any_small_decimal_matrix_counts_exactly(
    data: Any, r: int, c: int, decimals: int, setting: Any
) -> None:
    kind, loo = setting
    top = data.draw(st.sampled_from([10**decimals, 4]))  # the full range, or a few values: many ties
    N = np.array(data.draw(st.lists(st.integers(0, top), min_size=r * c, max_size=r * c))).reshape(r, c)
    got = rk.risk_table(as_scores(N, decimals), kind, [1.0], leave_one_out=loo)
    assert_counts(got, exact_counts(N, kind, loo))


@pytest.mark.parametrize("loo", [False, True])
def test_the_long_table_counts_as_exact_decimal_arithmetic(loo: bool) -> None:
    """The long table (per-topic partial sums, on Dask) ties each cell within the tolerance of its
    MEAN with it, as the table in memory."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    N, decimals = grid("trec_eval, 4 decimals", 7, 60)
    long = as_scores(N, decimals).rename_axis(index="system", columns="topic").stack().rename("score")
    long = long.reset_index().sample(frac=1, random_state=1).reset_index(drop=True)
    with dask.config.set(scheduler="sync"):
        got = rk.analysis.long_risk_table(
            dd.from_pandas(long, npartitions=3), "mean", [1.0], leave_one_out=loo
        )
    assert_counts(got, exact_counts(N, "mean", loo))


@pytest.mark.parametrize("kind", ["mean", "loo"])
def test_ten_thousand_scores_summed_in_row_order_tie_with_their_mean(kind: str) -> None:
    """10,000 systems, 4,999 at 0.1, 4,999 at 0.3 and 2 at 0.2 (MEAN 0.2, also without either 0.2),
    in a row-major matrix, whose column sums numpy takes one row after another: the floating-point
    MEAN misses 0.2 by hundreds of units in the last place, within the tolerance."""
    column = np.array([0.1] * 4_999 + [0.3] * 4_999 + [0.2] * 2)
    X = np.ascontiguousarray(np.stack([column, column[::-1]], axis=1))
    assert (X.sum(axis=0) / 10_000 != 0.2).all()
    if kind == "mean":
        np.testing.assert_array_equal(baselines.aggregate(X, "mean"), [0.2, 0.2])
    else:
        np.testing.assert_array_equal(baselines.aggregate_loo(X, "mean")[[-1, 0], [0, 1]], [0.2, 0.2])


def test_a_score_one_decimal_step_of_ten_thousand_from_the_mean_does_not_tie() -> None:
    """9,999 systems at 0.5 and one at 0.5001: the MEAN is 0.50000001, 10⁻⁴/10,000 above 0.5, and
    every system at 0.5 loses (by far more than the tolerance, 0.5001·2⁻³⁸ ≈ 1.8e-12)."""
    N = np.full((10_000, 2), 5_000)
    N[-1] = 5_001
    table = rk.risk_table(as_scores(N, 4), "mean", [1.0])
    assert_counts(table, exact_counts(N, "mean", False))
    assert table["losses"].sum() == 2 * 9_999


@pytest.mark.parametrize("loo", [False, True])
def test_the_long_tables_per_topic_analysis_ties_as_exact_decimal_arithmetic(loo: bool) -> None:
    """``long_topic_risk``: on t0 and t1 s1 scores 0.2, the MEAN of 0.1, 0.2 and 0.3 (and of 0.1 and
    0.3 without s1), which the floating-point totals miss; its δ there is 0 exactly."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    N = np.array([[1, 3, 2], [2, 2, 2], [3, 1, 5]])
    assert (0.1 + 0.2 + 0.3) / 3 != 0.2 and (0.3 + 0.2 + 0.1 - 0.2) / 2 != 0.2
    long = as_scores(N, 1).rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    with dask.config.set(scheduler="sync"):
        got = rk.analysis.long_topic_risk(
            dd.from_pandas(long, npartitions=2), "s1", "mean", leave_one_out=loo
        )
    assert got.loc[["t0", "t1"], "baseline_score"].tolist() == [0.2, 0.2]
    assert got.loc[["t0", "t1"], "delta"].tolist() == [0.0, 0.0]
