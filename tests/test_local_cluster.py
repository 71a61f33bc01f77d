"""``evaluate --workers N`` on one machine: a local Dask cluster is started only where it saves wall
time (the evaluation's time saved on N processes exceeds the cluster's start); otherwise the runs are
evaluated in this process, with a warning that says why and from what size a cluster pays."""

from __future__ import annotations

import warnings

import pytest
from cli_runner import run_cli

from riskeval.errors import RiskevalWarning
from riskeval.evaluation import executors


def _run(path, size: int) -> str:
    path.write_bytes(b"x" * size)
    return str(path)


def test_a_cluster_pays_from_the_size_where_the_saved_time_exceeds_its_start(tmp_path, monkeypatch):
    monkeypatch.setattr(executors, "default_jobs", lambda: 4)
    monkeypatch.setattr(executors, "CLUSTER_START_S", 1.0)
    monkeypatch.setattr(executors, "SECONDS_PER_TEXT_BYTE", 0.01)
    # 2 workers save half the time: 1 s from 200 bytes of text; a gzip file counts 4 times its size
    assert executors.local_cluster_pays(2, [_run(tmp_path / "a.run", 201)])
    assert executors.local_cluster_pays(2, [_run(tmp_path / "b.run.gz", 51)])
    # 4 workers save three quarters: from 134 bytes
    assert executors.local_cluster_pays(4, [_run(tmp_path / "c.run", 134)])
    assert executors.local_cluster_pays(2, None)  # not runs (a score table): the cluster is used
    with pytest.warns(RiskevalWarning) as caught:
        assert not executors.local_cluster_pays(2, [_run(tmp_path / "d.run", 199)])
        assert not executors.local_cluster_pays(1, [_run(tmp_path / "e.run", 10**6)])
    assert str(caught[0].message) == (
        "--workers 2: a local Dask cluster would take longer than this process for 0 MB of run text "
        "(it pays from about 0.0 GB of run text with 2 CPUs); evaluating here instead. --scheduler "
        "evaluates on a running cluster."
    )
    assert "(this process may use 4 CPU)" in str(caught[1].message)  # one worker never pays
    monkeypatch.setattr(executors, "default_jobs", lambda: 1)  # nor more workers than CPUs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not executors.local_cluster_pays(8, [_run(tmp_path / "f.run", 10**6)])


def test_evaluate_with_workers_runs_here_where_a_cluster_does_not_pay(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    import riskeval.distributed.client as client_module

    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(client_module, "cluster", no_cluster)
    (tmp_path / "q").write_text("1 0 d 1\n2 0 e 2\n")
    (tmp_path / "a.run").write_text("1 Q0 d 1 1.0 a\n2 Q0 x 1 2.0 a\n2 Q0 e 2 1.0 a\n")
    args = [
        "evaluate",
        "--qrels",
        str(tmp_path / "q"),
        "--per-topic",
        "--format",
        "csv",
        str(tmp_path / "a.run"),
    ]
    outputs = [run_cli([*args, *extra], capsys) for extra in (["-j", "1"], ["--workers", "2"])]
    assert [code for code, _, _ in outputs] == [0, 0]
    assert outputs[1][1] == outputs[0][1]
    assert outputs[0][2] == ""
    assert outputs[1][2].startswith("riskeval: warning: --workers 2: a local Dask cluster would take longer")
    assert outputs[1][2].count("\n") == 1
