"""Which form of a kernel runs at which size, and each form on the shapes that reach its edges:
numpy below NUMPY_CELLS = 16,384 cells, the compiled kernels from there, on one thread below
SERIAL_CELLS = 65,536 cells (docs/risk.md); the serial twin of a parallel kernel; the compile
notice; and the paired, chi-square and pairwise kernels forced on small matrices whose numbers of
systems end one short of a block, or one past it, against direct computations."""

from __future__ import annotations

import io
import sys
import types

import numpy as np
import pytest

from riskeval.core import _numba, chisq, paired, pairwise
from riskeval.core.baselines import loo_mean


def _function(name: str, module: str, doc: str):
    namespace: dict = {}
    exec(f"def {name}(x):\n    {doc!r}\n    return x\n", namespace)
    f = namespace[name]
    f.__module__ = module
    return f


def test_a_parallel_kernel_runs_serially_below_65536_cells(monkeypatch):
    """Below SERIAL_CELLS the serial twin runs: made once, named apart (numba's cache keys on the
    name), with the kernel's fastmath and error model, cached on disk."""
    assert (_numba.NUMPY_CELLS, _numba.SERIAL_CELLS) == (16_384, 65_536)
    monkeypatch.setattr(_numba, "_TWINS", {})
    kernel = _numba.njit(parallel=True, cache=True, fastmath=_numba.FAST)(
        _function("sums", "riskeval._forms", "The sums.")
    )
    assert _numba.by_size(kernel, 65_536) is kernel
    twin = _numba.by_size(kernel, 65_535)
    assert twin is not kernel and _numba.by_size(kernel, 1) is twin
    assert (twin.__name__, twin.__qualname__, twin.__module__, twin.__doc__) == (
        "sums_serial",
        "sums_serial",
        "riskeval._forms",
        "The sums.",
    )
    assert twin.py_func.__name__ == "sums_serial"
    assert twin.targetoptions == {"cache": True, "fastmath": _numba.FAST, "error_model": "python"}
    plain = _numba.njit(parallel=True, error_model="numpy")(_function("plain", "riskeval._forms", ""))
    assert _numba.serial_twin(plain).targetoptions == {
        "cache": True,
        "fastmath": False,
        "error_model": "numpy",
    }


def test_the_compile_notice_names_the_part_and_how_long_its_first_compilation_takes(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(_numba, "quiet", False)
    monkeypatch.setattr(_numba, "announced", set())
    _numba._notice(types.SimpleNamespace(py_func=types.SimpleNamespace(__module__="riskeval.core.chisq")))
    assert err.getvalue() == (
        "riskeval: compiling the risk measures' kernels, once: about 5 s; later runs load them from "
        "the cache.\n"
    )


def test_loading_a_kernel_loads_the_kernels_it_names_in_other_modules(monkeypatch):
    """``module.kernel`` in a kernel's code: a riskeval module's placeholder is loaded and put in
    place; another package's module is left as it is."""
    ours, theirs = types.ModuleType("riskeval._forms_a"), types.ModuleType("other._forms_b")
    for module in (ours, theirs):
        monkeypatch.setitem(sys.modules, module.__name__, module)
        module.inc = _numba.njit(_function("inc", module.__name__, ""))
    caller = types.ModuleType("riskeval._forms_c")
    monkeypatch.setitem(sys.modules, caller.__name__, caller)
    caller._forms_a, caller._forms_b = ours, theirs
    exec("def outer(x):\n    return _forms_a.inc(x) + _forms_b.inc(x)\n", caller.__dict__)
    outer = _numba.njit(caller.outer)
    _numba._bind(outer.py_func)
    assert not isinstance(ours.inc, _numba._Deferred)
    assert isinstance(theirs.inc, _numba._Deferred)


def _larger(x, y):
    return x if x > y else y


def test_a_vectorize_placeholder_loads_as_a_ufunc():
    """Element by element with numpy's broadcasting, also where the function branches on its
    arguments (a Python function would meet an array there)."""
    larger = _numba.vectorize(["float64(float64, float64)"])(_larger)
    got = larger(np.array([[1.0], [5.0]]), np.array([2.0, 3.0, 6.0]))
    np.testing.assert_array_equal(got, [[2.0, 3.0, 6.0], [5.0, 5.0, 6.0]])


# -- the paired sums (SIGIR 2014, §3; SIGIR 2016, Table 7)


def _paired_by_definition(X, B, w):
    d = X - B
    pos, neg = np.maximum(d, 0.0), np.minimum(d, 0.0)
    n = w.sum()
    cp, cn = pos - (pos @ w / n)[:, None], neg - (neg @ w / n)[:, None]
    B = np.broadcast_to(B, X.shape)
    return {
        "sum_pos": pos @ w,
        "sum_neg": neg @ w,
        "m2_pos": (cp * cp) @ w,
        "m2_neg": (cn * cn) @ w,
        "cross": (cp * cn) @ w,
        "wins": (d > 0) @ w,
        "losses": (d < 0) @ w,
        "loss20": ((B > 0) & (B - X > 0.2 * B)) @ w,
        "scale": np.maximum(np.abs(X).max(axis=1), np.abs(B).max(axis=1)),
    }


def _case(r: int, c: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (r, c)) / 5
    X[0, 0] = -0.3  # a negative score against a baseline of 0: no Loss>20%
    X[0, 1] = 1.0  # a loss of exactly 20 % of 1.25: not more than 20 %
    B = rng.integers(0, 6, c) / 5
    B[0], B[1] = 0.0, 1.25
    return X, B, rng.integers(1, 4, c).astype(np.float64)


@pytest.mark.parametrize(("form", "r"), [("numpy", 2), ("compiled", 1), ("compiled", 63), ("compiled", 65)])
@pytest.mark.parametrize("shared", [True, False])
def test_the_paired_sums_on_a_block_and_a_system_either_side(monkeypatch, form, r, shared):
    if form == "compiled":
        monkeypatch.setattr(paired, "NUMPY_CELLS", 0)
    X, b, w = _case(r, 3)
    B = b if shared else np.roll(X, 1, axis=0)
    got = paired.paired_sums(X, B, w)
    assert got.n == w.sum()
    for name, want in _paired_by_definition(X, B, w).items():
        np.testing.assert_allclose(getattr(got, name), want, rtol=1e-12, atol=1e-14, err_msg=name)


def test_the_paired_sums_of_a_long_table_equal_those_of_the_matrix():
    """One row per (system, topic) cell, in any order, gives the matrix's sums."""
    X, B, _ = _case(4, 5)
    i, j = np.nonzero(np.ones_like(X))
    order = np.random.default_rng(0).permutation(i.size)
    got = paired.grouped_paired_sums(i[order], X[i, j][order], B[j][order], 4)
    for name, want in _paired_by_definition(X, B, np.ones(5)).items():
        np.testing.assert_allclose(getattr(got, name), want, rtol=1e-12, atol=1e-14, err_msg=name)
    np.testing.assert_array_equal(got.n, [5.0] * 4)


def test_the_cells_of_a_long_table_go_through_the_matrix_computation():
    """A system's cells, in topic order, give the bits of :func:`paired.paired_sums` on its row,
    whatever the other systems' numbers of cells (systems with as many cells share a block)."""
    X, B, _ = _case(5, 7)
    keep = np.ones_like(X, dtype=bool)
    keep[1, 2:] = keep[3, :4] = False  # s1 has 2 cells, s3 has 3, the others 7
    i, j = np.nonzero(keep)
    got = paired.grouped_paired_sums(i, X[i, j], B[j], 6)  # s5: no cell
    np.testing.assert_array_equal(got.n, [7.0, 2.0, 7.0, 3.0, 7.0, 0.0])
    for s in range(5):
        want = paired.paired_sums(X[s : s + 1, keep[s]], B[keep[s]])
        for name in paired.PairedSums._fields[1:]:
            np.testing.assert_array_equal(getattr(got, name)[s], getattr(want, name)[0], err_msg=name)
    for name in paired.PairedSums._fields:
        assert getattr(got, name)[5] == 0.0, name


def test_the_paired_sums_of_disjoint_topic_sets_merge_to_those_of_all_topics():
    """Sums and counts add; the centred moments combine by Chan, Golub & LeVeque (1979, eq. 2.1);
    a set with no topic of a system adds nothing to it."""
    X, B, _ = _case(3, 6)
    i, j = np.nonzero(np.ones_like(X))
    last = (i == 0) & (j == 5)  # one topic of s0 alone
    cells = [j < 2, (j >= 2) & ~last, last]
    parts = [paired.grouped_paired_sums(i[k], X[i, j][k], B[j][k], 3) for k in cells]
    assert parts[2].n.tolist() == [1.0, 0.0, 0.0]
    got = paired.merge_paired(parts)
    for name, want in _paired_by_definition(X, B, np.ones(6)).items():
        np.testing.assert_allclose(getattr(got, name), want, rtol=1e-12, atol=1e-14, err_msg=name)
    np.testing.assert_array_equal(got.n, [6.0] * 3)


def test_the_form_follows_the_size(monkeypatch):
    """Paired and chi-square sums: numpy below 16,384 cells, a compiled kernel from 16,384."""
    runs = []

    def compiled(kernel, cells):
        runs.append(("compiled", cells))
        return _numba.by_size(kernel, cells)

    monkeypatch.setattr(paired, "by_size", compiled)
    monkeypatch.setattr(chisq, "by_size", compiled)
    for c in (16_383, 16_384):
        X = np.full((1, c), 0.5)
        paired.paired_sums(X, np.full(c, 0.25))
        chisq.zsums(X)
    assert runs == [("compiled", 16_384), ("compiled", 16_384)]


# -- the chi-square sums (SIGIR 2016, eq. 4–5)


def _chisq_by_definition(X, B):
    pos, neg = [], []
    for i, x in enumerate(X):
        rows = X if B is None else np.vstack([x, np.atleast_2d(B)])
        row = i if B is None else 0
        S, T = rows.sum(axis=1), rows.sum(axis=0)
        e = S[row] * T / T.sum() if T.sum() > 0 else np.zeros_like(T)
        z = np.divide(x - e, np.sqrt(e), out=np.zeros_like(x), where=e > 0)
        pos.append(np.maximum(z, 0.0).sum())
        neg.append(np.minimum(z, 0.0).sum())
    return np.array(pos), np.array(neg)


@pytest.mark.parametrize(("r", "c"), [(3, 1), (255, 2), (257, 2)])
@pytest.mark.parametrize("layout", ["every row", "baseline systems"])
def test_the_chi_square_kernel_on_one_topic_and_a_block_either_side(monkeypatch, r, c, layout):
    monkeypatch.setattr(chisq, "NUMPY_CELLS", 0)
    rng = np.random.default_rng(r)
    X = rng.integers(0, 6, (r, c)) / 50  # totals below 1
    X[1] = 0.0  # a system scoring 0 everywhere: e = 0, z = 0
    B = None if layout == "every row" else rng.random((2, c)) / 10
    got = chisq.zsums(X, B)
    pos, neg = _chisq_by_definition(X, B)
    np.testing.assert_allclose(got.z_pos, pos, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.z_neg, neg, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("compiled", [False, True])
def test_a_zero_expected_score_has_a_zero_residual(monkeypatch, compiled):
    """e_ij = 0 (a row or a column of zeros, or a total of 0) gives z_ij = 0 (SIGIR 2016, eq. 5)."""
    if compiled:
        monkeypatch.setattr(chisq, "NUMPY_CELLS", 0)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(chisq.residual(np.array([0.0, 0.5]), 0.0, 1.0), [0.0, 0.0])
        # a ufunc: a (2, 1) by q (3,) broadcasts to (2, 3); e = 0 wherever a or q is 0
        x, a, q = np.full((2, 3), 4.0), np.array([[0.0], [1.0]]), np.array([0.0, 1.0, 2.0])
        np.testing.assert_array_equal(chisq.residual(x, a, q), [[0.0, 0.0, 0.0], [0.0, 3.0, 0.0]])
        for X in (np.zeros((2, 3)), np.array([[0.0, 0.0], [0.5, 0.0]])):
            got = chisq.zsums(X)
            pos, neg = _chisq_by_definition(X, None)
            np.testing.assert_allclose(np.r_[got.z_pos, got.z_neg], np.r_[pos, neg], atol=1e-15)


# -- URisk of every pair of systems (ECIR 2014, §2.3)


@pytest.mark.parametrize("r", [2, 63, 65, 130])
def test_negative_part_sums_of_every_pair(r):
    """N[k, i] = Σ_j min(x_ij − x_kj, 0): one tile of 64 systems, one short of it, one past it,
    two past two."""
    X = np.random.default_rng(r).integers(0, 5, (r, 3)) / 4
    want = np.minimum(X[None, :, :] - X[:, None, :], 0.0).sum(axis=2)
    np.testing.assert_allclose(pairwise.negative_part_sums(X), want, atol=1e-12)


# -- the spread below which TRisk treats the scores as constant, and the jackknife


def test_a_spread_within_1024_epsilon_of_the_scale_is_rounding_noise():
    """sd ≤ 1024·ε·(1 + α)·scale is noise; the bound is inclusive and grows with α and the scale."""
    eps = float(np.finfo(np.float64).eps)
    for alpha, scale in [(0.0, 1.0), (1.0, 1.0), (0.0, 4.0), (3.0, 0.5)]:
        bound = 1024 * eps * (1 + alpha) * scale
        assert paired.zero_spread(bound, scale, alpha)
        assert not paired.zero_spread(np.nextafter(bound, 1.0), scale, alpha)
        assert not paired.zero_spread(1.4 * bound, scale, alpha)


def test_the_jackknife_se_of_each_row_is_its_standard_error():
    """For a mean the jackknife SE is s/√c (Dinçer, Macdonald & Ounis, SIGIR 2014, §3.2); rows are
    independent samples; the leave-one-out means are the definition's."""
    x = np.random.default_rng(4).random((3, 6))
    np.testing.assert_allclose(paired.jackknife_se(x), x.std(axis=1, ddof=1) / np.sqrt(6), rtol=1e-12)
    np.testing.assert_allclose(paired.jackknife_se(x[0]), x[0].std(ddof=1) / np.sqrt(6), rtol=1e-12)
    np.testing.assert_allclose(loo_mean(x[0].sum(), x[0], 6), [np.delete(x[0], k).mean() for k in range(6)])
