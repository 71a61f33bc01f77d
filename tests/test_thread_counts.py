"""Same inputs and seed, same bits, whatever the number of threads: the inference procedures and
the risk measures run in two fresh processes, one with numba and BLAS on one thread and one on two,
and their results are compared bit for bit.  The inputs are above the sizes from which riskeval
runs its parallel kernels, so that with two threads the parallel code runs."""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import processes

SRC = Path(__file__).resolve().parents[1] / "src"

# Every public procedure with a random stream or a parallel kernel, on fixed data and seeds.
# Inference on 40 systems × 60 topics, with enough resamples that each parallel kernel (resampled
# measures, order statistics and their summaries, sign flips, Tukey counts) has millions of cells
# to visit; the measures (paired sums, chi-square matrix) on 80 × 1,000 = 80,000 cells.
PROGRAM = """
import pickle, sys

import numpy as np
import pandas as pd

import riskeval as rk

rng = np.random.default_rng(20140706)
X = pd.DataFrame(
    rng.beta(2, 5, size=(40, 60)),
    index=[f"s{i:02d}" for i in range(40)],
    columns=[f"t{j:02d}" for j in range(60)],
)
W = pd.DataFrame(rng.beta(2, 5, size=(80, 1000)), index=[f"r{i:02d}" for i in range(80)])
W.columns = W.columns.astype(str)
alphas = [0, 1, 5, 10]
out = {}
p = rk.permutation_test(X.loc["s01"], X.loc["s00"], alpha=5, n_resamples=50_000, rng=1)
out["permutation_test"] = (p.statistic, p.pvalue)
out["risk_permutation_table"] = rk.risk_permutation_table(X, "mean", alphas, n_resamples=20_000, rng=2)
for method in ("percentile", "bca"):
    out[f"bootstrap_ci {method}"] = rk.bootstrap_ci(
        X, "mean", alphas, risk=["urisk", "trisk", "zrisk", "georisk"], method=method,
        n_resamples=4_000, rng=3,
    )
for measure in ("urisk", "trisk", "zrisk", "georisk"):
    d = rk.inference.bootstrap_difference(X, "s03", "s04", risk=measure, alpha=5, n_resamples=2_000, rng=4)
    out[f"bootstrap_difference {measure}"] = (d.statistic, d.pvalue, d.low, d.high)
out["rank_intervals"] = rk.inference.rank_intervals(X, risk="georisk", alpha=5, n_resamples=2_000, rng=5)
out["tukey_hsd"] = rk.tukey_hsd(X, baseline="mean", alpha=5, n_resamples=2_000, rng=6).table
out["risk_table"] = rk.risk_table(W, baseline="mean", alphas=alphas)
out["zrisk"] = rk.zrisk(W, alpha=5)
out["georisk"] = rk.georisk(W, alpha=5)
with open(sys.argv[1], "wb") as f:
    pickle.dump(out, f)
"""


def results(tmp_path: Path, threads: int) -> dict:
    path = tmp_path / f"threads-{threads}.pkl"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        "NUMBA_NUM_THREADS": str(threads),
        **{v: str(threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
    }
    processes.run([sys.executable, "-c", PROGRAM, str(path)], env=env, check=True)
    with path.open("rb") as f:
        return pickle.load(f)


def bits(value) -> list[tuple[str, bytes]]:
    """The exact bytes of every number in ``value`` (NaN, −0.0 and the last bit told apart)."""
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if isinstance(value, pd.DataFrame):
        return [("index", repr(value.index.tolist()).encode())] + [
            (
                str(c),
                np.asarray(value[c]).tobytes()
                if value[c].dtype.kind in "fiub"
                else repr(value[c].tolist()).encode(),
            )
            for c in value.columns
        ]
    return [("value", np.asarray(value, dtype=float).tobytes())]


def test_one_thread_and_two_threads_give_the_same_bits(tmp_path):
    one, two = results(tmp_path, 1), results(tmp_path, 2)
    assert one.keys() == two.keys()
    for name in one:
        a, b = one[name], two[name]
        if isinstance(a, pd.DataFrame | pd.Series):
            assert len(a) > 0
        for (ca, ba), (cb, bb) in zip(bits(a), bits(b), strict=True):
            assert ca == cb and ba == bb, f"{name}, column {ca}: results differ between 1 and 2 threads"
