"""The residuals behind ZRisk and the chi-square test (Dinçer, Macdonald & Ounis, SIGIR 2016, eq.
4–6): golden values from Table 4's per-topic columns and Table 5, the test against scipy's
chi2_contingency, properties with hypothesis; Table 6's rankings, Figure 1's plot, the commands."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats
from test_zrisk_georisk import TABLE3, TABLE5_Z

import riskeval as rk
from riskeval.analysis.measure_ranks import measure_rankings, measure_rankings_wide
from riskeval.cli.main import main

matplotlib.use("Agg")

# Table 4 of SIGIR 2016: per-topic z of "s_i vs. s1" (s_i within [s_i; s1]) and of "s1 vs. s_i",
# t1..t5, then ZRisk at α = 0.
TABLE4_TOPICS = {
    ("s2", "s1"): [0.3689, 0.2000, 0.0000, -0.1690, -0.2858, 0.1141],
    ("s1", "s2"): [-0.3689, -0.2000, 0.0000, 0.1690, 0.2858, -0.1141],
    ("s3", "s1"): [0.2988, 0.1581, 0.0000, -0.1225, -0.1917, 0.1427],
    ("s1", "s3"): [-0.2988, -0.1581, 0.0000, 0.1225, 0.1917, -0.1427],
    ("s4", "s1"): [0.3077, 0.1599, 0.0000, -0.1209, -0.1884, 0.1583],
    ("s1", "s4"): [-0.2809, -0.1460, 0.0000, 0.1103, 0.1720, -0.1445],
    ("s5", "s1"): [0.3689, 0.0000, 0.0845, -0.2739, -0.1088, 0.0708],
    ("s1", "s5"): [-0.3689, 0.0000, -0.0845, 0.2739, 0.1088, -0.0708],
    ("s6", "s1"): [0.2121, 0.2739, -0.1000, 0.0000, -0.2858, 0.1002],
    ("s1", "s6"): [-0.2121, -0.2739, 0.1000, 0.0000, 0.2858, -0.1002],
    ("s7", "s1"): [0.2799, 0.1422, 0.0000, -0.1057, -0.1669, 0.1496],
    ("s1", "s7"): [-0.2705, -0.1374, 0.0000, 0.1021, 0.1613, -0.1446],
    ("s8", "s1"): [0.2792, 0.1445, -0.0001, -0.1097, -0.1732, 0.1408],
    ("s1", "s8"): [-0.2860, -0.1480, 0.0001, 0.1123, 0.1774, -0.1442],
}


@pytest.mark.parametrize(("pair", "row"), list(TABLE4_TOPICS.items()))
def test_table4_per_topic_residuals(pair, row):
    system, base = pair
    t = rk.analysis.chisq_residuals(TABLE3.loc[[system]], baseline=TABLE3.loc[base])
    np.testing.assert_array_equal(np.round(t["z"].to_numpy(), 4) + 0.0, row[:5])
    assert round(t["zrisk_term"].sum(), 4) == row[5]
    if base == "s1":  # the same through a named baseline of the whole matrix
        named = rk.analysis.chisq_residuals(TABLE3, baseline="s1")
        np.testing.assert_allclose(named.loc[named["system"] == system, "z"], t["z"], atol=1e-15)


@pytest.mark.parametrize("alpha", [0, 1, 5, 10])
def test_table5_from_the_residuals(alpha):
    t = rk.analysis.chisq_residuals(TABLE3, alpha=alpha)
    z = t.groupby("system", sort=False)["zrisk_term"].sum()
    np.testing.assert_array_equal(np.round(z.to_numpy(), 3), TABLE5_Z[alpha])
    np.testing.assert_allclose(z.to_numpy(), rk.zrisk(TABLE3, alpha=alpha).to_numpy(), atol=1e-12)
    assert (t["below"] == (t["z"] < 0)).all()


def test_table3_mean_row_and_expected_values():
    # Table 3's "Mean" row: topic t1 totals 2.1460, mean 0.2683
    t = rk.analysis.chisq_residuals(TABLE3)
    t1 = t[t["topic"] == "t1"]
    assert round(t1["score"].sum(), 4) == 2.1460 and t1["score"].mean() == pytest.approx(0.2683, abs=5e-5)
    # e_ij = S_i T_j / N, written out
    x = TABLE3.to_numpy()
    e = np.outer(x.sum(1), x.sum(0)) / x.sum()
    np.testing.assert_allclose(t["expected"].to_numpy(), e.ravel())


def test_chisq_test_against_scipy():
    res = rk.inference.chisq_test(TABLE3)
    ref = stats.chi2_contingency(TABLE3.to_numpy(), correction=False)
    assert (res.statistic, res.pvalue, res.df) == pytest.approx((ref.statistic, ref.pvalue, ref.dof))
    statistic, pvalue = res
    assert (res.n_systems, res.n_topics) == (8, 5) and statistic == res.statistic
    big = pd.DataFrame(np.random.default_rng(2).uniform(0, 30, (6, 9)))
    ref = stats.chi2_contingency(big.to_numpy(), correction=False)
    assert rk.inference.chisq_test(big).pvalue == pytest.approx(ref.pvalue) and ref.pvalue < 0.05
    with pytest.raises(rk.RiskevalError, match="scores >= 0"):
        rk.inference.chisq_test(-TABLE3)
    with pytest.raises(rk.RiskevalError, match="two systems"):
        rk.inference.chisq_test(TABLE3.iloc[:1])


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 8)), elements=st.floats(0, 1, width=32))
)
def test_expected_values_keep_the_margins(values):
    t = rk.analysis.chisq_residuals(pd.DataFrame(values))
    e = t["expected"].to_numpy().reshape(values.shape)
    if values.sum() > 0:
        np.testing.assert_allclose(e.sum(axis=1), values.sum(axis=1), atol=1e-9)
        np.testing.assert_allclose(e.sum(axis=0), values.sum(axis=0), atol=1e-9)
    z = t["z"].to_numpy().reshape(values.shape)
    assert np.isfinite(z).all() and (z[e == 0] == 0).all()  # an all-zero topic or system: z = 0
    g2 = rk.inference.chisq_test(pd.DataFrame(values)).statistic
    assert g2 == pytest.approx((z**2).sum())


def test_measure_rankings_table6():
    X = TABLE3
    t = measure_rankings(X, "s1", [0, 5])
    table = rk.risk_table(X, "s1", [0, 5])
    column = {
        "URisk": "urisk",
        "TRisk": "trisk",
        "TStarRisk": "tstar",
        "ZRisk": "zrisk",
        "GeoRisk": "georisk",
    }
    assert set(t["risk"]) == set(column) and len(t) == 8 * 2 * 5
    for (alpha, m), part in t.groupby(["alpha", "risk"]):
        ref = table[table["alpha"] == alpha]
        np.testing.assert_allclose(part["value"], ref[column[m]], equal_nan=True)
        ranked = part.dropna(subset=["rank"])
        assert (ranked["rank"].to_numpy() == stats.rankdata(-ranked["value"].to_numpy())).all()
    # s1 is the URisk/TRisk baseline: not ranked there, ranked on the others
    s1 = t[t["system"] == "s1"].set_index(["alpha", "risk"])["rank"]
    assert s1.loc[(0.0, "URisk")] != s1.loc[(0.0, "URisk")] and s1.loc[(5.0, "ZRisk")] == 8
    wide = measure_rankings_wide(t)
    assert wide.columns[2] == ("α = 0", "URisk", "value") and wide.shape == (8, 2 + 20)
    # a measure with its own α is listed at that α only; objects and text are the same
    some = measure_rankings(X, "s1", [0, 5], risk=[rk.GeoRisk(alpha=5), "URisk"])
    assert sorted(zip(some["alpha"], some["risk"], strict=True)) == sorted(
        [(0.0, "URisk")] * 8 + [(5.0, "URisk")] * 8 + [(5.0, "GeoRisk")] * 8
    )
    pd.testing.assert_frame_equal(some, measure_rankings(X, "s1", [0, 5], risk=["GeoRisk@5", rk.URisk()]))
    with pytest.raises(rk.RiskevalError, match="Unknown risk measure 'frisk'"):
        measure_rankings(X, risk=["urisk", "frisk"])


def test_plots():
    from riskeval.plots.paper import plot_profiles, plot_residuals

    d = plot_profiles(TABLE3)
    assert len(d.lines_) == 8 and d.mean_line_ is not None
    np.testing.assert_allclose(d.mean_line_.get_ydata(), TABLE3.mean())
    assert len(plot_profiles(TABLE3, ["s1", "s2"], show_mean=False).lines_) == 2
    with pytest.raises(rk.RiskevalError, match="no system"):
        plot_profiles(TABLE3, ["zz"])
    r = plot_residuals(TABLE3, "s1")
    np.testing.assert_allclose(
        r.image_.get_array()[1], rk.analysis.chisq_residuals(TABLE3, "s1")["z"].iloc[5:10]
    )
    matplotlib.pyplot.close("all")


def test_commands(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    TABLE3.rename_axis(index="system").to_csv(path)
    main(["chisq", str(path), "--system", "s1", "--below"])
    out = capsys.readouterr().out
    assert "G² = 1.1188, df = 28" in out and len(out.splitlines()) == 3 + 2  # s1 is below on t1, t2
    main(["chisq", str(path), "-b", "s1", "--format", "csv"])
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(got["z"], rk.analysis.chisq_residuals(TABLE3, "s1")["z"])
    main(["risk-ranks", str(path), "-b", "s1", "--alpha", "10"])
    lines = capsys.readouterr().out.splitlines()
    assert "α=10 ZRisk rank" in lines[1] and len(lines) == 2 + 8
    for bad in (["--system", "nope"], ["--alpha", "x"], ["--alpha", "-1"]):
        with pytest.raises(SystemExit) as exc:
            main(["chisq", str(path), *bad])
        assert exc.value.code == 2 and "Traceback" not in capsys.readouterr().err


def test_report_section():
    from riskeval.reporting.paper_sections import residuals_section

    r = rk.report(TABLE3, alphas=[0, 5], sections=[residuals_section])
    assert r.sections == ("Where ZRisk comes from",)
    assert "G² = 1.119, 28 degrees of freedom" in r.html and "data:image" not in r.html
    lowest = rk.zrisk(TABLE3, alpha=5).nsmallest(3).index
    assert all(f'<th scope="row">{s}</th>' in r.html for s in lowest)
    with pytest.warns(rk.errors.RiskevalWarning, match="scores >= 0"):  # the report's own risk table
        negative = rk.report(TABLE3 - 0.1, alphas=[0], sections=[residuals_section])
    assert negative.sections == ()


def test_report_draws_the_heat_map_only_where_it_is_readable(monkeypatch):
    from riskeval.reporting import paper_sections

    drawn = rk.report(TABLE3, alphas=[0, 5], sections=[paper_sections.residuals_section])
    assert "<svg" in drawn.html and "heat map of z_ij is left out" not in drawn.html
    monkeypatch.setattr(paper_sections, "HEATMAP_CELLS", TABLE3.size - 1)
    left_out = rk.report(TABLE3, alphas=[0, 5], sections=[paper_sections.residuals_section])
    assert "<svg" not in left_out.html and "heat map of z_ij is left out" in left_out.html
