"""The gains-and-losses model of champion and challengers: each system's risk-adjusted per-topic
differences from the champion, split into gains, ties and losses, with independent exact draws.

The risk-adjusted difference ``d_ij`` of system i from the champion on topic j (URisk's per-topic
difference, Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1: a loss weighted by 1 + α) is a gain
(``d > 0``), a tie (``d = 0``) or a loss (``d < 0``).  Weighting losses makes the differences
skewed, and the mean of a skewed sample is itself skewed at the size of a test collection: a
Gaussian model of ``d`` (or a paired t-test) then claims too many gains.  This model describes
the two sides apart, for each system i separately (Jeffreys' priors, Jeffreys, *Proc. R. Soc.
A* 186, 1946, for every side seen on three topics or more)::

    (n_gain, n_tie, n_loss) ~ Multinomial(T; π),     π ~ Dirichlet(½, ½, ½)
    d_ij | gain ~ N(μ_gain, σ_gain²),                p(μ_gain, σ_gain) ∝ 1/σ_gain
    d_ij | loss ~ N(μ_loss, σ_loss²),                p(μ_loss, σ_loss) ∝ 1/σ_loss

and its effect, the expected risk-adjusted difference on a topic of the same population, is
``θ_i = π_gain·μ_gain + π_loss·μ_loss`` (a tie adds 0).  The posterior is closed-form: π is
Dirichlet(n + ½), and with n ≥ 3 gains μ_gain is the gains' mean plus their standard error times a
Student t with n − 1 degrees of freedom (Gelman, Carlin, Stern, Dunson, Vehtari & Rubin, *Bayesian
Data Analysis*, 3rd ed., 2013, §3.2); so for losses.  That is the posterior where a side's sizes
are Gaussian, and they seldom are: a side is a tail of the differences, many sizes near 0 and a
few far from it, and the mean of skewed sizes is skewed too, so a symmetric t understates how
large a loss may be where the losses seen are few and small (the one-sided bounds of the
studentized mean of sizes of skewness γ are off by γ(2z² + 1)/(6√n) standard errors: its
Edgeworth expansion, Hall, *The Bootstrap and Edgeworth Expansion*, Springer, 1992, ch. 2).  The
t's Gaussian numerator is therefore replaced by one skewed as the sizes are: a standardised Gamma
(Pearson's type III) of skewness 2γ/√n and mean γ/(2√n), γ the sizes' adjusted sample skewness.
The mean size is then drawn from that second-order correction of the Gaussian posterior, whose
one-sided bounds hold to second order whatever the sizes' skew, and which is the t itself for
symmetric sizes.  A side seen on fewer
than three topics has too little spread of its own: the pooled within-system variance of that
side over every system (background systems included) then enters as a prior worth two topics, and
a side seen on no topic at all has its mean drawn from the other systems' means of that side; a
draw of a mean size of the wrong sign is reflected.  Each draw is independent and exact (no
Markov chain): the effective sample size is the number of draws.

The systems' posteriors are independent: the model answers each system against the champion,
not two challengers against each other (:meth:`GainLossFit.difference` refuses that).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval.bayes.posterior import MIN_ESS_SYSTEM, BayesFit, _summary, sampling_problems
from riskeval.errors import RiskevalError

#: The Dirichlet prior's weight of each side (gain, tie, loss): Jeffreys' prior.
PRIOR_WEIGHT = 0.5
#: The parameters drawn per system besides the effect ``b_system``.
#: Draws made at once: Ctrl-C takes effect between two blocks.
BLOCK = 2_048
#: The fewest topics on a side whose sizes' spread is the side's own (Jeffreys' prior).
OWN_SPREAD = 3
#: The weight, in topics, of the pooled within-system variance in a side seen on fewer topics.
PRIOR_TOPICS = 2
SIDES = ("share_gain", "share_tie", "share_loss", "mean_gain", "mean_loss")


@dataclass(frozen=True, eq=False)
class GainLossFit(BayesFit):
    """The posterior of the gains-and-losses model (see the module) for one champion.

    As :class:`riskeval.bayes.BayesFit`, with ``b_system`` the system effects θ_i: each system's
    expected risk-adjusted difference from the champion, 0 for the champion itself.  ``samples``
    also holds, per system but the champion (last axis, in the order of :attr:`others`), the
    shares of gains, ties and losses (``share_gain``, ``share_tie``, ``share_loss``) and the mean
    size of a gain and of a loss (``mean_gain``, ``mean_loss``; a loss's is negative).  The draws
    are one sequence of independent draws (``sampler == "exact"``).
    """

    champion: Any = None
    model = "gainloss"

    @property
    def idata(self) -> Any:
        """The draws as an ArviZ ``InferenceData`` (dimensions ``system``, and ``other`` for the
        sides of each system but the champion)."""
        from riskeval._optional import require
        from riskeval.bayes.model import FEATURE

        az = require("arviz", FEATURE)
        return az.from_dict(
            posterior=dict(self.samples),
            coords={"system": list(self.systems), "other": self.others},
            dims={"b_system": ["system"], **{name: ["other"] for name in SIDES}},
        )

    @property
    def others(self) -> list[Any]:
        """Every system but the champion."""
        return [s for s in self.systems if s != self.champion]

    def difference(self, system: Any, other: Any) -> np.ndarray:
        """The draws of ``effect(system) − effect(other)``; one of the two must be the champion
        (the model draws each system against the champion independently)."""
        if self.champion not in (system, other) and system != other:
            raise RiskevalError(
                f"The gains-and-losses model compares each system with the champion "
                f"{self.champion!r} only, not {system!r} with {other!r}; fit it with one of them as "
                "the champion, or fit model='paired' or 'crossed'."
            )
        return super().difference(system, other)

    def topic_effects(self, level: float = 0.95) -> pd.DataFrame:
        """Refused: the model has no topic effects."""
        raise RiskevalError(
            "The gains-and-losses model has no topic effects to report; fit the crossed model "
            "(riskeval.bayes.fit) for topic effects."
        )

    def variance_components(self, level: float = 0.95) -> pd.DataFrame:
        """Refused: the model has no variance components (each system stands alone)."""
        raise RiskevalError(
            "The gains-and-losses model has no variance components; see sides() for each "
            "system's gains and losses, or fit the crossed model (riskeval.bayes.fit)."
        )

    def sides(self, level: float = 0.95) -> pd.DataFrame:
        """Each system's shares of gains, ties and losses and mean size of a gain and of a loss:
        posterior means and equal-tailed intervals at ``level`` (columns ``<name>_mean``,
        ``<name>_low``, ``<name>_high`` for each name of :data:`SIDES`); index ``system``, every
        system but the champion."""
        parts = []
        for name in SIDES:
            part = _summary(self.draws(name), pd.Index(self.others, name="system"), level, "sides")
            parts.append(part[["mean", "low", "high"]].add_prefix(f"{name}_"))
        return pd.concat(parts, axis=1)

    def diagnostics(self) -> pd.DataFrame:
        """The draws are independent and exact: each system's effective sample size is the
        number of draws, and R-hat, a comparison of chains, does not apply (NaN)."""
        count = float(self.samples["b_system"].shape[1])
        others = self.others
        return pd.DataFrame(
            {"group": "system", "name": others, "rhat": np.nan, "ess_bulk": count, "ess_tail": count}
        )

    def problems(self) -> list[str]:
        """The sampling checks this posterior fails (empty when all pass): with independent draws
        only the number of draws, at least 10,000 (Benham et al., SIGIR 2020)."""
        return sampling_problems(
            self.diagnostics(), 0, {"system": (MIN_ESS_SYSTEM, "system effect")}, rhat=False
        )

    def _drawn(self) -> str:
        return f"{self.samples['b_system'].shape[1]:,} independent exact draws"

    def _repr_html_(self) -> str:
        from riskeval import _display

        facts = [f"champion {self.champion}", f"{len(self.systems)} systems × {len(self.topics)} topics",
                 self._drawn(), f"seed {self.seed}"]  # fmt: skip
        effects = self.system_effects().drop(index=self.champion)
        return _display.block(
            "Bayesian fit of the gains-and-losses model",
            facts,
            [
                ("Expected difference from the champion, 95% credible intervals", effects),
                ("Shares of gains, ties and losses and mean sizes, 95% credible intervals", self.sides()),
            ],
            note="compare() puts challengers against the champion; sides() holds the second table.",
        )

    def __repr__(self) -> str:
        return (
            f"GainLossFit(champion {self.champion!r}, {len(self.systems)} systems × "
            f"{len(self.topics)} topics, {self._drawn()}, seed={self.seed})"
        )


def fit(scores: pd.DataFrame, champion: Any, *, draws: int, seed: int) -> GainLossFit:
    """The gains-and-losses model fitted to ``scores`` (systems × topics, already risk-adjusted
    against ``champion`` by :func:`riskeval.bayes.risk_adjusted`): ``draws`` independent draws,
    made :data:`BLOCK` at a time."""
    values = np.ascontiguousarray(scores.to_numpy(dtype=np.float64))
    position = list(scores.index).index(champion)
    d = np.delete(values, position, axis=0) - values[position]
    stats = statistics(d)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2]))
    systems = d.shape[0]
    samples = {name: np.empty((1, draws, systems)) for name in SIDES}
    samples["b_system"] = np.zeros((1, draws, systems + 1))
    keep = np.arange(systems + 1) != position
    for done in range(0, draws, BLOCK):
        block = sample(stats, min(BLOCK, draws - done), rng)
        rows = slice(done, done + len(block["effect"]))
        samples["b_system"][0][rows, keep] = block.pop("effect")
        for name, value in block.items():
            samples[name][0, rows] = value
    return GainLossFit(scores, samples, {"prior_weight": PRIOR_WEIGHT}, 0, seed, "exact", champion)


def statistics(d: np.ndarray) -> dict[str, np.ndarray]:
    """What the posterior of the differences ``d`` (systems × topics) depends on: per system and
    side the number of topics (``n_gain``, ``n_tie``, ``n_loss``), and for gains and losses the
    mean size, the sum of squared deviations from it and the skewness of the sizes' magnitudes
    (``mean_*``, ``scatter_*``, ``skew_*``: the adjusted Fisher–Pearson coefficient G₁ =
    √(n(n − 1)) / (n − 2) · m₃ / m₂^{3/2}, Joanes & Gill, *The Statistician* 47, 1998; 0 for a
    side seen on fewer than :data:`OWN_SPREAD` topics or without spread)."""
    out: dict[str, np.ndarray] = {"n_tie": np.sum(d == 0, axis=1).astype(np.float64)}
    for side, mask in (("gain", d > 0), ("loss", d < 0)):
        n = mask.sum(axis=1).astype(np.float64)
        sizes = np.where(mask, d, 0.0)
        mean = np.divide(sizes.sum(axis=1), n, out=np.zeros_like(n), where=n > 0)
        deviations = np.where(mask, d - mean[:, None], 0.0)
        scatter = np.sum(deviations**2, axis=1)
        cubes = np.sum(deviations**3, axis=1)
        # the skewness of the sizes' magnitudes (a loss's as a gain's), 0 without spread
        skew = np.divide(
            n * np.sqrt(np.maximum(n - 1, 0.0)) * cubes,
            (n - 2) * scatter**1.5,
            out=np.zeros_like(n),
            where=(n >= OWN_SPREAD) & (scatter > 0),
        )
        out[f"n_{side}"], out[f"mean_{side}"], out[f"scatter_{side}"] = n, mean, scatter
        out[f"skew_{side}"] = skew if side == "gain" else -skew
    return out


def sample(stats: dict[str, np.ndarray], draws: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``draws`` independent draws (``[draws, systems]``) of every system's effect (``effect``)
    and of its :data:`SIDES`, given the :func:`statistics` of the differences.  Ties are a side of
    their own where some system ties with the champion on some topic; otherwise (continuous
    scores) their share is 0."""
    systems = stats["n_tie"].size
    sides = ("gain", "tie", "loss") if stats["n_tie"].any() else ("gain", "loss")
    weights = {
        side: rng.standard_gamma(stats[f"n_{side}"] + PRIOR_WEIGHT, (draws, systems)) for side in sides
    }
    total = sum(weights.values())
    out = {f"share_{side}": weights[side] / total if side in weights else np.zeros((draws, systems))
           for side in ("gain", "tie", "loss")}  # fmt: skip
    for side in ("gain", "loss"):
        out[f"mean_{side}"] = _mean_size(stats, side, draws, rng)
    out["effect"] = out["share_gain"] * out["mean_gain"] + out["share_loss"] * out["mean_loss"]
    return out


def _mean_size(stats: dict[str, np.ndarray], side: str, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of each system's mean size of a gain (``side="gain"``) or a loss.  With n ≥
    :data:`OWN_SPREAD` topics on that side: the sizes' mean plus their standard error times a
    Student t with n − 1 degrees of freedom (Jeffreys' prior) whose numerator is skewed as the
    sizes are (:func:`_skewed_normal`; the t itself for symmetric sizes).  With one or two: the
    sizes' variance is scaled inverse-χ² with the pooled within-system variance of that side (over
    systems with two or more) as a prior worth :data:`PRIOR_TOPICS` topics, so the mean is a
    Student t with n + 1 degrees of freedom about theirs.  With none: normal of the mean and
    standard deviation of the other systems' means of that side (the background informs it).  A
    gain's mean is positive and a loss's negative by definition: a draw of the other sign is
    reflected."""
    n, mean, scatter = stats[f"n_{side}"], stats[f"mean_{side}"], stats[f"scatter_{side}"]
    many, seen = n >= 2, n >= 1
    within = scatter[many].sum() / (n[many] - 1).sum() if many.any() else 0.0
    means = mean[seen]
    between = float(means.std(ddof=1)) if means.size > 1 else math.sqrt(within)
    own = n >= OWN_SPREAD
    freedom = np.where(own, n - 1, np.where(seen, n - 1 + PRIOR_TOPICS, 1.0))
    variance = np.where(own, scatter, scatter + PRIOR_TOPICS * within) / freedom
    spread = np.where(seen, np.sqrt(variance / np.maximum(n, 1.0)), between)
    centre = np.where(seen, mean, float(means.mean()) if means.size else 0.0)
    skewed = _skewed_normal(stats[f"skew_{side}"], n, draws, rng)
    t = skewed / np.sqrt(rng.chisquare(freedom, (draws, n.size)) / freedom)
    drawn = np.abs(np.abs(centre) + spread * np.where(seen, t, skewed))
    return drawn if side == "gain" else -drawn


def _skewed_normal(skew: np.ndarray, n: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws (``[draws, systems]``) of the numerator of a side's Student t, skewed as the mean of
    ``n`` sizes of skewness γ calls for: the one-sided bounds of the studentized mean of skewed
    sizes are off by ``γ(2z² + 1) / (6√n)`` standard errors (its Edgeworth expansion, Hall, *The
    Bootstrap and Edgeworth Expansion*, 1992, ch. 2), which a unit-variance numerator of mean ``γ /
    (2√n)`` and skewness ``2γ / √n`` restores to second order.  That is a standardised Gamma of
    shape ``k = n / γ²`` (Pearson's type III: however skewed the sizes, an exponential tail, and
    a Gaussian as γ → 0), ``(G − k + ½) / √k``, reflected for γ < 0; for γ = 0 a
    normal, drawn as that Gamma with its shape capped at 1/ε (normal to within 10⁻⁷)."""
    cap = 1 / np.finfo(np.float64).eps
    shape = np.minimum(np.divide(n, skew * skew, out=np.full_like(skew, cap), where=skew != 0), cap)
    gamma = rng.standard_gamma(shape, (draws, n.size))
    return np.where(skew < 0, -1.0, 1.0) * (gamma - shape + 0.5) / np.sqrt(shape)
