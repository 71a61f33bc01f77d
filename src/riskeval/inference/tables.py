"""Tables that put the resampling tests beside :func:`riskeval.risk_table`: its TRisk p-values
replaced by the randomisation or bootstrap test of URisk, and the Tukey HSD of every α."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riskeval.core.corrections import adjust_pvalues
from riskeval.inference._common import check_n_resamples, resolve_rng
from riskeval.inference.bootstrap import bootstrap_ci
from riskeval.inference.maxt import risk_permutation_table
from riskeval.inference.tukey import tukey_hsd
from riskeval.measures.declared import URisk, expand_risks
from riskeval.model.matrix import as_matrix
from riskeval.options import RISK_TESTS, check_option
from riskeval.settings import RiskSettings, resolve_settings


def with_test(
    table: pd.DataFrame,
    X: Any,
    *,
    test: str,
    baseline: Any = None,
    settings: RiskSettings | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    leave_one_out: bool | None = None,
) -> pd.DataFrame:
    """``table`` (a :func:`riskeval.risk_table` of ``X``) with its p-values from ``test``.

    ``test="t"`` returns the table unchanged (Student's t, TRisk).  ``"permutation"``: ``pvalue`` is
    the sign-flip randomisation p-value of URisk and ``pvalue_maxt`` its max-T adjustment over
    every system and α (:func:`riskeval.risk_permutation_table`).  ``"bootstrap"``: ``pvalue``
    inverts the BCa interval of URisk (:func:`riskeval.bootstrap_ci`) and ``low``/``high`` are that
    interval at confidence ``1 − level``.  Both add ``effect_size`` (the standardised URisk
    x̄/s_x), ``test``, ``n_resamples`` and ``seed``, and
    recompute ``pvalue_adj`` (with the table's correction, per α, over the systems other than the
    baseline) and ``significant``.  The baseline's own rows (TRisk undefined) get the permutation
    test's p-values, 1 (every sign vector gives 0), as :func:`riskeval.risk_permutation_table`
    does, and ``pvalue_adj`` 1; the bootstrap leaves them NaN.  ``baseline`` and
    ``leave_one_out`` (default: those of ``settings``) must be those the table was made with; the
    tests take the table's α, level and alternative (its ``alternative`` column, else two-sided).
    """
    func = "riskeval risk"
    test = check_option(test, RISK_TESTS, func, "test")
    if test == "t":
        return table
    n = check_n_resamples(n_resamples, func)
    _, seed = resolve_rng(rng, func, "seed")  # the --seed of the command line and the report
    M = as_matrix(X)
    alphas = pd.unique(table["alpha"])
    level = float(table["level"].iloc[0])
    alternative = str(table["alternative"].iloc[0]) if "alternative" in table.columns else "two-sided"
    s = resolve_settings(settings, func, baseline=baseline, leave_one_out=leave_one_out).replace(
        alphas=tuple(alphas), level=level
    )
    out = table.copy()
    if test == "permutation":
        t = risk_permutation_table(M, settings=s, n_resamples=n, rng=seed, alternative=alternative).set_index(
            ["system", "alpha"]
        )
        extra = {"pvalue_maxt": "pvalue_maxt", "effect_size": "effect_size"}
    else:
        t = bootstrap_ci(
            M,
            risk=URisk(),
            settings=s,
            method="bca",
            n_resamples=n,
            rng=seed,
            alternative=alternative,
        )
        t = t.set_index(["system", "alpha"])
        extra = {"low": "low", "high": "high", "effect_size": "effect_size"}
    key = pd.MultiIndex.from_arrays([out["system"].astype(str), out["alpha"]])
    undefined = out["pvalue"].isna().to_numpy()  # TRisk undefined: the system is the baseline
    p = t["pvalue"].reindex(key).to_numpy()
    if test == "bootstrap":
        p = np.where(undefined, np.nan, p)
    out["pvalue"] = p
    for col, src in extra.items():
        out[col] = t[src].reindex(key).to_numpy()
    decisive = p
    if "pvalue_adj" in out.columns and "correction" in out.columns:
        correction = str(out["correction"].iloc[0])
        adj = p.copy()  # the baseline's own rows: their p, kept out of the family
        for a in alphas:
            rows = (out["alpha"] == a).to_numpy() & ~undefined
            adj[rows] = adjust_pvalues(p[rows], correction)
        out["pvalue_adj"] = adj
        decisive = adj
    out["significant"] = np.nan_to_num(decisive, nan=1.0) < level
    out["test"] = test
    out["n_resamples"] = n
    out["seed"] = seed
    return out


def tukey_tables(
    X: Any,
    baseline: Any = None,
    alphas: Any = None,
    *,
    risk: Any = None,
    settings: RiskSettings | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    level: float | None = None,
    leave_one_out: bool | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Randomised Tukey HSD of URisk(α) against the baseline for each α of the grid, or of the URisk
    measures ``risk`` (``"URisk@5"``, ``riskeval.URisk(alpha=5)``, a list; one without α: every α
    of the grid); the keywords default to ``settings``.  Returns the pairwise tables and the compact
    letter displays, concatenated (one seed for all α, recorded in both)."""
    func = "tukey_hsd"
    s = resolve_settings(
        settings, func, baseline=baseline, alphas=alphas, level=level, leave_one_out=leave_one_out
    )
    measures = expand_risks(URisk() if risk is None else risk, s.alphas, func)
    _, seed = resolve_rng(rng, func)
    pairs, letters = [], []
    for measure in measures:
        res = tukey_hsd(X, risk=measure, settings=s, n_resamples=n_resamples, rng=seed)
        pairs.append(res.table)
        letters.append(res.letters.assign(alpha=res.alpha, baseline=res.baseline, seed=seed))
    display = pd.concat(letters, ignore_index=True)
    display = display[["system", "alpha", "baseline", URisk.column, "letters", "seed"]]
    return pd.concat(pairs, ignore_index=True), display
