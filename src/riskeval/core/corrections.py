"""Multiple-testing corrections of p-values (Holm 1979, Benjamini–Hochberg 1995, Bonferroni).

NaN p-values (undefined tests, e.g. a system compared with itself) are left NaN and do not count as
tests.  Benjamini–Hochberg is :func:`scipy.stats.false_discovery_control`; Holm is the step-down
procedure of Holm (1979), checked against ``statsmodels.stats.multitest.multipletests``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riskeval.options import CORRECTIONS, check_option


def adjust_pvalues(pvalues: Any, method: str) -> np.ndarray:
    """Adjusted p-values of the finite entries of ``pvalues``; NaN stays NaN.

    ``method``: ``"holm"``, ``"bh"`` (Benjamini–Hochberg) or ``"bonferroni"``.
    """
    method = check_option(method, CORRECTIONS, "adjust_pvalues", "method")
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    m = int(ok.sum())
    if m == 0:
        return out
    q = p[ok]
    if method == "bonferroni":
        adj = np.minimum(q * m, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        adj = np.empty(m)
        adj[order] = np.minimum(stepped, 1.0)
    else:  # "bh"
        from scipy.stats import false_discovery_control

        adj = false_discovery_control(q, method="bh")
    out[ok] = adj
    return out
