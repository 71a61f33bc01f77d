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
"""

from __future__ import annotations

import contextlib
import os
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
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _error(target, exc) from exc
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
