"""Benchmark of the HTML report (``riskeval report``) and the analyses that grow with the systems.

Each measure is printed as a ratio against a reference measured in the same run
(``reference.py``, section "Report and analyses"):

1. Memory and CPU: ``riskeval report`` on a synthetic long Parquet table (system, topic, score) and
   on the same matrix as a wide one, each in a process of its own under ``/usr/bin/time -v``
   (maximum resident set size, user + system CPU seconds), against ``pandas.read_parquet`` +
   ``pivot`` of the same table in a process of its own.  Targets: long table, peak ≤ the pandas
   reference's; wide table, peak ≤ 5× the matrix's bytes.
2. Rank correlations: ``rank_correlations`` (Kendall's τ-b and τ_AP) against one
   ``scipy.stats.kendalltau`` call (τ-b only), per column, on the systems of the synthetic shape and
   on the 37 runs of the shipped TREC DL 2019 example.
3. The campaign data: ``riskeval report --example`` (TREC DL 2019), peak and CPU against the
   pandas reference on the example written as a long Parquet table; the 59 runs of TREC DL 2020
   (passage, nDCG@10) from runs and qrels, the whole build against the evaluation alone
   (``evaluate_runs``), target ≤ 20 s; the page of a synthetic 300 × 200 matrix, target ≤ 5 MB.

Each timing is repeated (``--repeat``) and printed as best and median; exits 1 when a target is
missed.

The memory targets are for the default shape, 5,000 × 10,000 (50 million rows, 4.7 GB of free
memory needed by the pandas reference); on a smaller shape the fixed cost of the imports dominates
and the targets are only printed.

    python benchmarks/bench_report.py [--systems 5000] [--topics 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from data import data_dir
from reference import kendalltau_per_column

import riskeval as rk
from riskeval.core.rank_correlation import rank_correlations

HERE = Path(__file__).resolve().parent


def synthetic(r: int, c: int, seed: int = 0) -> pd.DataFrame:
    """Systems of unequal strength × topics, every score distinct."""
    rng = np.random.default_rng(seed)
    scores = rng.beta(2, 3, (r, c)) * rng.uniform(0.3, 1.0, (r, 1))
    return pd.DataFrame(
        scores, index=[f"system-{i:05d}" for i in range(r)], columns=[str(100000 + j) for j in range(c)]
    )


def write_tables(X: pd.DataFrame, folder: Path) -> tuple[Path, Path]:
    """``X`` as a long Parquet table (one row group per 100 systems) and as a wide one."""
    long_path, wide_path = folder / "long.parquet", folder / "wide.parquet"
    topics = pa.array(X.columns.to_numpy(dtype=str))
    schema = pa.schema([("system", pa.string()), ("topic", pa.string()), ("score", pa.float64())])
    with pq.ParquetWriter(long_path, schema) as writer:
        for start in range(0, len(X), 100):
            block = X.iloc[start : start + 100]
            writer.write_table(
                pa.table(
                    {
                        "system": np.repeat(block.index.to_numpy(dtype=str), X.shape[1]),
                        "topic": pa.concat_arrays([topics] * len(block)),
                        "score": block.to_numpy().ravel(),
                    },
                    schema=schema,
                )
            )
    X.rename_axis("system").reset_index().to_parquet(wide_path)
    return long_path, wide_path


def measured(command: list[str]) -> tuple[float, float]:
    """Peak resident memory (GB) and CPU seconds (user + system) of ``command``."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")

    def field(name: str) -> float:
        return float(re.search(rf"{re.escape(name)}: ([\d.]+)", done.stderr).group(1))  # type: ignore[union-attr]

    return field("Maximum resident set size (kbytes)") / 1e6, field("User time (seconds)") + field(
        "System time (seconds)"
    )


def report_command(inputs: list[str], out: Path) -> list[str]:
    return [sys.executable, "-m", "riskeval", "report", *inputs, "-o", str(out), "--no-progress"]


def pandas_command(path: Path, wide: bool) -> list[str]:
    code = f"from reference import pandas_read_pivot; pandas_read_pivot({str(path)!r}, wide={wide})"
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(HERE)!r}); {code}"]


def repeated(command: list[str], repeat: int) -> tuple[list[float], list[float]]:
    runs = [measured(command) for _ in range(repeat)]
    return [m for m, _ in runs], [c for _, c in runs]


def best_median(values: list[float]) -> str:
    return f"best {min(values):.2f}, median {statistics.median(values):.2f}"


def memory_and_cpu(name: str, report: list[str], reference: list[str], repeat: int) -> tuple[float, float]:
    """Print riskeval's peak and CPU against the reference's; return (best peak, best ratio)."""
    peak, cpu = repeated(report, repeat)
    ref_peak, ref_cpu = repeated(reference, repeat)
    ratios = [p / q for p, q in zip(peak, ref_peak, strict=True)]
    cpu_ratios = [p / q for p, q in zip(cpu, ref_cpu, strict=True)]
    print(
        f"{name}: riskeval report peak {best_median(peak)} GB, {best_median(cpu)} CPU-s; pandas "
        f"read_parquet + pivot peak {best_median(ref_peak)} GB, {best_median(ref_cpu)} CPU-s; "
        f"peak ratio {best_median(ratios)}, CPU ratio {best_median(cpu_ratios)}"
    )
    return min(peak), min(ratios)


def per_column(name: str, reference: np.ndarray, evaluated: np.ndarray, repeat: int) -> None:
    """Print the time per column of ``rank_correlations`` against one scipy call per column."""
    ours, scipy = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        rank_correlations(reference, evaluated)
        ours.append((time.perf_counter() - t) / evaluated.shape[1])
        t = time.perf_counter()
        kendalltau_per_column(reference, evaluated)
        scipy.append((time.perf_counter() - t) / evaluated.shape[1])
    ratios = [o / s for o, s in zip(ours, scipy, strict=True)]
    print(
        f"{name}: rank_correlations (tau-b and tau_AP) {min(ours) * 1e3:.2f} ms per column, "
        f"scipy.stats.kendalltau (tau-b) {min(scipy) * 1e3:.2f} ms; ratio {best_median(ratios)}"
    )


def campaign_build(folder: Path) -> list[str]:
    """The DL 2020 build against its evaluation, and the size of a 300 × 200 page; missed targets."""
    missed = []
    runs_dir = data_dir("trec-dl-2020-passage")
    runs, qrels = sorted((runs_dir / "runs-top100").glob("*.gz")), runs_dir / "qrels.dl20-passage.txt"
    out = folder / "report.html"
    with warnings.catch_warnings():  # the DL 2020 runs hold unjudged topics, which evaluate_runs says
        warnings.simplefilter("ignore", rk.RiskevalWarning)
        rk.report(synthetic(5, 10), path=out)  # imports and compiled kernels, as a user's second report
        evaluation = seconds(lambda: rk.evaluate_runs(qrels, runs, measure="nDCG@10"))
        took = seconds(
            lambda: rk.report(
                rk.evaluate_runs(qrels, runs, measure="nDCG@10"),
                baseline="p_bm25",
                measure="nDCG@10",
                path=out,
            )
        )
    print(
        f"TREC DL 2020, {len(runs)} runs from runs and qrels: build {took:.2f} s = "
        f"{took / evaluation:.2f} x the evaluation alone ({evaluation:.2f} s), "
        f"{out.stat().st_size / 1e6:.2f} MB; target <= 20 s"
    )
    if took > 20:
        missed.append("DL 2020 build time")
    rk.report(synthetic(300, 200), path=out)
    size = out.stat().st_size / 1e6
    print(f"synthetic 300 x 200: {size:.2f} MB page; target <= 5 MB")
    if size > 5:
        missed.append("300 x 200 page size")
    return missed


def seconds(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=5000)
    ap.add_argument("--topics", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    missed = []
    rank_correlations(np.arange(3.0), np.ones((3, 1)))  # compile or load the kernel
    example = rk.example_scores()
    means = example.mean(axis=1).to_numpy()
    grid = np.column_stack([example.to_numpy()[:, j] for j in range(0, example.shape[1], 4)])
    per_column(
        f"TREC DL 2019 example, {len(means)} systems, {grid.shape[1]} rankings", means, grid, args.repeat
    )
    X = synthetic(args.systems, args.topics)
    V = X.to_numpy()
    per_column(
        f"synthetic {args.systems} systems, 13 rankings",
        V.mean(axis=1),
        V[:, :13] + V.mean(axis=1, keepdims=True),
        args.repeat,
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        missed += campaign_build(folder)
        example_long = folder / "example.parquet"
        example.stack().rename("score").reset_index().to_parquet(example_long)
        memory_and_cpu(
            "TREC DL 2019 example (--example)",
            report_command(["--example"], folder / "example.html"),
            pandas_command(example_long, False),
            args.repeat,
        )
        long_path, wide_path = write_tables(X, folder)
        matrix_gb = V.nbytes / 1e9
        del X, V
        shape = f"synthetic {args.systems} x {args.topics} ({matrix_gb:.2f} GB matrix)"
        _, ratio = memory_and_cpu(
            f"{shape}, long table",
            report_command([str(long_path)], folder / "long.html"),
            pandas_command(long_path, False),
            args.repeat,
        )
        judged = args.systems * args.topics >= 5000 * 10000
        if ratio > 1 and judged:
            missed.append("long table: peak above pandas read_parquet + pivot")
        peak, _ = memory_and_cpu(
            f"{shape}, wide table",
            report_command([str(wide_path)], folder / "wide.html"),
            pandas_command(wide_path, True),
            args.repeat,
        )
        print(f"{shape}, wide table: peak {peak / matrix_gb:.1f} x the matrix; target <= 5")
        if peak > 5 * matrix_gb and judged:
            missed.append("wide table: peak above 5 x the matrix")
    if missed:
        print("MISSED: " + "; ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
