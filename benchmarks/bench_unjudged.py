"""Benchmark: score bounds over the completions of the qrels against the evaluation of the same
runs, and the condensed evaluation against the default one.

Three TREC DL 2019 passage runs (bm25base_p, p_bert, idst_bert_p1; 1000 passages per topic, 43
judged topics), nDCG@10, in this process, CPU time (the best of ``--repeat`` rounds):

- ``riskeval.io.score_bounds(qrels, runs, "nDCG@10")`` against ``riskeval.evaluate_runs`` (the
  reference: the bounds evaluate the runs once and then rank their documents in Python);
- ``evaluate_runs(..., unjudged="condensed")`` against ``evaluate_runs(...)``.

Run from the repository root:

    python benchmarks/bench_unjudged.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

from data import data_dir

import riskeval as rk

RUNS = ("bm25base_p", "p_bert", "idst_bert_p1")


def best(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the 157 topics of the runs without judgments
    dl19 = data_dir("trec-dl-2019-passage")
    qrels = dl19 / "qrels.dl19-passage.txt"
    runs = {name: str(dl19 / "runs" / f"input.{name}.gz") for name in RUNS}
    rk.evaluate_runs(qrels, runs, "nDCG@10")  # imports and caches out of the clock
    plain = best(args.repeat, lambda: rk.evaluate_runs(qrels, runs, "nDCG@10"))
    condensed = best(args.repeat, lambda: rk.evaluate_runs(qrels, runs, "nDCG@10", unjudged="condensed"))
    bounds = best(args.repeat, lambda: rk.io.score_bounds(qrels, runs, "nDCG@10"))
    print(f"evaluate_runs            {plain:6.2f} CPU-s")
    print(f"unjudged='condensed'     {condensed:6.2f} CPU-s  ({condensed / plain:.2f}x evaluate_runs)")
    print(f"score_bounds             {bounds:6.2f} CPU-s  ({bounds / plain:.2f}x evaluate_runs)")


if __name__ == "__main__":
    main()
