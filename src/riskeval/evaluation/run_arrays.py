"""A run's text as arrays, by compiled loops over its bytes: the fast path of run evaluation.

:func:`read_judged_lines` finds the fields of every line of a piece of run text
(:mod:`riskeval.evaluation.run_pieces`), keeps the lines of judged topics, reads their scores and looks up
their documents' grades in :class:`JudgedDocuments`, one pass over the bytes each, with no Python
object per line.  It reads what :func:`riskeval.io.runs.parse_run` reads, to the same values:

- fields are split on ASCII whitespace, as ``bytes.split`` splits them;
- a score is the double Python's ``float`` reads: a decimal of at most 15 significant digits with a
  power of ten within ±22 is one exact product or quotient of two doubles (Clinger's fast path of
  correctly rounded decimal reading, Clinger, PLDI 1990); the other scores are read together, by
  pandas' C reader where it is correctly rounded too (:func:`_read_scores`), else by ``float``.

It does not say what is wrong with a file: when a line lacks six fields, a score of a judged topic
is not a finite decimal number or a document repeats within a topic (judged or not), it returns
``None`` and the caller reads the text with :func:`~riskeval.io.runs.parse_run`, which lists every
problem with its line.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from riskeval.core._numba import njit

_FIELDS = 6
# Exact doubles: 10**k for k <= 22 is representable exactly.
_POWERS = np.array([10.0**k for k in range(23)])
_MANTISSA_LIMIT = 1 << 53
# Whether pandas' C reader reads decimals correctly rounded (from version 3.1: fast_float); None:
# as the version of pandas says, once pandas is imported.
_PANDAS_READS_EXACTLY: bool | None = None


class JudgedDocuments(NamedTuple):
    """The qrels in arrays for lookups by compiled code: topic ``t`` (in ``topics`` order) owns
    positions ``offsets[t]:offsets[t + 1]`` of the other arrays, sorted by the documents' hash.

    ``ideal`` holds every topic's grades sorted in decreasing order (same offsets): what the
    measures need of the judgments besides the ranking (relevant counts, ideal DCG)."""

    topics: dict[bytes, int]
    offsets: np.ndarray  # int64, len(topics) + 1
    hashes: np.ndarray  # uint64
    grades: np.ndarray  # int64
    text: np.ndarray  # uint8: the documents' ids, one after the other
    starts: np.ndarray  # int64 into text
    ends: np.ndarray  # int64 into text
    ideal: np.ndarray  # int64

    @classmethod
    def from_qrels(cls, qrels: Mapping[str, Mapping[str, int]]) -> JudgedDocuments:
        """From ``{topic: {document: grade}}`` (grades fit in 64 bits)."""
        topics = {topic.encode(): t for t, topic in enumerate(qrels)}
        docs = [doc.encode() for judged in qrels.values() for doc in judged]
        text = np.frombuffer(b"".join(docs), dtype=np.uint8)
        lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
        ends = np.cumsum(lengths)
        starts = ends - lengths
        grades = np.fromiter(
            (g for judged in qrels.values() for g in judged.values()), dtype=np.int64, count=len(docs)
        )
        sizes = np.fromiter(map(len, qrels.values()), dtype=np.int64, count=len(qrels))
        offsets = np.concatenate(([0], np.cumsum(sizes)))
        hashes = _hash_spans(text, starts, ends)
        topic_of = np.repeat(np.arange(len(sizes)), sizes)
        order = np.lexsort((hashes, topic_of))
        ideal = np.concatenate(
            [-np.sort(-grades[a:b]) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
        )
        return cls(topics, offsets, hashes[order], grades[order], text, starts[order], ends[order], ideal)


class JudgedLines(NamedTuple):
    """The lines of a piece of run text whose topic is judged, grouped by topic.

    Group ``g`` holds rows ``offsets[g]:offsets[g + 1]`` (in file order) of the judged topic
    ``judged[g]`` (its position in :attr:`JudgedDocuments.topics`), named ``topics[g]``."""

    text: np.ndarray  # uint8: the piece
    tag: str | None  # the 6th field of the piece's first line
    topics: list[str]
    judged: np.ndarray  # int64
    offsets: np.ndarray  # int64
    doc_starts: np.ndarray
    doc_ends: np.ndarray
    scores: np.ndarray  # float64
    grades: np.ndarray  # int64; -1: not judged
    skipped: list[str]  # topics of the piece that are not judged


def read_judged_lines(data: bytes, judgments: JudgedDocuments) -> JudgedLines | None:
    """The judged lines of a piece of run text (UTF-8, LF line breaks), or ``None`` when the text
    has anything to report (see the module's description)."""
    text = np.frombuffer(data, dtype=np.uint8)
    ok, spans, count, firsts, blocks, tag_start, tag_end = _split_lines(text)
    if not ok:
        return None
    qid_starts, qid_ends, doc_starts, doc_ends, score_starts, score_ends = spans[:, :count]
    firsts = firsts[:blocks]
    tag = data[tag_start:tag_end].decode() if tag_end > tag_start else None
    ids = [data[a:b] for a, b in zip(qid_starts[firsts].tolist(), qid_ends[firsts].tolist(), strict=True)]
    lookup = judgments.topics
    block_topic = np.fromiter((lookup.get(i, -1) for i in ids), dtype=np.int64, count=len(ids))
    skipped = sorted({i.decode() for i, t in zip(ids, block_topic.tolist(), strict=True) if t < 0})
    sizes = np.diff(np.append(firsts, len(qid_starts)))
    line_topic = np.repeat(block_topic, sizes)
    rows = np.flatnonzero(line_topic >= 0)
    rows = rows[np.argsort(line_topic[rows], kind="stable")]  # grouped by topic, file order within
    judged, group_starts = np.unique(line_topic[rows], return_index=True)
    offsets = np.append(group_starts, len(rows)).astype(np.int64)
    scores, unread = _scores(text, score_starts[rows], score_ends[rows], _POWERS)
    if unread.any():
        rest = rows[unread]
        values = _read_scores(_joined(text, score_starts[rest], score_ends[rest]).tobytes(), rest.size)
        if values is None:
            return None
        scores[unread] = values
    # a document twice in any topic, judged or not, is reported (by the reader that names the lines)
    every_hash = _hash_spans(text, doc_starts, doc_ends)
    topic_of = {t: k for k, t in enumerate(dict.fromkeys(ids))}
    if len(topic_of) == len(ids):  # each topic's lines in one block (as runs are written)
        if _repeats(text, every_hash, doc_starts, doc_ends, np.append(firsts, count).astype(np.int64)):
            return None
    else:
        groups = np.fromiter((topic_of[t] for t in ids), dtype=np.int64, count=len(ids))
        line_group = np.repeat(groups, sizes)
        every = np.argsort(line_group, kind="stable")
        every_offsets = np.append(np.unique(line_group[every], return_index=True)[1], count).astype(np.int64)
        if _repeats(text, every_hash[every], doc_starts[every], doc_ends[every], every_offsets):
            return None
    doc_starts, doc_ends, hashes = doc_starts[rows], doc_ends[rows], every_hash[rows]
    grades = _grades(text, doc_starts, doc_ends, hashes, judged, offsets, *judgments[1:7])
    names = {t: i for i, t in zip(ids, block_topic.tolist(), strict=True)}
    topics = [names[t].decode() for t in judged.tolist()]
    return JudgedLines(text, tag, topics, judged, offsets, doc_starts, doc_ends, scores, grades, skipped)


@njit(cache=True)
def _is_space(c: int) -> bool:
    return c == 32 or 9 <= c <= 13


@njit(cache=True)
def _split_lines(text):
    """One pass over the text: the spans of fields 1, 3 and 5 of every non-blank line (rows: start
    and end of each; the first ``count`` columns), the lines that begin a block of consecutive
    lines of one topic, and the span of the first line's field 6.  ``ok`` is False when a non-blank
    line does not have six fields."""
    n = text.size
    spans = np.empty((6, n // 12 + 1), dtype=np.int64)  # a six-field line takes 11 bytes or more
    firsts = np.empty(n // 12 + 1, dtype=np.int64)
    blocks = 0
    tag_start = tag_end = 0
    k = 0
    i = 0
    while i < n:
        fields = 0
        while i < n and text[i] != 10:
            if _is_space(text[i]):
                i += 1
                continue
            start = i
            while i < n and not _is_space(text[i]):
                i += 1
            if fields < 6 and fields % 2 == 0:
                spans[fields, k] = start
                spans[fields + 1, k] = i
            elif fields == 5 and k == 0:
                tag_start, tag_end = start, i
            fields += 1
        if fields != 0:
            if fields != _FIELDS:
                return False, spans, 0, firsts, 0, 0, 0
            if k == 0 or not _same_bytes(
                text, spans[0, k], spans[1, k], text, spans[0, k - 1], spans[1, k - 1]
            ):
                firsts[blocks] = k
                blocks += 1
            k += 1
        i += 1
    return True, spans, k, firsts, blocks, tag_start, tag_end


@njit(cache=True)
def _same_bytes(text, a0, a1, b_text, b0, b1):
    if a1 - a0 != b1 - b0:
        return False
    for j in range(a1 - a0):
        if text[a0 + j] != b_text[b0 + j]:
            return False
    return True


@njit(cache=True)
def _scores(text, starts, ends, powers):
    """Scores read exactly by Clinger's fast path; ``unread[i]``: the score needs Python's float
    (more than 15 significant digits, a large exponent, ``inf``, a typo, ...)."""
    n = starts.size
    values = np.zeros(n, dtype=np.float64)
    unread = np.zeros(n, dtype=np.bool_)
    for r in range(n):
        i, end = starts[r], ends[r]
        negative = text[i] == 45  # "-"
        if text[i] == 43 or text[i] == 45:  # "+", "-"
            i += 1
        mantissa = 0
        digits = 0  # significant digits
        seen = 0  # digits of any kind
        fraction = 0
        dot = False
        ok = True
        while i < end:
            c = text[i]
            if 48 <= c <= 57:
                seen += 1
                if mantissa > 0 or c != 48:
                    digits += 1
                    if digits > 15:
                        ok = False
                        break
                    mantissa = 10 * mantissa + (c - 48)
                if dot:
                    fraction += 1
            elif c == 46 and not dot:  # "."
                dot = True
            else:
                break
            i += 1
        exponent = 0
        if ok and seen > 0 and i < end and (text[i] == 101 or text[i] == 69):  # "e", "E"
            i += 1
            sign = 1
            if i < end and (text[i] == 43 or text[i] == 45):
                sign = -1 if text[i] == 45 else 1
                i += 1
            expdigits = 0
            while i < end and 48 <= text[i] <= 57 and expdigits < 4:
                exponent = 10 * exponent + (text[i] - 48)
                expdigits += 1
                i += 1
            exponent *= sign
            if expdigits == 0:
                ok = False
        if not ok or seen == 0 or i != end or mantissa >= _MANTISSA_LIMIT:
            unread[r] = True
            continue
        scale = exponent - fraction
        if scale > 22 or scale < -22:
            unread[r] = True
            continue
        value = float(mantissa)
        value = value * powers[scale] if scale >= 0 else value / powers[-scale]
        values[r] = -value if negative else value
    return values, unread


def _read_scores(tokens: bytes, count: int) -> np.ndarray | None:
    """The ``count`` scores of ``tokens`` (each followed by a newline) as Python's ``float`` reads
    them, or ``None`` when one is not a finite number ``float`` reads.

    From pandas 3.1, pandas' C reader reads decimals with fast_float (Lemire, "Number parsing at a
    gigabyte per second", Software: Practice and Experience 51(8), 2021), correctly rounded like
    ``float`` (Gay's correctly rounded conversion), so to the same double, four to five times
    faster.  Earlier versions' reader may miss the nearest double by an ulp: there, and for a
    token pandas does not read as a number, ``float`` reads the scores; so it does where pandas is
    not imported yet (importing it costs more CPU than it saves on the scores of a campaign's runs)."""
    if b"_" in tokens:  # "1_0": float's digit separator, not a number in a run file
        return None
    values = None
    pd = sys.modules.get("pandas")
    exact = _PANDAS_READS_EXACTLY
    if exact is None and pd is not None:
        exact = tuple(int(p) for p in pd.__version__.split(".")[:2]) >= (3, 1)
    if exact and pd is not None:
        try:
            column = pd.read_csv(
                io.BytesIO(tokens),
                sep=" ",  # never in a token: one column
                header=None,
                dtype=np.float64,
                na_filter=False,
                quoting=csv.QUOTE_NONE,
                engine="c",
            )
            values = column[0].to_numpy()
        except ValueError:
            pass  # not a number to pandas: float decides
    if values is None:
        try:
            values = np.fromiter(map(float, tokens.split()), dtype=np.float64, count=count)
        except ValueError:
            return None
    return values if values.size == count and np.isfinite(values).all() else None


@njit(cache=True)
def _joined(text, starts, ends):
    """The spans of bytes one after the other, each followed by a newline."""
    size = 0
    for r in range(starts.size):
        size += ends[r] - starts[r] + 1
    out = np.empty(size, dtype=np.uint8)
    k = 0
    for r in range(starts.size):
        for j in range(starts[r], ends[r]):
            out[k] = text[j]
            k += 1
        out[k] = 10
        k += 1
    return out


@njit(cache=True)
def _hash_spans(text, starts, ends):
    """FNV-1a (64 bits) of each span of bytes."""
    out = np.empty(starts.size, dtype=np.uint64)
    for r in range(starts.size):
        h = np.uint64(14695981039346656037)
        for j in range(starts[r], ends[r]):
            h = (h ^ np.uint64(text[j])) * np.uint64(1099511628211)
        out[r] = h
    return out


@njit(cache=True)
def _grades(
    text, starts, ends, hashes, judged, offsets, q_offsets, q_hashes, q_grades, q_text, q_starts, q_ends
):
    """Each row's grade in its topic's judgments (-1: not judged): a binary search for its hash,
    then its bytes compared with those of each judged document of that hash."""
    grades = np.full(starts.size, -1, dtype=np.int64)
    for g in range(judged.size):
        first, last = q_offsets[judged[g]], q_offsets[judged[g] + 1]
        for r in range(offsets[g], offsets[g + 1]):
            lo, hi = first, last
            while lo < hi:  # the first judged document whose hash is not below the row's
                mid = (lo + hi) // 2
                if q_hashes[mid] < hashes[r]:
                    lo = mid + 1
                else:
                    hi = mid
            while lo < last and q_hashes[lo] == hashes[r]:
                if _same_bytes(text, starts[r], ends[r], q_text, q_starts[lo], q_ends[lo]):
                    grades[r] = q_grades[lo]
                    break
                lo += 1
    return grades


@njit(cache=True)
def _repeats(text, hashes, starts, ends, offsets):
    """Whether a document occurs twice in a topic (rows ``offsets[g]:offsets[g + 1]`` are topic
    ``g``'s): each topic's rows go into a hash table of twice as many slots or more, open
    addressing with linear probing on the hash's low bits (Knuth, TAOCP vol. 3, 6.4, algorithm L);
    a row that meets one of equal hash is compared with it by their bytes."""
    largest = 0
    for g in range(offsets.size - 1):
        largest = max(largest, offsets[g + 1] - offsets[g])
    table = np.empty(2 * _power_of_two(largest), dtype=np.int64)
    for g in range(offsets.size - 1):
        size = 2 * _power_of_two(offsets[g + 1] - offsets[g])
        mask = np.uint64(size - 1)
        table[:size] = -1
        for r in range(offsets[g], offsets[g + 1]):
            slot = np.int64(hashes[r] & mask)
            while table[slot] >= 0:
                other = table[slot]
                if hashes[other] == hashes[r] and _same_bytes(
                    text, starts[r], ends[r], text, starts[other], ends[other]
                ):
                    return True
                slot = (slot + 1) & (size - 1)
            table[slot] = r
    return False


@njit(cache=True)
def _power_of_two(n):
    """The least power of two that is at least ``n`` (1 for ``n`` <= 1)."""
    size = 1
    while size < n:
        size *= 2
    return size
