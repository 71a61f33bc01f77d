"""Reading SVMlight/LETOR files: ``riskeval.io.letor.read_letor`` against scikit-learn's
``load_svmlight_file(query_id=True)``, timed in the same run, with equal values checked.

Two files: LightGBM's ``examples/lambdarank/rank.train`` when a folder holding it is given
(``--letor DIR``), and a generated file of MSLR-Web10K's shape (``--lines`` documents, 136 dense
features with four decimals, a qid per line, a comment).  Each reader reads each file ``--repeats``
times in alternation; the best time of each is reported with their ratio.

    python benchmarks/bench_letor_readers.py [--letor DIR] [--lines 60000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def mslr_like(path: Path, lines: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.choice(5, size=lines, p=[0.52, 0.32, 0.13, 0.02, 0.01])
    with path.open("w") as handle:
        for i in range(lines):
            values = rng.integers(0, 100000, 136) / 10000
            features = " ".join(f"{j}:{v:.4f}" for j, v in enumerate(values, 1))
            handle.write(f"{labels[i]} qid:{i // 120 + 1} {features} #docid = {i}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--letor", type=Path, help="a folder holding LightGBM's rank.train")
    parser.add_argument("--lines", type=int, default=60000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    try:
        from sklearn.datasets import load_svmlight_file
    except ModuleNotFoundError:
        print("scikit-learn is not installed (pip install scikit-learn)", file=sys.stderr)
        return 2
    import scipy.sparse as sp

    from riskeval.io.letor import read_letor

    with tempfile.TemporaryDirectory() as tmp:
        files = []
        if args.letor is not None:
            files.append(args.letor / "rank.train")
        generated = Path(tmp) / "mslr_like.txt"
        mslr_like(generated, args.lines)
        files.append(generated)
        read_letor(files[-1])  # compile or load the parser once
        print(f"load average before: {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs")
        for path in files:
            best = {"riskeval": np.inf, "scikit-learn": np.inf}
            for _ in range(args.repeats):
                start = time.perf_counter()
                ours = read_letor(path)
                best["riskeval"] = min(best["riskeval"], time.perf_counter() - start)
                start = time.perf_counter()
                X, y, *_ = load_svmlight_file(str(path), zero_based=True, query_id=True)
                best["scikit-learn"] = min(best["scikit-learn"], time.perf_counter() - start)
            width = max(X.shape[1], ours.X.shape[1])
            same = (
                np.array_equal(ours.y, y) and (sp.csr_matrix(X, shape=(X.shape[0], width)) != ours.X).nnz == 0
            )
            size = path.stat().st_size / 1e6
            print(
                f"{path.name}: {size:.1f} MB, {ours.y.size} lines; riskeval {best['riskeval']:.3f} s, "
                f"scikit-learn {best['scikit-learn']:.3f} s: scikit-learn / riskeval = "
                f"{best['scikit-learn'] / best['riskeval']:.1f}x; same values: {same}"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
