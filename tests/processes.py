"""Subprocesses of the tests, bounded by the CPU time they use rather than by the clock.

A busy machine (other jobs, numba compiling the kernels on a cold cache) makes a command take
longer on the clock without making it do more work, so a test never fails for a wall-clock limit
that such a machine can reach: each process gets a CPU-time limit (``RLIMIT_CPU``, set on the
process as it starts; the kernel stops a process that spins past it), and the clock only stops a
process that waits for ever (a lock, a pipe) after :data:`HANG_S`.
"""

from __future__ import annotations

import resource
import subprocess
from collections.abc import Sequence
from typing import Any

#: CPU seconds a test's command may use: ten times what the slowest one uses on a cold cache.
CPU_S = 600
#: Wall-clock seconds after which a command that has not finished is taken as hung.
HANG_S = 3600


def limit_cpu(pid: int, seconds: int = CPU_S) -> None:
    """Give the process ``pid`` (and the processes it starts after this) a CPU-time limit."""
    resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 10))


def run(args: str | Sequence[str], *, input: str | bytes | None = None, check: bool = False, **kwargs: Any):
    """:func:`subprocess.run` of ``args`` (the same keywords; ``capture_output``, ``text``...), under
    a CPU-time limit of :data:`CPU_S` and stopped only when hung (:data:`HANG_S`)."""
    if kwargs.pop("capture_output", False):
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with subprocess.Popen(args, **kwargs) as process:
        limit_cpu(process.pid)
        try:
            out, err = process.communicate(input, timeout=HANG_S)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if check:
        done.check_returncode()
    return done
