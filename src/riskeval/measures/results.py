"""Result objects: small, named, scipy.stats-like (attributes; ``statistic, pvalue = result``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats


@dataclass(frozen=True)
class TRiskResult:
    """TRisk of one system against a baseline (seed dincer2014-trisk-hypothesis-testing, eq. 7–13).

    ``statistic`` is TRisk = URisk/SE (TGain at α = 0, the paired t statistic); ``pvalue`` is
    two-sided from Student's t with ``df = c − 1``; ``critical`` is ``t(1 − level/2, df)``.
    ``reason`` says why ``statistic`` is NaN (e.g. the system is the baseline), else ``None``.
    Unpacks as ``statistic, pvalue`` like :class:`scipy.stats.TtestResult`.
    """

    statistic: float
    pvalue: float
    df: int
    urisk: float
    se: float
    se_method: str
    alpha: float
    level: float
    critical: float
    reason: str | None = None

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    @property
    def significant(self) -> bool:
        """``|TRisk| > critical`` (two-sided test at ``level``)."""
        return bool(abs(self.statistic) > self.critical)

    def confidence_interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Student-t confidence interval for URisk: ``URisk ± t(1 − (1−cl)/2, df) · SE``."""
        half = stats.t.ppf(0.5 + confidence_level / 2, self.df) * self.se
        return (self.urisk - half, self.urisk + half)

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of every field."""
        return pd.DataFrame([asdict(self)])


@dataclass(frozen=True)
class RiskReward:
    """Gain/risk summary of one system against a baseline (SPEC §1; dincer2016 Table 7).

    ``frisk``/``freward`` are the mean per-topic loss/gain, ``ugain = freward − frisk`` the mean
    difference; ``wins``/``losses``/``ties`` count topics with δ > 0, < 0, = 0; ``loss20`` counts
    topics where the system loses more than 20% of the baseline's score; ``reward_risk`` is
    FReward/FRisk and ``win_loss`` wins/losses (inf when the denominator is 0 and the numerator is
    not, NaN when both are 0).
    """

    frisk: float
    freward: float
    ugain: float
    wins: int
    losses: int
    ties: int
    loss20: int
    reward_risk: float
    win_loss: float
    n_topics: int

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of every field."""
        return pd.DataFrame([asdict(self)])


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den with x/0 = inf for x > 0 and 0/0 = NaN, without warnings."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return num / den
