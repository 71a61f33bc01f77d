"""Risk plots: GeoRisk and TRisk as α grows, per-topic TR/TJ, the PCA of runs, sorted per-topic URisk.

Each ``plot_*`` function computes its data with the library, draws it on ``ax`` (a new figure when
``None``) and returns a display object: the data as attributes (tidy pandas objects), plus
``figure_`` and ``ax_``.  A display can also be built from data and drawn again with ``.plot(ax)``.
matplotlib is imported only when something is drawn.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskeval.core import chisq, paired
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.chisq import zsums_for
from riskeval.measures.declared import GeoRisk, TRisk
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alpha, check_alphas
from riskeval.plots._base import GAIN_COLOUR, LOSS_COLOUR, axes_for, legend_outside, line_styles, plain_text

#: α grid of the "as α grows" plots: 0 to 15 in steps of 0.5 (Dinçer, Macdonald & Ounis, SIGIR 2014,
#: Figure 1).
ALPHA_GRID = np.linspace(0.0, 15.0, 31)


class _AlphaCurves:
    """One line per system over α (``values``: α × systems)."""

    ylabel = ""

    def __init__(self, values: pd.DataFrame):
        self.values = values

    def _draw_lines(self, ax: Any, legend: bool) -> None:
        styles = line_styles(self.values.shape[1])
        self.lines_ = [
            ax.plot(self.values.index, self.values[name], label=name, **style)[0]
            for name, style in zip(self.values.columns, styles, strict=True)
        ]
        ax.set_xlabel("α (risk aversion)")
        ax.set_ylabel(self.ylabel)
        ax.set_xlim(self.values.index.min(), self.values.index.max())
        ax.grid(True, alpha=0.3)
        if legend:
            legend_outside(ax, len(self.lines_))


class GeoRiskDisplay(_AlphaCurves):
    """GeoRisk(α) of each system as α grows (Dinçer, Macdonald & Ounis, SIGIR 2016, Figure 2).

    ``georisk``: DataFrame, index ``alpha``, one column per system.  A line sloping down steeply
    marks a system with a risk of abject failure on some topics.
    """

    ylabel = GeoRisk.header

    def __init__(self, georisk: pd.DataFrame):
        super().__init__(georisk)
        self.georisk = georisk

    @plain_text
    def plot(self, ax: Any = None, *, legend: bool = True) -> GeoRiskDisplay:
        self.figure_, self.ax_ = axes_for(ax, (8.0, 4.5))
        self._draw_lines(self.ax_, legend)
        self.ax_.set_title("GeoRisk as α grows (every system a baseline)")
        return self


class TRiskDisplay(_AlphaCurves):
    """TRisk(α) of each system against a baseline, with the band ±critical where the risk-reward
    trade-off can be attributed to chance (Dinçer, Macdonald & Ounis, SIGIR 2014, Figure 1).

    ``trisk``: DataFrame, index ``alpha``, one column per system; ``critical``: ``t(1 − level/2,
    c − 1)``; ``baseline``: the baseline's name; ``level``.  After ``plot``: ``band_`` (the shaded
    band) and ``critical_lines_`` (the lines at −critical and +critical).
    """

    ylabel = TRisk.header

    def __init__(self, trisk: pd.DataFrame, critical: float, baseline: str, level: float):
        super().__init__(trisk)
        self.trisk, self.critical, self.baseline, self.level = trisk, critical, baseline, level

    @plain_text
    def plot(self, ax: Any = None, *, legend: bool = True) -> TRiskDisplay:
        self.figure_, self.ax_ = axes_for(ax, (8.0, 4.5))
        ax = self.ax_
        self.band_ = ax.axhspan(
            -self.critical,
            self.critical,
            color="0.85",
            alpha=0.6,
            lw=0,
            label=f"±{self.critical:.2f} (level {self.level:g})",
        )
        self.critical_lines_ = [
            ax.axhline(v, color="0.4", lw=0.8, ls="--") for v in (-self.critical, self.critical)
        ]
        self._draw_lines(ax, legend)
        ax.set_title(f"TRisk against {self.baseline} as α grows")
        return self


class TopicRiskDisplay:
    """Per-topic TR_j (bars) and TJ_j (markers) of one system against a baseline, with the critical
    lines ±t(1 − level/2, c − 1) (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 21–23 and Figure 2).
    TJ_j is ``(x_j − x̄)/s_x``, so that a loss is negative as in the paper's Figure 2: eq. 23 as
    printed has the opposite sign and is √c times larger.

    ``topics``: the :func:`riskeval.topic_risk` DataFrame (indexed by topic); ``system``,
    ``baseline``: names; ``alpha``; ``critical``.  A bar below −critical is a significant loss
    (red), above +critical a significant win (green).  After ``plot``: ``bars_`` (one bar per
    topic, heights TR_j), ``markers_`` (TJ_j) and ``critical_lines_``.
    """

    def __init__(self, topics: pd.DataFrame, system: str, baseline: str, alpha: float):
        self.topics, self.system, self.baseline, self.alpha = topics, system, baseline, alpha
        self.critical = float(topics["critical"].iloc[0])

    @plain_text
    def plot(self, ax: Any = None, *, show_tj: bool = True) -> TopicRiskDisplay:
        self.figure_, self.ax_ = axes_for(ax, (max(6.0, 0.18 * len(self.topics) + 2), 4.0))
        ax = self.ax_
        pos = np.arange(len(self.topics))
        sig = self.topics["significant"].to_numpy(dtype=bool)
        tr = self.topics["tr"].to_numpy()
        colours = np.where(sig & (tr < 0), LOSS_COLOUR, np.where(sig & (tr > 0), GAIN_COLOUR, "0.6"))
        self.bars_ = ax.bar(pos, self.topics["tr"].to_numpy(), color=colours, width=0.8, label="TR (eq. 21)")
        self.markers_ = (
            ax.plot(
                pos,
                self.topics["tj"].to_numpy(),
                ls="none",
                marker="_",
                ms=7,
                mew=1.5,
                color="black",
                label="TJ (jackknife)",
            )[0]
            if show_tj
            else None
        )
        self.critical_lines_ = [
            ax.axhline(v, color="0.3", lw=0.8, ls="--") for v in (-self.critical, self.critical)
        ]
        ax.axhline(0.0, color="black", lw=0.6)
        ax.set_xticks(pos, self.topics.index, rotation=90, fontsize="xx-small")
        ax.set_xlim(-0.6, len(pos) - 0.4)
        ax.set_xlabel("topic")
        ax.set_ylabel("standardised risk-reward score")
        ax.set_title(
            f"{self.system} against {self.baseline}, α = {self.alpha:g}: per-topic TR "
            f"and TJ, critical ±{self.critical:.2f}",
            fontsize="medium",
        )
        ax.legend(fontsize="x-small", loc="best")
        return self


class PCADisplay:
    """Runs on the first two principal axes of the topic-centred run × topic matrix, with the
    virtual MEAN, MEDIAN and MAX runs (Dinçer, Ounis & Macdonald, ECIR 2014, Figures 1–2).

    ``coordinates``: runs × components; ``explained``: % of the variance per component;
    ``virtual``: names of the virtual runs.  After ``plot``: ``points_`` (real runs),
    ``virtual_points_`` and ``labels_`` (one text per run, when annotated).
    """

    def __init__(self, coordinates: pd.DataFrame, explained: pd.Series, virtual: Sequence[str]):
        if coordinates.shape[1] < 2:
            raise RiskevalError(
                "A PCA scatter needs at least two principal components (two runs and two topics)."
            )
        self.coordinates, self.explained, self.virtual = coordinates, explained, list(virtual)

    @classmethod
    def from_study(cls, study: Any) -> PCADisplay:
        """From a :class:`riskeval.analysis.BiasStudy` (virtual runs are the baselines that are no system)."""
        virtual = [b for b in study.urisk.index if b not in study.urisk.columns]
        return cls(study.pca.coordinates, study.pca.explained, virtual)

    @plain_text
    def plot(
        self, ax: Any = None, *, annotate: bool = True, labels: Collection[str] | None = None
    ) -> PCADisplay:
        """Draw the runs; ``annotate`` names them, all or only those in ``labels``."""
        self.figure_, self.ax_ = axes_for(ax, (7.0, 6.0))
        ax = self.ax_
        xy = self.coordinates.iloc[:, :2]
        is_virtual = xy.index.isin(self.virtual)
        real, virt = xy[~is_virtual], xy[is_virtual]
        self.points_ = ax.scatter(real.iloc[:, 0], real.iloc[:, 1], s=18, color="tab:blue", label="runs")
        self.virtual_points_ = ax.scatter(
            virt.iloc[:, 0], virt.iloc[:, 1], s=40, marker="D", color="tab:red", label="virtual baselines"
        )
        self.labels_ = []
        if annotate:
            for name, (x, y) in xy.iterrows():
                if labels is not None and name not in labels:
                    continue
                self.labels_.append(
                    ax.annotate(
                        name,
                        (x, y),
                        xytext=(3, 2),
                        textcoords="offset points",
                        fontsize=6,
                        color="tab:red" if name in self.virtual else "0.2",
                    )
                )
        ax.axhline(0.0, color="0.6", lw=0.6)
        ax.axvline(0.0, color="0.6", lw=0.6)
        pc1, pc2 = xy.columns
        ax.set_xlabel(f"{pc1} ({self.explained[pc1]:.1f}% of the variance)")
        ax.set_ylabel(f"{pc2} ({self.explained[pc2]:.1f}% of the variance)")
        ax.set_title("PCA of the run × topic matrix (topic-centred)")
        if len(virt):
            ax.legend(fontsize="x-small", loc="best")
        return self


class SortedURiskDisplay:
    """Per-topic risk-reward scores x_j of each system, sorted from the largest gain to the largest
    loss (Dinçer, Ounis & Macdonald, ECIR 2014, Figure 4): a steeper fall on the right is more risk.

    ``scores``: DataFrame indexed by position (1 = best topic) with one column per system;
    ``baseline``; ``alpha``.
    """

    def __init__(self, scores: pd.DataFrame, baseline: str, alpha: float):
        self.scores, self.baseline, self.alpha = scores, baseline, alpha

    @plain_text
    def plot(self, ax: Any = None, *, legend: bool = True) -> SortedURiskDisplay:
        self.figure_, self.ax_ = axes_for(ax, (8.0, 4.5))
        ax = self.ax_
        styles = line_styles(self.scores.shape[1])
        self.lines_ = [
            ax.plot(self.scores.index, self.scores[name], label=name, marker=".", ms=3, **style)[0]
            for name, style in zip(self.scores.columns, styles, strict=True)
        ]
        ax.axhline(0.0, color="black", lw=0.6)
        ax.set_xlabel("topics, sorted by risk-reward score")
        ax.set_ylabel("per-topic URisk score x_j")
        ax.set_title(f"Per-topic URisk against {self.baseline}, α = {self.alpha:g}")
        ax.grid(True, alpha=0.3)
        if legend:
            legend_outside(ax, len(self.lines_))
        return self


def plot_georisk(
    X: Any,
    alphas: Any = ALPHA_GRID,
    *,
    systems: Sequence[str] | None = None,
    baseline: Any = None,
    ax: Any = None,
    legend: bool = True,
) -> GeoRiskDisplay:
    """GeoRisk of the systems of ``X`` over ``alphas`` (every system a baseline unless ``baseline``
    names one, as in :func:`riskeval.georisk`); ``systems`` picks the lines drawn."""
    M = as_matrix(X)
    A = check_alphas(alphas, "plot_georisk")
    z = zsums_for(M, baseline, "plot_georisk")
    frame = pd.DataFrame(chisq.georisk_from(z, A[:, None]), index=pd.Index(A, name="alpha"), columns=M.index)
    return GeoRiskDisplay(frame[_systems(M, systems, "plot_georisk")]).plot(ax, legend=legend)


def plot_trisk(
    X: Any,
    baseline: Any = "mean",
    alphas: Any = ALPHA_GRID,
    *,
    systems: Sequence[str] | None = None,
    level: float = 0.05,
    se: str = "parametric",
    leave_one_out: bool = False,
    ax: Any = None,
    legend: bool = True,
) -> TRiskDisplay:
    """TRisk of the systems of ``X`` against ``baseline`` over ``alphas``, with the ±critical band."""
    from riskeval.analysis.table import risk_table

    M = as_matrix(X)
    table = risk_table(
        M,
        baseline=baseline,
        alphas=check_alphas(alphas, "plot_trisk"),
        se=se,
        level=level,
        leave_one_out=leave_one_out,
    )
    wide = table.pivot(index="alpha", columns="system", values=TRisk.column)
    wide = wide[_systems(M, systems, "plot_trisk")]
    first = table.iloc[0]
    display = TRiskDisplay(wide, float(first["critical"]), str(first["baseline"]), level)
    return display.plot(ax, legend=legend)


def plot_topic_risk(
    X: Any,
    system: str,
    baseline: Any = "mean",
    alpha: float = 1.0,
    *,
    level: float = 0.05,
    correction: str | None = None,
    leave_one_out: bool = False,
    show_tj: bool = True,
    ax: Any = None,
) -> TopicRiskDisplay:
    """Per-topic TR_j/TJ_j of ``system`` (a row of ``X``) against ``baseline``, topics in the
    matrix's order."""
    from riskeval.analysis.topics import system_topic_risk

    topics = system_topic_risk(
        X, system, baseline, alpha, level=level, correction=correction, leave_one_out=leave_one_out
    )
    baseline_name = str(topics["baseline"].iloc[0])
    return TopicRiskDisplay(topics, system, baseline_name, float(alpha)).plot(ax, show_tj=show_tj)


def plot_pca(
    X: Any, *, virtual: Any = ("mean", "median", "max"), annotate: bool = True, ax: Any = None
) -> PCADisplay:
    """PCA scatter of the runs of ``X``, with the per-topic aggregates as virtual runs."""
    from riskeval.analysis.baseline_bias import bias_study

    return PCADisplay.from_study(bias_study(X, virtual=virtual)).plot(ax, annotate=annotate)


def plot_sorted_urisk(
    X: Any,
    systems: Sequence[str] | None = None,
    baseline: Any = "mean",
    alpha: float = 1.0,
    *,
    leave_one_out: bool = False,
    ax: Any = None,
    legend: bool = True,
) -> SortedURiskDisplay:
    """Sorted per-topic URisk scores x_j of ``systems`` (all by default) against ``baseline``."""
    M = as_matrix(X)
    alpha = check_alpha(alpha, "plot_sorted_urisk")
    names = _systems(M, systems, "plot_sorted_urisk")
    base = resolve_baseline(M, baseline, "plot_sorted_urisk", leave_one_out=leave_one_out)
    rows = M.index.get_indexer(names)
    b = base.values if base.values.ndim == 1 else base.values[rows]
    x = paired.risk_scores(M.to_numpy()[rows] - b, alpha)
    scores = pd.DataFrame(
        -np.sort(-x, axis=1).T,
        columns=pd.Index(names, name="system"),
        index=pd.RangeIndex(1, M.shape[1] + 1, name="position"),
    )
    return SortedURiskDisplay(scores, base.name, alpha).plot(ax, legend=legend)


def _systems(M: pd.DataFrame, systems: Sequence[str] | None, func: str) -> list[str]:
    if systems is None:
        return list(M.index)
    names = [systems] if isinstance(systems, str) else list(systems)
    unknown = [s for s in names if s not in M.index]
    if unknown or not names:
        raise RiskevalError(
            f"The 'systems' of {func} must name systems of the matrix; unknown: {unknown or names!r}."
        )
    return names


__all__ = [
    "ALPHA_GRID",
    "GeoRiskDisplay",
    "PCADisplay",
    "SortedURiskDisplay",
    "TRiskDisplay",
    "TopicRiskDisplay",
    "plot_georisk",
    "plot_pca",
    "plot_sorted_urisk",
    "plot_topic_risk",
    "plot_trisk",
]
