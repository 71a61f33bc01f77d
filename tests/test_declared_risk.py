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
from riskeval.measures.declared import (
    RISK_MEASURES,
    GeoRisk,
    RiskMeasure,
    TRisk,
    URisk,
    expand_risks,
    measure_table,
    parse_risk,
    risk_measures,
)
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


def test_each_measure_prints_its_name_and_describes_itself():
    """The printed form, the risk_table column, the defining paper and equations (the help and the
    docs' table of measures) and whether the measure is paired, for each registered measure."""
    measures = (
        URisk(),
        TRisk(alpha=1, se="jackknife"),
        rk.TStarRisk(alpha=2.5),
        rk.ZRisk(alpha=0),
        GeoRisk(5),
    )
    assert [str(m) for m in measures] == [
        "URisk",
        "TRisk(alpha=1, se='jackknife')",
        "TStarRisk(alpha=2.5)",
        "ZRisk(alpha=0)",
        "GeoRisk(alpha=5)",
    ]
    assert URisk().alpha is None
    assert measure_table() == [
        ("URisk", "alpha=None", "urisk", "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1–4"),
        (
            "TRisk",
            "alpha=None, se='parametric'",
            "trisk",
            "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–12 and 17–18",
        ),
        ("TStarRisk", "alpha=None", "tstar", "Dinçer, Ounis & Macdonald, ECIR 2014, §3"),
        ("ZRisk", "alpha=None", "zrisk", "Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6"),
        ("GeoRisk", "alpha=None", "georisk", "Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 7–8"),
    ]
    assert [cls.needs for cls in RISK_MEASURES.values()] == [
        "baseline",
        "baseline",
        "mean",
        "matrix",
        "matrix",
    ]
    with pytest.raises(
        RiskevalError, match=r"^The 'alpha' parameter of URisk must be a finite number >= 0\."
    ):
        URisk(alpha=-1)
    with pytest.raises(
        RiskevalError, match=r"^The 'se' parameter of TRisk must be one of 'parametric', 'jackknife'\."
    ):
        TRisk(se="boot")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (3, "A risk measure is one of URisk, TRisk, TStarRisk, ZRisk, GeoRisk (an object such as "
         "riskeval.URisk(alpha=5), or its text such as 'URisk@5'). Got 3."),
        ("GeoRsk@5", "Unknown risk measure 'GeoRsk@5': use one of URisk, TRisk, TStarRisk, ZRisk, GeoRisk, "
         "optionally with α as 'URisk@5' or 'URisk(alpha=5)'. Did you mean 'GeoRisk'?"),
        ("Foo", "Unknown risk measure 'Foo': use one of URisk, TRisk, TStarRisk, ZRisk, GeoRisk, "
         "optionally with α as 'URisk@5' or 'URisk(alpha=5)'."),
        ("TRisk(1, 2)", "The risk measure 'TRisk(1, 2)': TRisk takes the parameters alpha, se (each once). "
         "Got '2'."),
    ],
)  # fmt: skip
def test_the_whole_message_for_a_measure_that_cannot_be_read(spec, message):
    with pytest.raises(RiskevalError) as raised:
        parse_risk(spec)
    assert str(raised.value) == message


def test_a_measure_class_is_the_measure_with_its_defaults_and_no_list_is_refused():
    assert parse_risk(TRisk) == TRisk() and risk_measures(GeoRisk, "risk_table") == [GeoRisk()]
    with pytest.raises(RiskevalError, match="^A risk measure is one of"):
        parse_risk(RiskMeasure)
    for empty in (None, []):
        with pytest.raises(RiskevalError) as raised:
            risk_measures(empty, "risk_table")
        assert str(raised.value) == "The 'risk' parameter of risk_table must name at least one risk measure."
