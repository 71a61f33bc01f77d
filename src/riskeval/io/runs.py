"""Reader of TREC run files: ``qid Q0 docno rank score tag``, whitespace separated, plain or compressed.

The file goes through :mod:`riskeval.io.decoding` (compression, encoding and line breaks, as for
every reader).  A run file is mostly lines of topics nobody judged (TREC DL 2019: 200 topics per
run, 43 judged), so :func:`read_run` can be told which topics to read.  It then finds each line's
topic id with a few vectorised operations over the raw bytes and parses only the lines of those
topics; the other lines are counted by topic, and their structure (six fields) is checked from the
positions of the whitespace bytes, found in the same pass as the line breaks.  Parsing follows
``ir_measures.read_trec_run``: fields are split on whitespace and the score is read with Python's
``float`` (without its ``_`` digit separators), so the scores handed to ir_measures are the ones its
own reader would produce.  (Only ASCII whitespace separates fields here; ir_measures also splits on
other Unicode whitespace, which TREC files do not use.)

Checked on every line: six fields.  On every line read: a finite score, no document twice in a
topic.  The rank (4th field) and the ``Q0`` field are not used (ir_measures and trec_eval order
documents by score).  Every problem in a file is collected and reported together, as
``file:line: message``; a file without any line is an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection
from typing import NamedTuple

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.decoding import read_utf8

_FIELDS = 6
_RUN_LINE = "qid Q0 docno rank score tag"
# How many leading bytes of a line are examined, vectorised, to find its topic id.  Lines whose
# topic id is this long or longer (or that start with whitespace) are split one by one instead.
_WINDOW = 16
# Bytes that end a topic id: the ASCII whitespace of ``bytes.split``.
_SEPARATORS = np.zeros(256, dtype=bool)
_SEPARATORS[[9, 10, 11, 12, 13, 32]] = True


class Run(NamedTuple):
    """A run file as read by :func:`read_run`.

    Attributes
    ----------
    path : the file read.
    tag : the 6th field of the file's first line (the run tag, trec_eval's ``runid``), or ``None``
        when that line has fewer than six fields.
    scores : ``{topic: {docno: score}}`` in file order, the run format ir_measures evaluates.
    skipped_topics : topics present in the file but not read (not among ``topics``), sorted.
    """

    path: str
    tag: str | None
    scores: dict[str, dict[str, float]]
    skipped_topics: tuple[str, ...]

    def to_frame(self) -> pd.DataFrame:
        """The lines read as a long DataFrame with ir_measures' columns ``query_id, doc_id, score``."""
        qids = [q for q, docs in self.scores.items() for _ in range(len(docs))]
        docs = [d for docs in self.scores.values() for d in docs]
        scores = [s for docs in self.scores.values() for s in docs.values()]
        return pd.DataFrame(
            {
                "query_id": pd.Series(qids, dtype=str),
                "doc_id": pd.Series(docs, dtype=str),
                "score": np.asarray(scores, dtype=np.float64),
            }
        )


def read_run(path: str | os.PathLike[str], *, topics: Collection[str] | None = None) -> Run:
    """Read a TREC run file (plain text or gzip, bzip2, xz, detected from the content).

    Parameters
    ----------
    path : the run file, six whitespace-separated fields per line: ``qid Q0 docno rank score tag``.
    topics : read only the lines of these topic ids (e.g. the topics of the qrels); the other lines
        are checked for their six fields but not parsed, and their topics are listed in
        :attr:`Run.skipped_topics`.  ``None`` reads every line.

    Raises
    ------
    InputFormatError
        Listing every malformed line (wrong number of fields anywhere in the file; in the lines
        read, a score that is not a finite decimal number) and every document repeated within a
        topic, as ``file:line``; a file that is not text (see :mod:`riskeval.io.decoding`) or has
        no line at all.
    """
    location = os.fspath(path)
    buf = read_utf8(location)
    starts, ends, simple = _line_bounds(buf)
    heads, regular = _topic_heads(buf, starts, ends)
    nonblank = heads != b""
    wanted = {t.encode() for t in topics} if topics is not None else set()
    if topics is None:
        keep = nonblank.copy()
    else:
        short = np.array([t for t in wanted if len(t) < _WINDOW], dtype=f"S{_WINDOW}")
        keep = regular & _isin_blocks(heads, short)
    irregular = np.flatnonzero(~regular)
    for i in irregular:  # leading whitespace or a long topic id: split this line in Python
        fields = buf[starts[i] : ends[i]].split(None, 1)
        nonblank[i] = bool(fields)
        keep[i] = bool(fields) and (topics is None or fields[0] in wanted)
    if not nonblank.any():
        raise InputFormatError([(location, f"holds no run line: expected {_RUN_LINE!r} per line.")])
    skipped = _distinct_topics(buf, starts, ends, heads, regular, nonblank & ~keep)
    problems = _check_structure(buf, starts, ends, np.flatnonzero(nonblank & ~keep & ~simple))
    rows = np.flatnonzero(keep)
    scores, parse_problems = _parse_lines(buf, starts[rows], ends[rows], rows + 1)
    problems += parse_problems
    if problems:
        problems.sort(key=lambda p: p[0])
        raise InputFormatError([(f"{location}:{line}", msg) for line, msg in problems])
    first = np.flatnonzero(nonblank)
    tag = _tag(buf[starts[first[0]] : ends[first[0]]])
    return Run(location, tag, scores, skipped)


def load_bytes(path: str) -> bytes:
    """The text of a file as UTF-8 bytes (decompressed, decoded and with LF line breaks by
    :func:`riskeval.io.decoding.read_utf8`)."""
    return read_utf8(path)


def _line_bounds(buf: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end (exclusive, before the newline) byte offsets of every line, and whether each
    line is known, without splitting it, to hold six fields.

    A line is *simple* when it holds exactly five whitespace bytes, none next to another or to a
    line break, and does not start or end with whitespace: it then has six fields.  The whitespace
    positions come from the same pass over the bytes that finds the line breaks.
    """
    arr = np.frombuffer(buf, dtype=np.uint8)
    space = np.flatnonzero(arr <= 0x20)
    values = arr[space]
    is_sep = _SEPARATORS[values]
    if not is_sep.all():  # control bytes other than whitespace are not separators
        space, values = space[is_sep], values[is_sep]
    at_newline = np.flatnonzero(values == 0x0A)
    newlines = space[at_newline]
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(buf)]))
    counts = np.diff(np.concatenate(([-1], at_newline, [len(space)]))) - 1
    if starts[-1] == len(buf):  # the file ends with a newline: no line after it
        starts, ends, counts = starts[:-1], ends[:-1], counts[:-1]
    simple = counts == _FIELDS - 1
    if simple.size:
        adjacent = np.flatnonzero(np.diff(space) == 1)
        if adjacent.size:
            simple[np.searchsorted(at_newline, np.concatenate((adjacent, adjacent + 1)))] = False
        simple[0] &= not _SEPARATORS[arr[0]]
        if arr[-1] != 0x0A:
            simple[-1] &= not _SEPARATORS[arr[-1]]
    return starts, ends, simple


def _topic_heads(buf: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each line's first field as fixed-width bytes, and whether that was read vectorised.

    ``regular[i]`` is False for lines that start with whitespace or whose first field is
    ``_WINDOW`` bytes or longer; their head is empty and must be found by splitting the line.
    A window never reads past its line: the newline (or the newline padding) after it is a separator.
    """
    padded = np.frombuffer(buf + b"\n" * _WINDOW, dtype=np.uint8)
    windows = np.lib.stride_tricks.sliding_window_view(padded, _WINDOW)[starts]
    # Bytes <= 0x20 are candidates; control bytes other than whitespace are rare, so look them up
    # only when present.
    sep = windows <= 0x20
    if not _SEPARATORS[windows[sep]].all():
        sep &= _SEPARATORS[windows]
    first_sep = sep.argmax(axis=1)
    found = sep[np.arange(len(starts)), first_sep]
    regular = found & ((first_sep > 0) | (ends == starts))
    np.multiply(windows, np.arange(_WINDOW) < first_sep[:, None], out=windows)
    heads = windows.view(f"S{_WINDOW}")[:, 0]
    heads[~regular] = b""
    return heads, regular


def _isin_blocks(heads: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.isin(heads, values)``, testing each block of equal consecutive heads once."""
    if heads.size == 0:
        return np.zeros(0, dtype=bool)
    block_start = np.flatnonzero(np.concatenate(([True], heads[1:] != heads[:-1])))
    hit = np.isin(heads[block_start], values)
    return np.repeat(hit, np.diff(np.append(block_start, heads.size)))


def _distinct_topics(
    buf: bytes,
    starts: np.ndarray,
    ends: np.ndarray,
    heads: np.ndarray,
    regular: np.ndarray,
    lines: np.ndarray,
) -> tuple[str, ...]:
    """Sorted distinct topic ids of the selected lines (runs list topics in blocks: compress first)."""
    ids = heads[lines & regular]
    if ids.size:
        ids = ids[np.concatenate(([True], ids[1:] != ids[:-1]))]
    found = {t.decode(errors="replace") for t in np.unique(ids)}
    for i in np.flatnonzero(lines & ~regular):
        found.add(buf[starts[i] : ends[i]].split(None, 1)[0].decode(errors="replace"))
    return tuple(sorted(found))


def _check_structure(
    buf: bytes, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray
) -> list[tuple[int, str]]:
    """``(line number, message)`` for each of the given lines that does not hold six fields."""
    problems = []
    for i in lines.tolist():
        n = len(buf[starts[i] : ends[i]].split())
        if n != _FIELDS:
            problems.append((i + 1, _field_count_message(n)))
    return problems


def _parse_lines(
    buf: bytes, starts: np.ndarray, ends: np.ndarray, numbers: np.ndarray
) -> tuple[dict[str, dict[str, float]], list[tuple[int, str]]]:
    """Parse the given lines into ``{topic: {docno: score}}``, collecting every problem as
    ``(line number, message)``."""
    lines = [buf[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    scores: dict[str, dict[str, float]] = {}
    problems: list[tuple[int, str]] = []
    repeated: list[tuple[int, bytes, bytes]] = []
    raw_qid, docs = None, {}
    for i, line in enumerate(lines):
        fields = line.split()
        if len(fields) != _FIELDS:
            problems.append((i, _field_count_message(len(fields))))
            continue
        if fields[0] != raw_qid:  # lines come in blocks of one topic
            docs = scores.setdefault(fields[0].decode(), {})
            raw_qid = fields[0]
        docno = fields[2].decode()
        raw = fields[4]
        try:
            score = float(raw) if b"_" not in raw else math.nan
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            problems.append((i, f"field 5 (score) must be a finite number; got {_show(raw)}"))
        elif docno in docs:
            repeated.append((i, fields[0], fields[2]))
        else:
            docs[docno] = score
    if repeated:
        problems += _repeated_documents(lines, numbers, repeated)
    return scores, [(int(numbers[i]), msg) for i, msg in problems]


def _repeated_documents(
    lines: list[bytes], numbers: np.ndarray, repeated: list[tuple[int, bytes, bytes]]
) -> list[tuple[int, str]]:
    """One problem per repeated (topic, document), naming the line where it first appeared."""
    wanted = {(qid, docno) for _, qid, docno in repeated}
    first: dict[tuple[bytes, bytes], int] = {}
    for i, line in enumerate(lines):
        key = tuple(line.split()[0:3:2])
        if key in wanted and key not in first:
            first[key] = int(numbers[i])
    return [
        (
            i,
            f"document {docno.decode()!r} appears twice in topic {qid.decode()!r} (first on line "
            f"{first[(qid, docno)]}); a run ranks each document at most once per topic",
        )
        for i, qid, docno in repeated
    ]


def _field_count_message(n: int) -> str:
    return (
        f"expected 6 whitespace-separated fields 'qid Q0 docno rank score tag', found {n}; "
        "is this a TREC run file?"
    )


def _show(raw: bytes) -> str:
    return repr(raw.decode(errors="replace"))


def _tag(line: bytes) -> str | None:
    fields = line.split()
    return fields[5].decode() if len(fields) == _FIELDS else None
