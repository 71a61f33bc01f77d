"""Bayesian risk inference over many systems: one champion against many challengers, losses
weighted by (1 + α), with the gains-and-losses model of each challenger's differences from the
champion (the default, :mod:`riskeval.bayes.gainloss`), the paired model
(:mod:`riskeval.bayes.paired`) or the crossed random-effects model ``score ~ (1 | topic) + (1 |
system)`` of Benham, Carterette, Culpepper & Moffat (SIGIR 2020).

The gains-and-losses model and the crossed model's exact sampler are numpy only; the paired model
and NUTS need the ``bayes`` extra (``pip install "riskeval[bayes]"``: NumPyro, JAX and ArviZ),
imported when such a model is fitted, so ``import riskeval.bayes`` stays fast.
"""

from __future__ import annotations

from riskeval import _lazy

_EXPORTS = {
    "BayesDiagnosticWarning": "riskeval.bayes.posterior",
    "BayesFit": "riskeval.bayes.posterior",
    "ChampionComparison": "riskeval.bayes.champion",
    "Priors": "riskeval.bayes.model",
    "champion_challengers": "riskeval.bayes.champion",
    "fit": "riskeval.bayes.posterior",
    "risk_adjusted": "riskeval.bayes.champion",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
