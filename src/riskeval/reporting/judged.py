"""The judged fractions of the report (``report(judged=...)``): checked against the score matrices,
and what the page shows of them, beside each system's risk and each topic's loss."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.io.measure_depth import judged_measure

if TYPE_CHECKING:
    from riskeval.reporting.build import ReportContext

#: Below this fraction of judged documents at the measure's depth, a loss is flagged as one that
#: the qrels may not decide.  A convention, not a result of a paper: with 80% of a top 10 judged,
#: two unjudged documents scored as non-relevant can move nDCG@10 by more than most per-topic
#: differences between runs; the official TREC DL 2019 passage runs, which made the pool, are
#: judged at 98.8% to 100% of their top 10 on average.
JUDGED_THRESHOLD = 0.8

#: The key of the judged fractions in ``ReportContext.data`` and in the risk table's page data.
KEY = "judged"


def judged_matrices(
    judged: Any, matrices: Mapping[str | None, pd.DataFrame]
) -> dict[str | None, pd.DataFrame]:
    """``report(judged=...)`` checked: measure name → judged fractions on the systems and topics of
    that measure's score matrix.  A matrix (not a mapping) goes with every measure of the page.

    Raises :class:`~riskeval.errors.RiskevalError` for a measure the report does not have, values
    outside [0, 1], or systems or topics of the scores that the judged fractions lack."""
    if isinstance(judged, Mapping):
        given = {str(k): v for k, v in judged.items()}
        unknown = [k for k in given if k not in matrices]
        if unknown:
            raise RiskevalError(
                f"report: judged= names measure(s) {unknown} that the scores do not have "
                f"({', '.join(str(n) for n in matrices)})."
            )
    else:
        given = {name: judged for name in matrices}  # type: ignore[misc]
    out: dict[str | None, pd.DataFrame] = {}
    for name, J in given.items():
        if not isinstance(J, pd.DataFrame):
            raise RiskevalError(
                f"report: judged= must be a systems × topics DataFrame of judged fractions (or a "
                f"mapping measure → one); got {type(J).__name__}."
            )
        M = matrices[name]
        frame = J.copy()
        frame.index, frame.columns = frame.index.map(str), frame.columns.map(str)
        systems, topics = [str(s) for s in M.index], [str(t) for t in M.columns]
        lacking = [s for s in systems if s not in frame.index] + [t for t in topics if t not in frame.columns]
        if lacking:
            raise RiskevalError(
                f"report: judged= lacks system(s) or topic(s) of the scores{_of(name)}: "
                f"{', '.join(map(repr, lacking[:5]))}{' ...' if len(lacking) > 5 else ''}. Give the judged "
                "fraction of every system and topic (riskeval.evaluation.judged.judged_fractions)."
            )
        values = frame.loc[systems, topics].to_numpy(dtype=float)
        if not ((values >= 0) & (values <= 1)).all():
            raise RiskevalError(
                f"report: judged= holds values outside [0, 1] (or NaN){_of(name)}: it is a fraction "
                "of judged documents, such as ir_measures' Judged@k."
            )
        out[name] = pd.DataFrame(values, index=M.index, columns=M.columns)
    return out


def _of(name: str | None) -> str:
    return f" of {name}" if name else ""


def judged_of(ctx: ReportContext) -> pd.DataFrame | None:
    """The judged fractions of the context's measure, or ``None`` when the report has none."""
    by_measure = ctx.data.get(KEY) or {}
    return by_measure.get(ctx.measure)


def judged_label(ctx: ReportContext) -> str:
    """``Judged@k`` at the depth of the context's measure (``Judged`` when unknown)."""
    if ctx.measure is None:
        return "Judged"
    try:
        return judged_measure(ctx.measure)
    except RiskevalError:
        return "Judged"


def low_judged_losses(score: Any, baseline: Any, judged: Any) -> np.ndarray:
    """The topics where the system loses to the baseline (score below it) while less than
    :data:`JUDGED_THRESHOLD` of its ranking is judged at the measure's depth."""
    s, b, j = (np.asarray(v, dtype=float) for v in (score, baseline, judged))
    return (s < b) & (j < JUDGED_THRESHOLD)


def note(ctx: ReportContext) -> str:
    """The sentence of the per-topic analysis about the judged fractions: what the column and the
    flag mean, or that the page has none (scores given without their runs and qrels)."""
    if judged_of(ctx) is None:
        return (
            " No judged fraction: the report was given scores, not runs and their qrels, so it cannot "
            "tell a loss from a hole in the qrels (riskeval report --qrels QRELS RUNS... shows it)."
        )
    label = judged_label(ctx)
    return (
        f" {label}: the fraction of the system's top documents, at the measure's depth, that the "
        f"qrels judge (ir_measures' {label}); a loss where it is below {JUDGED_THRESHOLD:g} is "
        "flagged 'low judged loss' (and ringed in orange in the plot): unjudged documents count as "
        "non-relevant, so the loss may be a hole in the qrels rather than a worse ranking."
    )


def judged_losses(ctx: ReportContext) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Two systems × topics masks over the report's matrix: the losses against the baseline (score
    below it), and those of them where little is judged (:func:`low_judged_losses`); ``None``
    without judged fractions."""
    from riskeval.measures.baselines import resolve_baseline

    J = judged_of(ctx)
    if J is None:
        return None
    M = ctx.matrix
    base = resolve_baseline(M, ctx.baseline, "report", leave_one_out=ctx.settings["leave_one_out"]).values
    scores = M.to_numpy(dtype=float)
    baseline = np.broadcast_to(base, scores.shape)  # one baseline row, or one row per system
    lost = pd.DataFrame(scores < baseline, index=M.index, columns=M.columns)
    flagged = low_judged_losses(scores, baseline, J.to_numpy(dtype=float))  # J in M's order
    return lost, pd.DataFrame(flagged, index=M.index, columns=M.columns)


def judged_summary(ctx: ReportContext, systems: Any) -> pd.DataFrame | None:
    """Per system of ``systems`` (the runs but the baseline): its mean judged fraction
    (``judged``), its losses against the baseline (``losses``) and how many of them are flagged
    (``flagged``, :func:`judged_losses`), by increasing ``judged``; ``None`` without judged
    fractions."""
    J, masks = judged_of(ctx), judged_losses(ctx)
    if J is None or masks is None:
        return None
    lost, flagged = masks
    names = list(systems)
    rows = lost.index.get_indexer(names)
    table = pd.DataFrame(
        {
            "system": names,
            "judged": J.to_numpy(dtype=float)[rows].mean(axis=1),
            "losses": lost.to_numpy()[rows].sum(axis=1),
            "flagged": flagged.to_numpy()[rows].sum(axis=1),
        }
    )
    return table.set_index("system").sort_values("judged", kind="stable")
