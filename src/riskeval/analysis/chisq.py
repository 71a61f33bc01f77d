"""What ZRisk is made of: expected values and standardised residuals per topic, and the chi-square
test of the whole matrix (Dinçer, Macdonald & Ounis, SIGIR 2016, §3.1, eq. 4–6, Table 4).

Over a matrix of systems (and baselines), ``S_i = Σ_j x_ij``, ``T_j = Σ_i x_ij``, ``N = Σ_i S_i``:
the expected score of system i on topic j is ``e_ij = S_i T_j / N`` (eq. 5) — the system's total
spread over the topics in proportion to how the systems score them — and ``z_ij = (x_ij − e_ij) /
√e_ij`` is the standardised residual.  ZRisk sums the z_ij with the negative ones weighted by
``1 + α`` (eq. 6); the topics with ``z_ij < 0`` are those on which the system falls below
expectation.  Pearson's statistic ``G² = Σ_ij z_ij²`` (eq. 4) follows a chi-square distribution
with ``(r − 1)(c − 1)`` degrees of freedom for large samples: :func:`chisq_test` tests whether the
systems' performance profiles have one shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from riskeval.core.chisq import residual
from riskeval.core.paired import risk_scores
from riskeval.errors import RiskevalError
from riskeval.measures.chisq import check_nonnegative, chisq_baselines
from riskeval.measures.results import TestResult
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alpha

#: Columns of :func:`chisq_residuals`.
COLUMNS = ("system", "topic", "baseline", "score", "expected", "z", "below", "zrisk_term")


@dataclass(frozen=True, repr=False)
class ChiSquareResult(TestResult):
    """Pearson's chi-square test of a systems × topics matrix (SIGIR 2016, eq. 4).

    ``statistic`` G² = Σ z_ij², ``pvalue`` its upper tail under chi-square with ``df`` = (r − 1)(c
    − 1) degrees of freedom; ``n_systems``, ``n_topics``.  Cells with expected value 0 (an all-zero
    topic or system) contribute 0 and are counted in ``df`` all the same.  The scores are not
    counts, so read the p-value as the paper does: a measure of how far the profiles depart from
    one common shape, an approximation "for large samples".
    """

    df: int
    n_systems: int
    n_topics: int


def expected_and_z(values: np.ndarray, base: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(e, z)`` of every system (row of ``values``): over the whole matrix when ``base`` is None,
    else each row within ``[row; base]`` (``base`` one baseline row (c,) or a (k × c) set)."""
    x = np.asarray(values, dtype=np.float64)
    S = x.sum(axis=1, keepdims=True)
    if base is None:
        T = x.sum(axis=0, keepdims=True)
        N = S.sum()
    else:
        B = np.atleast_2d(np.asarray(base, dtype=np.float64))
        T = x + B.sum(axis=0)  # per system: its own score plus the baselines'
        N = S + B.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.sqrt(np.where(N > 0, S / N, 0.0))
        q = np.sqrt(T)
        return (a * q) ** 2, residual(x, a, q)


def chisq_residuals(X: Any, baseline: Any = None, alpha: float = 0.0) -> pd.DataFrame:
    """Per (system, topic): the score, its expected value e_ij, the residual z_ij and whether the
    system falls below expectation there (SIGIR 2016, eq. 5–6; Table 4's per-topic columns).

    ``baseline``: ``None`` (default) — every system of ``X`` is a baseline of every other (Table 5);
    a system name, ``"mean"``/``"median"``/``"max"`` or a vector — each system within the 2-row
    matrix ``[s; b]`` (Table 4; "s2 vs. s1"); a DataFrame of baseline systems — each within ``[s;
    baselines]``, as :func:`riskeval.zrisk`.

    One row per (system, topic), systems then topics in matrix order: ``system, topic, baseline,
    score, expected, z, below, zrisk_term`` where ``zrisk_term`` is z_ij weighted by ``1 + alpha``
    when negative; its sum over a system's topics is the system's ``riskeval.zrisk``.  Scores must
    be ≥ 0.
    """
    M = as_matrix(X)
    alpha = check_alpha(alpha, "chisq_residuals")
    values = M.to_numpy()
    base, name = chisq_baselines(M, baseline, "chisq_residuals")
    e, z = expected_and_z(values, base)
    r, c = values.shape
    return pd.DataFrame(
        {
            "system": np.repeat(M.index.to_numpy(dtype=object), c),
            "topic": np.tile(M.columns.to_numpy(dtype=object), r),
            "baseline": name,
            "score": values.ravel(),
            "expected": e.ravel(),
            "z": z.ravel(),
            "below": (z < 0).ravel(),
            "zrisk_term": risk_scores(z, alpha).ravel(),  # w(z): z, or (1 + α)z below 0
        },
        columns=list(COLUMNS),
    )


def chisq_test(X: Any) -> ChiSquareResult:
    """Pearson's chi-square test of the systems × topics matrix ``X`` (SIGIR 2016, eq. 4): G² =
    Σ z_ij² against chi-square with (r − 1)(c − 1) degrees of freedom.  Scores must be ≥ 0; at
    least two systems and two topics."""
    M = as_matrix(X)
    values = M.to_numpy()
    check_nonnegative(values, M.index, M.columns, "chisq_test")
    r, c = values.shape
    if r < 2 or c < 2:
        raise RiskevalError(f"chisq_test needs at least two systems and two topics; got {r} × {c}.")
    _, z = expected_and_z(values)
    g2 = float((z * z).sum())
    df = (r - 1) * (c - 1)
    return ChiSquareResult(g2, float(stats.chi2.sf(g2, df)), df, r, c)
