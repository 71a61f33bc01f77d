"""Options are validated in one place, with one message form, case-sensitively; public functions
raise the riskeval error family for bad parameters, never a bare ValueError."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.options import CORRECTIONS, MISSING_POLICIES, SE_METHODS, check_option

X = pd.DataFrame(
    np.random.default_rng(0).uniform(0.1, 0.9, (4, 6)),
    index=["a", "b", "c", "d"],
    columns=[f"t{j}" for j in range(6)],
)
s, b = X.loc["a"], X.loc["b"]


def test_message_form_names_parameter_function_choices_and_value():
    with pytest.raises(rk.RiskevalError) as err:
        check_option("Zero", MISSING_POLICIES, "score_matrix", "missing")
    assert str(err.value).startswith(
        "The 'missing' parameter of score_matrix must be one of 'zero', 'drop', 'raise'. Got 'Zero'."
    )
    assert "use 'zero'" in str(err.value)


@pytest.mark.parametrize(
    ("call", "parameter", "function"),
    [
        (lambda: rk.trisk(s, b, se="Jackknife"), "se", "trisk"),
        (lambda: rk.trisk(s, b, se="bootstrap"), "se", "trisk"),
        (lambda: rk.topic_risk(s, b, correction="Holm"), "correction", "topic_risk"),
        (lambda: rk.risk_table(X, correction="fdr"), "correction", "risk_table"),
        (lambda: rk.risk_table(X, se="JACKKNIFE"), "se", "risk_table"),
        (lambda: rk.inference.adjust_pvalues([0.01, 0.2], "BH"), "method", "adjust_pvalues"),
        (lambda: rk.analysis.baseline(X, "Mean"), "kind", "baseline"),
        (lambda: rk.analysis.loo_baseline(X, "avg"), "kind", "loo_baseline"),
        (lambda: rk.bias_study(X, virtual=["MEAN"]), "virtual", "bias_study"),
        (lambda: rk.io.apply_missing(X, "Zero"), "missing", "apply_missing"),
        (lambda: rk.score_matrix(X, missing="none"), "missing", "score_matrix"),
    ],
)
def test_bad_options_raise_one_message_form(call, parameter, function):
    with pytest.raises(rk.RiskevalError, match=re.escape(f"The '{parameter}' parameter of {function} must")):
        call()


def test_aggregate_baseline_names_are_lower_case():
    with pytest.raises(rk.RiskevalError, match="Aggregate baselines are lower case: use 'mean'"):
        rk.risk_table(X, baseline="MEAN")
    assert rk.risk_table(X, baseline="mean")["baseline"].iloc[0] == "MEAN"


@pytest.mark.parametrize(
    "call",
    [
        lambda: rk.urisk(s, b, alpha=-1),
        lambda: rk.urisk(s, b, alpha=float("nan")),
        lambda: rk.trisk(s, b, level=1.5),
        lambda: rk.risk_table(X, alphas=[]),
        lambda: rk.zrisk(-X),
        lambda: rk.urisk([0.1], [0.2]),
        lambda: rk.urisk([0.1, 0.2], [0.2]),
        lambda: rk.analysis.loo_baseline(X.iloc[:1]),
        lambda: rk.trisk(s, b).confidence_interval(2.0),
    ],
)
def test_bad_values_raise_the_error_family(call):
    with pytest.raises(rk.RiskevalError):
        call()


def test_the_declared_choices():
    assert MISSING_POLICIES == ("zero", "drop", "raise")
    assert SE_METHODS == ("parametric", "jackknife")
    assert CORRECTIONS == ("holm", "bh", "bonferroni")


def test_results_follow_scipy_stats():
    r = rk.trisk(s, b, alpha=1.0)
    statistic, pvalue = r
    assert (statistic, pvalue) == (r.statistic, r.pvalue) == (r[0], r[1]) and len(r) == 2
    low, high = r.confidence_interval(0.9)
    assert low < r.urisk < high
    assert r.confidence_interval(0.99).low < low
    assert list(r.to_frame().columns[:2]) == ["statistic", "pvalue"]


def test_risk_table_honours_se_and_keeps_settings_through_concat():
    a = rk.risk_table(X, baseline="b", alphas=[1.0], se="jackknife")
    c = rk.risk_table(X, baseline="mean", alphas=[1.0], correction="holm")
    both = pd.concat([a, c], ignore_index=True)
    assert set(both["baseline"]) == {"b", "MEAN"}
    assert set(both["se_method"]) == {"jackknife", "parametric"}
    row = a.set_index("system").loc["a"]
    jack = rk.trisk(s, b, alpha=1.0, se="jackknife")
    assert row["se"] == pytest.approx(jack.se, rel=1e-12)
    assert row["trisk"] == pytest.approx(jack.statistic, rel=1e-12)
    assert row["critical"] == pytest.approx(jack.critical)
    assert a["significant"].dtype == bool and c["significant"].dtype == bool
