"""Speed of the Bayesian models of ``riskeval.bayes``: the crossed random-effects model (Benham,
Carterette, Culpepper & Moffat, SIGIR 2020) and the gains-and-losses model of champion and
challengers.

By default, the crossed model's exact sampler (``riskeval.bayes.exact``, ``fit``'s default): CPU
seconds of a fresh process that imports riskeval, reads the scores and fits them (``cold``:
everything from the process's start, interpreter included, measured by the parent), of a second
fit in the same process (``warm``), the number of independent draws (every parameter's effective
sample size), the share of rejection proposals accepted and the process's peak memory, for

- each Benham collection (45 systems × 50 topics of AP, 16,000 draws; target: every system effect
  and every variance component at bulk ESS ≥ 10,000 within 2 CPU-s, process start included);
- 300 systems × 200 topics drawn from the model with AP-like values (16,000 draws; target 5 s);
- 1,000 systems × 10,000 topics (``--huge``; 10,400 draws; target 60 s).

With ``--model gainloss``, the gains-and-losses model instead (``champion_challengers``' default:
the first system, or ``Champion``, against every other, α = 0, 16,000 independent draws), the same
columns, and its warm CPU seconds as a ratio to scipy's paired t-test of every system against the
champion (``ttest_1samp`` of the differences along the topics, one batched call) in the same
process.

With ``--nuts``, NumPyro's No-U-Turn sampler (``sampler="nuts"``) on the same data, seconds
including its compilation, the smallest bulk ESS of the system and topic effects and R-hat; with
``--pymc``, the same model of a Benham collection in PyMC (not a dependency of riskeval: ``pip
install pymc``), beside NumPyro's.

    python benchmarks/bench_bayes.py [--collections rb04,trec17,trec18] [--large] [--huge]
        [--model crossed|gainloss] [--nuts] [--pymc]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from data import data_dir

from riskeval.bayes import BayesDiagnosticWarning, Priors, fit

CHAINS, DRAWS, WARMUP = 4, 3_000, 1_000
#: The exact sampler's draws (chains × draws): fit's default, and 10,400 for 1,000 × 10,000, just
#: above the 10,000 of the checks, to bound the memory (draws × (systems + topics) numbers).
EXACT_DRAWS = {"default": (4, 4_000), "huge": (4, 2_600)}

#: One fit, or two (``warm``), in a fresh process; prints what it measured as JSON.
CHILD = """
import json, sys, time
import numpy as np
import pandas as pd
from riskeval.bayes import champion_challengers, fit
source, chains, draws, warm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "warm"
model = sys.argv[5]
if source.endswith(".csv"):
    scores = pd.read_csv(source).pivot(index="system", columns="topic", values="score")
else:
    values = np.load(source)
    scores = pd.DataFrame(values, index=[f"s{i}" for i in range(values.shape[0])],
                          columns=[f"t{j}" for j in range(values.shape[1])])
champion = "Champion" if "Champion" in scores.index else scores.index[0]


def once(seed):
    if model == "crossed":
        return fit(scores, chains=chains, draws=draws, rng=seed, check=False)
    return champion_challengers(scores, champion, chains=chains, draws=draws, rng=seed, model=model).fits[0.0]


f = once(0)
seconds = reference = None
if warm:
    start = time.process_time()
    f = once(1)
    seconds = time.process_time() - start
    from scipy import stats
    start = time.process_time()
    d = scores.drop(champion).to_numpy() - scores.loc[champion].to_numpy()
    stats.ttest_1samp(d, 0.0, axis=1).confidence_interval(0.95)
    reference = time.process_time() - start
table = f.diagnostics()
# the process's own peak (VmHWM; ru_maxrss keeps the parent's peak across fork and exec on Linux)
lines = open("/proc/self/status").read().splitlines()
memory = next(float(line.split()[1]) / 1024 for line in lines if line.startswith("VmHWM:"))
print(json.dumps({"warm_cpu_s": seconds, "t_test_cpu_s": reference, "min_ess": float(table["ess_bulk"].min()),
                  "sampler": f.sampler, "problems": len(f.problems()), "max_rss_mb": memory}))
"""


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


def _child(source: Path, chains: int, draws: int, warm: bool, model: str) -> tuple[dict, float, float]:
    """Run :data:`CHILD`; its output, and its CPU seconds (user + system) and wall seconds, from
    the parent (the whole process, interpreter start included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(source),
            str(chains),
            str(draws),
            "warm" if warm else "cold",
            model,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out.stdout), cpu, wall


def exact_row(label: str, source: Path, chains: int, draws: int, model: str) -> dict:
    """An exact sampler in a fresh process (cold) and again in the same process (warm)."""
    cold, cpu, wall = _child(source, chains, draws, warm=False, model=model)
    warm, _, _ = _child(source, chains, draws, warm=True, model=model)
    ratio = (
        {} if model == "crossed" else {"warm_vs_t_test": round(warm["warm_cpu_s"] / warm["t_test_cpu_s"], 1)}
    )
    return {
        "data": label,
        "model": model,
        "sampler": cold["sampler"],
        "cold_cpu_s": round(cpu, 2),
        "cold_wall_s": round(wall, 2),
        "warm_cpu_s": round(warm["warm_cpu_s"], 2),
        "min_ess_every_parameter": round(cold["min_ess"]),
        "checks": "pass" if cold["problems"] == 0 else f"{cold['problems']} failed",
        "max_rss_mb": round(cold["max_rss_mb"]),
        **ratio,
    }


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
        result = fit(scores, chains=CHAINS, draws=DRAWS, warmup=WARMUP, rng=0, sampler="nuts")
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
    parser.add_argument("--huge", action="store_true", help="also 1,000 systems × 10,000 topics (exact only)")
    parser.add_argument(
        "--model", choices=["crossed", "gainloss"], default="crossed", help="the model of the exact rows"
    )
    parser.add_argument("--nuts", action="store_true", help="also NumPyro's NUTS on the same data")
    parser.add_argument("--pymc", action="store_true", help="also PyMC on the first collection")
    args = parser.parse_args()
    names = [n for n in args.collections.split(",") if n]
    exact_rows, nuts_rows = [], []
    with tempfile.TemporaryDirectory() as folder:
        sources = [
            (name, data_dir("benham2020-bayesian-risk", f"{name}_data.csv"), "default") for name in names
        ]
        for flag, label, shape, size in (
            (args.large, "300×200", (300, 200), "default"),
            (args.huge, "1000×10000", (1_000, 10_000), "huge"),
        ):
            if flag:
                path = Path(folder) / f"{label}.npy"
                np.save(path, large(*shape).to_numpy())
                sources.append((label, path, size))
        for label, path, size in sources:
            chains, draws = EXACT_DRAWS[size] if args.model == "crossed" else EXACT_DRAWS["default"]
            exact_rows.append(exact_row(label, path, chains, draws, args.model))
            print(exact_rows[-1], flush=True)
    if args.nuts:
        for name in names:
            nuts_rows.append(numpyro_row(name, benham(name)))
            print(nuts_rows[-1], flush=True)
        if args.large:
            nuts_rows.append(numpyro_row("300×200", large()))
            print(nuts_rows[-1], flush=True)
    if args.pymc and names:
        nuts_rows.append(pymc_row(names[0], benham(names[0])))
        print(nuts_rows[-1], flush=True)
    print(f"\nload {os.getloadavg()}")
    print("exact samplers (CPU seconds; cold: a fresh process, start to fit, interpreter included):")
    print(pd.DataFrame(exact_rows).to_string(index=False))
    if nuts_rows:
        print(f"\nNUTS: {CHAINS} chains × {DRAWS:,} draws after {WARMUP:,} warm-up iterations")
        print(pd.DataFrame(nuts_rows).to_string(index=False))


if __name__ == "__main__":
    main()
