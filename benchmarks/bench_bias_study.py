"""Benchmark of the baseline-bias study (every system as every other's baseline).

The study is r²·c cell visits by nature.  On each data set, in the same run, with ``--repeat``
repeats printed as best and median:

- its all-pairs URisk against the straightforward route (one paired-kernel pass per baseline,
  timed on a subset of baselines and scaled), and its rate in cell visits per second against one
  ``numpy.sum`` pass's cells per second;
- its PCA (``riskeval.analysis.baseline_bias.pca``, one BLAS thread) against the same SVD with the
  BLAS's own thread count (``reference.pca_default_threads``);
- the whole ``riskeval.bias_study``.

Three data sets: the shipped TREC DL 2019 example, shape B (many zeros and ties, more topics than
systems) and shape A (beta scores, the big shape).  Target: shape A at 5,000 × 10,000 under 180 s.

    python benchmarks/bench_bias_study.py [--systems 5000] [--topics 10000] [--target 180] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd
from reference import pca_default_threads

import riskeval as rk
from riskeval.analysis import baseline_bias as bs
from riskeval.core import paired


def shape_a(r: int, c: int, rng: np.random.Generator) -> pd.DataFrame:
    """Beta-distributed scores, every cell distinct."""
    return pd.DataFrame(rng.beta(2, 5, (r, c)))


def shape_b(r: int, c: int, rng: np.random.Generator) -> pd.DataFrame:
    """Sparse-looking scores: 60 % zeros, the rest on a grid of 10 values (ties everywhere)."""
    v = np.round(rng.random((r, c)) * 10) / 10
    v[rng.random((r, c)) < 0.6] = 0.0
    return pd.DataFrame(v)


def seconds(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def straightforward(V: np.ndarray, n_baselines: int) -> None:
    """One paired-kernel pass per baseline, for the first ``n_baselines`` baselines."""
    for b in V[:n_baselines]:
        paired.urisk_from(paired.paired_sums(V, b), 1.0)


def best_median(values: list[float], unit: str = "") -> str:
    return f"best {min(values):.3g}{unit}, median {statistics.median(values):.3g}{unit}"


def run(name: str, X: pd.DataFrame, reference_baselines: int, repeat: int) -> float:
    r, c = X.shape
    V = X.to_numpy()
    k = min(reference_baselines, r)
    components = bs.PCA_COMPONENTS if V.size > bs.PCA_FULL_CELLS else None
    pairs, route, numpy_pass, ours, theirs, whole = ([] for _ in range(6))
    for _ in range(repeat):
        numpy_pass.append(seconds(V.sum))
        pairs.append(seconds(lambda: bs._urisk_against_every_run(V, [], 1.0, False)))
        route.append(seconds(lambda: straightforward(V, k)) * r / k)
        ours.append(seconds(lambda: bs.pca(X)))
        theirs.append(seconds(lambda: pca_default_threads(V, components)))
        whole.append(seconds(lambda: rk.bias_study(X, 1.0, progress=False)))
    visits = r * r * c
    rate = [visits / p / (V.size / n) for p, n in zip(pairs, numpy_pass, strict=True)]
    print(f"{name}, {r} x {c}:")
    print(
        f"  all-pairs URisk {best_median(pairs, ' s')}; per-baseline route / all-pairs "
        f"{best_median([q / p for p, q in zip(pairs, route, strict=True)])}; visits/s over numpy.sum's "
        f"cells/s {best_median(rate)}"
    )
    print(
        f"  PCA ({'all components' if components is None else f'{components} components'}) "
        f"{best_median(ours, ' s')}; default-threads SVD / riskeval "
        f"{best_median([t / o for o, t in zip(ours, theirs, strict=True)])}"
    )
    print(f"  whole bias_study {best_median(whole, ' s')}")
    return min(whole)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=5000)
    ap.add_argument("--topics", type=int, default=10000)
    ap.add_argument("--target", type=float, default=180.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rk.bias_study(shape_a(70, 20, rng), progress=False)  # compile or load the kernels
    run("shipped example (TREC DL 2019)", rk.example_scores(), 37, args.repeat)
    run("shape B: zeros and ties", shape_b(args.systems // 4, args.topics * 2, rng), 20, args.repeat)
    took = run("shape A: beta scores", shape_a(args.systems, args.topics, rng), 10, args.repeat)
    ok = took <= args.target
    print(f"target: {args.systems} x {args.topics} under {args.target:g} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
