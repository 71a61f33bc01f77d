"""The forest plot of a Bayesian champion–challenger analysis: each system's effect with its credible
interval, one row per system, as in Figure 4 of Benham, Carterette, Culpepper & Moffat (SIGIR 2020).

The plot reads a :class:`riskeval.bayes.ChampionComparison` (its ``table``, ``champion`` and
``level``) and imports neither NumPyro nor JAX; matplotlib is imported only when something is drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riskeval._optional import require
from riskeval.errors import RiskevalError
from riskeval.plots._base import FOCUS_COLOURS, GAIN_COLOUR, LOSS_COLOUR, no_mathtext

#: the colour of the champion's row and of the dotted line at its mean effect
CHAMPION_COLOUR = FOCUS_COLOURS[0]
#: a challenger whose credible interval of the difference from the champion holds 0
NEUTRAL_COLOUR = "0.35"


def forest_plot(comparison: Any, alpha: float | None = None, ax: Any = None) -> Any:
    """Each system's effect (its deviation from the global intercept): the equal-tailed credible
    interval as a line and the posterior mean as a dot, one row per system, champion on top, a
    vertical line at 0 and a dotted one at the champion's mean (Benham et al., SIGIR 2020, Figure 4).

    A challenger is drawn green when the credible interval of its difference from the champion lies
    above 0, red when it lies below 0, grey otherwise.

    Parameters
    ----------
    comparison : riskeval.bayes.ChampionComparison
        The result of :func:`riskeval.bayes.champion_challengers`.
    alpha : float, optional
        The risk weight α to draw; default one panel per α of ``comparison``, side by side.
    ax : matplotlib Axes, optional
        Where to draw (needs ``alpha`` when ``comparison`` holds several α); default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    table = comparison.table
    alphas = sorted(set(table["alpha"]))
    if alpha is not None:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or float(alpha) not in alphas:
            raise RiskevalError(
                f"The 'alpha' parameter of forest_plot must be one of the comparison's α "
                f"({', '.join(f'{a:g}' for a in alphas)}); got {alpha!r}."
            )
        alphas = [float(alpha)]
    if ax is not None and len(alphas) > 1:
        raise RiskevalError(
            f"forest_plot draws {len(alphas)} panels (one per α); pass 'alpha' to draw one on 'ax'."
        )
    systems = list(table.loc[table["alpha"] == alphas[0], "system"])
    if ax is None:
        plt = require("matplotlib.pyplot", "riskeval's plots")
        fig, axes = plt.subplots(
            1,
            len(alphas),
            figsize=(1.2 + 3.6 * len(alphas), 1.0 + 0.28 * len(systems)),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        panels = list(axes[0])
    else:
        fig, panels = ax.figure, [ax]
    for panel, a in zip(panels, alphas, strict=True):
        _panel(panel, table[table["alpha"] == a], comparison, a, len(alphas) > 1 or alpha is not None)
    no_mathtext(fig)
    return fig


def _panel(ax: Any, rows: Any, comparison: Any, alpha: float, titled: bool) -> None:
    y = np.arange(len(rows))[::-1]
    colours = [_colour(row) for row in rows.itertuples()]
    ax.hlines(y, rows["effect_low"], rows["effect_high"], colors=colours, linewidth=2)
    ax.scatter(rows["effect_mean"], y, color=colours, s=22, zorder=3)
    ax.axvline(0.0, color="0.5", linewidth=1)
    champion = rows[rows["role"] == "champion"]
    if len(champion):
        ax.axvline(float(champion["effect_mean"].iloc[0]), color=CHAMPION_COLOUR, linestyle=":", linewidth=1)
    ax.set_yticks(y, [str(s) for s in rows["system"]], fontsize="small")
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(f"system effect ({comparison.level * 100:g}% credible interval)")
    ax.grid(True, axis="x", alpha=0.3)
    if titled:
        ax.set_title(f"α = {alpha:g}")


def _colour(row: Any) -> str:
    if row.role == "champion":
        return CHAMPION_COLOUR
    if row.diff_low > 0:
        return GAIN_COLOUR
    if row.diff_high < 0:
        return LOSS_COLOUR
    return NEUTRAL_COLOUR


__all__ = ["forest_plot"]
