"""The values in the text of a risk measure: quoted and bare words, ``None`` for every α of the
settings, numbers stored as floats, and a value that cannot be read, refused naming the text."""

from __future__ import annotations

import pytest

import riskeval as rk
from riskeval.measures.declared import TRisk, URisk, parse_risk


@pytest.mark.parametrize(
    "text",
    ["TRisk(se='jackknife')", 'TRisk(se="jackknife")', "TRisk(se=jackknife)", "TRisk(None, se=jackknife)"],
)
def test_a_word_may_be_quoted_or_bare(text):
    assert parse_risk(text) == TRisk(se="jackknife")


def test_none_leaves_alpha_to_the_settings():
    assert parse_risk("URisk(alpha=None)") == parse_risk("urisk(NONE)") == URisk()
    assert parse_risk("URisk(alpha=None)").alpha is None


def test_quotes_delimit_the_value_even_when_empty():
    with pytest.raises(rk.RiskevalError) as e:
        parse_risk("TRisk(se='')")
    assert str(e.value) == "The 'se' parameter of TRisk must be one of 'parametric', 'jackknife'. Got ''."


@pytest.mark.parametrize(("text", "value"), [("URisk(alpha=1+2)", "'1+2'"), ("TRisk(se=')", '"\'"')])
def test_a_value_that_is_neither_number_nor_word_is_refused(text, value):
    with pytest.raises(rk.RiskevalError) as e:
        parse_risk(text)
    assert str(e.value) == f"The risk measure {text!r}: cannot read the value {value}."


@pytest.mark.parametrize("alpha", [5, "5", 5.0])
def test_alpha_is_stored_as_a_float(alpha):
    measure = URisk(alpha=alpha)
    assert type(measure.alpha) is float and measure.alpha == 5.0
    assert str(measure) == "URisk(alpha=5)" and measure == parse_risk("URisk@5")


def test_declared_measures_have_resolvable_field_types():
    from typing import ClassVar, get_type_hints

    from riskeval.options import SEMethod

    measure = TRisk(alpha=1, se="jackknife")
    assert (measure.alpha, measure.se) == (1.0, "jackknife")
    hints = get_type_hints(TRisk)
    assert hints["alpha"] == float | None and hints["se"] == SEMethod
    assert hints["name"] == hints["column"] == hints["needs"] == ClassVar[str]
    assert hints["decimals"] == ClassVar[int] and hints["null_value"] == ClassVar[float | None]
