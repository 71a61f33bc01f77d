"""The one decoding layer of every text file riskeval reads: compression, encoding, line breaks.

Every reader (runs, qrels, trec_eval output, CSV/TSV score tables, query-variation tables and
mappings, CLEF queries, topic weights) gets its bytes from :func:`read_utf8` or its text from
:func:`read_text`, so they all accept and refuse the same files:

- **Compression** is recognised by content, not by name: gzip, bzip2 and xz streams are
  decompressed whatever the file is called (and a plain file called ``.gz`` is read as it is).  A
  truncated or corrupt compressed file is refused.
- **Encoding**: UTF-8, with or without a byte-order mark; UTF-16 and UTF-32 with a byte-order mark,
  and UTF-16 without one (recognised by its NUL bytes), are converted to UTF-8.  Bytes that do not
  decode are an error naming the file and the line; so is a NUL byte in UTF-8 text (a binary file).
- **Line breaks**: LF, CRLF and a lone CR (old Mac files) all end a line, as in Python's text mode
  (universal newlines); the readers see LF only, and every line number counts lines this way.

Errors are :class:`~riskeval.errors.InputFormatError` located as ``file`` or ``file:line``; a file
that cannot be opened raises the usual :class:`OSError` (``FileNotFoundError``...), which names it.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import os
import zlib
from collections.abc import Callable

from riskeval.errors import InputFormatError

#: Compression extensions (dropped to find a file's format; the content decides how it is read).
COMPRESSION: dict[str, str] = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}

_DECOMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.decompress,
    "bzip2": bz2.decompress,
    "xz": lzma.decompress,
}
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


def read_bytes(path: str | os.PathLike) -> bytes:
    """The content of a file, decompressed when it is gzip, bzip2 or xz (by content)."""
    location = os.fspath(path)
    with open(location, "rb") as handle:
        data = handle.read()
    return decompress(data, location)


def decompress(data: bytes, location: str) -> bytes:
    """``data`` decompressed if it is a gzip, bzip2 or xz stream (whatever the file's name); a
    truncated or corrupt stream is an :class:`InputFormatError`."""
    kind = compression_of(data)
    if kind is None:
        return data
    try:
        return _DECOMPRESS[kind](data)
    except MemoryError:
        raise InputFormatError([(location, f"is too large to decompress ({kind}) in memory.")]) from None
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
        reason = str(exc) or type(exc).__name__
        raise InputFormatError([(location, f"is a truncated or corrupt {kind} file ({reason}).")]) from None


def read_utf8(path: str | os.PathLike) -> bytes:
    """The text of a file as UTF-8 bytes with LF line breaks (see the module docstring)."""
    location = os.fspath(path)
    return to_utf8(read_bytes(location), location)


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
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


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
