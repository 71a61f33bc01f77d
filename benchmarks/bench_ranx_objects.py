"""Evaluating runs held as ranx ``Run``/``Qrels`` objects against evaluating the same runs from their
files, in the same process.

    python benchmarks/bench_ranx_objects.py [--runs 5]

ranx keeps a run as a numba typed dict; riskeval reads it in one compiled pass
(:mod:`riskeval.io.ranx_objects`) rather than through ``Run.to_dict()``, which boxes every entry
through numba's dispatcher.  Prints the time of the first call on ranx objects in this process (the
compiled pass is loaded from numba's cache, or compiled once when there is none), then the best of
three of each route and their ratio (target: at most 2).  Data: the TREC DL 2019 passage runs.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import tempfile
import time
import warnings
from pathlib import Path

from data import data_dir
from timing import best_of

import riskeval as rk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    import ranx

    warnings.simplefilter("ignore")  # the runs rank unjudged topics: counted in a warning
    base = data_dir("trec-dl-2019-passage")
    qrels = str(base / "qrels.dl19-passage.txt")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for gz in sorted((base / "runs").glob("*.gz"))[: args.runs]:
            path = Path(tmp, gz.name.removesuffix(".gz") + ".run")
            with gzip.open(gz, "rb") as src, open(path, "wb") as out:
                shutil.copyfileobj(src, out)  # ranx reads plain text only
            paths.append(str(path))
        ranx_qrels = ranx.Qrels.from_file(qrels, kind="trec")
        runs = {Path(p).stem: ranx.Run.from_file(p, kind="trec") for p in paths}
        start = time.perf_counter()
        from_objects = rk.evaluate_runs(ranx_qrels, runs, "nDCG@10")
        first = time.perf_counter() - start
        from_files = rk.evaluate_runs(qrels, paths, "nDCG@10", names="file")
        assert from_objects.equals(from_files), "the two routes disagree"
        files_s = best_of(lambda: rk.evaluate_runs(qrels, paths, "nDCG@10", names="file"))
        objects_s = best_of(lambda: rk.evaluate_runs(ranx_qrels, runs, "nDCG@10"))
    print(f"{len(paths)} TREC DL 2019 runs, nDCG@10")
    print(f"first call on ranx objects in this process: {first:.2f} s")
    print(f"files {files_s:.3f} s, ranx objects {objects_s:.3f} s: ratio {objects_s / files_s:.2f}")


if __name__ == "__main__":
    main()
