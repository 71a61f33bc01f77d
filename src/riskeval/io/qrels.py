"""Reader of TREC qrels files: ``qid iteration docno grade``, whitespace separated, plain or compressed.

Grades are integers and may be negative (TREC Web: -2 = spam); how a measure treats them is the
measure's business (ir_measures follows trec_eval and gdeval: a grade <= 0 gains nothing).  Every
malformed line and every document judged twice for a topic is reported, all together (up to a
budget, :mod:`riskeval.io.problems`), as ``file:line: message``.  The file goes through
:mod:`riskeval.io.decoding` (compression, encoding, line breaks), as for every reader.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from riskeval.core._numba import njit
from riskeval.io.decoding import lines, read_utf8
from riskeval.io.problems import MAX_PROBLEMS, Problems

if TYPE_CHECKING:
    import pandas as pd

QRELS_COLUMNS = ("query_id", "doc_id", "relevance", "iteration")
#: Grades are C ``int`` in the evaluators (pytrec_eval): 32-bit signed.
GRADE_RANGE = (-(2**31), 2**31 - 1)
#: From this many bytes a qrels file is read by one compiled pass (:func:`_well_formed`); a smaller
#: one line by line, which takes less than numba's start-up in a process (about 0.6 CPU-s): the
#: same frame either way.
COMPILED_BYTES = 8 * 2**20


def read_qrels(path: str | os.PathLike[str], *, max_problems: int = MAX_PROBLEMS) -> pd.DataFrame:
    """Read a TREC qrels file into a DataFrame with ir_measures' qrels columns.

    Parameters
    ----------
    path : the qrels file, four whitespace-separated fields per line: ``qid iteration docno grade``.
    max_problems : problems listed before the others are only counted (the error says how many).

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64) and ``iteration``
        (str), one row per judgment in file order; ir_measures accepts it as qrels.

    Raises
    ------
    InputFormatError
        Listing every line that does not have four fields or whose grade is not an integer, every
        document judged twice for one topic (naming both lines), up to ``max_problems``; an empty
        file; a file that is not text or is too large (see :mod:`riskeval.io.decoding`).
    """
    import pandas as pd

    location = os.fspath(path)
    text = read_utf8(location)
    frame = _well_formed(text) if len(text) >= COMPILED_BYTES else None
    if frame is not None:
        return frame
    qids, docs, grades, iterations = _read_lines(text, location, max_problems)
    return pd.DataFrame(
        {
            "query_id": pd.Series(qids, dtype=str),
            "doc_id": pd.Series(docs, dtype=str),
            "relevance": np.asarray(grades, dtype=np.int64),
            "iteration": pd.Series(iterations, dtype=str),
        }
    )


def read_judgments(
    path: str | os.PathLike[str], *, max_problems: int = MAX_PROBLEMS
) -> tuple[list[str], list[str], list[int]]:
    """The topics, documents and grades of a qrels file, one per judgment in file order: the
    columns ``query_id``, ``doc_id`` and ``relevance`` of :func:`read_qrels`, checked alike, read
    without pandas for a file of less than :data:`COMPILED_BYTES`."""
    location = os.fspath(path)
    text = read_utf8(location)
    frame = _well_formed(text) if len(text) >= COMPILED_BYTES else None
    if frame is not None:
        return frame["query_id"].tolist(), frame["doc_id"].tolist(), frame["relevance"].tolist()
    qids, docs, grades, _ = _read_lines(text, location, max_problems)
    return list(qids), list(docs), list(grades)


def _read_lines(
    text: bytes, location: str, max_problems: int
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...], tuple[str, ...]]:
    """The topics, documents, grades and iterations of the lines of a qrels file, line by line."""
    problems = Problems(max_problems)
    rows: list[tuple[str, str, int, str]] = []
    first_line: dict[tuple[str, str], tuple[int, str]] = {}
    for number, line in enumerate(lines(text), start=1):
        fields = line.split()
        if not fields:
            continue
        where = f"{location}:{number}"
        if len(fields) != 4:
            problems.add(
                where,
                f"expected 4 whitespace-separated fields 'qid iteration docno grade', found "
                f"{len(fields)}; is this a TREC qrels file?",
            )
            continue
        qid, iteration, docno = (f.decode() for f in fields[:3])
        grade = _grade(fields[3])
        if grade is None:
            low, high = GRADE_RANGE
            problems.add(
                where,
                f"field 4 (grade) must be an integer from {low} to {high} (negative allowed); "
                f"got {fields[3].decode()!r}",
            )
            continue
        key = (qid, docno)
        if key in first_line:
            first, first_iteration = first_line[key]
            hint = (
                " with another field 2: subtopic judgments (a diversity qrels file) cannot be "
                "evaluated as ad hoc qrels"
                if iteration != first_iteration
                else ""
            )
            problems.add(
                where, f"document {docno!r} is judged twice for topic {qid!r} (first on line {first}){hint}"
            )
            continue
        first_line[key] = (number, iteration)
        rows.append((qid, docno, grade, iteration))
    if not rows and not problems:
        problems.add(location, "the qrels file holds no judgments")
    problems.raise_any()
    qids, docs, grades, iterations = zip(*rows, strict=True)
    return qids, docs, grades, iterations


def _well_formed(text: bytes) -> pd.DataFrame | None:
    """The qrels of a file without any problem, read in bulk: one compiled pass finds the four
    fields of every line and reads the grades; the string columns are made from the fields' bytes
    without a Python object per field where pandas keeps strings in Arrow memory; ``None`` when a
    line needs a message (or holds a control byte), and the caller reads the file line by line to
    say which and why."""
    ok, spans, count, grades, keys = _fields(np.frombuffer(text, dtype=np.uint8))
    if not ok or count == 0:
        return None
    spans = spans[:, :count]
    columns = {
        name: _strings(text, spans[2 * k], spans[2 * k + 1])
        for k, name in ((0, "query_id"), (2, "doc_id"), (1, "iteration"))
    }
    import pandas as pd

    frame = pd.DataFrame(
        {
            "query_id": columns["query_id"],
            "doc_id": columns["doc_id"],
            "relevance": grades[:count].copy(),
            "iteration": columns["iteration"],
        }
    )
    return None if _judged_twice(frame, keys[:count]) else frame


#: The dtype of the string columns: ``None`` for pandas' default (object, or Arrow strings), found
#: when pandas is imported, on the first large file.
_STR: Any = None


def _strings(text: bytes, starts: np.ndarray, ends: np.ndarray) -> pd.Series:
    """The fields ``text[starts[i]:ends[i]]`` (UTF-8) as a string column of :data:`_STR`."""
    import pandas as pd

    string = pd.Series([], dtype=str).dtype if _STR is None else _STR
    if getattr(string, "storage", None) == "pyarrow":
        import pyarrow as pa

        data, offsets = _gather(np.frombuffer(text, dtype=np.uint8), starts, ends)
        array = pa.LargeStringArray.from_buffers(starts.size, pa.py_buffer(offsets), pa.py_buffer(data))
        return pd.Series(pd.array(array, dtype=string))
    return pd.Series(
        [text[a:b].decode() for a, b in zip(starts.tolist(), ends.tolist(), strict=True)], dtype=str
    )


def _judged_twice(frame: pd.DataFrame, keys: np.ndarray) -> bool:
    """Whether a (topic, document) pair is judged twice; ``keys``: a hash of each row's pair, so
    that only equal hashes (a pair judged twice, or very rarely two pairs of one hash) call for
    comparing the pairs themselves."""
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return False
    return bool(frame.duplicated(["query_id", "doc_id"]).any())


@njit(cache=True)
def _fields(text):
    """One pass: the spans of the four fields of every non-blank line (rows: start and end of each
    field; the first ``count`` columns), the grades, and a hash (FNV-1a, 64 bits) of each line's
    topic and document; ``ok`` is False when a line has another
    number of fields, a grade is not a decimal integer (optional sign) of at most 12 digits within
    :data:`GRADE_RANGE`, or the text holds a control byte other than whitespace."""
    n = text.size
    spans = np.empty((8, n // 8 + 1), dtype=np.int64)  # a four-field line takes 8 bytes or more
    grades = np.empty(n // 8 + 1, dtype=np.int64)
    keys = np.empty(n // 8 + 1, dtype=np.uint64)
    k = 0
    i = 0
    while i < n:
        fields = 0
        while i < n and text[i] != 10:
            c = text[i]
            if c == 32 or 9 <= c <= 13:
                i += 1
                continue
            start = i
            while i < n and text[i] > 32:
                i += 1
            if i < n and text[i] < 32 and not 9 <= text[i] <= 13:
                return False, spans, 0, grades, keys
            if fields < 4:
                spans[2 * fields, k] = start
                spans[2 * fields + 1, k] = i
            fields += 1
        if fields != 0:
            if fields != 4:
                return False, spans, 0, grades, keys
            j, end = spans[6, k], spans[7, k]
            negative = text[j] == 45
            if text[j] == 43 or text[j] == 45:
                j += 1
            if end - j < 1 or end - j > 12:
                return False, spans, 0, grades, keys
            value = 0
            while j < end:
                if not 48 <= text[j] <= 57:
                    return False, spans, 0, grades, keys
                value = 10 * value + (text[j] - 48)
                j += 1
            value = -value if negative else value
            if value < -(2**31) or value > 2**31 - 1:
                return False, spans, 0, grades, keys
            grades[k] = value
            h = np.uint64(14695981039346656037)
            for field in (0, 2):
                for j in range(spans[2 * field, k], spans[2 * field + 1, k]):
                    h = (h ^ np.uint64(text[j])) * np.uint64(1099511628211)
                h = (h ^ np.uint64(255)) * np.uint64(1099511628211)  # 0xff: in no UTF-8 text
            keys[k] = h
            k += 1
        i += 1
    return True, spans, k, grades, keys


@njit(cache=True)
def _gather(text, starts, ends):
    """The spans' bytes one after the other, and the offsets where each begins (and the last ends)."""
    offsets = np.empty(starts.size + 1, dtype=np.int64)
    offsets[0] = 0
    for r in range(starts.size):
        offsets[r + 1] = offsets[r] + ends[r] - starts[r]
    data = np.empty(offsets[-1], dtype=np.uint8)
    for r in range(starts.size):
        data[offsets[r] : offsets[r + 1]] = text[starts[r] : ends[r]]
    return data, offsets


def _grade(raw: bytes) -> int | None:
    """The integer ``raw`` spells in decimal digits (optional sign), within :data:`GRADE_RANGE`."""
    if not raw.lstrip(b"+-").isdigit() or len(raw) - len(raw.lstrip(b"+-")) > 1:
        return None
    grade = int(raw)
    return grade if GRADE_RANGE[0] <= grade <= GRADE_RANGE[1] else None
