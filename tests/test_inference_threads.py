"""Resampling results depend on the seed only: not on the number of threads, on how the resamples
are split into runs, nor on whether the parallel kernel or its serial twin runs.  The inputs are
just large enough for the parallel kernels (compiled in the slow test only: they take seconds to
compile)."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.inference import _kernels as K

X = pd.DataFrame(
    np.random.default_rng(1).beta(2, 5, size=(20, 30)),
    index=[f"s{i}" for i in range(20)],
    columns=[f"t{j}" for j in range(30)],
)


def _on_threads(n: int, f):
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return f()
    finally:
        numba.set_num_threads(before)


def test_runs_of_resamples_do_not_change_the_counts():
    """A kernel splits its resamples into runs, which threads share out; each resample draws from
    its own stream of the key, so any split gives the same counts, and the first n of more
    resamples are the same (serial twins here: the parallel kernels are compared in the slow test
    below)."""
    Yt = np.ascontiguousarray(X.to_numpy().T)
    m = Yt.mean(axis=0)
    obs = np.abs(m[:, None] - m[None, :]) - 1e-12
    cuts = np.unique(obs[np.triu_indices(20, 1)])
    key = np.uint64(987654321)
    counts = K._TWINS[K.tukey_counts]
    one = counts(Yt, key, 500, obs, cuts, 1)
    for chunks in (3, 16):
        for a, b in zip(counts(Yt, key, 500, obs, cuts, chunks), one, strict=True):
            np.testing.assert_array_equal(a, b)
    sums = K._TWINS[K.permuted_sums]
    np.testing.assert_array_equal(sums(Yt, key, 80, 7)[:50], sums(Yt, key, 50, 1))
    assert not np.array_equal(sums(Yt, key + np.uint64(1), 50, 1), sums(Yt, key, 50, 1))


def test_parallel_kernels_only_with_a_core_to_spare(monkeypatch):
    monkeypatch.setattr(K.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    monkeypatch.setattr(K.os, "cpu_count", lambda: 2)
    assert K.cores_idle() and K.pick(K.tukey_counts, K.SERIAL_WORK) is K.tukey_counts
    assert K.pick(K.tukey_counts, K.SERIAL_WORK - 1) is K._TWINS[K.tukey_counts]
    monkeypatch.setattr(K.os, "getloadavg", lambda: (2.1, 0.2, 0.2))
    assert not K.cores_idle() and K.pick(K.tukey_counts, 10**9) is K._TWINS[K.tukey_counts]


@pytest.mark.slow
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only: nothing to compare")
def test_one_thread_and_all_threads_give_the_same_results(monkeypatch):
    """The parallel kernels on one thread and on all of them, and against their serial twins."""
    assert 2000 * X.size >= K.SERIAL_WORK  # the parallel kernels run, however busy the machine
    monkeypatch.setattr(K, "cores_idle", lambda: True)
    runs = [
        lambda: rk.tukey_hsd(X, baseline="mean", alpha=2.0, n_resamples=2000, rng=9).table,
        lambda: rk.bootstrap_ci(
            X, "mean", [0, 5], measures=["urisk", "trisk", "zrisk", "georisk"], n_resamples=1000, seed=9
        ),
    ]
    for f in runs:
        pd.testing.assert_frame_equal(_on_threads(1, f), _on_threads(numba.config.NUMBA_NUM_THREADS, f))
    Yt = np.ascontiguousarray(X.to_numpy().T)
    m = Yt.mean(axis=0)
    obs = np.abs(m[:, None] - m[None, :]) - 1e-12
    cuts = np.unique(obs[np.triu_indices(20, 1)])
    key = np.uint64(987654321)
    par = K.tukey_counts(Yt, key, 2000, obs, cuts, 16)
    ser = K._TWINS[K.tukey_counts](Yt, key, 2000, obs, cuts, 3)
    for a, b in zip(par, ser, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        K.permuted_sums(Yt, key, 80, 16)[:50], K._TWINS[K.permuted_sums](Yt, key, 50, 1)
    )
