"""A process forked after numba's threads started cannot use them (GNU OpenMP terminates it): the
kernels run serially there and give the same numbers."""

from __future__ import annotations

import multiprocessing as mp
import sys

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.core._numba import threads_usable


def _work() -> tuple[float, ...]:
    """Every kind of parallel kernel, at sizes that choose threads where threads are usable."""
    X = rk.example_scores()
    wide = pd.concat([X] * 45, axis=1).set_axis([f"t{j}" for j in range(45 * X.shape[1])], axis=1)
    table = rk.risk_table(wide, alphas=[0, 5])  # paired sums and chi-square matrix, 37 × 1,935
    study = rk.bias_study(X, alpha=5.0)  # every system against every other
    tukey = rk.tukey_hsd(X, n_resamples=2000, rng=1).table["pvalue_hsd"]
    perm = rk.risk_permutation_table(X, "mean", [0, 5], n_resamples=4000, rng=2)["pvalue_maxt"]
    boot = rk.bootstrap_ci(X, "mean", [0, 5], measures=["urisk", "georisk"], n_resamples=1000, seed=3)
    return (
        float(table["urisk"].sum()),
        float(table["georisk"].sum()),
        float(np.nansum(study.urisk.to_numpy())),
        float(tukey.sum()),
        float(perm.sum()),
        float(boot["low"].sum()),
    )


def _child(queue: mp.Queue) -> None:
    queue.put((threads_usable(), _work()))


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the fork start method, with GNU OpenMP")
def test_a_child_forked_after_the_threads_started_runs_serially() -> None:
    here = _work()  # starts the thread pool here
    assert threads_usable()
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    child.join(300)
    assert child.exitcode == 0, "the forked child was terminated"
    usable, there = queue.get(timeout=5)
    assert not usable
    np.testing.assert_allclose(there, here, rtol=1e-12)
