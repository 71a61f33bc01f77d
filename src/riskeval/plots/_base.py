"""What every display shares: the axes to draw on and distinguishable styles for many lines."""

from __future__ import annotations

from typing import Any

from riskeval._optional import require


def axes_for(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
    """``(figure, ax)``: the given axes, or a new pyplot figure of ``figsize`` inches."""
    if ax is None:
        plt = require("matplotlib.pyplot", "riskeval's plots")
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        return fig, ax
    return ax.figure, ax


def line_styles(n: int) -> list[dict[str, Any]]:
    """``n`` (colour, dash) combinations: tab10 for up to 10 lines, else 20 colours × 3 dashes
    before any repeats."""
    mpl = require("matplotlib", "riskeval's plots")
    colours = mpl.colormaps["tab10" if n <= 10 else "tab20"].colors
    k = len(colours)
    dashes = ("-", "--", ":")
    return [{"color": colours[i % k], "linestyle": dashes[(i // k) % 3]} for i in range(n)]


def legend_outside(ax: Any, n: int) -> None:
    """A legend right of the axes, in as many columns as ``n`` entries need."""
    ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize="x-small",
        frameon=False,
        ncols=1 + (n - 1) // 25,
    )
