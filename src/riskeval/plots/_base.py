"""What every display shares: the axes to draw on and distinguishable styles for many lines."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from riskeval._optional import require

#: A significant loss (red) and a significant gain (green), in every plot and in the report.
LOSS_COLOUR = "#d62728"
GAIN_COLOUR = "#2ca02c"
#: The colours of the systems in focus: blue, orange, purple, sky blue, black and brown from the
#: colour-blind-safe palette of Okabe & Ito (2008), none of them a red or a green, so that a focus
#: system is never drawn in the colour of a loss or a gain.
FOCUS_COLOURS = ("#0072b2", "#e69f00", "#7b3294", "#56b4e9", "#1a1a1a", "#8c510a")


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


P = TypeVar("P", bound=Callable[..., Any])


def plain_text(plot: P) -> P:
    """Decorate a display's ``plot``: every text of its figure (titles, labels, legends, tick
    labels) is plain text, never mathtext, so that a system or topic named ``$x^{$`` draws as it is
    instead of breaking the figure when it is saved or shown."""

    @functools.wraps(plot)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = plot(self, *args, **kwargs)
        no_mathtext(self.figure_)
        return out

    return wrapper  # type: ignore[return-value]


def no_mathtext(fig: Any) -> None:
    """Turn mathtext off on every text of ``fig``, tick labels included."""
    text_type = require("matplotlib.text", "riskeval's plots").Text
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                tick.label1.set_parse_math(False)
                tick.label2.set_parse_math(False)
    for text in fig.findobj(text_type):
        text.set_parse_math(False)
