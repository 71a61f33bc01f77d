"""Benchmark of the HTML report (riskeval.report): build time and file size against the targets.

Three inputs, each timed in this run beside a named reference:

- the 59 runs of TREC DL 2020 (passage, nDCG@10) from runs and qrels (``../shared/data``): the whole
  build (evaluation included) against the evaluation alone (``evaluate_runs``); target ≤ 20 s;
- a synthetic 300 systems × 200 topics matrix: target ≤ 5 MB;
- a synthetic 5,000 × 10,000 matrix (summarised: top/bottom systems, sections that would not be
  readable left out, saying so): target ≤ 180 s, with its cell rate against one ``numpy.sum`` pass.

Prints the load average; exits 1 when a target is missed.

    python benchmarks/bench_report.py [--large-systems 5000] [--large-topics 10000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import riskeval as rk

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2020-passage"


def synthetic(r: int, c: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scores = rng.beta(2, 3, (r, c)) * rng.uniform(0.3, 1.0, (r, 1))  # systems of unequal strength
    return pd.DataFrame(
        scores, index=[f"system-{i:04d}" for i in range(r)], columns=[str(100000 + j) for j in range(c)]
    )


def build(X, out: Path, **kwargs) -> tuple[float, float]:
    t = time.perf_counter()
    rk.report(X, path=out, **kwargs)
    return time.perf_counter() - t, out.stat().st_size / 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--large-systems", type=int, default=5000)
    ap.add_argument("--large-topics", type=int, default=10000)
    args = ap.parse_args()
    # the DL 2020 runs hold unjudged topics; evaluate_runs says so once per call
    warnings.filterwarnings("ignore", category=rk.RiskevalWarning)
    print(f"load average before: {os.getloadavg()}")
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        build(synthetic(5, 10), out)  # imports and compiled kernels, as a user's second report

        if DATA.exists():
            runs = sorted((DATA / "runs-top100").glob("*.gz"))
            qrels = DATA / "qrels.dl20-passage.txt"
            t = time.perf_counter()
            rk.evaluate_runs(qrels, runs, measure="nDCG@10")
            evaluation = time.perf_counter() - t
            t = time.perf_counter()
            M = rk.evaluate_runs(qrels, runs, measure="nDCG@10")
            _, size = build(
                M, out, baseline="p_bm25", measure="nDCG@10", inputs=[str(qrels), *map(str, runs)]
            )
            took = time.perf_counter() - t
            print(
                f"TREC DL 2020, {len(runs)} runs from runs+qrels: {took:6.2f} s, {size:5.2f} MB "
                f"(evaluation alone {evaluation:5.2f} s: whole build = {took / evaluation:4.2f} x "
                "evaluation); "
                "target <= 20 s"
            )
            if took > 20:
                missed.append("DL 2020 build time")
        else:
            print(f"TREC DL 2020 not found at {DATA}: left out")

        took, size = build(synthetic(300, 200), out)
        print(f"synthetic 300 x 200: {took:6.2f} s, {size:5.2f} MB; target <= 5 MB")
        if size > 5:
            missed.append("300 x 200 size")

        X = synthetic(args.large_systems, args.large_topics, 1)
        V = X.to_numpy()
        t = time.perf_counter()
        V.sum()
        numpy_pass = time.perf_counter() - t
        took, size = build(X, out)
        print(
            f"synthetic {args.large_systems} x {args.large_topics}: {took:6.2f} s, {size:5.2f} MB, "
            f"{V.size / took:.3g} cells/s ({took / numpy_pass:.0f} x one numpy.sum pass of "
            f"{numpy_pass * 1e3:.1f} ms); target <= 180 s"
        )
        if took > 180:
            missed.append("large build time")
    print(f"load average after: {os.getloadavg()}")
    if missed:
        print("MISSED: " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
