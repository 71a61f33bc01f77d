"""Randomisation p-values of URisk for every system and every α, adjusted for having chosen among
them after looking (Westfall & Young, *Resampling-Based Multiple Testing*, Wiley 1993: the
single-step max-T procedure).

Reporting the α, or the system, with the most striking result is a multiple comparison over the
whole grid.  One set of sign vectors flips every (system, α) cell at once; for each resample the
largest studentised statistic over all cells is recorded, and a cell's adjusted p-value is the
share of resamples whose maximum reaches the cell's observed statistic.  Because the resamples are
shared, the adjustment keeps the dependence between cells (URisk at neighbouring α values is
nearly the same test) and is much less conservative than Bonferroni over the grid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.core.paired import risk_scores
from riskeval.inference._common import check_n_resamples, resolve_rng
from riskeval.inference.permutation import effect_sizes, sign_flip_counts
from riskeval.measures.baselines import resolve_baseline
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alphas

#: Columns of :func:`risk_permutation_table`, in order.
COLUMNS = (
    "system",
    "alpha",
    "baseline",
    "urisk",
    "effect_size",
    "pvalue",
    "pvalue_maxt",
    "n_resamples",
    "exact",
    "seed",
)


def risk_cells(values: np.ndarray, base: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """Risk-reward scores of every (system, α) cell: (r·k) × c, system-major (all α of system 0,
    then system 1, ...)."""
    delta = values - base
    cells = np.stack([risk_scores(delta, a) for a in alphas], axis=1)  # r × k × c
    return cells.reshape(-1, values.shape[1])


def risk_permutation_table(
    X: Any,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0),
    *,
    n_resamples: int = 10_000,
    rng: Any = None,
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """Randomisation tests of URisk(α) for every system and α, with max-T adjusted p-values.

    Parameters
    ----------
    X : DataFrame, systems × topics
        The score matrix.
    baseline : str, Series or vector, default "mean"
        As for :func:`riskeval.risk_table`: "mean", "median", "max", a system name or per-topic
        scores.
    alphas : float or list of float
        The α grid.
    n_resamples : int, default 10,000
        Random sign vectors, shared by every cell; all 2^c are enumerated when 2^c ≤ n_resamples.
    rng : int, None or numpy.random.Generator
        Seed or generator; the seed used is the ``seed`` column.
    leave_one_out : bool, default False
        Aggregate baselines leave the evaluated system out.

    Returns
    -------
    DataFrame
        One row per (system, α), systems in matrix order: ``system, alpha, baseline, urisk,
        effect_size`` (x̄/s_x), ``pvalue`` (the cell's own two-sided randomisation p-value, as
        :func:`riskeval.permutation_test` gives with the same sign vectors), ``pvalue_maxt``
        (adjusted over every system and α together; never below ``pvalue``), ``n_resamples``,
        ``exact``, ``seed``.  The baseline system itself (every x_j = 0) has p-values 1.
    """
    func = "risk_permutation_table"
    M = as_matrix(X)
    A = check_alphas(alphas, func)
    n = check_n_resamples(n_resamples, func)
    gen, seed = resolve_rng(rng, func)
    rb = resolve_baseline(M, baseline, func, leave_one_out=leave_one_out)
    delta = M.to_numpy() - rb.values
    cells = risk_cells(M.to_numpy(), rb.values, A)
    flips = sign_flip_counts(np.maximum(delta, 0.0), np.minimum(delta, 0.0), A, n, gen)
    p, p_max = (q.ravel() for q in flips.pvalues())  # r × k, system-major like the cells
    r, k = M.shape[0], A.size
    return pd.DataFrame(
        {
            "system": np.repeat(M.index.to_numpy(), k),
            "alpha": np.tile(A, r),
            "baseline": rb.name,
            "urisk": cells.mean(axis=1),
            "effect_size": effect_sizes(cells),
            "pvalue": p,
            "pvalue_maxt": p_max,
            "n_resamples": flips.n,
            "exact": flips.exact,
            "seed": seed,
        },
        columns=list(COLUMNS),
    )
