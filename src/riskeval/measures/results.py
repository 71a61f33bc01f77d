"""Result objects, in the style of :mod:`scipy.stats`.

A test result has the named fields ``statistic`` and ``pvalue`` first and unpacks like a tuple of
those two (``statistic, pvalue = rk.trisk(s, b)``), as :class:`scipy.stats.TtestResult` does; the
other fields are attributes only.  Where an interval is defined, ``confidence_interval(level)``
returns a :class:`ConfidenceInterval` ``(low, high)``.  Every result has ``to_frame()``, a one-row
DataFrame of its fields.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from numbers import Number
from typing import NamedTuple

import pandas as pd
from scipy.special import stdtrit

from riskeval import _display
from riskeval.options import check_level


class ConfidenceInterval(NamedTuple):
    """A two-sided interval, as :mod:`scipy.stats` returns: ``low, high = ci``."""

    low: float
    high: float


@dataclass(frozen=True)
class TestResult:
    """Base of the hypothesis-test results: ``statistic`` and ``pvalue``, unpacking as a pair.

    Subclasses add their own fields (all documented on the subclass) after these two.
    """

    __test__ = False  # not a pytest test class, despite the name

    statistic: float
    pvalue: float

    def __iter__(self) -> Iterator[float]:
        return iter((self.statistic, self.pvalue))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> float:
        return (self.statistic, self.pvalue)[i]

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of every field."""
        return pd.DataFrame([asdict(self)])

    def __repr__(self) -> str:
        """One line: the fields shown in ``repr``, numbers to 4 significant digits (the attributes
        hold them whole).  Subclasses are declared with ``repr=False`` to keep this one."""
        shown = ", ".join(f"{f.name}={_short(getattr(self, f.name))}" for f in fields(self) if f.repr)
        return f"{type(self).__name__}({shown})"

    def _repr_html_(self) -> str:
        """The fields shown by ``repr`` (numbers, text, flags), one row each."""
        shown = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.repr and (getattr(self, f.name) is None or isinstance(getattr(self, f.name), (Number, str)))
        }
        return _display.fields(type(self).__name__, shown)


def _short(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else repr(value)


@dataclass(frozen=True, repr=False)
class TRiskResult(TestResult):
    """TRisk of one system against a baseline (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–13).

    Attributes
    ----------
    statistic : float
        TRisk = URisk/SE; at α = 0 it is TGain, the paired t statistic of
        :func:`scipy.stats.ttest_rel`.  NaN when the SE is 0 (see ``reason``).
    pvalue : float
        p-value from Student's t with ``df`` degrees of freedom under ``alternative``.
    df : int
        Degrees of freedom, c − 1 for c topics.
    urisk : float
        URisk(α), the mean per-topic risk-reward score (eq. 4).
    se : float
        Standard error of URisk.
    se_method : {"parametric", "jackknife"}
        How ``se`` was computed (eq. 8, or eq. 17–18).
    alpha : float
        The risk-aversion parameter α.
    level : float
        Significance level of ``critical`` and ``significant``.
    critical : float
        ``t(1 − level/2, df)``: ``|statistic| > critical`` is significant at ``level``; one-sided,
        ``t(1 − level, df)``.
    reason : str or None
        Why ``statistic`` is NaN (e.g. the system is the baseline), else None.
    leave_one_out, pseudo_values : Series or None
        With ``se_method="jackknife"``, by topic: θ₍ⱼ₎, URisk with topic j left out (eq. 15), and
        Tukey's pseudo-values θ̃₍ⱼ₎ = c·θ̂ − (c − 1)·θ₍ⱼ₎, whose mean is the bias-reduced estimate
        and whose variance / c is varJ (§3.2).  For URisk, a mean, θ̃₍ⱼ₎ is the topic's risk-reward
        score x_j.  None otherwise.
    bias, bias_corrected : float or None
        With ``se_method="jackknife"``: the jackknife estimate of the bias of URisk (eq. 14 and
        §3.2), biasJ = (c − 1)(θ₍.₎ − θ̂), and θ̂ − biasJ.  A mean is unbiased, so biasJ is 0 up to
        rounding and the corrected value is URisk.  None otherwise.
    alternative : {"two-sided", "less", "greater"}
        The alternative hypothesis of ``pvalue``, ``significant`` and the interval, as in
        :func:`scipy.stats.ttest_rel` ("less": URisk < 0, the system loses to its baseline).

    Notes
    -----
    The jackknife fields come after the others and are not compared or shown in ``repr``; the
    result still unpacks as ``(statistic, pvalue)``.
    """

    df: int
    urisk: float
    se: float
    se_method: str
    alpha: float
    level: float
    critical: float
    reason: str | None = None
    leave_one_out: pd.Series | None = field(default=None, compare=False, repr=False)
    pseudo_values: pd.Series | None = field(default=None, compare=False, repr=False)
    bias: float | None = None
    bias_corrected: float | None = None
    alternative: str = "two-sided"

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of every field but the per-topic ``leave_one_out`` and
        ``pseudo_values``."""
        row = asdict(self)
        del row["leave_one_out"], row["pseudo_values"]
        return pd.DataFrame([row])

    @property
    def significant(self) -> bool:
        """``|TRisk| > critical`` (two-sided test at ``level``; one-sided: ``TRisk < −critical``
        for "less", ``TRisk > critical`` for "greater"); False when TRisk is NaN."""
        signed = {"less": -self.statistic, "greater": self.statistic}.get(
            self.alternative, abs(self.statistic)
        )
        return bool(signed > self.critical)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Student-t interval for URisk: ``URisk ± t(1 − (1 − cl)/2, df) · SE``; one-sided, as
        :meth:`scipy.stats.TtestResult.confidence_interval`, ``(−inf, URisk + t(cl, df) · SE]``
        for "less" and ``[URisk − t(cl, df) · SE, +inf)`` for "greater"."""
        cl = check_level(confidence_level, "confidence_interval", "confidence_level")
        if self.alternative == "two-sided":
            half = float(stdtrit(self.df, 0.5 + cl / 2)) * self.se
            return ConfidenceInterval(self.urisk - half, self.urisk + half)
        reach = float(stdtrit(self.df, cl)) * self.se
        if self.alternative == "less":
            return ConfidenceInterval(-math.inf, self.urisk + reach)
        return ConfidenceInterval(self.urisk - reach, math.inf)


@dataclass(frozen=True)
class RiskReward:
    """Gain/risk summary of one system against a baseline (Dinçer, Macdonald & Ounis, SIGIR 2014,
    §3; SIGIR 2016, Table 7).

    Attributes
    ----------
    frisk, freward : float
        Mean per-topic loss and gain (FRisk, FReward).
    ugain : float
        ``freward − frisk``, the mean difference.
    wins, losses, ties : int
        Topics with δ > 0, δ < 0, δ = 0.
    loss20 : int
        Topics where the system loses more than 20 % of the baseline's score (b − s > 0.2·b).
    reward_risk : float
        FReward/FRisk (inf when FRisk = 0 < FReward, NaN when both are 0).
    win_loss : float
        wins/losses, with the same conventions.
    n_topics : int
        Number of topics c.
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
