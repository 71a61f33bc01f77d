"""The contents of ranx ``Run`` and ``Qrels`` objects, read in one compiled pass.

ranx holds a run as a numba typed dict ``{query_id: {doc_id: score}}``.  Reading it from Python
(``Run.to_dict()``) boxes every entry through numba's dispatcher, about 40 µs each: seconds for one
TREC DL run, many times the cost of reading the same run from its file.  :func:`ranx_nested` walks
the typed dict inside a compiled function instead and hands back the ids as two joined strings and
the values as an array, which Python splits in C.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.typed import List

from riskeval.core._numba import njit

#: Joins the ids inside the compiled pass; ids that contain it are read entry by entry instead.
_SEPARATOR = "\x1f"


@njit(cache=True)
def _flatten(nested: Any) -> tuple[str, str, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """(topics joined, documents joined, documents per topic, values) of ``{topic: {doc: value}}``."""
    topics = List()
    docs = List()
    counts = np.empty(len(nested), dtype=np.int64)
    n = 0
    for inner in nested.values():
        n += len(inner)
    values = np.empty(n, dtype=np.float64)
    i = 0
    k = 0
    for topic, inner in nested.items():
        topics.append(topic)
        counts[i] = len(inner)
        i += 1
        for doc, value in inner.items():
            docs.append(doc)
            values[k] = value
            k += 1
    return _SEPARATOR.join(topics), _SEPARATOR.join(docs), counts, values


def ranx_nested(obj: Any) -> dict[str, dict[str, Any]] | None:
    """``{topic: {document: value}}`` of a ranx ``Run`` (float scores) or ``Qrels`` (int grades),
    equal to ``obj.to_dict()``; ``None`` when an entry needs to be looked at on its own (a value
    that is not finite, an id holding the separator): read ``obj.to_dict()`` then, which locates it."""
    typed = obj.run if hasattr(obj, "run") else obj.qrels
    if len(typed) == 0:
        return {}
    topics_text, docs_text, counts, values = _flatten(typed)
    topics, docs = topics_text.split(_SEPARATOR), docs_text.split(_SEPARATOR)
    if len(topics) != counts.size or len(docs) != values.size or not np.isfinite(values).all():
        return None
    numbers = values.tolist() if hasattr(obj, "run") else values.astype(np.int64).tolist()
    out, start = {}, 0
    for topic, count in zip(topics, counts.tolist(), strict=True):
        out[topic] = dict(zip(docs[start : start + count], numbers[start : start + count], strict=True))
        start += count
    return out
