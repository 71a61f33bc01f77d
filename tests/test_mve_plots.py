"""Plots of mean-variance sweeps: τ/τ_AP vs α (Zuccon et al. 2016, Figures 2-4), portfolio values."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.plots.variations import (
    PortfolioValueDisplay,
    RankCorrelationDisplay,
    TopicRankCorrelationDisplay,
    plot_portfolio_values,
    plot_rank_correlation,
)

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def df():
    rng = np.random.default_rng(4)
    idx = pd.MultiIndex.from_product(
        [[f"s{i}" for i in range(6)], ["1", "2", "3"], ["pivot", "most"]],
        names=["system", "topic", "variant"],
    )
    return pd.DataFrame({"score": rng.random(len(idx))}, index=idx).reset_index()


def test_rank_correlation_lines_hold_the_sweep(df):
    sweep = rk.variations.mean_variance_sweep(df, np.linspace(-5, 5, 21))
    display = plot_rank_correlation(sweep)
    assert isinstance(display, RankCorrelationDisplay) and display.figure_ is display.ax_.figure
    tau, tau_ap = display.lines_
    np.testing.assert_array_equal(tau.get_xdata(), sweep.alphas)
    np.testing.assert_array_equal(tau.get_ydata(), sweep.tau)
    np.testing.assert_array_equal(tau_ap.get_ydata(), sweep.tau_ap)
    pd.testing.assert_frame_equal(display.correlations.reset_index(), sweep.to_frame())
    assert display.threshold_line_.get_ydata()[0] == 0.9
    assert display.ax_.get_xlabel().startswith("α")


def test_intra_topic_sweep_is_a_heat_map(df, tmp_path):
    sweep = rk.variations.mean_variance_sweep(df, np.linspace(-5, 5, 11), form="intra")
    display = plot_rank_correlation(sweep)
    assert isinstance(display, TopicRankCorrelationDisplay)
    np.testing.assert_array_equal(display.image_.get_array(), sweep.tau_ap)
    assert list(display.tau_ap.index) == ["1", "2", "3"]
    display.figure_.savefig(tmp_path / "intra.png")
    assert (tmp_path / "intra.png").stat().st_size > 0


def test_plots_draw_on_a_given_axes(df):
    from matplotlib.figure import Figure

    fig = Figure()
    ax1, ax2 = fig.subplots(1, 2)
    sweep = rk.variations.mean_variance_sweep(df, [0.0, 1.0, 2.0])
    assert plot_rank_correlation(sweep, ax=ax1).ax_ is ax1
    display = plot_portfolio_values(sweep, ["s0", "s3"], ax=ax2)
    assert display.ax_ is ax2 and display.figure_ is fig
    again = PortfolioValueDisplay(display.values).plot()  # from data, on a new figure
    assert again.figure_ is not fig and len(again.lines_) == 2


def test_portfolio_values_are_straight_lines(df):
    sweep = rk.variations.mean_variance_sweep(df, np.linspace(-2, 2, 5))
    display = plot_portfolio_values(sweep)
    assert len(display.lines_) == 6 and display.ax_.get_legend() is not None
    table = rk.variations.mean_variance(df, 0.0)
    expected = table["mean"].iloc[2] - sweep.alphas * table["variance"].iloc[2]
    np.testing.assert_allclose(display.lines_[2].get_ydata(), expected)
    np.testing.assert_allclose(display.values["s2"], expected)
    with pytest.raises(RiskevalError, match="Unknown system"):
        plot_portfolio_values(sweep, ["nope"])
    with pytest.raises(RiskevalError, match="form='general' or 'inter'"):
        plot_portfolio_values(rk.variations.mean_variance_sweep(df, [0.0, 1.0], form="intra"))
