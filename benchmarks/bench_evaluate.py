"""Benchmark: evaluation of runs (run files + qrels -> per-topic scores) in one process.

Two shapes:

- ``dl19``: the 37 official TREC DL 2019 passage runs (6.6 M lines, 43 of 200 topics judged);
- ``synthetic``: ``--runs`` generated gzipped runs of ``--topics`` topics x ``--docs`` documents,
  every other topic judged (10 documents each, grades 0-3).

For each shape, ``--repeat`` rounds, each timing in turn:

- ``riskeval.io.evaluate_runs_long(qrels, runs, MEASURES, n_jobs=1)``, its long table (turned into a
  dictionary for the comparison after the clock stops);
- the reference ``reference.ir_measures_per_topic`` (ir_measures' ``read_trec_run`` + ``iter_calc``
  per run, the qrels read once, its values gathered in a dictionary as they come);
- the floor ``reference.zcat_lines`` (``zcat RUNS | wc -l``, one process).

Every per-topic value must equal ir_measures' (``==``).  Targets (exit status 1 when one is missed):
riskeval >= 8x faster than ir_measures and <= 1.5x the floor, on the best and on the median round,
in wall time and in CPU time (this process's, and the pipeline's for ``zcat | wc -l``): on a machine
shared with other work the CPU times are the steadier figures.

``--cluster`` also times the command line on the DL 2019 runs: ``riskeval evaluate --workers 2``
(a local Dask cluster started for the command) against ``riskeval evaluate -j 1``, whole commands.

Run from the repository root:

    python benchmarks/bench_evaluate.py [--repeat 3] [--shape dl19|synthetic|all] [--cluster]
"""

from __future__ import annotations

import argparse
import gzip
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from data import data_dir
from reference import ir_measures_per_topic, zcat_lines

MEASURES = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10"]
SPEEDUP_TARGET = 8.0
FLOOR_TARGET = 1.5


def synthesise(folder: Path, runs: int, topics: int, docs: int) -> tuple[str, list[str]]:
    """Qrels judging every other topic and ``runs`` gzipped run files with 17-digit scores."""
    rng = np.random.default_rng(0)
    pool = 2 * docs
    with open(folder / "qrels.txt", "w") as out:
        for t in range(0, topics, 2):
            for d, g in zip(rng.choice(pool, 10, replace=False), rng.integers(0, 4, 10), strict=True):
                out.write(f"{1000 + t} 0 D{d} {g}\n")
    paths = []
    for r in range(runs):
        path = folder / f"run{r:02d}.gz"
        lines = (
            f"{1000 + t} Q0 D{d} {k + 1} {s!r} sys{r:02d}\n"
            for t in range(topics)
            for k, (d, s) in enumerate(
                zip(
                    rng.choice(pool, docs, replace=False),
                    sorted(rng.random(docs).tolist(), reverse=True),
                    strict=True,
                )
            )
        )
        with gzip.open(path, "wt", compresslevel=6) as out:
            out.writelines(lines)
        paths.append(str(path))
    return str(folder / "qrels.txt"), paths


def quiet(command: list[str]) -> None:
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)


def riskeval_long(qrels: str, runs: list[str]) -> pd.DataFrame:
    import riskeval as rk

    return rk.io.evaluate_runs_long(qrels, runs, MEASURES, names=runs, progress=False, n_jobs=1)


def per_topic(long: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    """``{(run file, topic, measure): value}`` of a long table, to compare with ir_measures'."""
    return {(s, t, m): v for s, t, m, v in long.itertuples(index=False, name=None)}


def timed(func, *args):
    """``func(*args)``, its wall time and its CPU time (this process's and its children's)."""

    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    start, start_cpu = time.perf_counter(), cpu()
    result = func(*args)
    return result, (time.perf_counter() - start, cpu() - start_cpu)


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def shape(name: str, qrels: str, runs: list[str], repeat: int) -> bool:
    lines = zcat_lines(runs)  # also brings the runs into the page cache
    riskeval_long(qrels, runs[:1])  # imports and compiled kernels, once per process
    own, ref, floor = [], [], []  # (wall, CPU) seconds per round
    for _ in range(repeat):
        long, t = timed(riskeval_long, qrels, runs)
        own.append(t)
        expected, t = timed(ir_measures_per_topic, qrels, runs, MEASURES)
        ref.append(t)
        floor.append(timed(zcat_lines, runs)[1])
        got = per_topic(long)
        assert got.keys() == expected.keys(), "riskeval and ir_measures evaluated different cells"
        differ = [k for k in expected if got[k] != expected[k]]
        assert not differ, f"{len(differ)} per-topic values differ from ir_measures', e.g. {differ[:3]}"
    ok = True
    print(f"{name}: {len(runs)} runs, {lines:,} lines, {len(got):,} per-topic values equal to ir_measures'")
    for k, clock in enumerate(("wall", "CPU")):
        for label, pick in (("best", min), ("median", statistics.median)):
            a, b, c = (pick([t[k] for t in ts]) for ts in (own, ref, floor))
            ok &= b / a >= SPEEDUP_TARGET and a / c <= FLOOR_TARGET
            print(
                f"  {clock:4s} {label:6s} riskeval n_jobs=1 {a:6.2f} s, ir_measures {b:6.2f} s "
                f"({b / a:5.1f}x, target >= {SPEEDUP_TARGET:.0f}x), zcat | wc -l {c:5.2f} s "
                f"({a / c:.2f} of the floor, target <= {FLOOR_TARGET})"
            )
    return ok


def cluster(qrels: str, runs: list[str], repeat: int) -> None:
    """Whole commands: ``riskeval evaluate --workers 2`` against ``-j 1``."""
    base = [
        sys.executable,
        "-m",
        "riskeval",
        "evaluate",
        "--qrels",
        qrels,
        "-m",
        "nDCG@10",
        "--format",
        "csv",
    ]
    times: dict[str, list[float]] = {"-j 1": [], "--workers 2": []}
    for _ in range(repeat):
        for option in times:
            done = timed(quiet, [*base, *option.split(), *runs])
            times[option].append(done[1][0])
    for label, pick in (("best", min), ("median", statistics.median)):
        one, two = pick(times["-j 1"]), pick(times["--workers 2"])
        print(f"  {label:6s} evaluate -j 1 {one:6.2f} s, --workers 2 {two:6.2f} s ({two / one:.2f} of -j 1)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--cluster", action="store_true", help="also time --workers 2 against -j 1")
    parser.add_argument("--shape", choices=("dl19", "synthetic", "all"), default="all")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # "157 topics of the runs have no judgments"
    print(f"load before: {load()}")
    ok = True
    if args.shape != "synthetic" or args.cluster:
        folder = data_dir("trec-dl-2019-passage")
        dl19 = str(folder / "qrels.dl19-passage.txt"), sorted(map(str, (folder / "runs").glob("input.*.gz")))
    if args.shape != "synthetic":
        ok &= shape("dl19", *dl19, args.repeat)
    if args.shape != "dl19":
        with tempfile.TemporaryDirectory() as tmp:
            qrels, runs = synthesise(Path(tmp), args.runs, args.topics, args.docs)
            ok &= shape(f"synthetic {args.runs} x {args.topics} x {args.docs}", qrels, runs, args.repeat)
    if args.cluster:
        print("dl19, command line, nDCG@10:")
        cluster(*dl19, args.repeat)
    print(f"load after: {load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
