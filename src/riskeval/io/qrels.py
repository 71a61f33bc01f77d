"""Reader of TREC qrels files: ``qid iteration docno grade``, whitespace separated, plain or compressed.

Grades are integers and may be negative (TREC Web: -2 = spam); how a measure treats them is the
measure's business (ir_measures follows trec_eval and gdeval: a grade <= 0 gains nothing).  Every
malformed line and every document judged twice for a topic is reported, all together, as
``file:line: message``.  The file goes through :mod:`riskeval.io.decoding` (compression, encoding,
line breaks), as for every reader.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError
from riskeval.io.decoding import read_utf8

QRELS_COLUMNS = ("query_id", "doc_id", "relevance", "iteration")
#: Grades are C ``int`` in the evaluators (pytrec_eval): 32-bit signed.
GRADE_RANGE = (-(2**31), 2**31 - 1)


def read_qrels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC qrels file into a DataFrame with ir_measures' qrels columns.

    Returns
    -------
    DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64) and
    ``iteration`` (str), one row per judgment in file order; ir_measures accepts it as qrels.

    Raises
    ------
    InputFormatError
        Listing every line that does not have four fields or whose grade is not an integer, every
        document judged twice for one topic (naming both lines), and an empty file.
    """
    location = os.fspath(path)
    text = read_utf8(location)
    frame = _well_formed(text)
    if frame is not None:
        return frame
    rows: list[tuple[str, str, int, str]] = []
    first_line: dict[tuple[str, str], tuple[int, str]] = {}
    problems: list[tuple[str, str]] = []
    for number, line in enumerate(text.split(b"\n"), start=1):
        fields = line.split()
        if not fields:
            continue
        where = f"{location}:{number}"
        if len(fields) != 4:
            problems.append(
                (
                    where,
                    f"expected 4 whitespace-separated fields 'qid iteration docno "
                    f"grade', found {len(fields)}; is this a TREC qrels file?",
                )
            )
            continue
        qid, iteration, docno = (f.decode() for f in fields[:3])
        grade = _grade(fields[3])
        if grade is None:
            low, high = GRADE_RANGE
            problems.append(
                (
                    where,
                    f"field 4 (grade) must be an integer from {low} to {high} (negative allowed); "
                    f"got {fields[3].decode()!r}",
                )
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
            problems.append(
                (where, f"document {docno!r} is judged twice for topic {qid!r} (first on line {first}){hint}")
            )
            continue
        first_line[key] = (number, iteration)
        rows.append((qid, docno, grade, iteration))
    if not rows and not problems:
        problems.append((location, "the qrels file holds no judgments"))
    if problems:
        raise InputFormatError(problems)
    qids, docs, grades, iterations = zip(*rows, strict=True)
    return pd.DataFrame(
        {
            "query_id": pd.Series(qids, dtype=str),
            "doc_id": pd.Series(docs, dtype=str),
            "relevance": np.asarray(grades, dtype=np.int64),
            "iteration": pd.Series(iterations, dtype=str),
        }
    )


def _well_formed(text: bytes) -> pd.DataFrame | None:
    """The qrels of a file without any problem, read in bulk: the fields counted per line from the
    positions of the whitespace bytes, the text split once, the grades parsed and checked together;
    ``None`` when a line needs a message, and the caller reads the file line by line to say which
    and why."""
    arr = np.frombuffer(text, dtype=np.uint8)
    space = arr <= 0x20
    if not arr.size or (arr[space] < 9).any() or b"_" in text:  # control bytes; "1_0" (int() reads 10)
        return None
    begins = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))  # each field's first byte
    breaks = np.flatnonzero(arr == 0x0A)
    counts = np.bincount(np.searchsorted(breaks, begins), minlength=breaks.size + 1)  # fields per line
    if not counts.any() or ((counts != 4) & (counts != 0)).any():
        return None
    fields = text.decode("utf-8").split()
    if len(fields) != 4 * np.count_nonzero(counts):  # Unicode whitespace inside a field
        return None
    try:  # int() takes an optional sign and ASCII digits, as _grade does
        values = list(map(int, fields[3::4]))
    except ValueError:
        return None
    if min(values) < GRADE_RANGE[0] or max(values) > GRADE_RANGE[1]:
        return None
    frame = pd.DataFrame(
        {
            "query_id": pd.Series(fields[0::4], dtype=str),
            "doc_id": pd.Series(fields[2::4], dtype=str),
            "relevance": np.array(values, dtype=np.int64),
            "iteration": pd.Series(fields[1::4], dtype=str),
        }
    )
    return None if frame.duplicated(["query_id", "doc_id"]).any() else frame


def _grade(raw: bytes) -> int | None:
    """The integer ``raw`` spells in decimal digits (optional sign), within :data:`GRADE_RANGE`."""
    if not raw.lstrip(b"+-").isdigit() or len(raw) - len(raw.lstrip(b"+-")) > 1:
        return None
    grade = int(raw)
    return grade if GRADE_RANGE[0] <= grade <= GRADE_RANGE[1] else None
