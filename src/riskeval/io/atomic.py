"""Writing output files safely: all or nothing, never over an input.

:func:`write_atomic` writes to a temporary file in the target's folder and renames it over the
target (``os.replace``, atomic on POSIX and Windows within one file system).  A failure part-way (a
full disk, an interrupted process) leaves the previous file as it was and no temporary file
behind; the error names the file.  :func:`refuse_inputs` stops a command from writing over one of
the files it reads.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from riskeval.errors import OutputError


def write_atomic(
    path: str | os.PathLike, data: str | bytes, *, encoding: str = "utf-8", inputs: Iterable = ()
) -> Path:
    """Write ``data`` (text as ``encoding``, or bytes) to ``path`` atomically; return the path.

    ``inputs``: files the caller has read, which ``path`` must not be (see :func:`refuse_inputs`).
    Raises :class:`OutputError` naming the file when it cannot be written; the previous content of
    ``path``, if any, is then unchanged.
    """
    with atomic_open(path, "wb", inputs=inputs) as handle:
        handle.write(data.encode(encoding) if isinstance(data, str) else data)
    return Path(path)


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike, mode: str = "w", *, encoding: str = "utf-8", inputs: Iterable = ()
) -> Iterator[IO]:
    """A file handle whose content replaces ``path`` when the block ends without an exception.

    ``mode`` is ``"w"`` (text, ``encoding``, ``\\n`` line breaks) or ``"wb"``.  On an exception the
    temporary file is removed and ``path`` is left as it was.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes a new file: mode 'w' or 'wb', not {mode!r}")
    target = Path(path)
    refuse_inputs(target, inputs)
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


def refuse_inputs(path: str | os.PathLike, inputs: Iterable) -> None:
    """Raise :class:`OutputError` when ``path`` is the same file as one of ``inputs``."""
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
