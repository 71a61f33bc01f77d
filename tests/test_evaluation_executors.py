"""Where runs are evaluated: the number of processes follows ``n_jobs`` and the size of the runs
only, the process pool survives numba's threads in the parent, and every executor gives the values
of one process."""

from __future__ import annotations

import gzip
import os
import sys
import textwrap

import processes
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.evaluation import executors


def _runs(folder, count=3, lines=1):
    paths = []
    for k in range(count):
        path = folder / f"r{k}.run"
        path.write_text("".join(f"1 Q0 d{i} {i + 1} {lines - i} t{k}\n" for i in range(lines)))
        paths.append(str(path))
    return paths


def test_processes_follow_n_jobs_and_size_only(tmp_path, monkeypatch):
    runs = _runs(tmp_path)
    assert executors.processes(None, runs) == 1  # below PARALLEL_MIN_BYTES of runs
    assert executors.processes(5, runs) == 3  # asked for: at most one per run
    assert executors.processes(2, runs) == 2
    monkeypatch.setattr(executors, "PARALLEL_MIN_BYTES", sum(os.path.getsize(p) for p in runs))
    assert executors.processes(None, runs) == min(3, executors.default_jobs())
    assert executors.processes(None, runs[:2]) == 1
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(RiskevalError, match="n_jobs"):
            executors.processes(bad, runs)


def test_default_jobs_are_the_cpus_this_process_may_use():
    if hasattr(os, "sched_getaffinity"):
        assert executors.default_jobs() == len(os.sched_getaffinity(0))
    else:
        assert executors.default_jobs() == (os.cpu_count() or 1)


def _campaign(folder):
    """Qrels and four gzipped runs with ties, judged and unjudged topics."""
    (folder / "qrels").write_text(
        "".join(f"{t} 0 d{d} {(t * d) % 3} \n" for t in range(1, 9) for d in range(0, 40, 3))
    )
    paths = []
    for k in range(4):
        lines = [f"{t} Q0 d{d} {d + 1} {(d * (k + 2)) % 7 / 4} r{k}" for t in range(1, 11) for d in range(30)]
        path = folder / f"r{k}.run.gz"
        path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
        paths.append(str(path))
    return str(folder / "qrels"), paths


def test_pool_after_numba_threads_gives_the_values_of_one_process(tmp_path):
    """numba's OpenMP threads run in the parent before the pool starts: the workers (spawned, not
    forked) live, and their values equal those of this process and of ir_measures."""
    qrels, runs = _campaign(tmp_path)
    script = textwrap.dedent(
        f"""
        import warnings
        import numpy as np
        from numba import njit, prange
        import riskeval as rk

        @njit(parallel=True)
        def total(x):
            s = 0.0
            for i in prange(x.size):
                s += x[i]
            return s

        total(np.ones(100_000))  # starts numba's thread pool in this process
        warnings.simplefilter("ignore")
        qrels, runs, measures = {qrels!r}, {runs!r}, ["nDCG@10", "AP", "ERR@20"]
        pooled = rk.io.evaluate_runs_long(qrels, runs, measures, n_jobs=2)
        assert pooled.equals(rk.io.evaluate_runs_long(qrels, runs, measures, n_jobs=1))
        reference = rk.io.evaluate_runs_long(qrels, runs, measures, n_jobs=1, engine="ir_measures")
        assert pooled.equals(reference)
        print("pooled", len(pooled))
        """
    )
    done = processes.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "pooled 96" in done.stdout  # 3 measures × 4 runs × 8 judged topics


def test_unknown_engine_is_refused(tmp_path):
    qrels, runs = _campaign(tmp_path)
    with pytest.raises(RiskevalError, match="'engine'.*'compiled', 'ir_measures'"):
        rk.evaluate_runs(qrels, runs, engine="pytrec_eval")
