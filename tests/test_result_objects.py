"""The result objects of the paired measures, as :mod:`scipy.stats` results behave: their fields
and defaults, what ``repr`` and equality show, the strict significance rule, the interval's default
level, and the fields of TRisk computed as the paper writes them (Dinçer, Macdonald & Ounis,
SIGIR 2014, eq. 12, 14-18)."""

from __future__ import annotations

import dataclasses
import math
import typing

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import riskeval as rk
from riskeval.measures.results import ConfidenceInterval, RiskReward, TRiskResult

pytest_plugins = ["pytester"]

# eight topics on which s_x/√c and the jackknife SE differ in the last bit, and the mean of the
# leave-one-out URisk values differs from URisk by rounding (found by a search over random scores)
S = np.array([0.05, 0.17, 0.19, 0.54, 0.45, 0.96, 0.95, 0.8])
B = np.array([0.67, 0.85, 0.94, 0.02, 0.12, 0.36, 0.09, 0.6])
ALPHA = 1.0


def risk_scores(s: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """x_j = δ_j if δ_j ≥ 0 else (1 + α)·δ_j (eq. 3)."""
    d = s - b
    return np.where(d >= 0, d, (1 + alpha) * d)


def result(**fields: object) -> TRiskResult:
    """A TRiskResult with every field it needs, ``fields`` replacing them."""
    values: dict[str, object] = dict(
        statistic=2.0, pvalue=0.06, df=9, urisk=0.1, se=0.05, se_method="parametric", alpha=1.0
    )
    values.update(level=0.05, critical=2.0)
    values.update(fields)
    return TRiskResult(**values)  # type: ignore[arg-type]


def test_the_parametric_se_is_the_sample_deviation_over_the_root_of_c():
    x = risk_scores(S, B, ALPHA)
    r = rk.trisk(S, B, ALPHA)
    assert r.se == np.std(x, ddof=1) / math.sqrt(x.size)  # eq. 12
    # URisk/SE, URisk from the paired sums, as risk_table computes it (the mean of x up to rounding)
    assert r.statistic == r.urisk / r.se and r.urisk == pytest.approx(x.mean(), abs=1e-15)


def test_the_jackknife_fields_are_those_of_the_paper():
    x = risk_scores(S, B, ALPHA)
    c = x.size
    theta = (x.sum() - x) / (c - 1)  # eq. 15
    se = math.sqrt((c - 1) / c * ((theta - theta.mean()) ** 2).sum())  # eq. 17-18
    assert se != np.std(x, ddof=1) / math.sqrt(c)  # the two forms differ here in the last bit
    r = rk.trisk(S, B, ALPHA, se="jackknife")
    assert (r.se, r.se_method) == (se, "jackknife")
    np.testing.assert_array_equal(r.leave_one_out.to_numpy(), theta)
    # biasJ = (c − 1)(θ₍.₎ − θ̂) of the reported leave-one-out values and URisk (eq. 14): rounding
    # only, for a mean (θ̂ is URisk from the paired sums, risk_table's value)
    assert r.bias == (c - 1) * (r.leave_one_out.to_numpy().mean() - r.urisk)
    assert r.bias_corrected == r.urisk - r.bias


def test_a_parametric_result_has_no_jackknife_fields():
    r = rk.trisk(S, B, ALPHA)
    assert (r.leave_one_out, r.pseudo_values, r.bias, r.bias_corrected) == (None, None, None, None)
    assert list(r.to_frame().columns) == [
        "statistic",
        "pvalue",
        "df",
        "urisk",
        "se",
        "se_method",
        "alpha",
        "level",
        "critical",
        "reason",
        "bias",
        "bias_corrected",
        "alternative",
    ]


def test_the_per_topic_jackknife_fields_are_neither_shown_nor_compared():
    r = rk.trisk(S, B, ALPHA, se="jackknife")
    assert "leave_one_out" not in repr(r) and "pseudo_values" not in repr(r)
    assert "bias_corrected=" in repr(r)
    assert "leave_one_out" not in r.to_frame().columns and "pseudo_values" not in r.to_frame().columns
    shifted = rk.trisk(pd.Series(S), pd.Series(B), ALPHA, se="jackknife")
    assert shifted == r


def test_a_result_built_without_an_alternative_is_two_sided():
    r = result(statistic=-2.5)
    assert (r.alternative, r.reason, r.bias, r.bias_corrected) == ("two-sided", None, None, None)
    assert r.significant  # |−2.5| > 2
    assert r.confidence_interval(0.9) == pytest.approx(
        (0.1 - stats.t.ppf(0.95, 9) * 0.05, 0.1 + stats.t.ppf(0.95, 9) * 0.05), rel=1e-12
    )


@pytest.mark.parametrize(
    ("statistic", "alternative", "significant"),
    [
        (2.0, "two-sided", False),  # equal to the critical value: not beyond it
        (-2.0, "two-sided", False),
        (np.nextafter(2.0, 3.0), "two-sided", True),
        (-np.nextafter(2.0, 3.0), "two-sided", True),
        (2.0, "greater", False),
        (-2.0, "less", False),
        (-2.5, "greater", False),
        (-2.5, "less", True),
        (np.nan, "two-sided", False),
    ],
)
def test_significance_is_strictly_beyond_the_critical_value(statistic, alternative, significant):
    assert result(statistic=statistic, alternative=alternative).significant is significant


def test_the_interval_is_at_95_percent_by_default_as_scipys():
    r = rk.trisk(S, B, alpha=0.0)
    assert r.confidence_interval() == r.confidence_interval(0.95)
    assert r.confidence_interval() == pytest.approx(stats.ttest_rel(S, B).confidence_interval(), rel=1e-12)
    with pytest.raises(rk.RiskevalError) as e:
        r.confidence_interval(1.5)
    assert str(e.value) == (
        "The 'confidence_level' parameter of confidence_interval must be a number strictly between 0 "
        "and 1. Got 1.5."
    )


def test_one_sided_intervals_are_open_on_one_side():
    less = rk.trisk(S, B, alpha=0.0, alternative="less").confidence_interval()
    greater = rk.trisk(S, B, alpha=0.0, alternative="greater").confidence_interval()
    assert less == pytest.approx(stats.ttest_rel(S, B, alternative="less").confidence_interval(), rel=1e-12)
    assert greater == pytest.approx(
        stats.ttest_rel(S, B, alternative="greater").confidence_interval(), rel=1e-12
    )
    assert (less.low, greater.high) == (-math.inf, math.inf)


def test_results_have_resolvable_field_types():
    r = rk.trisk(S, B, ALPHA)
    assert isinstance(r.confidence_interval(), ConfidenceInterval)
    assert typing.get_type_hints(TRiskResult) == {
        "statistic": float,
        "pvalue": float,
        "df": int,
        "urisk": float,
        "se": float,
        "se_method": str,
        "alpha": float,
        "level": float,
        "critical": float,
        "reason": str | None,
        "leave_one_out": pd.Series | None,
        "pseudo_values": pd.Series | None,
        "bias": float | None,
        "bias_corrected": float | None,
        "alternative": str,
    }
    assert typing.get_type_hints(ConfidenceInterval) == {"low": float, "high": float}
    assert set(typing.get_type_hints(RiskReward)) == set(rk.analysis.risk_reward(S, B).to_frame().columns)


def test_results_are_immutable_values():
    r = rk.trisk(S, B, ALPHA)
    rr = rk.analysis.risk_reward(S, B)
    for obj, name in ((r, "statistic"), (rr, "wins")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, name, 0)
    assert rr.to_frame().to_dict("records") == [dataclasses.asdict(rr)]


def test_a_test_module_importing_the_result_base_collects_no_test_class(pytester):
    # TestResult is named like a test class; pytest must not try to collect it
    pytester.makepyfile(
        """
        import riskeval as rk
        from riskeval.measures.results import TestResult


        def test_unpacking():
            result = rk.trisk([0.1, 0.5, 0.3], [0.2, 0.2, 0.2])
            assert isinstance(result, TestResult) and len(result) == 2
        """
    )
    outcome = pytester.runpytest_inprocess(
        "-p", "no:xdist", "-p", "no:cacheprovider", "-W", "error::pytest.PytestCollectionWarning"
    )
    outcome.assert_outcomes(passed=1)
