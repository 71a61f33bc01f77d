"""Bias² vs variance and bias² vs total error plots (Zhang et al. 2013, Figures 1-2)."""

from __future__ import annotations

import numpy as np
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.plots.variations import plot_bias_variance

TABLE1 = [[0.3, 0.1], [0.6, 0.08], [0.65, 0.03], [0.7, 0.2]]


@pytest.mark.parametrize(("kind", "column"), [("variance", "variance"), ("total", "total")])
def test_points_are_bias2_against_variance_or_total(kind, column):
    bv = rk.bias_variance(TABLE1, target=[0.7, 0.2])
    display = plot_bias_variance(bv, kind=kind)
    points = display.artists_[0].get_offsets()
    np.testing.assert_allclose(points[:, 0], bv.bias**2)
    np.testing.assert_allclose(points[:, 1], getattr(bv, column))
    labels = [a.get_text() for a in display.artists_[1:]]
    assert labels == ["0", "1", "2", "3"]
    assert display.ax_.get_ylabel() == ("Var" if kind == "variance" else "Bias² + Var")


def test_no_annotations_and_bad_kind():
    bv = rk.bias_variance(TABLE1)
    assert len(plot_bias_variance(bv, annotate=False).artists_) == 1
    with pytest.raises(RiskevalError, match="'kind' parameter"):
        plot_bias_variance(bv, kind="bias")
