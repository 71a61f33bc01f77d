"""Resampling results depend on the seed only, not on the number of threads numba runs them on."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import riskeval as rk

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


@pytest.mark.slow
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only: nothing to compare")
def test_one_thread_and_all_threads_give_the_same_results():
    """The kernels on one thread and on all of them."""
    runs = [
        lambda: rk.tukey_hsd(X, baseline="mean", alpha=2.0, n_resamples=2000, rng=9).table,
        lambda: rk.bootstrap_ci(
            X, "mean", [0, 5], risk=["urisk", "trisk", "zrisk", "georisk"], n_resamples=1000, rng=9
        ),
    ]
    for f in runs:
        pd.testing.assert_frame_equal(_on_threads(1, f), _on_threads(numba.config.NUMBA_NUM_THREADS, f))
