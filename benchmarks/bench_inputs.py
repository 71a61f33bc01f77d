"""Cost of reading score tables with riskeval, as ratios to pandas reading the same file.

    python benchmarks/bench_inputs.py [--systems 500] [--topics 2000]

For each file kind, riskeval.score_matrix (parse, validate every cell, locate problems, build the
matrix) is timed against plain ``pandas.read_csv`` / ``read_parquet`` of the same file (parse only,
no validation); a long DataFrame against ``DataFrame.pivot`` (the same reshape, unvalidated); a
wide DataFrame against one numpy sum pass over its values.  All in the same run, best of three.
Ratios only: absolute times depend on the machine.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from timing import best_of

import riskeval as rk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=500)
    parser.add_argument("--topics", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    matrix = pd.DataFrame(
        rng.random((args.systems, args.topics)),
        index=pd.Index([f"run{i}" for i in range(args.systems)], name="system"),
        columns=pd.Index([f"q{j}" for j in range(args.topics)], name="topic"),
    )
    long = matrix.stack().rename("score").reset_index()
    print(f"{args.systems} systems × {args.topics} topics ({long.shape[0]:,} long rows)")
    print(f"{'input':<26}{'riskeval / pandas':>18}")
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "wide CSV": (Path(tmp, "wide.csv"), matrix.to_csv, pd.read_csv),
            "long CSV": (
                Path(tmp, "long.csv"),
                lambda p: long.to_csv(p, index=False),
                pd.read_csv,
            ),
            "long TSV": (
                Path(tmp, "long.tsv"),
                lambda p: long.to_csv(p, sep="\t", index=False),
                lambda p: pd.read_csv(p, sep="\t"),
            ),
            "long Parquet": (
                Path(tmp, "long.parquet"),
                long.to_parquet,
                pd.read_parquet,
            ),
        }
        for name, (path, write, read) in files.items():
            write(path)
            assert rk.score_matrix(path).equals(matrix)
            ratio = best_of(lambda p=path: rk.score_matrix(p)) / best_of(lambda p=path, r=read: r(p))
            print(f"{name:<26}{ratio:>17.1f}×")
        pivot = best_of(lambda: long.pivot(index="system", columns="topic", values="score"))
        ratio = best_of(lambda: rk.score_matrix(long)) / pivot
        print(f"{'long DataFrame':<26}{ratio:>17.1f}×  (reference: DataFrame.pivot)")
        one_pass = best_of(lambda: matrix.to_numpy().sum())
        ratio = best_of(lambda: rk.score_matrix(matrix)) / one_pass
        print(f"{'wide DataFrame':<26}{ratio:>17.1f}×  (reference: one numpy sum pass)")


if __name__ == "__main__":
    main()
