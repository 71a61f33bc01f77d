"""Plots of the papers' analyses beyond the measures (Dinçer, Ounis & Macdonald, ECIR 2014): URisk
against the correlation with the baseline (§2.3), two runs topic by topic (Figure 3), the
risk–reward trade-off (§5) and the PCA biplot with projected baselines (Figures 1–2, footnote 5);
performance profiles and the residuals behind ZRisk (Dinçer, Macdonald & Ounis, SIGIR 2016, Figure 1
and eq. 5–6).

As in :mod:`riskeval.plots.risk`, each ``plot_*`` function computes its data with the library and
returns a display object (the data as attributes, ``figure_`` and ``ax_`` after ``plot``); a
display built from ready data is drawn again with ``.plot(ax)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.measures.declared import URisk
from riskeval.plots._base import axes_for, plain_text


class BaselineCorrelationDisplay:
    """Each system's URisk(α) against its Pearson correlation with the baseline across topics
    (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3: the higher the correlation, the higher the URisk).

    ``table``: the :attr:`riskeval.analysis.correlation.BaselineCorrelation.table`;
    ``statistic``, ``pvalue``: Pearson's r of ρ against URisk across the pairs and its p-value;
    ``baseline``; ``alpha``.  After ``plot``: ``points_``, ``fit_line_`` (least squares, or
    ``None`` with fewer than 3 points) and ``labels_`` (one text per system, when annotated).
    """

    def __init__(self, table: pd.DataFrame, statistic: float, pvalue: float, baseline: str, alpha: float):
        self.table, self.statistic, self.pvalue = table, statistic, pvalue
        self.baseline, self.alpha = baseline, alpha

    @classmethod
    def from_result(cls, result: Any) -> BaselineCorrelationDisplay:
        """From a :class:`~riskeval.analysis.correlation.BaselineCorrelation`."""
        return cls(result.table, result.statistic, result.pvalue, result.baseline, result.alpha)

    @plain_text
    def plot(self, ax: Any = None, *, annotate: bool | None = None) -> BaselineCorrelationDisplay:
        self.figure_, self.ax_ = axes_for(ax, (7.0, 5.0))
        ax = self.ax_
        shown = self.table[~self.table["is_baseline"] & self.table["pearson"].notna()]
        x, y = shown["pearson"].to_numpy(), shown[URisk.column].to_numpy()
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
        p = "p < 1e-300" if self.pvalue == 0 else f"p = {self.pvalue:.2g}"  # 0: underflowed
        ax.set_title(f"URisk against {against} vs correlation: r = {self.statistic:.2f}, {p}")
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
    system) pair, with the least-squares line (:func:`riskeval.analysis.baseline_correlation`; ``baseline``
    ``None``: every system in turn).  Points are labelled when there are at most 60 of them."""
    from riskeval.analysis.correlation import baseline_correlation

    result = baseline_correlation(X, baseline, alpha, leave_one_out=leave_one_out)
    return BaselineCorrelationDisplay.from_result(result).plot(ax, annotate=annotate)


class RunComparisonDisplay:
    """Two runs topic by topic (Dinçer, Ounis & Macdonald, ECIR 2014, Figure 3): (a) their
    per-topic scores side by side, (b) the per-topic URisk scores x_j of run B with run A as the
    baseline and (c) the mirror, run A with B as the baseline.

    ``table``: the :func:`riskeval.analysis.run_comparison.compare_runs` table.  ``plot(ax)``
    takes three axes (or ``None``: a new figure of three stacked panels); after it ``axes_`` (the
    three), ``ax_`` (the first), ``bars_`` (the two bar containers of panel a) and ``risk_bars_``
    (the bar containers of panels b and c).  The panel titles count each run's losses.
    """

    def __init__(self, table: pd.DataFrame):
        self.table = table
        first = table.iloc[0]
        self.system_a, self.system_b = str(first["system_a"]), str(first["system_b"])
        self.alpha = float(first["alpha"])

    @plain_text
    def plot(self, ax: Any = None) -> RunComparisonDisplay:
        if ax is None:
            from riskeval._optional import require

            plt = require("matplotlib.pyplot", "riskeval's plots")
            fig, axes = plt.subplots(3, 1, figsize=(10.0, 9.0), layout="constrained", sharex=True)
        else:
            axes = list(ax)
            if len(axes) != 3:
                raise RiskevalError("RunComparisonDisplay.plot needs three axes (or None).")
            fig = axes[0].figure
        self.figure_, self.axes_, self.ax_ = fig, list(axes), axes[0]
        t = self.table
        pos = np.arange(len(t))
        a, b = self.system_a, self.system_b
        top = self.axes_[0]
        self.bars_ = [
            top.bar(pos - 0.2, t["score_a"], width=0.4, color="tab:blue", label=a),
            top.bar(pos + 0.2, t["score_b"], width=0.4, color="tab:orange", label=b),
        ]
        top.set_ylabel("score")
        top.set_title(
            f"(a) per-topic scores: {a} (mean {t['score_a'].mean():.3f}) and {b} "
            f"(mean {t['score_b'].mean():.3f})"
        )
        top.legend(fontsize="x-small", loc="best")
        self.risk_bars_ = []
        for panel, (col, run, base, letter) in zip(
            self.axes_[1:], [("x_b", b, a, "b"), ("x_a", a, b, "c")], strict=True
        ):
            x = t[col].to_numpy()
            colours = np.where(x < 0, "tab:red", "tab:green")
            self.risk_bars_.append(panel.bar(pos, x, color=colours))
            panel.axhline(0.0, color="black", lw=0.6)
            panel.set_ylabel(f"x_j, α = {self.alpha:g}")
            panel.set_title(
                f"({letter}) {run} with {base} as the baseline: URisk {x.mean():.4f}, "
                f"{int((x < 0).sum())} losses, {int((x > 0).sum())} wins"
            )
        for panel in self.axes_:
            panel.grid(True, axis="y", alpha=0.3)
        last = self.axes_[-1]
        last.set_xticks(pos, t["topic"], rotation=90, fontsize=6)
        last.set_xlabel("topic")
        return self


class RiskRewardDisplay:
    """Mean effectiveness against FRisk, one point per system (the trade-off graph that Dinçer,
    Ounis & Macdonald, ECIR 2014, §5, propose for risk beside effectiveness): up and to the left is
    better; the Pareto front is joined by a line.

    ``table``: :func:`riskeval.analysis.run_comparison.risk_reward_tradeoff`.  After ``plot``:
    ``points_``, ``front_`` (the line through the Pareto front) and ``labels_``.
    """

    def __init__(self, table: pd.DataFrame):
        self.table = table
        self.baseline = str(table["baseline"].iloc[0])

    @plain_text
    def plot(self, ax: Any = None, *, annotate: bool = True) -> RiskRewardDisplay:
        self.figure_, self.ax_ = axes_for(ax, (7.0, 5.0))
        ax = self.ax_
        t = self.table
        colours = np.where(t["pareto"], "tab:red", "tab:blue")
        self.points_ = ax.scatter(t["frisk"], t["mean"], s=22, c=colours)
        front = t[t["pareto"]].sort_values("frisk")
        (self.front_,) = ax.plot(front["frisk"], front["mean"], color="tab:red", lw=0.8, label="Pareto front")
        self.labels_ = []
        if annotate:
            for _, row in t.iterrows():
                self.labels_.append(
                    ax.annotate(
                        row["system"],
                        (row["frisk"], row["mean"]),
                        xytext=(3, 2),
                        textcoords="offset points",
                        fontsize=6,
                    )
                )
        ax.set_xlabel(f"FRisk against {self.baseline} (mean per-topic loss)")
        ax.set_ylabel("mean score")
        ax.set_title(f"Risk–reward trade-off against {self.baseline}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", loc="best")
        return self


class PCABiplotDisplay:
    """Runs on the first two principal axes with the topics that load most on PC2 as arrows and the
    virtual baselines as supplementary points (Dinçer, Ounis & Macdonald, ECIR 2014, Figures 1–2,
    §2.4 and footnote 5).

    ``result``: :class:`riskeval.analysis.pca.PCABiplot`.  Arrows are the topics' loadings
    scaled to the spread of the runs.  After ``plot``: ``points_``, ``supplementary_points_``,
    ``arrows_`` and ``labels_``.
    """

    def __init__(self, result: Any):
        self.result = result

    @plain_text
    def plot(self, ax: Any = None, *, annotate: bool = True) -> PCABiplotDisplay:
        self.figure_, self.ax_ = axes_for(ax, (7.5, 6.5))
        ax = self.ax_
        res = self.result
        xy = res.coordinates[["PC1", "PC2"]]
        supp = res.supplementary[["PC1", "PC2"]]
        self.points_ = ax.scatter(xy["PC1"], xy["PC2"], s=18, color="tab:blue", label="runs")
        self.supplementary_points_ = ax.scatter(
            supp["PC1"], supp["PC2"], s=40, marker="D", color="tab:red", label="virtual baselines (projected)"
        )
        scale = 0.9 * float(np.abs(xy.to_numpy()).max() or 1.0)
        self.arrows_, self.labels_ = [], []
        for _, row in res.pc2_topics.iterrows():
            lx, ly = res.loadings.loc[row["topic"], ["PC1", "PC2"]] * scale
            self.arrows_.append(
                ax.annotate(
                    "", (lx, ly), (0.0, 0.0), arrowprops={"arrowstyle": "->", "color": "tab:green", "lw": 0.8}
                )
            )
            self.labels_.append(ax.annotate(row["topic"], (lx, ly), fontsize=6, color="tab:green"))
        if annotate:
            for frame, colour in ((xy, "0.2"), (supp, "tab:red")):
                for name, (x, y) in frame.iterrows():
                    self.labels_.append(
                        ax.annotate(
                            name, (x, y), xytext=(3, 2), textcoords="offset points", fontsize=6, color=colour
                        )
                    )
        ax.axhline(0.0, color="0.6", lw=0.6)
        ax.axvline(0.0, color="0.6", lw=0.6)
        ax.set_xlabel(f"PC1 ({res.explained['PC1']:.1f}% of the variance)")
        ax.set_ylabel(f"PC2 ({res.explained['PC2']:.1f}% of the variance)")
        ax.set_title("PCA biplot: runs, topics loading on PC2 (arrows), projected baselines")
        ax.legend(fontsize="x-small", loc="best")
        return self


def plot_run_comparison(
    X: Any, a: str, b: str, alpha: float = 5.0, *, ax: Any = None
) -> RunComparisonDisplay:
    """Figure 3 of ECIR 2014 for runs ``a`` and ``b`` of ``X`` (:func:`compare_runs`)."""
    from riskeval.analysis.run_comparison import compare_runs

    return RunComparisonDisplay(compare_runs(X, a, b, alpha)).plot(ax)


def plot_risk_reward(
    X: Any, baseline: Any = "mean", *, leave_one_out: bool = False, annotate: bool = True, ax: Any = None
) -> RiskRewardDisplay:
    """Mean score against FRisk of every system (:func:`risk_reward_tradeoff`)."""
    from riskeval.analysis.run_comparison import risk_reward_tradeoff

    table = risk_reward_tradeoff(X, baseline, leave_one_out=leave_one_out)
    return RiskRewardDisplay(table).plot(ax, annotate=annotate)


def plot_pca_biplot(
    X: Any,
    *,
    virtual: Any = ("mean", "median", "max"),
    n_topics: int = 10,
    annotate: bool = True,
    ax: Any = None,
) -> PCABiplotDisplay:
    """PCA biplot of the runs of ``X`` (:func:`riskeval.analysis.pca.pca_biplot`)."""
    from riskeval.analysis.pca import pca_biplot

    return PCABiplotDisplay(pca_biplot(X, virtual=virtual, n_topics=n_topics)).plot(ax, annotate=annotate)


class ProfileDisplay:
    """Per-topic performance profiles: one line per system over the topics, with the per-topic mean
    of all systems (Dinçer, Macdonald & Ounis, SIGIR 2016, Figure 1 and the "Mean" row of Table 3).
    Parallel lines have the same shape; ZRisk measures departures from the shape the systems share.

    ``scores``: topics × systems (the matrix transposed, topics in its order); ``mean``: the
    per-topic mean over every system of the matrix (or ``None``).  After ``plot``: ``lines_`` and
    ``mean_line_``.
    """

    def __init__(self, scores: pd.DataFrame, mean: pd.Series | None):
        self.scores, self.mean = scores, mean

    @plain_text
    def plot(self, ax: Any = None, *, legend: bool = True) -> ProfileDisplay:
        from riskeval.plots._base import legend_outside, line_styles

        self.figure_, self.ax_ = axes_for(ax, (8.0, 4.5))
        ax = self.ax_
        pos = np.arange(len(self.scores))
        styles = line_styles(self.scores.shape[1])
        self.lines_ = [
            ax.plot(pos, self.scores[name], marker="o", ms=3, label=str(name), **style)[0]
            for name, style in zip(self.scores.columns, styles, strict=True)
        ]
        self.mean_line_ = None
        if self.mean is not None:
            (self.mean_line_,) = ax.plot(pos, self.mean.to_numpy(), color="black", lw=2.0, label="Mean")
        ax.set_xticks(
            pos, [str(t) for t in self.scores.index], rotation=90 if len(pos) > 12 else 0, fontsize=7
        )
        ax.set_xlabel("topic")
        ax.set_ylabel("score")
        ax.set_title("Performance profiles across topics")
        ax.grid(True, alpha=0.3)
        if legend:
            legend_outside(ax, len(self.lines_) + (self.mean_line_ is not None))
        return self


class ResidualDisplay:
    """The standardised residuals z_ij = (x_ij − e_ij)/√e_ij behind ZRisk as a systems × topics
    heat map (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 5–6): red cells fall below expectation,
    blue above; the colour scale is symmetric about 0.

    ``residuals``: the :func:`riskeval.analysis.chisq.chisq_residuals` table.  After
    ``plot``: ``image_`` and ``colorbar_``.
    """

    def __init__(self, residuals: pd.DataFrame):
        self.residuals = residuals
        self.z = residuals.pivot(index="system", columns="topic", values="z").loc[
            pd.unique(residuals["system"]), pd.unique(residuals["topic"])
        ]

    @plain_text
    def plot(self, ax: Any = None) -> ResidualDisplay:
        r, c = self.z.shape
        self.figure_, self.ax_ = axes_for(ax, (max(6.0, 0.18 * c + 3), max(3.0, 0.2 * r + 1.5)))
        ax = self.ax_
        z = self.z.to_numpy(dtype=np.float64)
        top = float(np.abs(z).max()) or 1.0
        # a vector mesh (not an embedded image), so that an SVG of it stays text and paths
        self.image_ = ax.pcolormesh(z, cmap="RdBu", vmin=-top, vmax=top, edgecolors="none")
        self.colorbar_ = self.figure_.colorbar(self.image_, ax=ax, label="z_ij")
        if self.colorbar_.solids is not None:
            self.colorbar_.solids.set_rasterized(False)  # matplotlib rasterises long colour bars
        ax.set_ylim(r, 0)  # the first system on top
        ax.set_yticks(np.arange(r) + 0.5, [str(s) for s in self.z.index], fontsize=6)
        ax.set_xticks(np.arange(c) + 0.5, [str(t) for t in self.z.columns], rotation=90, fontsize=6)
        ax.set_xlabel("topic")
        ax.set_title(f"Standardised residuals z_ij (against {self.residuals['baseline'].iloc[0]})")
        return self


def plot_profiles(
    X: Any, systems: Any = None, *, show_mean: bool = True, legend: bool = True, ax: Any = None
) -> ProfileDisplay:
    """Per-topic profiles of ``systems`` of ``X`` (default all) with the per-topic mean of every
    system (SIGIR 2016, Figure 1)."""
    from riskeval.model.matrix import as_matrix

    M = as_matrix(X)
    names = list(M.index) if systems is None else [systems] if isinstance(systems, str) else list(systems)
    missing = [s for s in names if s not in M.index]
    if missing:
        raise RiskevalError(f"plot_profiles: no system {missing[:5]} in the matrix.")
    mean = M.mean(axis=0).rename("Mean") if show_mean else None
    return ProfileDisplay(M.loc[names].T, mean).plot(ax, legend=legend)


def plot_residuals(X: Any, baseline: Any = None, *, ax: Any = None) -> ResidualDisplay:
    """Heat map of the z_ij of :func:`riskeval.analysis.chisq.chisq_residuals`."""
    from riskeval.analysis.chisq import chisq_residuals

    return ResidualDisplay(chisq_residuals(X, baseline)).plot(ax)


class BiasVarianceFamiliesDisplay:
    """Bias² against variance (``kind="variance"``) or against bias² + variance (``"total"``) of
    model families from a parameter sweep (Zhang, Song, Wang & Hou, SIGIR 2013, Figures 1–2): the
    points of a family are joined in parameter order, the first and last labelled with their
    parameter; a one-model family is a single marker.

    ``table``: :func:`riskeval.analysis.bias_variance_families.bias_variance_families`; ``kind``.
    After ``plot``: ``lines_`` (one per family, by name) and ``labels_``.
    """

    def __init__(self, table: pd.DataFrame, kind: str = "variance"):
        if kind not in ("variance", "total"):
            raise RiskevalError(f"The 'kind' parameter must be 'variance' or 'total'; got {kind!r}.")
        self.table, self.kind = table, kind

    @plain_text
    def plot(self, ax: Any = None, *, legend: bool = True) -> BiasVarianceFamiliesDisplay:
        from riskeval.plots._base import legend_outside, line_styles

        self.figure_, self.ax_ = axes_for(ax, (7.5, 5.0))
        ax = self.ax_
        names = list(pd.unique(self.table["family"]))
        markers = "osD^v<>ph*"
        self.lines_, self.labels_ = {}, []
        for k, (name, style) in enumerate(zip(names, line_styles(len(names)), strict=True)):
            part = self.table[self.table["family"] == name]
            x, y = part["bias2"].to_numpy(), part[self.kind].to_numpy()
            (self.lines_[name],) = ax.plot(
                x, y, marker=markers[k % len(markers)], ms=5, lw=1.0, label=name, color=style["color"]
            )
            params = part["parameter"].to_numpy()
            if len(part) > 1 and np.isfinite(params).all():
                for i in (0, len(part) - 1):
                    self.labels_.append(
                        ax.annotate(
                            f"{params[i]:g}",
                            (x[i], y[i]),
                            xytext=(3, 3),
                            textcoords="offset points",
                            fontsize=6,
                        )
                    )
        ax.set_xlabel("Bias²")
        ax.set_ylabel("Var" if self.kind == "variance" else "Bias² + Var")
        ax.set_title("Bias–variance of model families" + (" (total error)" if self.kind == "total" else ""))
        ax.grid(True, alpha=0.3)
        if legend:
            legend_outside(ax, len(names))
        return self


def plot_bias_variance_families(
    scores: Any,
    families: Any,
    target: Any = "perfect",
    *,
    kind: str = "variance",
    form: str = "ap",
    legend: bool = True,
    ax: Any = None,
) -> BiasVarianceFamiliesDisplay:
    """Figure 1 (``kind="variance"``) or Figure 2 (``"total"``) of Zhang et al. (SIGIR 2013) for the
    model families of ``families`` (:func:`bias_variance_families`)."""
    from riskeval.analysis.bias_variance_families import bias_variance_families

    table = bias_variance_families(scores, families, target, form=form)
    return BiasVarianceFamiliesDisplay(table, kind).plot(ax, legend=legend)
