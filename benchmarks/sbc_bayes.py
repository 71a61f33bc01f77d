"""Simulation-based calibration of ``riskeval.bayes.posterior`` (Talts, Betancourt, Simpson, Vehtari &
Gelman, 2018): collections are simulated from the crossed random-effects model of Benham,
Carterette, Culpepper & Moffat (SIGIR 2020) with parameters drawn from fixed priors, then fitted
with the same priors.  If the sampler draws from the posterior, a 95% credible interval holds the
true effect in 95% of collections, and the rank of the true value among the draws is uniform.

Coverage is counted on one system per collection (the first), so the collections' indicators are
independent and their count is Binomial(collections, 0.95) when calibrated; its exact (Clopper–
Pearson) 99% interval is printed.  The coverage of all system effects is printed beside it (its
indicators within a collection are correlated).  The ranks of the first system's true effect among
``bins − 1`` evenly thinned draws go through a chi-square test of uniformity.

    python benchmarks/sbc_bayes.py [--collections 200] [--systems 8] [--topics 30]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

from riskeval.bayes import BayesDiagnosticWarning, Priors, fit

#: Fixed priors, so that the prior does not depend on the simulated scores (the defaults scale to them).
PRIORS = Priors(
    intercept_location=0.3, intercept_scale=0.1, sigma_rate=10.0, group_shape=2.0, group_scale=1.0
)


def simulate(rng: np.random.Generator, n_systems: int, n_topics: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Parameters from :data:`PRIORS`, then scores from the model: the scores and the true system effects."""
    mu = rng.normal(PRIORS.intercept_location, PRIORS.intercept_scale)
    sigma = rng.exponential(1 / PRIORS.sigma_rate)
    sd_system, sd_topic = sigma * rng.gamma(PRIORS.group_shape, 1.0, 2) * PRIORS.group_scale
    b = rng.normal(0, sd_system, n_systems)
    c = rng.normal(0, sd_topic, n_topics)
    y = mu + b[:, None] + c[None, :] + rng.normal(0, sigma, (n_systems, n_topics))
    return pd.DataFrame(y), b


def calibrate(
    collections: int, n_systems: int, n_topics: int, draws: int, warmup: int, seed: int, bins: int = 10
) -> dict:
    rng = np.random.default_rng(seed)
    first, every, ranks, divergences = [], [], [], 0
    start = time.perf_counter()
    for i in range(collections):
        y, b = simulate(rng, n_systems, n_topics)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BayesDiagnosticWarning)
            result = fit(y, priors=PRIORS, chains=2, draws=draws, warmup=warmup, rng=seed + i, check=False)
        effects = result.system_effects(0.95)
        inside = (effects["low"].to_numpy() <= b) & (b <= effects["high"].to_numpy())
        first.append(inside[0])
        every.append(inside.mean())
        thinned = result.draws("b_system")[:: max(1, 2 * draws // (bins - 1)), 0][: bins - 1]
        ranks.append(int(np.sum(thinned < b[0])))
        divergences += result.divergences
    seconds = time.perf_counter() - start
    covered = int(np.sum(first))
    low, high = stats.binomtest(covered, collections).proportion_ci(0.99, method="exact")
    counts = np.bincount(ranks, minlength=bins)
    return {
        "collections": collections,
        "coverage_first": covered / collections,
        "mc_interval_99": (float(low), float(high)),
        "coverage_all": float(np.mean(every)),
        "rank_counts": counts.tolist(),
        "rank_chi2_p": float(stats.chisquare(counts).pvalue),
        "divergences": divergences,
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--collections", type=int, default=200)
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--draws", type=int, default=500, help="per chain (2 chains)")
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = calibrate(args.collections, args.systems, args.topics, args.draws, args.warmup, args.seed)
    low, high = result["mc_interval_99"]
    print(
        f"{result['collections']} collections of {args.systems} systems × {args.topics} topics, "
        f"2 chains × {args.draws} draws: coverage of the 95% interval of the first system's effect "
        f"{result['coverage_first']:.3f} (99% Monte Carlo interval {low:.3f}–{high:.3f}), of every "
        f"system's {result['coverage_all']:.3f}; rank counts {result['rank_counts']} (chi-square "
        f"p = {result['rank_chi2_p']:.3f}); {result['divergences']} divergences; "
        f"{result['seconds']:.1f} s"
    )


if __name__ == "__main__":
    main()
