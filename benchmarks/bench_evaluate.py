"""Benchmark: per-topic evaluation of the 37 official TREC DL 2019 passage runs.

Measures nDCG@10, AP(rel=2) and RR(rel=2)@10 two ways, in the same process, and prints both times and
their ratio:

- reference, the straightforward ir_measures route, per run file:
  ``ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(path))`` with the qrels read
  once by ``ir_measures.read_trec_qrels`` (``iter_calc`` yields the per-topic values;
  ``calc_aggregate`` computes the same and averages them);
- ``riskeval.evaluate_runs_long`` (filtered reading, one evaluator per process, parallel processes).

It then asserts that every per-topic value is identical (``==``, not approximately), and measures,
in the same run, what bounds the single-machine path:

- the floor: ``zcat RUNS | wc -l`` in one process, and in two (the runs split in two halves of equal
  size, two pipelines at once): decompressing the runs, which every route must do;
- ``read_qrels`` against a plain split loop over the same file (read, ``split(b"\n")``, ``split()``
  per line);
- the peak resident memory of a fresh process evaluating the largest run alone, against the same
  process before it reads the run, and the run's uncompressed size (runs are read as a stream of
  pieces of whole topics, so memory does not grow with the run).

Targets (exit status 1 when one is missed): riskeval at most 1/3 of the reference's time; the
default (worker processes chosen from the CPUs and the load) at most 1.0× the one-process floor;
``read_qrels`` at most 2× the split loop.  The load (``uptime``) is printed with the figures.

Run from the repository root:  python benchmarks/bench_evaluate.py [--data DIR] [--n-jobs N]
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from data import data_dir

MEASURES = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10"]
TARGET = 1 / 3
FLOOR_TARGET = 1.0
QRELS_TARGET = 2.0


def default_data() -> Path:
    return data_dir("trec-dl-2019-passage")


def reference(qrels_path: Path, runs: list[Path]) -> dict[tuple[str, str, str], float]:
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    values = {}
    for path in runs:
        for metric in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(str(path))):
            values[(path.name, metric.query_id, str(metric.measure))] = metric.value
    return values


def riskeval_route(qrels_path: Path, runs: list[Path], n_jobs: int | None):
    from riskeval import RiskevalWarning, evaluate_runs_long

    warnings.simplefilter("ignore", RiskevalWarning)  # "157 topics of the runs have no judgments"
    long = evaluate_runs_long(
        qrels_path, runs, MEASURES, names=[p.name for p in runs], progress=False, n_jobs=n_jobs
    )
    return {(s, t, m): v for s, t, m, v in long.itertuples(index=False, name=None)}


def floor(runs: list[Path], processes: int) -> float:
    """Seconds for ``zcat | wc -l`` over the runs, split into ``processes`` groups of equal size."""
    groups: list[list[Path]] = [[] for _ in range(processes)]
    for path in sorted(runs, key=lambda p: -p.stat().st_size):
        min(groups, key=lambda g: sum(p.stat().st_size for p in g)).append(path)
    start = time.perf_counter()
    pipelines = [
        subprocess.Popen(f"zcat {' '.join(map(str, g))} | wc -l", shell=True, stdout=subprocess.DEVNULL)
        for g in groups
    ]
    for proc in pipelines:
        proc.wait()
    return time.perf_counter() - start


def best_of(func, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def split_loop(path: Path) -> None:
    with open(path, "rb") as handle:
        for line in handle.read().split(b"\n"):
            line.split()


_PEAK = """
import re, sys, tempfile, warnings
from riskeval.effectiveness import evaluate_runs_long
warnings.simplefilter("ignore")
def peak():  # VmHWM: this process image's peak (ru_maxrss would include the parent's at fork)
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\\s*(\\d+)", status.read()).group(1))
with tempfile.NamedTemporaryFile("w", suffix=".run") as tiny:  # imports and evaluator, no run
    tiny.write("1 Q0 d 1 1.0 x\\n")
    tiny.flush()
    evaluate_runs_long(sys.argv[1], [tiny.name], {measures!r}, n_jobs=1)
before = peak()
evaluate_runs_long(sys.argv[1], [sys.argv[2]], {measures!r}, n_jobs=1)
print(before, peak())
"""


def peak_memory(qrels: Path, largest: Path) -> tuple[float, float]:
    """Peak RSS (MiB) of a fresh process before and after evaluating ``largest`` alone."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK.format(measures=MEASURES), str(qrels), str(largest)],
        capture_output=True,
        text=True,
        check=True,
    )
    before, after = map(int, done.stdout.split())
    return before / 1024, after / 1024


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="folder with qrels and runs/")
    parser.add_argument("--n-jobs", type=int, default=None, help="worker processes (default: auto)")
    args = parser.parse_args()
    data = args.data or default_data()
    qrels = data / "qrels.dl19-passage.txt"
    runs = sorted((data / "runs").glob("input.*.gz"))
    for path in [qrels, *runs]:  # both routes then read from the page cache
        path.read_bytes()
    import ir_measures  # noqa: F401  (imports are not part of either timing)

    import riskeval  # noqa: F401

    print(f"load before: {load()}")
    floor1, floor2 = floor(runs, 1), floor(runs, 2)
    start = time.perf_counter()
    expected = reference(qrels, runs)
    t_ref = time.perf_counter() - start
    from riskeval.effectiveness import _workers

    chosen = _workers(args.n_jobs, [str(p) for p in runs])
    start = time.perf_counter()
    got = riskeval_route(qrels, runs, args.n_jobs)
    t_new = time.perf_counter() - start
    from riskeval.io.qrels import read_qrels

    t_qrels = best_of(lambda: read_qrels(qrels))
    t_split = best_of(lambda: split_loop(qrels))
    largest = max(runs, key=lambda p: p.stat().st_size)
    text_mib = len(gzip.decompress(largest.read_bytes())) / 2**20
    before, after = peak_memory(qrels, largest)
    with tempfile.TemporaryDirectory() as tmp:  # a run 8 times as large: topics renamed per copy
        text = gzip.decompress(largest.read_bytes())
        big = Path(tmp) / "big.run.gz"
        copies = [text] + [b"".join(b"%d-" % k + line for line in text.splitlines(True)) for k in range(1, 8)]
        big.write_bytes(gzip.compress(b"".join(copies), compresslevel=1))
        big_mib = sum(map(len, copies)) / 2**20
        big_before, big_after = peak_memory(qrels, big)

    assert got.keys() == expected.keys(), "the two routes evaluated different (run, topic, measure)"
    differ = [k for k in expected if got[k] != expected[k]]
    assert not differ, f"{len(differ)} per-topic values differ, e.g. {differ[:3]}"
    ratio = t_new / t_ref
    to_floor = t_new / floor1
    to_split = t_qrels / t_split
    print(
        f"{len(runs)} runs, {len(MEASURES)} measures ({', '.join(MEASURES)}), "
        f"{len(expected)} per-topic values, all identical"
    )
    print(f"reference (ir_measures read_trec_run + iter_calc per run): {t_ref:8.2f} s")
    print(f"riskeval.evaluate_runs_long, {chosen} worker process(es):     {t_new:8.2f} s")
    print(f"floor, zcat | wc -l, one process:                          {floor1:8.2f} s")
    print(f"floor, zcat | wc -l, two processes:                        {floor2:8.2f} s")
    verdict = "OK" if ratio <= TARGET else "TOO SLOW"
    print(f"ratio to the reference: {ratio:.3f} (target <= {TARGET:.3f}): {verdict}")
    print(
        f"ratio to the one-process floor: {to_floor:.2f} (target <= {FLOOR_TARGET:.1f}): "
        f"{'OK' if to_floor <= FLOOR_TARGET else 'TOO SLOW'}; to the two-process floor: {t_new / floor2:.2f}"
    )
    print(
        f"read_qrels {t_qrels * 1e3:.1f} ms, split loop {t_split * 1e3:.1f} ms: {to_split:.2f}x "
        f"(target <= {QRELS_TARGET:.1f}): {'OK' if to_split <= QRELS_TARGET else 'TOO SLOW'}"
    )
    print(
        f"largest run {largest.name}: {text_mib:.0f} MiB of text; a process evaluating it alone peaks at "
        f"{after:.0f} MiB, {after - before:.0f} MiB above its {before:.0f} MiB before reading it"
    )
    print(
        f"a run of 8 copies of it ({big_mib:.0f} MiB of text, topics renamed): peak {big_after:.0f} MiB, "
        f"{big_after - big_before:.0f} MiB above {big_before:.0f} MiB (read in pieces of 16 MiB)"
    )
    print(f"load after: {load()}")
    return 0 if ratio <= TARGET and to_floor <= FLOOR_TARGET and to_split <= QRELS_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
