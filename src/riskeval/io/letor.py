"""Learning-to-rank data in SVMlight/LETOR format, and LightGBM ``.query`` group files.

A data line is ``<label> [qid:<id>] <feature>:<value> ... [# comment]``: an integer relevance label,
optionally the query id, then sparse features (missing ones are 0).  Either every line has a
``qid`` (each query's lines contiguous, as MSLR-Web10K/30K and LETOR 4.0) or none has, and the
queries come from a LightGBM ``.query`` file (one group size per line, in order; by default
``<data file>.query`` when it exists).  Feature indices are kept as written: feature ``j`` is
column ``j`` of ``X`` (LightGBM's convention; 1-based files leave column 0 empty).

Numbers are written in decimal notation (``0.25``, ``-1e-3``); a value is read exactly as Python's
``float`` reads it.  Query ids are integers, and one query id is written one way: ``qid:1`` and
``qid:01`` in the same file are refused rather than taken for one query (or for two).  Labels and
feature indices fit LightGBM's 32-bit integers.

The file goes through riskeval's decoding layer (:mod:`riskeval.io.decoding`: gzip/bzip2/xz by
content, UTF-8 checked, any line break), then one compiled pass parses it.  Every problem in a file
is collected and reported together, each with ``file:line``.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from riskeval.core._numba import njit
from riskeval.errors import InputFormatError
from riskeval.io.decoding import lines, read_text, read_utf8
from riskeval.io.problems import Problems

#: The largest label and feature index: LightGBM stores both as 32-bit integers.
MAX_LABEL = 2**31 - 1
MAX_FEATURE = 2**31 - 2

# problems found by the parser, one code each
_LABEL, _LABEL_BIG, _QID, _QID_BIG, _FEATURE, _FEATURE_BIG, _REPEATED, _QID_MISSING, _QID_EXTRA = range(9)
_LABEL_CHECK = 9  # a label in decimal notation that only Python's float reads exactly
_MAX_PROBLEMS = 1000  # kept with their location; more are counted
_POW10 = np.array([float(f"1e{k}") for k in range(23)])  # exact doubles


class LetorData(NamedTuple):
    """A learning-to-rank set: features ``X`` (CSR sparse, or dense with ``dense=True``), integer
    labels ``y``, LightGBM ``group`` sizes, per-document ``qid`` (``None`` when the queries came
    from a ``.query`` file) and the path it was read from."""

    X: sp.csr_matrix | np.ndarray
    y: np.ndarray
    group: np.ndarray
    qid: np.ndarray | None
    path: str


def read_query_file(path: str | Path) -> np.ndarray:
    """Group sizes from a LightGBM ``.query`` file: one positive integer per line."""
    path = Path(path)
    sizes: list[int] = []
    problems = Problems()
    for lineno, line in enumerate(lines(read_text(path)), 1):
        text = line.strip()
        if not text:
            continue
        size = int(text) if text.isascii() and text.isdigit() and len(text) < 12 else 0
        if size < 1:
            problems.append((f"{path}:{lineno}", f"expected a group size (integer >= 1), got {text!r}"))
        else:
            sizes.append(size)
    problems.raise_any()
    if not sizes:
        raise InputFormatError([(str(path), "no group sizes: the query file is empty")])
    return np.asarray(sizes, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# the compiled parser


@njit(cache=True)
def _space(c):
    # bytes.split()'s ASCII whitespace: space, \t, \n, \v, \f, \r
    return c == 32 or 9 <= c <= 13


@njit(cache=True)
def _decimal(buf, s, e):
    """The value of ``buf[s:e]`` in decimal notation, ``[+-]digits[.digits][(e|E)[+-]digits]``.

    Returns ``(status, value)``: status 0 with the exact value when the mantissa has at most 19
    significant digits that fit 2^53 and the power of ten is at most 22 (one correctly rounded
    operation, as ``float`` gives), 1 when the text is decimal but needs ``float`` for an exact
    value, 2 when it is not decimal notation.
    """
    i = s
    negative = False
    if i < e and (buf[i] == 43 or buf[i] == 45):  # + -
        negative = buf[i] == 45
        i += 1
    mantissa = np.uint64(0)
    digits = 0  # significant digits kept in the mantissa
    dropped = False  # a significant digit did not fit
    scale = 0  # power of ten of the mantissa's last digit
    seen = False
    while i < e and 48 <= buf[i] <= 57:
        seen = True
        if digits < 19:
            if mantissa > 0 or buf[i] != 48:
                mantissa = mantissa * np.uint64(10) + np.uint64(buf[i] - 48)
                digits += mantissa > 0
        else:
            scale += 1
            dropped = dropped or buf[i] != 48
        i += 1
    if i < e and buf[i] == 46:  # .
        i += 1
        while i < e and 48 <= buf[i] <= 57:
            seen = True
            if digits < 19:
                mantissa = mantissa * np.uint64(10) + np.uint64(buf[i] - 48)
                digits += mantissa > 0
                scale -= 1
            else:
                dropped = dropped or buf[i] != 48
            i += 1
    if not seen:
        return 2, 0.0
    if i < e and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        exp_negative = False
        if i < e and (buf[i] == 43 or buf[i] == 45):
            exp_negative = buf[i] == 45
            i += 1
        if i >= e:
            return 2, 0.0
        exponent = 0
        while i < e and 48 <= buf[i] <= 57:
            if exponent < 100000:
                exponent = exponent * 10 + (buf[i] - 48)
            i += 1
        scale += -exponent if exp_negative else exponent
    if i != e:
        return 2, 0.0
    if mantissa == 0 and not dropped:
        return 0, -0.0 if negative else 0.0
    if dropped or mantissa > np.uint64(1 << 53) or scale > 22 or scale < -22:
        return 1, 0.0
    value = float(mantissa)
    value = value * _POW10[scale] if scale >= 0 else value / _POW10[-scale]
    return 0, -value if negative else value


@njit(cache=True)
def _digits(buf, s, e, limit):
    """The non-negative integer ``buf[s:e]`` (ASCII digits only): ``(value, status)`` with status 0,
    1 when it exceeds ``limit``, 2 when the text is not digits."""
    if s >= e:
        return 0, 2
    value = 0
    for i in range(s, e):
        c = buf[i]
        if c < 48 or c > 57:
            return 0, 2
        if value <= limit:
            value = value * 10 + (c - 48)
    return value, 1 if value > limit else 0


@njit(cache=True)
def _parse(buf, max_lines, max_features):
    """One pass over the file's bytes: labels, qids, CSR features, problems (see :func:`read_letor`)."""
    labels = np.zeros(max_lines, dtype=np.int64)
    lines = np.zeros(max_lines, dtype=np.int64)  # the file line of each data line
    qid_start = np.zeros(max_lines, dtype=np.int64)  # the qid text of each data line
    qid_end = np.zeros(max_lines, dtype=np.int64)
    qid_value = np.zeros(max_lines, dtype=np.int64)
    indptr = np.zeros(max_lines + 1, dtype=np.int64)
    indices = np.zeros(max_features, dtype=np.int32)
    values = np.zeros(max_features, dtype=np.float64)
    slow = np.zeros((max_features, 3), dtype=np.int64)  # values for Python's float: entry, start, end
    problems = np.zeros((_MAX_PROBLEMS, 4), dtype=np.int64)  # line, code, token start, token end
    n_problems = 0
    n = 0  # data lines
    nnz = 0
    n_slow = 0
    with_qid = -1  # unknown, 0, 1
    lineno = 0
    pos = 0
    size = buf.shape[0]
    while pos < size:
        lineno += 1
        stop = pos
        while stop < size and buf[stop] != 10:
            stop += 1
        end = pos
        while end < stop and buf[end] != 35:  # '#' starts a comment
            end += 1
        line_start = pos
        pos = stop + 1
        i = line_start
        while i < end and _space(buf[i]):
            i += 1
        if i >= end:
            continue
        # the label
        s = i
        while i < end and not _space(buf[i]):
            i += 1
        status, value = _decimal(buf, s, i)
        code = -1
        if status == 1:
            code = _LABEL_CHECK  # Python's float decides
        elif status == 2 or not value >= 0.0 or value != np.floor(value):
            code = _LABEL
        elif value > MAX_LABEL:
            code = _LABEL_BIG
        if code >= 0:
            if n_problems < _MAX_PROBLEMS:
                problems[n_problems] = (lineno, code, s, i)
            n_problems += 1
        else:
            labels[n] = np.int64(value)
        lines[n] = lineno
        while i < end and _space(buf[i]):
            i += 1
        # the query id
        has_qid = (
            end - i >= 4 and buf[i] == 113 and buf[i + 1] == 105 and buf[i + 2] == 100 and buf[i + 3] == 58
        )
        if with_qid == -1:
            with_qid = 1 if has_qid else 0
        elif has_qid != (with_qid == 1):
            if n_problems < _MAX_PROBLEMS:
                problems[n_problems] = (lineno, _QID_EXTRA if has_qid else _QID_MISSING, i, i)
            n_problems += 1
        if has_qid:
            s = i + 4
            i = s
            while i < end and not _space(buf[i]):
                i += 1
            qid_start[n] = s
            qid_end[n] = i
            negative = i > s and buf[s] == 45
            number, status = _digits(buf, s + negative, i, 10**18)
            if status != 0:
                if n_problems < _MAX_PROBLEMS:
                    problems[n_problems] = (lineno, _QID if status == 2 else _QID_BIG, s, i)
                n_problems += 1
            qid_value[n] = -number if negative else number
        # the features
        first = nnz
        last = -1
        while True:
            while i < end and _space(buf[i]):
                i += 1
            if i >= end:
                break
            s = i
            colon = -1
            while i < end and not _space(buf[i]):
                if colon < 0 and buf[i] == 58:
                    colon = i
                i += 1
            if colon < 0:
                if n_problems < _MAX_PROBLEMS:
                    problems[n_problems] = (lineno, _FEATURE, s, i)
                n_problems += 1
                continue
            index, index_status = _digits(buf, s, colon, MAX_FEATURE)
            status, value = _decimal(buf, colon + 1, i)
            if index_status == 2 or status == 2 or (status == 0 and not np.isfinite(value)):
                code = _FEATURE
            elif index_status == 1:
                code = _FEATURE_BIG
            else:
                code = -1
                if index <= last:  # not increasing: look for the same index on this line
                    for k in range(first, nnz):
                        if indices[k] == index:
                            code = _REPEATED
                            break
            if code >= 0:
                if n_problems < _MAX_PROBLEMS:
                    problems[n_problems] = (lineno, code, s, i)
                n_problems += 1
                continue
            last = max(last, index)
            indices[nnz] = index
            values[nnz] = value
            if status == 1:
                slow[n_slow] = (nnz, colon + 1, i)
                n_slow += 1
            nnz += 1
        n += 1
        indptr[n] = nnz
    return (
        labels[:n],
        lines[:n],
        qid_start[:n],
        qid_end[:n],
        qid_value[:n],
        indptr[: n + 1],
        indices[:nnz],
        values[:nnz],
        slow[:n_slow],
        problems[: min(n_problems, _MAX_PROBLEMS)],
        n_problems,
        with_qid == 1,
    )


@njit(cache=True)
def _count(buf, byte):
    n = 0
    for i in range(buf.shape[0]):
        n += buf[i] == byte
    return n


@njit(cache=True)
def _new_query(buf, starts, ends):
    """Whether each data line's qid text differs from the previous line's (a new query)."""
    n = starts.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        if k == 0 or ends[k] - starts[k] != ends[k - 1] - starts[k - 1]:
            out[k] = True
            continue
        offset = starts[k - 1] - starts[k]
        for i in range(starts[k], ends[k]):
            if buf[i] != buf[i + offset]:
                out[k] = True
                break
    return out


# ---------------------------------------------------------------------------------------------


def read_letor(
    path: str | Path,
    *,
    query_file: str | Path | None = None,
    n_features: int | None = None,
    dense: bool = False,
) -> LetorData:
    """Read an SVMlight/LETOR file (see the module docstring).

    ``query_file`` gives the group sizes when the lines have no ``qid`` (default
    ``<path>.query``); with ``qid`` in the lines it must agree with them.  ``n_features`` widens
    ``X`` to that many columns (e.g. to align a test file with its training file).

    Raises :class:`~riskeval.errors.InputFormatError` listing every bad line: a label that is not a
    non-negative integer (or beyond :data:`MAX_LABEL`), a malformed ``qid`` or ``feature:value``
    token, a feature index beyond :data:`MAX_FEATURE`, a repeated feature, lines with and without
    ``qid`` mixed, a query whose lines are not contiguous, one query id written two ways, bytes
    that are not UTF-8.
    """
    path = Path(path)
    data = read_utf8(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    buf = np.frombuffer(data, dtype=np.uint8)
    (
        labels,
        lines,
        qid_start,
        qid_end,
        qid_value,
        indptr,
        indices,
        values,
        slow,
        found,
        n_found,
        with_qid,
    ) = _parse(buf, _count(buf, 10) + 1, _count(buf, 58))

    def text(start: int, end: int) -> str:
        return data[start:end].decode("utf-8", errors="replace")

    problems: list[tuple[int, str]] = []
    for lineno, code, start, end in found.tolist():
        token = text(start, end)
        if code == _LABEL_CHECK:
            value = float(token)  # 1e400 reads as inf: compared, never converted to int
            if 0 <= value <= MAX_LABEL and value.is_integer():
                labels[np.searchsorted(lines, lineno)] = int(value)
                continue
            code = _LABEL_BIG if value > MAX_LABEL else _LABEL
        problems.append((lineno, _message(code, token)))
    for entry, start, end in slow.tolist():
        token = text(start, end)
        values[entry] = float(token)
        if not np.isfinite(values[entry]):
            lineno = int(lines[np.searchsorted(indptr, entry, side="right") - 1])
            problems.append((lineno, _message(_FEATURE, text(_token_start(data, start), end))))
    if not labels.size and not problems:
        raise InputFormatError([(str(path), "no data lines")])

    group, qid_array = None, None
    if with_qid:
        qid_array = qid_value
        starts = np.flatnonzero(_new_query(buf, qid_start, qid_end))
        first_line: dict[str, int] = {}
        first_text: dict[int, tuple[str, int]] = {}
        for k in starts.tolist():
            qid, lineno = text(int(qid_start[k]), int(qid_end[k])), int(lines[k])
            if qid in first_line:
                problems.append(
                    (
                        lineno,
                        f"query {qid} appears again after other queries (first seen at line "
                        f"{first_line[qid]}); each query's lines must be contiguous: sort the file by qid",
                    )
                )
                continue
            first_line[qid] = lineno
            number = int(qid_value[k])
            other = first_text.setdefault(number, (qid, lineno))
            if other[0] != qid:
                problems.append(
                    (
                        lineno,
                        f"qid {qid} is the number of qid {other[0]} (line {other[1]}) written another "
                        "way; write each query id one way",
                    )
                )
        group = np.diff(np.append(starts, labels.size)).astype(np.int64)
    if query_file is None and not with_qid:
        default = Path(f"{path}.query")
        if default.exists():
            query_file = default
        elif labels.size:
            problems.append(
                (
                    0,
                    f"the lines have no qid and there is no query file ({default.name}); "
                    "give the query file (query_file=..., or --query-file)",
                )
            )
    located = [(f"{path}:{line}" if line else str(path), message) for line, message in sorted(problems)]
    if n_found > len(found):
        located.append((str(path), f"and {n_found - len(found)} more bad tokens not listed"))
    if located:
        raise InputFormatError(located)
    if query_file is not None:
        sizes = read_query_file(query_file)
        if int(sizes.sum()) != labels.size:
            raise InputFormatError(
                [
                    (
                        str(query_file),
                        f"group sizes add up to {int(sizes.sum())} documents "
                        f"but {path.name} has {labels.size} data lines",
                    )
                ]
            )
        if group is not None and not np.array_equal(group, sizes):
            raise InputFormatError([(str(query_file), f"group sizes disagree with the qids in {path.name}")])
        group = sizes
    assert group is not None  # from the qids or the query file, else a problem above
    width = int(indices.max()) + 1 if indices.size else 0
    if n_features is not None:
        if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
            raise InputFormatError([(str(path), f"n_features must be an integer; got {n_features!r}")])
        if n_features < width:
            raise InputFormatError(
                [(str(path), f"has feature index {width - 1}, beyond n_features={n_features}")]
            )
        width = n_features
    X = sp.csr_matrix((values, indices, indptr), shape=(labels.size, width))
    return LetorData(X.toarray() if dense else X, labels, group, qid_array, str(path))


def _token_start(data: bytes, value_start: int) -> int:
    """Where the ``feature:value`` token whose value starts at ``value_start`` begins."""
    i = value_start - 1
    while i > 0 and not data[i - 1 : i].isspace():
        i -= 1
    return i


def _message(code: int, token: str) -> str:
    if code == _LABEL:
        return f"label {token!r} is not a non-negative integer"
    if code == _LABEL_BIG:
        return f"label {token!r} is too large: LightGBM's labels are 32-bit integers (at most {MAX_LABEL})"
    if code == _QID:
        return f"qid {token!r} is not an integer"
    if code == _QID_BIG:
        return f"qid {token!r} is too large (at most 18 digits)"
    if code == _FEATURE:
        return f"expected feature:value (integer index >= 0, finite value), got {token!r}"
    if code == _FEATURE_BIG:
        return (
            f"the feature index of {token!r} is too large: LightGBM's feature indices are 32-bit "
            f"integers (at most {MAX_FEATURE})"
        )
    if code == _REPEATED:
        return f"feature {token.partition(':')[0]} appears twice"
    if code == _QID_MISSING:
        return "this line has no qid but earlier lines have one"
    return "this line has a qid but earlier lines have none"
