"""Plots of query-variation analyses: rank correlation and portfolio value as α varies (Zuccon et
al. 2016, Figures 2–4) and bias² against variance or total error (Zhang et al. 2013, Figures 1–2).

As in :mod:`riskeval.plots.risk`, each ``plot_*`` function draws on ``ax`` (a new figure when
``None``) and returns a display object: the data as attributes (tidy pandas objects), plus
``figure_`` and ``ax_``; a display can be built from data and drawn again with ``.plot(ax)``.
matplotlib is imported only when something is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.plots._base import axes_for, plain_text
from riskeval.plots.risk import _AlphaCurves

#: Rank correlations at or above this are read as equivalent rankings (Voorhees 2001), the
#: threshold Zuccon et al. (2016, §5.1) use.
EQUIVALENCE = 0.9


class RankCorrelationDisplay:
    """Kendall τ and τ_AP of the ranking by ``O(α) = μ − α σ²`` against the mean-only ranking, as α
    varies (Zuccon et al. 2016, Figures 2 and 4), with the 0.9 "equivalent rankings" line.

    ``correlations``: DataFrame indexed by ``alpha`` with columns ``tau`` and ``tau_ap``;
    ``form``.  After ``plot``: ``lines_`` (τ, τ_AP) and ``threshold_line_``.
    """

    def __init__(self, correlations: pd.DataFrame, form: str):
        self.correlations, self.form = correlations, form

    @plain_text
    def plot(self, ax: Any = None) -> RankCorrelationDisplay:
        self.figure_, self.ax_ = axes_for(ax, (8.0, 4.5))
        ax = self.ax_
        c = self.correlations
        self.lines_ = [
            ax.plot(c.index, c["tau"], label="Kendall τ")[0],
            ax.plot(c.index, c["tau_ap"], label="τ_AP")[0],
        ]
        self.threshold_line_ = ax.axhline(EQUIVALENCE, color="0.5", ls=":", lw=1)
        ax.set_xlabel("α (risk aversion)")
        ax.set_ylabel("correlation with the mean-only ranking")
        ax.set_title(f"Mean–variance ({self.form}) against mean-only ranking")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", loc="best")
        return self


class TopicRankCorrelationDisplay:
    """τ_AP of the intra-topic ranking against the topic's mean-only ranking, per topic and α, as a
    heat map (the per-topic curves of Zuccon et al. 2016, Figure 3).

    ``tau_ap``: DataFrame topics × α.  After ``plot``: ``image_`` and ``colorbar_``.
    """

    def __init__(self, tau_ap: pd.DataFrame):
        self.tau_ap = tau_ap

    @plain_text
    def plot(self, ax: Any = None) -> TopicRankCorrelationDisplay:
        self.figure_, self.ax_ = axes_for(ax, (8.0, max(3.0, 0.22 * len(self.tau_ap) + 1.5)))
        ax = self.ax_
        a = self.tau_ap.columns.to_numpy(dtype=float)
        self.image_ = ax.imshow(
            self.tau_ap.to_numpy(),
            aspect="auto",
            interpolation="nearest",
            extent=(a[0], a[-1], len(self.tau_ap) - 0.5, -0.5),
            vmin=-1,
            vmax=1,
            cmap="viridis",
        )
        ax.set_yticks(range(len(self.tau_ap)), self.tau_ap.index, fontsize="x-small")
        ax.set_xlabel("α (risk aversion)")
        ax.set_ylabel("topic")
        ax.set_title("Intra-topic mean–variance against mean-only ranking")
        self.colorbar_ = self.figure_.colorbar(self.image_, ax=ax, label="τ_AP")
        return self


class PortfolioValueDisplay(_AlphaCurves):
    """Portfolio value ``O(α) = μ − α σ²`` of each system as α varies: one straight line per system,
    with slope −σ²; where two lines cross, the systems swap places (at ``(μ_A − μ_B)/(σ²_A − σ²_B)``).

    ``values``: DataFrame, index ``alpha``, one column per system.  After ``plot``: ``lines_``.
    """

    ylabel = "portfolio value O = μ − α σ²"

    @plain_text
    def plot(self, ax: Any = None, *, legend: bool = True) -> PortfolioValueDisplay:
        self.figure_, self.ax_ = axes_for(ax, (8.0, 4.5))
        self._draw_lines(self.ax_, legend)
        self.ax_.set_title("Portfolio value as α varies")
        return self


class BiasVarianceDisplay:
    """Bias² against variance (``kind="variance"``, Zhang et al. 2013 Figure 1) or against the total
    error bias² + variance (``kind="total"``, Figure 2), one point per system.

    ``table``: DataFrame indexed by system with columns ``bias2``, ``variance``, ``total`` (as
    :meth:`~riskeval.analysis.bias_variance.BiasVarianceResult.to_frame`); ``kind``;
    ``description`` (form and target, for the axis label).  After ``plot``: ``points_`` and
    ``labels_`` (one text per system, when annotated).
    """

    def __init__(self, table: pd.DataFrame, kind: str = "variance", description: str = ""):
        if kind not in ("variance", "total"):
            raise RiskevalError(f"The 'kind' parameter must be 'variance' or 'total'; got {kind!r}.")
        self.table, self.kind, self.description = table, kind, description

    @plain_text
    def plot(self, ax: Any = None, *, annotate: bool = True) -> BiasVarianceDisplay:
        self.figure_, self.ax_ = axes_for(ax, (7.0, 5.0))
        ax = self.ax_
        x, y = self.table["bias2"], self.table[self.kind]
        self.points_ = ax.scatter(x, y, s=18, color="tab:blue")
        self.labels_ = [
            ax.annotate(str(name), (xi, yi), xytext=(3, 2), textcoords="offset points", fontsize=6)
            for name, xi, yi in zip(self.table.index, x, y, strict=True)
        ] if annotate else []  # fmt: skip
        ax.set_xlabel("Bias²" + (f" ({self.description})" if self.description else ""))
        ax.set_ylabel("Var" if self.kind == "variance" else "Bias² + Var")
        ax.set_title("Bias–variance of the systems")
        ax.grid(True, alpha=0.3)
        return self


def plot_rank_correlation(sweep: Any, *, ax: Any = None):
    """τ and τ_AP against the mean-only ranking over the α grid of ``sweep`` (a
    :class:`~riskeval.analysis.variations.MeanVarianceSweep`): lines for the general and
    inter-topic forms, a topic × α heat map of τ_AP for the intra-topic form."""
    if sweep.topics is not None:
        frame = pd.DataFrame(
            sweep.tau_ap,
            index=pd.Index(sweep.topics, name="topic"),
            columns=pd.Index(sweep.alphas, name="alpha"),
        )
        return TopicRankCorrelationDisplay(frame).plot(ax)
    frame = sweep.to_frame().set_index("alpha")
    return RankCorrelationDisplay(frame, sweep.form).plot(ax)


def plot_portfolio_values(
    sweep: Any, systems: Sequence[str] | None = None, *, ax: Any = None, legend: bool = True
) -> PortfolioValueDisplay:
    """``O(α)`` of the systems of ``sweep`` (general or inter-topic form) over its α grid;
    ``systems`` picks the lines drawn."""
    if sweep.topics is not None:
        raise RiskevalError("Portfolio values per system need form='general' or 'inter'.")
    names = list(sweep.systems) if systems is None else [str(s) for s in systems]
    unknown = [s for s in names if s not in sweep.systems]
    if unknown or not names:
        raise RiskevalError(f"Unknown system(s) for plot_portfolio_values: {unknown[:10] or names!r}.")
    values = pd.DataFrame(sweep.values().T, index=pd.Index(sweep.alphas, name="alpha"), columns=sweep.systems)
    return PortfolioValueDisplay(values[names]).plot(ax, legend=legend)


def plot_bias_variance(
    result: Any, *, kind: str = "variance", annotate: bool = True, ax: Any = None
) -> BiasVarianceDisplay:
    """Bias² against variance or total error of ``result``, a
    :class:`~riskeval.analysis.bias_variance.BiasVarianceResult`."""
    display = BiasVarianceDisplay(result.to_frame(), kind, f"{result.form} form, target {result.target}")
    return display.plot(ax, annotate=annotate)


__all__ = [
    "BiasVarianceDisplay", "PortfolioValueDisplay", "RankCorrelationDisplay", "TopicRankCorrelationDisplay",
    "plot_bias_variance", "plot_portfolio_values", "plot_rank_correlation",
]  # fmt: skip
