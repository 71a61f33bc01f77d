"""Risk under several qrels for the same topics: does the ranking of systems, and do their losses
against the baseline, survive a change of assessor (two assessors, graded against binary labels,
people against an LLM)?

Given one systems × topics score matrix per qrels (the same runs evaluated against each),
:func:`qrels_agreement` returns

- the risk of every system under each qrels, :func:`riskeval.risk_table` of each matrix;
- how alike the system orders are, per pair of qrels, risk measure and α: Kendall's τ-b and the AP
  correlation τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008, eq. 2) of the order by URisk and by
  TRisk (:func:`riskeval.core.rank_correlation.rank_correlations`).  URisk at α = 0 is the mean
  score less the baseline's, so its order is the order by mean score.  τ_AP is asymmetric: the first
  qrels of a pair is the reference, the order under the second the evaluated one, so the pairs are
  those of the qrels in the order given;
- per system and pair of qrels, whether the per-topic losses agree: on how many topics the sign of
  ``x_j = score_j − baseline_j`` (loss, tie, gain) is the same under both qrels, how many losses
  each has, and how many topics are a loss under both (the losses do not depend on α);
- the mean–variance of each system across the qrels (Zuccon, Palotti & Hanbury, CIKM 2016, eq. 2–7,
  :func:`riskeval.analysis.variations.mean_variance`), each qrels taken as a *variant* of every
  topic: variant ``k`` of every topic is the same set of judgments, as variant ``k`` of a query
  variation table is the same user, so the general form applies.  Its ``variance`` is the variance
  across the qrels of the system's mean score (with two qrels and ``ddof=1``: half the squared
  difference of the two means), and ``scores`` is the table that ``riskeval mean-variance`` and
  :func:`riskeval.analysis.variations.mean_variance_sweep` read.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError, RiskevalWarning
from riskeval.measures.declared import TRisk, URisk
from riskeval.model.matrix import as_matrix

#: The risk measures whose system orders are compared across qrels.
RANKED = (URisk.column, TRisk.column)


@dataclass(frozen=True)
class QrelsAgreement:
    """Result of :func:`qrels_agreement`.

    Attributes
    ----------
    qrels : tuple of str
        The names of the qrels, in the order given.
    scores : DataFrame
        ``system, topic, variant, score``: every system's score on every common topic under each
        qrels (``variant`` the qrels' name), the columns of a query-variation table.
    risk : DataFrame
        :func:`riskeval.risk_table` of each qrels' matrix, stacked, with a ``qrels`` column first.
    ranking : DataFrame
        ``reference, evaluated, measure, alpha, systems, tau, tau_ap``: per pair of qrels, risk
        measure (``urisk``, ``trisk``) and α, Kendall's τ-b and τ_AP of the order of the systems
        under ``evaluated`` against that under ``reference`` (the systems with a value under both:
        the baseline run has no TRisk).
    losses : DataFrame
        ``reference, evaluated, system, topics, agree, agreement, losses_reference,
        losses_evaluated, losses_both``: per pair of qrels and system (the baseline run left out),
        the topics on which the sign of the difference with the baseline is the same under both
        qrels (``agree``, and as a fraction, ``agreement``), the losses under each and under both.
    spread : DataFrame
        :func:`riskeval.analysis.variations.mean_variance` of ``scores`` (general form, α = 1,
        ``ddof=1``): per system, its mean over topics and qrels and the variance across the qrels.
    """

    qrels: tuple[str, ...]
    scores: pd.DataFrame
    risk: pd.DataFrame
    ranking: pd.DataFrame
    losses: pd.DataFrame
    spread: pd.DataFrame

    def __repr__(self) -> str:
        systems = self.scores["system"].nunique()
        topics = self.scores["topic"].nunique()
        return f"<QrelsAgreement of {', '.join(self.qrels)}: {systems} systems × {topics} topics>"


def qrels_agreement(
    matrices: Mapping[str, Any],
    baseline: Any = None,
    alphas: Any = None,
    *,
    settings: Any = None,
    se: str | None = None,
    leave_one_out: bool | None = None,
) -> QrelsAgreement:
    """Risk, system orders and per-topic losses of the same runs under several qrels.

    Parameters
    ----------
    matrices : mapping
        Qrels name -> systems × topics score matrix of the same systems and measure (for run files,
        :func:`riskeval.evaluation.several_qrels.evaluate_under_qrels` evaluates them).  At least
        two.  Topics that some qrels do not judge are left out of every comparison, with a
        :class:`~riskeval.errors.RiskevalWarning` that counts them.
    baseline, alphas, settings, se, leave_one_out :
        As in :func:`riskeval.risk_table`: the baseline (a system, ``"mean"``, ...) is resolved
        under each qrels (the MEAN under graded labels is not the MEAN under binary ones).

    Returns
    -------
    QrelsAgreement
        See the module docstring and the class.

    Raises
    ------
    RiskevalError
        Fewer than two qrels, matrices of different systems, or no topic common to all.
    """
    from riskeval.analysis.table import risk_table
    from riskeval.analysis.variations import mean_variance
    from riskeval.measures.baselines import resolve_baseline
    from riskeval.settings import RiskSettings

    aligned = _aligned(matrices)
    names = tuple(aligned)
    tables = {
        name: risk_table(M, baseline, alphas, settings=settings, se=se, leave_one_out=leave_one_out)
        for name, M in aligned.items()
    }
    risk = pd.concat([t.assign(qrels=name) for name, t in tables.items()], ignore_index=True)
    risk = risk[["qrels", *(c for c in risk.columns if c != "qrels")]]
    loo = bool(risk["leave_one_out"].iloc[0])
    spec = baseline if baseline is not None else (settings or RiskSettings()).baseline
    signs, self_rows = {}, None
    for name, M in aligned.items():
        base = resolve_baseline(M, spec, "qrels_agreement", leave_one_out=loo)
        signs[name] = np.sign(M.to_numpy() - base.values)
        self_rows = base.is_self
    first = next(iter(aligned.values()))
    ranking, losses = [], []
    for a, b in combinations(names, 2):
        ranking += _ranking_rows(tables[a], tables[b], a, b)
        losses.append(_loss_rows(signs[a], signs[b], first.index, self_rows, a, b))
    scores = pd.concat(
        [
            M.rename_axis(index="system", columns="topic")
            .stack()
            .rename("score")
            .reset_index()
            .assign(variant=name)
            for name, M in aligned.items()
        ],
        ignore_index=True,
    )[["system", "topic", "variant", "score"]]
    return QrelsAgreement(
        qrels=names,
        scores=scores,
        risk=risk,
        ranking=pd.DataFrame(
            ranking, columns=["reference", "evaluated", "measure", "alpha", "systems", "tau", "tau_ap"]
        ),
        losses=pd.concat(losses, ignore_index=True),
        spread=mean_variance(scores, alpha=1.0, form="general"),
    )


def _aligned(matrices: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """The matrices validated, on the systems of the first and the topics common to all."""
    if not isinstance(matrices, Mapping) or len(matrices) < 2:
        got = len(matrices) if isinstance(matrices, Mapping) else type(matrices).__name__
        raise RiskevalError(
            f"qrels_agreement needs a mapping of at least two qrels names to score matrices; got {got}."
        )
    out = {str(name): as_matrix(M) for name, M in matrices.items()}
    if len(out) < len(matrices):
        raise RiskevalError("qrels_agreement: two qrels have the same name once written as text.")
    first_name, first = next(iter(out.items()))
    for name, M in out.items():
        if set(M.index) != set(first.index):
            only = sorted(set(M.index) ^ set(first.index))[:5]
            raise RiskevalError(
                f"qrels_agreement compares the same systems under each qrels: {name!r} and "
                f"{first_name!r} differ in systems {', '.join(map(repr, only))}."
            )
    common = [t for t in first.columns if all(t in M.columns for M in out.values())]
    if not common:
        raise RiskevalError("qrels_agreement: no topic is judged in every qrels.")
    dropped = {name: M.shape[1] - len(common) for name, M in out.items() if M.shape[1] > len(common)}
    if dropped:
        counts = ", ".join(f"{n} of {name}" for name, n in dropped.items())
        warnings.warn(
            f"qrels_agreement: {counts} topic(s) left out, not judged in every qrels; "
            f"{len(common)} common topics compared.",
            RiskevalWarning,
            stacklevel=3,
        )
    return {name: M.loc[first.index, common] for name, M in out.items()}


def _ranking_rows(ta: pd.DataFrame, tb: pd.DataFrame, a: str, b: str) -> list[tuple]:
    """τ-b and τ_AP of the order under qrels ``b`` against that under ``a``, per measure and α."""
    from riskeval.core.rank_correlation import rank_correlations

    rows = []
    for measure in RANKED:
        if measure not in ta:
            continue
        wa = ta.pivot(index="system", columns="alpha", values=measure)
        wb = tb.pivot(index="system", columns="alpha", values=measure).loc[wa.index, wa.columns]
        for alpha in wa.columns:
            x, y = wa[alpha].to_numpy(dtype=float), wb[alpha].to_numpy(dtype=float)
            keep = np.isfinite(x) & np.isfinite(y)
            tau, tau_ap = rank_correlations(x[keep], y[keep][:, None])
            rows.append((a, b, measure, float(alpha), int(keep.sum()), float(tau[0]), float(tau_ap[0])))
    return rows


def _loss_rows(
    sa: np.ndarray, sb: np.ndarray, systems: pd.Index, is_self: Any, a: str, b: str
) -> pd.DataFrame:
    """Per system (the baseline run left out): sign agreement and loss counts under ``a`` and ``b``."""
    agree = (sa == sb).sum(axis=1)
    n = sa.shape[1]
    frame = pd.DataFrame(
        {
            "reference": a,
            "evaluated": b,
            "system": systems.astype(str),
            "topics": n,
            "agree": agree,
            "agreement": agree / n,
            "losses_reference": (sa < 0).sum(axis=1),
            "losses_evaluated": (sb < 0).sum(axis=1),
            "losses_both": ((sa < 0) & (sb < 0)).sum(axis=1),
        }
    )
    return frame[~np.asarray(is_self, dtype=bool)].reset_index(drop=True)
