"""``--scheduler ADDRESS`` / ``--workers N``: the CLI on a Dask cluster gives the local output.

The slow test starts a real ``dask scheduler`` and two ``dask worker`` processes on localhost (free
ports, shut down at the end) and runs ``riskeval evaluate``, ``risk`` and ``report`` against them;
it also evaluates runs split into pieces of whole topics on those workers."""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import processes
import pytest
from cli_runner import run_cli
from shared_data import shared_data

from riskeval.cli.main import main
from riskeval.evaluation import run_pieces as piece_reader


def run_main(args: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out = capsys.readouterr()
    return exit_info.value.code, out.out, out.err


def test_scheduler_without_dask_names_the_extra(tmp_path, capsys, monkeypatch):
    (tmp_path / "q").write_text("1 0 d 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d 1 1.0 a\n")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    evaluate = ["evaluate", "--qrels", str(tmp_path / "q"), str(tmp_path / "a.run")]
    code, _, err = run_main([*evaluate, "--scheduler", "tcp://127.0.0.1:1"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and 'pip install "riskeval[dask]"' in err, err
    code, _, err = run_main(["risk", "--example", "--workers", "2"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and 'pip install "riskeval[dask]"' in err, err
    # a run too small for a cluster to pay is evaluated here: the extra is not needed
    code, _, err = run_cli([*evaluate, "--workers", "2"], capsys)
    assert code == 0 and "evaluating here instead" in err and "pip install" not in err, err
    code, _, err = run_main(
        ["risk", "--example", "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"], capsys
    )
    assert code == 2 and "either --scheduler" in err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers, each its own process, on free localhost ports."""
    distributed = pytest.importorskip("distributed")
    dask = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    address = f"tcp://127.0.0.1:{free_port()}"
    common = ["--no-dashboard"]
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], *common],
            stdout=subprocess.DEVNULL,
            stderr=open(tmp_path / "scheduler.log", "w"),
        )
    ]
    try:
        for k in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        dask,
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--memory-limit",
                        "1GB",
                        "--name",
                        f"w{k}",
                        *common,
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=open(tmp_path / f"worker{k}.log", "w"),
                )
            )
        with distributed.Client(address, timeout=f"{processes.HANG_S}s") as client:
            client.wait_for_workers(2, timeout=processes.HANG_S)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
        deadline = time.monotonic() + 30
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def cli(*args: str) -> str:
    done = processes.run([sys.executable, "-m", "riskeval", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::riskeval.errors.RiskevalWarning")
def test_cli_on_a_real_scheduler_and_two_workers(cluster, tmp_path, monkeypatch):
    import distributed

    import riskeval as rk

    data = shared_data("trec-dl-2019-passage")
    qrels = str(data / "qrels.dl19-passage.txt")
    runs = [str(p) for p in sorted((data / "runs").glob("input.*.gz"))[:6]]
    local = cli(
        "evaluate",
        "--qrels",
        qrels,
        "-m",
        "nDCG@10",
        "-m",
        "AP(rel=2)",
        "--per-topic",
        "--format",
        "csv",
        *runs,
    )
    remote = cli(
        "evaluate",
        "--per-topic",
        "--qrels",
        qrels,
        "-m",
        "nDCG@10",
        "-m",
        "AP(rel=2)",
        "--format",
        "csv",
        "--scheduler",
        cluster,
        *runs,
    )
    assert remote == local and len(local.splitlines()) == 1 + 6 * 43 * 2
    risk_args = ["risk", "--qrels", qrels, "--alpha", "0,5", "--format", "csv", *runs]
    assert cli(*risk_args, "--scheduler", cluster) == cli(*risk_args)
    # a long score table as Parquet: risk computed by the workers, in two passes over the table
    pd.read_csv(io.StringIO(local)).to_parquet(tmp_path / "scores.parquet", index=False)
    table_args = [
        "risk",
        str(tmp_path / "scores.parquet"),
        "-m",
        "AP(rel=2)",
        "--alpha",
        "0,5",
        "--format",
        "csv",
    ]
    on_cluster = pd.read_csv(io.StringIO(cli(*table_args, "--scheduler", cluster)))
    in_memory = pd.read_csv(io.StringIO(cli(*table_args)))
    assert on_cluster[["system", "alpha"]].equals(in_memory[["system", "alpha"]])
    numeric = [c for c in in_memory.columns if in_memory[c].dtype.kind == "f"]
    np.testing.assert_allclose(on_cluster[numeric], in_memory[numeric], rtol=1e-9, atol=1e-12)
    out = tmp_path / "report.html"
    printed = cli("report", "--qrels", qrels, "--scheduler", cluster, "-o", str(out), *runs)
    assert str(out) in printed and out.stat().st_size > 10_000

    # runs split into pieces of whole topics on the client, evaluated by the two workers
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 2**20)
    with distributed.Client(cluster) as client:
        split = rk.io.evaluate_runs_long(qrels, runs, ["nDCG@10", "AP(rel=2)"], client=client)
        workers = {w["name"] for w in client.scheduler_info()["workers"].values()}
    assert workers == {"w0", "w1"}
    expected = rk.io.evaluate_runs_long(qrels, runs, ["nDCG@10", "AP(rel=2)"], n_jobs=1)
    assert split.equals(expected)
