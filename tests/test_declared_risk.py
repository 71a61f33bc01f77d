"""Declared risk measures (objects and their text), the settings object, and ``risk_table``'s
``risk=``, ``settings=`` and ``alternative=``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.measures.declared import RISK_MEASURES, GeoRisk, TRisk, URisk, expand_risks, parse_risk
from riskeval.settings import RiskSettings


@given(
    name=st.sampled_from(sorted(RISK_MEASURES)),
    alpha=st.one_of(st.none(), st.floats(0, 1e6, allow_nan=False)),
    jackknife=st.booleans(),
)
def test_the_text_of_a_measure_parses_back_to_it(name, alpha, jackknife):
    cls = RISK_MEASURES[name]
    measure = cls(alpha=alpha, se="jackknife") if cls is TRisk and jackknife else cls(alpha=alpha)
    again = parse_risk(str(measure))
    assert again == measure and type(again) is cls
    if alpha is not None:
        assert float(again.alpha) == alpha  # the repr keeps every digit (%g would not)


def test_the_spellings_of_a_measure():
    assert parse_risk("URisk@5") == parse_risk("urisk(5)") == parse_risk("URisk(alpha=5)") == URisk(5)
    assert parse_risk("georisk") == GeoRisk() and GeoRisk().alpha is None
    assert parse_risk("T*Risk") == parse_risk("tstar") == rk.TStarRisk()
    assert parse_risk("TRisk(alpha=1, se='jackknife')") == TRisk(1.0, se="jackknife")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("GeoRsk@5", "Did you mean 'GeoRisk'"),
        ("URisk(beta=1)", "URisk takes the parameters alpha"),
        ("URisk@-1", "must be a finite number >= 0"),
        ("TRisk(se='bootstrap')", "'parametric', 'jackknife'"),
        ("URisk(alpha=1, alpha=2)", "each once"),
        (3, "A risk measure is one of"),
    ],
)
def test_bad_measures_are_named(text, message):
    with pytest.raises(RiskevalError, match=message.replace("(", r"\(").replace("*", r"\*")):
        parse_risk(text)


def test_a_measure_without_alpha_takes_every_alpha_of_the_settings():
    got = expand_risks(["URisk", URisk(5), "GeoRisk@1"], (0.0, 5.0), "f")
    assert got == [URisk(0.0), URisk(5.0), GeoRisk(1.0)]


def test_settings_are_checked_and_keywords_override_them():
    s = RiskSettings(baseline="BM25", alphas=[1, 5], correction="none")
    assert s.alphas == (1.0, 5.0) and s.correction is None
    assert s.replace(level=0.01, correction=None).level == 0.01
    with pytest.raises(RiskevalError, match="'level' parameter of RiskSettings"):
        RiskSettings(level=5)
    with pytest.raises(RiskevalError, match="'alpha' parameter of risk_table"):
        rk.risk_table(rk.example_scores(), settings=s, alphas=[-1])
    with pytest.raises(RiskevalError, match="must be a riskeval.RiskSettings"):
        rk.risk_table(rk.example_scores(), settings={"level": 0.01})


def test_risk_table_with_settings_equals_the_keywords():
    X = rk.example_scores()
    base = X.index[3]
    s = RiskSettings(baseline=base, alphas=(1.0, 5.0), level=0.01, correction="holm", leave_one_out=True)
    by_keywords = rk.risk_table(X, base, (1.0, 5.0), level=0.01, correction="holm", leave_one_out=True)
    pd.testing.assert_frame_equal(rk.risk_table(X, settings=s), by_keywords)
    # a keyword overrides the settings
    pd.testing.assert_frame_equal(
        rk.risk_table(X, settings=s, correction="none"),
        rk.risk_table(X, base, (1.0, 5.0), level=0.01, leave_one_out=True),
    )


def test_risk_table_shows_the_rows_and_columns_of_the_measures_named():
    X = rk.example_scores()
    full = rk.risk_table(X, alphas=(0.0, 1.0, 5.0))
    part = rk.risk_table(X, alphas=(0.0, 1.0, 5.0), risk=[URisk(5), "GeoRisk@1"])
    assert sorted(set(part["alpha"])) == [1.0, 5.0]
    assert "urisk" in part and "georisk" in part and "trisk" not in part and "zrisk" not in part
    keep = full[full["alpha"].isin([1.0, 5.0])].reset_index(drop=True)
    pd.testing.assert_frame_equal(part, keep[list(part.columns)])
    every = rk.risk_table(X, risk="URisk")  # no α: every α of the settings
    assert sorted(set(every["alpha"])) == [0.0, 1.0, 5.0, 10.0]
    jack = rk.risk_table(X, risk=TRisk(1, se="jackknife"))
    assert set(jack["se_method"]) == {"jackknife"}
    with pytest.raises(RiskevalError, match="share their standard error"):
        rk.risk_table(X, risk=[TRisk(1, se="jackknife"), TRisk(5)])


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_risk_table_alternative_equals_scipy_ttest_rel(alternative):
    X = rk.example_scores()
    base = X.index[0]
    t = rk.risk_table(X, base, 0.0, alternative=alternative).set_index("system")
    for system in X.index[1:6]:
        want = stats.ttest_rel(X.loc[system], X.loc[base], alternative=alternative)
        assert t.loc[system, "trisk"] == pytest.approx(want.statistic, rel=1e-12)
        assert t.loc[system, "pvalue"] == pytest.approx(want.pvalue, rel=1e-10)
    assert ("alternative" in t.columns) == (alternative != "two-sided")
    crit = stats.t.ppf(0.975 if alternative == "two-sided" else 0.95, X.shape[1] - 1)
    assert np.allclose(t["critical"], crit)
