"""A run file in pieces of whole topics, read as a stream: memory bounded by the piece size.

A run of a query log is many gigabytes; held whole it would cost several times its size.
:func:`run_pieces` decompresses the file as a stream (gzip, bzip2 or xz, recognised by content) and
cuts it into pieces of about ``size`` bytes of text, each ending where one topic's lines end and the
next topic's begin, so that each piece can be read by :func:`riskeval.io.runs.parse_run` and
evaluated on its own: every per-topic value depends only on that topic's lines.

**Ordering assumption.**  Cutting at topic boundaries keeps a topic whole only if its lines are
contiguous in the file (all lines of one topic, then all lines of the next), as trec_eval writes
them and as TREC runs are distributed.  A file of one piece may list its topics in any order; a file
of several pieces that lists a topic again after other topics' lines is refused by
:func:`contiguity_problems`, with the file and line where the topic resumes (sort it with
``sort -s -k1,1``).

The text goes through the same checks as :func:`riskeval.io.decoding.read_utf8`: UTF-8 (a byte-order
mark at the start is dropped), no NUL byte, LF/CRLF/CR line breaks; a file in UTF-16 or UTF-32 is
converted whole, by :func:`~riskeval.io.decoding.read_utf8`, then cut.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, NamedTuple

from riskeval.errors import InputFormatError
from riskeval.io.decoding import compression_of, read_utf8, to_utf8

#: Text bytes per piece by default: small enough that a piece and what parsing it costs (about six
#: times its size) stay well within one process's share of memory, large enough that the cost of
#: evaluating a piece on its own is negligible.
PIECE_BYTES = 16 * 2**20

_OPEN: dict[str, Callable[[Any], Any]] = {
    "gzip": lambda raw: gzip.GzipFile(fileobj=raw),
    "bzip2": bz2.BZ2File,
    "xz": lzma.LZMAFile,
}
_READ_ERRORS = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)


class RunPiece(NamedTuple):
    """Whole lines of a run file: UTF-8 text with LF line breaks, starting at line ``first_line``."""

    location: str
    first_line: int
    data: bytes


def run_pieces(path: str | os.PathLike[str], size: int = PIECE_BYTES) -> Iterator[RunPiece]:
    """The text of a run file in pieces of about ``size`` bytes that end at topic boundaries.

    A piece is larger than ``size`` only when one topic's lines are: a topic is never cut.  A file
    of at most ``size`` bytes of text is one piece.  Raises
    :class:`~riskeval.errors.InputFormatError` as :func:`~riskeval.io.decoding.read_utf8` does
    (naming the file's line), and :class:`OSError` when the file cannot be opened.
    """
    location = os.fspath(path)
    with open(location, "rb") as raw:
        kind = compression_of(raw.read(16))
        if os.fstat(raw.fileno()).st_size <= (size // 4 if kind else size):
            # about one piece of text: decoded whole, in one call (faster than a stream)
            yield from _cut_text(read_utf8(location), location, size)
            return
        raw.seek(0)
        stream: IO[bytes] = _OPEN[kind](raw) if kind else raw
        first = _read(stream, size, location, kind)
        if _needs_transcoding(first):
            yield from _cut_text(read_utf8(location), location, size)
            return
        yield from _cut_stream(first.removeprefix(codecs.BOM_UTF8), stream, location, size, kind)


def _cut_text(text: bytes, location: str, size: int) -> Iterator[RunPiece]:
    """Pieces of a file's text already decoded and checked (:func:`~riskeval.io.decoding.read_utf8`):
    the text itself when it is at most ``size`` bytes."""
    if len(text) <= size:
        yield RunPiece(location, 1, text)
    else:
        yield from _cut_stream(b"", io.BytesIO(text), location, size, None)


def _needs_transcoding(head: bytes) -> bool:
    """UTF-16/UTF-32 (a byte-order mark, or NUL bytes as UTF-16 without one has)."""
    boms = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    return head.startswith(boms) or b"\x00" in head[:4096]


def _read(stream: IO[bytes], size: int, location: str, kind: str | None) -> bytes:
    try:
        return stream.read(size)
    except _READ_ERRORS as exc:
        if kind is None:
            raise
        reason = str(exc) or type(exc).__name__
        raise InputFormatError([(location, f"is a truncated or corrupt {kind} file ({reason}).")]) from None


def _cut_stream(
    buf: bytes, stream: IO[bytes], location: str, size: int, kind: str | None
) -> Iterator[RunPiece]:
    """Pieces of ``buf`` followed by the rest of ``stream``, read a quarter of ``size`` at a time; a
    piece is cut only when more text follows (text of about one piece is one piece), and the text
    held besides the piece is at most a quarter of ``size`` plus one topic."""
    line = 1
    step = max(1, size // 4)
    while True:
        block = _read(stream, step, location, kind)
        if not block:
            break
        cut = _topic_cut(buf) if len(buf) >= size else 0
        if cut:
            piece, buf = buf[:cut], buf[cut:]
            piece = _checked(piece, location, line)
            yield RunPiece(location, line, piece)
            line += piece.count(b"\n")
        buf += block
    if buf or line == 1:
        yield RunPiece(location, line, _checked(buf, location, line))


def _topic_cut(buf: bytes) -> int:
    """The start of the last topic's block among the complete lines of ``buf`` (where a piece
    ends); 0 when they are all of one topic (read on)."""
    end = buf.rfind(b"\n")
    if end < 0:
        return 0
    start = buf.rfind(b"\n", 0, end) + 1
    topic = _topic(buf[start:end])
    while start > 0:
        previous = buf.rfind(b"\n", 0, start - 1) + 1
        if _topic(buf[previous : start - 1]) != topic:
            return start
        start = previous
    return 0


def _topic(line: bytes) -> bytes:
    fields = line.split(None, 1)
    return fields[0] if fields else b""


def _checked(piece: bytes, location: str, first_line: int) -> bytes:
    """``piece`` with LF line breaks, checked as :func:`~riskeval.io.decoding.to_utf8` checks a
    file; its problems name the file's line."""
    if b"\x00" in piece or not (piece.isascii() or _is_utf8(piece)):
        try:
            to_utf8(piece, location)
        except InputFormatError as exc:
            raise InputFormatError(
                [_relocated(where, msg, first_line) for where, msg in exc.problems]
            ) from None
    if b"\r" in piece:
        piece = piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return piece


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _relocated(where: str, message: str, first_line: int) -> tuple[str, str]:
    location, _, line = where.rpartition(":")
    return (f"{location}:{int(line) + first_line - 1}", message) if line.isdigit() else (where, message)


def contiguity_problems(
    location: str, topics: Sequence[frozenset[str]], first_lines: Sequence[int]
) -> list[tuple[str, str]]:
    """A problem for each topic found in two pieces of one file (``topics[k]``: the topic ids of
    piece ``k``, which starts at line ``first_lines[k]``), naming the line where it resumes."""
    seen: dict[str, int] = {}
    problems = []
    for k, piece in enumerate(topics):
        for topic in sorted(piece & seen.keys()):
            line = topic_line(location, topic, first_lines[k])
            problems.append(
                (
                    f"{location}:{line}",
                    f"the lines of topic {topic!r} resume here after other topics' lines (it also has "
                    f"lines before line {first_lines[seen[topic] + 1]}); a run read in pieces needs "
                    "each topic's lines together, as trec_eval writes them: sort the file by topic "
                    "(sort -s -k1,1) first",
                )
            )
        for topic in piece:
            seen.setdefault(topic, k)
    return problems


def topic_line(path: str, topic: str, start: int) -> int:
    """The number of the first line at or after line ``start`` whose topic is ``topic`` (0: none)."""
    wanted = topic.encode()
    for piece in run_pieces(path):
        lines = piece.data.split(b"\n")
        if piece.first_line + len(lines) <= start:
            continue
        for number, text in enumerate(lines, piece.first_line):
            if number >= start and _topic(text) == wanted:
                return number
    return 0
