"""Query groups, relevance labels and label gains of a learning-to-rank set, validated once."""

from __future__ import annotations

from typing import Any

import numpy as np

from riskeval.errors import RiskevalError

MAX_DOCS_PER_QUERY = 10000  # LightGBM's limit for ranking objectives


def default_gains() -> np.ndarray:
    """LightGBM's default label gains ``2^l − 1`` for labels 0..30."""
    return np.array([0.0] + [float((1 << i) - 1) for i in range(1, 31)])


def label_gains(label_gain: Any = None) -> np.ndarray:
    """Gains per label: LightGBM's ``label_gain`` parameter (list or comma-separated string) or
    the default ``2^l − 1``."""
    if label_gain is None or (isinstance(label_gain, (list, tuple, str)) and len(label_gain) == 0):
        return default_gains()
    if isinstance(label_gain, str):
        label_gain = label_gain.split(",")
    try:
        gains = np.asarray([float(g) for g in label_gain], dtype=np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(
            f"The 'label_gain' parameter must be a list of numbers. Got {label_gain!r}."
        ) from None
    if gains.size == 0 or not np.isfinite(gains).all():
        raise RiskevalError(f"The 'label_gain' parameter must list finite numbers. Got {label_gain!r}.")
    return gains


def check_labels(y: Any, gains: np.ndarray, *, name: str = "y") -> np.ndarray:
    """Relevance labels as int32: integers ``0 <= l < len(gains)`` (as LightGBM's ranking
    objectives require)."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise RiskevalError(f"{name} must be a 1-D array of relevance labels; got shape {arr.shape}.")
    try:
        values = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(f"{name} must hold numbers (integer relevance labels).") from None
    bad = ~np.isfinite(values) | (values != np.round(values)) | (values < 0)
    bad |= values >= gains.shape[0]
    if bad.any():
        idx = np.flatnonzero(bad)
        shown = ", ".join(f"[{i}] = {arr[i]}" for i in idx[:5])
        raise RiskevalError(
            f"{name} must hold integer relevance labels 0..{gains.shape[0] - 1} (one gain each in "
            f"label_gain); {idx.size} label(s) are not, e.g. {shown}."
        )
    return values.astype(np.int32)


def query_bounds(group: Any = None, qid: Any = None, *, n_docs: int) -> np.ndarray:
    """Query boundaries (length Q + 1, starting at 0) from LightGBM group sizes or a per-document
    query id array (each query's documents contiguous).  Exactly one of ``group``/``qid``."""
    if (group is None) == (qid is None):
        raise RiskevalError(
            "Give the query groups either as group sizes (group=...) or as one query id per "
            "document (qid=...), not both and not neither."
        )
    if group is not None:
        sizes = np.asarray(group)
        if sizes.ndim != 1 or sizes.size == 0 or not np.issubdtype(sizes.dtype, np.integer):
            raise RiskevalError(
                "group must be a non-empty 1-D array of integer group sizes (documents per query, "
                f"in order); got {sizes.dtype} array of shape {sizes.shape}."
            )
        if (sizes < 1).any():
            raise RiskevalError(
                f"group sizes must be >= 1; query {int(np.argmin(sizes))} has {int(sizes.min())}."
            )
        if int(sizes.sum()) != n_docs:
            raise RiskevalError(
                f"group sizes add up to {int(sizes.sum())} documents but there are {n_docs}."
                + (" Did you pass query ids? Use qid=... for those." if sizes.size == n_docs else "")
            )
    else:
        sizes = qid_group_sizes(qid, n_docs=n_docs)
    if sizes.max() > MAX_DOCS_PER_QUERY:
        raise RiskevalError(
            f"A query has {int(sizes.max())} documents; LightGBM's ranking objectives allow at most "
            f"{MAX_DOCS_PER_QUERY}."
        )
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def qid_group_sizes(qid: Any, *, n_docs: int) -> np.ndarray:
    """Group sizes from per-document query ids; a query's documents must be contiguous."""
    ids = np.asarray(qid)
    if ids.ndim != 1 or ids.shape[0] != n_docs:
        raise RiskevalError(f"qid must give one query id per document ({n_docs}); got shape {ids.shape}.")
    if n_docs == 0:
        raise RiskevalError("There are no documents.")
    change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    starts = np.concatenate([[0], change])
    firsts = ids[starts]
    uniq, counts = np.unique(firsts, return_counts=True)
    if (counts > 1).any():
        again = uniq[counts > 1][0]
        where = starts[firsts == again]
        raise RiskevalError(
            f"Query {again} is split: its documents start at rows {where[0]} and {where[1]} with "
            "other queries in between. Sort the documents by query id (keeping each query's "
            "documents in order) first."
        )
    return np.diff(np.concatenate([starts, [n_docs]])).astype(np.int64)
