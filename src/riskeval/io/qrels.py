"""Reader of TREC qrels files: ``qid iteration docno grade``, whitespace separated, plain or compressed.

Grades are integers and may be negative (TREC Web: -2 = spam); how a measure treats them is the
measure's business (ir_measures follows trec_eval and gdeval: a grade <= 0 gains nothing).  Every
malformed line and every document judged twice for a topic is reported, all together, as
``file:line: message``.  The file goes through :mod:`riskeval.io.decoding` (compression, encoding,
line breaks), as for every reader.
"""

from __future__ import annotations

import itertools
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
    """The qrels of a file without any problem, read in bulk (each line split once, the columns
    decoded and the grades parsed and checked as arrays); ``None`` when a line needs a message, and
    the caller reads the file line by line to say which and why."""
    split = list(map(bytes.split, text.split(b"\n")))
    counts = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    if not counts.any() or ((counts != 4) & (counts != 0)).any():
        return None
    fields = list(itertools.chain.from_iterable(split))
    raw = np.array(fields[3::4])
    digits = np.char.lstrip(raw, b"+-")
    if not (np.char.isdigit(digits) & (np.char.str_len(raw) - np.char.str_len(digits) <= 1)).all():
        return None
    if digits.dtype.itemsize > 10:  # more digits than any grade in range has
        return None
    grades = raw.astype(np.int64)
    if grades.min() < GRADE_RANGE[0] or grades.max() > GRADE_RANGE[1]:
        return None
    qids = pd.Series(list(map(bytes.decode, fields[0::4])), dtype=str)
    docs = pd.Series(list(map(bytes.decode, fields[2::4])), dtype=str)
    if pd.DataFrame({"q": qids, "d": docs}).duplicated().any():
        return None
    return pd.DataFrame(
        {
            "query_id": qids,
            "doc_id": docs,
            "relevance": grades,
            "iteration": pd.Series(list(map(bytes.decode, fields[1::4])), dtype=str),
        }
    )


def _grade(raw: bytes) -> int | None:
    """The integer ``raw`` spells in decimal digits (optional sign), within :data:`GRADE_RANGE`."""
    if not raw.lstrip(b"+-").isdigit() or len(raw) - len(raw.lstrip(b"+-")) > 1:
        return None
    grade = int(raw)
    return grade if GRADE_RANGE[0] <= grade <= GRADE_RANGE[1] else None
