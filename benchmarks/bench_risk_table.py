"""Benchmark of ``risk_table``.

For a 1,000 systems × 10,000 topics matrix, ``risk_table`` with the MEAN baseline and 21 α values
must cost at most 25× one ``numpy.sum`` pass over the same matrix and at least 50× less than a
straightforward per-system, per-α Python loop over the same formulas (written below as the
reference), with peak extra memory at most 8 copies of the matrix.  Everything is measured in this
one run; the script prints the ratios and exits non-zero if a target is missed.

    python benchmarks/bench_risk_table.py [--systems 1000] [--topics 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import ndtr

import riskeval as rk


def reference_loop(X: np.ndarray, alphas: np.ndarray, n_systems: int) -> list[tuple]:
    """Straightforward per-system, per-α evaluation of the same measures (URisk, TRisk, ZRisk,
    GeoRisk), for the first ``n_systems`` systems of ``X`` (baseline and chi-square totals over all
    of ``X``)."""
    c = X.shape[1]
    b = X.mean(axis=0)
    S, T = X.sum(axis=1), X.sum(axis=0)
    N = S.sum()
    rows = []
    for i in range(n_systems):
        s = X[i]
        d = s - b
        e = S[i] * T / N
        z = np.where(e > 0, (s - e) / np.sqrt(np.where(e > 0, e, 1)), 0.0)
        for a in alphas:
            x = np.where(d >= 0, d, (1 + a) * d)
            u = x.mean()
            se = x.std(ddof=1) / np.sqrt(c)
            t = u / se
            p = 2 * stats.t.sf(abs(t), c - 1)
            zr = z[z > 0].sum() + (1 + a) * z[z < 0].sum()
            geo = np.sqrt(S[i] / c * ndtr(zr / c))
            frisk, freward = -d[d < 0].sum() / c, d[d > 0].sum() / c
            wins, losses = int((d > 0).sum()), int((d < 0).sum())
            loss20 = int(((b > 0) & ((b - s) / np.where(b > 0, b, 1) > 0.2)).sum())
            rows.append((i, a, u, se, t, p, zr, geo, frisk, freward, wins, losses, loss20))
    return rows


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(fns, repeat: int) -> list[float]:
    """Median time of each function, the functions run in turn in every round so that a load
    change on a shared machine affects them alike."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            times[k].append(timed(fn))
    return [statistics.median(t) for t in times]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=1000)
    ap.add_argument("--topics", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument(
        "--loop-systems",
        type=int,
        default=50,
        help="systems timed in the reference loop (its cost is linear in systems)",
    )
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    values = rng.beta(2, 5, size=(args.systems, args.topics))
    X = pd.DataFrame(
        values, index=[f"s{i}" for i in range(args.systems)], columns=[f"t{j}" for j in range(args.topics)]
    )
    alphas = np.linspace(0, 20, 21)
    rk.risk_table(X.iloc[:3, :50], alphas=alphas)  # compile the kernels (cached on disk)

    t_sum, t_table = interleaved(
        [lambda: values.sum(), lambda: rk.risk_table(X, baseline="mean", alphas=alphas)],
        args.repeat,
    )
    t_loop_sub = timed(lambda: reference_loop(values, alphas, args.loop_systems))
    t_loop = t_loop_sub * args.systems / args.loop_systems

    # equality of the two routes on the timed subset (same matrix, same MEAN baseline)
    table = rk.risk_table(X, baseline="mean", alphas=alphas)
    ref = np.array(reference_loop(values, alphas, 5))
    got = table.iloc[: 5 * alphas.size][
        ["urisk", "se", "trisk", "pvalue", "zrisk", "georisk", "frisk", "freward", "wins", "losses", "loss20"]
    ]
    np.testing.assert_allclose(got.to_numpy(dtype=float), ref[:, 2:], rtol=1e-8, atol=1e-12)

    tracemalloc.start()
    rk.risk_table(X, baseline="mean", alphas=alphas)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    copies = peak / values.nbytes

    vs_sum = t_table / t_sum
    vs_loop = t_loop / t_table
    print(
        f"matrix {args.systems} x {args.topics}, 21 alphas, MEAN baseline, "
        f"median of {args.repeat} interleaved rounds"
    )
    print(f"numpy.sum pass        {t_sum * 1e3:9.2f} ms")
    print(f"risk_table            {t_table * 1e3:9.2f} ms   = {vs_sum:6.1f} x numpy.sum   (target <= 25)")
    print(
        f"reference Python loop {t_loop:9.2f} s  (timed on {args.loop_systems} systems, scaled)"
        f"   risk_table is {vs_loop:7.0f} x faster (target >= 50)"
    )
    print(f"peak extra memory     {peak / 2**20:9.1f} MiB = {copies:4.2f} matrix copies (target <= 8)")
    ok = vs_sum <= 25 and vs_loop >= 50 and copies <= 8
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
