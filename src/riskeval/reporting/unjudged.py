"""Risk over the completions of the qrels, shown: the tables of ``riskeval risk --unjudged bounds``
(the systems' URisk and TRisk intervals and losses by label, one system's topics) with their
captions, and the report's section "Losses the qrels cannot decide"
(:mod:`riskeval.analysis.unjudged_risk`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from riskeval.analysis.unjudged_risk import LABELS, risk_bounds, topic_bounds
from riskeval.measures.declared import URisk
from riskeval.model.score_bounds import ScoreBounds
from riskeval.reporting import html as h
from riskeval.reporting.build import ReportContext, Section
from riskeval.settings import RiskSettings

#: Most rows of the table of possible losses written into the page.
TABLE_ROWS = 1_000


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
    (:func:`riskeval.analysis.risk_bounds`), and the caption."""
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
        f"{URisk.column}: unjudged documents non-relevant; robust_losses: losses under every completion; "
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
    the risk as intervals, and the label (:func:`riskeval.analysis.topic_bounds`)."""
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


def unjudged_section(ctx: ReportContext) -> Section | None:
    """ "Losses the qrels cannot decide": with score bounds in ``data["unjudged"]`` (a
    :class:`~riskeval.evaluation.score_bounds.ScoreBounds`, or a mapping measure name -> one), each
    system's URisk and TRisk at the report's per-topic α as intervals over the completions of the
    qrels, its losses by label, and the topics whose loss the qrels cannot decide."""
    bounds = ctx.data.get("unjudged")
    if isinstance(bounds, Mapping):
        bounds = bounds.get(ctx.measure)
    if bounds is None:
        return None
    baseline = str(ctx.settings["baseline"])
    alpha = float(ctx.settings["topic_alpha"])
    table = risk_bounds(bounds, baseline, [alpha]).set_index("system").drop(columns=["alpha", "baseline"])
    intro = h.paragraph(
        f"Each unjudged document that a run retrieves ({int(bounds.unjudged.sum()):,} (topic, document) "
        f"pairs) may be graded anything from 0 to {bounds.grade} once judged. Over every such completion "
        f"of the qrels, each system's {bounds.measure} against {baseline} lies between its score with the "
        "unjudged documents graded pessimistically and the baseline's graded optimistically, and the "
        "reverse. A robust loss is a topic lost under every completion; a possible loss, one that the "
        f"qrels cannot decide (a loss under some completions, maybe). URisk and TRisk at α = {alpha:g}: "
        f"{URisk.column} with unjudged documents non-relevant, as in the other sections, then its least and "
        "greatest value; TRisk's interval bounds the ratio of URisk to its standard error over the box "
        "of per-topic risks."
    )
    formats: dict[str, h.Formatter] = {c: h.integer for c in ("losses", "robust_losses", "possible_losses")}
    systems = h.table(table, formats=formats, caption=f"Risk against {baseline} over the completions")
    rows = []
    for system in table.index:
        topics = topic_bounds(bounds, str(system), baseline, alpha)
        topics = topics[topics["label"] == LABELS[1]]
        for r in topics.itertuples(index=False):
            rows.append((system, r.topic, r.delta, r.delta_low, r.delta_high, r.unjudged))
    undecided = pd.DataFrame(
        rows[:TABLE_ROWS], columns=["system", "topic", "delta", "delta_low", "delta_high", "unjudged"]
    ).set_index(["system", "topic"])
    note = f" (the first {TABLE_ROWS:,} of {len(rows):,})" if len(rows) > TABLE_ROWS else ""
    body = [intro, systems]
    if rows:
        body.append(
            h.table(
                undecided,
                formats={"unjudged": h.integer},
                caption=f"Possible losses: δ with unjudged documents non-relevant, its least and greatest "
                f"value, and the topic's unjudged documents{note}",
            )
        )
    else:
        body.append(h.paragraph("No topic's loss is left undecided by the qrels."))
    return Section("Losses the qrels cannot decide", h.join(body), "unjudged")
