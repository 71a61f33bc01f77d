"""The default number of evaluation worker processes: CPUs that other work leaves idle, measured
from /proc/stat with this process's own CPU time added back; one process for small inputs."""

from __future__ import annotations

import os

import pytest

from riskeval import effectiveness
from riskeval.errors import RiskevalError


def _fake_times(monkeypatch, before, after, own_seconds=0.0):
    readings = iter([before, after])
    monkeypatch.setattr(effectiveness, "_cpu_times", lambda: next(readings))
    clock = iter([10.0, 10.0 + own_seconds])
    monkeypatch.setattr(effectiveness.time, "process_time", lambda: next(clock))
    monkeypatch.setattr(effectiveness.time, "sleep", lambda s: None)
    monkeypatch.setattr(effectiveness.os, "cpu_count", lambda: 2)


def test_idle_share_of_the_machine(monkeypatch):
    # 20 ticks in all, 10 idle: one of two CPUs idle
    _fake_times(monkeypatch, [100, 0, 0, 100, 0, 0, 0, 0], [105, 0, 0, 110, 0, 0, 0, 5])
    assert effectiveness._idle_cpus(2) == 1
    # everything busy with other work: no CPU idle (the caller then runs one process)
    _fake_times(monkeypatch, [100, 0, 0, 100, 0, 0, 0, 0], [120, 0, 0, 100, 0, 0, 0, 0])
    assert effectiveness._idle_cpus(2) == 0


def test_own_work_during_the_measure_is_not_counted_as_busy(monkeypatch):
    # this process used one CPU for the whole interval (loading kernels): the other was idle
    ticks = os.sysconf("SC_CLK_TCK")
    _fake_times(monkeypatch, [0] * 8, [ticks // 10, 0, 0, ticks // 10, 0, 0, 0, 0], own_seconds=0.1)
    ran = []
    assert effectiveness._idle_cpus(2, during=lambda: ran.append(1)) == 2 and ran == [1]


def test_without_proc_stat_the_load_average_decides(monkeypatch):
    def missing():
        raise OSError("no /proc/stat")

    monkeypatch.setattr(effectiveness, "_cpu_times", missing)
    monkeypatch.setattr(effectiveness.os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert effectiveness._idle_cpus(4) == 3


def test_small_inputs_and_explicit_counts(tmp_path, monkeypatch):
    runs = []
    for k in range(3):
        path = tmp_path / f"r{k}"
        path.write_text("1 Q0 d 1 1 t\n")
        runs.append(str(path))
    monkeypatch.setattr(effectiveness, "_idle_cpus", lambda *a, **k: pytest.fail("not measured"))
    assert effectiveness._workers(None, runs) == 1  # below 8 MB of runs
    assert effectiveness._workers(5, runs) == 3  # at most one per run
    with pytest.raises(RiskevalError, match="n_jobs"):
        effectiveness._workers(0, runs)
