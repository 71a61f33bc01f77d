"""Benchmark: the default worker count of evaluation on a machine busy with other work.

Evaluates the 37 official TREC DL 2019 passage runs (nDCG@10, AP(rel=2), RR(rel=2)@10) with
``riskeval.evaluate_runs_long`` while ``--busy`` other processes spin on the CPUs (default: one per
CPU, so the machine's load is about its CPU count before riskeval starts), alternating the default
(``n_jobs=None``: worker processes for the CPUs other work leaves idle) with one process
(``n_jobs=1``), ``--repeat`` times each, and prints the worker count the default chose, the median
and the spread of both.  Then the same without the busy processes.

Target (exit status 1 when missed): on the busy machine the default's median is at most 1.1× the
one-process median (the default never loses to one process); on the idle machine it is faster.

Run from the repository root:  python benchmarks/bench_evaluate_busy.py [--busy N] [--repeat 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

from data import data_dir

MEASURES = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10"]
TARGET = 1.1


def default_data() -> Path:
    return data_dir("trec-dl-2019-passage")


def spin(stop) -> None:  # type: ignore[no-untyped-def]
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def measure(qrels: Path, runs: list[Path], repeat: int) -> tuple[list[float], list[float], int]:
    from riskeval.effectiveness import _workers, evaluate_runs_long

    chosen = _workers(None, [str(p) for p in runs])
    default, single = [], []
    for _ in range(repeat):
        for n_jobs, times in ((None, default), (1, single)):
            start = time.perf_counter()
            evaluate_runs_long(qrels, runs, MEASURES, n_jobs=n_jobs, progress=False)
            times.append(time.perf_counter() - start)
    return default, single, chosen


def show(label: str, default: list[float], single: list[float], chosen: int) -> float:
    ratio = statistics.median(default) / statistics.median(single)
    print(
        f"{label}: default chose {chosen} worker process(es): median {statistics.median(default):.2f} s "
        f"(min {min(default):.2f}, max {max(default):.2f}); one process: median "
        f"{statistics.median(single):.2f} s (min {min(single):.2f}, max {max(single):.2f}); "
        f"default / one process: {ratio:.2f}"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="folder with qrels and runs/")
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 1, help="spinning processes")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data = args.data or default_data()
    qrels = data / "qrels.dl19-passage.txt"
    runs = sorted((data / "runs").glob("input.*.gz"))
    import riskeval.effectiveness as effectiveness

    effectiveness.evaluate_runs_long(qrels, runs[:2], MEASURES, n_jobs=1)  # imports, kernels, page cache
    for path in runs:
        path.read_bytes()
    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=spin, args=(stop,)) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    time.sleep(3)  # the spinners are running
    print(f"{args.busy} spinning process(es); load: {load()}")
    busy = show("busy machine", *measure(qrels, runs, args.repeat))
    stop.set()
    for p in spinners:
        p.join()
    time.sleep(3)
    print(f"spinners stopped; load: {load()}")
    idle = show("idle machine", *measure(qrels, runs, args.repeat))
    ok = busy <= TARGET and idle < 1.0
    print(f"targets: busy ratio <= {TARGET} and idle ratio < 1: {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
