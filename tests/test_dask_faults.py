"""Faults of a Dask cluster at each phase of an evaluation: the output is the one computed without
a cluster, or one ``riskeval: error:`` line saying what failed and what to do (exit status 2).

- cluster start: a worker process that stops while the local cluster starts (a Dask preload script
  that exits the worker process) is started again; one that always stops is an error;
- the first broadcast of the evaluator, a piece of a run sent mid-run, a gather mid-run and the
  last gather: each fails once with the exception Dask raises there when a worker is lost (KeyError
  from ``scatter(..., broadcast=True)``, ``CommClosedError``, ``FutureCancelledError``), and the run
  is sent again; a fault at every try is a :class:`RiskevalError` naming the run;
- a worker process killed (SIGKILL) mid-run: the output is the same.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

import processes
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.distributed import client as client_module
from riskeval.errors import RiskevalError
from riskeval.evaluation import executors, run_pieces

pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A qrels file and three runs of 20 topics × 30 documents."""
    folder = tmp_path_factory.mktemp("faults")
    qrels = folder / "qrels"
    qrels.write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 21) for d in range(0, 30, 2)))
    runs = []
    for s in range(3):
        run = folder / f"s{s}.run"
        run.write_text(
            "".join(
                f"{t} Q0 d{(7 * d + 3 * s + t) % 30} {d + 1} {30 - d} s{s}\n"
                for t in range(1, 21)
                for d in range(30)
            )
        )
        runs.append(str(run))
    return str(qrels), runs


@pytest.fixture(scope="module")
def client():
    with client_module.cluster(2) as c:
        yield c


def expected(files):
    qrels, runs = files
    return rk.evaluate_runs(qrels, runs, "AP", n_jobs=1)


class Faults:
    """``client.scatter`` / ``client.gather`` of ``client`` failing at the calls numbered in ``at``
    (counted from 0 per method) with the exception Dask raises there."""

    def __init__(
        self, client, method: str, at: set[int] | None, exc: BaseException, *, broadcast=None, results=False
    ):
        self.client, self.method, self.at, self.exc, self.broadcast = client, method, at, exc, broadcast
        self.results = results  # count only the gathers of results, not the waits of back-pressure
        self.real = getattr(client, method)
        self.calls = 0
        self.raised = 0

    def __call__(self, *args, **kwargs):
        counted = self.broadcast is None or kwargs.get("broadcast", False) == self.broadcast
        counted = counted and not (self.results and kwargs.get("errors") == "skip")
        if counted:
            k, self.calls = self.calls, self.calls + 1
            if self.at is None or k in self.at:
                self.raised += 1
                raise self.exc
        return self.real(*args, **kwargs)


def closed():
    from distributed.comm.core import CommClosedError

    return CommClosedError("in <TCP (closed)>: Stream is closed")


def cancelled():
    from distributed.client import FutureCancelledError

    return FutureCancelledError("evaluate-run", "lost")


PHASES = {
    # the first scatter with broadcast=True sends the evaluator to every worker
    "first broadcast": ("scatter", {0}, lambda: KeyError("tcp://127.0.0.1:40000"), True),
    # a piece of a run cut on the client, sent to one worker mid-run
    "piece sent mid-run": ("scatter", {3}, closed, False),
    "gather mid-run": ("gather", {1}, cancelled, None),
    "last gather": ("gather", "last", cancelled, None),
}


@pytest.mark.parametrize("phase", PHASES)
def test_one_fault_at_each_phase_gives_the_values_without_a_cluster(files, client, monkeypatch, phase):
    method, at, make, broadcast = PHASES[phase]
    monkeypatch.setattr(run_pieces, "PIECE_BYTES", 8192)  # runs of ~18 KB: cut into pieces
    qrels, runs = files
    last = at == "last"
    if last:  # the number of the last gather of results, in a run without faults (the waits of
        # back-pressure between them depend on timing, so they are not counted)
        count = Faults(client, method, set(), make(), results=True)
        monkeypatch.setattr(client, method, count)
        rk.evaluate_runs(qrels, runs, "AP", client=client)
        at = {count.calls - 1}
    fault = Faults(client, method, at, make(), broadcast=broadcast, results=last)
    monkeypatch.setattr(client, method, fault)
    got = rk.evaluate_runs(qrels, runs, "AP", client=client)
    assert fault.raised == 1  # the fault was injected, once
    assert got.equals(expected(files))


@pytest.mark.parametrize("phase", PHASES)
def test_a_fault_at_every_try_names_the_run_and_what_to_do(files, client, monkeypatch, phase):
    method, _, make, broadcast = PHASES[phase]
    monkeypatch.setattr(run_pieces, "PIECE_BYTES", 8192)
    monkeypatch.setattr(client, method, Faults(client, method, None, make(), broadcast=broadcast))
    qrels, runs = files
    times = executors.RESUBMITS + 1
    with pytest.raises(
        RiskevalError, match=rf"lost the workers holding the data of .*s0\.run {times} times.*logs"
    ):
        rk.evaluate_runs(qrels, runs, "AP", client=client)


def test_the_command_line_says_it_in_one_line(files, client, monkeypatch, capsys):
    monkeypatch.setattr(client_module, "cluster", lambda *a, **k: contextlib.nullcontext(client))
    monkeypatch.setattr(client, "gather", Faults(client, "gather", None, cancelled()))
    monkeypatch.setattr(executors, "CLUSTER_START_S", 0.0)  # a cluster for runs this small too
    monkeypatch.setattr(executors, "default_jobs", lambda: 2)
    qrels, runs = files
    code, out, err = run_cli(["evaluate", "--qrels", qrels, "-m", "AP", "--workers", "2", *runs], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("riskeval: error: The Dask cluster lost") and err.count("\n") == 1, err


def test_a_worker_killed_mid_run_gives_the_same_values(files, client, monkeypatch):
    pids = client.run(os.getpid)
    real = client.gather
    killed = []

    def gather_after_a_kill(*args, **kwargs):
        if not killed:
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "gather", gather_after_a_kill)
    qrels, runs = files
    got = rk.evaluate_runs(qrels, runs, "AP", client=client)
    assert killed and got.equals(expected(files))


def _evaluate_on_a_local_cluster(files, tmp_path, preload: str) -> subprocess.CompletedProcess:
    """``riskeval evaluate --workers 2`` in a subprocess whose Dask workers run ``preload`` first."""
    script = tmp_path / "stop_worker.py"
    script.write_text(preload)
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__PRELOAD=f'["{script}"]')
    qrels, runs = files
    # a local cluster even for runs this small, which riskeval evaluates in-process by default
    start = (
        "import riskeval.evaluation.executors as e; e.CLUSTER_START_S = 0.0; e.default_jobs = lambda: 2; "
        "from riskeval.cli.main import main; main()"
    )
    command = [sys.executable, "-c", start, "evaluate", "--qrels", qrels, "-m", "AP", "--workers", "2"]
    return processes.run([*command, *runs], capture_output=True, text=True, env=env)


def test_a_worker_stopped_once_while_the_cluster_starts_is_started_again(files, tmp_path):
    marker = tmp_path / "stopped"
    once = f"import os\nif not os.path.exists({str(marker)!r}):\n    open({str(marker)!r}, 'w').close()\n    os._exit(1)\n"
    done = _evaluate_on_a_local_cluster(files, tmp_path, once)
    assert done.returncode == 0, done.stderr
    assert marker.exists()  # a worker did stop
    without = processes.run(
        [sys.executable, "-m", "riskeval", "evaluate", "--qrels", files[0], "-m", "AP", *files[1]],
        capture_output=True,
        text=True,
    )
    assert done.stdout == without.stdout and without.returncode == 0


def test_workers_that_always_stop_while_the_cluster_starts_are_one_error_line(files, tmp_path):
    done = _evaluate_on_a_local_cluster(files, tmp_path, "import os\nos._exit(1)\n")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        "riskeval: error: The local Dask cluster of 2 worker process(es) did not start"
    )
    assert done.stderr.count("\n") == 1 and "fewer workers (--workers)" in done.stderr, done.stderr
