"""ZRisk and GeoRisk of every system of a matrix (Dinçer, Macdonald & Ounis, SIGIR 2016, §3, eq. 4–8).

``baseline=None`` (default) uses every system of the matrix as a baseline of every other (the
paper's "multiple baselines", Table 5); a per-topic aggregate, a system name or a vector gives the
single-baseline form (the 2-row matrix ``[s; b]``, Table 4); a DataFrame of baseline systems
evaluates each system within ``[s; baselines]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskeval.core import chisq as kern
from riskeval.errors import RiskevalError
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.declared import GeoRisk, RiskMeasure, ZRisk
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alpha, check_alphas


def zrisk(X: Any, alpha: Any = 0.0, *, baseline: Any = None) -> pd.Series | pd.DataFrame:
    """ZRisk_i(α) = Σ_{z_ij>0} z_ij + (1+α) Σ_{z_ij<0} z_ij for every system i (eq. 6).

    Returns a Series indexed by system; with several α (a list or array), a DataFrame with one
    column per α, from one pass over the matrix.  Scores must be ≥ 0; a cell with expected value
    0 has z = 0.
    """
    M, z = _zsums(X, baseline, zrisk.__name__)
    return _by_alpha(ZRisk(), z, alpha, M.index, zrisk.__name__)


def georisk(X: Any, alpha: Any = 0.0, *, baseline: Any = None) -> pd.Series | pd.DataFrame:
    """GeoRisk_i(α) = sqrt((S_i/c) · Φ(ZRisk_i(α)/c)) for every system i (eq. 7).

    The geometric mean of the system's mean effectiveness and its normalised ZRisk.  Returns a
    Series indexed by system; with several α (a list or array), a DataFrame with one column per α,
    from one pass over the matrix.
    """
    M, z = _zsums(X, baseline, georisk.__name__)
    return _by_alpha(GeoRisk(), z, alpha, M.index, georisk.__name__)


def _by_alpha(
    measure: RiskMeasure, z: kern.ZSums, alpha: Any, systems: pd.Index, func: str
) -> pd.Series | pd.DataFrame:
    """``measure.value(z, α)`` (the formula of :func:`riskeval.risk_table`) as a Series for one α,
    or a systems × α DataFrame for several."""
    if np.ndim(alpha) == 0:
        return pd.Series(measure.value(z, check_alpha(alpha, func)), index=systems, name=func)
    A = check_alphas(alpha, func)
    values = measure.value(z, A[:, None]).T  # a new array: the frame may hold it without a copy
    out = pd.DataFrame(values, index=systems, columns=A, copy=False)
    out.columns.name = "alpha"
    return out


def zsums_for(M: pd.DataFrame, baseline: Any, func: str) -> kern.ZSums:
    """Kernel sums for a validated matrix and a baseline specification (see module docstring)."""
    base, _ = chisq_baselines(M, baseline, func)
    return kern.zsums(M.to_numpy(), base)


def chisq_baselines(M: pd.DataFrame, baseline: Any, func: str) -> tuple[np.ndarray | None, str]:
    """The baselines of the chi-square matrix for a validated ``M`` and their name: ``None`` (every
    system of ``M`` is a baseline), a (k × c) matrix of baseline systems given as a DataFrame, or
    one (c,) vector from :func:`~riskeval.measures.baselines.resolve_baseline`.  Every score,
    ``M``'s included, must be ≥ 0."""
    check_nonnegative(M.to_numpy(), M.index, M.columns, func)
    if baseline is None:
        return None, "every system"
    if isinstance(baseline, pd.DataFrame):
        B = as_matrix(baseline, name="baseline")
        missing = M.columns.difference(B.columns)
        if len(missing):
            raise RiskevalError(
                f"The 'baseline' systems of {func} lack {len(missing)} topic(s) of the matrix: "
                f"{missing.tolist()[:10]}."
            )
        Bv = B[M.columns].to_numpy()
        check_nonnegative(Bv, B.index, M.columns, func)
        return Bv, "baseline systems"
    rb = resolve_baseline(M, baseline, func)
    check_nonnegative(rb.values[None, :], ["baseline"], M.columns, func)
    return rb.values, rb.name


def _zsums(X: Any, baseline: Any, func: str) -> tuple[pd.DataFrame, kern.ZSums]:
    M = as_matrix(X)
    return M, zsums_for(M, baseline, func)


def check_nonnegative(values: np.ndarray, rows: Sequence[Any], cols: Sequence[Any], func: str) -> None:
    """ZRisk/GeoRisk need effectiveness scores ≥ 0 (expected values of the chi-square statistic,
    Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4); ``values`` is 2-D (rows × cols)."""
    if not values.size or values.min() >= 0:
        return
    bad = np.argwhere(values < 0)
    i, j = bad[0]
    raise RiskevalError(
        f"{func} needs scores >= 0 (chi-square expected values); found {len(bad)} negative "
        f"score(s), e.g. {float(values[i, j])!r} for system {rows[i]!r}, topic {cols[j]!r}."
    )
