"""Example data shipped with riskeval."""

from __future__ import annotations

from importlib import resources

import pandas as pd

from riskeval.model.matrix import as_matrix

EXAMPLE_SCORES = "dl19-passage-ndcg10.csv"


def example_scores() -> pd.DataFrame:
    """Per-topic nDCG@10 of the 37 official TREC Deep Learning 2019 passage runs (43 judged topics).

    Computed by :func:`riskeval.evaluate_runs` (ir_measures' nDCG@10, i.e. trec_eval's
    ``ndcg_cut_10``) from the official runs and the qrels of castorini/anserini-tools
    (``tools/make_example_data.py`` rebuilds it).  Systems are named by their run tags, in file-name
    order; topics are in numeric order.  Every run retrieves for every judged topic.

    Returns
    -------
    DataFrame, 37 systems (index ``"system"``) × 43 topics (columns ``"topic"``), float64.
    """
    with (resources.files("riskeval") / "data" / EXAMPLE_SCORES).open("r", encoding="utf-8") as f:
        long = pd.read_csv(f, dtype={"system": str, "topic": str, "score": "float64"})
    wide = long.pivot(index="system", columns="topic", values="score")
    return as_matrix(wide.reindex(index=pd.unique(long["system"]), columns=pd.unique(long["topic"])))
