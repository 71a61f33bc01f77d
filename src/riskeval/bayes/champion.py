"""One champion, many challengers: the Bayesian risk analysis of Benham, Carterette, Culpepper &
Moffat (SIGIR 2020), with losses against the champion weighted by (1 + α) before the model is fitted.

The risk-adjusted score of system i on topic j is the champion's score plus URisk's per-topic
difference (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1), which weights a loss by (1 + α)::

    y'_ij = b_j + (x_ij − b_j)            if x_ij ≥ b_j
    y'_ij = b_j + (1 + α)·(x_ij − b_j)    otherwise

where b_j is the champion's score on topic j.  The champion keeps its scores; at α = 0 every score
is unchanged.  The difference of a system's effect from the champion's then estimates the mean
per-topic URisk difference.  Three models answer: the gains-and-losses model
(:mod:`riskeval.bayes.gainloss`, the default) and the paired model (:mod:`riskeval.bayes.paired`),
both of each system's per-topic differences from the champion, and the crossed model of the paper
(:func:`riskeval.bayes.fit`), of the scores, which assumes a challenger's and the champion's
scores vary independently once topic difficulty is taken out: wrong for a variant of the
champion, whose interval it makes far too wide.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval import _display
from riskeval.bayes import gainloss, paired
from riskeval.bayes.model import Priors
from riskeval.bayes.posterior import (
    BayesDiagnosticWarning,
    BayesFit,
    as_scores,
    checked_settings,
    checks_failed,
    fit,
    named_systems,
)
from riskeval.errors import RiskevalError
from riskeval.inference._common import resolve_rng
from riskeval.options import check_alpha

#: The models :func:`champion_challengers` fits (``model=``), the default first.
MODELS = ("gainloss", "paired", "crossed")
#: the columns of :attr:`ChampionComparison.table`
COLUMNS = (
    "system",
    "alpha",
    "model",
    "role",
    "effect_mean",
    "effect_median",
    "effect_low",
    "effect_high",
    "diff_mean",
    "diff_low",
    "diff_high",
    "p_better",
    "p_better_margin",
)


def risk_adjusted(scores: Any, champion: Any, alpha: float) -> pd.DataFrame:
    """The scores with every loss against ``champion`` weighted by (1 + α) (see the module)."""
    matrix = as_scores(scores)
    alpha = _check_alpha(alpha, "risk_adjusted")
    if champion not in set(matrix.index):
        raise RiskevalError(f"The champion {champion!r} is not one of the systems.")
    base = matrix.loc[champion].to_numpy()
    delta = matrix.to_numpy() - base
    adjusted = base + np.where(delta < 0, (1 + alpha) * delta, delta)
    return pd.DataFrame(adjusted, index=matrix.index, columns=matrix.columns)


@dataclass(frozen=True, eq=False)
class ChampionComparison:
    """The challengers against the champion at each α.

    Attributes
    ----------
    table : DataFrame
        One row per system (champion first, then the challengers) and α; columns ``system, alpha,
        model`` (which model answered), ``role, effect_mean, effect_median, effect_low,
        effect_high`` (the system's effect and its credible interval: in the gains-and-losses and
        paired models its expected difference from the champion, 0 for the champion) and, for challengers,
        ``diff_mean, diff_low, diff_high`` (the effect minus the champion's), ``p_better`` (the
        posterior probability that the difference is above 0) and ``p_better_margin`` (above
        ``margin``); the champion's are NaN.
    fits : dict
        α -> the fit of the risk-adjusted scores: a
        :class:`riskeval.bayes.gainloss.GainLossFit`, a :class:`riskeval.bayes.paired.PairedFit`
        or (crossed model) a :class:`BayesFit`.
    seed : int
        The seed that reproduces every fit (pass it back as ``rng``).
    """

    table: pd.DataFrame
    fits: dict[float, BayesFit]
    champion: Any
    challengers: tuple[Any, ...]
    level: float
    margin: float
    seed: int
    model: str = "gainloss"

    def problems(self) -> list[str]:
        """The sampling checks failed by any fit, each prefixed by its α."""
        return [f"α = {alpha:g}: {text}" for alpha, f in self.fits.items() for text in f.problems()]

    def p_better(self) -> pd.DataFrame:
        """The probability of beating the champion, challengers × α."""
        rows = self.table[self.table["role"] == "challenger"]
        return rows.pivot(index="system", columns="alpha", values="p_better").loc[list(self.challengers)]

    def _facts(self) -> list[str]:
        alphas = ", ".join(f"{a:g}" for a in self.fits)
        return [
            f"champion {self.champion}",
            f"{len(self.challengers)} challenger{'' if len(self.challengers) == 1 else 's'}",
            f"α = {alphas}",
            f"level {self.level:g}, margin {self.margin:g}",
            f"seed {self.seed}",
        ]

    def __repr__(self) -> str:
        return f"<ChampionComparison: {'; '.join(self._facts())}>"

    def _repr_html_(self) -> str:
        rows = self.table[self.table["role"] == "challenger"].drop(columns="role")
        found = self.problems()
        return _display.block(
            "Champion against challengers",
            self._facts(),
            [("Each challenger's difference from the champion", rows.set_index(["system", "alpha"]))],
            note=(f"{len(found)} failed sampling check(s): see problems(). " if found else "")
            + "table holds every column; p_better() the probabilities, challengers × α.",
        )


def champion_challengers(
    scores: Any,
    champion: Any,
    challengers: Any = None,
    *,
    alphas: Any = (0.0,),
    level: float = 0.95,
    margin: float = 0.0,
    model: str = "gainloss",
    priors: Priors | None = None,
    chains: int = 4,
    draws: int = 4_000,
    warmup: int = 1_000,
    target_accept: float = 0.9,
    rng: Any = None,
    progress: bool = False,
    sampler: str = "exact",
) -> ChampionComparison:
    """Which challengers beat the champion, and with what probability, at each risk weight α
    (Benham, Carterette, Culpepper & Moffat, SIGIR 2020).

    Every system of ``scores`` is fitted: the ones that are neither champion nor challenger
    (earlier runs, official campaign runs) inform the model about the champion's per-topic luck
    and the spread of system effects.  For each α the scores are risk-adjusted against the
    champion (:func:`risk_adjusted`) and the model fitted again.

    Parameters
    ----------
    scores : DataFrame or anything :func:`riskeval.score_matrix` reads
        Systems × topics, complete.
    champion
        The system in production.
    challengers : list, optional
        The systems that could replace it; default every other system.
    alphas : float or list of float
        The risk weights (α = 0: no adjustment).
    level : float
        The level of the credible intervals (equal-tailed).
    margin : float
        The smallest difference that matters: ``p_better_margin`` is the probability of beating
        the champion by more.
    model : {"gainloss", "paired", "crossed"}
        ``"gainloss"`` (default): each system's risk-adjusted per-topic differences from the
        champion as shares of gains, ties and losses and the mean size of each
        (:mod:`riskeval.bayes.gainloss`), with ``chains × draws`` independent exact draws; right
        whether a challenger is a variant of the champion or an unrelated run, and at large α,
        where the differences are skewed.  ``"paired"``: a Gaussian model of the differences
        with a topic effect shared by every system and partially pooled effects and scales
        (:mod:`riskeval.bayes.paired`, NUTS); ``"crossed"``: the paper's ``score ~ (1 | topic) +
        (1 | system)`` (:func:`fit`), which treats their scores as independent given topic
        difficulty.  ``priors`` resolve on the differences in the paired model; the
        gains-and-losses model has fixed (Jeffreys) priors, refuses ``priors`` and does not use
        ``warmup``, ``target_accept`` or ``progress``.
    priors, chains, draws, warmup, target_accept, progress
        As for :func:`fit`; a failed sampling check of any α's fit is one
        :class:`BayesDiagnosticWarning` naming the α.
    rng : int, numpy Generator or None
        The seed; each α's fit gets its own seed drawn from it.

    Returns
    -------
    ChampionComparison
    """
    matrix = as_scores(scores)
    if champion not in set(matrix.index):
        raise RiskevalError(f"The champion {champion!r} is not one of the systems.")
    names = tuple(named_systems(matrix.index, champion, challengers))
    grid = _alphas(alphas)
    _, seed = resolve_rng(rng, "champion_challengers")
    seeds = np.random.SeedSequence(seed).generate_state(len(grid), dtype=np.uint64)
    fits: dict[float, BayesFit] = {}
    rows: list[pd.DataFrame] = []
    if model not in MODELS:
        raise RiskevalError(
            f"The 'model' parameter of champion_challengers must be one of {MODELS}; got {model!r}."
        )
    if model == "gainloss" and priors is not None:
        raise RiskevalError(
            "The gains-and-losses model (model='gainloss') has fixed Jeffreys priors; 'priors' "
            "applies to model='paired' or 'crossed'."
        )
    priors = checked_settings(priors, chains, draws, target_accept, warmup)
    settings: dict[str, Any] = {
        "chains": int(chains),
        "draws": int(draws),
        "warmup": int(warmup),
        "target_accept": float(target_accept),
    }
    for alpha, alpha_seed in zip(grid, seeds, strict=True):
        adjusted = risk_adjusted(matrix, champion, alpha) if alpha else matrix
        if model == "gainloss":
            fitted: BayesFit = gainloss.fit(
                adjusted, champion, draws=int(chains) * int(draws), seed=int(alpha_seed)
            )
        elif model == "paired":
            fitted = paired.fit(
                adjusted, champion, priors, seed=int(alpha_seed), progress=progress, **settings
            )
        else:
            fitted = fit(
                adjusted,
                priors=priors,
                rng=int(alpha_seed),
                progress=progress,
                check=False,
                sampler=sampler,
                **settings,
            )
        fits[alpha] = fitted
        effects = fitted.system_effects(level).loc[[champion, *names]]
        part = pd.DataFrame(
            {
                "system": effects.index,
                "alpha": alpha,
                "model": model,
                "role": ["champion"] + ["challenger"] * len(names),
                "effect_mean": effects["mean"].to_numpy(),
                "effect_median": effects["median"].to_numpy(),
                "effect_low": effects["low"].to_numpy(),
                "effect_high": effects["high"].to_numpy(),
            }
        )
        diffs = fitted.compare(champion, list(names), margin=margin, level=level)
        for column in ("diff_mean", "diff_low", "diff_high", "p_better", "p_better_margin"):
            part[column] = np.concatenate([[np.nan], diffs[column].to_numpy()])
        rows.append(part)
    table = pd.concat(rows, ignore_index=True)[list(COLUMNS)]
    result = ChampionComparison(table, fits, champion, names, float(level), float(margin), seed, model)
    found = result.problems()
    if found:
        warnings.warn(checks_failed(found), BayesDiagnosticWarning, stacklevel=2)
    return result


def _alphas(alphas: Any) -> list[float]:
    values = [alphas] if np.isscalar(alphas) else list(alphas)
    if not values:
        raise RiskevalError("The 'alphas' parameter of champion_challengers needs at least one α.")
    grid = [_check_alpha(a, "champion_challengers") for a in values]
    if len(set(grid)) != len(grid):
        raise RiskevalError(f"The 'alphas' of champion_challengers repeat a value: {values}.")
    return grid


def _check_alpha(alpha: Any, func: str) -> float:
    """α as every risk measure takes it (:func:`riskeval.options.check_alpha`), and a number, not text."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise RiskevalError(f"α of {func} must be a number >= 0; got {alpha!r}.")
    return check_alpha(alpha, func)
