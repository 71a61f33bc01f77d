"""Worker processes of one's own: a child started with ``spawn`` after numba's threads started in
the parent (where a ``fork`` would be terminated by GNU OpenMP) runs the parallel kernels and gives
the parent's numbers."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pandas as pd
import processes
import pytest

import riskeval as rk


def _work() -> tuple[float, ...]:
    """Every kind of parallel kernel, at sizes that choose threads where threads are usable."""
    X = rk.example_scores()
    wide = pd.concat([X] * 45, axis=1).set_axis([f"t{j}" for j in range(45 * X.shape[1])], axis=1)
    table = rk.risk_table(wide, alphas=[0, 5])  # paired sums and chi-square matrix, 37 × 1,935
    study = rk.bias_study(X, alpha=5.0)  # every system against every other
    tukey = rk.tukey_hsd(X, n_resamples=2000, rng=1).table["pvalue_hsd"]
    perm = rk.risk_permutation_table(X, "mean", [0, 5], n_resamples=4000, rng=2)["pvalue_maxt"]
    boot = rk.bootstrap_ci(X, "mean", [0, 5], risk=["urisk", "georisk"], n_resamples=1000, rng=3)
    return (
        float(table["urisk"].sum()),
        float(table["georisk"].sum()),
        float(np.nansum(study.urisk.to_numpy())),
        float(tukey.sum()),
        float(perm.sum()),
        float(boot["low"].sum()),
    )


def _child(queue: mp.Queue) -> None:
    queue.put(_work())


@pytest.mark.slow
def test_a_spawned_child_after_the_threads_started_gives_the_same_numbers() -> None:
    here = _work()  # starts the thread pool here
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    there = queue.get(timeout=processes.HANG_S)
    child.join(60)
    assert child.exitcode == 0
    np.testing.assert_array_equal(there, here)
