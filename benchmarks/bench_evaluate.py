"""Benchmark: per-topic evaluation of the 37 official TREC DL 2019 passage runs.

Measures nDCG@10, AP(rel=2) and RR(rel=2)@10 two ways, in the same process, and prints both times and
their ratio:

- reference, the straightforward ir_measures route, per run file:
  ``ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(path))`` with the qrels read
  once by ``ir_measures.read_trec_qrels`` (``iter_calc`` yields the per-topic values;
  ``calc_aggregate`` computes the same and averages them);
- ``riskeval.evaluate_runs_long`` (filtered reading, one evaluator per process, parallel processes).

It then asserts that every per-topic value is identical (``==``, not approximately).  The target is
a ratio of at most 1/3; the script exits with status 1 above it.

Run from the repository root:  python benchmarks/bench_evaluate.py [--data DIR] [--n-jobs N]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

MEASURES = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10"]
TARGET = 1 / 3


def default_data() -> Path:
    root = Path(__file__).resolve().parents[1]
    for shared in (root.parent / "shared", Path("/work/shared")):
        if (shared / "data").is_dir():
            return shared / "data" / "trec-dl-2019-passage"
    sys.exit("the shared campaign data (shared/data/trec-dl-2019-passage) was not found")


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

    start = time.perf_counter()
    expected = reference(qrels, runs)
    t_ref = time.perf_counter() - start
    start = time.perf_counter()
    got = riskeval_route(qrels, runs, args.n_jobs)
    t_new = time.perf_counter() - start

    assert got.keys() == expected.keys(), "the two routes evaluated different (run, topic, measure)"
    differ = [k for k in expected if got[k] != expected[k]]
    assert not differ, f"{len(differ)} per-topic values differ, e.g. {differ[:3]}"
    ratio = t_new / t_ref
    print(
        f"{len(runs)} runs, {len(MEASURES)} measures ({', '.join(MEASURES)}), "
        f"{len(expected)} per-topic values, all identical"
    )
    print(f"reference (ir_measures read_trec_run + iter_calc per run): {t_ref:8.2f} s")
    print(f"riskeval.evaluate_runs_long:                               {t_new:8.2f} s")
    print(f"ratio: {ratio:.3f} (target <= {TARGET:.3f}): {'OK' if ratio <= TARGET else 'TOO SLOW'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
