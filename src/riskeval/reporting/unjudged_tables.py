"""Tables of risk over the completions of the qrels, with their captions: the systems' URisk and
TRisk intervals and losses by label, and one system's topics
(:mod:`riskeval.analysis.risk_bounds`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from riskeval.analysis.risk_bounds import LABELS, risk_bounds, topic_bounds
from riskeval.evaluation.score_bounds import ScoreBounds
from riskeval.settings import RiskSettings


def _about(bounds: ScoreBounds) -> str:
    topics = bounds.scores.shape[1]
    return (
        f"{bounds.measure} over {topics} topics; unjudged documents graded 0 to {bounds.grade} "
        f"({int(bounds.unjudged.sum())} (topic, document) pairs retrieved unjudged)"
    )


def bounds_table(
    bounds_of: Callable[[str], ScoreBounds], measures: list[str], settings: RiskSettings
) -> tuple[pd.DataFrame, str]:
    """URisk and TRisk intervals of every system against the settings' baseline, per measure and α
    (:func:`riskeval.analysis.risk_bounds.risk_bounds`), and the caption."""
    parts, about = [], []
    for measure in measures:
        bounds = bounds_of(measure)
        table = risk_bounds(bounds, settings.baseline, settings.alphas)
        table.insert(0, "measure", bounds.measure)
        parts.append(table)
        about.append(_about(bounds))
    table = pd.concat(parts, ignore_index=True)
    if len(measures) == 1:
        table = table.drop(columns="measure")
    caption = (
        f"Risk against {settings.baseline} over every completion of the qrels: {'; '.join(about)}. "
        f"urisk: unjudged documents non-relevant; robust_losses: losses under every completion; "
        f"possible_losses: losses the qrels cannot decide"
    )
    return table, caption


def topic_bounds_table(
    bounds_of: Callable[[str], ScoreBounds],
    measures: list[str],
    system: str,
    settings: RiskSettings,
    *,
    losses_only: bool = False,
) -> tuple[pd.DataFrame, str]:
    """Per topic of ``system`` against the settings' baseline, per measure and α: scores, δ and
    the risk as intervals, and the label (:func:`riskeval.analysis.risk_bounds.topic_bounds`)."""
    parts, about = [], []
    for measure in measures:
        bounds = bounds_of(measure)
        about.append(_about(bounds))
        for alpha in settings.alphas:
            part = topic_bounds(bounds, system, settings.baseline, float(alpha))
            part.insert(0, "alpha", float(alpha))
            part.insert(0, "measure", bounds.measure)
            parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    if losses_only:
        table = table[table["label"] != LABELS[2]].reset_index(drop=True)
    if len(measures) == 1:
        table = table.drop(columns="measure")
    caption = (
        f"Topics of {system} against {settings.baseline} over every completion of the qrels: "
        f"{'; '.join(about)}{'; losses only' if losses_only else ''}"
    )
    return table, caption
