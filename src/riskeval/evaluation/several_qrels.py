"""The same runs evaluated against several qrels of the same topics (two assessors, graded and
binary labels, people and an LLM): one score matrix per qrels, the input of
:func:`riskeval.analysis.qrels_comparison.qrels_agreement`."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd


def qrels_names(qrels: Any, labels: Any = None) -> dict[str, Any]:
    """Name -> qrels: ``qrels`` as a mapping (its keys the names), or a list of qrels named by
    ``labels`` (one per qrels) or, for files, by their file names without ``.gz`` and ``.txt``.

    Raises :class:`~riskeval.errors.RiskevalError` for fewer than two qrels, a wrong number of
    labels, or two qrels of the same name (name them with ``labels``)."""
    if isinstance(qrels, Mapping) and not _is_qrels_dict(qrels):
        if labels is not None:
            raise RiskevalError(
                "Give the qrels' names either as the keys of a mapping or as labels, not both."
            )
        named = {str(k): v for k, v in qrels.items()}
    else:
        given = [qrels] if isinstance(qrels, (str, os.PathLike)) or _is_qrels_dict(qrels) else list(qrels)
        if labels is None:
            if not all(isinstance(q, (str, os.PathLike)) for q in given):
                raise RiskevalError("Name qrels that are not files with labels=[...], one per qrels.")
            labels = [_file_label(q) for q in given]
        labels = [str(x) for x in labels]
        if len(labels) != len(given):
            raise RiskevalError(
                f"Give one label per qrels: got {len(labels)} label(s) for {len(given)} qrels."
            )
        named = dict(zip(labels, given, strict=True))
        if len(named) < len(labels):
            raise RiskevalError(
                f"Two qrels have the same name among {labels}: name them with labels=[...] "
                "(command line: --label, once per --qrels)."
            )
    if len(named) < 2:
        raise RiskevalError(f"Comparing qrels needs at least two; got {len(named)}.")
    return named


def evaluate_under_qrels(
    qrels: Any,
    runs: Any,
    measure: Any = "nDCG@10",
    *,
    labels: Any = None,
    names: Any = None,
    missing: str = "zero",
    client: Any = None,
    engine: str = "compiled",
) -> dict[str, pd.DataFrame]:
    """The systems × topics matrix of ``measure`` for ``runs`` under each of ``qrels``.

    ``qrels``: a mapping name -> qrels, or a list of qrels (named by ``labels`` or their file
    names, :func:`qrels_names`); each qrels and the ``runs``, ``measure``, ``names``, ``missing``,
    ``client`` and ``engine`` as in :func:`riskeval.evaluate_runs`.  A warning of one evaluation
    (missing topics, topics the qrels do not judge) is given once per qrels, starting "under the
    qrels NAME:".

    Returns
    -------
    dict
        Qrels name -> score matrix, in the order of the qrels.
    """
    from riskeval.evaluation.api import evaluate_runs

    matrices = {}
    for name, q in qrels_names(qrels, labels).items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            matrices[name] = evaluate_runs(
                q, runs, measure, names=names, missing=missing, client=client, engine=engine
            )
        for caveat in caught:  # the same caveat under two qrels reads as two different ones
            warnings.warn(caveat.category(f"under the qrels {name}: {caveat.message}"), stacklevel=2)
    return matrices


def _file_label(path: Any) -> str:
    name = os.path.basename(os.fspath(path)).removesuffix(".gz")
    return name.removesuffix(".txt") if len(name) > 4 else name


def _is_qrels_dict(value: Any) -> bool:
    """A qrels dict ``{query_id: {doc_id: grade}}`` rather than a mapping name -> qrels."""
    if not isinstance(value, Mapping) or not value:
        return False
    inner = next(iter(value.values()))
    return isinstance(inner, Mapping) and all(not isinstance(v, Mapping) for v in inner.values())
