"""Risk plots: each returns a display holding the data it drew (equal to the library's numbers)
and the figure; critical lines sit at ±t(1 − level/2, c − 1) (Dinçer, Macdonald & Ounis, SIGIR 2014,
Figures 1–2)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import riskeval as rk  # noqa: E402
from riskeval.datasets import example_scores  # noqa: E402
from riskeval.errors import RiskevalError  # noqa: E402
from riskeval.plots import risk as plots  # noqa: E402
from riskeval.plots.risk import (  # noqa: E402
    PCADisplay,
    plot_georisk,
    plot_pca,
    plot_sorted_urisk,
    plot_topic_risk,
    plot_trisk,
)


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_georisk_display_holds_georisk_per_alpha(X):
    d = plot_georisk(X, alphas=[0, 1, 5, 10])
    assert d.georisk.shape == (4, 37) and d.georisk.index.name == "alpha"
    for a in (0, 1, 5, 10):
        np.testing.assert_allclose(d.georisk.loc[a], rk.georisk(X, alpha=a), rtol=1e-12)
    assert len(d.lines_) == 37 and d.figure_ is d.ax_.figure
    np.testing.assert_allclose(d.lines_[3].get_ydata(), d.georisk.iloc[:, 3])
    # GeoRisk is non-increasing in α (SIGIR 2016, eq. 6–7: α only weighs the negative z_ij more).
    assert (np.diff(d.georisk.to_numpy(), axis=0) <= 1e-15).all()


def test_trisk_display_band_and_critical_lines(X):
    d = plot_trisk(
        X, baseline="mean", alphas=np.linspace(0, 15, 31), systems=["p_bert", "UNH_bm25"], level=0.05
    )
    critical = stats.t.ppf(0.975, 42)  # 43 topics
    assert d.critical == pytest.approx(critical, rel=1e-12)
    assert [line.get_ydata()[0] for line in d.critical_lines_] == pytest.approx([-critical, critical])
    low, height = d.band_.get_y(), d.band_.get_height()  # a Rectangle in data units along y
    assert (low, low + height) == pytest.approx((-critical, critical))
    assert list(d.trisk.columns) == ["p_bert", "UNH_bm25"] and len(d.lines_) == 2
    # At α = 0 TRisk is the paired t statistic (scipy.stats.ttest_rel), SIGIR 2014 eq. 9–10.
    mean = X.mean(axis=0)
    t0 = stats.ttest_rel(X.loc["p_bert"], mean).statistic
    assert d.trisk.loc[0.0, "p_bert"] == pytest.approx(t0, rel=1e-10)
    table = rk.risk_table(X, baseline="mean", alphas=[7.5])
    np.testing.assert_allclose(
        d.trisk.loc[7.5], table.set_index("system").loc[["p_bert", "UNH_bm25"], "trisk"]
    )


def test_topic_risk_bars_are_topic_risk_values(X):
    fig, ax = plt.subplots()
    d = plot_topic_risk(X, "UNH_bm25", baseline="mean", alpha=5, level=0.05, ax=ax)
    assert d.ax_ is ax and d.figure_ is fig
    want = rk.topic_risk(X.loc["UNH_bm25"], rk.analysis.baseline(X, "mean"), alpha=5, level=0.05)
    heights = np.array([bar.get_height() for bar in d.bars_])
    np.testing.assert_allclose(heights, want["tr"], rtol=1e-12)
    np.testing.assert_allclose(d.markers_.get_ydata(), want["tj"], rtol=1e-12)
    critical = stats.t.ppf(0.975, 42)
    assert [line.get_ydata()[0] for line in d.critical_lines_] == pytest.approx([-critical, critical])
    # Significant losses are the bars below −critical, and they are drawn red.
    red = np.array([bar.get_facecolor() for bar in d.bars_]) == np.array(matplotlib.colors.to_rgba("tab:red"))
    assert (red.all(axis=1) == (heights < -critical)).all() and (heights < -critical).any()
    assert [t.get_text() for t in ax.get_xticklabels()] == list(X.columns)


def test_topic_risk_named_baseline_and_unknown_system(X):
    d = plot_topic_risk(X, "p_bert", baseline="UNH_bm25", alpha=1, show_tj=False)
    assert d.baseline == "UNH_bm25" and d.markers_ is None
    np.testing.assert_allclose(d.topics["delta"], X.loc["p_bert"] - X.loc["UNH_bm25"])
    with pytest.raises(RiskevalError, match="nosuchrun"):
        plot_topic_risk(X, "nosuchrun")


def test_pca_display_runs_and_virtual_baselines(X):
    d = plot_pca(X)
    study = rk.bias_study(X, virtual=("mean", "median", "max"))
    pd.testing.assert_frame_equal(d.coordinates, study.pca.coordinates)
    assert d.virtual == ["MEAN", "MEDIAN", "MAX"]
    np.testing.assert_allclose(d.points_.get_offsets(), study.pca.coordinates.iloc[:37, :2])
    np.testing.assert_allclose(d.virtual_points_.get_offsets(), study.pca.coordinates.iloc[37:, :2])
    assert len(d.labels_) == 40
    assert f"{study.pca.explained['PC1']:.1f}%" in d.ax_.get_xlabel()
    # The MEAN run sits at the origin of the topic-centred space only if it is not part of the
    # centring; here it is one of the runs, so it is close to, not at, the origin.
    assert np.hypot(*d.coordinates.loc["MEAN", ["PC1", "PC2"]]) < 0.1


def test_pca_display_without_virtual_runs(X):
    d = PCADisplay.from_study(rk.bias_study(X, virtual=())).plot(annotate=False)
    assert d.virtual == [] and len(d.labels_) == 0 and len(d.virtual_points_.get_offsets()) == 0


def test_sorted_urisk_display(X):
    names = ["p_bert", "UNH_bm25"]
    d = plot_sorted_urisk(X, names, baseline="mean", alpha=1.0)
    assert list(d.scores.columns) == names and d.scores.index[0] == 1
    assert (np.diff(d.scores.to_numpy(), axis=0) <= 0).all()  # best topic first
    for name in names:  # the mean of the per-topic scores is URisk (SIGIR 2014, eq. 4)
        assert d.scores[name].mean() == pytest.approx(
            rk.urisk(X.loc[name], rk.analysis.baseline(X, "mean"), alpha=1.0), rel=1e-12
        )
    np.testing.assert_allclose(d.lines_[1].get_ydata(), d.scores["UNH_bm25"])


def test_sorted_urisk_leave_one_out_and_errors(X):
    d = plot_sorted_urisk(X, "p_bert", alpha=0, leave_one_out=True)
    others = X.drop(index="p_bert").mean(axis=0)
    assert d.scores["p_bert"].mean() == pytest.approx((X.loc["p_bert"] - others).mean(), rel=1e-12)
    with pytest.raises(RiskevalError, match="unknown"):
        plot_sorted_urisk(X, ["p_bert", "nosuchrun"])
    with pytest.raises(RiskevalError, match="alpha"):
        plot_sorted_urisk(X, alpha=-1)
    with pytest.raises(RiskevalError, match="alpha"):
        plot_georisk(X, alphas=[0, -2])


def test_user_text_is_never_mathtext_in_the_displays():
    """A system or topic named like mathtext draws as it is when the user saves the figure."""
    import io

    X = pd.DataFrame(
        np.random.default_rng(1).random((3, 4)), index=["$x^{$", "b$", "c"], columns=["$t", "u", "v", "w$"]
    )
    for display in (
        plots.plot_trisk(X, alphas=[0, 1, 2]),
        plots.plot_georisk(X, alphas=[0, 1, 2]),
        plots.plot_topic_risk(X, "$x^{$"),
        plots.plot_sorted_urisk(X),
    ):
        display.figure_.savefig(io.BytesIO(), format="png")
        labels = [t.get_text() for t in display.ax_.get_xticklabels()]
        assert all(not t.get_parse_math() for t in display.ax_.get_xticklabels())
        assert labels
