"""Output files are written all or nothing: a write that fails part-way (a full disk) leaves the
previous file intact and no temporary file behind, and the error names the file."""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import processes
import pytest

import riskeval as rk
from riskeval.cli.main import main
from riskeval.errors import RiskevalError
from riskeval.io import atomic
from riskeval.io.atomic import OutputError, atomic_open, check_target, refuse_inputs, write_atomic


class DiskFull:
    """A file object that writes ``budget`` bytes, then fails as a full disk does."""

    def __init__(self, handle, budget: int):
        self.handle, self.budget = handle, budget

    def write(self, data):
        if len(data) > self.budget:
            self.handle.write(data[: self.budget])
            self.handle.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.budget -= len(data)
        return self.handle.write(data)

    def __getattr__(self, name):
        return getattr(self.handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()


@pytest.fixture
def full_disk(monkeypatch):
    """Every file the atomic writer opens fails after 10 bytes."""
    real = os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: DiskFull(real(*a, **k), 10))


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_write_atomic_writes_and_replaces(tmp_path):
    path = tmp_path / "out.txt"
    assert write_atomic(path, "first\n") == path
    os.chmod(path, 0o640)
    write_atomic(path, b"second\n")
    assert path.read_bytes() == b"second\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the permissions of the file replaced
    assert leftovers(tmp_path) == []


def test_failing_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, full_disk):
    path = tmp_path / "report.html"
    path.write_text("the good report")
    with pytest.raises(OutputError, match=r"cannot write .*report\.html: No space left on device"):
        write_atomic(path, "x" * 1000)
    assert path.read_text() == "the good report"
    assert leftovers(tmp_path) == []


def test_failing_write_of_a_new_file_leaves_nothing(tmp_path, full_disk):
    with pytest.raises(OutputError, match="new.csv"):
        write_atomic(tmp_path / "new.csv", "a,b\n" * 100)
    assert list(tmp_path.iterdir()) == []


def test_exception_inside_the_block_keeps_the_old_file(tmp_path):
    path = tmp_path / "table.csv"
    path.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_open(path) as handle:
        handle.write("half of the new")
        raise KeyboardInterrupt
    assert path.read_text() == "old"
    assert leftovers(tmp_path) == []


def test_unwritable_folder_names_the_file(tmp_path):
    with pytest.raises(OutputError, match=r"cannot write .*absent.*out\.html"):
        write_atomic(tmp_path / "absent" / "out.html", "x")
    assert isinstance(OutputError("x"), RiskevalError)


def test_an_input_is_never_overwritten(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("data")
    with pytest.raises(OutputError, match="refusing to write the output over an input file"):
        write_atomic(tmp_path / "." / "in.csv", "report", inputs=[source])
    os.symlink(source, tmp_path / "link.csv")
    with pytest.raises(OutputError):
        refuse_inputs(tmp_path / "link.csv", [str(source)])
    refuse_inputs(tmp_path / "other.csv", [source, None])  # another file is fine
    assert source.read_text() == "data"


def test_special_targets_are_refused_and_left_as_they_are(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "real.txt").write_text("real")
    (tmp_path / "link.txt").symlink_to("real.txt")
    (tmp_path / "folder").mkdir()
    cases = {
        fifo: "it is a FIFO (named pipe)",
        tmp_path / "link.txt": "it is a symbolic link (to real.txt); give the file it names",
        tmp_path / "folder": "it is a directory",
    }
    for target, reason in cases.items():
        with pytest.raises(OutputError, match=re.escape(f"cannot write {target}: {reason}.")):
            write_atomic(target, "new")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text() == "real"
    assert (tmp_path / "folder").is_dir()
    assert leftovers(tmp_path) == []


def test_devices_are_refused_before_any_write():
    # check_target only looks (lstat): it never opens or replaces the device
    with pytest.raises(OutputError, match="it is a character device"):
        check_target(os.devnull)


def test_new_paths_and_regular_files_are_targets(tmp_path):
    check_target(tmp_path / "new.txt")
    (tmp_path / "old.txt").write_text("x")
    check_target(tmp_path / "old.txt")


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_standard_output_is_written_as_a_stream(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    print("first", end=" ")
    write_atomic(name, "<html>é</html>", inputs=["-"])  # standard output is never an input file
    with atomic_open(name) as handle:
        handle.write("text")
    assert capsys.readouterr().out == "first <html>é</html>text"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_every_exit_path_removes_the_temporary(tmp_path, stop):
    path = tmp_path / "out.csv"
    with pytest.raises(stop), atomic_open(path, "wb") as handle:
        handle.write(b"part")
        raise stop
    assert list(tmp_path.iterdir()) == []


def matrix() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.random((4, 6)), index=list("abcd"), columns=[str(t) for t in range(6)])


@pytest.mark.slow
def test_report_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("the good report")
    result = rk.report(matrix(), alphas=[0, 1])
    real = os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: DiskFull(real(*a, **k), 100))
    with pytest.raises(OutputError, match="report.html"):
        result.save(path)
    assert path.read_text() == "the good report"
    assert leftovers(tmp_path) == []


@pytest.mark.slow
def test_command_line_report_on_a_full_disk(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    matrix().rename_axis("system").to_csv("scores.csv")
    (tmp_path / "report.html").write_text("the good report")
    real = os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: DiskFull(real(*a, **k), 100))
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "scores.csv", "-b", "mean", "-o", "report.html"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.startswith("riskeval: error: cannot write report.html: No space left on device")
    assert "Traceback" not in err
    assert (tmp_path / "report.html").read_text() == "the good report"
    assert leftovers(tmp_path) == []


# A report whose write stops before the file is complete (fsync waits), so that SIGTERM reaches it
# while the temporary file exists.
_SLOW_REPORT = """
import os, sys, time
from riskeval.cli.main import main
from riskeval.io import atomic
atomic.os.fsync = lambda fd: time.sleep(60)
main(["report", "scores.csv", "-b", "mean", "-o", "report.html"])
"""


@pytest.mark.slow  # a report in a subprocess
@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX signals")
def test_sigterm_during_a_report_removes_the_temporary_and_exits_143(tmp_path):
    matrix().rename_axis("system").to_csv(tmp_path / "scores.csv")
    (tmp_path / "report.html").write_text("the good report")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-c", _SLOW_REPORT], cwd=tmp_path, env=env, stderr=subprocess.PIPE
    )
    processes.limit_cpu(process.pid)
    deadline = time.monotonic() + processes.HANG_S
    while not leftovers(tmp_path):
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "the report never opened its temporary file"
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=processes.HANG_S)
    assert process.returncode == 128 + signal.SIGTERM, err.decode()
    assert b"Traceback" not in err
    assert leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "scores.csv"]
    assert (tmp_path / "report.html").read_text() == "the good report"


def test_sigterm_handler_is_restored_after_the_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit):
        main(["report", "absent.csv", "-o", "report.html"])
    assert signal.getsignal(signal.SIGTERM) is before


_KILLED_WRITER = """
import os, signal, sys
from riskeval.io.atomic import atomic_open
with atomic_open(sys.argv[1]) as handle:
    handle.write("half of the ")
    handle.flush()
    if sys.argv[2] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    print("writing", flush=True)
    sys.stdin.readline()  # until the test lets it finish
    handle.write("new file")
"""


def writer(path, how: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(path), how],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_the_next_write_removes_the_temporary_of_a_killed_writer(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("the old file")
    killed = writer(path, "kill")
    assert killed.wait(timeout=processes.HANG_S) == -signal.SIGKILL
    [stale] = leftovers(tmp_path)
    assert stale.startswith(f".out.csv.{killed.pid}-") and (tmp_path / stale).read_text() == "half of the "
    assert path.read_text() == "the old file"
    other = tmp_path / ".out.csv.bak.1-00000000.abcdefgh.tmp"  # another target's name: not ours
    other.write_text("x")
    write_atomic(path, "new")
    assert path.read_text() == "new" and leftovers(tmp_path) == [other.name]


@pytest.mark.skipif(os.name != "posix", reason="process ids")
def test_temporaries_of_live_writers_and_other_machines_are_left_alone(tmp_path):
    path = tmp_path / "out.csv"
    live = writer(path, "wait")
    assert live.stdout.readline() == "writing\n"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    elsewhere = tmp_path / f".out.csv.{dead.stdout.strip()}-{'0' * 8}.abcdefgh.tmp"
    elsewhere.write_text("a writer's on another machine sharing the folder")
    mine = atomic._host_tag()
    dead_here = tmp_path / f".out.csv.{dead.stdout.strip()}-{mine}.abcdefgh.tmp"
    dead_here.write_text("a dead writer's on this machine")
    assert atomic.remove_stale_temporaries(path) == [dead_here]
    write_atomic(path, "from the test")
    assert path.read_text() == "from the test"
    live.communicate("go\n", timeout=processes.HANG_S)  # the concurrent writer finishes its own write
    assert live.returncode == 0 and path.read_text() == "half of the new file"
    assert leftovers(tmp_path) == [elsewhere.name]
