"""Benchmark of the baseline-bias study (every system as every other's baseline).

The study is r²·c cell visits by nature.  This script times ``riskeval.bias_study`` on a synthetic
matrix, reports its rate in cell visits per second against one ``numpy.sum`` pass over the same
matrix (cells per second); in the same run, its all-pairs URisk against the straightforward route
(one paired-kernel pass per baseline, timed on a subset of baselines and scaled).  Three data
sets: the default shape (graded-looking scores in [0, 1]), a second shape (many zeros and ties,
more topics than systems), and the shipped TREC DL 2019 example.  Target: 5,000 × 10,000 under 180 s here.

    python benchmarks/bench_bias_study.py [--systems 5000] [--topics 10000] [--target 180]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import riskeval as rk
from riskeval.analysis.bias_study import _urisk_against_every_run
from riskeval.core import paired


def shape_a(r: int, c: int, rng: np.random.Generator) -> pd.DataFrame:
    """Beta-distributed scores, every cell distinct."""
    return pd.DataFrame(rng.beta(2, 5, (r, c)))


def shape_b(r: int, c: int, rng: np.random.Generator) -> pd.DataFrame:
    """Sparse-looking scores: 60 % zeros, the rest on a grid of 10 values (ties everywhere)."""
    v = np.round(rng.random((r, c)) * 10) / 10
    v[rng.random((r, c)) < 0.6] = 0.0
    return pd.DataFrame(v)


def straightforward_seconds(V: np.ndarray, n_baselines: int) -> float:
    """One paired-kernel pass per baseline, for ``n_baselines`` baselines, scaled to all of them."""
    t = time.perf_counter()
    for b in V[:n_baselines]:
        paired.urisk_from(paired.paired_sums(V, b), 1.0)
    return (time.perf_counter() - t) * V.shape[0] / n_baselines


def run(name: str, X: pd.DataFrame, reference_baselines: int) -> float:
    r, c = X.shape
    V = X.to_numpy()
    t = time.perf_counter()
    V.sum()
    numpy_rate = V.size / (time.perf_counter() - t)
    t = time.perf_counter()
    _urisk_against_every_run(V, [], 1.0, False)
    pairs = time.perf_counter() - t
    ref = straightforward_seconds(V, min(reference_baselines, r))
    t = time.perf_counter()
    rk.bias_study(X, 1.0, progress=False)
    took = time.perf_counter() - t
    visits = r * r * c
    print(
        f"{name:<26} {r:>5} x {c:<6} all-pairs URisk {pairs:7.2f} s = {visits / pairs:8.3g} visits/s "
        f"({visits / pairs / numpy_rate:.3f} x numpy.sum's cells/s); per-baseline route {ref:8.2f} s "
        f"({ref / pairs:5.1f} x slower); whole bias_study {took:7.2f} s"
    )
    return took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=5000)
    ap.add_argument("--topics", type=int, default=10000)
    ap.add_argument("--target", type=float, default=180.0)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"load average before: {os.getloadavg()}")
    rk.bias_study(shape_a(70, 20, rng), progress=False)  # compile or load the kernels
    run("shipped example (DL 2019)", rk.example_scores(), 37)
    run("shape B: zeros and ties", shape_b(args.systems // 4, args.topics * 2, rng), 20)
    took = run("shape A: beta scores", shape_a(args.systems, args.topics, rng), 10)
    print(f"load average after: {os.getloadavg()}")
    ok = took <= args.target
    print(f"target: {args.systems} x {args.topics} under {args.target:g} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
