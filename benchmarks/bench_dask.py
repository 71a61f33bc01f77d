"""Benchmark: evaluation of a synthetic run collection on a local Dask cluster of 1 and 2 workers,
and risk over a long score table larger than the workers' memory limit.

Part 1 synthesises ``--runs`` gzipped run files of ``--topics`` topics × ``--docs`` documents, with
qrels judging every topic (a query log's labels: every line is parsed and evaluated), evaluates
them with ``riskeval.io.evaluate_runs_long`` in one process (the reference, in the same run) and on
``LocalCluster``\\ s of 1 and 2 single-threaded worker processes, checks that the values are
identical, and prints wall time, throughput (run lines per second) and each worker's peak resident
memory.  Runs larger than a quarter of ``--piece-mb`` on disk are split into pieces of whole topics,
one task each.

Part 2 writes a long (system, topic, score) table as Parquet, one file per system, whose size in
memory as a pandas DataFrame is larger than the workers' ``--memory-limit``, computes
``riskeval.analysis.long_risk_table`` on 2 workers with that limit and checks it against ``risk_table`` of
the same scores held as a NumPy matrix (8 bytes a score, which does fit).

Part 3 (``--against-pandas``) times ``riskeval.analysis.long_risk_table`` of a long Parquet table
(MEAN baseline, 21 α, Dask's default local scheduler) against the pandas ``groupby`` of
``reference.long_table_pandas`` (the same sums: per-topic MEAN and totals, per-system moments of
δ⁺, δ⁻ and the residuals), each as a whole process (``python -c``, interpreter start and imports
included) started afresh for every measurement, the two alternating; CPU time (user + system) and
peak resident memory come from ``os.wait4``.  Shapes ``ROWSxSYSTEMS`` (default 30 M rows of 1,000
systems and 3 M rows of 10,000 systems); each table is ten Parquet files, written once into
``--table-dir`` and reused by later runs.

Targets (exit status 1 when one is missed): identical values; 2 workers at least 1.3× the
throughput of 1 worker; the long-table risk completes with every worker's peak memory below its
limit while the table in memory is larger than the limit; against pandas, at most 2× its CPU time
and a lower peak memory (best of the rounds).  The load (``uptime``) is printed with the figures.

Run from the repository root:  python benchmarks/bench_dask.py [--runs 20 --topics 5000 --docs 100]
A collection of 100 million lines: ``--runs 50 --topics 20000 --docs 100``.  Only part 3:
``python benchmarks/bench_dask.py --skip-evaluation --skip-long --against-pandas``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

MEASURES = ["nDCG@10", "AP", "RR@10"]
SPEEDUP_TARGET = 1.3
PANDAS_CPU_TARGET = 2.0
#: the two sides of part 3, each run as ``python -c CODE PATH``; the last line printed is the TRisk
#: of every system at every α, sorted by (α, system), as JSON (every 97th value)
RISKEVAL_CODE = """
import json, sys
import numpy as np
import riskeval as rk
out = rk.analysis.long_risk_table(sys.argv[1], "mean", np.linspace(0.0, 20.0, 21))
values = out.set_index(["alpha", "system"])["trisk"].sort_index().to_numpy()
print(json.dumps(values[::97].tolist()))
"""
PANDAS_CODE = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from reference import long_table_pandas
out = long_table_pandas(sys.argv[1], np.linspace(0.0, 20.0, 21))
values = out.rename_axis("system").set_index("alpha", append=True).swaplevel()["trisk"]
print(json.dumps(values.sort_index().to_numpy()[::97].tolist()))
"""


def synthesise(
    folder: Path, runs: int, topics: int, docs: int, seed: int = 0
) -> tuple[Path, list[Path], int]:
    """Qrels judging 10 documents of every topic, and ``runs`` run files; returns the line count."""
    rng = np.random.default_rng(seed)
    qids = [str(100000 + t) for t in range(topics)]
    pool = 2 * docs
    with open(folder / "qrels.txt", "w") as out:
        for q in qids:
            judged = rng.choice(pool, 10, replace=False)
            grades = rng.integers(0, 4, 10)
            out.write("".join(f"{q} 0 D{d} {g}\n" for d, g in zip(judged, grades, strict=True)))
    paths = []
    ranks = [str(k + 1) for k in range(docs)]
    for r in range(runs):
        path = folder / f"run{r:03d}.gz"
        tag = f"sys{r:03d}"
        with gzip.open(path, "wt", compresslevel=1) as out:
            for q in qids:
                chosen = rng.choice(pool, docs, replace=False)
                scores = np.sort(rng.random(docs))[::-1]
                out.write(
                    "".join(
                        f"{q} Q0 D{d} {k} {s:.6f} {tag}\n"
                        for d, k, s in zip(chosen, ranks, scores, strict=True)
                    )
                )
        paths.append(path)
    return folder / "qrels.txt", paths, runs * topics * docs


def peak_rss_mb() -> float:
    """This process image's peak resident memory (MiB): ``VmHWM``, not ``ru_maxrss``, which keeps
    the resident size of the process that forked it (a worker's nanny, the benchmark)."""
    try:
        with open("/proc/self/status") as status:
            return int(re.search(r"VmHWM:\s*(\d+)", status.read()).group(1)) / 1024  # type: ignore[union-attr]
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def on_cluster(workers: int, memory_limit: str, job):
    """Run ``job(client)`` on a fresh local cluster; returns its result, wall time, worker peaks (MB)."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(lambda: None)  # workers started and connected
        start = time.perf_counter()
        result = job(client)
        wall = time.perf_counter() - start
        peaks = sorted(client.run(peak_rss_mb).values())
    return result, wall, peaks


def evaluation(args: argparse.Namespace, folder: Path) -> bool:
    import riskeval as rk
    from riskeval.evaluation import run_pieces

    run_pieces.PIECE_BYTES = args.piece_mb * 2**20  # how this process cuts runs into tasks
    start = time.perf_counter()
    qrels, runs, lines = synthesise(folder, args.runs, args.topics, args.docs)
    size = sum(p.stat().st_size for p in runs)
    print(
        f"synthesised {args.runs} runs × {args.topics} topics × {args.docs} docs = {lines:,} lines, "
        f"{size / 2**20:.0f} MiB gzipped, in {time.perf_counter() - start:.1f} s"
    )
    print(f"load: {load()}")
    start = time.perf_counter()
    expected = rk.io.evaluate_runs_long(qrels, runs, MEASURES, n_jobs=1, progress=False)
    t_local = time.perf_counter() - start
    rate = lines / t_local
    print(f"one process, no Dask:  {t_local:7.1f} s  {rate:12,.0f} lines/s  peak {peak_rss_mb():6.0f} MB")
    ok, speed = True, {}
    for n in (1, 2):
        table, wall, peaks = on_cluster(
            n,
            args.worker_memory,
            lambda client: rk.io.evaluate_runs_long(qrels, runs, MEASURES, client=client, progress=False),
        )
        same = table.equals(expected)
        ok &= same
        speed[n] = lines / wall
        print(
            f"Dask, {n} worker(s):     {wall:7.1f} s  {speed[n]:12,.0f} lines/s  worker peaks "
            f"{', '.join(f'{p:.0f}' for p in peaks)} MB  values identical: {same}"
        )
    ratio = speed[2] / speed[1]
    print(f"2 workers / 1 worker throughput: {ratio:.2f} (target >= {SPEEDUP_TARGET}); load: {load()}")
    return ok and ratio >= SPEEDUP_TARGET


def long_table(args: argparse.Namespace, folder: Path) -> bool:
    import riskeval as rk

    r, c = args.systems, args.long_topics
    rng = np.random.default_rng(1)
    matrix = np.round(rng.beta(2, 5, (r, c)), 4)
    topics = np.array([f"q{t}" for t in range(c)], dtype=object)
    table = folder / "long"
    table.mkdir()
    for i in range(r):
        pd.DataFrame({"system": f"s{i:03d}", "topic": topics, "score": matrix[i]}).to_parquet(
            table / f"s{i:03d}.parquet", index=False
        )
    one = pd.read_parquet(table / "s000.parquet")
    in_memory = one.memory_usage(deep=True).sum() * r / 2**20
    on_disk = sum(p.stat().st_size for p in table.iterdir()) / 2**20
    limit = int(args.memory_limit_mb) * 2**20
    print(
        f"long table: {r} systems × {c} topics = {r * c:,} rows; {on_disk:.0f} MiB of Parquet, "
        f"{in_memory:.0f} MiB as a pandas DataFrame; worker memory limit {args.memory_limit_mb} MiB"
    )
    print(f"load: {load()}")
    got, wall, peaks = on_cluster(
        2, f"{args.memory_limit_mb}MiB", lambda client: rk.analysis.long_risk_table(table, "mean")
    )
    columns = pd.Index(topics, name="topic")
    expected = rk.risk_table(
        pd.DataFrame(matrix, index=[f"s{i:03d}" for i in range(r)], columns=columns), "mean"
    )
    # wins/losses/ties count δ > 0 and δ < 0: where a score equals the MEAN up to the rounding of a
    # sum taken in another order, the two routes may call it a tie or not; no more than those cells
    counts = ["wins", "losses", "ties", "win_loss"]
    numeric = [k for k in expected.columns if expected[k].dtype.kind == "f" and k not in counts]
    close = np.allclose(
        got[numeric].to_numpy(float), expected[numeric].to_numpy(float), rtol=1e-9, equal_nan=True
    )
    near_ties = int((np.abs(matrix - matrix.mean(axis=0)) < 1e-12).sum())
    moved = int(np.abs(got["ties"].to_numpy() - expected["ties"].to_numpy()).sum()) // len(set(got["alpha"]))
    shown = ", ".join(f"{p:.0f}" for p in peaks)
    print(
        f"long_risk_table on 2 workers: {wall:.1f} s, worker peaks {shown} MB; equal to risk_table in "
        f"memory (rtol 1e-9): {close}; cells a tie in one route only: {moved} (scores within 1e-12 of the "
        f"MEAN: {near_ties})"
    )
    fits = max(peaks) * 2**20 < limit < in_memory * 2**20
    print(f"the table is larger than a worker's limit and every worker stayed below it: {fits}")
    return close and moved <= near_ties and fits


def write_long_table(path: Path, rows: int, systems: int, categorical: bool) -> None:
    """A long (system, topic, score) table of ``systems`` systems × ``rows // systems`` topics as
    ten Parquet files of whole systems (pyarrow's defaults: dictionary-encoded strings, row groups
    of 1 Mi rows, so a file of more rows has several dictionaries), into ``path`` unless there.
    ``categorical``: the labels written from pandas categoricals (read back as categoricals)."""
    done = path.with_name(path.name + ".done")
    if done.exists():
        return
    path.mkdir(parents=True, exist_ok=True)
    topics = max(2, rows // systems)
    per_file = -(-systems // 10)
    rng = np.random.default_rng(2)
    names = np.array([f"topic{j:06d}" for j in range(topics)], dtype=object)
    for k in range(0, systems, per_file):
        n = min(per_file, systems - k)
        frame = pd.DataFrame(
            {
                "system": np.repeat([f"system{i:05d}" for i in range(k, k + n)], topics),
                "topic": np.tile(names, n),
                "score": rng.beta(2, 5, (n, topics)).ravel(),
            }
        )
        if categorical:
            frame = frame.astype({"system": "category", "topic": "category"})
        frame.to_parquet(path / f"part{k // per_file:02d}.parquet", index=False)
    done.touch()


def whole_process(code: str, *args: str) -> tuple[float, float, list[float]]:
    """Run ``python -c code args`` in a fresh process: its CPU seconds (user + system) and peak
    resident memory (GiB) from ``os.wait4``, and the JSON of the last line it printed."""
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    printed = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"the measured process failed (exit status {proc.returncode})")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20, json.loads(printed.splitlines()[-1])


def against_pandas(args: argparse.Namespace) -> bool:
    ok = True
    here = str(Path(__file__).resolve().parent)
    for shape in args.shapes.split(","):
        rows, systems = (int(v) for v in shape.lower().split("x"))
        kind = "categorical" if args.categorical else "strings"
        path = Path(args.table_dir) / f"long_{rows}x{systems}_{kind}"
        write_long_table(path, rows, systems, args.categorical)
        topics = max(2, rows // systems)
        print(
            f"long table {systems:,} systems × {topics:,} topics = {systems * topics:,} rows, labels "
            f"written as {kind} ({path})"
        )
        print(f"load: {load()}", flush=True)
        cpu: dict[str, list[float]] = {"riskeval": [], "pandas": []}
        peak: dict[str, list[float]] = {"riskeval": [], "pandas": []}
        ours: list[float] = []
        for _ in range(args.pandas_repeat):
            for which, code in (("riskeval", RISKEVAL_CODE), ("pandas", PANDAS_CODE)):
                seconds, gib, values = whole_process(code, str(path), here)
                cpu[which].append(seconds)
                peak[which].append(gib)
                if which == "riskeval":
                    ours = values
                else:
                    np.testing.assert_allclose(ours, values, rtol=1e-8)
        ratio = min(cpu["riskeval"]) / min(cpu["pandas"])
        met = ratio <= PANDAS_CPU_TARGET and min(peak["riskeval"]) < min(peak["pandas"])
        ok &= met
        print(
            f"  CPU s riskeval {', '.join(f'{t:.1f}' for t in cpu['riskeval'])}; pandas "
            f"{', '.join(f'{t:.1f}' for t in cpu['pandas'])}; best / best {ratio:.2f}× (target <= "
            f"{PANDAS_CPU_TARGET:g}); peak GiB riskeval {min(peak['riskeval']):.2f}, pandas "
            f"{min(peak['pandas']):.2f}; TRisk equal (rtol 1e-8); {'ok' if met else 'MISSED'}"
        )
        print(f"load: {load()}", flush=True)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--piece-mb", type=int, default=32, help="text per piece (MiB)")
    parser.add_argument("--worker-memory", default="2GiB", help="memory limit of evaluation workers")
    parser.add_argument("--systems", type=int, default=300, help="long table: systems")
    parser.add_argument("--long-topics", type=int, default=100_000, help="long table: topics")
    parser.add_argument("--memory-limit-mb", type=int, default=768, help="long table: worker limit (MiB)")
    parser.add_argument("--skip-evaluation", action="store_true")
    parser.add_argument("--skip-long", action="store_true")
    parser.add_argument("--against-pandas", action="store_true", help="part 3: whole processes")
    parser.add_argument("--shapes", default="30000000x1000,3000000x10000", help="part 3: ROWSxSYSTEMS,...")
    parser.add_argument("--table-dir", default="/tmp/riskeval-bench-long", help="part 3: tables kept here")
    parser.add_argument("--categorical", action="store_true", help="part 3: labels as categoricals")
    parser.add_argument("--pandas-repeat", type=int, default=2, help="part 3: rounds")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        ok = True
        if not args.skip_evaluation:
            ok &= evaluation(args, Path(tmp))
        if not args.skip_long:
            ok &= long_table(args, Path(tmp))
    if args.against_pandas:
        ok &= against_pandas(args)
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
