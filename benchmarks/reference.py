"""Fair references for the benchmarks: what a good engineer writes without riskeval.

Each reference is short and idiomatic (batched numpy vectorised over resamples, scipy, ir_measures,
a numpy pass), computes the same statistic as the riskeval call it is timed against, and is never
a Python loop per resample or per item.  The benchmarks print riskeval's time as a ratio against
these in the same run.
"""

from __future__ import annotations

import numpy as np

# --------------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Permutation (sign-flip) test and max-T table
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Randomised Tukey HSD
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Evaluation of runs
# --------------------------------------------------------------------------------------------------


def ir_measures_per_topic(
    qrels: str, runs: list[str], measures: list[str]
) -> dict[tuple[str, str, str], float]:
    """ir_measures' own route: the qrels read once, then ``read_trec_run`` + ``iter_calc`` per run
    file (``calc_aggregate`` does the same work and averages); ``{(run file, topic, measure): value}``."""
    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in measures]
    judged = list(ir_measures.read_trec_qrels(qrels))
    return {
        (run, m.query_id, str(m.measure)): m.value
        for run in runs
        for m in ir_measures.iter_calc(parsed, judged, ir_measures.read_trec_run(run))
    }


def zcat_lines(runs: list[str]) -> int:
    """The floor every route pays, in one process: ``zcat RUNS | wc -l`` (decompressing the runs)."""
    import shlex
    import subprocess

    command = f"zcat {' '.join(map(shlex.quote, runs))} | wc -l"
    return int(subprocess.run(command, shell=True, check=True, capture_output=True, text=True).stdout)


# --------------------------------------------------------------------------------------------------
# Risk tables: risk_table, zrisk, georisk, long tables
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Report and analyses: rank correlations, bias study
# --------------------------------------------------------------------------------------------------

__all__ = ["np"]
