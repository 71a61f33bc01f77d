"""Plots for mean–variance evaluation (Zuccon et al. 2016, Figures 2–4) and bias–variance
evaluation (Zhang et al. 2013, Figures 1–2).

matplotlib is imported when a function is called.  Every function takes ``ax=None`` (a new
figure is made, without pyplot's global state) and returns a :class:`FigureDisplay` holding the
figure, the axes and the drawn artists; nothing is shown or saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from riskeval.errors import RiskevalError

# Rank correlations at or above this are commonly read as equivalent rankings (Voorhees 2001),
# the threshold Zuccon et al. (2016, §5.1) draw on.
EQUIVALENCE = 0.9


@dataclass
class FigureDisplay:
    """A drawn plot: ``figure_``, ``ax_`` and the artists (``artists_``) it added."""

    figure_: Any
    ax_: Any
    artists_: list = field(default_factory=list)

    def savefig(self, *args, **kwargs) -> None:
        """Shortcut for ``figure_.savefig``."""
        self.figure_.savefig(*args, **kwargs)


def _axes(ax):
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    return fig, fig.add_subplot()


def plot_rank_correlation(sweep, *, ax=None) -> FigureDisplay:
    """τ and τ_AP of the ranking by ``O(α)`` against the mean-only ranking, versus α.

    ``sweep`` is a :class:`~riskeval.analysis.variations.MeanVarianceSweep`.  For the general and
    modified inter-topic forms: two lines (Figures 2 and 4); for the intra-topic form: a
    topic × α heat map of τ_AP (the per-topic curves of Figure 3).
    """
    fig, ax = _axes(ax)
    if sweep.topics is None:
        artists = ax.plot(sweep.alphas, sweep.tau, label="Kendall τ")
        artists += ax.plot(sweep.alphas, sweep.tau_ap, label="τ_AP")
        artists.append(ax.axhline(EQUIVALENCE, color="grey", linestyle=":", linewidth=1))
        ax.set_ylabel("correlation with the mean-only ranking")
        ax.legend()
    else:
        a = sweep.alphas
        image = ax.imshow(
            sweep.tau_ap,
            aspect="auto",
            interpolation="nearest",
            extent=(a[0], a[-1], len(sweep.topics) - 0.5, -0.5),
            vmin=-1,
            vmax=1,
            cmap="viridis",
        )
        ax.set_yticks(range(len(sweep.topics)), sweep.topics)
        ax.set_ylabel("topic")
        fig.colorbar(image, ax=ax, label="τ_AP with the mean-only ranking")
        artists = [image]
    ax.set_xlabel("α (risk aversion)")
    ax.set_title(f"Mean–variance ({sweep.form}) vs mean-only ranking")
    return FigureDisplay(fig, ax, artists)


def plot_portfolio_values(sweep, systems=None, *, ax=None) -> FigureDisplay:
    """Portfolio value ``O(α) = μ − α σ²`` of each system versus α (a straight line per system).

    ``systems`` selects and labels some systems (default: all, labelled when at most 12).  Only
    for the general and inter-topic forms.
    """
    if sweep.topics is not None:
        raise RiskevalError("Portfolio values per system need form='general' or 'inter'.")
    names = list(sweep.systems) if systems is None else [str(s) for s in systems]
    unknown = sorted(set(names) - set(sweep.systems))
    if unknown:
        raise RiskevalError(f"Unknown system(s): {unknown[:10]}.")
    fig, ax = _axes(ax)
    rows = [sweep.systems.index(s) for s in names]
    values = sweep.values()[rows]
    labelled = len(names) <= 12
    artists = []
    for name, line in zip(names, values, strict=True):
        artists += ax.plot(
            sweep.alphas, line, linewidth=1.2 if labelled else 0.6, label=name if labelled else None
        )
    if labelled:
        ax.legend(fontsize="small")
    ax.set_xlabel("α (risk aversion)")
    ax.set_ylabel("portfolio value O = μ − α σ²")
    return FigureDisplay(fig, ax, artists)


def plot_bias_variance(result, *, kind: str = "variance", annotate: bool = True, ax=None) -> FigureDisplay:
    """Bias² against variance (``kind="variance"``, Zhang et al. 2013 Figure 1) or against the
    total error bias² + variance (``kind="total"``, Figure 2), one point per system.

    ``result`` is a :class:`~riskeval.analysis.bias_variance.BiasVarianceResult`.
    """
    if kind not in ("variance", "total"):
        raise RiskevalError(f"The 'kind' parameter must be 'variance' or 'total'; got {kind!r}.")
    fig, ax = _axes(ax)
    x = np.asarray(result.bias) ** 2
    y = np.asarray(result.variance if kind == "variance" else result.total)
    artists = [ax.scatter(x, y)]
    if annotate:
        for name, xi, yi in zip(result.systems, x, y, strict=True):
            artists.append(
                ax.annotate(str(name), (xi, yi), textcoords="offset points", xytext=(3, 3), fontsize="small")
            )
    ax.set_xlabel(f"Bias² ({result.form} form, target: {result.target})")
    ax.set_ylabel("Var" if kind == "variance" else "Bias² + Var")
    return FigureDisplay(fig, ax, artists)
