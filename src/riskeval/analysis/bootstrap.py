"""Percentile bootstrap confidence intervals for URisk, TRisk and GeoRisk over topics.

Topics are resampled with replacement (Efron & Tibshirani 1993, percentile interval); a resample is
a vector of topic counts, so each one costs one weighted pass of the kernels and every α is then
O(r).  Per-topic aggregate baselines are per-topic quantities and are not recomputed; GeoRisk's
chi-square totals are recomputed for each resample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.core import chisq, paired
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import resolve_baseline
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alphas, check_level

MEASURES = ("urisk", "trisk", "georisk")


def bootstrap_ci(
    X: Any,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0),
    *,
    measures: Any = MEASURES,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """Percentile bootstrap intervals, one row per (system, α, measure).

    Columns ``system, alpha, measure, estimate, low, high``; ``attrs`` records ``n_resamples``,
    ``confidence_level`` and ``seed``.  URisk and TRisk are against ``baseline`` (as in
    :func:`riskeval.risk_table`); GeoRisk uses every system of the matrix as a baseline.  ``seed``
    makes the resamples reproducible.
    """
    M = as_matrix(X)
    A = check_alphas(alphas, "bootstrap_ci")
    cl = check_level(confidence_level, "bootstrap_ci", "confidence_level")
    wanted = [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in wanted if m not in MEASURES]
    if unknown or not wanted:
        raise RiskevalError(
            f"The 'measures' parameter of bootstrap_ci must list some of {MEASURES}. Got {measures!r}."
        )
    if not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2:
        raise RiskevalError(
            f"The 'n_resamples' parameter of bootstrap_ci must be an integer >= 2. Got {n_resamples!r}."
        )
    values = M.to_numpy()
    r, c = values.shape
    if "georisk" in wanted and values.min() < 0:
        raise RiskevalError(
            "bootstrap_ci: GeoRisk needs scores >= 0; leave 'georisk' out of "
            "'measures' for a matrix with negative scores."
        )
    base = resolve_baseline(M, baseline, "bootstrap_ci", leave_one_out=leave_one_out).values
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(c, np.full(c, 1.0 / c), size=n_resamples).astype(np.float64)
    a = A[:, None]

    def measure_values(w: np.ndarray | None) -> dict[str, np.ndarray]:
        out = {}
        if "urisk" in wanted or "trisk" in wanted:
            s = paired.paired_sums(values, base, w)
            u = paired.urisk_from(s, a)
            out["urisk"] = u
            err = np.sqrt(paired.variance_from(s, a) / c)
            with np.errstate(divide="ignore", invalid="ignore"):
                out["trisk"] = np.where(err > 0, u / err, np.nan)
        if "georisk" in wanted:
            out["georisk"] = chisq.georisk_from(chisq.zsums(values, weights=w), a)
        return out

    point = measure_values(None)
    boots = [measure_values(w) for w in counts]
    tail = (1.0 - cl) / 2.0
    rows = []
    for m in wanted:
        stack = np.stack([b[m] for b in boots])  # (B, k, r)
        low, high = np.nanquantile(stack, [tail, 1.0 - tail], axis=0)
        rows.append(
            pd.DataFrame(
                {
                    "system": np.repeat(M.index.to_numpy(), A.size),
                    "alpha": np.tile(A, r),
                    "measure": m,
                    "estimate": point[m].T.ravel(),
                    "low": low.T.ravel(),
                    "high": high.T.ravel(),
                }
            )
        )
    out = pd.concat(rows, ignore_index=True)
    out.attrs.update(
        n_resamples=int(n_resamples),
        confidence_level=cl,
        seed=seed if not isinstance(seed, np.random.Generator) else None,
    )
    return out
