"""The bias study's all-pairs URisk and its truncated PCA equal the direct computations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import riskeval as rk
from riskeval.analysis import baseline_bias as bs
from riskeval.core import paired
from riskeval.core.pairwise import negative_part_sums


@settings(max_examples=40, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 140), st.integers(1, 30)), elements=st.floats(-1, 1, width=32)
    )
)
def test_negative_part_sums_equal_brute_force(X):
    N = negative_part_sums(X)
    ref = np.minimum(X[None, :, :] - X[:, None, :], 0.0).sum(axis=2)  # [k, i]: i against k
    np.testing.assert_allclose(N, ref, rtol=1e-12, atol=1e-12)


def test_negative_part_sums_over_several_tiles_and_their_progress():
    """130 systems: three tiles of baselines, the pairs below the diagonal from the identity."""
    X = np.random.default_rng(4).random((130, 3))
    X[7] = X[100]  # two equal systems
    steps: list[int] = []
    N = negative_part_sums(X, progress=steps.append)
    ref = np.minimum(X[None, :, :] - X[:, None, :], 0.0).sum(axis=2)
    np.testing.assert_allclose(N, ref, rtol=1e-12, atol=1e-12)
    assert steps == [64, 64, 2]


def test_bias_study_urisk_equals_the_paired_kernel_per_baseline():
    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.beta(2, 5, (133, 40)), index=[f"s{i}" for i in range(133)])
    study = rk.bias_study(X, alpha=5.0)
    V = X.to_numpy()
    runs = [*V, V.mean(0), np.median(V, 0), V.max(0)]
    want = np.vstack([paired.urisk_from(paired.paired_sums(V, b), 5.0) for b in runs])
    np.testing.assert_allclose(study.urisk.to_numpy(), want, rtol=1e-10, atol=1e-13)
    assert (np.diag(study.urisk.to_numpy()[:133]) == 0).all()


def test_truncated_pca_keeps_the_leading_components(monkeypatch):
    rng = np.random.default_rng(2)
    runs = pd.DataFrame(rng.normal(size=(40, 60)) @ np.diag(np.linspace(3, 0.1, 60)))
    full = bs.pca(runs)
    monkeypatch.setattr(bs, "PCA_FULL_CELLS", 100)
    part = bs.pca(runs)
    k = bs.PCA_COMPONENTS
    assert list(part.coordinates.columns) == [f"PC{i + 1}" for i in range(k)]
    np.testing.assert_allclose(part.explained, full.explained.iloc[:k], rtol=1e-8)
    np.testing.assert_allclose(part.coordinates, full.coordinates.iloc[:, :k], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(part.loadings, full.loadings.iloc[:, :k], rtol=1e-6, atol=1e-8)
    assert part.explained.sum() < 100


@pytest.mark.parametrize("progress", [True, False])
def test_progress_is_optional(progress, capsys):
    X = pd.DataFrame(np.random.default_rng(0).random((70, 5)))
    rk.bias_study(X, progress=progress)
    assert ("bias study" in capsys.readouterr().err) == progress


@pytest.mark.parametrize("shape", [(40, 60), (300, 200)])
def test_pca_and_correlations_have_the_same_bits_with_one_or_two_blas_threads(monkeypatch, shape):
    from threadpoolctl import threadpool_limits

    monkeypatch.setattr(bs, "PCA_FULL_CELLS", 10_000)  # the second shape takes the truncated SVD
    X = pd.DataFrame(np.random.default_rng(4).beta(2, 5, shape))
    studies = []
    for threads in (1, 2):
        with threadpool_limits(threads, user_api="blas"):
            studies.append(rk.bias_study(X, progress=False))
    one, two = studies
    pd.testing.assert_frame_equal(one.correlation, two.correlation, check_exact=True)
    pd.testing.assert_frame_equal(one.pca.coordinates, two.pca.coordinates, check_exact=True)
    pd.testing.assert_frame_equal(one.pca.loadings, two.pca.loadings, check_exact=True)
