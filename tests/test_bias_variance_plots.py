"""Bias² vs variance and bias² vs total error plots (Zhang et al. 2013, Figures 1-2)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.plots.variations import BiasVarianceDisplay, plot_bias_variance

matplotlib.use("Agg")

TABLE1 = [[0.3, 0.1], [0.6, 0.08], [0.65, 0.03], [0.7, 0.2]]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize(("kind", "column"), [("variance", "variance"), ("total", "total")])
def test_points_are_bias2_against_variance_or_total(kind, column):
    bv = rk.variations.bias_variance(TABLE1, target=[0.7, 0.2])
    display = plot_bias_variance(bv, kind=kind)
    points = display.points_.get_offsets()
    np.testing.assert_allclose(points[:, 0], bv.bias**2)
    np.testing.assert_allclose(points[:, 1], getattr(bv, column))
    assert [label.get_text() for label in display.labels_] == ["0", "1", "2", "3"]
    assert display.ax_.get_ylabel() == ("Var" if kind == "variance" else "Bias² + Var")
    assert "ap form" in display.ax_.get_xlabel()


def test_no_annotations_and_bad_kind():
    bv = rk.variations.bias_variance(TABLE1)
    assert plot_bias_variance(bv, annotate=False).labels_ == []
    with pytest.raises(RiskevalError, match="'kind' parameter"):
        plot_bias_variance(bv, kind="bias")
    display = BiasVarianceDisplay(bv.to_frame(), "total").plot()
    np.testing.assert_allclose(display.points_.get_offsets()[:, 1], bv.total)
