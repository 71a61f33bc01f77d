"""Writing output files safely: all or nothing, never over an input or a special file.

:func:`write_atomic` writes to a temporary file in the target's folder, flushes it to the disk
(``fsync``) and renames it over the target (``os.replace``, atomic on POSIX and Windows within one
file system).  A failure part-way (a full disk, an exception, ``KeyboardInterrupt``) leaves the
previous file as it was and no temporary file behind; the error names the file.

The target must be a new path or a regular file: a directory, a symbolic link, a device
(``/dev/null``), a FIFO or a socket is refused (:func:`check_target`), since renaming over it would
replace the special file by a regular one.  ``-`` and ``/dev/stdout`` (:data:`STDOUT_NAMES`) are
standard output, written as a stream.  :func:`refuse_inputs` stops a command from writing over one
of the files it reads.

A writer killed outright (SIGKILL, a power cut) cannot remove its temporary file.  Its name,
``.NAME.PID-HOST.XXXXXXXX.tmp``, says for which target, by which process and on which machine
(:func:`_host_tag`) it was written, so the next write to the same target removes the temporaries of
writers on this machine whose process is gone (:func:`remove_stale_temporaries`); those of live
writers (a concurrent write) and of other machines (a shared network folder) are left alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from riskeval.errors import OutputError

#: Output paths that mean standard output, written as a stream rather than replaced.
STDOUT_NAMES = ("-", "/dev/stdout")


def write_atomic(
    path: str | os.PathLike, data: str | bytes, *, encoding: str = "utf-8", inputs: Iterable = ()
) -> Path:
    """Write ``data`` (text as ``encoding``, or bytes) to ``path`` atomically; return the path.

    ``inputs``: files the caller has read, which ``path`` must not be (see :func:`refuse_inputs`).
    ``path`` in :data:`STDOUT_NAMES` writes ``data`` to standard output.  Raises
    :class:`OutputError` naming the file when it is not a regular file (:func:`check_target`) or
    cannot be written; the previous content of ``path``, if any, is then unchanged.
    """
    with atomic_open(path, "wb", inputs=inputs) as handle:
        handle.write(data.encode(encoding) if isinstance(data, str) else data)
    return Path(path)


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike, mode: str = "w", *, encoding: str = "utf-8", inputs: Iterable = ()
) -> Iterator[IO]:
    """A file handle whose content replaces ``path`` when the block ends without an exception.

    ``mode`` is ``"w"`` (text, ``encoding``, ``\\n`` line breaks) or ``"wb"``.  On any exception
    (``KeyboardInterrupt`` included) the temporary file is removed and ``path`` is left as it was.
    ``path`` in :data:`STDOUT_NAMES`: a handle on standard output, flushed when the block ends.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a new file: mode 'w' or 'wb', not {mode!r}")
    if is_stdout(path):
        sys.stdout.flush()  # what was printed before comes first
        stream: IO = sys.stdout if mode == "w" else sys.stdout.buffer
        try:
            yield stream
            stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise OutputError(f"cannot write to standard output: {reason}.") from exc
        return
    target = Path(path)
    refuse_inputs(target, inputs)
    check_target(target)
    folder = target.parent
    remove_stale_temporaries(target)
    try:
        prefix = f".{target.name}.{os.getpid()}-{_host_tag()}."
        fd, temp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _error(target, exc) from exc
    _OPEN.add(temp)
    try:
        with (
            os.fdopen(fd, "w", encoding=encoding, newline="\n") if mode == "w" else os.fdopen(fd, "wb")
        ) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, _mode_for(target))
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise _error(target, exc) from exc
        raise
    finally:
        _OPEN.discard(temp)


#: The temporary files of the writes open now, in every thread.
_OPEN: set[str] = set()


def open_temporaries() -> list[str]:
    """The temporary files of the writes not finished yet (for a process ended at once, e.g. by
    :func:`riskeval.io.interrupt.end_now`, to remove)."""
    return list(_OPEN)


#: The part of a temporary file's name after ``.NAME.``: the writer's process id, its host's tag,
#: then mkstemp's random letters.
_TEMPORARY = re.compile(r"(\d+)-([0-9a-f]{8})\.[A-Za-z0-9_]+\.tmp")


def remove_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove the temporary files that writes to ``target`` left in its folder when their process
    was killed; return their paths.

    A temporary is stale when its name (``.NAME.PID-HOST.XXXXXXXX.tmp``) names this machine and a
    process that no longer exists.  A live writer's temporary is left alone, even when its process
    id was reused; so is any file whose name does not say so (another machine's, an older
    riskeval's, another program's).  A temporary that cannot be removed is left as it is: the
    write itself does not depend on it.
    """
    target = Path(target)
    head, host = f".{target.name}.", _host_tag()
    removed: list[Path] = []
    try:
        names = [entry.name for entry in os.scandir(target.parent) if entry.name.startswith(head)]
    except OSError:  # the folder cannot be listed: the write itself reports it
        return removed
    for name in names:
        match = _TEMPORARY.fullmatch(name[len(head) :])
        if match is None or match.group(2) != host or _alive(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(target.parent / name)
            removed.append(target.parent / name)
    return removed


def _alive(pid: int) -> bool:
    """Whether process ``pid`` may exist on this machine (another user's included).  Outside POSIX,
    where signal 0 is not a probe (on Windows ``os.kill`` would end the process), always."""
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, OSError):  # another user's process, or not a process id: keep the file
        return True
    return True


def _host_tag() -> str:
    """Eight hex digits of this machine's host name: the temporaries of a folder shared with other
    machines are judged by the machine that wrote them only."""
    return hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def is_stdout(path: str | os.PathLike) -> bool:
    """Whether ``path`` names standard output (:data:`STDOUT_NAMES`)."""
    return os.fspath(path) in STDOUT_NAMES


def check_target(path: str | os.PathLike) -> None:
    """Raise :class:`OutputError` unless ``path`` is a new path or a regular file.

    A directory, a symbolic link (even to a regular file: the link would be replaced, not the file
    it names), a character or block device, a FIFO and a socket are refused, each by name.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _error(Path(path), exc) from exc
    if stat.S_ISREG(mode):
        return
    if stat.S_ISLNK(mode):
        kind = f"a symbolic link (to {os.readlink(os.fspath(path))}); give the file it names"
    else:
        kind = _SPECIAL.get(stat.S_IFMT(mode), "not a regular file")
    raise OutputError(
        f"cannot write {os.fspath(path)}: it is {kind}. The output is written to a new path or over a "
        f"regular file; for standard output give {' or '.join(STDOUT_NAMES)}."
    )


_SPECIAL = {
    stat.S_IFDIR: "a directory",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
}


def refuse_inputs(path: str | os.PathLike, inputs: Iterable) -> None:
    """Raise :class:`OutputError` when ``path`` is the same file as one of ``inputs``; standard
    output (:data:`STDOUT_NAMES`) never is."""
    if is_stdout(path):
        return
    target = Path(path)
    for item in inputs:
        if item is None:
            continue
        if _same_file(target, Path(item)):
            raise OutputError(
                f"{os.fspath(path)}: refusing to write the output over an input file ({os.fspath(item)}); "
                "choose another output file."
            )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare the paths
        return a.resolve() == b.resolve()


def _mode_for(target: Path) -> int:
    """Permissions of the new file: those of the file it replaces, else the umask's default."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _error(target: Path, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(f"cannot write {os.fspath(target)}: {reason}; any previous file there is unchanged.")
