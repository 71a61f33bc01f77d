"""Speed of the Bayesian crossed random-effects model (Benham, Carterette, Culpepper & Moffat,
SIGIR 2020): seconds, the smallest bulk effective sample size of the system and of the topic
effects, and effective samples per second, for

- each Benham collection (45 systems × 50 topics of AP) with the defaults of ``riskeval.bayes.posterior``
  (target: every system effect with bulk ESS ≥ 10,000 and R-hat < 1.01 within 60 s on two cores);
- 300 systems × 200 topics drawn from the model with AP-like values (target: the authors' checks
  within 5 minutes);
- the same model of a Benham collection in PyMC (``--pymc``; not a dependency of riskeval:
  ``pip install pymc``), beside NumPyro's.

Seconds include compiling the sampler (a fresh process compiles once per shape and setting).

    python benchmarks/bench_bayes.py [--collections rb04,trec17,trec18] [--large] [--pymc]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from data import data_dir

from riskeval.bayes import BayesDiagnosticWarning, Priors, fit

CHAINS, DRAWS, WARMUP = 4, 3_000, 1_000


def benham(name: str) -> pd.DataFrame:
    path = data_dir("benham2020-bayesian-risk", f"{name}_data.csv")
    return pd.read_csv(path).pivot(index="system", columns="topic", values="score")


def large(n_systems: int = 300, n_topics: int = 200, seed: int = 0) -> pd.DataFrame:
    """Scores from the model with AP-like parameters (intercept 0.25, system SD 0.08, topic SD
    0.15, residual SD 0.15, as fitted to the Benham collections), clipped to [0, 1] like AP."""
    rng = np.random.default_rng(seed)
    values = (
        0.25
        + rng.normal(0, 0.08, (n_systems, 1))
        + rng.normal(0, 0.15, (1, n_topics))
        + rng.normal(0, 0.15, (n_systems, n_topics))
    )
    return pd.DataFrame(
        np.clip(values, 0, 1),
        index=[f"s{i}" for i in range(n_systems)],
        columns=[f"t{j}" for j in range(n_topics)],
    )


def row(
    label: str, library: str, seconds: float, ess_system: float, ess_topic: float, rhat: float, problems: int
) -> dict:
    return {
        "data": label,
        "library": library,
        "seconds": round(seconds, 1),
        "min_ess_system": round(ess_system),
        "min_ess_topic": round(ess_topic),
        "ess_per_s": round(ess_system / seconds),
        "max_rhat": round(float(rhat), 4),
        "checks": "pass" if problems == 0 else f"{problems} failed",
    }


def numpyro_row(label: str, scores: pd.DataFrame) -> dict:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BayesDiagnosticWarning)
        result = fit(scores, chains=CHAINS, draws=DRAWS, warmup=WARMUP, rng=0)
    seconds = time.perf_counter() - start
    table = result.diagnostics()
    ess = table.groupby("group")["ess_bulk"].min()
    return row(
        label, "numpyro", seconds, ess["system"], ess["topic"], table["rhat"].max(), len(result.problems())
    )


def pymc_row(label: str, scores: pd.DataFrame) -> dict:
    """The model as rstanarm and the authors write it (centred effects), with the same priors, in
    PyMC's default NUTS sampler, its chains on the machine's cores."""
    try:
        import arviz as az
        import pymc as pm
    except ImportError as error:
        raise SystemExit(
            f"--pymc needs PyMC, which riskeval does not depend on: pip install pymc ({error})"
        ) from None
    y = scores.to_numpy(dtype=np.float64)
    p = Priors().resolve(y)
    n_systems, n_topics = y.shape
    start = time.perf_counter()
    with pm.Model():
        mu = pm.Normal("intercept", p["intercept_location"], p["intercept_scale"])
        sigma = pm.Exponential("sigma", p["sigma_rate"])
        tau = pm.Gamma("tau", p["group_shape"], 1.0, shape=2)
        b = pm.Normal("b_system", 0.0, sigma * tau[0] * p["group_scale"], shape=n_systems)
        c = pm.Normal("b_topic", 0.0, sigma * tau[1] * p["group_scale"], shape=n_topics)
        pm.Normal("y", mu + b[:, None] + c[None, :], sigma, observed=y)
        idata = pm.sample(
            draws=DRAWS,
            tune=WARMUP,
            chains=CHAINS,
            cores=min(CHAINS, os.cpu_count() or 1),
            target_accept=0.9,
            random_seed=0,
            progressbar=False,
            compute_convergence_checks=False,
        )
    seconds = time.perf_counter() - start
    ess = az.ess(idata, var_names=["b_system", "b_topic"], method="bulk")
    rhat = az.rhat(idata, var_names=["b_system", "b_topic"])
    worst = max(float(rhat["b_system"].max()), float(rhat["b_topic"].max()))
    system, topic = float(ess["b_system"].min()), float(ess["b_topic"].min())
    # the authors' checks on the effects (PyMC's draws give no divergence count here)
    failed = int(system <= 10_000) + int(topic <= 1_000) + int(worst >= 1.01)
    return row(label, "pymc", seconds, system, topic, worst, failed)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--collections", default="rb04,trec17,trec18", help="Benham collections ('' for none)"
    )
    parser.add_argument("--large", action="store_true", help="also 300 systems × 200 topics")
    parser.add_argument("--pymc", action="store_true", help="also PyMC on the first collection")
    args = parser.parse_args()
    rows = []
    names = [n for n in args.collections.split(",") if n]
    for name in names:
        rows.append(numpyro_row(name, benham(name)))
        print(rows[-1], flush=True)
    if args.large:
        rows.append(numpyro_row("300×200", large()))
        print(rows[-1], flush=True)
    if args.pymc and names:
        rows.append(pymc_row(names[0], benham(names[0])))
        print(rows[-1], flush=True)
    print(f"\n{CHAINS} chains × {DRAWS:,} draws after {WARMUP:,} warm-up iterations; load {os.getloadavg()}")
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
