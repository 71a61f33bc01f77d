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

from riskeval.core.paired import effect_size_from, paired_sums
from riskeval.inference._common import check_n_resamples, on_risk_scores, resolve_rng
from riskeval.inference.permutation import sign_flip_counts
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.declared import URisk, expand_risks, risk_measures
from riskeval.model.matrix import as_matrix
from riskeval.options import ALTERNATIVES, check_option
from riskeval.settings import RiskSettings, resolve_settings

#: Columns of :func:`risk_permutation_table`, in order (``alternative`` only when one-sided).
COLUMNS = (
    "system",
    "alpha",
    "baseline",
    URisk.column,
    "effect_size",
    "pvalue",
    "pvalue_maxt",
    "alternative",
    "n_resamples",
    "exact",
    "seed",
)


def risk_permutation_table(
    X: Any,
    baseline: Any = None,
    alphas: Any = None,
    *,
    risk: Any = None,
    settings: RiskSettings | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    leave_one_out: bool | None = None,
    alternative: str = "two-sided",
) -> pd.DataFrame:
    """Randomisation tests of URisk(α) for every system and α, with max-T adjusted p-values.

    Parameters
    ----------
    X : DataFrame, systems × topics
        The score matrix.
    baseline : str, Series or vector
        As for :func:`riskeval.risk_table`: "mean", "median", "max", a system name or per-topic
        scores; default the settings' ("mean").
    alphas : float or list of float
        The α grid; default the settings' (0, 1, 5, 10).
    risk : URisk or TRisk (objects or text), or a list of them
        The measures tested (the sign-flip test of URisk and of TRisk is the same test): the rows
        are at their α, or at every α of the grid for a measure without one.  Default: every α.
        Measures that are not functions of the mean risk-reward score against the baseline (ZRisk,
        GeoRisk: their test is the bootstrap; T*Risk: against the MEAN) are refused with the reason.
    settings : :class:`riskeval.RiskSettings`
        Baseline, α grid and leave-one-out in one object; the keywords given here override it.
    n_resamples : int, default 10,000
        Random sign vectors, shared by every cell; all 2^c are enumerated when 2^c ≤ n_resamples.
    rng : int, None or numpy.random.Generator
        Seed or generator; the seed used is the ``seed`` column.
    leave_one_out : bool
        Aggregate baselines leave the evaluated system out; default the settings' (False).
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis of every cell, as in :func:`riskeval.permutation_test`.
        One-sided, the max-T maximum is that of the signed statistic (the largest gain for
        "greater", the largest loss for "less"), not of its absolute value.

    Returns
    -------
    DataFrame
        One row per (system, α), systems in matrix order: ``system, alpha, baseline, urisk,
        effect_size`` (x̄/s_x), ``pvalue`` (the cell's own randomisation p-value, as
        :func:`riskeval.permutation_test` gives with the same sign vectors), ``pvalue_maxt``
        (adjusted over every system and α together; never below ``pvalue``), ``alternative``
        (only when one-sided), ``n_resamples``, ``exact``, ``seed``.  The baseline system itself
        (every x_j = 0) has p-values 1.
    """
    func = "risk_permutation_table"
    s = resolve_settings(settings, func, baseline=baseline, alphas=alphas, leave_one_out=leave_one_out)
    alternative = check_option(alternative, ALTERNATIVES, func, "alternative")
    if risk is not None:
        for measure in risk_measures(risk, func):
            on_risk_scores(measure, func, "the sign-flip test")
        A = np.array(sorted({float(m.alpha) for m in expand_risks(risk, s.alphas, func)}))  # type: ignore[arg-type]
    else:
        A = np.asarray(s.alphas, dtype=np.float64)
    M = as_matrix(X)
    n = check_n_resamples(n_resamples, func)
    gen, seed = resolve_rng(rng, func)
    rb = resolve_baseline(M, s.baseline, func, leave_one_out=s.leave_one_out)
    delta = M.to_numpy() - rb.values
    sums = paired_sums(M.to_numpy(), rb.values)
    flips = sign_flip_counts(np.maximum(delta, 0.0), np.minimum(delta, 0.0), A, n, gen, alternative)
    p, p_max = (q.ravel() for q in flips.pvalues())  # r × k, system-major
    r, k = M.shape[0], A.size
    columns = [c for c in COLUMNS if c != "alternative" or alternative != "two-sided"]
    return pd.DataFrame(
        {
            "system": np.repeat(M.index.to_numpy(), k),
            "alpha": np.tile(A, r),
            "baseline": rb.name,
            # URisk from the same sums and formula as risk_table's: the same bits
            URisk.column: URisk().value(sums, A[:, None]).T.ravel(),
            "effect_size": effect_size_from(sums, A[:, None]).T.ravel(),
            "pvalue": p,
            "pvalue_maxt": p_max,
            "alternative": alternative,
            "n_resamples": flips.n,
            "exact": flips.exact,
            "seed": seed,
        },
        columns=columns,
    )
