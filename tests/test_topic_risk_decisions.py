"""The per-topic analysis (Dinçer, Macdonald & Ounis, SIGIR 2014, §5): which topics it calls
significant, exactly at the boundary of its rules, the names of its columns for unnamed input,
and its messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import riskeval as rk

REST = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])


def tie_with_the_critical_value() -> np.ndarray:
    """Ten scores whose first has TR_1 = x_1/s_x (eq. 21) equal to t(0.975, 9) to the last bit,
    against a baseline of zeros at α = 0 (x = the scores): a root of TR_1 − t found by Brent's
    method, then the adjacent floats searched for an exact tie."""
    critical = stats.t.ppf(0.975, 9)

    def tr(first: float) -> float:
        x = np.concatenate([[first], REST])
        return float(x[0] / np.std(x, ddof=1))

    root = optimize.brentq(lambda v: tr(v) - critical, 0.5, 5.0, xtol=1e-15)
    for step in range(200):
        for candidate in (root + step * np.spacing(root), root - step * np.spacing(root)):
            if tr(candidate) == critical:
                return np.concatenate([[candidate], REST])
    raise AssertionError("no score ties with the critical value")


def test_a_topic_exactly_at_the_critical_value_is_not_significant():
    s = tie_with_the_critical_value()
    out = rk.topic_risk(s, np.zeros(10), alpha=0.0)
    assert out["tr"].iloc[0] == out["critical"].iloc[0] == stats.t.ppf(0.975, 9)
    assert not out["significant"].iloc[0]
    above = rk.topic_risk(np.concatenate([[np.nextafter(s[0], 9.0)], REST]), np.zeros(10), alpha=0.0)
    assert above["tr"].iloc[0] > above["critical"].iloc[0] and above["significant"].iloc[0]


def test_an_adjusted_p_value_equal_to_the_level_is_not_significant():
    s = np.array([0.9, 0.1, 0.2, 0.3, 0.25, 0.15, 0.35, 0.05])
    b = np.full(8, 0.2)
    first = rk.topic_risk(s, b, correction="holm")
    level = float(first["pvalue_adj"].iloc[0])  # the level does not change the p-values
    at = rk.topic_risk(s, b, correction="holm", level=level)
    np.testing.assert_array_equal(at["pvalue_adj"], first["pvalue_adj"])
    assert at["significant"].tolist() == (at["pvalue_adj"] < level).tolist()
    assert not at["significant"].iloc[0]
    above = rk.topic_risk(s, b, correction="holm", level=np.nextafter(level, 1.0))
    assert above["significant"].iloc[0]


def test_unnamed_input_is_called_system_and_baseline():
    out = rk.topic_risk(np.array([0.1, 0.4, 0.3]), [0.2, 0.2, 0.2])
    assert set(out["system"]) == {"system"} and set(out["baseline"]) == {"baseline"}
    named = rk.topic_risk(pd.Series([0.1, 0.4, 0.3], name=7), pd.Series([0.2, 0.2, 0.2], name="bm25"))
    assert set(named["system"]) == {"7"} and set(named["baseline"]) == {"bm25"}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"alternative": "both"},
            "The 'alternative' parameter of topic_risk must be one of 'two-sided', 'less', 'greater'. "
            "Got 'both'.",
        ),
        (
            {"baseline": [0.2, 0.2]},
            "topic_risk: the system has 3 topic scores and the baseline 2; they must score the same topics.",
        ),
    ],
)
def test_topic_risk_names_itself_in_its_messages(kwargs, expected):
    args = {"system": [0.1, 0.4, 0.3], "baseline": [0.2, 0.2, 0.2], **kwargs}
    with pytest.raises(rk.RiskevalError) as e:
        rk.topic_risk(**args)
    assert str(e.value) == expected
