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


def test_parallel_kernels_only_with_a_core_to_spare(monkeypatch):
    monkeypatch.setattr(K.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    monkeypatch.setattr(K.os, "cpu_count", lambda: 2)
    assert K.cores_idle() and K.pick(K.resampled_measures, K.SERIAL_WORK) is K.resampled_measures
    assert K.pick(K.resampled_measures, K.SERIAL_WORK - 1) is K._TWINS[K.resampled_measures]
    monkeypatch.setattr(K.os, "getloadavg", lambda: (2.1, 0.2, 0.2))
    assert not K.cores_idle() and K.pick(K.resampled_measures, 10**9) is K._TWINS[K.resampled_measures]
    # sums that the twins round differently: chosen by the work alone, whatever the load
    assert K.pick(K.block_summaries, K.SERIAL_WORK) is K.block_summaries
    assert K.pick(K.block_summaries, K.SERIAL_WORK - 1) is K._TWINS[K.block_summaries]


@pytest.mark.slow
def test_a_busy_machine_gives_the_same_summaries(monkeypatch):
    """The bootstrap's summaries (count, sums, mid-rank counts) of a kept distribution are the same
    on an idle and on a busy machine, whose load would pick the serial twin of most kernels (the
    twins of this one round their sums differently)."""
    from riskeval.inference.order_statistics import summaries

    A = np.random.default_rng(6).normal(size=(400, 10000))
    A[3, ::7] = np.nan
    est = np.random.default_rng(7).normal(size=400)
    monkeypatch.setattr(K, "cores_idle", lambda: True)
    idle = summaries(A, est)
    monkeypatch.setattr(K, "cores_idle", lambda: False)
    busy = summaries(A, est)
    for f in ("valid", "se", "below_est", "below_null", "mean"):
        np.testing.assert_array_equal(getattr(idle, f), getattr(busy, f))


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
