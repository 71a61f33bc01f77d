"""Plots of the papers' analyses beyond the measures: URisk against the correlation with the
baseline (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3).

As in :mod:`riskeval.plots.risk`, each ``plot_*`` function computes its data with the library and
returns a display object (the data as attributes, ``figure_`` and ``ax_`` after ``plot``); a
display built from ready data is drawn again with ``.plot(ax)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.plots._base import axes_for


class BaselineCorrelationDisplay:
    """Each system's URisk(α) against its Pearson correlation with the baseline across topics
    (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3: the higher the correlation, the higher the URisk).

    ``table``: the :attr:`riskeval.analysis.baseline_correlation.BaselineCorrelation.table`;
    ``statistic``, ``pvalue``: Pearson's r of ρ against URisk across the pairs and its p-value;
    ``baseline``; ``alpha``.  After ``plot``: ``points_``, ``fit_line_`` (least squares, or
    ``None`` with fewer than 3 points) and ``labels_`` (one text per system, when annotated).
    """

    def __init__(self, table: pd.DataFrame, statistic: float, pvalue: float, baseline: str, alpha: float):
        self.table, self.statistic, self.pvalue = table, statistic, pvalue
        self.baseline, self.alpha = baseline, alpha

    @classmethod
    def from_result(cls, result: Any) -> BaselineCorrelationDisplay:
        """From a :class:`~riskeval.analysis.baseline_correlation.BaselineCorrelation`."""
        return cls(result.table, result.statistic, result.pvalue, result.baseline, result.alpha)

    def plot(self, ax: Any = None, *, annotate: bool | None = None) -> BaselineCorrelationDisplay:
        self.figure_, self.ax_ = axes_for(ax, (7.0, 5.0))
        ax = self.ax_
        shown = self.table[~self.table["is_baseline"] & self.table["pearson"].notna()]
        x, y = shown["pearson"].to_numpy(), shown["urisk"].to_numpy()
        self.points_ = ax.scatter(x, y, s=14 if len(shown) > 60 else 22, color="tab:blue", alpha=0.7)
        self.fit_line_ = None
        if len(shown) >= 3 and np.ptp(x) > 0:
            slope, intercept = np.polyfit(x, y, 1)
            grid = np.array([x.min(), x.max()])
            (self.fit_line_,) = ax.plot(grid, slope * grid + intercept, color="tab:red", lw=1.0)
        self.labels_ = []
        if annotate if annotate is not None else len(shown) <= 60:
            for (_, row), xi, yi in zip(shown.iterrows(), x, y, strict=True):
                label = (
                    row["system"] if self.baseline != "each system" else f"{row['system']}/{row['baseline']}"
                )
                self.labels_.append(
                    ax.annotate(label, (xi, yi), xytext=(3, 2), textcoords="offset points", fontsize=6)
                )
        ax.axhline(0.0, color="0.6", lw=0.6)
        ax.set_xlabel("Pearson correlation with the baseline across topics")
        ax.set_ylabel(f"URisk, α = {self.alpha:g}")
        against = "each system in turn" if self.baseline == "each system" else self.baseline
        ax.set_title(
            f"URisk against {against} vs correlation: r = {self.statistic:.2f}, p = {self.pvalue:.2g}"
        )
        ax.grid(True, alpha=0.3)
        return self


def plot_baseline_correlation(
    X: Any,
    baseline: Any = None,
    alpha: float = 5.0,
    *,
    leave_one_out: bool = False,
    annotate: bool | None = None,
    ax: Any = None,
) -> BaselineCorrelationDisplay:
    """Scatter of URisk(α) against the correlation with the baseline, one point per (baseline,
    system) pair, with the least-squares line (:func:`riskeval.baseline_correlation`; ``baseline``
    ``None``: every system in turn).  Points are labelled when there are at most 60 of them."""
    from riskeval.analysis.baseline_correlation import baseline_correlation

    result = baseline_correlation(X, baseline, alpha, leave_one_out=leave_one_out)
    return BaselineCorrelationDisplay.from_result(result).plot(ax, annotate=annotate)
