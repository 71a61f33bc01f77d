"""p-values of Student's t statistic under each alternative hypothesis, as :mod:`scipy.stats`."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import stdtr


def t_pvalue(t: Any, df: Any, alternative: str = "two-sided") -> np.ndarray:
    """p-value of ``t`` on ``df`` degrees of freedom: ``"two-sided"`` (P(|T| ≥ |t|)), ``"less"``
    (P(T ≤ t)) or ``"greater"`` (P(T ≥ t)), as :func:`scipy.stats.ttest_rel`; NaN stays NaN."""
    t = np.asarray(t, dtype=np.float64)
    if alternative == "less":
        return stdtr(df, t)
    if alternative == "greater":
        return stdtr(df, -t)
    return 2 * stdtr(df, -np.abs(t))
