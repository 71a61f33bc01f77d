"""Wall time of the risk-sensitive objectives relative to LightGBM's native ``lambdarank``.

Synthetic data (``riskeval.ltr.make_ranking``): 2,000 queries × 100 documents × 50 features;
100 trees, 31 leaves, 2 threads.  Every run starts from the raw arrays (Dataset construction
included, for the native model too).  Runs are interleaved and repeated; each repetition gives one
ratio per objective against the native run of the same repetition, and the median ratio is
reported (the machine may be shared).  Targets (issue 5): plain ≤ 1.05×, U-CRO/T-SARO/T-FARO/
T*-FARO ≤ 1.10×, GeoRisk (3 baselines) ≤ 1.5×.

Before timing, the numba kernels are compiled (or loaded from the cache) once; then a fresh Python
process trains every objective and reports how many kernel signatures it had to compile (0 when the
on-disk cache is used) and its first-call time.

    python benchmarks/bench_ltr.py [--repeats 5] [--queries 2000] [--rounds 100]
"""

from __future__ import annotations

import argparse
import json
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
    from riskeval.ltr import make_ranking, train
    from riskeval.ltr import kernels
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
    misses = sum(sum(getattr(kernels, name).stats.cache_misses.values())
                 for name in dir(kernels) if hasattr(getattr(kernels, name), "stats"))
    print(json.dumps({"compiled": misses, "seconds": time.perf_counter() - t0}))
    """
)


def fresh_process_check() -> dict:
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import lightgbm

    from riskeval.ltr import make_ranking, train
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

    def run(name: str) -> float:
        start = time.perf_counter()
        if name == "native":
            lightgbm.train(
                {**params, "objective": "lambdarank"},
                lightgbm.Dataset(X, label=y, group=group),
                num_boost_round=args.rounds,
            )
        else:
            alpha = 0.0 if name == "lambdarank" else 1.0
            train(
                params,
                X,
                y,
                group,
                objective=name,
                alpha=alpha,
                baseline=baselines[name],
                num_boost_round=args.rounds,
            )
        return time.perf_counter() - start

    # warm-up: compile or load every kernel signature once (on the first 20 queries)
    small = {name: b[:, :20] if isinstance(b, np.ndarray) else b for name, b in baselines.items()}
    n_small = int(group[:20].sum())
    for name, baseline in small.items():
        train(
            params,
            X[:n_small],
            y[:n_small],
            group[:20],
            objective=name,
            alpha=1.0,
            baseline=baseline,
            num_boost_round=1,
        )
    fresh = fresh_process_check()
    print(
        f"fresh process: {fresh['compiled']} kernel signature(s) compiled, "
        f"{fresh['seconds']:.1f} s for imports + 6 small trainings"
    )

    names = ["native", *baselines]
    times = {name: [] for name in names}
    rng = np.random.default_rng(0)
    for rep in range(args.repeats):
        for name in rng.permutation(names):
            times[str(name)].append(run(str(name)))
        print(f"repetition {rep + 1}/{args.repeats}: native {times['native'][-1]:.2f} s", file=sys.stderr)
    native = np.asarray(times["native"])
    print(
        f"{args.queries} queries × {args.docs} docs × {args.features} features, {args.rounds} "
        f"trees, 31 leaves, {args.threads} threads; {args.repeats} repetitions"
    )
    print(f"{'objective':<12} {'median ratio':>12} {'target':>7}  ratios per repetition")
    for name in baselines:
        ratios = np.asarray(times[name]) / native
        ok = "ok" if np.median(ratios) <= TARGETS[name] else "OVER"
        print(
            f"{name:<12} {np.median(ratios):>12.3f} {TARGETS[name]:>6.2f}x  "
            f"{' '.join(f'{r:.3f}' for r in ratios)}  {ok}"
        )


if __name__ == "__main__":
    main()
