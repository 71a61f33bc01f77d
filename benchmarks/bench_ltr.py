"""Training time of the risk-sensitive objectives relative to LightGBM's native ``lambdarank``.

Synthetic data (``riskeval.ltr.make_ranking``): 2,000 queries × 100 documents × 50 features;
100 trees, 31 leaves, 2 threads; α = 1 for the risk-sensitive objectives.  One booster per
objective is built on its own Dataset, then the boosters grow their trees *in turns*: tree t of
every booster (in a shuffled order) before tree t + 1, each ``Booster.update`` timed.  So every
objective meets the same machine load (the machine may be shared), and a ratio is the total time
of an objective's updates over the native booster's.  This is repeated and the median ratio
reported.  The custom objectives' updates include everything ``lightgbm.train`` does per iteration
for them (reading the scores, the objective, passing gradients back).  Targets: plain
≤ 1.05×, U-CRO/T-SARO/T-FARO/T*-FARO ≤ 1.10×, GeoRisk (3 baselines) ≤ 1.5×.

First, the numba kernels are compiled or loaded once; then a fresh Python process trains every
objective on a small set and reports how many kernel signatures it compiled (0: numba's on-disk
cache is used) and how long it took.  Exits with status 1 when a target is missed.

    python benchmarks/bench_ltr.py [--repeats 5] [--queries 2000] [--rounds 100]
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
    d = make_ranking(50, 20, 5, seed=3)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--objectives", default=",".join(TARGETS), help="comma-separated subset of the objectives to time"
    )
    args = parser.parse_args()
    load_before = os.getloadavg()[0]

    import lightgbm

    from riskeval.ltr import make_objective, make_ranking, train
    from riskeval.ltr.baselines import ranking_ndcg
    from riskeval.ltr.groups import default_gains, query_bounds

    data = make_ranking(args.queries, args.docs, args.features, seed=1)
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
        f"{args.queries} queries × {args.docs} documents × {args.features} features, "
        f"{args.rounds} trees, 31 leaves, {args.threads} threads, {args.repeats} repetitions"
    )
    print(f"{'objective':<11} {'median':>7} {'target':>7}   ratio per repetition")
    missed = 0
    for name, values in ratios.items():
        median = float(np.median(values))
        verdict = "ok" if median <= TARGETS[name] else "over"
        missed += verdict == "over"
        print(
            f"{name:<11} {median:>6.3f}x {TARGETS[name]:>6.2f}x   "
            f"{' '.join(f'{v:.3f}' for v in values)}   {verdict}"
        )
    print(f"{os.cpu_count()} CPUs; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
