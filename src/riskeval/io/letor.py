"""Learning-to-rank data in SVMlight/LETOR format, and LightGBM ``.query`` group files.

A data line is ``<label> [qid:<id>] <feature>:<value> ... [# comment]``: an integer relevance label,
optionally the query id, then sparse features (missing ones are 0).  Either every line has a
``qid`` (each query's lines contiguous, as MSLR-Web10K/30K and LETOR 4.0) or none has, and the
queries come from a LightGBM ``.query`` file (one group size per line, in order; by default
``<data file>.query`` when it exists).  Feature indices are kept as written: feature ``j`` is
column ``j`` of ``X`` (LightGBM's convention; 1-based files leave column 0 empty).

Every problem in a file is collected and reported together, each with ``file:line``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from riskeval.errors import InputFormatError


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
    problems: list[tuple[str, str]] = []
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            text = line.strip()
            if not text:
                continue
            try:
                size = int(text)
            except ValueError:
                size = 0
            if size < 1:
                problems.append((f"{path}:{lineno}", f"expected a group size (integer >= 1), got {text!r}"))
            else:
                sizes.append(size)
    if problems:
        raise InputFormatError(problems)
    if not sizes:
        raise InputFormatError([(str(path), "no group sizes: the query file is empty")])
    return np.asarray(sizes, dtype=np.int64)


def _parse_label(token: str) -> int | None:
    try:
        value = float(token)
    except ValueError:
        return None
    if not math.isfinite(value) or value < 0 or value != int(value):
        return None
    return int(value)


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
    non-negative integer, a malformed ``qid`` or ``feature:value`` token, a repeated feature, lines
    with and without ``qid`` mixed, a query whose lines are not contiguous.
    """
    path = Path(path)
    labels: list[int] = []
    qids: list[str] = []
    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    problems: list[tuple[str, str]] = []
    with_qid: bool | None = None
    first_line: dict[str, int] = {}
    last_qid: str | None = None
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            where = f"{path}:{lineno}"
            tokens = line.split("#", 1)[0].split()
            if not tokens:
                continue
            label = _parse_label(tokens[0])
            if label is None:
                problems.append((where, f"label {tokens[0]!r} is not a non-negative integer"))
            rest = tokens[1:]
            has_qid = bool(rest) and rest[0].startswith("qid:")
            if with_qid is None:
                with_qid = has_qid
            elif has_qid != with_qid:
                problems.append(
                    (
                        where,
                        "this line has no qid but earlier lines have one"
                        if with_qid
                        else "this line has a qid but earlier lines have none",
                    )
                )
            if has_qid:
                qid = rest[0][4:]
                rest = rest[1:]
                if not qid.lstrip("-").isdigit():
                    problems.append((where, f"qid {qid!r} is not an integer"))
                if qid != last_qid and qid in first_line:
                    problems.append(
                        (
                            where,
                            f"query {qid} appears again after other queries (first "
                            f"seen at line {first_line[qid]}); each query's lines must be "
                            "contiguous: sort the file by qid",
                        )
                    )
                first_line.setdefault(qid, lineno)
                last_qid = qid
                qids.append(qid)
            seen: set[int] = set()
            for token in rest:
                index, sep, text = token.partition(":")
                try:
                    j = int(index)
                    value = float(text)
                except ValueError:
                    j, value = -1, math.nan
                if not sep or j < 0 or not math.isfinite(value):
                    problems.append(
                        (where, f"expected feature:value (integer index >= 0, finite value), got {token!r}")
                    )
                    continue
                if j in seen:
                    problems.append((where, f"feature {j} appears twice"))
                    continue
                seen.add(j)
                indices.append(j)
                values.append(value)
            labels.append(0 if label is None else label)
            indptr.append(len(indices))
    if not labels and not problems:
        problems.append((str(path), "no data lines"))
    group, qid_array = None, None
    if with_qid:
        qid_array = np.asarray([int(q) if q.lstrip("-").isdigit() else 0 for q in qids])
        change = np.flatnonzero(qid_array[1:] != qid_array[:-1]) + 1
        group = np.diff(np.concatenate([[0], change, [len(qids)]])).astype(np.int64)
    if query_file is None and not with_qid:
        default = Path(f"{path}.query")
        if default.exists():
            query_file = default
        elif labels:
            problems.append(
                (
                    str(path),
                    f"the lines have no qid and there is no query file ({default.name}); "
                    "give the query file (query_file=..., or --query-file)",
                )
            )
    if query_file is not None and not problems:
        sizes = read_query_file(query_file)
        if int(sizes.sum()) != len(labels):
            problems.append(
                (
                    str(query_file),
                    f"group sizes add up to {int(sizes.sum())} documents "
                    f"but {path.name} has {len(labels)} data lines",
                )
            )
        elif group is not None and not np.array_equal(group, sizes):
            problems.append((str(query_file), f"group sizes disagree with the qids in {path.name}"))
        group = sizes
    if problems:
        raise InputFormatError(problems)
    assert group is not None  # from the qids or the query file, else a problem above
    width = max(indices, default=-1) + 1
    if n_features is not None:
        if n_features < width:
            raise InputFormatError(
                [(str(path), f"has feature index {width - 1}, beyond n_features={n_features}")]
            )
        width = n_features
    X = sp.csr_matrix(
        (
            np.asarray(values, dtype=np.float64),
            np.asarray(indices, dtype=np.int64),
            np.asarray(indptr, dtype=np.int64),
        ),
        shape=(len(labels), width),
    )
    return LetorData(
        X.toarray() if dense else X, np.asarray(labels, dtype=np.int64), group, qid_array, str(path)
    )
