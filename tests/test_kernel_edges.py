"""Edges of the kernels that small examples never reach: the paired kernel past 512 topics and 64
systems, serial and parallel compilations, the Loss>20% threshold, and the
numeric order of topic ids."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.core import _numba, baselines, chisq, paired


def _reference_sums(X: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    d = X - b
    pos, neg = np.maximum(d, 0.0), np.minimum(d, 0.0)
    cp, cn = pos - pos.mean(1, keepdims=True), neg - neg.mean(1, keepdims=True)
    return {
        "sum_pos": pos.sum(1),
        "sum_neg": neg.sum(1),
        "m2_pos": (cp * cp).sum(1),
        "m2_neg": (cn * cn).sum(1),
        "cross": (cp * cn).sum(1),
        "wins": (d > 0).sum(1),
        "losses": (d < 0).sum(1),
        "loss20": ((b > 0) & (-d > 0.2 * b)).sum(1),
    }


@pytest.mark.parametrize(("r", "c"), [(3, 1500), (130, 1100), (70, 513)])
def test_paired_sums_past_one_block_of_systems(r, c):
    """Several 64-system blocks, long rows: the moments equal a direct two-pass computation."""
    rng = np.random.default_rng(r * c)
    X = rng.beta(2, 5, (r, c))
    b = rng.beta(2, 5, c)
    got = paired.paired_sums(X, b)
    for name, want in _reference_sums(X, b).items():
        np.testing.assert_allclose(getattr(got, name), want, rtol=1e-10, atol=1e-10, err_msg=name)
    t = rk.risk_table(pd.DataFrame(X), baseline=pd.Series(b, index=map(str, range(c))), alphas=[0, 5])
    x5 = paired.risk_scores(X - b, 5.0)
    at5 = t[t["alpha"] == 5.0]
    np.testing.assert_allclose(at5["urisk"], x5.mean(1), rtol=1e-10)
    np.testing.assert_allclose(at5["se"], x5.std(1, ddof=1) / np.sqrt(c), rtol=1e-9)


@pytest.mark.parametrize("baseline", [None, np.zeros(4), np.zeros((2, 4))])
def test_chi_square_sums_of_an_all_zero_matrix_are_zero(baseline):
    """Every expected value is 0 (N = 0): every z is 0, not 0/0."""
    got = chisq.zsums(np.zeros((3, 4)), baseline)
    np.testing.assert_array_equal(np.r_[got.z_pos, got.z_neg], np.zeros(6))


@pytest.mark.parametrize("shape", [(5, 40), (70, 513)])  # the numpy form; the kernel, two blocks
def test_paired_sums_with_own_baselines_and_weights_equal_repeated_topics(shape):
    """Topic weights count each topic that many times, and each system has its own baseline: the
    sums equal those of the matrix with every topic repeated by its weight."""
    rng = np.random.default_rng(3)
    X, B = rng.beta(2, 5, shape), rng.beta(2, 5, shape)
    B[:, 0] = 0.0  # no Loss>20% where the baseline scores 0, even against a negative score
    X[2, 0] = -0.1
    X[0] = B[0]  # ties only
    X[1, 5] = 7.0  # the largest score, for the scale
    w = rng.integers(0, 4, shape[1])
    got = paired.paired_sums(X, B, w.astype(float))
    assert got.n == w.sum()
    for name, want in _reference_sums(np.repeat(X, w, axis=1), np.repeat(B, w, axis=1)).items():
        np.testing.assert_allclose(getattr(got, name), want, rtol=1e-10, atol=1e-10, err_msg=name)
    np.testing.assert_array_equal(got.scale, np.maximum(np.abs(X).max(1), np.abs(B).max(1)))


@pytest.mark.parametrize("per_system", [False, True])
def test_serial_and_parallel_compilations_agree(per_system):
    """Small inputs run the serial compilation of a kernel, large ones the parallel one: both give
    the same sums (each system's topics are added in the same order by either)."""
    rng = np.random.default_rng(5)
    X = rng.random((150, 700))
    B = rng.random((150, 700)) if per_system else rng.random(700)
    Xt = paired.topic_major(X)
    Bt = paired.topic_major(B) if per_system else np.ascontiguousarray(B[:, None])
    w = rng.integers(0, 3, (2, 700)).astype(np.float64)  # two resamples
    assert Xt.size >= _numba.SERIAL_CELLS
    kernel = paired._paired_kernel
    assert _numba.by_size(kernel, Xt.size) is kernel
    for K in (np.zeros((0, 150)), rng.random((2, 150))):  # the shift of the moments: computed, given
        for par, ser in zip(
            kernel(Xt, Bt, w, K, True), _numba.by_size(kernel, 1)(Xt, Bt, w, K, True), strict=True
        ):
            np.testing.assert_array_equal(par, ser)
    T, T0, none = rng.random(700), rng.random(700), np.zeros(0)
    z = chisq._z_kernel
    for args in ((Xt, T, none, w), (Xt, none, T0, w)):
        for par, ser in zip(z(*args), _numba.by_size(z, 1)(*args), strict=True):
            np.testing.assert_array_equal(par, ser)


def test_without_numba_a_loaded_kernel_runs_as_it_is():
    """Under NUMBA_DISABLE_JIT=1 numba leaves a kernel its Python function, which has no serial
    twin to make: the function itself runs, whatever the size."""

    def kernel(x):
        return x

    assert _numba.by_size(kernel, 1) is kernel
    assert _numba.by_size(kernel, _numba.SERIAL_CELLS) is kernel


def _chisq_sums_by_the_definition(X, B, w):
    """Z⁺ and Z⁻ of every row of X, each row within X (B None) or within [x_i; B], from e_ij =
    S_i T_j / N and z_ij = (x_ij − e_ij)/√e_ij cell by cell (SIGIR 2016, eq. 4–5), z = 0 where
    e = 0; S weighted by w over topics."""
    pos, neg = [], []
    for i, x in enumerate(X):
        rows = X if B is None else np.vstack([x, np.atleast_2d(B)])
        row = i if B is None else 0
        S, T = rows @ w, rows.sum(axis=0)
        e = S[row] * T / (w @ T)
        z = np.zeros_like(x)
        z[e > 0] = (x[e > 0] - e[e > 0]) / np.sqrt(e[e > 0])
        pos.append(w @ np.maximum(z, 0.0))
        neg.append(w @ np.minimum(z, 0.0))
    return np.array(pos), np.array(neg)


# the numpy form (one topic; a total below 1), the kernel (one block of systems; two)
@pytest.mark.parametrize("shape", [(6, 30), (5, 1), (3, 4), (40, 500), (300, 60)])
@pytest.mark.parametrize("layout", ["every row", "one baseline", "baseline systems"])
def test_chi_square_sums_equal_the_definition(shape, layout):
    rng = np.random.default_rng(11)
    r, c = shape
    X = rng.beta(2, 5, shape) * (0.05 if shape == (3, 4) else 1.0)
    if c > 3:
        X[:, 3] = 0.0  # a topic every system scores 0: e = 0
    X[1, : c // 2] = 0.0
    B = {"every row": None, "one baseline": rng.beta(2, 5, c), "baseline systems": rng.beta(2, 5, (3, c))}
    w = rng.integers(0, 3, c).astype(float)  # a bootstrap resample's topic counts
    got = chisq.zsums(X, B[layout], w)
    pos, neg = _chisq_sums_by_the_definition(X, B[layout], w)
    assert (X.size >= _numba.NUMPY_CELLS) == (r >= 40)
    np.testing.assert_allclose(got.z_pos, pos, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.z_neg, neg, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.S, X @ w, rtol=1e-12)
    assert got.n == w.sum()


@settings(max_examples=200, deadline=None)
@given(st.floats(-3.0, 3.0, allow_nan=False), st.floats(0.0, 20.0, allow_nan=False))
def test_compiled_risk_score_is_the_reference(d, alpha):
    assert paired.risk_score(d, alpha) == paired.risk_scores(np.array([d]), alpha)[0]


def test_loss20_threshold_is_strict_and_relative():
    """Loss>20%: the system loses more than 20 % of the baseline's score, b − s > 0.2·b, b > 0."""
    b = np.array([2.5, 2.5, 2.5, 1.0, 1.0, 0.0, 0.0])
    s = np.array([2.0, 1.99, 2.01, 0.79, 0.81, 0.0, 0.5])
    # 2.5 → 2.0 loses exactly 20 % (not counted); 2.5 → 1.99 and 1.0 → 0.79 lose more (counted)
    assert rk.analysis.risk_reward(s, b).loss20 == 2
    t = rk.risk_table(pd.DataFrame([s, b], index=["s", "b"]), baseline="b", alphas=[0])
    assert t.set_index("system").loc["s", "loss20"] == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=40))
def test_loss20_counts_like_brute_force(pairs):
    s, b = (np.array(v) for v in zip(*pairs, strict=True))
    assert rk.analysis.risk_reward(s, b).loss20 == sum(bj > 0 and bj - sj > 0.2 * bj for sj, bj in pairs)


def test_evaluate_runs_orders_topics_numerically(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{t} 1\n" for t in ("10", "2", "1", "b", "a")))
    run = tmp_path / "a.run"
    run.write_text("".join(f"{t} Q0 d{t} 1 1.0 tag\n" for t in ("2", "10", "1", "a", "b")))
    M = rk.evaluate_runs(str(qrels), [str(run)], "P@1")
    assert list(M.columns) == ["1", "2", "10", "a", "b"]
    assert (M.to_numpy() == 1.0).all()


@pytest.mark.filterwarnings("ignore:risk_table. ZRisk and GeoRisk need scores")
@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=3, max_size=60),
    st.floats(-0.9, 0.9).filter(lambda v: abs(v) > 1e-6),
    st.floats(0.0, 20.0),
)
def test_a_constant_difference_has_no_trisk_whatever_the_rounding(b, shift, alpha):
    """s = b + shift: the differences are one number up to rounding, so TRisk is undefined (NaN with
    a reason) instead of a huge statistic made of rounding noise."""
    b = np.array(b)
    s = b + shift
    r = rk.trisk(s, b, alpha=alpha)
    assert np.isnan(r.statistic) and np.isnan(r.pvalue) and "zero variance" in r.reason
    t = rk.risk_table(pd.DataFrame([s, b], index=["s", "b"]), baseline="b", alphas=[alpha])
    assert np.isnan(t.set_index("system").loc["s", "trisk"])
    assert not rk.topic_risk(s, b, alpha=alpha)["significant"].any()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), min_size=3, max_size=50),
    st.integers(-200, 200),
)
def test_trisk_is_scale_invariant_and_agrees_with_the_table(pairs, power):
    s, b = (np.array(v) for v in zip(*pairs, strict=True))
    k = 2.0**power  # exact scaling: every rounding is scaled alike
    # ... while the squares of the differences stay normal numbers: subnormal squares lose digits
    # (a difference of 1.9e-105 scaled by 2^-200 has a square below 1e-308), whatever the formula
    d = np.abs(s - b)[s != b]
    assume(d.size == 0 or (min(k, 1.0) * d.min()) ** 2 >= np.finfo(np.float64).tiny)
    r, rk_ = rk.trisk(s, b, alpha=1.0), rk.trisk(k * s, k * b, alpha=1.0)
    assert (np.isnan(r.statistic) and np.isnan(rk_.statistic)) or r.statistic == pytest.approx(rk_.statistic)
    t = rk.risk_table(pd.DataFrame([s, b], index=["s", "b"]), baseline="b", alphas=[1.0])
    got = t.set_index("system").loc["s", "trisk"]
    assert (np.isnan(got) and np.isnan(r.statistic)) or got == pytest.approx(r.statistic, rel=1e-9)


def test_the_same_bits_with_one_thread_and_with_two():
    """Each system's sums are taken by one thread, in topic order: the thread count changes no bit
    of the paired sums, the chi-square sums, the risk table or the all-pairs URisk."""
    numba = pytest.importorskip("numba")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here (NUMBA_NUM_THREADS=1)")
    rng = np.random.default_rng(7)
    X = rng.beta(2, 5, (300, 400))  # 120,000 cells: the parallel compilations run
    w = rng.integers(0, 3, 400) + rng.random(400)

    def run() -> list[np.ndarray]:
        t = rk.risk_table(pd.DataFrame(X), "mean", [0, 1, 5], leave_one_out=True)
        return [
            t.select_dtypes("number").to_numpy(),
            *map(np.asarray, paired.paired_sums(X, X[::-1], w)),
            *map(np.asarray, chisq.zsums(X, weights=w)[:3]),
            rk.bias_study(pd.DataFrame(X[:80]), alpha=5.0).urisk.to_numpy(),
        ]

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run()
        numba.set_num_threads(2)
        two = run()
    finally:
        numba.set_num_threads(before)
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a, b)


def test_baselines_from_partial_sums():
    """MEAN and MAX come from per-topic totals and maxima; any other baseline, or MAX without the
    maxima, is refused rather than answered with the wrong sums."""
    X = np.array([[0.1, 0.6], [0.5, 0.2], [0.3, 0.4]])
    total, top = X.sum(axis=0), X.max(axis=0)
    np.testing.assert_allclose(baselines.aggregate_from_totals("mean", 3, total, top), X.mean(axis=0))
    np.testing.assert_array_equal(baselines.aggregate_from_totals("max", 3, total, top), top)
    for kind, maxima in (("median", top), ("max", None)):
        with pytest.raises(ValueError, match=f"no '{kind}' baseline from per-topic sums"):
            baselines.aggregate_from_totals(kind, 3, total, maxima)
