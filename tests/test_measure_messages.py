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
