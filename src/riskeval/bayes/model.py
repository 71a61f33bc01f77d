"""The crossed random-effects model of Benham, Carterette, Culpepper & Moffat (SIGIR 2020, §3),
``score ~ (1 | topic) + (1 | system)`` with Gaussian errors, its priors, and its sampler.

The score of system i on topic j is ``y_ij = μ + b_i + c_j + ε_ij`` with ``b_i ~ N(0, σ_s²)``,
``c_j ~ N(0, σ_t²)`` and ``ε_ij ~ N(0, σ²)``.  The default priors are those of rstanarm's
``stan_glmer`` for a Gaussian model (Gabry & Goodrich, *Prior distributions for rstanarm models*;
the authors fitted the model with it):

- the intercept μ ~ Normal(mean(y), 2.5·sd(y)) (``normal(0, 2.5, autoscale = TRUE)`` with its
  location at the mean of y, as rstanarm sets it for a Gaussian model with identity link);
- the residual standard deviation σ ~ Exponential(rate 1/sd(y)) (``exponential(autoscale = TRUE)``);
- each group's standard deviation is σ·τ·scale with τ ~ Gamma(shape, 1): ``decov()``'s prior on a
  single varying intercept, whose standard deviation rstanarm expresses in units of σ
  (shape = scale = 1 by default, so τ ~ Exponential(1)).

It is sampled with NumPyro's No-U-Turn sampler (Hoffman & Gelman, JMLR 2014; Phan, Pradhan &
Jankowiak, 2019) with the effects parameterised as drawn (centred) and a dense mass matrix: with
tens of scores per system and per topic the centred form mixes well, and the dense matrix learns
the posterior correlation of the intercept with the mean of the effects, which otherwise slows a
diagonal sampler down.  The chains run vectorised in one program, so a seed gives the same draws
whatever the machine's number of cores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from riskeval._optional import require
from riskeval.errors import RiskevalError

FEATURE = "Bayesian risk inference"


@dataclass(frozen=True)
class Priors:
    """Priors of the crossed random-effects model; None takes rstanarm's default, scaled to the data.

    Parameters
    ----------
    intercept_location, intercept_scale : float, optional
        The Normal prior of the intercept μ; default mean(y) and 2.5·sd(y).
    sigma_rate : float, optional
        The rate of the Exponential prior of the residual standard deviation σ; default 1/sd(y).
    group_shape, group_scale : float
        The Gamma(shape, 1) prior of τ, where a group's (system's or topic's) standard deviation is
        σ·τ·``group_scale``; default 1 and 1 (rstanarm's ``decov()``).
    """

    intercept_location: float | None = None
    intercept_scale: float | None = None
    sigma_rate: float | None = None
    group_shape: float = 1.0
    group_scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("intercept_location", "intercept_scale", "sigma_rate", "group_shape", "group_scale"):
            value = getattr(self, name)
            if value is None and name not in ("group_shape", "group_scale"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise RiskevalError(f"Priors({name}=...) must be a number; got {value!r}.")
            if not math.isfinite(value) or (name != "intercept_location" and value <= 0):
                need = "a finite number" if name == "intercept_location" else "a finite number > 0"
                raise RiskevalError(f"Priors({name}=...) must be {need}; got {value!r}.")

    def resolve(self, y: np.ndarray) -> dict[str, float]:
        """The priors' numbers for the scores ``y`` (rstanarm's autoscaling where a value is None)."""
        sd = float(np.std(y, ddof=1)) if y.size > 1 else 0.0
        if not sd > 0 and None in (self.intercept_scale, self.sigma_rate):
            raise RiskevalError(
                "Every score is the same number, so rstanarm's default priors (scaled by the "
                "scores' standard deviation) do not exist: set Priors(intercept_scale=..., "
                "sigma_rate=...) or give scores that vary."
            )
        return {
            "intercept_location": float(np.mean(y))
            if self.intercept_location is None
            else float(self.intercept_location),
            "intercept_scale": 2.5 * sd if self.intercept_scale is None else float(self.intercept_scale),
            "sigma_rate": 1.0 / sd if self.sigma_rate is None else float(self.sigma_rate),
            "group_shape": float(self.group_shape),
            "group_scale": float(self.group_scale),
        }


def _model(y: Any, priors: dict[str, Any]) -> None:
    """The NumPyro model of ``y`` (systems × topics) under resolved ``priors``."""
    import numpyro
    import numpyro.distributions as dist

    n_systems, n_topics = y.shape
    mu = numpyro.sample("intercept", dist.Normal(priors["intercept_location"], priors["intercept_scale"]))
    sigma = numpyro.sample("sigma", dist.Exponential(priors["sigma_rate"]))
    tau_system = numpyro.sample("tau_system", dist.Gamma(priors["group_shape"], 1.0))
    tau_topic = numpyro.sample("tau_topic", dist.Gamma(priors["group_shape"], 1.0))
    sd_system = numpyro.deterministic("sd_system", sigma * tau_system * priors["group_scale"])
    sd_topic = numpyro.deterministic("sd_topic", sigma * tau_topic * priors["group_scale"])
    b = numpyro.sample("b_system", dist.Normal(0.0, sd_system).expand([n_systems]))
    c = numpyro.sample("b_topic", dist.Normal(0.0, sd_topic).expand([n_topics]))
    numpyro.sample("y", dist.Normal(mu + b[:, None] + c[None, :], sigma), obs=y)


def sample(
    y: np.ndarray,
    priors: dict[str, float],
    *,
    chains: int,
    draws: int,
    warmup: int,
    target_accept: float,
    seed: int,
    progress: bool,
) -> tuple[dict[str, np.ndarray], int]:
    """Posterior draws of the model for the scores ``y`` (float64, systems × topics), by chain
    (``{name: array[chains, draws, ...]}``), and the number of divergent transitions."""
    jax = require("jax", FEATURE)
    require("numpyro", FEATURE)
    from numpyro.infer import MCMC, NUTS

    with jax.enable_x64(True):
        kernel = NUTS(_model, target_accept_prob=target_accept, dense_mass=True)
        mcmc = MCMC(
            kernel,
            num_warmup=warmup,
            num_samples=draws,
            num_chains=chains,
            chain_method="vectorized",
            progress_bar=progress,
        )
        mcmc.run(
            jax.random.PRNGKey(seed % 2**32),
            jax.numpy.asarray(y, dtype=jax.numpy.float64),
            {k: jax.numpy.float64(v) for k, v in priors.items()},
            extra_fields=("diverging",),
        )
        draws_by_chain = {
            k: np.asarray(v, dtype=np.float64) for k, v in mcmc.get_samples(group_by_chain=True).items()
        }
        divergences = int(np.asarray(mcmc.get_extra_fields()["diverging"]).sum())
    return draws_by_chain, divergences
