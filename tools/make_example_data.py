"""Rebuild src/riskeval/data/dl19-passage-ndcg10.csv, the example returned by riskeval.example_scores().

Per-topic nDCG@10 of the 37 official TREC DL 2019 passage runs (a trec-dl-2019-passage folder with
the official submissions in runs/input.*.gz and qrels.dl19-passage.txt from castorini/anserini-tools),
computed by riskeval.evaluate_runs and written as a long table system,topic,score at full precision.
Provenance and terms of the data: src/riskeval/data/README.md.

Run from the repository root:  python tools/make_example_data.py [--data DIR]
(without --data: $RISKEVAL_DATA/trec-dl-2019-passage, else ../shared/data/trec-dl-2019-passage).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from campaign_data import campaign_data

import riskeval

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "riskeval" / "data" / "dl19-passage-ndcg10.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the trec-dl-2019-passage folder")
    args = parser.parse_args()
    data = args.data or campaign_data() / "trec-dl-2019-passage"
    if not data.is_dir():
        sys.exit(f"{data} not found: pass --data, or set RISKEVAL_DATA to the folder holding it")
    runs = sorted((data / "runs").glob("input.*.gz"))
    M = riskeval.evaluate_runs(data / "qrels.dl19-passage.txt", runs, measure="nDCG@10")
    long = M.stack().rename("score").reset_index()
    long.to_csv(OUT, index=False)
    print(f"wrote {OUT.relative_to(ROOT)}: {M.shape[0]} systems x {M.shape[1]} topics")


if __name__ == "__main__":
    main()
