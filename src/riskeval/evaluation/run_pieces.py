"""A run file in pieces of whole topics, read as a stream: memory bounded by the piece size.

A run of a query log is many gigabytes; held whole it would cost several times its size.
:func:`run_pieces` decompresses the file as a stream (gzip, bzip2 or xz, recognised by content) and
cuts it into pieces of about ``size`` bytes of text, each ending where one topic's lines end and the
next topic's begin, so that each piece can be read by :func:`riskeval.io.runs.parse_run` and
evaluated on its own: every per-topic value depends only on that topic's lines.

**Topic order.**  Cutting at topic boundaries keeps a topic whole when its lines are contiguous in
the file (all lines of one topic, then all lines of the next), as trec_eval writes them and as TREC
runs are distributed.  A topic found in several pieces (a file that lists a topic again after other
topics' lines, or one topic of more than :data:`_CUT_LINES` lines) is evaluated again from its lines
gathered from the whole file by :func:`topic_piece`, so that a file of any size gives the values a
file of one piece gives, as trec_eval accepts either order.

The text goes through the same checks as :func:`riskeval.io.decoding.read_utf8`: UTF-8 (a byte-order
mark at the start is dropped, one further on refused), no NUL byte, LF/CRLF/CR line breaks, at most
:func:`~riskeval.io.decoding.input_limit` bytes; a file in UTF-16 or UTF-32 is converted whole, by
:func:`~riskeval.io.decoding.read_utf8`, then cut.  A pipe (``<(zcat run.gz)``) is read once, whole,
as one piece.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
from collections.abc import Collection, Iterator
from typing import IO, NamedTuple

import numpy as np

from riskeval.errors import InputFormatError
from riskeval.io import decoding
from riskeval.io.decoding import compression_of, read_utf8, to_utf8

#: Text bytes per piece by default: small enough that a piece and what parsing it costs (about six
#: times its size) stay well within one process's share of memory, large enough that the cost of
#: evaluating a piece on its own is negligible.
PIECE_BYTES = 16 * 2**20
# Lines walked back from the end of a piece to find where its last topic begins.
_CUT_LINES = 100_000


class RunPiece(NamedTuple):
    """Whole lines of a run file: UTF-8 text with LF line breaks, starting at line ``first_line``."""

    location: str
    first_line: int
    data: bytes
    line_numbers: np.ndarray | None = None  # the file's line of each line, when not consecutive


def run_pieces(path: str | os.PathLike[str], size: int = PIECE_BYTES) -> Iterator[RunPiece]:
    """The text of a run file in pieces of about ``size`` bytes that end at topic boundaries.

    A piece is larger than ``size`` only when one topic's lines are; a topic is cut only past
    :data:`_CUT_LINES` lines, or when blank lines fill a piece.  A file of at most ``size`` bytes of
    text, or a pipe, is one piece.  Raises
    :class:`~riskeval.errors.InputFormatError` as :func:`~riskeval.io.decoding.read_utf8` does
    (naming the file's line), and :class:`OSError` when the file cannot be opened.
    """
    location = os.fspath(path)
    limit = decoding.input_limit()
    with decoding.open_input(location) as raw:
        info = os.fstat(raw.fileno())
        if not stat.S_ISREG(info.st_mode):  # a pipe: read once, whole
            yield RunPiece(location, 1, to_utf8(decoding.read_opened(raw, location, limit), location))
            return
        kind = compression_of(raw.read(16))
        raw.seek(0)
        if kind == "gzip":
            decoding.check_declared_size(raw, location, limit)
        if info.st_size <= (size // 4 if kind else size):
            # about one piece of text: decoded whole, in one call (faster than a stream)
            yield from _cut_text(
                to_utf8(decoding.read_opened(raw, location, limit), location), location, size
            )
            return
        if not kind and info.st_size > limit:
            raise decoding.too_large(location, limit, None)
        stream = decoding.open_compressed(raw, kind, location) if kind else raw
        first = stream.read(size)
        if decoding.transcoded(first):
            yield from _cut_text(read_utf8(location), location, size)
            return
        yield from _cut_stream(first.removeprefix(codecs.BOM_UTF8), stream, location, size, kind, limit)


def _cut_text(text: bytes, location: str, size: int) -> Iterator[RunPiece]:
    """Pieces of a file's text already decoded and checked (:func:`~riskeval.io.decoding.read_utf8`):
    the text itself when it is at most ``size`` bytes."""
    if len(text) <= size:
        yield RunPiece(location, 1, text)
    else:
        yield from _cut_stream(b"", io.BytesIO(text), location, size, None, len(text))


def _cut_stream(
    buf: bytes, stream: IO[bytes], location: str, size: int, kind: str | None, limit: int
) -> Iterator[RunPiece]:
    """Pieces of ``buf`` followed by the rest of ``stream``, read a quarter of ``size`` at a time; a
    piece is cut only when more text follows (text of about one piece is one piece), and the text
    held besides the piece is at most a quarter of ``size`` plus :data:`_CUT_LINES` lines.  Past
    ``limit`` bytes of text, the file is refused."""
    line = 1
    step = max(1, size // 4)
    total = len(buf)
    parts, held = [buf], len(buf)
    while True:
        block = stream.read(step)
        if not block:
            break
        total += len(block)
        if total > limit:
            raise decoding.too_large(location, limit, kind)
        if held >= size:
            buf = b"".join(parts)
            cut = _topic_cut(buf)
            if cut:
                piece = _checked(buf[:cut], location, line)
                yield RunPiece(location, line, piece)
                line += piece.count(b"\n")
                buf = buf[cut:]
            parts, held = [buf], len(buf)
        parts.append(block)
        held += len(block)
    buf = b"".join(parts)
    if buf or line == 1:
        yield RunPiece(location, line, _checked(buf, location, line))


def _topic_cut(buf: bytes) -> int:
    """Where a piece ends among the complete lines of ``buf``: the start of the last topic's block;
    0 when ``buf`` holds one topic's lines only (read on), unless they are blank or more than
    :data:`_CUT_LINES` (then the start of the last line: the topic spans pieces)."""
    end = buf.rfind(b"\n")
    if end < 0:
        return 0
    last = start = buf.rfind(b"\n", 0, end) + 1
    topic = _topic(buf[start:end])
    if not topic:
        return last
    for _ in range(_CUT_LINES):
        if start == 0:
            return 0
        previous = buf.rfind(b"\n", 0, start - 1) + 1
        if _topic(buf[previous : start - 1]) != topic:
            return start
        start = previous
    return last


def _topic(line: bytes) -> bytes:
    fields = line.split(None, 1)
    return fields[0] if fields else b""


def _checked(piece: bytes, location: str, first_line: int) -> bytes:
    """``piece`` with LF line breaks, checked as :func:`~riskeval.io.decoding.to_utf8` checks a
    file; its problems name the file's line."""
    ascii = piece.isascii()
    if b"\x00" in piece or not (ascii or _is_utf8(piece)) or (not ascii and codecs.BOM_UTF8 in piece):
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


def topic_piece(path: str, topics: Collection[str], size: int = PIECE_BYTES) -> RunPiece:
    """The lines of ``topics`` in a run file, in file order, as one piece that names each line's
    number in the file: what evaluates topics found in several pieces as a whole."""
    wanted = {t.encode() for t in topics}
    lines: list[bytes] = []
    numbers: list[int] = []
    for piece in run_pieces(path, size):
        for number, text in enumerate(piece.data.split(b"\n"), piece.first_line):
            if _topic(text) in wanted:
                lines.append(text)
                numbers.append(number)
    return RunPiece(os.fspath(path), 1, b"\n".join(lines), np.asarray(numbers, dtype=np.int64))
