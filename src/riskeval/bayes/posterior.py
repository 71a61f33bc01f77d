"""Fitting the crossed random-effects model to a score matrix, and what the posterior says: system
and topic effects, variance components, differences between systems, and the sampling checks of
Benham, Carterette, Culpepper & Moffat (SIGIR 2020, §4.1).

A system's *effect* is its deviation from the global intercept, rstanarm's
``b[(Intercept) system:NAME]``; a difference of two effects is the difference of the two systems'
expected scores on any topic.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskeval import _display
from riskeval._optional import require
from riskeval.bayes import exact
from riskeval.bayes.model import FEATURE, Priors, sample
from riskeval.errors import RiskevalError, RiskevalWarning
from riskeval.inference._common import resolve_rng
from riskeval.io.inputs import score_matrix
from riskeval.model.matrix import as_matrix

#: The authors' sampling checks: every system effect with R-hat below 1.01 and bulk ESS above
#: 10,000, every topic effect with R-hat below 1.01 and bulk ESS above 1,000 (their
#: ``R/sanity_checks.R``; Benham et al., SIGIR 2020).
MAX_RHAT = 1.01
MIN_ESS_SYSTEM = 10_000
MIN_ESS_TOPIC = 1_000
#: Most draws in all chains together (memory: draws × (systems + topics) float64 numbers).
MAX_DRAWS = 10_000_000
#: The samplers of :func:`fit`: independent exact draws (:mod:`riskeval.bayes.exact`) or NumPyro's
#: No-U-Turn sampler (:mod:`riskeval.bayes.model`).
SAMPLERS = ("exact", "nuts")
#: The variables drawn, as :attr:`BayesFit.samples` holds them.
VARIABLES = ("intercept", "sigma", "sd_system", "sd_topic", "b_system", "b_topic")


class BayesDiagnosticWarning(RiskevalWarning):
    """The posterior draws fail a sampling check (R-hat, effective sample size, divergences)."""


@dataclass(frozen=True, eq=False)
class BayesFit:
    """The posterior of ``score ~ (1 | topic) + (1 | system)`` for one score matrix.

    Attributes
    ----------
    scores : DataFrame
        The scores fitted (systems × topics).
    samples : dict
        The posterior draws, ``{name: array[chain, draw, ...]}``: ``intercept``, ``sigma``
        (residual SD), ``sd_system``, ``sd_topic``, ``b_system`` (one column per system) and
        ``b_topic`` (one per topic).  The exact sampler's draws are one sequence of independent
        draws (one "chain").
    priors : dict
        The priors' numbers used (see :class:`Priors`).
    divergences : int
        Divergent transitions after warm-up (each one a sign the sampler missed part of the
        posterior); 0 for the exact sampler, which has none.
    seed : int
        The seed that reproduces the draws (pass it back as ``rng``).
    sampler : str
        Which sampler answered: ``"exact"`` (independent draws, :mod:`riskeval.bayes.exact`) or
        ``"nuts"`` (NumPyro's No-U-Turn sampler, :mod:`riskeval.bayes.model`).
    """

    #: The model fitted (:func:`riskeval.bayes.champion_challengers`' ``model``).
    model = "crossed"

    scores: pd.DataFrame
    samples: dict[str, np.ndarray] = field(repr=False)
    priors: dict[str, float]
    divergences: int
    seed: int
    sampler: str

    @functools.cached_property
    def idata(self) -> Any:
        """The draws as an ArviZ ``InferenceData`` (dimensions ``system`` and ``topic``), built on
        first use."""
        az = require("arviz", FEATURE)
        return az.from_dict(
            posterior=dict(self.samples),
            coords={"system": list(self.systems), "topic": list(self.topics)},
            dims={"b_system": ["system"], "b_topic": ["topic"]},
        )

    @property
    def systems(self) -> pd.Index:
        return self.scores.index

    @property
    def topics(self) -> pd.Index:
        return self.scores.columns

    def draws(self, name: str) -> np.ndarray:
        """All draws of a posterior variable, chains concatenated (``[draws, ...]``)."""
        values = self.samples[name]
        return values.reshape(-1, *values.shape[2:])

    def system_draws(self, system: Any) -> np.ndarray:
        """The draws of one system's effect."""
        return self.draws("b_system")[:, self._position(system)]

    def difference(self, system: Any, other: Any) -> np.ndarray:
        """The draws of ``effect(system) − effect(other)``."""
        return self.system_draws(system) - self.system_draws(other)

    def system_effects(self, level: float = 0.95) -> pd.DataFrame:
        """Each system's effect: posterior mean, median, SD and the equal-tailed credible interval
        at ``level`` (columns ``mean, median, sd, low, high``; index ``system``)."""
        return _summary(self.draws("b_system"), self.systems, level, "system_effects")

    def topic_effects(self, level: float = 0.95) -> pd.DataFrame:
        """Each topic's effect (its deviation from the intercept), as :meth:`system_effects`."""
        return _summary(self.draws("b_topic"), self.topics, level, "topic_effects")

    def variance_components(self, level: float = 0.95) -> pd.DataFrame:
        """The standard deviations of the system effects, the topic effects and the residual
        (rows ``system, topic, residual``), summarised as :meth:`system_effects`."""
        stacked = np.column_stack([self.draws("sd_system"), self.draws("sd_topic"), self.draws("sigma")])
        labels = pd.Index(["system", "topic", "residual"], name="component")
        return _summary(stacked, labels, level, "variance_components")

    def diagnostics(self) -> pd.DataFrame:
        """R-hat and bulk and tail effective sample sizes of every parameter (Vehtari, Gelman,
        Simpson, Carpenter & Bürkner, *Bayesian Analysis* 16(2), 2021, via ArviZ): columns
        ``group, name, rhat, ess_bulk, ess_tail``, one row per parameter.

        The exact sampler's draws are independent: their effective sample size is the number of
        draws and R-hat, a comparison of chains, does not apply (NaN); no chains are pretended."""
        if self.sampler == "exact":
            count = float(self.samples["sigma"].size)
            rhat = {name: np.full(self.samples[name].shape[2:], np.nan) for name in VARIABLES}
            bulk = {name: np.full(self.samples[name].shape[2:], count) for name in VARIABLES}
            tail = bulk
        else:
            az = require("arviz", FEATURE)
            rhat = _values(az.rhat(self.idata))
            bulk = _values(az.ess(self.idata, method="bulk"))
            tail = _values(az.ess(self.idata, method="tail"))
        rows: list[pd.DataFrame] = []
        for name, group, labels in (
            ("intercept", "global", ["intercept"]),
            ("sigma", "global", ["sigma"]),
            ("sd_system", "global", ["sd_system"]),
            ("sd_topic", "global", ["sd_topic"]),
            ("b_system", "system", list(self.systems)),
            ("b_topic", "topic", list(self.topics)),
        ):
            rows.append(
                pd.DataFrame(
                    {
                        "group": group,
                        "name": labels,
                        "rhat": np.atleast_1d(rhat[name]),
                        "ess_bulk": np.atleast_1d(bulk[name]),
                        "ess_tail": np.atleast_1d(tail[name]),
                    }
                )
            )
        return pd.concat(rows, ignore_index=True)

    def problems(self) -> list[str]:
        """The sampling checks this posterior fails, as sentences (empty when all pass): R-hat
        below 1.01 everywhere, bulk ESS above 10,000 for system effects and above 1,000 for topic
        effects (Benham et al., SIGIR 2020), above 10,000 for the intercept and the three standard
        deviations too (the system effects' shrinkage and every interval depend on them), and no
        divergent transitions.  Independent draws (the exact sampler) have no R-hat to check."""
        return sampling_problems(
            self.diagnostics(),
            self.divergences,
            {
                "global": (MIN_ESS_SYSTEM, "intercept and standard deviation"),
                "system": (MIN_ESS_SYSTEM, "system effect"),
                "topic": (MIN_ESS_TOPIC, "topic effect"),
            },
            rhat=self.sampler != "exact",
        )

    def compare(
        self, champion: Any, challengers: Any = None, *, margin: float = 0.0, level: float = 0.95
    ) -> pd.DataFrame:
        """Each challenger against the champion: the posterior of ``effect(challenger) −
        effect(champion)`` and the probability that the challenger beats the champion (the
        difference is above 0) and beats it by more than ``margin`` (Benham et al., SIGIR 2020, §3).

        Returns
        -------
        DataFrame
            Index ``system`` (the challengers, default every system but the champion); columns
            ``diff_mean, diff_median, diff_low, diff_high, p_better, p_better_margin``.
        """
        self._position(champion)
        names = named_systems(self.systems, champion, challengers)
        return self._differences(names, lambda name: self.difference(name, champion), margin, level)

    def against(
        self, challenger: Any, champions: Any, *, margin: float = 0.0, level: float = 0.95
    ) -> pd.DataFrame:
        """One challenger against several earlier champions (the academic scenario of Benham et
        al., SIGIR 2020, §5.3): one row per champion, columns as :meth:`compare`."""
        self._position(challenger)
        names = named_systems(self.systems, challenger, champions)
        table = self._differences(names, lambda name: self.difference(challenger, name), margin, level)
        return table.rename_axis("champion")

    def p_beats_all(self, challenger: Any, champions: Any, *, margin: float = 0.0) -> float:
        """The posterior probability that ``challenger`` beats every one of ``champions`` at once
        (by more than ``margin``)."""
        names = named_systems(self.systems, challenger, champions)
        diffs = np.column_stack([self.difference(challenger, name) for name in names])
        return float(np.mean(np.all(diffs > _check_margin(margin), axis=1)))

    def _differences(self, names: list[Any], diff: Any, margin: float, level: float) -> pd.DataFrame:
        margin = _check_margin(margin)
        draws = np.column_stack([diff(name) for name in names])
        table = _summary(draws, pd.Index(names, name="system"), level, "compare")
        table = table.rename(columns=lambda c: f"diff_{c}").drop(columns="diff_sd")
        table["p_better"] = np.mean(draws > 0, axis=0)
        table["p_better_margin"] = np.mean(draws > margin, axis=0)
        return table

    def _position(self, system: Any) -> int:
        labels = list(self.systems)
        if system not in labels:
            shown = ", ".join(map(repr, labels[:8])) + (", ..." if len(labels) > 8 else "")
            raise RiskevalError(f"System {system!r} is not in the fitted scores; they hold {shown}.")
        return labels.index(system)

    def _drawn(self) -> str:
        shape = self.samples["b_system"].shape
        if self.sampler == "exact":
            return f"{shape[1]} independent exact draws"
        return f"{shape[0]} chains × {shape[1]} NUTS draws, {self.divergences} divergences"

    def __repr__(self) -> str:
        size = f"{len(self.systems)} systems × {len(self.topics)} topics"
        return f"BayesFit({size}, {self._drawn()}, seed={self.seed})"

    def _repr_html_(self) -> str:
        size = f"{len(self.systems)} systems × {len(self.topics)} topics"
        facts = [size, self._drawn(), f"seed {self.seed}"]
        effects = self.system_effects().sort_values("mean", ascending=False, kind="stable")
        return _display.block(
            f"Bayesian fit of the {self.model} model",
            facts,
            [
                ("Standard deviations, 95% credible intervals", self.variance_components()),
                ("System effects by posterior mean, 95% credible intervals", effects),
            ],
            note="problems() runs the sampling checks; compare() puts challengers against a champion.",
        )


def sampling_problems(
    table: pd.DataFrame, divergences: int, minimum: dict[str, tuple[int, str]], rhat: bool = True
) -> list[str]:
    """The sampling checks a posterior fails, as sentences, from its :meth:`BayesFit.diagnostics`
    table: R-hat below :data:`MAX_RHAT` everywhere (when ``rhat``), a bulk ESS above
    ``minimum[group][0]`` for every parameter of each group (named ``minimum[group][1]``), and no
    divergent transitions."""
    found: list[str] = []
    high = table[~(table["rhat"] < MAX_RHAT)]
    if rhat and len(high):
        found.append(
            f"R-hat is {high['rhat'].max():.3f} (≥ {MAX_RHAT}) for {len(high)} parameter(s), "
            f"e.g. {_quote(high)}: the chains disagree; draw more (draws=, warmup=)."
        )
    for group, (least, what) in minimum.items():
        part = table[table["group"] == group]
        low = part[~(part["ess_bulk"] > least)]
        if len(low):
            found.append(
                f"the bulk effective sample size of {len(low)} {what}(s) is below "
                f"{least:,} (lowest {low['ess_bulk'].min():,.0f}, e.g. {_quote(low)}): "
                "draw more (chains=, draws=)."
            )
    if divergences:
        found.append(
            f"{divergences} divergent transition(s): the sampler missed part of the "
            "posterior; raise target_accept (e.g. 0.99)."
        )
    return found


def fit(
    scores: Any,
    *,
    priors: Priors | None = None,
    chains: int = 4,
    draws: int = 4_000,
    warmup: int = 1_000,
    target_accept: float = 0.9,
    rng: Any = None,
    progress: bool = False,
    check: bool = True,
    sampler: str = "exact",
) -> BayesFit:
    """Fit ``score ~ (1 | topic) + (1 | system)`` to a score matrix (Benham, Carterette, Culpepper
    & Moffat, SIGIR 2020, §3): independent exact draws by default, or NumPyro's No-U-Turn sampler.

    Parameters
    ----------
    scores : DataFrame or anything :func:`riskeval.score_matrix` reads
        Systems × topics, complete (every system scored on every topic); a long table with
        ``system, topic, score`` columns is read by :func:`riskeval.score_matrix`.
    priors : Priors, optional
        Default rstanarm's ``stan_glmer`` priors scaled to the scores (see :class:`Priors`).
    chains, draws, warmup : int
        NUTS: chains (run vectorised in one program), draws kept per chain, and warm-up iterations
        per chain (adaptation of the step size and the diagonal mass matrix).  The defaults, 4 ×
        4,000, give bulk effective sample sizes above 10,000 for every system effect on 45 systems
        × 50 topics of AP.  The exact sampler makes ``chains × draws`` independent draws in one
        sequence (16,000 by default: that many effective draws of every parameter) and has no
        warm-up.
    target_accept : float
        The target acceptance probability of NUTS's step-size adaptation (rstanarm's
        ``adapt_delta``); higher is slower and safer.
    rng : int, numpy Generator or None
        The seed; the fit records it (``.seed``) and the same seed gives the same draws on any
        machine.
    progress : bool
        Show a progress bar on stderr that counts NUTS's iterations (warm-up and draws); it
        changes no draw.  The exact sampler shows none (it takes a fraction of a second on 45 ×
        50).
    check : bool
        Warn (:class:`BayesDiagnosticWarning`) when the draws fail the authors' checks
        (:meth:`BayesFit.problems`).
    sampler : {"exact", "nuts"}
        ``"exact"``: independent draws from the exact posterior, the variance components by
        rejection and the intercept and effects from their Gaussian conditionals
        (:mod:`riskeval.bayes.exact`), numpy only, with no compilation.  ``"nuts"``: NumPyro's
        No-U-Turn sampler (:mod:`riskeval.bayes.model`), compiled once per shape and setting.
        Both target the same posterior; ``BayesFit.sampler`` records which one answered.

    Returns
    -------
    BayesFit
    """
    matrix = as_scores(scores)
    priors = checked_settings(priors, chains, draws, target_accept, warmup)
    if sampler not in SAMPLERS:
        raise RiskevalError(
            f"The 'sampler' parameter of fit must be one of {', '.join(SAMPLERS)}; got {sampler!r}."
        )
    chains, draws, warmup = int(chains), int(draws), int(warmup)
    _, seed = resolve_rng(rng, "fit")
    # row-major whatever the frame's layout: the priors' scale and the sampler see the same bits
    values = np.ascontiguousarray(matrix.to_numpy(dtype=np.float64))
    resolved = priors.resolve(values)
    if sampler == "exact":
        by_chain, _ = exact.sample(values, resolved, draws=chains * draws, seed=seed)
        divergences = 0
    else:
        by_chain, divergences = sample(
            values,
            resolved,
            chains=chains,
            draws=draws,
            warmup=warmup,
            target_accept=float(target_accept),
            seed=seed,
            progress=progress,
        )
    samples = {name: by_chain[name] for name in VARIABLES}
    result = BayesFit(matrix, samples, resolved, divergences, seed, sampler)
    if check:
        found = result.problems()
        if found:
            warnings.warn(checks_failed(found), BayesDiagnosticWarning, stacklevel=2)
    return result


def checked_settings(
    priors: Priors | None, chains: Any, draws: Any, target_accept: Any, warmup: Any
) -> Priors:
    """The priors (default :class:`Priors`) after checking them and the sampler's settings of
    :func:`fit`; an error names the parameter at fault."""
    priors = Priors() if priors is None else priors
    if not isinstance(priors, Priors):
        raise RiskevalError(f"The 'priors' parameter of fit must be a riskeval.bayes.Priors; got {priors!r}.")
    chains = _count(chains, "chains", 1)
    draws = _count(draws, "draws", 10)
    _count(warmup, "warmup", 10)
    if chains * draws > MAX_DRAWS:
        raise RiskevalError(
            f"chains × draws must be at most {MAX_DRAWS:,} (every draw of every effect is kept in "
            f"memory); got {chains} × {draws}."
        )
    if (
        isinstance(target_accept, bool)
        or not isinstance(target_accept, (int, float))
        or not 0 < target_accept < 1
    ):
        raise RiskevalError(f"The 'target_accept' parameter of fit must be in (0, 1); got {target_accept!r}.")
    return priors


def checks_failed(problems: list[str]) -> str:
    """The warning of failed sampling checks (:meth:`BayesFit.problems`), one sentence."""
    listed = "; ".join(text.rstrip(".") for text in problems)
    return f"The posterior draws fail the sampling checks of Benham et al. (SIGIR 2020): {listed}."


def as_scores(scores: Any) -> pd.DataFrame:
    if isinstance(scores, pd.DataFrame) and not {"system", "topic", "score"} <= set(scores.columns):
        matrix = as_matrix(scores, name="scores")
    else:
        matrix = score_matrix(scores)
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise RiskevalError(
            f"The model needs at least 2 systems and 2 topics; the scores have {matrix.shape[0]} "
            f"system(s) × {matrix.shape[1]} topic(s)."
        )
    return matrix


def _summary(draws: np.ndarray, labels: pd.Index, level: float, func: str) -> pd.DataFrame:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise RiskevalError(f"The 'level' parameter of {func} must be in (0, 1); got {level!r}.")
    tail = (1 - level) / 2
    low, median, high = np.quantile(draws, [tail, 0.5, 1 - tail], axis=0)
    return pd.DataFrame(
        {
            "mean": draws.mean(axis=0),
            "median": median,
            "sd": draws.std(axis=0, ddof=1),
            "low": low,
            "high": high,
        },
        index=labels,
    )


def named_systems(systems: pd.Index, reference: Any, given: Any) -> list[Any]:
    if given is None:
        return [s for s in systems if s != reference]
    names = [given] if isinstance(given, str) else list(given)
    unknown = [n for n in names if n not in set(systems)]
    if unknown:
        raise RiskevalError(f"System(s) {unknown} are not in the fitted scores.")
    if reference in names:
        raise RiskevalError(f"{reference!r} cannot be compared with itself.")
    if not names:
        raise RiskevalError("No system to compare: give at least one.")
    return names


def _check_margin(margin: Any) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not np.isfinite(margin):
        raise RiskevalError(f"The 'margin' must be a finite number; got {margin!r}.")
    return float(margin)


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise RiskevalError(f"The '{name}' parameter of fit must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def _values(dataset: Any) -> dict[str, np.ndarray]:
    """An ArviZ diagnostic's numbers per variable."""
    return {name: np.asarray(dataset[name].values) for name in VARIABLES}


def _quote(rows: pd.DataFrame) -> str:
    return ", ".join(map(str, rows["name"].head(3)))
