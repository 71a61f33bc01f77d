"""One suite of invariants for every path that computes the risk table.

Each path in ``PATHS`` takes a score matrix, a baseline, α values and the leave-one-out flag and
returns the rows of :func:`riskeval.risk_table` (at least the columns checked here): the table in
memory, the one-system functions called system by system, and the long table on Dask.  Every path must
equal an independent brute-force computation of the paper's formulas, written below from the
definitions without riskeval's primitives: URisk and TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014,
eq. 3–4 and 7–12; TRisk as the statistic of ``scipy.stats.ttest_1samp``), ZRisk and GeoRisk with every system
a baseline (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–7), and the risk/reward counts (SIGIR 2016,
Table 7).  Another path (a resampling procedure with every topic drawn once, say) is added with one
function that returns such a table.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import ndtr

import riskeval as rk
from riskeval.core import paired
from riskeval.core.baselines import TIE_RTOL

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

Path = Callable[[pd.DataFrame, Any, list[float], bool], pd.DataFrame]


def in_memory(M: pd.DataFrame, baseline: Any, alphas: list[float], loo: bool) -> pd.DataFrame:
    return rk.risk_table(M, baseline, alphas, leave_one_out=loo)


def long_table_on_dask(M: pd.DataFrame, baseline: Any, alphas: list[float], loo: bool) -> pd.DataFrame:
    """The long-table path in Dask's in-process scheduler, rows shuffled over three partitions."""
    long = M.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    long = long.sample(frac=1, random_state=0).reset_index(drop=True)
    with dask.config.set(scheduler="sync"):
        return rk.analysis.long_risk_table(
            dd.from_pandas(long, npartitions=3), baseline, alphas, leave_one_out=loo
        )


def per_system_functions(M: pd.DataFrame, baseline: Any, alphas: list[float], loo: bool) -> pd.DataFrame:
    """The public one-system functions, system by system: ``urisk``, ``trisk``, ``risk_reward``
    against the baseline, ``zrisk`` and ``georisk`` of the whole matrix (several α in one call)."""
    aggregate = baseline in ("mean", "max", "median")
    zr, geo = rk.zrisk(M, alphas), rk.georisk(M, alphas)
    rows = []
    for name in M.index:
        if aggregate:
            b = rk.analysis.loo_baseline(M, baseline).loc[name] if loo else rk.analysis.baseline(M, baseline)
        else:
            b = M.loc[baseline]
        rr = rk.analysis.risk_reward(M.loc[name], b)
        for alpha in alphas:
            rows.append(
                {
                    "system": name,
                    "alpha": alpha,
                    "urisk": rk.urisk(M.loc[name], b, alpha),
                    "trisk": rk.trisk(M.loc[name], b, alpha).statistic,
                    "zrisk": zr.loc[name, alpha],
                    "georisk": geo.loc[name, alpha],
                    **{f: getattr(rr, f) for f in ("ugain", "frisk", "wins", "losses", "ties", "loss20")},
                }
            )
    return pd.DataFrame(rows)


def bootstrap_identity(M: pd.DataFrame, baseline: Any, alphas: list[float], loo: bool) -> pd.DataFrame:
    """The bootstrap's kernel on the resample that draws every topic once (all weights 1): URisk,
    TRisk, ZRisk and GeoRisk as every resample computes them."""
    from riskeval.inference.bootstrap import ResampledMeasures
    from riskeval.measures.baselines import ResolvedBaseline

    if baseline in ("mean", "max", "median"):
        base = (
            rk.analysis.loo_baseline(M, baseline).to_numpy()
            if loo
            else rk.analysis.baseline(M, baseline).to_numpy()
        )
    else:
        base = M.loc[baseline].to_numpy()
    rb = ResolvedBaseline(base, "baseline", np.zeros(len(M), bool))
    measures = [rk.URisk(), rk.TRisk(), rk.ZRisk(), rk.GeoRisk()]
    engine = ResampledMeasures(
        M.to_numpy(), {"baseline": rb, "matrix": None}, [(m, np.array(alphas)) for m in measures]
    )
    values = engine.values_for(np.ones((1, M.shape[1])))
    point = {m.column: v[:, :, 0] for m, v in zip(measures, values, strict=True)}
    return pd.DataFrame(
        [
            {"system": name, "alpha": alpha, **{m: v[i, k] for m, v in point.items()}}
            for i, name in enumerate(M.index)
            for k, alpha in enumerate(alphas)
        ]
    )


PATHS: dict[str, Path] = {
    "in memory": in_memory,
    "per-system functions": per_system_functions,
    "long table on Dask": long_table_on_dask,
    "bootstrap, every topic once": bootstrap_identity,
}


def brute_force(M: pd.DataFrame, baseline: Any, alphas: list[float], loo: bool) -> pd.DataFrame:
    """The table's values from the definitions, one system and one α at a time."""
    X = M.to_numpy()
    r, c = X.shape
    rows = []
    S, T = X.sum(axis=1), X.sum(axis=0)
    for i, name in enumerate(M.index):
        if baseline == "mean":
            b = mean_baseline(X, loo)[i]
        elif baseline == "max":
            b = X.max(axis=0)
        else:
            b = M.loc[baseline].to_numpy()
        d = X[i] - b
        e = S[i] * T / S.sum()
        z = [(x - ej) / np.sqrt(ej) if ej > 0 else 0.0 for x, ej in zip(X[i], e, strict=True)]
        for alpha in alphas:
            x = np.array([dj if dj >= 0 else (1 + alpha) * dj for dj in d])
            zr = sum(zj if zj >= 0 else (1 + alpha) * zj for zj in z)
            rows.append(
                {
                    "system": name,
                    "alpha": alpha,
                    "urisk": x.mean(),
                    "trisk": stats.ttest_1samp(x, 0.0).statistic if np.ptp(x) > 1e-9 else np.nan,
                    "zrisk": zr,
                    "georisk": np.sqrt(S[i] / c * ndtr(zr / c)),
                    "wins": int((d > 0).sum()),
                    "losses": int((d < 0).sum()),
                    "ties": int((d == 0).sum()),
                    "loss20": sum(map(loses_more_than_20_percent, X[i], b)),
                }
            )
    return pd.DataFrame(rows)


def by_system(table: pd.DataFrame) -> pd.DataFrame:
    """A path's table indexed by system name, in the order of the matrix (the long table keeps the
    order in which systems first appear in its rows)."""
    got = table.set_index(table["system"].astype(str).to_numpy())
    return got.loc[sorted(got.index, key=lambda name: int(name[1:]))]


def exact_mean(X: np.ndarray) -> np.ndarray:
    """The per-topic mean of the scores as given, computed exactly and rounded once."""
    return np.array([float(sum(map(Fraction, col), Fraction(0)) / len(col)) for col in X.T])


def mean_baseline(X: np.ndarray, loo: bool) -> np.ndarray:
    """Each system's MEAN (r × c) by riskeval's stated rule: the exact mean of the scores (of the
    other systems with ``loo``), except that a score within TIE_RTOL times its topic's largest
    |score| of it ties with it: a leave-one-out MEAN becomes the system's own score, the shared one
    the nearest such score (the first on equal distances)."""
    r, c = X.shape
    tol = TIE_RTOL * np.abs(X).max(axis=0)
    if loo:
        means = np.array([exact_mean(np.delete(X, i, axis=0)) for i in range(r)])
        return np.where(np.abs(X - means) <= tol, X, means)
    mean = exact_mean(X)
    for j in range(c):
        near = [x for x in X[:, j] if abs(x - mean[j]) <= tol[j]]
        mean[j] = min(near, key=lambda x: abs(x - mean[j])) if near else mean[j]
    return np.broadcast_to(mean, X.shape)


def loses_more_than_20_percent(s: float, b: float) -> bool:
    """Loss > 20% (SIGIR 2016, Table 7) by riskeval's stated rule, in exact arithmetic: b > 0 and
    b − s > (0.2 + TIE_RTOL)·b."""
    return b > 0 and Fraction(b) - Fraction(s) > (Fraction(1, 5) + Fraction(TIE_RTOL)) * Fraction(b)


def ambiguous_ties(X: np.ndarray) -> bool:
    """Whether a topic has two different scores within twice the tie tolerance of its exact MEAN:
    a shared MEAN takes the nearest one's value, the long table ties each cell with its own, and
    the two disagree (scores that close are equal up to rounding; decimal scores never are)."""
    mean, tol = exact_mean(X), 2 * TIE_RTOL * np.abs(X).max(axis=0)
    return any(len(set(X[np.abs(X[:, j] - mean[j]) <= tol[j], j])) > 1 for j in range(X.shape[1]))


GRID = st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0])  # ties, zero cells and zero topics


@st.composite
def matrices(draw: Any) -> pd.DataFrame:
    r = draw(st.integers(2, 6))
    c = draw(st.integers(2, 10))
    cells = draw(st.lists(st.one_of(GRID, st.floats(0.0, 1.0)), min_size=r * c, max_size=r * c))
    # Scores below 1e-100 are taken as 0: no effectiveness value is that small, and a system whose
    # every score is near 1e-224 underflows ZRisk's expected values e_ij = S_i·T_j/N in any path.
    X = np.array(cells).reshape(r, c)
    X[X < 1e-100] = 0.0
    X[0, 0] = 0.5  # a positive total, so that ZRisk's expected values exist
    return pd.DataFrame(X, index=[f"s{i}" for i in range(r)], columns=[f"t{j}" for j in range(c)])


SETTINGS = [("mean", False), ("mean", True), ("max", False), ("s1", False), ("s1", True)]


@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(M=matrices(), setting=st.sampled_from(SETTINGS))
def test_every_path_equals_the_definitions(path: str, M: pd.DataFrame, setting: tuple[str, bool]) -> None:
    baseline, loo = setting
    assume(not (baseline == "mean" and not loo and ambiguous_ties(M.to_numpy())))
    alphas = [0.0, 1.0, 5.0]
    got = PATHS[path](M, baseline, alphas, loo).assign(system=lambda t: t["system"].astype(str))
    want = brute_force(M, baseline, alphas, loo)
    got = got.set_index(["system", "alpha"]).loc[pd.MultiIndex.from_frame(want[["system", "alpha"]])]
    for column in ("urisk", "zrisk", "georisk"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-9, atol=1e-12, err_msg=column)
    defined = want["trisk"].notna().to_numpy() & got["trisk"].notna().to_numpy()
    np.testing.assert_allclose(got["trisk"][defined], want["trisk"][defined], rtol=1e-7, atol=1e-9)
    if "wins" not in got:  # a resampling path: the measures only
        return
    for column in ("wins", "losses", "ties", "loss20"):
        np.testing.assert_array_equal(got[column], want[column], err_msg=column)
    # URisk(α) = UGain − α·FRisk (SIGIR 2014, §3), and it falls as α grows
    np.testing.assert_allclose(
        got["urisk"], got["ugain"] - want["alpha"].to_numpy() * got["frisk"], atol=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(M=matrices(), cut=st.integers(1, 9), data=st.data())
def test_partial_sums_merge_to_the_whole(M: pd.DataFrame, cut: int, data: Any) -> None:
    """Paired sums over scattered cells, split anywhere and merged (Chan, Golub & LeVeque), equal
    the sums of the whole matrix; so do the sums of a split of the topics."""
    X = M.to_numpy()
    r, c = X.shape
    b = data.draw(st.sampled_from([X.mean(axis=0), X[0]]))
    whole = paired.paired_sums(X, b)
    i, j = np.divmod(np.arange(r * c), c)
    order = np.random.default_rng(cut).permutation(r * c)
    k = min(cut, r * c - 1)
    parts = [paired.grouped_paired_sums(i[o], X.ravel()[o], b[j[o]], r) for o in (order[:k], order[k:])]
    for merged in (
        paired.merge_paired(parts),
        paired.merge_paired([paired.paired_sums(X[:, :k], b[:k]), paired.paired_sums(X[:, k:], b[k:])])
        if k < c
        else whole,
    ):
        np.testing.assert_allclose(merged.n, c)
        for name in paired.PairedSums._fields[1:]:
            np.testing.assert_allclose(getattr(merged, name), getattr(whole, name), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("path", [p for p in PATHS if "bootstrap" not in p])
@pytest.mark.parametrize("r", [3, 7, 37])
@pytest.mark.parametrize("loo", [False, True])
def test_a_topic_every_system_scores_alike_is_a_tie(path: str, r: int, loo: bool) -> None:
    """Every system scores 0.1 on t1: each ties with the MEAN there (δ = 0, SIGIR 2014 §3), although
    the sum of r copies of 0.1 divided by r is not 0.1 for r = 3, 7 or 37."""
    X = np.zeros((r, 3))
    X[:, 0] = 0.9 ** np.arange(1, r + 1)  # no system scores the mean of t0
    X[:, 1] = 0.1
    M = pd.DataFrame(X, index=[f"s{i}" for i in range(r)], columns=["t0", "t1", "t2"])
    got = PATHS[path](M, "mean", [1.0], loo)
    assert (got["ties"] >= 2).all()  # t1 and t2 (all zero) tie for every system
    want = brute_force(M, "mean", [1.0], loo)
    np.testing.assert_array_equal(got["ties"], want["ties"])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("loo", [False, True])
def test_a_score_at_the_exact_mean_is_a_tie(path: str, loo: bool) -> None:
    """On t0 the scores 0.1, 0.2 and 0.3 have mean 0.2 exactly, but their floating-point sum over 3
    is 0.20000000000000004; on t1, with s0 (0.2) left out, 0.3 and 0.1 have mean 0.2, but the
    floating-point total less 0.2, over 2, is not 0.2.  The
    system at 0.2 ties there (δ = 0, SIGIR 2014 §3), as the brute force with exact means says."""
    X = np.array([[0.1, 0.2, 0.5], [0.2, 0.3, 0.25], [0.3, 0.1, 1.0]])
    assert X[:, 0].sum() / 3 != 0.2 and (X[:, 1].sum() - 0.2) / 2 != 0.2
    M = pd.DataFrame(X, index=["s0", "s1", "s2"], columns=["t0", "t1", "t2"])
    got = by_system(PATHS[path](M, "mean", [1.0], loo))
    want = brute_force(M, "mean", [1.0], loo).set_index("system")
    np.testing.assert_allclose(got["urisk"], want["urisk"], rtol=1e-12, atol=1e-15)
    if "ties" in got:
        np.testing.assert_array_equal(got[["wins", "losses", "ties"]], want[["wins", "losses", "ties"]])
        assert got.loc["s1", "ties"] >= 1


@pytest.mark.parametrize("path", [p for p in PATHS if p != "bootstrap, every topic once"])
def test_a_loss_of_exactly_20_percent_of_the_exact_mean_is_not_counted(path: str) -> None:
    """On t0 the MEAN is 0.25 exactly (the floating-point sum over 6 is 0.25000000000000006) and s3
    scores 0.2, 0.8 times it: a loss of 20%, not more (SIGIR 2016, Table 7), as the brute force
    with the exact mean says."""
    X = np.array([[0.5, 0.1, 0.5, 0.2, 0.1, 0.1], [0.3, 0.5, 0.2, 0.5, 0.0, 0.7]]).T
    assert X[:, 0].sum() / 6 != 0.25
    M = pd.DataFrame(X, index=[f"s{i}" for i in range(6)], columns=["t0", "t1"])
    got = by_system(PATHS[path](M, "mean", [1.0], False))
    want = brute_force(M, "mean", [1.0], False).set_index("system")
    np.testing.assert_array_equal(got["loss20"], want["loss20"])
    assert want.loc["s3", "loss20"] == 0
