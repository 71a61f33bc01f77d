"""Time the resampling procedures of riskeval.inference against numpy references, in the same run.

Workloads (``--shape``):

- ``beta``: 100 systems × 50 topics, scores Beta(2, 5) (nDCG-like), 10,000 resamples;
- ``ties``: 30 systems × 500 topics, scores on a 0.1 grid with 40 % zeros (many ties), 10,000 resamples;
- ``clef``: the CLEF eHealth 2015 runs (110 runs × 66 queries, P@10, from the official per-topic
  trec_eval outputs in the campaign data): campaign data of the target's size, 10,000 resamples;
- ``example``: the shipped TREC DL 2019 example (37 runs × 43 topics, nDCG@10), 10,000 resamples,
  measured without a target (smaller than the target's shapes).

The reference of each procedure computes the same statistics with the same kind of draws as
riskeval, nothing deliberately slow (``reference.py``: batched numpy, vectorised over resamples):

- permutation + max-T (α = 0, 1, …, 20): ``reference.permutation_maxt``, batched numpy: random
  signs for a batch of resamples, one matrix product with every (α, system) cell, the counts;
- bootstrap: ``reference.bootstrap_intervals``, batched numpy: topic indices for 1,000 resamples
  at a time turned into counts, URisk and TRisk at the four α by matrix products, the chi-square
  matrix of every resample of the batch for ZRisk and GeoRisk (``scipy.special.ndtr``),
  percentile intervals by ``np.quantile`` at the end;
- Tukey HSD: ``reference.tukey_hsd``, batched numpy: ``rng.permuted`` on a (batch, systems,
  topics) copy, the means, the pairs' differences and the ranges.

Each is timed ``--repeat`` times, alternating with riskeval's call.  Printed per procedure:
riskeval's median time, the reference's, the ratio of the medians (``speed-up``) and of the best times
(``best``), the load average (1 min) during the runs, and the peak memory of riskeval's call at
1,000, 10,000 and 100,000 resamples (tracemalloc; the bootstrap keeps its distributions, 8 bytes
per resample and reported cell).  Targets (``TARGETS``, on every shape but ``example``, best times
and medians both): the permutation + max-T table no slower than its reference, the bootstrap ≥ 3× and the
Tukey HSD ≥ 10× theirs.

The machine may be shared: the load says how much.  On a shared virtual machine a two-thread call
can also take 1.5× as long as in the run before, with both threads running all along (the host
then gives the two virtual CPUs less than two cores); the single-threaded reference hardly notices.  The
best of the runs is the time the code takes when it has the cores it asked for (the convention of
Python's ``timeit``: later runs are slower because of interference, not because of the code); the
median is what a run on this machine is likely to see.

    python benchmarks/bench_inference.py [--shape beta|ties|clef|example|all] [--repeat 7]

``--coverage`` instead runs the simulations that check the procedures' error rates and coverage
(too long for the test suite): the randomisation test's type I error and the max-T and Tukey HSD
family-wise error rates under complete nulls, and the coverage of 95 % percentile and BCa intervals
of URisk(1) for topics drawn from a known population.

    python benchmarks/bench_inference.py --coverage [--reps 400]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import pandas as pd
import reference
from data import clef2015_p10

import riskeval as rk

ALPHAS = np.array([0.0, 1.0, 5.0, 10.0])
#: The α grid of the permutation + max-T table: 0, 1, …, 20.
PERMUTATION_ALPHAS = np.arange(21.0)
#: Ratios to the batched-numpy reference to reach on every shape (medians and best times).
TARGETS = {"permutation + max-T": 1.0, "bootstrap (4 measures)": 3.0, "Tukey HSD": 10.0}
#: Shapes measured without a target: smaller than the target's (100 × 50, 30 × 500).
NO_TARGET = ("example",)
SHAPES = ("beta", "ties", "clef", "example")


def shape_data(name: str) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    if name == "beta":
        v = rng.beta(2, 5, size=(100, 50))
    elif name == "ties":
        v = np.round(rng.beta(2, 3, size=(30, 500)), 1) * (rng.uniform(size=(30, 500)) > 0.4)
    elif name == "clef":
        return clef2015_p10()
    else:
        return rk.example_scores()
    return pd.DataFrame(
        v, index=[f"s{i}" for i in range(v.shape[0])], columns=[f"t{j}" for j in range(v.shape[1])]
    )


# --- riskeval -----------------------------------------------------------------------------------


def ours(name: str, X: pd.DataFrame, n: int, seed: int) -> object:
    if name == "permutation + max-T":
        return rk.risk_permutation_table(X, "mean", PERMUTATION_ALPHAS, n_resamples=n, rng=seed)
    if name == "bootstrap (4 measures)":
        return rk.bootstrap_ci(
            X, "mean", ALPHAS, risk=["urisk", "trisk", "zrisk", "georisk"], n_resamples=n, rng=seed
        )
    if name == "Tukey HSD":
        return rk.tukey_hsd(X, n_resamples=n, rng=seed)
    raise ValueError(name)


LOOPS: dict[str, Callable[[pd.DataFrame, int, int], object]] = {
    "permutation + max-T": lambda X, n, seed: reference.permutation_maxt(
        X.to_numpy(), PERMUTATION_ALPHAS, n, seed
    ),
    "bootstrap (4 measures)": lambda X, n, seed: reference.bootstrap_intervals(
        X.to_numpy(), X.to_numpy().mean(axis=0), ALPHAS, n, seed
    ),
    "Tukey HSD": lambda X, n, seed: reference.tukey_hsd(X.to_numpy(), n, seed),
}


def timed(f: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def peak_mib(f: Callable[[], object]) -> float:
    tracemalloc.start()
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def bench(
    shape: str, n: int, repeat: int, procedures: tuple[str, ...] = tuple(LOOPS)
) -> list[dict[str, object]]:
    X = shape_data(shape)
    rows = []
    for name, loop in LOOPS.items():
        if name not in procedures:
            continue
        ours(name, X, n, 1)  # compile (numba caches on disk) and warm up
        t_ours, t_loop, loads = [], [], []
        for k in range(repeat):
            t_ours.append(timed(lambda name=name, k=k: ours(name, X, n, k)))
            t_loop.append(timed(lambda loop=loop, k=k: loop(X, n, k)))
            loads.append(os.getloadavg()[0])
        med_ours, med_loop = float(np.median(t_ours)), float(np.median(t_loop))
        rows.append(
            {
                "shape": f"{shape} {X.shape[0]}×{X.shape[1]}",
                "procedure": name,
                "resamples": n,
                "riskeval_s": round(med_ours, 3),
                "reference_s": round(med_loop, 3),
                "speed-up": round(med_loop / med_ours, 1),
                "best": round(min(t_loop) / min(t_ours), 1),
                "load": f"{min(loads):.1f}–{max(loads):.1f}",
                "peak_MiB_1k": round(peak_mib(lambda name=name: ours(name, X, 1000, 1)), 1),
                "peak_MiB_10k": round(peak_mib(lambda name=name: ours(name, X, 10_000, 1)), 1),
                "peak_MiB_100k": round(peak_mib(lambda name=name: ours(name, X, 100_000, 1)), 1),
            }
        )
    return rows


def coverage(reps: int, seed: int = 0) -> pd.DataFrame:
    """Error rates and coverage over ``reps`` simulated test collections (level 0.05)."""
    rng = np.random.default_rng(seed)
    alpha, r, c, n = 5.0, 8, 30, 999
    rows = []
    # 1. H0 at α = 5: x_j symmetric about 0 (δ = x for x ≥ 0, x/(1+α) below): per-cell type I error
    #    of the randomisation test, and the max-T family-wise error over the 8 systems.
    cell, fwer = [], []
    for k in range(reps):
        x = rng.normal(0, 0.1, size=(r, c))
        delta = np.where(x >= 0, x, x / (1 + alpha))
        base = rng.uniform(0.2, 0.6, c)
        X = pd.DataFrame(base + delta, index=[f"s{i}" for i in range(r)])
        t = rk.risk_permutation_table(X, base, [alpha], n_resamples=n, rng=k)
        cell.append((t["pvalue"] < 0.05).mean())
        fwer.append((t["pvalue_maxt"] < 0.05).any())
    rows += [
        {
            "check": "randomisation test, type I error per cell (α = 5)",
            "target": 0.05,
            "observed": np.mean(cell),
        },
        {"check": "max-T, family-wise error over 8 systems", "target": 0.05, "observed": np.mean(fwer)},
    ]
    # 2. Complete null for Tukey HSD: 6 exchangeable systems (i.i.d. within each topic).
    hsd = []
    for k in range(reps):
        X = pd.DataFrame(rng.beta(2, 5, size=(6, c)), index=[f"s{i}" for i in range(6)])
        hsd.append((rk.tukey_hsd(X, n_resamples=n, rng=k).table["pvalue_hsd"] < 0.05).any())
    rows.append(
        {"check": "Tukey HSD, family-wise error over 15 pairs", "target": 0.05, "observed": np.mean(hsd)}
    )
    # 3. Coverage of URisk(1): δ ~ N(0.02, 0.1), true URisk(1) = E[x] from a large sample; the same
    #    collections for every interval, Student's t interval of TRisk for comparison.
    big = rng.normal(0.02, 0.1, 2_000_000)
    truth = float(np.where(big >= 0, big, 2 * big).mean())
    hits: dict[str, list[bool]] = {"percentile": [], "bca": [], "t": []}
    for k in range(reps):
        d = rng.normal(0.02, 0.1, c)
        X = pd.DataFrame([0.5 + d], index=["s"])
        for method in ("percentile", "bca"):
            ci = rk.bootstrap_ci(X, np.full(c, 0.5), [1.0], risk="urisk", method=method, n_resamples=n, rng=k)
            hits[method].append(bool(ci["low"].iloc[0] <= truth <= ci["high"].iloc[0]))
        low, high = rk.trisk(0.5 + d, np.full(c, 0.5), 1.0).confidence_interval(0.95)
        hits["t"].append(low <= truth <= high)
    for method, hit in hits.items():
        name = "Student t (TRisk)" if method == "t" else method
        rows.append(
            {
                "check": f"coverage of the 95 % {name} interval of URisk(1), c = {c}",
                "target": 0.95,
                "observed": np.mean(hit),
            }
        )
    out = pd.DataFrame(rows)
    out["reps"] = reps
    out["mc_se"] = np.sqrt(out["target"] * (1 - out["target"]) / reps)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=(*SHAPES, "all"), default="all")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each")
    parser.add_argument("--procedure", choices=tuple(LOOPS), action="append", help="only these (repeatable)")
    parser.add_argument("--coverage", action="store_true", help="run the error-rate and coverage simulations")
    parser.add_argument("--reps", type=int, default=400, help="simulated collections per --coverage check")
    args = parser.parse_args()
    if args.coverage:
        print(coverage(args.reps).to_string(index=False))
        return 0
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; load {os.getloadavg()}")
    shapes = SHAPES if args.shape == "all" else (args.shape,)
    procedures = tuple(args.procedure or LOOPS)
    rows = [row for s in shapes for row in bench(s, args.resamples, args.repeat, procedures)]
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    print(f"load {os.getloadavg()}")
    ok = pd.Series(True, index=table.index)
    for procedure, target in TARGETS.items():
        rows = table["procedure"] == procedure
        ok[rows] = (table.loc[rows, "speed-up"] >= target) & (table.loc[rows, "best"] >= target)
    ok[table["shape"].str.startswith(NO_TARGET)] = True  # measured, no target
    for _, row in table[~ok].iterrows():
        print(
            f"target missed on {row['shape']}: {row['procedure']} (medians {row['speed-up']}×, "
            f"best times {row['best']}×, {row['riskeval_s']} s)"
        )
    return 0 if ok.all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
