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
from riskeval.io.decoding import lines, read_text, read_utf8_array
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
# the compiled parser: one pass over the file's bytes


@njit(cache=True)
def _space(c):
    # bytes.split()'s ASCII whitespace: space, \t, \n, \v, \f, \r
    return c == 32 or 9 <= c <= 13


@njit(cache=True)
def _skip(buf, i, end):
    """The first position from ``i`` (at most ``end``) that is not whitespace."""
    while i < end and _space(buf[i]):
        i += 1
    return i


@njit(cache=True)
def _token(buf, s, end):
    """Where the token at ``s`` ends (whitespace or ``end``), and where its first ``:`` is (the
    token's end when it has none)."""
    i, colon = s, -1
    while i < end and not _space(buf[i]):
        if colon < 0 and buf[i] == 58:
            colon = i
        i += 1
    return i, colon if colon >= 0 else i


@njit(cache=True)
def _find(buf, i, end, byte):
    """The first position of ``byte`` from ``i``, or ``end``."""
    while i < end and buf[i] != byte:
        i += 1
    return i


@njit(cache=True)
def _decimal(buf, s, e):
    """The value of ``buf[s:e]`` in decimal notation, ``[+-]digits[.digits][(e|E)[+-]digits]``.

    Returns ``(status, value)``: status 0 with the exact value when the mantissa has at most 19
    significant digits that fit 2^53 and the power of ten is at most 22 (one correctly rounded
    operation, as ``float`` gives), 1 when the text is decimal but needs ``float`` for an exact
    value, 2 when it is not decimal notation.
    """
    i = s
    negative = i < e and buf[i] == 45  # -
    i += i < e and (buf[i] == 43 or buf[i] == 45)  # + -
    mantissa = np.uint64(0)
    digits = 0  # significant digits kept in the mantissa (leading zeros leave it 0)
    dropped = False  # a significant digit did not fit
    scale = 0  # power of ten of the mantissa's last digit
    seen = point = False
    while i < e:
        if buf[i] == 46 and not point:  # .
            point = True
        elif 48 <= buf[i] <= 57:
            seen = True
            if digits < 19:
                mantissa = mantissa * np.uint64(10) + np.uint64(buf[i] - 48)
                digits += mantissa > 0
                scale -= point
            else:
                scale += not point
                dropped = dropped or buf[i] != 48
        else:
            break
        i += 1
    if not seen:
        return 2, 0.0
    if i < e and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        exp_negative = i < e and buf[i] == 45
        i += i < e and (buf[i] == 43 or buf[i] == 45)
        exponent, status = _digits(buf, i, e, 100000)
        if status == 2:
            return 2, 0.0
        scale += -exponent if exp_negative else exponent
    elif i != e:
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
def _label(buf, s, e):
    """``(problem, label)`` of the label token ``buf[s:e]``: problem -1 when it is a label."""
    status, value = _decimal(buf, s, e)
    if status == 1:
        return _LABEL_CHECK, 0  # Python's float decides
    if status == 2 or not value >= 0.0 or value != np.floor(value):
        return _LABEL, 0
    if value > MAX_LABEL:
        return _LABEL_BIG, 0
    return -1, np.int64(value)


@njit(cache=True)
def _qid(buf, s, e):
    """``(problem, qid)`` of the text ``buf[s:e]`` after ``qid:``: problem -1 when it is an integer."""
    negative = s < e and buf[s] == 45
    number, status = _digits(buf, s + negative, e, 10**18)
    problem = -1 if status == 0 else _QID if status == 2 else _QID_BIG
    return problem, -number if negative else number


@njit(cache=True)
def _feature_problem(index, index_status, status, line_indices, last):
    """The problem of a ``index:value`` token (-1: none) from :func:`_digits`'s ``index_status``
    and :func:`_decimal`'s ``status``: a repeated feature is one of ``line_indices`` (the line's
    features so far, the largest ``last``)."""
    if index_status == 2 or status == 2:
        return _FEATURE
    if index_status == 1:
        return _FEATURE_BIG
    if index <= last and (line_indices == index).any():
        return _REPEATED
    return -1


@njit(cache=True)
def _report(problems, count, lineno, problem, s, e):
    """Keeps problem number ``count`` (the first :data:`_MAX_PROBLEMS` ones) and returns the new count."""
    if count < _MAX_PROBLEMS:
        problems[count] = (lineno, problem, s, e)
    return count + 1


@njit(cache=True)
def _parse(buf, max_lines, indices, values):
    """Labels, qids, CSR features and problems of the file's bytes (see :func:`read_letor`), the
    features' indices and values written into ``indices`` and ``values`` (as long as the file has
    colons: numpy's arrays, which the caller allocates, come in huge pages where the system gives
    them, the compiled code's own in pages of 4 KB, each a page fault when first written)."""
    max_features = indices.shape[0]
    # np.empty, each entry written before it is read: memory is touched only by the lines stored
    labels = np.empty(max_lines, dtype=np.int64)
    lines = np.empty(max_lines, dtype=np.int64)  # the file line of each data line
    qid_start = np.empty(max_lines, dtype=np.int64)  # the qid text of each data line
    qid_end = np.empty(max_lines, dtype=np.int64)
    qid_value = np.empty(max_lines, dtype=np.int64)
    indptr = np.empty(max_lines + 1, dtype=np.int64)
    indptr[0] = 0
    slow = np.empty((max_features, 3), dtype=np.int64)  # values for Python's float: entry, token
    problems = np.zeros((_MAX_PROBLEMS, 4), dtype=np.int64)  # line, problem, token start, token end
    n_problems = n = nnz = n_slow = lineno = pos = 0
    with_qid = -1  # unknown, 0, 1
    while pos < buf.shape[0]:
        lineno += 1
        problems_before, slow_before = n_problems, n_slow
        stop = _find(buf, pos, buf.shape[0], 10)
        end = _find(buf, pos, stop, 35)  # '#' starts a comment
        i = _skip(buf, pos, end)
        pos = stop + 1
        if i == end:
            continue
        qid_start[n] = qid_end[n] = qid_value[n] = 0
        s, i = i, _token(buf, i, end)[0]
        problem, labels[n] = _label(buf, s, i)
        if problem >= 0:
            n_problems = _report(problems, n_problems, lineno, problem, s, i)
        lines[n] = lineno
        i = _skip(buf, i, end)
        has_qid = (
            end - i >= 4 and buf[i] == 113 and buf[i + 1] == 105 and buf[i + 2] == 100 and buf[i + 3] == 58
        )
        with_qid = (1 if has_qid else 0) if with_qid < 0 else with_qid
        if has_qid != (with_qid == 1):
            problem = _QID_EXTRA if has_qid else _QID_MISSING
            n_problems = _report(problems, n_problems, lineno, problem, i, i)
        if has_qid:
            qid_start[n], i = i + 4, _token(buf, i + 4, end)[0]
            qid_end[n] = i
            problem, qid_value[n] = _qid(buf, qid_start[n], i)
            if problem >= 0:
                n_problems = _report(problems, n_problems, lineno, problem, qid_start[n], i)
        last = -1
        while True:
            s = _skip(buf, i, end)
            if s == end:
                break
            i, colon = _token(buf, s, end)
            index, index_status = _digits(buf, s, colon, MAX_FEATURE)
            status, value = _decimal(buf, colon + 1, i)  # no colon: an empty value, status 2
            problem = -1
            if index_status != 0 or status == 2 or index <= last:
                problem = _feature_problem(index, index_status, status, indices[indptr[n] : nnz], last)
            if problem >= 0:
                n_problems = _report(problems, n_problems, lineno, problem, s, i)
                continue
            if status == 1:
                slow[n_slow] = (nnz, s, i)
                n_slow += 1
            last = max(last, index)
            indices[nnz] = index
            values[nnz] = value
            nnz += 1
        if problems_before < _MAX_PROBLEMS:
            n += 1
            indptr[n] = nnz
        else:  # past the budget of problems the file is refused: its lines need no storing
            nnz, n_slow = indptr[n], slow_before
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
def _count_text_lines(buf):
    """The lines holding a byte that is not whitespace: at most the data lines, so that the
    per-line arrays of :func:`_parse` cost nothing for blank lines."""
    n = 0
    text = False
    for i in range(buf.shape[0]):
        if buf[i] == 10:
            n += text
            text = False
        elif not _space(buf[i]):
            text = True
    return n + text


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
    buf = read_utf8_array(path)
    colons = _count(buf, 58)
    features = np.empty(colons, dtype=np.int32), np.empty(colons, dtype=np.float64)
    parsed = _Parsed._make(_parse(buf, _count_text_lines(buf), *features))
    problems = _python_floats(buf, parsed)
    n = parsed.labels.size
    if not n and not problems:
        raise InputFormatError([(str(path), "no data lines")])
    group = None
    if parsed.with_qid:
        group, query_problems = _queries(buf, parsed)
        problems += query_problems
    elif query_file is None:
        query_file = Path(f"{path}.query")
        if not query_file.exists() and n:
            problems.append(
                (
                    0,
                    f"the lines have no qid and there is no query file ({query_file.name}); "
                    "give the query file (query_file=..., or --query-file)",
                )
            )
    located = [(f"{path}:{line}" if line else str(path), message) for line, message in sorted(problems)]
    if parsed.n_problems > len(parsed.problems):
        located.append(
            (str(path), f"and {parsed.n_problems - len(parsed.problems)} more bad tokens not listed")
        )
    if located:
        raise InputFormatError(located)
    if query_file is not None:
        group = _file_groups(query_file, group, path, n)
    assert group is not None  # from the qids or the query file, else a problem above
    X = sp.csr_matrix(
        (parsed.values, parsed.indices, parsed.indptr), shape=(n, _width(parsed.indices, n_features, path))
    )
    return LetorData(
        X.toarray() if dense else X,
        parsed.labels,
        group,
        parsed.qid_value if parsed.with_qid else None,
        str(path),
    )


class _Parsed(NamedTuple):
    """What :func:`_parse` finds: per data line, per stored feature, per problem."""

    labels: np.ndarray
    lines: np.ndarray  # the file line of each data line
    qid_start: np.ndarray  # where each data line's qid text starts and ends in the file's bytes
    qid_end: np.ndarray
    qid_value: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    slow: np.ndarray  # (entry of values, token start, token end) for Python's float
    problems: np.ndarray  # (line, problem, token start, token end), the first _MAX_PROBLEMS
    n_problems: int
    with_qid: bool


def _python_floats(buf: np.ndarray, parsed: _Parsed) -> list[tuple[int, str]]:
    """Reads the labels and values that only Python's ``float`` reads exactly into ``parsed``, and
    returns every problem of the file's tokens as ``(line, message)``."""
    problems = []
    for lineno, problem, start, end in parsed.problems.tolist():
        token = buf[start:end].tobytes().decode()
        if problem == _LABEL_CHECK:
            value = float(token)  # 1e400 reads as inf: compared, never converted to int
            if 0 <= value <= MAX_LABEL and value.is_integer():
                parsed.labels[np.searchsorted(parsed.lines, lineno)] = int(value)
                continue
            problem = _LABEL_BIG if value > MAX_LABEL else _LABEL
        problems.append((lineno, _message(problem, token)))
    for entry, start, end in parsed.slow.tolist():
        token = buf[start:end].tobytes().decode()
        parsed.values[entry] = float(token.partition(":")[2])
        if not np.isfinite(parsed.values[entry]):
            row = np.searchsorted(parsed.indptr, entry, side="right") - 1
            problems.append((int(parsed.lines[row]), _message(_FEATURE, token)))
    return problems


def _queries(buf: np.ndarray, parsed: _Parsed) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """The group sizes of the qids, and the problems of queries split or written two ways."""
    starts = np.flatnonzero(_new_query(buf, parsed.qid_start, parsed.qid_end))
    problems = []
    first_line: dict[str, int] = {}
    first_text: dict[int, tuple[str, int]] = {}
    for k in starts.tolist():
        qid, lineno = buf[parsed.qid_start[k] : parsed.qid_end[k]].tobytes().decode(), int(parsed.lines[k])
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
        other = first_text.setdefault(int(parsed.qid_value[k]), (qid, lineno))
        if other[0] != qid:
            problems.append(
                (
                    lineno,
                    f"qid {qid} is the number of qid {other[0]} (line {other[1]}) written another "
                    "way; write each query id one way",
                )
            )
    return np.diff(np.append(starts, parsed.labels.size)).astype(np.int64), problems


def _file_groups(query_file: str | Path, qid_groups: np.ndarray | None, path: Path, n: int) -> np.ndarray:
    """The group sizes of ``query_file``, checked against the ``n`` data lines of ``path`` and
    the groups of its qids."""
    sizes = read_query_file(query_file)
    if int(sizes.sum()) != n:
        raise InputFormatError(
            [
                (
                    str(query_file),
                    f"group sizes add up to {int(sizes.sum())} documents but {path.name} has {n} data lines",
                )
            ]
        )
    if qid_groups is not None and not np.array_equal(qid_groups, sizes):
        raise InputFormatError([(str(query_file), f"group sizes disagree with the qids in {path.name}")])
    return sizes


def _width(indices: np.ndarray, n_features: int | None, path: Path) -> int:
    """The number of columns of ``X``: ``n_features`` when given, which must hold every index."""
    width = int(indices.max()) + 1 if indices.size else 0
    if n_features is None:
        return width
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
        raise InputFormatError([(str(path), f"n_features must be an integer; got {n_features!r}")])
    if n_features < width:
        raise InputFormatError(
            [(str(path), f"has feature index {width - 1}, beyond n_features={n_features}")]
        )
    return int(n_features)


_MESSAGES = {
    _LABEL: "label {token!r} is not a non-negative integer",
    _LABEL_BIG: (
        f"label {{token!r}} is too large: LightGBM's labels are 32-bit integers (at most {MAX_LABEL})"
    ),
    _QID: "qid {token!r} is not an integer",
    _QID_BIG: "qid {token!r} is too large (at most 18 digits)",
    _FEATURE: "expected feature:value (integer index >= 0, finite value), got {token!r}",
    _FEATURE_BIG: (
        "the feature index of {token!r} is too large: LightGBM's feature indices are 32-bit "
        f"integers (at most {MAX_FEATURE})"
    ),
    _REPEATED: "feature {feature} appears twice",
    _QID_MISSING: "this line has no qid but earlier lines have one",
    _QID_EXTRA: "this line has a qid but earlier lines have none",
}


def _message(problem: int, token: str) -> str:
    return _MESSAGES[problem].format(token=token, feature=token.partition(":")[0])
