"""CSV and TSV text as a DataFrame whose rows know their line numbers.

Two readers, one result.  A file without quote characters (the usual score table) is read by the
pandas C parser, after numpy has counted the fields of every line, so malformed and blank lines are
known beforehand by number and left out (their problems kept up to the budget of
:mod:`riskeval.io.problems`).  A file with quotes (fields may then hold delimiters or
line breaks) is read by the :mod:`csv` module, which tracks physical line numbers itself.

The bytes come from :mod:`riskeval.io.decoding` (compression, encoding, line breaks: LF, CRLF or a
lone CR), as for every reader, so both parsers see LF-terminated UTF-8 and count lines alike.
Blank (empty or whitespace-only) lines are skipped; the first other line is the header; every data
line must have as many fields as the header.  Label columns are read as text, verbatim; the other
columns are left to pandas (numbers stay numbers), with the spellings of a missing cell read as NaN.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Hashable, Iterator, Sequence

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.decoding import read_utf8
from riskeval.io.problems import Problems
from riskeval.io.tables import MISSING_STRINGS

LabelColumns = Callable[[Sequence[Hashable]], set[int]]
"""Given the header, the positions of the columns to keep as text (system and topic labels)."""

_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\r\x0b\x0c")] = True  # what bytes.strip() removes
_NA = sorted({v for s in MISSING_STRINGS for v in (s, s.upper(), s.title())})


#: Bytes of lines looked at in one vectorised pass: the per-line arrays of a pass (line starts,
#: field counts: 8 bytes a line) stay a few MiB whatever the file's length and line lengths.
CHUNK = 1 << 20


def read_delimited(
    path: str | os.PathLike, delimiter: str | None, label_columns: LabelColumns
) -> tuple[pd.DataFrame, np.ndarray, Problems]:
    """The table of a CSV/TSV file, the line number of each row, and the malformed lines;
    ``delimiter`` ``None``: a tab if the header line holds one, else a comma.

    Raises :class:`InputFormatError` for a file that is not text (see :mod:`riskeval.io.decoding`),
    is empty, or has a header and no data line at all.
    """
    data = read_utf8(path)
    if delimiter is None:
        first = re.search(rb"[^\s]", data)
        start = data.rfind(b"\n", 0, first.start()) + 1 if first else 0
        end = data.find(b"\n", start)
        delimiter = "\t" if b"\t" in data[start : end if end >= 0 else len(data)] else ","
    if b'"' in data:
        frame, lines, problems = _read_quoted(path, data.decode("utf-8"), delimiter)
    else:
        frame, lines, problems = _read_plain(path, data, delimiter, label_columns)
    if not len(lines) and not problems:
        raise InputFormatError([(str(path), "has a header line but no data lines.")])
    return frame, lines, problems


def _chunks(data: bytes) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of successive runs of whole lines of ``data``, about :data:`CHUNK` bytes
    each (a line longer than that is a run of its own)."""
    start = 0
    while start < len(data):
        end = data.rfind(b"\n", start, start + CHUNK) + 1
        if end <= start:
            end = data.find(b"\n", start + CHUNK) + 1 or len(data)
        if start + CHUNK >= len(data):
            end = len(data)
        yield start, end
        start = end


def _read_plain(
    path: str | os.PathLike, data: bytes, delimiter: str, label_columns: LabelColumns
) -> tuple[pd.DataFrame, np.ndarray, Problems]:
    """A table without quotes: the lines found, counted and checked by vectorised passes over
    runs of lines (no Python object per blank or malformed line, and per-line arrays of one run at
    a time), the well-formed ones copied out and parsed by pandas."""
    problems = Problems()
    kept_lines: list[np.ndarray] = []
    kept = io.BytesIO()
    header: list[str] | None = None
    before = 0  # lines in the runs before this one
    for start, end in _chunks(data):
        buf = np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start)
        newlines = np.flatnonzero(buf == ord("\n"))
        starts = np.concatenate(([0], newlines + 1))
        if starts[-1] == len(buf):  # the run ends with a line break
            starts = starts[:-1]
        nonblank = np.logical_or.reduceat(~_SPACE[buf], starts)  # as bytes.strip() sees a line
        rows = nonblank
        if header is None:
            if not nonblank.any():
                before += len(starts)
                continue
            first = int(np.argmax(nonblank))
            stop = newlines[first] if first < len(newlines) else len(buf)
            header = data[start + starts[first] : start + stop].decode("utf-8").rstrip("\r").split(delimiter)
            rows = nonblank & (np.arange(len(starts)) > first)
        fields = np.bincount(
            np.searchsorted(newlines, np.flatnonzero(buf == ord(delimiter))), minlength=len(starts)
        )
        fields = fields[: len(starts)] + 1
        wrong = np.flatnonzero(rows & (fields != len(header)))
        listed = wrong[: problems.room].tolist()
        for k in listed:
            problems.append(_field_count(path, before + k + 1, len(header), int(fields[k])))
        problems.omitted += len(wrong) - len(listed)
        good = rows & (fields == len(header))
        if good.all():
            kept.write(memoryview(data)[start:end])
        elif good.any():
            kept.write(buf[np.repeat(good, np.diff(np.append(starts, len(buf))))].tobytes())
        kept_lines.append(np.flatnonzero(good) + before + 1)
        before += len(starts)
    if header is None:
        raise _empty(path)
    lines = np.concatenate(kept_lines) if kept_lines else np.zeros(0, dtype=np.int64)
    width = len(header)
    labels = label_columns(header)
    kept.seek(0)
    frame = pd.read_csv(
        kept,
        sep=delimiter,
        header=None,
        names=range(width),
        dtype={j: object for j in labels},
        keep_default_na=False,
        na_values={j: _NA for j in range(width) if j not in labels},
        skip_blank_lines=False,
        quoting=csv.QUOTE_NONE,
        encoding="utf-8",
    )
    frame.columns = pd.Index(header, dtype=object)
    return frame, lines, problems


def _read_quoted(
    path: str | os.PathLike, text: str, delimiter: str
) -> tuple[pd.DataFrame, np.ndarray, Problems]:
    problems = Problems()
    rows: list[list[str]] = []
    lines: list[int] = []
    header: list[str] | None = None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    start = 1
    try:
        for row in reader:
            if len(row) > 1 or (row and row[0].strip()):
                if header is None:
                    header = row
                elif len(row) != len(header):
                    problems.append(_field_count(path, start, len(header), len(row)))
                else:
                    rows.append(row)
                    lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        problems.append((f"{path}:{reader.line_num}", f"not valid CSV: {exc}."))
    if header is None:
        raise _empty(path)
    frame = pd.DataFrame(rows, columns=pd.Index(header, dtype=object), dtype=object)
    return frame, np.array(lines, dtype=np.int64), problems


def _field_count(path: str | os.PathLike, line: int, width: int, got: int) -> tuple[str, str]:
    return (f"{path}:{line}", f"expected {width} fields as in the header, got {got}.")


def _empty(path: str | os.PathLike) -> InputFormatError:
    return InputFormatError([(str(path), "is empty: expected a header line and one line per row.")])
