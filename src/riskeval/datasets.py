"""Example data shipped inside the package.

``data/dl19-passage-ndcg10.csv``: per-topic nDCG@10 of the 37 official TREC Deep Learning 2019
passage-ranking runs on the 43 judged topics (long form: ``system,topic,score``), computed from the
official runs and qrels (``trec-dl-2019-passage/`` of the project's campaign data) with ir_measures.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

EXAMPLE = "dl19-passage-ndcg10.csv"


def example_scores() -> pd.DataFrame:
    """The shipped example: TREC DL 2019 passage, nDCG@10, 37 systems × 43 topics (a score matrix)."""
    with resources.files("riskeval").joinpath("data", EXAMPLE).open("r") as fh:
        long = pd.read_csv(fh, dtype={"system": str, "topic": str, "score": float})
    matrix = long.pivot(index="system", columns="topic", values="score")
    return matrix.rename_axis(index="system", columns="topic").astype("float64")
