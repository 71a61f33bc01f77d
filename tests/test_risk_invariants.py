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
        others = np.delete(X, i, axis=0)
        if baseline == "mean":
            b = exact_mean(others if loo else X)
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
                    "loss20": sum(bj > 0 and bj - sj > 0.2 * bj for sj, bj in zip(X[i], b, strict=True)),
                }
            )
    return pd.DataFrame(rows)


def exact_mean(X: np.ndarray) -> np.ndarray:
    """The per-topic mean of the scores as given, computed exactly and rounded once: a topic where
    every system scores 0.1 has mean 0.1, so every system ties with it."""
    return np.array([float(sum(map(Fraction, col), Fraction(0)) / len(col)) for col in X.T])


def near_mean(X: np.ndarray, loo: bool) -> np.ndarray:
    """Cells within four units in the last place of their topic's exact MEAN (over the other
    systems with ``loo``), or of 0.8 times it (Loss > 20%), on topics whose scores are not all
    equal."""
    r = X.shape[0]
    means = np.array([exact_mean(np.delete(X, i, axis=0)) for i in range(r)]) if loo else exact_mean(X)
    ulps = 4 * np.spacing(np.abs(means))
    close = (np.abs(X - means) <= ulps) | (np.abs(X - 0.8 * means) <= ulps)
    return close & (np.ptp(X, axis=0) > 0)


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
    if baseline == "mean" and path == "long table on Dask":
        # From partial sums MEAN is the floating-point total over r (exact on a topic where every
        # score is equal): a score within a few units in the last place of the exact mean may
        # count as a win, a tie or a loss depending on the order of the sum.
        assume(not near_mean(M.to_numpy(), loo).any())
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


@pytest.mark.parametrize("path", [p for p in PATHS if p != "long table on Dask"])
@pytest.mark.parametrize("loo", [False, True])
def test_a_score_at_the_exact_mean_is_a_tie(path: str, loo: bool) -> None:
    """On t0 the scores 0.1, 0.2 and 0.3 have mean 0.2 exactly, but their floating-point sum over 3
    is 0.20000000000000004; on t1, with s0 (0.2) left out, 0.3 and 0.1 have mean 0.2, but the
    floating-point total less 0.2, over 2, is not 0.2.  The
    system at 0.2 ties there (δ = 0, SIGIR 2014 §3), as the brute force with exact means says."""
    X = np.array([[0.1, 0.2, 0.5], [0.2, 0.3, 0.25], [0.3, 0.1, 1.0]])
    assert X[:, 0].sum() / 3 != 0.2 and (X[:, 1].sum() - 0.2) / 2 != 0.2
    M = pd.DataFrame(X, index=["s0", "s1", "s2"], columns=["t0", "t1", "t2"])
    got = PATHS[path](M, "mean", [1.0], loo).set_index("system")
    want = brute_force(M, "mean", [1.0], loo).set_index("system")
    np.testing.assert_allclose(got["urisk"], want["urisk"], rtol=1e-12, atol=1e-15)
    if "ties" in got:
        np.testing.assert_array_equal(got[["wins", "losses", "ties"]], want[["wins", "losses", "ties"]])
        assert got.loc["s1", "ties"] >= 1


@pytest.mark.parametrize(
    "path", [p for p in PATHS if p not in ("long table on Dask", "bootstrap, every topic once")]
)
def test_a_loss_of_exactly_20_percent_of_the_exact_mean_is_not_counted(path: str) -> None:
    """On t0 the MEAN is 0.25 exactly (the floating-point sum over 6 is 0.25000000000000006) and s3
    scores 0.2, 0.8 times it: a loss of 20%, not more (SIGIR 2016, Table 7), as the brute force
    with the exact mean says."""
    X = np.array([[0.5, 0.1, 0.5, 0.2, 0.1, 0.1], [0.3, 0.5, 0.2, 0.5, 0.0, 0.7]]).T
    assert X[:, 0].sum() / 6 != 0.25
    M = pd.DataFrame(X, index=[f"s{i}" for i in range(6)], columns=["t0", "t1"])
    got = PATHS[path](M, "mean", [1.0], False).set_index("system")
    want = brute_force(M, "mean", [1.0], False).set_index("system")
    np.testing.assert_array_equal(got["loss20"], want["loss20"])
    assert want.loc["s3", "loss20"] == 0


def test_the_compiled_and_numpy_forms_flag_the_same_topics() -> None:
    """Matrices of 16,384 cells or more find the topics whose MEAN is decided by rounding in one
    compiled pass; it flags exactly the topics of the numpy form, here on P@10-like scores where
    many cells sit at the exact mean or at 0.8 times it, and on continuous ones."""
    from riskeval.core import baselines

    rng = np.random.default_rng(3)
    for X in (rng.integers(0, 11, (300, 60)) / 10, rng.random((200, 90)), rng.integers(0, 3, (5, 4000)) / 4):
        top, low = X.max(axis=0), X.min(axis=0)
        means = X.sum(axis=0) / X.shape[0]
        bound = baselines.rounding_bound(X.shape[0], top, low)
        want = baselines.decided_by_rounding(X, means, bound).any(axis=0)
        np.testing.assert_array_equal(baselines.topics_decided_by_rounding(X, means, bound), want)
    assert 0 < want.sum() < want.size


def test_a_large_matrix_counts_ties_with_the_exact_mean() -> None:
    """5 systems × 4,000 topics of P@10-like scores (above the size where the compiled form runs):
    wins, losses, ties and Loss>20% against MEAN equal the brute force with exact means."""
    X = np.random.default_rng(4).integers(0, 11, (5, 4000)) / 10
    M = pd.DataFrame(X, index=[f"s{i}" for i in range(5)], columns=[f"t{j}" for j in range(4000)])
    got = rk.risk_table(M, "mean", [1.0]).set_index("system")
    b = exact_mean(X)
    floating = X.sum(axis=0) / 5
    assert ((X == b) != (X == floating)).sum() > 10  # ties the floating-point mean would miss
    d = X - b
    np.testing.assert_array_equal(got["wins"], (d > 0).sum(axis=1))
    np.testing.assert_array_equal(got["losses"], (d < 0).sum(axis=1))
    np.testing.assert_array_equal(got["ties"], (d == 0).sum(axis=1))
    np.testing.assert_array_equal(got["loss20"], ((b > 0) & (-d > 0.2 * b)).sum(axis=1))
