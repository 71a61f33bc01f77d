"""Ctrl-C (SIGINT) stops a long command at once: exit status 130, nothing on standard output, the
previous output file unchanged and no temporary file left, no worker process left running.

Each command below runs for minutes (or, reading FIFOs that nobody writes, forever) unless it
stops; the bound of each wait is generous, far from the time the interrupted command takes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import run
from shared_data import shared_data

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)"),
]

#: Seconds to wait for what must happen; a command that is not interrupted runs much longer.
BOUND = 120


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def state(pid: int) -> str:
    """The state of process ``pid`` (R running, S sleeping, Z ended: a zombie), "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def asleep(pids: list[int]) -> bool:
    """Each of ``pids`` started (it has run) and now blocked: asleep, its CPU time not moving over
    half a second (a worker waiting on its run, past its imports)."""
    first = [cpu_seconds(pid) for pid in pids]
    time.sleep(0.5)
    return (
        min(first, default=0) > 0.05
        and [cpu_seconds(pid) for pid in pids] == first
        and all(state(pid) == "S" for pid in pids)
    )


def running(pid: int) -> bool:
    return state(pid) not in ("", "Z")


def wait_for(condition, what: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        assert process.poll() is None, f"the command ended before {what}: {process.communicate()[1]}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.1)


def interrupt(args: list, ready, cwd: Path) -> tuple[subprocess.CompletedProcess, list[int]]:
    """Run ``riskeval ARGS``, send SIGINT once ``ready(pid)``; its outcome and its children then."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "riskeval", *map(str, args)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: ready(process.pid), "ready to be interrupted", process)
        kids = children(process.pid)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=BOUND)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return subprocess.CompletedProcess(args, process.returncode, out, err), kids


def computing(pid: int) -> bool:
    """Past the imports (and a first compilation of the kernels): in the command's work."""
    return cpu_seconds(pid) > 4


def assert_stopped(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    assert done.stdout == ""
    assert done.stderr.endswith("Aborted.\n") and "Traceback" not in done.stderr, done.stderr


#: ``riskeval`` whose command is one compiled kernel returning a tuple with an array, which numba
#: boxes by calling back into Python (``numba.core.serialize._numba_unpickle``); the signal
#: (argv[1]) comes from inside that callback, where an exception cannot propagate (numba then
#: reports a SystemError, or the process crashes): the moment that an interrupt of a bootstrap can
#: land in.
IN_A_CALLBACK_FROM_COMPILED_CODE = """
import os, signal, sys
import numba, numpy as np
import numba.core.serialize as serialize
from riskeval.cli import main as entry

unpickle = serialize._numba_unpickle

def ctrl_c_then_unpickle(*args):
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    return unpickle(*args)

@numba.njit
def kernel(n):
    return np.zeros(n), n

def command(*args, **kwargs):
    kernel(3)
    print("not interrupted")

serialize._numba_unpickle = ctrl_c_then_unpickle
entry.cli.main = command
entry.main()
"""


@pytest.mark.parametrize(("name", "status", "message"), [("SIGINT", 130, "Aborted.\n"), ("SIGTERM", 143, "")])
def test_a_signal_in_a_callback_from_compiled_code(tmp_path, name, status, message):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = run(
        [sys.executable, "-c", IN_A_CALLBACK_FROM_COMPILED_CODE, name],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout, done.stderr) == (status, "", message)


def test_risk_with_a_bootstrap(tmp_path):
    args = ["risk", "--example", "-b", "bm25base_p", "--test", "bootstrap", "--n-resamples", "10000000"]
    done, _ = interrupt(args, computing, tmp_path)
    assert_stopped(done)


def test_report_leaves_the_previous_report(tmp_path):
    (tmp_path / "report.html").write_text("the previous report")
    args = ["report", "--example", "--test", "bootstrap", "--n-resamples", "10000000", "-o", "report.html"]
    done, _ = interrupt(args, computing, tmp_path)
    assert_stopped(done)
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    assert (tmp_path / "report.html").read_text() == "the previous report"


def test_ltr_train_writes_no_model(tmp_path):
    data = shared_data("letor-lightgbm-lambdarank") / "rank.train"
    args = ["ltr", "train", data, "--objective", "tfaro", "--baseline-feature", "1", "--alpha", "1"]
    done, _ = interrupt([*args, "--rounds", "100000", "-o", "model.txt"], computing, tmp_path)
    assert_stopped(done)
    assert list(tmp_path.iterdir()) == []


def test_evaluate_stops_its_worker_processes(tmp_path):
    """Two worker processes each wait on a FIFO that this test holds open and never writes: the
    pool would wait for them forever; the command kills them and ends."""
    held = []
    for name in ("a.run", "b.run"):
        os.mkfifo(tmp_path / name)
        held.append(os.open(tmp_path / name, os.O_RDWR))  # a writer that writes nothing
    (tmp_path / "qrels").write_text("1 0 d 1\n")

    def workers_waiting(pid: int) -> bool:
        pool = [c for c in children(pid) if b"multiprocessing-fork" in command_line(c)]
        # each started (its imports done) and now asleep, reading its FIFO
        return len(pool) == 2 and asleep(pool)

    args = ["evaluate", "--qrels", "qrels", "--jobs", "2", "a.run", "b.run"]
    try:
        done, kids = interrupt(args, workers_waiting, tmp_path)
    finally:
        for fd in held:
            os.close(fd)
    assert done.returncode == 128 + signal.SIGINT and done.stdout == "", done.stderr
    deadline = time.monotonic() + BOUND
    while any(running(k) for k in kids):
        assert time.monotonic() < deadline, [k for k in kids if running(k)]
        time.sleep(0.1)


@pytest.mark.parametrize("moment", [0.0, 0.02, 0.1, 0.5, "started"])
def test_ctrl_c_to_the_whole_command_while_its_workers_start(tmp_path, moment):
    """A terminal sends Ctrl-C to every process of the command: the worker processes, however far
    they are in their start (spawned, importing, waiting on their run), end without a word, and
    the command alone says ``Aborted.`` (exit status 130)."""
    held = []
    for name in ("a.run", "b.run"):
        os.mkfifo(tmp_path / name)
        held.append(os.open(tmp_path / name, os.O_RDWR))  # the workers wait on them for ever
    (tmp_path / "qrels").write_text("1 0 d 1\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "riskeval", "evaluate", "--qrels", "qrels", "--jobs", "2", "a.run", "b.run"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )
    try:
        pool = lambda: [c for c in children(process.pid) if b"multiprocessing-fork" in command_line(c)]  # noqa: E731
        deadline = time.monotonic() + BOUND
        while len(pool()) < 2:
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "no worker processes"
            time.sleep(0.002)
        if moment == "started":
            wait_for(lambda: asleep(pool()), "started", process)
        else:
            time.sleep(moment)
        kids = children(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=BOUND)
    finally:
        for fd in held:
            os.close(fd)
        if process.poll() is None:
            process.kill()
            process.wait()
    assert assert_stopped(subprocess.CompletedProcess([], process.returncode, out, err)) is None
    assert err.strip() == "Aborted.", err  # not a word from a worker
    deadline = time.monotonic() + BOUND
    while any(running(k) for k in kids):
        assert time.monotonic() < deadline, [k for k in kids if running(k)]
        time.sleep(0.1)
