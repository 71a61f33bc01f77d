"""Training time (and memory) of the risk-sensitive objectives relative to LightGBM's ``lambdarank``.

Synthetic data (``riskeval.ltr.make_ranking``): 2,000 queries × 100 documents × 50 features;
100 trees, 31 leaves, 2 threads; α = 1 for the risk-sensitive objectives.  ``--shape mslr``:
MSLR-Web10K's shape instead, 10,000 queries × 120 documents × 136 features with MSLR's label
distribution (0: 52 %, 1: 32 %, 2: 13 %, 3: 2 %, 4: 1 %); its targets are plain and
U-CRO/T-SARO/T-FARO/T*-FARO ≤ 1.10×, GeoRisk ≤ 1.5×.  One booster per
objective is built on its own Dataset, then the boosters grow their trees *in turns*: tree t of
every booster (in a shuffled order) before tree t + 1, each ``Booster.update`` timed.  So every
objective meets the same machine load (the machine may be shared), and a ratio is the total time
of an objective's updates over the native booster's.  This is repeated and the median ratio
reported.  The custom objectives' updates include everything ``lightgbm.train`` does per iteration
for them (reading the scores, the objective, passing gradients back).  Targets: plain
≤ 1.05×, U-CRO/T-SARO/T-FARO/T*-FARO ≤ 1.10×, GeoRisk (3 baselines) ≤ 1.5×.

First, the numba kernels are compiled or loaded once; then a fresh Python process trains every
objective on a small set and reports how many kernel signatures it compiled (0: numba's on-disk
cache is used) and how long it took.  ``--memory N``: each objective, and the native objective,
grows N trees in a process of its own, and its peak resident memory is compared with the native
one's (target ≤ 1.3×).  Exits with status 1 when a target is missed.

    python benchmarks/bench_ltr.py [--shape default|mslr] [--repeats 5] [--rounds 100] [--memory 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

MSLR_SHARES = (0.52, 0.32, 0.13, 0.02, 0.01)
MEMORY_TARGET = 1.3
TARGETS = {
    "lambdarank": 1.05,
    "ucro": 1.10,
    "tsaro": 1.10,
    "tfaro": 1.10,
    "tstar_faro": 1.10,
    "georisk": 1.50,
}

FRESH_PROCESS = textwrap.dedent(
    """
    import json, time
    t0 = time.perf_counter()
    import numpy as np
    from riskeval.ltr import kernels, make_ranking, train
    from riskeval.ltr.baselines import ranking_ndcg
    from riskeval.ltr.groups import default_gains, query_bounds
    d = make_ranking(50, 20, 5, rng=3)
    bounds = query_bounds(d.group, n_docs=d.y.shape[0])
    B = np.vstack([ranking_ndcg(d.X[:, j], d.y, bounds, 10, default_gains()) for j in range(3)])
    params = {"num_leaves": 7, "verbose": -1, "num_threads": 2}
    for objective, baseline in [("lambdarank", None), ("ucro", 0), ("tsaro", 0), ("tfaro", 0),
                                ("tstar_faro", B), ("georisk", B)]:
        train(params, d.X, d.y, d.group, objective=objective, alpha=1.0, baseline=baseline,
              num_boost_round=2)
    compiled = sum(sum(f.stats.cache_misses.values()) for f in vars(kernels).values()
                   if hasattr(f, "stats"))
    print(json.dumps({"compiled": compiled, "seconds": time.perf_counter() - t0}))
    """
)


def fresh_process_check() -> dict:
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


MEMORY_PROCESS = textwrap.dedent(
    """
    import gc, json, sys
    import numpy as np
    import lightgbm
    from riskeval.ltr import make_objective, make_ranking
    from riskeval.ltr.baselines import ranking_ndcg
    from riskeval.ltr.groups import default_gains, query_bounds
    name, queries, docs, features, shares, rounds, threads = json.loads(sys.argv[1])
    d = make_ranking(queries, docs, features, label_shares=shares, rng=1)
    params = {"num_leaves": 31, "learning_rate": 0.1, "verbose": -1, "num_threads": threads}
    dataset = lightgbm.Dataset(d.X, label=d.y, group=d.group, params={"verbose": -1})
    if name == "native":
        booster = lightgbm.Booster({**params, "objective": "lambdarank"}, dataset)
        fobj = None
    else:
        bounds = query_bounds(d.group, n_docs=d.y.shape[0])
        systems = np.vstack([ranking_ndcg(d.X[:, j], d.y, bounds, 10, default_gains()) for j in range(3)])
        baseline = {"lambdarank": None, "tstar_faro": systems, "georisk": systems}.get(name, 0)
        fobj = make_objective(params, d.X, d.y, d.group, objective=name,
                              alpha=0.0 if name == "lambdarank" else 1.0, baseline=baseline)
        booster = lightgbm.Booster({**params, "objective": "none"}, dataset)
    del d, dataset
    gc.collect()

    def status(field):
        with open("/proc/self/status") as handle:
            return next(int(line.split()[1]) / 1024 for line in handle if line.startswith(field))

    with open("/proc/self/clear_refs", "w") as handle:  # reset the peak (VmHWM) to the current RSS
        handle.write("5")
    before = status("VmRSS:")
    for _ in range(rounds):
        booster.update(fobj=fobj)
    print(json.dumps({"peak_mb": status("VmHWM:"), "before_mb": before}))
    """
)


def peak_memory(name: str, args: argparse.Namespace) -> dict:
    """Resident memory (MB) of a process that builds the set, drops the raw features and grows
    ``--memory`` trees: before the first tree and at its peak while growing them (Linux's VmHWM,
    reset after the set is built, so that drawing the synthetic data does not hide training)."""
    spec = [name, args.queries, args.docs, args.features, args.shares, args.memory, args.threads]
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_PROCESS, json.dumps(spec)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=("default", "mslr"), default="default")
    parser.add_argument("--repeats", type=int, default=None, help="default 5 (1 for --shape mslr)")
    parser.add_argument("--queries", type=int, default=None)
    parser.add_argument("--docs", type=int, default=None)
    parser.add_argument("--features", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--memory", type=int, default=0, help="trees per process of the memory check")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--objectives", default=",".join(TARGETS), help="comma-separated subset of the objectives to time"
    )
    args = parser.parse_args()
    mslr = args.shape == "mslr"
    shape = (10000, 120, 136) if mslr else (2000, 100, 50)
    args.queries = args.queries or shape[0]
    args.docs = args.docs or shape[1]
    args.features = args.features or shape[2]
    args.repeats = (1 if mslr else 5) if args.repeats is None else args.repeats  # 0: memory only
    args.shares = list(MSLR_SHARES) if mslr else None
    targets = {**TARGETS, "lambdarank": 1.10} if mslr else TARGETS
    load_before = os.getloadavg()[0]

    import lightgbm

    from riskeval.ltr import make_objective, make_ranking, train
    from riskeval.ltr.baselines import ranking_ndcg
    from riskeval.ltr.groups import default_gains, query_bounds

    data = make_ranking(args.queries, args.docs, args.features, label_shares=args.shares, rng=1)
    X, y, group = data.X, data.y, data.group
    bounds = query_bounds(group, n_docs=y.shape[0])
    # three baseline systems for T*-FARO and GeoRisk: the rankings by features 0, 1, 2
    systems = np.vstack([ranking_ndcg(X[:, j], y, bounds, 10, default_gains()) for j in range(3)])
    params = {"num_leaves": 31, "learning_rate": 0.1, "verbose": -1, "num_threads": args.threads}
    baselines = {
        "lambdarank": None,
        "ucro": 0,
        "tsaro": 0,
        "tfaro": 0,
        "tstar_faro": systems,
        "georisk": systems,
    }
    chosen = args.objectives.split(",")
    unknown = sorted(set(chosen) - set(TARGETS))
    if unknown:
        parser.error(f"unknown objective(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    baselines = {name: baselines[name] for name in chosen}

    # warm-up: compile or load every kernel signature once (on the first 20 queries)
    n_small = int(group[:20].sum())
    for name, baseline in baselines.items():
        small = baseline[:, :20] if isinstance(baseline, np.ndarray) else baseline
        train(
            params,
            X[:n_small],
            y[:n_small],
            group[:20],
            objective=name,
            alpha=1.0,
            baseline=small,
            num_boost_round=1,
        )
    fresh = fresh_process_check()
    print(
        f"fresh process: {fresh['compiled']} kernel signature(s) compiled; imports and six "
        f"2-tree trainings took {fresh['seconds']:.1f} s"
    )

    def boosters():
        out = {
            "native": (
                lightgbm.Booster(
                    {**params, "objective": "lambdarank"}, lightgbm.Dataset(X, label=y, group=group)
                ),
                None,
            )
        }
        for name, baseline in baselines.items():
            fobj = make_objective(
                params,
                X,
                y,
                group,
                objective=name,
                alpha=0.0 if name == "lambdarank" else 1.0,
                baseline=baseline,
            )
            booster = lightgbm.Booster(
                {**params, "objective": "none"}, lightgbm.Dataset(X, label=y, group=group)
            )
            out[name] = (booster, fobj)
        return out

    rng = np.random.default_rng(0)
    ratios = {name: [] for name in baselines}
    for rep in range(args.repeats):
        models = boosters()
        seconds = dict.fromkeys(models, 0.0)
        for _ in range(args.rounds):
            for name in rng.permutation(list(models)):
                booster, fobj = models[name]
                start = time.perf_counter()
                booster.update(fobj=fobj)
                seconds[name] += time.perf_counter() - start
        for name in baselines:
            ratios[name].append(seconds[name] / seconds["native"])
        print(
            f"repetition {rep + 1}/{args.repeats}: native {seconds['native']:.2f} s for {args.rounds} trees",
            file=sys.stderr,
        )
    print(
        f"{args.queries} queries × {args.docs} documents × {args.features} features"
        f"{' (MSLR-Web10K label shares)' if mslr else ''}, "
        f"{args.rounds} trees, 31 leaves, {args.threads} threads, {args.repeats} repetitions"
    )
    print(f"{'objective':<11} {'median':>7} {'target':>7}   ratio per repetition")
    missed = 0
    for name, values in ratios.items() if args.repeats else ():
        median = float(np.median(values))
        verdict = "ok" if median <= targets[name] else "over"
        missed += verdict == "over"
        print(
            f"{name:<11} {median:>6.3f}x {targets[name]:>6.2f}x   "
            f"{' '.join(f'{v:.3f}' for v in values)}   {verdict}"
        )
    if args.memory:
        models = None  # the timed boosters' memory goes back before the memory check
        native = peak_memory("native", args)
        print(
            f"peak memory while growing {args.memory} trees: native lambdarank {native['peak_mb']:.0f} MB "
            f"({native['before_mb']:.0f} MB before the first tree)"
        )
        for name in baselines:
            used = peak_memory(name, args)
            ratio = used["peak_mb"] / native["peak_mb"]
            verdict = "ok" if ratio <= MEMORY_TARGET else "over"
            missed += verdict == "over"
            print(
                f"{name:<11} {used['peak_mb']:>7.0f} MB {ratio:>6.3f}x (target {MEMORY_TARGET}x; "
                f"{used['before_mb']:.0f} MB before the first tree)   {verdict}"
            )
    print(f"{os.cpu_count()} CPUs; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
