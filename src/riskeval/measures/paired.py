"""One system against one baseline: URisk, TRisk, the risk/reward summary and the per-topic
exploratory analysis (Dinçer, Macdonald & Ounis, SIGIR 2014, §2–5).

``system`` and ``baseline`` are per-topic scores: two pandas Series indexed by topic (aligned by
label; both must cover the same topics) or two 1-D vectors of equal length.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from riskeval.core import paired as kern
from riskeval.core.baselines import loo_mean
from riskeval.core.corrections import adjust_pvalues
from riskeval.core.pvalues import t_pvalue
from riskeval.measures.baselines import as_pair
from riskeval.measures.declared import TRisk, URisk
from riskeval.measures.results import RiskReward, TRiskResult
from riskeval.options import ALTERNATIVES, SE_METHODS, check_alpha, check_level, check_option
from riskeval.settings import RiskSettings, resolve_settings


def urisk(system: Any, baseline: Any, alpha: float = 1.0) -> float:
    """URisk(α) = (1/c) Σ_j x_j, with x_j = δ_j if δ_j ≥ 0 else (1+α)δ_j (eq. 3–4).

    Equals ``UGain − α·FRisk``; α = 0 gives the mean difference (UGain).
    """
    func = urisk.__name__
    alpha = check_alpha(alpha, func)
    s, b, _ = as_pair(system, baseline, func)
    # the sums and formula of riskeval.risk_table: the same bits
    return float(URisk().value(kern.paired_sums(s[None, :], b), alpha)[0])


def trisk(
    system: Any,
    baseline: Any,
    alpha: float = 1.0,
    *,
    se: str = "parametric",
    level: float = 0.05,
    alternative: str = "two-sided",
) -> TRiskResult:
    """TRisk = URisk/SE, a Student t statistic with ``df = c − 1`` (eq. 7–13, 16–18).

    ``se="parametric"``: ``s_x/√c`` (eq. 12); ``se="jackknife"``: computed from the leave-one-out
    URisk values (eq. 17–18), which for a mean equals the parametric SE.  At α = 0 the statistic is
    TGain, the paired t statistic of :func:`scipy.stats.ttest_rel`.  ``alternative``:
    ``"two-sided"``, ``"less"`` (the system loses to the baseline: URisk < 0) or ``"greater"``, the
    alternative hypothesis of the p-value as in :func:`scipy.stats.ttest_rel`.  ``level`` is the
    significance level of ``critical`` (``t(1 − level/2, df)``, one-sided ``t(1 − level, df)``).
    When the SE is 0 (the system equals the baseline, or every per-topic score is the same) the
    statistic and p-value are NaN and ``reason`` says why.
    """
    func = trisk.__name__
    alpha = check_alpha(alpha, func)
    se = check_option(se, SE_METHODS, func, "se")
    level = check_level(level, func)
    alternative = check_option(alternative, ALTERNATIVES, func, "alternative")
    s, b, topics = as_pair(system, baseline, func)
    x = kern.risk_scores(s - b, alpha)
    c = x.size
    # URisk and TRisk from the sums and formulas of riskeval.risk_table: the same bits, and the
    # one rule of an undefined TRisk (kern.trisk_from)
    sums = kern.paired_sums(s[None, :], b)
    u = float(URisk().value(sums, alpha)[0])
    t = float(TRisk().value(sums, alpha)[0])
    err = float(kern.jackknife_se(x)) if se == "jackknife" else float(kern.standard_error(sums, alpha)[0][0])
    jack = _jackknife_fields(x, u, topics) if se == "jackknife" else {}
    df = c - 1
    critical = float(stdtrit(df, 1 - (level / 2 if alternative == "two-sided" else level)))
    if not np.isnan(t):
        t = u / err if se == "jackknife" else t
        p = float(t_pvalue(t, df, alternative))
        return TRiskResult(t, p, df, u, err, se, alpha, level, critical, alternative=alternative, **jack)
    reason = (
        "the system equals the baseline on every topic"
        if np.all(s == b)
        else "every topic has the same risk-reward score (zero variance, up to rounding)"
    )
    return TRiskResult(
        np.nan, np.nan, df, u, err, se, alpha, level, critical, reason, alternative=alternative, **jack
    )


def _jackknife_fields(x: np.ndarray, u: float, topics: pd.Index) -> dict[str, Any]:
    """Leave-one-out URisk θ₍ⱼ₎, pseudo-values c·θ̂ − (c − 1)·θ₍ⱼ₎, biasJ = (c − 1)(θ₍.₎ − θ̂) and
    θ̂ − biasJ (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 14–15 and §3.2)."""
    c = x.size
    theta = loo_mean(x.sum(), x, c)
    bias = float((c - 1) * (theta.mean() - u))
    return {
        "leave_one_out": pd.Series(theta, index=topics, name="leave_one_out"),
        "pseudo_values": pd.Series(c * u - (c - 1) * theta, index=topics, name="pseudo_value"),
        "bias": bias,
        "bias_corrected": u - bias,
    }


def risk_reward(system: Any, baseline: Any) -> RiskReward:
    """FRisk, FReward, UGain, wins/losses/ties, Loss>20%, Reward/Risk and W/L of one system against
    a baseline (Dinçer, Macdonald & Ounis, SIGIR 2014, §3; SIGIR 2016, Table 7)."""
    s, b, _ = as_pair(system, baseline, "risk_reward")
    rr = kern.risk_reward_sums(kern.paired_sums(s[None, :], b))
    return RiskReward(
        frisk=float(rr.frisk[0]),
        freward=float(rr.freward[0]),
        ugain=float(rr.ugain[0]),
        wins=int(rr.wins[0]),
        losses=int(rr.losses[0]),
        ties=int(rr.ties[0]),
        loss20=int(rr.loss20[0]),
        reward_risk=float(rr.reward_risk[0]),
        win_loss=float(rr.win_loss[0]),
        n_topics=s.size,
    )


def topic_risk(
    system: Any,
    baseline: Any,
    alpha: float = 1.0,
    *,
    settings: RiskSettings | None = None,
    level: float | None = None,
    correction: str | None = None,
    alternative: str = "two-sided",
) -> pd.DataFrame:
    """Per-topic exploratory analysis: which topics carry significant risk (Dinçer, Macdonald &
    Ounis, SIGIR 2014, §5, eq. 19–23).

    ``level`` and ``correction`` default to those of ``settings`` (0.05, none; ``"none"``
    overrides a correction of the settings); ``alternative`` is that of every topic's test:
    ``"two-sided"``, ``"less"`` (the topic is a loss, TR_j < 0) or ``"greater"``, as in
    :func:`scipy.stats.ttest_rel`.

    Returns
    -------
    DataFrame
        Indexed by topic; the settings are columns, so tables of several systems or α values
        concatenate without losing them:

        - ``system``, ``baseline``: names (the Series' names, else ``"system"``/``"baseline"``);
        - ``alpha``, ``level``, ``critical`` (``t(1 − level/2, c − 1)``; one-sided
          ``t(1 − level, c − 1)``), ``alternative`` (only when one-sided);
        - ``score``, ``baseline_score``, ``delta`` (δ_j), ``x`` (the risk-reward score, eq. 11);
        - ``tr``: TR_j = x_j/s_x (eq. 21); ``tj``: the standardised jackknife influence;
        - ``pvalue``: Student t with c − 1 degrees of freedom, from ``tr``, under ``alternative``;
        - ``pvalue_adj`` (only with a ``correction``: ``"holm"``, ``"bh"`` or ``"bonferroni"``
          across the topics);
        - ``significant`` (bool): ``|tr| > critical`` (one-sided: ``tr < −critical`` for
          "less", ``tr > critical`` for "greater"), or ``pvalue_adj < level`` with a
          correction.  The sign of ``tr`` says whether it is a loss (< 0) or a win (> 0).

    Notes
    -----
    ``tj``: eq. 23 as printed divides by SE_J and flips the sign, which contradicts the paper's
    statement that TR_j and TJ_j agree; riskeval uses ``TJ_j = (c−1)(θ̂ − θ_(j)) / (√c·SE_J) =
    (x_j − x̄)/s_x``, so that a significant loss is ``TJ_j < −critical``.  The per-topic tests are
    exploratory: c of them are made at once, hence the optional correction.
    """
    alpha = check_alpha(alpha, "topic_risk")
    st = resolve_settings(settings, "topic_risk", level=level, correction=correction)
    level, correction = st.level, st.correction
    alternative = check_option(alternative, ALTERNATIVES, "topic_risk", "alternative")
    s, b, topics = as_pair(system, baseline, "topic_risk")
    x = kern.risk_scores(s - b, alpha)
    c = x.size
    sx = x.std(ddof=1)
    if np.isnan(TRisk().value(kern.paired_sums(s[None, :], b), alpha)[0]):  # the one rule
        tr = tj = np.full(c, np.nan)  # no spread beyond rounding: nothing to standardise by
    else:
        theta = loo_mean(x.sum(), x, c)
        tr = x / sx
        tj = (c - 1) * (x.mean() - theta) / (np.sqrt(c) * kern.jackknife_se(x))
    df = c - 1
    critical = float(stdtrit(df, 1 - (level / 2 if alternative == "two-sided" else level)))
    pvalue = t_pvalue(tr, df, alternative)
    out = pd.DataFrame(
        {
            "system": _name(system, "system"),
            "baseline": _name(baseline, "baseline"),
            "alpha": alpha,
            "level": level,
            "critical": critical,
            "score": s,
            "baseline_score": b,
            "delta": s - b,
            "x": x,
            "tr": tr,
            "tj": tj,
            "pvalue": pvalue,
        },
        index=topics,
    )
    if alternative != "two-sided":
        out.insert(out.columns.get_loc("critical") + 1, "alternative", alternative)
    if correction is None:
        signed = {"two-sided": np.abs(tr), "greater": tr, "less": -tr}[alternative]
        out["significant"] = signed > critical
    else:
        out["pvalue_adj"] = adjust_pvalues(pvalue, correction)
        out["significant"] = out["pvalue_adj"].to_numpy() < level
    return out


def _name(v: Any, default: str) -> str:
    name = getattr(v, "name", None)
    return default if name is None else str(name)
