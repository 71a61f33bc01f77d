"""Bad input to a risk measure is refused with a message that names the function and the parameter
(and, for a score, the system and topic), and results carry the measure's name."""

from __future__ import annotations

import pandas as pd
import pytest

import riskeval as rk

X = pd.DataFrame([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.2, 0.2, 0.2]], index=list("abc"), columns=list("xyz"))


@pytest.mark.parametrize("measure", [rk.zrisk, rk.georisk])
def test_chi_square_measures_name_themselves(measure):
    name = measure.__name__
    assert measure(X).name == name
    with pytest.raises(
        rk.RiskevalError, match=rf"^The 'alpha' parameter of {name} must be a finite number >= 0"
    ):
        measure(X, alpha=-1)
    with pytest.raises(rk.RiskevalError, match=rf"^The 'baseline' parameter of {name} names no system"):
        measure(X, baseline="nope")
    negative = X.copy()
    negative.loc["a", "x"] = -0.1
    with pytest.raises(rk.RiskevalError, match=rf"^{name} needs scores >= 0 .* system 'a', topic 'x'"):
        measure(negative)


@pytest.mark.parametrize("measure", [rk.urisk, rk.trisk, rk.topic_risk])
def test_paired_measures_name_themselves(measure):
    with pytest.raises(
        rk.RiskevalError, match=rf"^The 'alpha' parameter of {measure.__name__} must be a finite number >= 0"
    ):
        measure(X.loc["a"], X.loc["b"], alpha=-1)


def test_a_pair_of_different_lengths_is_refused_naming_the_function():
    with pytest.raises(rk.RiskevalError, match=r"^trisk: the system has 3 topic scores and the baseline 2"):
        rk.trisk(X.loc["a"], [0.1, 0.2])


@pytest.mark.parametrize("measure", [rk.zrisk, rk.georisk])
def test_baseline_systems_must_score_every_topic(measure):
    with pytest.raises(
        rk.RiskevalError,
        match=rf"^The 'baseline' systems of {measure.__name__} lack 1 topic\(s\) of the matrix: \['z'\]\.$",
    ):
        measure(X, baseline=X[["x", "y"]])


def test_chi_square_residuals_say_which_baseline():
    assert set(rk.analysis.chisq_residuals(X)["baseline"]) == {"every system"}
    assert set(rk.analysis.chisq_residuals(X, baseline=X.iloc[:2])["baseline"]) == {"baseline systems"}


def test_trisk_says_why_it_has_no_statistic():
    assert rk.trisk(X.loc["a"], X.loc["a"]).reason == "the system equals the baseline on every topic"
    assert rk.trisk(X.loc["a"], X.loc["a"] - 0.1).reason == (
        "every topic has the same risk-reward score (zero variance, up to rounding)"
    )


def test_jackknife_series_are_named():
    r = rk.trisk(X.loc["a"], X.loc["b"], se="jackknife")
    assert (r.leave_one_out.name, r.pseudo_values.name) == ("leave_one_out", "pseudo_value")


def test_risk_reward_and_topic_risk_name_themselves():
    with pytest.raises(
        rk.RiskevalError, match=r"^The 'baseline' parameter of risk_reward must be a 1-D vector"
    ):
        rk.analysis.risk_reward(X.loc["a"], [0.1])
    with pytest.raises(rk.RiskevalError, match=r"^The 'level' parameter of topic_risk must be a number"):
        rk.topic_risk(X.loc["a"], X.loc["b"], level=2)
