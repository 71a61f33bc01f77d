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

Checked on every line: six fields, no document twice in a topic (in the topics not read too, from a
hash of each line's topic and document, vectorised; the lines whose hashes meet are compared by
their text). On every line read: a finite score. The rank (4th field) and the ``Q0`` field are not
used (ir_measures and trec_eval order documents by score). Every problem in a file is collected and
reported together, as ``file:line: message``; a file without any line is an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from riskeval.errors import InputFormatError
from riskeval.io.decoding import lines, read_utf8
from riskeval.io.problems import MAX_PROBLEMS, Problems

if TYPE_CHECKING:
    import pandas as pd

_FIELDS = 6
_UNDERSCORE = ord("_")
_RUN_LINE = "qid Q0 docno rank score tag"
# How many leading bytes of a line are examined, vectorised, to find its topic id.  Lines whose
# topic id is this long or longer (or that start with whitespace) are split one by one instead.
_WINDOW = 16
# Bytes of text scanned at once: the scan's arrays cost some 100 bytes per line, so a window of
# one-byte lines costs some 25 MB, a window of run lines (about 50 bytes each) far less.
_WINDOW_BYTES = 2**18
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
        import pandas as pd

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


def read_run(
    path: str | os.PathLike[str],
    *,
    topics: Collection[str] | None = None,
    max_problems: int = MAX_PROBLEMS,
) -> Run:
    """Read a TREC run file (plain text or gzip, bzip2, xz, detected from the content).

    Parameters
    ----------
    path : the run file, six whitespace-separated fields per line: ``qid Q0 docno rank score tag``.
    topics : read only the lines of these topic ids (e.g. the topics of the qrels); the other lines
        are checked for their six fields but not parsed, and their topics are listed in
        :attr:`Run.skipped_topics`.  ``None`` reads every line.
    max_problems : problems listed before the others are only counted (the error says how many).

    Raises
    ------
    InputFormatError
        Listing every malformed line (wrong number of fields anywhere in the file; in the lines
        read, a score that is not a finite decimal number) and every document repeated within a
        topic, as ``file:line``, up to ``max_problems``; a file that is not text or is too large
        (see :mod:`riskeval.io.decoding`) or has no line at all.
    """
    location = os.fspath(path)
    run = parse_run(read_utf8(location), location, topics=topics, max_problems=max_problems)
    if run.tag is None and not run.scores and not run.skipped_topics:
        raise no_run_line(location)
    return run


def no_run_line(location: str) -> InputFormatError:
    """The error for a file without any run line."""
    return InputFormatError([(location, f"holds no run line: expected {_RUN_LINE!r} per line.")])


def parse_run(
    buf: bytes,
    location: str,
    *,
    topics: Collection[str] | None = None,
    first_line: int = 1,
    line_numbers: np.ndarray | None = None,
    max_problems: int = MAX_PROBLEMS,
) -> Run:
    """:func:`read_run` of text already decoded (UTF-8, LF line breaks): the whole file, or one of
    its pieces (:mod:`riskeval.evaluation.run_pieces`) whose first line is line ``first_line`` of the
    file, or whose lines are the lines ``line_numbers`` of the file (problems name file lines).
    Text without any run line gives a :class:`Run` with no topic and no tag (:func:`read_run`
    refuses such a file).

    The text is scanned in windows of about :data:`_WINDOW_BYTES` bytes, so that the arrays of
    the scan cost a bounded memory whatever the lines (millions of blank or one-byte lines).
    """
    problems = Problems(max_problems)
    wanted = {t.encode() for t in topics} if topics is not None else set()
    short = np.array([t for t in wanted if len(t) < _WINDOW], dtype=f"S{_WINDOW}")
    scores: dict[str, dict[str, float]] = {}
    skipped: set[str] = set()
    repeated: list[tuple[int, bytes, bytes]] = []
    underscores = _UNDERSCORE in buf  # one scan of the file; most have no "_"
    tag: str | None = None
    any_line = False
    offset = 0  # of the window in ``buf``
    unread: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # keys, starts, ends, lines
    for window, first in _windows(buf):
        offset += len(window)
        if not window.strip():  # blank lines only
            continue
        space = _whitespace(window)
        starts, ends, simple, heads, regular = _scan(window, space)
        if line_numbers is not None:
            numbers = np.asarray(line_numbers[first : first + len(starts)], dtype=np.int64)
        else:
            numbers = np.arange(first + first_line, first + first_line + len(starts), dtype=np.int64)
        counts = np.full(len(starts), _FIELDS) if simple.all() else _field_counts(window, starts, ends)
        nonblank = counts > 0
        if not any_line:
            any_line = True
            line = int(np.flatnonzero(nonblank)[0])
            tag = _tag(window[starts[line] : ends[line]])
        wrong = np.flatnonzero(nonblank & (counts != _FIELDS))
        listed = wrong[: problems.room].tolist()
        for i in listed:
            problems.add(f"{location}:{numbers[i]}", _field_count_message(int(counts[i])))
        problems.omitted += len(wrong) - len(listed)
        complete = counts == _FIELDS
        keep = complete.copy() if topics is None else complete & regular & _isin_blocks(heads, short)
        if topics is not None:
            for i in np.flatnonzero(complete & ~regular):  # leading whitespace or a long topic id
                keep[i] = window[starts[i] : ends[i]].split(None, 1)[0] in wanted
        skipped |= _distinct_topics(window, starts, ends, heads, regular, complete & ~keep)
        spans = _spans(window, space, starts, simple, complete)
        if topics is not None and (complete & ~keep).any():
            out = np.flatnonzero(complete & ~keep)
            base = offset - len(window)
            unread.append(
                (_line_keys(window, spans, out), base + starts[out], base + ends[out], numbers[out])
            )
        rows = np.flatnonzero(keep)
        _parse_lines(
            window,
            starts[rows],
            ends[rows],
            numbers[rows],
            simple[rows] & regular[rows],
            heads[rows],
            spans[:, rows],
            underscores,
            scores,
            location,
            problems,
            repeated,
        )
    if unread:
        repeated += _repeated_unread(buf, *(np.concatenate(parts) for parts in zip(*unread, strict=True)))
    if repeated:
        _repeated_documents(buf, first_line, line_numbers, repeated, location, problems)
    if problems:
        problems.kept.sort(key=_line_key)
        raise problems.error()
    if not any_line:
        return Run(location, None, {}, ())
    return Run(location, tag, scores, tuple(sorted(skipped)))


def _windows(buf: bytes) -> Iterator[tuple[bytes, int]]:
    """Consecutive pieces of ``buf`` of whole lines, about :data:`_WINDOW_BYTES` each, with the
    index (0-based) of each one's first line in ``buf``."""
    if len(buf) <= _WINDOW_BYTES:
        yield buf, 0
        return
    start, line = 0, 0
    while start < len(buf):
        end = buf.find(b"\n", start + _WINDOW_BYTES)
        end = len(buf) if end < 0 else end + 1
        window = buf[start:end]
        yield window, line
        line += window.count(b"\n")
        start = end


def _line_key(problem: tuple[str, str]) -> int:
    line = problem[0].rpartition(":")[2]
    return int(line) if line.isdigit() else 0


def _whitespace(buf: bytes) -> np.ndarray:
    """The positions of the whitespace bytes of ``buf`` (those of ``bytes.split``), in order."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    space = np.flatnonzero(arr <= 0x20)
    values = arr[space]
    # Whitespace is 9-13 and 32; the other bytes <= 0x20 (control bytes, rare) are not separators.
    if values.size and (
        values.min() < 9 or np.count_nonzero(values > 13) != np.count_nonzero(values == 0x20)
    ):
        space = space[_SEPARATORS[values]]
    return space


def _scan(
    buf: bytes, space: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One vectorised pass over the bytes: ``(starts, ends, simple, heads, regular)`` per line.

    ``starts``/``ends``: byte offsets of every line (``ends`` exclusive, before the newline).
    ``heads``: each line's first field (its topic id) as fixed-width bytes; ``regular[i]`` is False
    for lines that start with whitespace or whose first field is ``_WINDOW`` bytes or longer: their
    head is empty and must be found by splitting the line.  ``simple[i]``: the line is known to hold
    six fields, having exactly five whitespace bytes, none next to another or to a line break, and
    no whitespace at its start or end.  Everything comes from the positions of the whitespace
    bytes (``space``, :func:`_whitespace`, found here when not given): the line breaks, each line's
    first separator, the separator counts.
    """
    arr = np.frombuffer(buf, dtype=np.uint8)
    if space is None:
        space = _whitespace(buf)
    at_newline = np.flatnonzero(arr[space] == 0x0A)
    newlines = space[at_newline]
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(buf)]))
    first = np.concatenate(([0], at_newline + 1))  # index in ``space`` of each line's first separator
    counts = np.diff(np.concatenate((first, [len(space) + 1]))) - 1  # separators within each line
    if starts[-1] == len(buf):  # the file ends with a newline: no line after it
        starts, ends, first, counts = starts[:-1], ends[:-1], first[:-1], counts[:-1]
    n = len(starts)
    if n == 0:
        empty = np.zeros(0, dtype=bool)
        return starts, ends, empty, np.zeros(0, dtype=f"S{_WINDOW}"), empty
    head_end = np.full(n, len(buf), dtype=np.int64)  # a line without whitespace ends the buffer
    found = first < len(space)
    head_end[found] = space[first[found]]
    length = head_end - starts
    regular = ((length > 0) & (length < _WINDOW)) | (ends == starts)
    heads = _heads(buf, starts, np.minimum(length, _WINDOW))
    heads[~regular] = b""
    simple = counts == _FIELDS - 1
    adjacent = np.flatnonzero(np.diff(space) == 1)
    if adjacent.size:
        simple[np.searchsorted(at_newline, np.concatenate((adjacent, adjacent + 1)))] = False
    simple[0] &= bool(length[0] > 0)
    if arr[-1] != 0x0A:
        simple[-1] &= not _SEPARATORS[arr[-1]]
    return starts, ends, simple, heads, regular


# Byte masks keeping the first L bytes of a 16-byte head, as two little-endian 64-bit words.
_LOW = np.array([(1 << (8 * min(k, 8))) - 1 for k in range(_WINDOW + 1)], dtype=np.uint64)
_HIGH = np.array([(1 << (8 * min(max(k - 8, 0), 8))) - 1 for k in range(_WINDOW + 1)], dtype=np.uint64)


def _heads(buf: bytes, starts: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The first ``length`` (at most ``_WINDOW``) bytes at each of ``starts`` (in increasing order),
    as ``S16`` values: two unaligned 64-bit loads per line, masked.  Lines starting in the last
    ``_WINDOW`` bytes read from a padded copy of the tail, so no load goes past the buffer."""
    out = np.empty((len(starts), 2), dtype="<u8")
    inside = int(np.searchsorted(starts, len(buf) - _WINDOW, side="right"))
    parts = [(buf, 0, slice(0, inside))]
    if inside < len(starts):
        offset = int(starts[inside])
        parts.append((buf[offset:] + b"\n" * _WINDOW, offset, slice(inside, len(starts))))
    for data, offset, rows in parts:
        if rows.start == rows.stop:
            continue
        words = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
        at, keep = starts[rows] - offset, length[rows]
        np.bitwise_and(words[at], _LOW[keep], out=out[rows, 0])
        np.bitwise_and(words[at + 8], _HIGH[keep], out=out[rows, 1])
    return out.view(f"S{_WINDOW}")[:, 0]


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
) -> set[str]:
    """Distinct topic ids of the selected lines (runs list topics in blocks: compress first)."""
    ids = heads[lines & regular]
    if ids.size:
        ids = ids[np.concatenate(([True], ids[1:] != ids[:-1]))]
    found = {t.decode(errors="replace") for t in np.unique(ids)}
    for i in np.flatnonzero(lines & ~regular):
        found.add(buf[starts[i] : ends[i]].split(None, 1)[0].decode(errors="replace"))
    return found


def _field_counts(buf: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The number of whitespace-separated fields of each line (as ``bytes.split`` counts them),
    from the positions where a field begins."""
    word = ~_SEPARATORS[np.frombuffer(buf, dtype=np.uint8)]
    begins = np.flatnonzero(word[1:] & ~word[:-1]) + 1
    if word.size and word[0]:
        begins = np.concatenate(([0], begins))
    return np.searchsorted(begins, ends) - np.searchsorted(begins, starts)


def _parse_lines(
    buf: bytes,
    starts: np.ndarray,
    ends: np.ndarray,
    numbers: np.ndarray,
    fast: np.ndarray,
    heads: np.ndarray,
    spans: np.ndarray,
    underscores: bool,
    scores: dict[str, dict[str, float]],
    location: str,
    problems: Problems,
    repeated: list[tuple[int, bytes, bytes]],
) -> None:
    """Parse the given lines into ``scores`` (``{topic: {docno: score}}``), adding each problem to
    ``problems`` and each document seen before in its topic to ``repeated``.

    The lines known to hold six fields (``fast``, with their topic id in ``heads`` and the spans of
    their fields in ``spans``, :func:`_spans`) have their documents and scores read all at once
    (:func:`_read_fields`), then added a block of consecutive lines of one topic at a time.  A block
    with anything to report (a score that is not a finite decimal number, a document seen before)
    is parsed again line by line, which says what and where.
    """
    n = len(starts)
    cut = np.ones(n, dtype=bool)
    if n > 1:  # a block: consecutive lines, same topic, all fast
        cut[1:] = (numbers[1:] != numbers[:-1] + 1) | (heads[1:] != heads[:-1]) | ~fast[1:] | ~fast[:-1]
    bounds = np.append(np.flatnonzero(cut), n)
    docs, values, bad = _read_fields(buf, spans[:, fast], underscores)
    firsts = bounds[:-1]
    before = np.concatenate(([0], np.cumsum(fast)))[bounds].tolist()  # fast lines before each block
    failed = np.concatenate(([0], np.cumsum(bad)))[before].tolist()  # unreadable scores before it
    topics = zip(spans[0, firsts].tolist(), spans[1, firsts].tolist(), strict=True)
    for k, (a, b, is_fast, (t0, t1)) in enumerate(
        zip(bounds[:-1].tolist(), bounds[1:].tolist(), fast[firsts].tolist(), topics, strict=True)
    ):
        i, j = before[k], before[k + 1]
        if (
            is_fast
            and failed[k + 1] == failed[k]
            and _add_block(scores, buf[t0:t1].decode(), docs[i:j], values[i:j])
        ):
            continue
        lines = [buf[s:e] for s, e in zip(starts[a:b].tolist(), ends[a:b].tolist(), strict=True)]
        _parse_slowly(lines, numbers[a:b].tolist(), scores, location, problems, repeated, underscores)


def _read_fields(
    buf: bytes, spans: np.ndarray, underscores: bool
) -> tuple[list[str], list[float], np.ndarray]:
    """The documents and scores of six-field lines (``spans``: :func:`_spans` of those lines), as
    ``str`` and as Python's ``float`` reads them, and whether each score is unreadable (not a finite
    decimal number, or written with ``float``'s ``_`` digit separators; its value is then NaN)."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    docs = _joined(arr, spans[2], spans[3]).decode().split("\n")[:-1]
    raw_text = _joined(arr, spans[4], spans[5])
    raw = raw_text.split(b"\n")[:-1]
    try:
        values = list(map(float, raw))
    except ValueError:
        values = list(map(_float_or_nan, raw))
    if underscores and _UNDERSCORE in raw_text:
        values = [math.nan if _UNDERSCORE in r else v for r, v in zip(raw, values, strict=True)]
    bad = ~np.isfinite(np.fromiter(values, dtype=np.float64, count=len(values)))
    return docs, values, bad


def _float_or_nan(raw: bytes) -> float:
    try:
        return float(raw)
    except ValueError:
        return math.nan


def _joined(arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The spans ``arr[starts[i]:ends[i]]`` one after the other, each followed by a newline."""
    lengths = ends - starts + 1
    stops = np.cumsum(lengths)
    if not stops.size:
        return b""
    index = np.arange(stops[-1]) + np.repeat(starts - (stops - lengths), lengths)
    out = arr[np.minimum(index, arr.size - 1)]  # the byte after a span at the very end: none
    out[stops - 1] = 0x0A
    return out.tobytes()


def _add_block(scores: dict[str, dict[str, float]], topic: str, docs: list[str], values: list[float]) -> bool:
    """Add the documents and scores of consecutive lines of ``topic`` to ``scores``; False (nothing
    added) when a document repeats: the caller then parses the lines one by one."""
    new = dict(zip(docs, values, strict=True))
    known = scores.setdefault(topic, {})
    if len(new) != len(docs) or (known and not known.keys().isdisjoint(new)):
        return False
    known.update(new)
    return True


def _parse_slowly(
    lines: list[bytes],
    numbers: list[int],
    scores: dict[str, dict[str, float]],
    location: str,
    problems: Problems,
    repeated: list[tuple[int, bytes, bytes]],
    underscores: bool,
) -> None:
    """Parse lines of six fields one by one (``numbers``: their numbers in the file)."""
    raw_qid, docs = None, {}
    for number, line in zip(numbers, lines, strict=True):
        fields = line.split()
        if fields[0] != raw_qid:  # lines come in blocks of one topic
            docs = scores.setdefault(fields[0].decode(), {})
            raw_qid = fields[0]
        docno = fields[2].decode()
        raw = fields[4]
        try:
            score = float(raw)
        except ValueError:
            score = math.nan
        if underscores and _UNDERSCORE in raw:  # float's digit separators: not a number in a file
            score = math.nan
        if not math.isfinite(score):
            problems.add(f"{location}:{number}", f"field 5 (score) must be a finite number; got {_show(raw)}")
        elif docno in docs:
            if problems.reserve():  # its message names the first line, known at the end
                repeated.append((number, fields[0], fields[2]))
        else:
            docs[docno] = score


def _spans(
    buf: bytes, space: np.ndarray, starts: np.ndarray, simple: np.ndarray, complete: np.ndarray
) -> np.ndarray:
    """The byte spans of fields 1, 3 and 5 (topic, document, score) of the six-field lines
    (``complete``), as rows ``start, end`` of each (meaningless for the other lines).  A simple line's
    five whitespace bytes (``space``, :func:`_scan`) bound its fields; the other lines' fields are
    found from where the words of ``buf`` begin and end."""
    if not space.size:  # one line, of one field
        return np.zeros((6, len(starts)), dtype=np.int64)
    seps = space[np.minimum(np.searchsorted(space, starts) + np.arange(_FIELDS - 1)[:, None], space.size - 1)]
    spans = np.stack((starts, seps[0], seps[1] + 1, seps[2], seps[3] + 1, seps[4]))
    rows = np.flatnonzero(complete & ~simple)
    if rows.size:
        word = ~_SEPARATORS[np.frombuffer(buf, dtype=np.uint8)]
        begins = np.flatnonzero(np.concatenate((word[:1], word[1:] & ~word[:-1])))
        ends = np.flatnonzero(np.concatenate((word[:-1] & ~word[1:], word[-1:]))) + 1
        first = np.searchsorted(begins, starts[rows])
        for k in range(0, _FIELDS, 2):
            spans[k, rows], spans[k + 1, rows] = begins[first + k], ends[first + k]
    return spans


#: The multiplier mixing the 64-bit words of a field into its hash (odd: 2**64 / golden ratio).
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: Fields up to this many bytes are hashed from their 64-bit words; a longer one by Python's hash.
_HASHED = 32


def _line_keys(buf: bytes, spans: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash of the topic and document (fields 1 and 3) of the six-field lines ``rows``
    (``spans``: :func:`_spans`).  Equal (topic, document) pairs get equal keys."""
    padded = np.frombuffer(buf + bytes(_HASHED + 8), dtype=np.uint8)
    words = np.ndarray((padded.size - 7,), dtype="<u8", buffer=padded, strides=(1,))
    topic = _field_hashes(buf, words, spans[0, rows], spans[1, rows])
    document = _field_hashes(buf, words, spans[2, rows], spans[3, rows])
    return (topic * _MIX) ^ document


def _field_hashes(buf: bytes, words: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each span of bytes: its length and its 64-bit words (``words[i]``: the
    unaligned little-endian word at byte ``i``), the bytes past the span masked out."""
    length = ends - starts
    hashes = length.astype(np.uint64)
    for k in range(0, min(int(length.max(initial=0)), _HASHED), 8):
        hashes = (hashes * _MIX) ^ (words[starts + k] & _LOW[np.clip(length - k, 0, 8)])
    for i in np.flatnonzero(length > _HASHED).tolist():
        hashes[i] = hash(buf[starts[i] : ends[i]]) & 0xFFFF_FFFF_FFFF_FFFF
    return hashes


def _repeated_unread(
    buf: bytes, keys: np.ndarray, starts: np.ndarray, ends: np.ndarray, numbers: np.ndarray
) -> list[tuple[int, bytes, bytes]]:
    """The lines (not read) whose topic and document came earlier in the file: the lines of equal
    :func:`_line_keys` compared by their fields, as ``(line, topic, document)``."""
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return []
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    seen: set[tuple[bytes, bytes]] = set()
    found = []
    for i in sorted(set(order[same].tolist()) | set(order[same + 1].tolist()), key=lambda i: starts[i]):
        fields = buf[starts[i] : ends[i]].split(None, 3)
        pair = (fields[0], fields[2])
        if pair in seen:
            found.append((int(numbers[i]), *pair))
        seen.add(pair)
    return found


def _repeated_documents(
    buf: bytes,
    first_line: int,
    line_numbers: np.ndarray | None,
    repeated: list[tuple[int, bytes, bytes]],
    location: str,
    problems: Problems,
) -> None:
    """One problem per repeated (topic, document), naming the line where it first appeared."""
    wanted = {(qid, docno) for _, qid, docno in repeated}
    first: dict[tuple[bytes, bytes], int] = {}
    for i, line in enumerate(lines(buf)):
        fields = line.split(None, 3)
        key = (fields[0], fields[2]) if len(fields) >= 3 else None
        if key in wanted and key not in first:
            first[key] = int(line_numbers[i]) if line_numbers is not None else first_line + i
    for number, qid, docno in repeated:
        problems.add(
            f"{location}:{number}",
            f"document {docno.decode()!r} appears twice in topic {qid.decode()!r} (first on line "
            f"{first[(qid, docno)]}); a run ranks each document at most once per topic",
            reserved=True,
        )


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
