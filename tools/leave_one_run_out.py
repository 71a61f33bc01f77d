"""Zobel's pool-reusability test with risk bounds on the TREC DL 2019 passage runs: each run in
turn loses the judgments that only it brought to the pool (approximated as every run's first 10
passages), and its nDCG@10 losses against the BM25 baseline are labelled over the completions of
the qrels with and without them.  Prints the table of docs/unjudged.md (markdown).

    python tools/leave_one_run_out.py [--depth 10] [--baseline bm25base_p] [--measure nDCG@10]

Reads $RISKEVAL_DATA/trec-dl-2019-passage (or ../shared/data).
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import pandas as pd

from riskeval.analysis.unjudged_risk import label_changes
from riskeval.evaluation.pool_reuse import pool_contributions, remove_judgments
from riskeval.evaluation.score_bounds import score_bounds
from riskeval.io.system_names import system_name_from_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--baseline", default="bm25base_p")
    parser.add_argument("--measure", default="nDCG@10")
    args = parser.parse_args()
    root = Path(os.environ.get("RISKEVAL_DATA", Path(__file__).parents[1].parent / "shared" / "data"))
    folder = root / "trec-dl-2019-passage"
    qrels = str(folder / "qrels.dl19-passage.txt")
    runs = {
        system_name_from_file(str(p)).removeprefix("input."): str(p)
        for p in sorted((folder / "runs").glob("*.gz"))
    }
    warnings.simplefilter("ignore")  # the 157 topics of every run without judgments
    alone = pool_contributions(qrels, runs, args.depth)
    rows = []
    for name, path in runs.items():
        if name == args.baseline:
            continue
        pair = {name: path, args.baseline: runs[args.baseline]}
        full = score_bounds(qrels, pair, args.measure)
        reduced = score_bounds(remove_judgments(qrels, alone[name]), pair, args.measure, grade=full.grade)
        counts = label_changes(full, reduced, name, args.baseline)
        rows.append({"run": name, "removed": sum(map(len, alone[name].values())), **counts})
    table = pd.DataFrame(rows).sort_values("removed", ascending=False)
    print(table.to_markdown(index=False))
    total = table.drop(columns="run").sum()
    print()
    print(total.to_string())


if __name__ == "__main__":
    main()
