"""How a system's correlation with the baseline drives its URisk (Dinçer, Ounis & Macdonald,
ECIR 2014, §1 and §2.3).

The paper's central claim: "the higher the correlation between any given system and the baseline
system across queries, the higher the measured risk-sensitive scores of that system on average".
Since ``URisk(α) = UGain − α·FRisk`` and UGain is the difference of the means whatever the
correlation, the correlation acts through FRisk: for the same means and spreads, a system that
rises and falls with the baseline has smaller per-topic losses.  :func:`baseline_correlation`
puts, per system, the Pearson correlation ρ with the baseline across topics beside its URisk, UGain
and FRisk, and tests the association across systems (Pearson's r of ρ against URisk, and of ρ
against FRisk).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from riskeval.errors import RiskevalError
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.declared import URisk
from riskeval.measures.results import TestResult
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alpha

#: Columns of :attr:`BaselineCorrelation.table`.
COLUMNS = (
    "baseline",
    "system",
    "alpha",
    "pearson",
    "mean",
    "baseline_mean",
    "ugain",
    "frisk",
    URisk.column,
    "is_baseline",
)


@dataclass(frozen=True)
class BaselineCorrelation(TestResult):
    """Result of :func:`baseline_correlation`; unpacks as ``(statistic, pvalue)``.

    Attributes
    ----------
    statistic, pvalue : float
        Pearson's r across the (baseline, system) pairs between ``pearson`` (each system's
        correlation with its baseline across topics) and ``urisk``, and its two-sided p-value
        (:func:`scipy.stats.pearsonr`).  Positive r is the paper's claim.
    frisk_statistic, frisk_pvalue : float
        The same between ``pearson`` and FRisk (the part of URisk the correlation acts on): the
        claim predicts a negative r.
    n_pairs : int
        Pairs in the tests: every row but a system against itself and a constant run (ρ NaN).
    alpha : float
    baseline : str
        The baseline's name, ``"per-system"``, or ``"each system"`` (every system in turn).
    table : DataFrame
        One row per (baseline, system): ``baseline, system, alpha, pearson, mean, baseline_mean,
        ugain, frisk, urisk, is_baseline``.

    Notes
    -----
    With every system in turn as the baseline the pairs are not independent (each run appears
    r − 1 times on each side), so the p-values are descriptive only.
    """

    frisk_statistic: float
    frisk_pvalue: float
    n_pairs: int
    alpha: float
    baseline: str
    table: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of every field but ``table``."""
        return pd.DataFrame([{f.name: getattr(self, f.name) for f in fields(self) if f.name != "table"}])

    def __repr__(self) -> str:
        shown = {k: v for k, v in asdict(self).items() if k != "table"}
        return "BaselineCorrelation(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"


def baseline_correlation(
    X: Any, baseline: Any = None, alpha: float = 5.0, *, leave_one_out: bool = False
) -> BaselineCorrelation:
    """Per system: its Pearson correlation with the baseline across topics beside its URisk(α).

    Parameters
    ----------
    X : systems × topics score matrix.
    baseline : ``None`` (default): every system in turn is the baseline of every other, as in
        Table 2 of ECIR 2014 (r·(r − 1) pairs); otherwise any baseline of
        :func:`riskeval.risk_table` (a system name, ``"mean"``, ``"median"``, ``"max"``, a
        per-topic vector, or a systems × topics DataFrame of each system's own baseline).
    alpha : risk aversion α ≥ 0 of URisk (default 5, as in Tables 1 and 3 of ECIR 2014).
    leave_one_out : aggregate baselines exclude the evaluated system.

    Notes
    -----
    A system with the same score on every topic (or a constant baseline) has ρ NaN and is left out
    of the tests, as is a system against itself.  Fewer than 3 pairs give NaN statistics.
    """
    M = as_matrix(X)
    alpha = check_alpha(alpha, "baseline_correlation")
    values = M.to_numpy()
    r, c = values.shape
    if c < 2:
        raise RiskevalError(f"baseline_correlation needs at least two topics; the matrix has {c}.")
    if baseline is None:
        if r < 2:
            raise RiskevalError("baseline_correlation with every system as the baseline needs two systems.")
        B = np.repeat(values, r, axis=0)  # baseline k repeated for every system
        S = np.tile(values, (r, 1))
        names = np.repeat(M.index.to_numpy(dtype=object), r)
        systems = np.tile(M.index.to_numpy(dtype=object), r)
        is_self = np.eye(r, dtype=bool).ravel()
        label = "each system"
    else:
        base = resolve_baseline(M, baseline, "baseline_correlation", leave_one_out=leave_one_out)
        B = np.broadcast_to(base.values, values.shape)
        S = values
        names = np.full(r, base.name, dtype=object)
        systems = M.index.to_numpy(dtype=object)
        is_self = base.is_self | (S == B).all(axis=1)
        label = base.name
    delta = S - B
    frisk = np.maximum(-delta, 0.0).mean(axis=1)
    ugain = delta.mean(axis=1)
    table = pd.DataFrame(
        {
            "baseline": names,
            "system": systems,
            "alpha": alpha,
            "pearson": row_pearson(S, B),
            "mean": S.mean(axis=1),
            "baseline_mean": B.mean(axis=1),
            "ugain": ugain,
            "frisk": frisk,
            URisk.column: ugain - alpha * frisk,
            "is_baseline": is_self,
        },
        columns=list(COLUMNS),
    )
    use = ~is_self & np.isfinite(table["pearson"].to_numpy())
    rho = table["pearson"].to_numpy()[use]
    r_u, p_u = _pearson(rho, table[URisk.column].to_numpy()[use])
    r_f, p_f = _pearson(rho, frisk[use])
    return BaselineCorrelation(r_u, p_u, r_f, p_f, int(use.sum()), alpha, label, table)


def row_pearson(S: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row of ``S`` with the same row of ``B`` (NaN for a constant row)."""
    s = S - S.mean(axis=1, keepdims=True)
    b = B - B.mean(axis=1, keepdims=True)
    den = np.sqrt((s * s).sum(axis=1) * (b * b).sum(axis=1))
    num = (s * b).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(rho, -1.0, 1.0)


def _pearson(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """scipy's Pearson r and two-sided p-value; NaN for fewer than 3 pairs or a constant side."""
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan"), float("nan")
    res = stats.pearsonr(a, b)
    return float(res.statistic), float(res.pvalue)
