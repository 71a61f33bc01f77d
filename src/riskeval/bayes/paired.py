"""The paired model of champion and challengers: each system's per-topic difference from the
champion, with the champion's per-topic luck shared by every system, and the scores' pairing kept.

The crossed model of Benham, Carterette, Culpepper & Moffat (SIGIR 2020, §3) assumes that two
systems' scores vary independently once topic difficulty is taken out; a challenger built from
the champion (a variant, a re-ranking of its run) breaks that assumption, and the crossed model's
interval of their difference is then far too wide.  This model describes the differences
themselves.  For the risk-adjusted difference ``d_ij`` of system i from the champion on topic j
(URisk's per-topic difference, Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1: a loss weighted by
1 + α)::

    d_ij = θ_i + λ_i·u_j + σ_i·e_ij,         u_j ~ N(0, 1),  e_ij ~ N(0, 1)
    θ_i ~ N(μ, σ_θ²)                         (partially pooled effect: expected difference)
    s_i = √(σ_i² + λ_i²), log s_i ~ N(log s, ω²)       (partially pooled scale)
    f_i = λ_i / s_i = tanh(z_i), z_i ~ N(ζ, κ²)        (partially pooled share of u)

``u_j`` is the champion's own luck on topic j, which every system's difference shares; ``f_i`` how
much of system i's differences it makes: about 1/√2 for a run unrelated to the champion, about 0
for a variant that moves with the champion from topic to topic.  It is the crossed model's
differences when every s_i is equal and f_i = 1/√2 (then ``u_j`` is minus the champion's
residual), and a one-sample model of each challenger's differences when f_i = 0.  Background
systems (neither champion nor challenger) inform μ, σ_θ, s, ω, ζ, κ and every ``u_j``.

Priors, from :class:`riskeval.bayes.Priors` resolved on the differences ``d`` (rstanarm's scaling
as in the crossed model): μ ~ Normal(mean(d), 2.5·sd(d)), s ~ Exponential(1/sd(d)), σ_θ =
s·τ·``group_scale`` with τ ~ Gamma(``group_shape``, 1), and ω, ζ, κ ~ Half-Normal(1).

The sampler is NumPyro's No-U-Turn sampler (Hoffman & Gelman, JMLR 2014) on the hyperparameters,
each system's s_i and z_i only: the topic effects ``u`` and the system effects θ are
integrated out exactly (each topic's differences are Gaussian with covariance ``diag(σ²) + λλᵀ``,
a diagonal plus rank one, whose inverse and determinant are closed-form), so the density depends
on the data only through each system's mean difference and the scatter matrix of the differences,
and θ is then drawn exactly from its Gaussian conditional for each draw.  The chains run in
segments of :data:`SEGMENT` iterations, so that Ctrl-C stops a fit between two segments; the
compiled segments are kept in JAX's persistent compilation cache (:func:`compilation_cache`), so a
later process compiles nothing.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval._optional import require
from riskeval.bayes.model import FEATURE, Priors
from riskeval.bayes.posterior import MIN_ESS_SYSTEM, BayesFit, _summary, sampling_problems
from riskeval.errors import RiskevalError

#: Iterations of every chain per compiled call: Ctrl-C takes effect between two calls.
SEGMENT = 50
#: Bulk ESS required of every hyperparameter and every system's scale and share (the authors' threshold
#: for nuisance effects, Benham et al., SIGIR 2020); system effects need :data:`MIN_ESS_SYSTEM`.
MIN_ESS_SCALE = 1_000
#: The scalar parameters sampled (unconstrained: logarithms of the positive ones).
HYPER = ("mu", "log_sigma_typ", "log_tau", "log_omega", "log_zeta", "log_kappa")
#: Every quantity recorded in :attr:`PairedFit.idata` besides the system effects.
RECORDED = ("mu", "sd_effect", "scale_typ", "omega", "share_mean", "share_sd")


@dataclass(frozen=True, eq=False)
class PairedFit(BayesFit):
    """The posterior of the paired model (see the module) for one champion and its scores.

    As :class:`riskeval.bayes.BayesFit`, with ``b_system`` the system effects θ_i: each system's
    expected (risk-adjusted) difference from the champion, 0 for the champion itself; the
    difference of two effects is the difference of the two systems' expected scores.
    ``idata`` also holds the hyperparameters ``mu``, ``sd_effect`` (σ_θ), ``scale_typ`` (s),
    ``omega``, ``share_mean`` (ζ) and ``share_sd`` (κ), and per system (dimension ``other``,
    every system but the champion) ``scale`` (s_i) and ``share`` (f_i).
    """

    champion: Any = None
    model = "paired"

    @functools.cached_property
    def idata(self) -> Any:
        """The draws as an ArviZ ``InferenceData`` (dimensions ``system``, and ``other`` for the
        scales and shares), built on first use."""
        az = require("arviz", FEATURE)
        return az.from_dict(
            posterior=dict(self.samples),
            coords={"system": list(self.systems), "other": self.others},
            dims={"b_system": ["system"], "scale": ["other"], "share": ["other"]},
        )

    @property
    def others(self) -> list[Any]:
        return [s for s in self.systems if s != self.champion]

    def topic_effects(self, level: float = 0.95) -> pd.DataFrame:
        """Refused: the paired model integrates the topic effects out."""
        raise RiskevalError(
            "The paired model integrates the topic effects out, so it has none to report; fit "
            "the crossed model (riskeval.bayes.fit) for topic effects."
        )

    def variance_components(self, level: float = 0.95) -> pd.DataFrame:
        """The hyperparameters (rows ``effect``: σ_θ, the spread of the effects; ``scale``: the
        typical scale of a system's per-topic differences; ``scale_spread``: ω, the spread of their
        logarithms; ``share_mean`` and ``share_sd``: ζ and κ, where each system's share of the
        champion's topic effect is tanh(N(ζ, κ²))), summarised as :meth:`system_effects`."""
        names = RECORDED[1:]
        stacked = np.column_stack([self.draws(name) for name in names])
        labels = pd.Index(["effect", "scale", "scale_spread", "share_mean", "share_sd"], name="component")
        return _summary(stacked, labels, level, "variance_components")

    def residual_scales(self, level: float = 0.95) -> pd.DataFrame:
        """Each system's scale s_i (the standard deviation of its per-topic differences from the
        champion about their mean) and share f_i (their correlation with the champion's topic
        effect): posterior means and equal-tailed intervals at ``level``, columns ``scale_mean,
        scale_low, scale_high, share_mean, share_low, share_high``; index ``system``, every system
        but the champion."""
        parts = []
        for name in ("scale", "share"):
            part = _summary(self.draws(name), pd.Index(self.others, name="system"), level, "residual_scales")
            parts.append(part[["mean", "low", "high"]].add_prefix(f"{name}_"))
        return pd.concat(parts, axis=1)

    def diagnostics(self) -> pd.DataFrame:
        """R-hat and bulk and tail effective sample sizes (Vehtari, Gelman, Simpson, Carpenter &
        Bürkner, *Bayesian Analysis* 16(2), 2021, via ArviZ) of every parameter the answer depends
        on: the hyperparameters (group ``global``), each system's effect (``system``; not the
        champion's, 0 by definition) and each system's scale and share (``scale``)."""
        az = require("arviz", FEATURE)
        others = self.others
        keep = [i for i, s in enumerate(self.systems) if s != self.champion]
        with np.errstate(divide="ignore", invalid="ignore"):  # the champion's effect: 0 in every draw
            rhat, bulk, tail = (
                az.rhat(self.idata),
                az.ess(self.idata, method="bulk"),
                az.ess(self.idata, method="tail"),
            )
        rows = []
        for name, group, labels, pick in (
            *((n, "global", [n], None) for n in RECORDED[:6]),
            ("b_system", "system", others, keep),
            ("scale", "scale", [f"scale[{s}]" for s in others], None),
            ("share", "scale", [f"share[{s}]" for s in others], None),
        ):
            values = [np.atleast_1d(table[name].values) for table in (rhat, bulk, tail)]
            if pick is not None:
                values = [v[pick] for v in values]
            rows.append(
                pd.DataFrame(
                    {
                        "group": group,
                        "name": labels,
                        "rhat": values[0],
                        "ess_bulk": values[1],
                        "ess_tail": values[2],
                    }
                )
            )
        return pd.concat(rows, ignore_index=True)

    def problems(self) -> list[str]:
        """The sampling checks this posterior fails (empty when all pass): R-hat below 1.01 for
        every parameter of :meth:`diagnostics`, bulk ESS above 10,000 for every system effect and
        above 1,000 for every hyperparameter, system's scale and share, no divergent transition."""
        return sampling_problems(
            self.diagnostics(),
            self.divergences,
            {
                "system": (MIN_ESS_SYSTEM, "system parameter"),
                "global": (MIN_ESS_SCALE, "global parameter"),
                "scale": (MIN_ESS_SCALE, "scale parameter"),
            },
        )

    def __repr__(self) -> str:
        shape = self.samples["b_system"].shape
        return (
            f"PairedFit(champion {self.champion!r}, {len(self.systems)} systems × "
            f"{len(self.topics)} topics, {shape[0]} chains × {shape[1]} draws, "
            f"{self.divergences} divergences, seed={self.seed})"
        )


def fit(
    scores: pd.DataFrame,
    champion: Any,
    priors: Priors,
    *,
    chains: int,
    draws: int,
    warmup: int,
    target_accept: float,
    seed: int,
    progress: bool,
) -> PairedFit:
    """The paired model fitted to ``scores`` (systems × topics, already risk-adjusted against
    ``champion`` by :func:`riskeval.bayes.risk_adjusted`), with settings checked by the caller
    (:func:`riskeval.bayes.champion_challengers`)."""
    values = np.ascontiguousarray(scores.to_numpy(dtype=np.float64))
    position = list(scores.index).index(champion)
    d = np.delete(values, position, axis=0) - values[position]
    resolved = priors.resolve(d)
    drawn, divergences = sample(
        d,
        resolved,
        chains=chains,
        draws=draws,
        warmup=warmup,
        target_accept=target_accept,
        seed=seed,
        progress=progress,
    )
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    theta = effects(d, drawn, rng)
    b_system = np.insert(theta, position, 0.0, axis=2)
    samples = {"b_system": b_system, **{name: drawn[name] for name in (*RECORDED, "scale", "share")}}
    return PairedFit(scores, samples, resolved, divergences, seed, "nuts", champion)


def statistics(d: np.ndarray) -> tuple[np.ndarray, ...]:
    """What the likelihood of the differences ``d`` (systems × topics) depends on: each system's
    mean difference, the diagonal of their scatter matrix ``C = Σ_j (d_j − d̄)(d_j − d̄)ᵀ``, a
    factor ``M`` with ``M Mᵀ = C`` (systems × min(systems, topics)), and the number of topics."""
    mean = d.mean(axis=1)
    centred = d - mean[:, None]
    left, singular, _ = np.linalg.svd(centred, full_matrices=False)
    return mean, np.sum(centred**2, axis=1), left * singular, np.float64(d.shape[1])


def log_density(params: dict[str, Any], stats: tuple[Any, ...], priors: Any) -> Any:
    """The log posterior density (up to a constant) of the unconstrained parameters ``params``
    given the :func:`statistics` of the differences, with u and θ integrated out.

    For each topic the differences are ``N(θ, Σ)``, ``Σ = diag(σ²) + λλᵀ``; their mean ``d̄`` and
    scatter ``C`` are independent, ``C`` Wishart with T − 1 degrees of freedom and ``d̄ ~ N(μ,
    diag(σ_θ² + σ²/T) + λλᵀ/T)`` once θ is integrated out; both covariances are a diagonal plus
    rank one, inverted and their determinants taken by the Sherman–Morrison formula and the
    matrix determinant lemma."""
    import jax.numpy as jnp

    mean, scatter_diagonal, factor, n_topics = stats
    location, scale, sigma_rate, group_shape, group_scale = (priors[i] for i in range(5))
    log_scale, z = params["log_scale"], params["z"]
    typical, tau = jnp.exp(params["log_sigma_typ"]), jnp.exp(params["log_tau"])
    omega, zeta, kappa = (
        jnp.exp(params["log_omega"]),
        jnp.exp(params["log_zeta"]),
        jnp.exp(params["log_kappa"]),
    )
    total = jnp.exp(log_scale)
    loading = total * jnp.tanh(z)
    variance = (total / jnp.cosh(z)) ** 2
    g = loading / variance
    q = 1 + jnp.sum(loading * g)
    projected = factor.T @ g
    scatter = -0.5 * (n_topics - 1) * (jnp.sum(jnp.log(variance)) + jnp.log(q)) - 0.5 * (
        jnp.sum(scatter_diagonal / variance) - jnp.sum(projected**2) / q
    )
    a = (typical * tau * group_scale) ** 2 + variance / n_topics
    v = loading / jnp.sqrt(n_topics)
    h = v / a
    p = 1 + jnp.sum(v * h)
    r = mean - params["mu"]
    means = -0.5 * (jnp.sum(jnp.log(a)) + jnp.log(p)) - 0.5 * (jnp.sum(r**2 / a) - jnp.sum(h * r) ** 2 / p)
    n = log_scale.shape[0]
    prior = (
        -0.5 * ((params["mu"] - location) / scale) ** 2
        + params["log_sigma_typ"] - sigma_rate * typical
        + group_shape * params["log_tau"] - tau
        + params["log_omega"] - omega**2 / 2
        + params["log_zeta"] - zeta**2 / 2
        + params["log_kappa"] - kappa**2 / 2
        - n * jnp.log(omega) - 0.5 * jnp.sum(((log_scale - params["log_sigma_typ"]) / omega) ** 2)
        - n * jnp.log(kappa) - 0.5 * jnp.sum(((z - zeta) / kappa) ** 2)
    )  # fmt: skip
    return scatter + means + prior


def effects(d: np.ndarray, drawn: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """One exact draw of the system effects θ from their Gaussian conditional given each draw of
    the other parameters (arrays ``[chains, draws, ...]``), by Matheron's rule: a draw θ* of the
    prior and d̄* of the mean differences given θ*, corrected by ``σ_θ² K⁻¹ (d̄ − d̄*)``, where
    ``K = diag(σ_θ² + σ²/T) + λλᵀ/T`` is the covariance of d̄ (Sherman–Morrison, O(systems))."""
    n_topics = d.shape[1]
    prior_sd, scale, share = drawn["prior_sd"], drawn["scale"], drawn["share"]
    sigma, loading = scale * np.sqrt(1 - share**2), scale * share
    shape = sigma.shape
    theta_star = drawn["mu"][..., None] + prior_sd * rng.standard_normal(shape)
    shared = rng.standard_normal(shape[:-1])[..., None]
    mean_star = theta_star + (sigma * rng.standard_normal(shape) + loading * shared) / math.sqrt(n_topics)
    a = prior_sd**2 + sigma**2 / n_topics
    v = loading / math.sqrt(n_topics)
    h = v / a
    b = d.mean(axis=1) - mean_star
    solved = b / a - h * np.sum(h * b, axis=-1, keepdims=True) / (1 + np.sum(v * h, axis=-1, keepdims=True))
    return theta_star + prior_sd**2 * solved


def compilation_cache() -> None:
    """Keep compiled programs in JAX's persistent cache, in the user's cache folder
    (``$XDG_CACHE_HOME/riskeval/jax`` or ``~/.cache/riskeval/jax``; ``RISKEVAL_JAX_CACHE`` sets
    another), so that a later process loads a sampler instead of compiling it; a cache folder the
    program has set already is kept."""
    import jax

    if getattr(jax.config, "jax_compilation_cache_dir", None):
        return
    folder = os.environ.get("RISKEVAL_JAX_CACHE")
    if not folder:
        if sys.platform == "win32":
            base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        elif sys.platform == "darwin":
            base = os.path.expanduser("~/Library/Caches")
        else:
            base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        folder = os.path.join(base, "riskeval", "jax")
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


@functools.lru_cache(maxsize=8)
def _programs(shape: tuple[int, int], chains: int, warmup: int, target_accept: float) -> tuple[Any, Any]:
    """The sampler's two compiled programs for differences of ``shape`` (systems, rank of the
    scatter factor): the start of every chain, and :data:`SEGMENT` iterations of every chain."""
    import jax
    from numpyro.infer.hmc import hmc

    def potential(stats: Any, priors: Any) -> Any:
        return lambda params: -log_density(params, stats, priors)

    init_kernel, sample_kernel = hmc(potential_fn_gen=potential, algo="NUTS")

    def start(params: Any, keys: Any, stats: Any, priors: Any) -> Any:
        def one(p: Any, key: Any) -> Any:
            return init_kernel(
                p, warmup, target_accept_prob=target_accept, model_args=(stats, priors), rng_key=key
            )

        return jax.vmap(one)(params, keys)

    def advance(state: Any, stats: Any, priors: Any) -> Any:
        def step(s: Any, _: Any) -> Any:
            s = jax.vmap(lambda c: sample_kernel(c, model_args=(stats, priors)))(s)
            return s, (s.z, s.diverging)

        return jax.lax.scan(step, state, None, length=SEGMENT)

    return jax.jit(start), jax.jit(advance)


_LOCK = threading.Lock()


def sample(
    d: np.ndarray,
    priors: dict[str, float],
    *,
    chains: int,
    draws: int,
    warmup: int,
    target_accept: float,
    seed: int,
    progress: bool,
) -> tuple[dict[str, np.ndarray], int]:
    """Draws of the paired model's parameters for the differences ``d`` (systems × topics) by
    chain (``{name: [chains, draws, ...]}``: :data:`RECORDED`, and by system ``scale``, ``share``
    and ``prior_sd``), and the number of divergent transitions after warm-up.  With
    ``progress``, a bar on stderr counts the iterations."""
    jax = require("jax", FEATURE)
    require("numpyro", FEATURE)
    from tqdm import tqdm

    stats = statistics(d)
    start_values = _start(d, chains, seed)
    total = warmup + draws
    with _LOCK, jax.enable_x64(True):
        compilation_cache()
        start, advance = _programs((d.shape[0], stats[2].shape[1]), chains, warmup, target_accept)
        args = (
            tuple(jax.numpy.asarray(s, dtype=jax.numpy.float64) for s in stats),
            jax.numpy.asarray(
                [
                    priors[name]
                    for name in (
                        "intercept_location",
                        "intercept_scale",
                        "sigma_rate",
                        "group_shape",
                        "group_scale",
                    )
                ],
                dtype=jax.numpy.float64,
            ),
        )
        keys = jax.random.split(jax.random.PRNGKey(seed % 2**32), chains)
        state = start(jax.tree_util.tree_map(jax.numpy.asarray, start_values), keys, *args)
        kept: list[Any] = []
        done = 0
        with tqdm(total=total, desc="sampling", unit="it", disable=not progress) as bar:
            while done < total:
                state, (z, diverging) = advance(state, *args)
                kept.append(jax.device_get((z, diverging)))
                bar.update(min(SEGMENT, total - done))
                done += SEGMENT
    z = {name: np.concatenate([part[0][name] for part in kept])[warmup:total] for name in start_values}
    diverging = np.concatenate([part[1] for part in kept])[warmup:total]
    by_chain = {name: np.swapaxes(value, 0, 1) for name, value in z.items()}
    return _constrained(by_chain, priors), int(diverging.sum())


def _constrained(z: dict[str, np.ndarray], priors: dict[str, float]) -> dict[str, np.ndarray]:
    """The model's parameters (:data:`RECORDED`, then ``scale``, ``share`` and ``prior_sd`` by
    system) from the sampler's unconstrained ones."""
    typical = np.exp(z["log_sigma_typ"])
    sd_effect = typical * np.exp(z["log_tau"]) * priors["group_scale"]
    return {
        "mu": z["mu"],
        "sd_effect": sd_effect,
        "scale_typ": typical,
        "omega": np.exp(z["log_omega"]),
        "share_mean": np.exp(z["log_zeta"]),
        "share_sd": np.exp(z["log_kappa"]),
        "scale": np.exp(z["log_scale"]),
        "share": np.tanh(z["z"]),
        "prior_sd": np.broadcast_to(sd_effect[..., None], z["z"].shape),
    }


def _start(d: np.ndarray, chains: int, seed: int) -> dict[str, np.ndarray]:
    """Each chain's starting point, near the moments of the differences and spread between chains
    (so that R-hat can tell chains that have not met)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0]))
    spread = float(np.std(d)) or 1.0
    rows = np.maximum(np.std(d, axis=1), 1e-3 * spread) / math.sqrt(2)
    typical = float(np.median(rows))
    centre = {
        "mu": float(np.mean(d)),
        "log_sigma_typ": math.log(typical),
        "log_tau": math.log(max(float(np.std(d.mean(axis=1))), 1e-3 * spread) / typical),
        "log_omega": math.log(0.5),
        "log_zeta": math.log(0.5),
        "log_kappa": math.log(0.5),
    }
    values = {name: centre[name] + rng.uniform(-0.3, 0.3, chains) for name in HYPER}
    values["mu"] = centre["mu"] + spread * rng.uniform(-0.1, 0.1, chains)
    values["log_scale"] = np.log(rows * math.sqrt(2)) + rng.uniform(-0.3, 0.3, (chains, d.shape[0]))
    values["z"] = rng.uniform(0.0, 1.0, (chains, d.shape[0]))
    return values
