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
Jankowiak, 2019) with a diagonal mass matrix, in coordinates where the posterior has no ridge:
each group's effects in an orthonormal (Helmert) basis, their mean apart from their contrasts, and
the intercept through the expected score of the collection (see :func:`_model`).  A linear change
of coordinates with constant Jacobian, it leaves the posterior of the model exactly as written
above; in these coordinates the likelihood of a complete score matrix factorises into the two-way
analysis of variance (:func:`summaries`), so a gradient costs O(systems + topics).  A whole fit,
warm-up and draws, is one program compiled once per shape and setting, with the scores, the priors
and the seed as its arguments, and reused by later fits of that shape (a fit per α, a calibration
run).  The chains run vectorised in that program in float64, so a seed gives the same draws
whatever the machine's number of cores or threads, and whether a progress bar is shown or not.
"""

from __future__ import annotations

import functools
import math
import threading
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


#: The order of the priors' numbers passed to :func:`_model` as one array.
PRIOR_NAMES = ("intercept_location", "intercept_scale", "sigma_rate", "group_shape", "group_scale")


def helmert(n: int) -> np.ndarray:
    """The last ``n − 1`` rows of the orthonormal Helmert matrix of size ``n``: each row sums to
    zero, so ``helmert(n).T @ u`` has mean zero, and with the constant row ``1/√n`` they form an
    orthogonal basis."""
    rows = np.zeros((n - 1, n))
    for k in range(1, n):
        rows[k - 1, :k] = 1.0
        rows[k - 1, k] = -k
        rows[k - 1] /= math.sqrt(k * (k + 1))
    return rows


def summaries(y: np.ndarray) -> tuple[np.ndarray, ...]:
    """The sufficient statistics of the Gaussian likelihood of a complete ``y`` (systems × topics),
    from its orthogonal (two-way analysis of variance) decomposition ``y_ij = ȳ + d_i + g_j + r_ij``:
    the grand mean ȳ, the system deviations ``d`` and topic deviations ``g`` in the Helmert basis
    (:func:`helmert`; ``S − 1`` and ``T − 1`` numbers) and the residual sum of squares ``Σ r_ij²``."""
    grand = y.mean()
    rows = y.mean(axis=1) - grand
    columns = y.mean(axis=0) - grand
    residual = y - grand - rows[:, None] - columns[None, :]
    n_systems, n_topics = y.shape
    return (
        np.float64(grand),
        helmert(n_systems) @ rows,
        helmert(n_topics) @ columns,
        np.float64(np.sum(residual**2)),
    )


def _effects(name: str, sd: Any, n: int) -> tuple[Any, Any]:
    """``n`` effects ``b ~ N(0, sd²)`` drawn in the orthonormal Helmert basis: their mean
    (non-centred, ``{name}_mean_z``) and their ``n − 1`` contrasts (centred, ``{name}_contrast``).
    Returns the contrasts and the mean; the effects are recorded as ``name``."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    z = numpyro.sample(f"{name}_mean_z", dist.Normal(0.0, 1.0))
    contrasts = numpyro.sample(f"{name}_contrast", dist.Normal(0.0, sd).expand([n - 1]))
    mean = sd * z / math.sqrt(n)
    numpyro.deterministic(name, mean + jnp.asarray(helmert(n)).T @ contrasts)
    return contrasts, mean


def _model(stats: Any, priors: Any) -> None:
    """The NumPyro model of the scores, given by their :func:`summaries`, under the priors'
    numbers (ordered as :data:`PRIOR_NAMES`).

    Each group's effects are drawn in the orthonormal Helmert basis, their mean apart from their
    contrasts, and the intercept through the expected score of the collection, ``level = intercept
    + mean(b_system) + mean(b_topic)`` with ``level ~ N(location + mean(b_system) + mean(b_topic),
    scale)``: the same joint distribution as ``intercept ~ N(location, scale)`` and independent
    effects (a rotation and a shift, with constant Jacobian).  In these coordinates the Gaussian
    likelihood of the ``S × T`` scores factorises exactly into independent parts: the grand mean
    ``ȳ ~ N(level, σ²/ST)``, the system deviations ``d_k ~ N(contrast_k, σ²/T)``, the topic
    deviations ``g_k ~ N(contrast_k, σ²/S)`` and the residual sum of squares (a σ²·χ² with
    ``(S − 1)(T − 1)`` degrees of freedom, up to a constant): the posterior is the posterior of
    ``score ~ (1 | topic) + (1 | system)``, with no ridge along which the intercept trades against
    the means of the effects, and a gradient that costs O(S + T), not O(S·T).
    """
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    grand, system_deviations, topic_deviations, residual_ss = stats
    location, scale, sigma_rate, group_shape, group_scale = (priors[i] for i in range(len(PRIOR_NAMES)))
    n_systems, n_topics = system_deviations.shape[0] + 1, topic_deviations.shape[0] + 1
    sigma = numpyro.sample("sigma", dist.Exponential(sigma_rate))
    tau_system = numpyro.sample("tau_system", dist.Gamma(group_shape, 1.0))
    tau_topic = numpyro.sample("tau_topic", dist.Gamma(group_shape, 1.0))
    sd_system = numpyro.deterministic("sd_system", sigma * tau_system * group_scale)
    sd_topic = numpyro.deterministic("sd_topic", sigma * tau_topic * group_scale)
    b, b_mean = _effects("b_system", sd_system, n_systems)
    c, c_mean = _effects("b_topic", sd_topic, n_topics)
    level = numpyro.sample("level", dist.Normal(location + b_mean + c_mean, scale))
    numpyro.deterministic("intercept", level - b_mean - c_mean)
    numpyro.sample("grand_mean", dist.Normal(level, sigma / math.sqrt(n_systems * n_topics)), obs=grand)
    numpyro.sample("system_deviations", dist.Normal(b, sigma / math.sqrt(n_topics)), obs=system_deviations)
    numpyro.sample("topic_deviations", dist.Normal(c, sigma / math.sqrt(n_systems)), obs=topic_deviations)
    dof = (n_systems - 1) * (n_topics - 1)
    numpyro.factor("residual", -dof * jnp.log(sigma) - residual_ss / (2 * sigma**2))


class _Progress:
    """The host side of the sampler's progress: the compiled program reports every iteration
    (:func:`_tick`), whether a bar is shown or not, so that showing one cannot change the
    program and its draws; the bar, when there is one, lives here during a fit."""

    bar: Any = None


def _tick(_: Any) -> None:
    if _Progress.bar is not None:
        _Progress.bar.update(1)


@functools.lru_cache(maxsize=8)
def _program(shape: tuple[int, int], chains: int, draws: int, warmup: int, target_accept: float) -> Any:
    """The whole fit, warm-up and draws, as one compiled program per shape and setting, with the
    scores' summaries, the priors and the seed as its arguments, so that later fits of the same
    shape reuse it (NumPyro's ``MCMC.run`` compiles its sampling loop again on every call)."""
    import jax
    from numpyro.infer import MCMC, NUTS

    class ReportingNUTS(NUTS):
        def sample(self, state: Any, model_args: Any, model_kwargs: Any) -> Any:
            state = super().sample(state, model_args, model_kwargs)
            jax.debug.callback(_tick, state.i)
            return state

    def run(key: Any, stats: Any, priors: Any) -> tuple[dict[str, Any], Any]:
        mcmc = MCMC(
            ReportingNUTS(_model, target_accept_prob=target_accept),
            num_warmup=warmup,
            num_samples=draws,
            num_chains=chains,
            chain_method="vectorized",
            progress_bar=False,
        )
        mcmc.run(key, stats, priors, extra_fields=("diverging",))
        return mcmc.get_samples(group_by_chain=True), mcmc.get_extra_fields()["diverging"]

    return jax.jit(run)


_LOCK = threading.Lock()


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
    (``{name: array[chains, draws, ...]}``), and the number of divergent transitions; with
    ``progress``, a bar on stderr counts the iterations (warm-up and draws)."""
    jax = require("jax", FEATURE)
    require("numpyro", FEATURE)
    from tqdm import tqdm

    with _LOCK, jax.enable_x64(True):
        program = _program(y.shape, chains, draws, warmup, target_accept)
        with tqdm(total=warmup + draws, desc="sampling", unit="it", disable=not progress) as bar:
            _Progress.bar = bar
            try:
                draws_by_chain, diverging = program(
                    jax.random.PRNGKey(seed % 2**32),
                    tuple(jax.numpy.asarray(part, dtype=jax.numpy.float64) for part in summaries(y)),
                    jax.numpy.asarray([priors[name] for name in PRIOR_NAMES], dtype=jax.numpy.float64),
                )
                result = {k: np.asarray(v, dtype=np.float64) for k, v in draws_by_chain.items()}
                divergences = int(np.asarray(diverging).sum())
            finally:
                _Progress.bar = None
    return result, divergences
