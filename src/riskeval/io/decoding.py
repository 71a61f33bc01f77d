"""The one decoding layer of every text file riskeval reads: compression, encoding, line breaks.

Every reader (runs, qrels, trec_eval output, CSV/TSV score tables, query-variation tables and
mappings, CLEF queries, topic weights) gets its bytes from :func:`read_utf8` (the LETOR reader
as an array, :func:`read_utf8_array`) or its text from :func:`read_text`, so they all accept and
refuse the same files:

- **Compression** is recognised by content, not by name: gzip, bzip2 and xz streams are
  decompressed whatever the file is called (and a plain file called ``.gz`` is read as it is);
  gzip by python-isal where it is installed (:func:`gzip_reader`).  A truncated or corrupt
  compressed file is refused.
- **Encoding**: UTF-8, with or without a byte-order mark; UTF-16 and UTF-32 with a byte-order mark,
  and UTF-16 without one (recognised by its NUL bytes), are converted to UTF-8.  Bytes that do not
  decode are an error naming the file and the line; so is a NUL byte in UTF-8 text (a binary file).
- **Line breaks**: LF, CRLF and a lone CR (old Mac files) all end a line, as in Python's text mode
  (universal newlines); the readers see LF only, and every line number counts lines this way.
- **Bounds**: a file is read only if it is a regular file or a pipe (``<(zcat run.gz)``, a named
  FIFO), each read once; a character device such as ``/dev/zero`` or ``/dev/urandom``, a block
  device or a socket is refused before any byte is read, and so is a FIFO that nothing writes to
  (start its writer first).  The text of a file, after decompression, may hold at most
  :func:`input_limit` bytes (:data:`MAX_INPUT_BYTES`, 1 GiB, unless the environment variable
  ``RISKEVAL_MAX_INPUT_BYTES`` says otherwise): a compressed file is decompressed in chunks and
  refused as soon as it passes the limit (a gzip file at once when the size it declares passes
  it), and a NUL byte in UTF-8 text stops the reading at the chunk that holds it.  A compressed
  file is also refused once its text passes :data:`INFLATE_FLOOR` bytes and :func:`inflate_ratio`
  times the compressed bytes read so far (:data:`MAX_INFLATE_RATIO`, 100, unless
  ``RISKEVAL_MAX_INFLATE_RATIO`` says otherwise), the minimum inflate ratio of Apache POI's
  ``ZipSecureFile``: a decompression bomb is refused after tens of megabytes of text, whatever size
  it declares.  A byte-order mark anywhere but at the start (what concatenating files saved with
  one leaves) is an error naming the line: read as text it would join the next
  topic's id and make a topic of its own, as it does in trec_eval.

Errors are :class:`~riskeval.errors.InputFormatError` located as ``file`` or ``file:line``; a file
that cannot be opened raises the usual :class:`OSError` (``FileNotFoundError``...), which names it.
"""

from __future__ import annotations

import bz2
import codecs
import functools
import gzip
import io
import lzma
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any, AnyStr

from riskeval.errors import InputFormatError, RiskevalError

#: Compression extensions (dropped to find a file's format; the content decides how it is read).
COMPRESSION: dict[str, str] = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}

#: Bytes of text (after decompression) one input file may hold unless ``RISKEVAL_MAX_INPUT_BYTES``
#: sets another limit: 1 GiB, about 90 times the largest run of TREC DL 2019 (11.4 MB) and three
#: times a full-ranking run of the 6,980 MS MARCO dev queries (1,000 documents each, about 0.3 GB).
MAX_INPUT_BYTES = 2**30
LIMIT_VARIABLE = "RISKEVAL_MAX_INPUT_BYTES"

#: Bytes of text a compressed file may give per compressed byte read, past :data:`INFLATE_FLOOR`,
#: unless ``RISKEVAL_MAX_INFLATE_RATIO`` sets another ratio: 100, Apache POI's minimum inflate
#: ratio for zip entries (``ZipSecureFile``, 0.01).  The 575 files of TREC DL 2019/2020, the TREC
#: Web track 2012-2014, CLEF eHealth 2015, UQV100, Robust04 variations, the LightGBM LETOR example
#: and Benham et al. (SIGIR 2020) inflate at most 12.5 times gzipped, 15.7 times with bzip2 and 24.9
#: times with xz (``benchmarks/inflate_ratios.py``); deflate's most, a file of one repeated byte, is
#: 1032 (RFC 1951's longest match of 258 bytes in a code of at least 2 bits).
MAX_INFLATE_RATIO = 100
RATIO_VARIABLE = "RISKEVAL_MAX_INFLATE_RATIO"
#: Bytes of text a compressed file gives before its inflate ratio is checked: more than the text of
#: the largest run of TREC DL 2019 (11.4 MB), few enough that a decompression bomb is refused
#: after a fraction of a second.
INFLATE_FLOOR = 2**24


@functools.cache
def gzip_reader() -> tuple[Callable[..., Any], type[Exception]]:
    """The class that reads gzip files and the error its inflate raises on corrupt data:
    python-isal's ``igzip`` (the inflate of Intel's ISA-L: the same bytes as zlib's, about 2.5
    times as fast) where its wheel is installed, else the standard library's :mod:`gzip`.  Imported
    on the first gzip file, not with riskeval."""
    try:
        from isal import igzip, isal_zlib
    except ImportError:  # a machine without python-isal's wheels (the dependency's markers)
        return gzip.GzipFile, zlib.error
    error: Any = isal_zlib.error  # a class (isal's type stubs declare an instance)
    return igzip.GzipFile, error


OPEN_COMPRESSED: dict[str, Callable[[Any], Any]] = {
    "gzip": lambda raw: gzip_reader()[0](fileobj=raw),
    "bzip2": bz2.BZ2File,
    "xz": lzma.LZMAFile,
}
READ_ERRORS = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)
_CHUNK = 2**20
_MAX_RATIO = 1032
_DEVICES = (
    (stat.S_ISCHR, "a character device (as /dev/zero, /dev/urandom or a terminal)"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_UTF16_SAMPLE = 4096


def compression_of(data: bytes) -> str | None:
    """``"gzip"``, ``"bzip2"`` or ``"xz"`` when ``data`` starts like such a stream, else ``None``."""
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:3] == b"BZh" and data[3:4].isdigit() and data[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bzip2"
    if data[:6] == b"\xfd7zXZ\x00":
        return "xz"
    return None


def input_limit() -> int:
    """The bytes of text one input file may hold: ``RISKEVAL_MAX_INPUT_BYTES`` when set, else
    :data:`MAX_INPUT_BYTES`."""
    return _setting(LIMIT_VARIABLE, MAX_INPUT_BYTES, "a whole number of bytes", f"{2**32} for 4 GiB")


def inflate_ratio() -> int:
    """The bytes of text a compressed file may give per compressed byte read (past
    :data:`INFLATE_FLOOR` bytes of text): ``RISKEVAL_MAX_INFLATE_RATIO`` when set, else
    :data:`MAX_INFLATE_RATIO`."""
    return _setting(
        RATIO_VARIABLE,
        MAX_INFLATE_RATIO,
        "a whole number of bytes of text per compressed byte",
        f"1000; the default is {MAX_INFLATE_RATIO}",
    )


def _setting(variable: str, default: int, what: str, example: str) -> int:
    """The whole number >= 1 that environment variable ``variable`` holds, ``default`` when unset."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise RiskevalError(
            f"The environment variable {variable} must be {what} >= 1 (e.g. {example}); got {raw!r}."
        )
    return int(raw)


def too_large(location: str, limit: int, kind: str | None, declared: int = 0) -> InputFormatError:
    """The error for a file whose text passes ``limit`` bytes (``declared``: the size a gzip file
    declares, when that is what passes it)."""
    if declared:
        what = f"declares (gzip) {declared:,} bytes of text,"
    else:
        what = f"decompresses ({kind}) to" if kind else "holds"
    return InputFormatError(
        [
            (
                location,
                f"{what} more than {limit:,} bytes, the input size limit: set the environment "
                f"variable {LIMIT_VARIABLE} to read larger files.",
            )
        ]
    )


def too_inflated(location: str, kind: str, text: int, compressed: int, ratio: int) -> InputFormatError:
    """The error for a compressed file whose first ``compressed`` bytes gave ``text`` bytes of text,
    more than ``ratio`` times as many."""
    return InputFormatError(
        [
            (
                location,
                f"inflates {text / compressed:,.0f} times: its first {compressed:,} bytes decompress "
                f"({kind}) to {text:,} bytes, more than {ratio:,} times as many, the inflate ratio "
                f"limit (a decompression bomb): set the environment variable {RATIO_VARIABLE} to a "
                "larger ratio to read it.",
            )
        ]
    )


def check_declared_size(handle: IO[bytes], location: str, limit: int) -> None:
    """Refuse a gzip file whose trailer declares more than ``limit`` bytes of text, when the
    declaration is possible: deflate expands at most 1032 times (RFC 1951's longest match of 258
    bytes in a code of at least 2 bits), so a larger declaration is the garbage of a truncated file,
    which decompressing then reports."""
    size = declared_size(handle)
    if size > limit and size <= _MAX_RATIO * os.fstat(handle.fileno()).st_size:
        raise too_large(location, limit, "gzip", size)


def open_input(path: str | os.PathLike) -> IO[bytes]:
    """``path`` opened to read bytes, if it is a regular file or a pipe that a program writes to.

    Raises
    ------
    InputFormatError
        For a character or block device or a socket (``/dev/zero``, ``/dev/urandom``: endless), and
        for a FIFO that no program writes to (reading it would wait for ever).
    OSError
        When the file cannot be opened (``FileNotFoundError``, ``IsADirectoryError``...).
    """
    location = os.fspath(path)
    mode = os.stat(location).st_mode
    for test, kind in _DEVICES:
        if test(mode):
            raise InputFormatError([(location, f"is {kind}, not a file: give a regular file or a pipe.")])
    if not stat.S_ISFIFO(mode):
        return open(location, "rb")
    fd = os.open(location, os.O_RDONLY | os.O_NONBLOCK)
    try:
        first = os.read(fd, _CHUNK)
    except BlockingIOError:  # a program writes to the pipe, nothing written yet
        first = b""
    else:
        if not first:
            os.close(fd)
            raise InputFormatError(
                [
                    (
                        location,
                        "is a pipe (FIFO) with nothing to read: no program writes to it (start the "
                        "program that writes to it first) or it wrote nothing.",
                    )
                ]
            )
    os.set_blocking(fd, True)
    return io.BufferedReader(_Prefixed(first, os.fdopen(fd, "rb", buffering=0)), _CHUNK)


class _Prefixed(io.RawIOBase):
    """Bytes already read from a pipe, then the rest of the pipe."""

    def __init__(self, prefix: bytes, rest: IO[bytes]):
        self._prefix = memoryview(prefix)
        self._rest = rest
        self.consumed = 0  # bytes given

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._rest.fileno()

    def readinto(self, buffer: Any) -> int | None:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
        else:
            n = self._rest.readinto(buffer)  # type: ignore[attr-defined]
        self.consumed += n or 0
        return n

    def close(self) -> None:
        self._rest.close()
        super().close()


def read_bytes(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The content of a file, decompressed when it is gzip, bzip2 or xz (by content), of at most
    ``limit`` bytes (default :func:`input_limit`).  Reading stops at the first chunk holding a NUL
    byte when the text is not UTF-16 or UTF-32 (:func:`to_utf8` then says where)."""
    location = os.fspath(path)
    with open_input(location) as handle:
        return read_opened(handle, location, input_limit() if limit is None else limit)


def read_opened(handle: IO[bytes], location: str, limit: int) -> bytes:
    """:func:`read_bytes` of a file opened by :func:`open_input`."""
    first = _read_chunk(handle)
    kind = compression_of(first)
    if kind is None:
        if os.fstat(handle.fileno()).st_size > limit:
            raise too_large(location, limit, None)
        return _read_limited(first, handle, location, limit, None)
    if kind == "gzip":
        check_declared_size(handle, location, limit)
    return _read_limited(b"", open_compressed(handle, kind, location, first), location, limit, kind)


def read_head(path: str | os.PathLike) -> tuple[bytes, bytes, bool]:
    """The start of a file, to tell its format: up to one chunk (1 MiB) of its bytes as stored, up
    to one chunk of its content (decompressed when it is gzip, bzip2 or xz), and whether that
    content is the whole file's.  A FIFO is consumed by reading: give only regular files."""
    location = os.fspath(path)
    with open_input(location) as handle:
        raw = _read_chunk(handle)
        kind = compression_of(raw)
        if kind is None:
            return raw, raw, len(raw) < _CHUNK
        with open_compressed(handle, kind, location, raw) as stream:
            content = _read_chunk(stream)
            return raw, content, len(content) < _CHUNK


def open_compressed(raw: IO[bytes], kind: str, location: str, first: bytes = b"") -> IO[bytes]:
    """The text of the compressed file ``raw`` (``kind``: ``"gzip"``, ``"bzip2"`` or ``"xz"``;
    ``first``: its bytes already read from ``raw``), decompressed as it is read.

    Reading raises :class:`~riskeval.errors.InputFormatError` when the file is truncated or corrupt,
    and once its text passes :data:`INFLATE_FLOOR` bytes and :func:`inflate_ratio` times the
    compressed bytes read so far (a decompression bomb, refused whatever size it declares).
    """
    return io.BufferedReader(_Inflating(raw, kind, location, first), _CHUNK)


class _Inflating(io.RawIOBase):
    """The text of a compressed file, checked against the inflate ratio as it is read."""

    def __init__(self, raw: IO[bytes], kind: str, location: str, first: bytes):
        self._source = _Prefixed(first, raw)
        self._text = OPEN_COMPRESSED[kind](io.BufferedReader(self._source))
        self._errors = (*READ_ERRORS, gzip_reader()[1]) if kind == "gzip" else READ_ERRORS
        self._kind = kind
        self._location = location
        self._ratio = inflate_ratio()
        self._given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n: int = self._text.readinto(buffer)
        except self._errors as exc:
            raise corrupt(self._location, self._kind, exc) from None
        self._given += n
        read = self._source.consumed
        if self._given > INFLATE_FLOOR and self._given > self._ratio * read:
            raise too_inflated(self._location, self._kind, self._given, read, self._ratio)
        return n


def declared_size(handle: IO[bytes]) -> int:
    """The size a regular gzip file declares for the text of its last member (its last four bytes,
    ISIZE, RFC 1952 section 2.3.1: the size modulo 2**32), at most the size of the whole text of a
    valid file; 0 for a pipe.  The reading position is left where it was."""
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or os.fstat(handle.fileno()).st_size < 18:
        return 0
    where = handle.tell()
    handle.seek(-4, os.SEEK_END)
    size = int.from_bytes(handle.read(4), "little")
    handle.seek(where)
    return size


def corrupt(location: str, kind: str, exc: BaseException) -> InputFormatError:
    """The error for a truncated or corrupt compressed file."""
    reason = str(exc) or type(exc).__name__
    return InputFormatError([(location, f"is a truncated or corrupt {kind} file ({reason}).")])


def _read_chunk(handle: IO[bytes]) -> bytes:
    """Up to one chunk of bytes (fewer only at the end of the file)."""
    parts = []
    size = 0
    while size < _CHUNK:
        part = handle.read(_CHUNK - size)
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def _read_limited(first: bytes, stream: IO[bytes], location: str, limit: int, kind: str | None) -> bytes:
    """``first`` and the rest of ``stream``, refused past ``limit`` bytes; a chunk holding a NUL
    byte ends the reading when the text is not UTF-16 or UTF-32."""
    chunks: list[bytes] = []
    total = 0
    wide = None
    chunk = first or stream.read(_CHUNK)
    while chunk:
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise too_large(location, limit, kind)
        if wide is None:
            wide = transcoded(chunk)
        if not wide and b"\x00" in chunk:
            break
        chunk = stream.read(_CHUNK)
    return b"".join(chunks)


def transcoded(head: bytes) -> bool:
    """Whether text starting with ``head`` is UTF-16 or UTF-32 (a byte-order mark, or the NUL
    bytes of UTF-16 without one): it holds NUL bytes as characters."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    return b"\x00" in head[:_UTF16_SAMPLE] and _utf16_without_bom(head) is not None


def read_utf8(path: str | os.PathLike) -> bytes:
    """The text of a file as UTF-8 bytes with LF line breaks (see the module docstring)."""
    location = os.fspath(path)
    return to_utf8(read_bytes(location), location)


def read_utf8_array(path: str | os.PathLike) -> Any:
    """:func:`read_utf8`'s bytes as a numpy ``uint8`` array.

    A regular file that is not compressed is read 1 MiB at a time into one array of its size: when
    its text is ASCII without NUL or CR, which :func:`read_utf8` returns unchanged, that array is
    the text, and no chunk list or joined copy is made (reading 10 times the text then costs 10
    times as much, where a join's fresh block of memory costs more than its size).  At the first
    chunk that is not such text (and for any other file) it is :func:`read_utf8`'s, with the same
    errors and the same stop at a chunk holding a NUL byte.
    """
    import numpy as np

    location = os.fspath(path)
    text = _plain_ascii(location) if stat.S_ISREG(os.stat(location).st_mode) else None
    return text if text is not None else np.frombuffer(read_utf8(location), dtype=np.uint8)


def _plain_ascii(location: str) -> Any:
    """The bytes of the regular file ``location`` as an array, or ``None`` when it is compressed,
    past the input limit, not ASCII, holds NUL or CR, or changes size while read."""
    import numpy as np

    with open(location, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > input_limit():
            return None
        text = np.empty(size, dtype=np.uint8)
        n = 0
        while chunk := handle.read(_CHUNK):
            if (
                (n == 0 and compression_of(chunk) is not None)
                or n + len(chunk) > size
                or not chunk.isascii()
                or b"\x00" in chunk
                or b"\r" in chunk
            ):
                return None
            text[n : n + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
            n += len(chunk)
    return text if n == size else None


def read_text(path: str | os.PathLike) -> str:
    """The text of a file as ``str`` with LF line breaks (see the module docstring)."""
    return read_utf8(path).decode("utf-8")


def to_utf8(data: bytes, location: str) -> bytes:
    """Decoded, checked and line-break-normalised UTF-8 bytes of (decompressed) file content."""
    encoding = None
    for bom, name in _BOMS:
        if data.startswith(bom):
            data, encoding = data[len(bom) :], name
            break
    nul = data.find(b"\x00")
    if encoding is None and nul >= 0:
        encoding = _utf16_without_bom(data)
    if encoding is not None and encoding != "utf-8":
        data = _transcode(data, encoding, location)
        nul = data.find(b"\x00")
    elif not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = _line_of(data, exc.start)
            bad = data[exc.start : exc.start + 1].hex()
            raise InputFormatError(
                [
                    (
                        f"{location}:{line}",
                        f"is not UTF-8 text (byte 0x{bad}: {exc.reason}). Save the file as UTF-8.",
                    )
                ]
            ) from None
    if nul >= 0:
        raise InputFormatError(
            [(f"{location}:{_line_of(data, nul)}", "holds a NUL byte: this is not a text file.")]
        )
    check_byte_order_marks(data, location)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def check_byte_order_marks(data: bytes, location: str, first_line: int = 1) -> None:
    """Refuse UTF-8 text (its leading mark already dropped) holding a byte-order mark, naming its
    line (``first_line``: the number of the text's first line in the file)."""
    at = data.find(codecs.BOM_UTF8) if not data.isascii() else -1
    if at >= 0:
        line = _line_of(data, at) + first_line - 1
        raise InputFormatError(
            [
                (
                    f"{location}:{line}",
                    "holds a byte-order mark (U+FEFF) inside the text, as concatenating files saved "
                    "with one leaves: it would become part of a field (a topic id of its own). "
                    "Remove it, e.g. sed -i 's/\\xEF\\xBB\\xBF//g' FILE.",
                )
            ]
        )


def lines(data: AnyStr) -> Iterator[AnyStr]:
    """The lines of text with LF line breaks (``bytes`` or ``str``), one at a time: no list of
    every line, so that a file of millions of blank lines costs no memory per line.  They are the
    lines ``data.split("\\n")`` gives but for the empty line after a final line break."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    start = 0
    while start < len(data):
        end = data.find(newline, start)
        end = len(data) if end < 0 else end
        yield data[start:end]
        start = end + 1


def _line_of(data: bytes, offset: int) -> int:
    """1-based line of byte ``offset``, counting LF, CRLF and lone CR as line breaks."""
    head = data[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def _utf16_without_bom(data: bytes) -> str | None:
    """``"utf-16-le"``/``"utf-16-be"`` when the NUL bytes of ``data`` say it is UTF-16 text of
    mostly ASCII characters (every other byte zero), else ``None``."""
    sample = data[: _UTF16_SAMPLE - _UTF16_SAMPLE % 2]
    if len(sample) < 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    zeros_even, zeros_odd = even.count(0), odd.count(0)
    if zeros_odd >= 0.5 * len(odd) and zeros_even == 0:
        return "utf-16-le"
    if zeros_even >= 0.5 * len(even) and zeros_odd == 0:
        return "utf-16-be"
    return None


def _transcode(data: bytes, encoding: str, location: str) -> bytes:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].decode(encoding, errors="replace").count("\n") + 1
        raise InputFormatError(
            [(f"{location}:{line}", f"is not valid {encoding.upper()} text ({exc.reason}).")]
        ) from None
    return text.encode("utf-8")
