"""One champion, many challengers: the Bayesian risk analysis of Benham, Carterette, Culpepper &
Moffat (SIGIR 2020), with losses against the champion weighted by (1 + α) before the model is fitted.

The risk-adjusted score of system i on topic j is the champion's score plus URisk's per-topic
difference (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1), which weights a loss by (1 + α)::

    y'_ij = b_j + (x_ij − b_j)            if x_ij ≥ b_j
    y'_ij = b_j + (1 + α)·(x_ij − b_j)    otherwise

where b_j is the champion's score on topic j.  The champion keeps its scores; at α = 0 every score
is unchanged.  The difference of a system's effect from the champion's then estimates the mean
per-topic URisk difference, with topic difficulty learned from every system fitted.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval import _display
from riskeval.bayes.model import Priors
from riskeval.bayes.posterior import (
    BayesDiagnosticWarning,
    BayesFit,
    as_scores,
    checks_failed,
    fit,
    named_systems,
)
from riskeval.errors import RiskevalError
from riskeval.inference._common import resolve_rng
from riskeval.options import check_alpha

#: the columns of :attr:`ChampionComparison.table`
COLUMNS = (
    "system",
    "alpha",
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
        role, effect_mean, effect_median, effect_low, effect_high`` (the system's effect and its
        credible interval) and, for challengers, ``diff_mean, diff_low, diff_high`` (the effect
        minus the champion's), ``p_better`` (the posterior probability that the difference is
        above 0) and ``p_better_margin`` (above ``margin``); the champion's are NaN.
    fits : dict
        α -> :class:`BayesFit` of the risk-adjusted scores.
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
    (earlier runs, official campaign runs) inform the model about topic difficulty and the spread of
    system effects.  For each α the scores are risk-adjusted against the champion
    (:func:`risk_adjusted`) and the model fitted again (:func:`fit`).

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
    priors, chains, draws, warmup, target_accept, progress, sampler
        As for :func:`fit` (by default independent exact draws); a failed sampling check of any α's fit is one
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
    for alpha, alpha_seed in zip(grid, seeds, strict=True):
        model = fit(
            risk_adjusted(matrix, champion, alpha) if alpha else matrix,
            priors=priors,
            chains=chains,
            draws=draws,
            warmup=warmup,
            target_accept=target_accept,
            rng=int(alpha_seed),
            progress=progress,
            check=False,
            sampler=sampler,
        )
        fits[alpha] = model
        effects = model.system_effects(level).loc[[champion, *names]]
        part = pd.DataFrame(
            {
                "system": effects.index,
                "alpha": alpha,
                "role": ["champion"] + ["challenger"] * len(names),
                "effect_mean": effects["mean"].to_numpy(),
                "effect_median": effects["median"].to_numpy(),
                "effect_low": effects["low"].to_numpy(),
                "effect_high": effects["high"].to_numpy(),
            }
        )
        diffs = model.compare(champion, list(names), margin=margin, level=level)
        for column in ("diff_mean", "diff_low", "diff_high", "p_better", "p_better_margin"):
            part[column] = np.concatenate([[np.nan], diffs[column].to_numpy()])
        rows.append(part)
    table = pd.concat(rows, ignore_index=True)[list(COLUMNS)]
    result = ChampionComparison(table, fits, champion, names, float(level), float(margin), seed)
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
