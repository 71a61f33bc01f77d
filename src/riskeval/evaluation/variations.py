"""Query variations from TREC runs: each system's runs over the query variants evaluated per query,
then mapped to (topic, variant) cells, for the mean–variance evaluation of Zuccon, Palotti & Hanbury
(CIKM 2016)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from riskeval.evaluation.api import evaluate_runs as evaluate_matrix
from riskeval.io.variations import read_mapping
from riskeval.model.variations import from_scores


def evaluate_runs(
    qrels: Any,
    runs: Any,
    mapping: str | Path | pd.DataFrame,
    *,
    measure: str = "P@10",
    names: Any = None,
    missing: str = "zero",
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Tidy variation table from TREC runs over the query variants, qrels per query, and a mapping.

    The runs are evaluated per query by :func:`riskeval.evaluate_runs` (``measure``, ``names``,
    ``missing`` and ``n_jobs`` are its parameters; ``measure`` an ir_measures name such as
    ``"P@10"`` or ``"AP"``), then mapped as by :func:`riskeval.variations.from_scores`.

    Parameters
    ----------
    qrels, runs
        As for :func:`riskeval.evaluate_runs`, with queries (the variants) in place of topics.
    mapping : path or DataFrame
        A file for :func:`riskeval.variations.read_mapping`, or a DataFrame with columns
        ``query``, ``topic``, ``variant``.

    Returns
    -------
    DataFrame
        The tidy variation table ``system, topic, variant, score, query``.
    """
    matrix = evaluate_matrix(qrels, runs, measure, names=names, missing=missing, n_jobs=n_jobs)
    return from_scores(matrix, mapping if isinstance(mapping, pd.DataFrame) else read_mapping(mapping))
