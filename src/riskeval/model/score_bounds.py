"""Per-topic scores of runs with their least and greatest value over the completions of the qrels
(what :func:`riskeval.evaluation.score_bounds.score_bounds` computes and
:mod:`riskeval.analysis.unjudged_risk` reads)."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd


class ScoreBounds(NamedTuple):
    """Per-topic scores of runs (systems × topics matrices, same labels).

    Attributes
    ----------
    scores : the values with unjudged documents non-relevant (trec_eval's default): a completion.
    low, high : the least and greatest value over the completions (how each measure is bounded:
        :mod:`riskeval.evaluation.score_bounds`).
    unjudged : per topic, the unjudged documents the runs retrieve (``|U|``), as a Series.
    measure : the measure's ir_measures name.
    grade : ``G``, the highest grade of a completion.
    """

    scores: pd.DataFrame
    low: pd.DataFrame
    high: pd.DataFrame
    unjudged: pd.Series
    measure: str
    grade: int
