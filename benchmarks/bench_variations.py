"""Benchmark of the query-variation analyses (mean-variance evaluation: Zuccon, Palotti & Hanbury,
CIKM 2016).

Two kernels, each against a named reference measured in the same run:

1. Rank correlations of the rankings by ``O(α) = μ − α σ²`` with the mean-only ranking over the
   paper's wide α grid (−1000..1000, step 0.1: 20,001 rankings) for 110 systems (CLEF eHealth 2015
   size): ``rank_correlations`` (Kendall τ-b *and* τ_AP) against a loop of
   ``scipy.stats.kendalltau`` calls (τ only).  Target: at least 3× faster; values equal.
2. General mean-variance moments of 1,000 systems × 50 topics × 23 users (TREC 8 Query Track
   size): ``general_moments`` (variance of the per-user weighted means) against the textbook
   ``wᵀ C w`` with ``numpy.cov`` per system.  Target: at least 5× faster; values equal.

Prints ratios only (the machine is shared); exits non-zero if a target is missed.

    python benchmarks/bench_variations.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from scipy import stats
from timing import best_of

from riskeval.core.mve import general_moments, normalise_weights
from riskeval.core.rank_correlation import rank_correlations, tie_groups


def bench_rank_correlations(repeat: int) -> bool:
    rng = np.random.default_rng(0)
    mean = np.round(rng.uniform(0.2, 0.6, 110), 4)  # P@10-like means, some tied
    variance = rng.uniform(0.0, 0.02, 110)
    alphas = np.linspace(-1000, 1000, 20001)
    values = mean[:, None] - variance[:, None] * alphas

    def reference():
        ref = -tie_groups(mean)
        return np.array(
            [stats.kendalltau(ref, -tie_groups(values[:, a])).statistic for a in range(alphas.size)]
        )

    ours = rank_correlations(mean, values)[0]
    assert np.allclose(ours, reference(), atol=1e-12, equal_nan=True)
    t_ours = best_of(lambda: rank_correlations(mean, values), repeat)
    t_ref = best_of(reference, 1)
    ratio = t_ref / t_ours
    print(f"rank correlations, 110 systems x 20,001 alphas: scipy.kendalltau loop / riskeval = {ratio:.1f}x")
    return ratio >= 3


def bench_general_moments(repeat: int) -> bool:
    rng = np.random.default_rng(1)
    R = rng.random((1000, 50, 23))
    w = normalise_weights(rng.random(50) + 0.1, 50)

    def reference():
        return np.array([w @ np.cov(R[s], ddof=1) @ w for s in range(R.shape[0])])

    assert np.allclose(general_moments(R, w, 1)[1], reference(), atol=1e-14)
    t_ours = best_of(lambda: general_moments(R, w, 1), repeat)
    t_ref = best_of(reference, repeat)
    ratio = t_ref / t_ours
    print(f"general moments, 1000 x 50 x 23: per-system w'Cw with numpy.cov / riskeval = {ratio:.1f}x")
    return ratio >= 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = [bench_rank_correlations(args.repeat), bench_general_moments(args.repeat)]
    print("targets met" if all(results) else "TARGET MISSED")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
