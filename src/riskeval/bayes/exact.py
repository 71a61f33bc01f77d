"""Independent, exact posterior draws of the crossed random-effects model of Benham, Carterette,
Culpepper & Moffat (SIGIR 2020, §3), ``score ~ (1 | topic) + (1 | system)``, for a complete score
matrix, under the same priors as :mod:`riskeval.bayes.model` (rstanarm's ``stan_glmer`` defaults).

For ``S`` systems × ``T`` topics, write the scores' two-way analysis of variance ``y_ij = ȳ + d_i +
g_j + r_ij`` (grand mean, system deviations, topic deviations, residual).  The covariance of the
scores given (μ, σ, σ_s, σ_t) has four eigenspaces, the grand mean, the ``S − 1`` system contrasts,
the ``T − 1`` topic contrasts and the residual, so with the effects integrated out the likelihood
depends on the data only through ȳ, ``D = Σ d_i²``, ``G = Σ g_j²`` and ``R = Σ r_ij²``::

    ȳ ~ N(m₀, s₀² + σ_s²/S + σ_t²/T + σ²/ST)     (μ ~ N(m₀, s₀²) integrated out too)
    D ~ (σ_s² + σ²/T) · χ²(S − 1)
    G ~ (σ_t² + σ²/S) · χ²(T − 1)
    R ~ σ² · χ²((S − 1)(T − 1))

(the analysis of variance of a balanced two-way random-effects layout: Searle, Casella & McCulloch,
*Variance Components*, Wiley 1992, §4.5).  The posterior of the three scales, in the coordinates
``θ = (log σ, log τ_s, log τ_t)`` (σ_s = σ·τ_s·scale, σ_t = σ·τ_t·scale, as rstanarm's ``decov()``
writes them), therefore costs O(1) per evaluation, whatever the size of the matrix.

It is sampled by rejection (von Neumann, *Various techniques used in connection with random
digits*, NBS Applied Mathematics Series 12, 1951) in the coordinates ``(log σ, ρ_s, ρ_t)`` with
``ρ = τ^min(a, 1)`` for the Gamma(a, 1) prior of τ: there the density is bounded and has no long
tail (in log τ, the tail towards a group SD of 0 decays only as ``τ^a``, and hides the largest
ratio ``p/q`` far out in it).  The proposal is a Student t (5 degrees of freedom) fitted to the
posterior: from the Laplace approximation at the mode of ``(log σ, log τ_s, log τ_t)``, the mean and
covariance of pilot proposals weighted by ``p/q`` (importance sampling, three rounds), its scales
×1.4.  Each proposal is accepted with probability ``p(θ) / (M·q(θ))``, where ``M`` is the largest
ratio ``p/q``, found by Newton's method from the centre and from the largest ratios among 4,096
draws of the proposal with doubled scales.  Accepted proposals are independent draws from the
exact posterior as long as ``M`` bounds the ratio; every proposal's ratio is checked against it,
and should one exceed it, ``M`` is raised and the draws are made again, so that all the draws
returned come from a bound that held for every proposal made.  Given the scales, the intercept,
the effects' means and their contrasts are Gaussian and independent a posteriori:

- a system's deviation from the systems' mean effect is ``w_s·d_i`` plus Gaussian noise of variance
  ``w_s·σ²/T`` projected on the contrasts, with ``w_s = σ_s² / (σ_s² + σ²/T)`` (the shrinkage of the
  best linear unbiased predictor; Robinson, *Statistical Science* 6(1), 1991, §2); the topics' alike;
- the intercept and the two means (μ, mean(b), mean(c)), Gaussian a priori, meet one Gaussian
  observation ȳ, and are drawn by conditioning a prior draw on it (Matheron's rule; Hoffman &
  Ribak, *ApJ* 380, 1991, eq. 3).

Each draw of every effect thus costs O(S + T), with no Markov chain: the draws are independent, and
the effective sample size of every parameter is the number of draws.  Everything is numpy
arithmetic, with no compilation; exponentials and logarithms go through the C library (as numpy's
own random streams do), not numpy's vectorised ones, and nothing goes through BLAS, so a seed gives
the same bits whatever the processor's vector extensions or the number of threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from riskeval.errors import RiskevalError

#: Degrees of freedom of the Student t proposal, and the factor of its scales.  For a Gaussian
#: posterior, a factor ``c`` with ``c² ≥ (ν + 3)/ν`` makes the centre the maximum of ``p/q``.
PROPOSAL_DOF = 5.0
PROPOSAL_SCALE = 1.4
#: Rounds of moment matching after the first, proposals per round (and for the bound), and how
#: many of the largest ratios ``p/q`` among them start Newton's method in search of the bound.
PILOT_ROUNDS = 2
PILOT = 4096
STARTS = 8
#: Draws of the effects made at once (memory: this many × (systems + topics) float64 numbers).
CHUNK = 1024

_exp = np.frompyfunc(math.exp, 1, 1)
_log = np.frompyfunc(math.log, 1, 1)


def _vexp(x: np.ndarray) -> np.ndarray:
    return np.asarray(_exp(x), dtype=np.float64)


def _vlog(x: np.ndarray) -> np.ndarray:
    return np.asarray(_log(x), dtype=np.float64)


@dataclass(frozen=True)
class Statistics:
    """The sufficient statistics of a complete ``S × T`` score matrix (see the module): the grand
    mean, the system and topic deviations from it, and the sums of squares ``D``, ``G``, ``R``."""

    n_systems: int
    n_topics: int
    grand: float
    rows: np.ndarray
    columns: np.ndarray
    between_systems: float
    between_topics: float
    residual: float

    @classmethod
    def of(cls, y: np.ndarray) -> Statistics:
        grand = float(y.mean())
        rows = y.mean(axis=1) - grand
        columns = y.mean(axis=0) - grand
        residual = float(np.sum((y - grand - rows[:, None] - columns[None, :]) ** 2))
        return cls(
            y.shape[0],
            y.shape[1],
            grand,
            rows,
            columns,
            float(np.sum(rows**2)),
            float(np.sum(columns**2)),
            residual,
        )


def _log_density(
    e: np.ndarray, tau_s: np.ndarray, tau_t: np.ndarray, stats: Statistics, priors: dict[str, float]
) -> np.ndarray:
    """log p(log σ = e, τ_s, τ_t | y) + const with the Jacobian of log σ but none for the τs (the
    coordinates' business), with the intercept and every effect integrated out."""
    n_s, n_t = stats.n_systems, stats.n_topics
    scale2 = priors["group_scale"] ** 2
    sigma = _vexp(e)
    var = sigma * sigma
    group_s = scale2 * tau_s * tau_s  # σ_s² / σ²
    group_t = scale2 * tau_t * tau_t
    v_s = var * (group_s + 1.0 / n_t)  # the variance of each system contrast of the row means
    v_t = var * (group_t + 1.0 / n_s)
    v_0 = priors["intercept_scale"] ** 2 + var * (group_s / n_s + group_t / n_t + 1.0 / (n_s * n_t))
    gap = stats.grand - priors["intercept_location"]
    return (
        e - priors["sigma_rate"] * sigma  # σ ~ Exponential(rate), with the Jacobian of log σ
        - tau_s - tau_t  # τ ~ Gamma(a, 1), but the factor τ^(a − 1)
        - 0.5 * _vlog(v_0) - gap * gap / (2 * v_0)
        - 0.5 * (n_s - 1) * _vlog(v_s) - stats.between_systems / (2 * v_s)
        - 0.5 * (n_t - 1) * _vlog(v_t) - stats.between_topics / (2 * v_t)
        - (n_s - 1) * (n_t - 1) * e - stats.residual / (2 * var)
    )  # fmt: skip


def log_posterior(theta: tuple[np.ndarray, ...], stats: Statistics, priors: dict[str, float]) -> np.ndarray:
    """The log density of ``θ = (log σ, log τ_s, log τ_t)`` a posteriori, up to a constant, with
    the intercept and every effect integrated out (see the module), at arrays of points."""
    e, s, t = theta
    a = priors["group_shape"]
    return _log_density(e, _vexp(s), _vexp(t), stats, priors) + a * s + a * t


def _taus(rho: np.ndarray, power: float) -> np.ndarray:
    """τ from ρ = τ^power (ρ ≥ 0)."""
    if power == 1.0:
        return rho
    safe = np.where(rho > 0, rho, 1.0)
    return np.where(rho > 0, _vexp(_vlog(safe) / power), 0.0)


def log_posterior_rho(
    theta: tuple[np.ndarray, ...], stats: Statistics, priors: dict[str, float]
) -> np.ndarray:
    """The log density of ``θ = (log σ, ρ_s, ρ_t)`` with ``ρ = τ^c``, ``c = min(a, 1)`` for the
    Gamma prior's shape a, a posteriori, up to a constant; −inf where a ρ is negative.  In these
    coordinates the density is bounded (finite at ρ = 0, a group SD of 0, when a ≤ 1, and 0 there
    when a > 1) and has no long tail: in log τ its tail towards a group SD of 0 is ``τ^a``, long
    for a ≤ 1, and ρ = τ^a for a > 1 would stretch the other tail, ``exp(−τ)``."""
    e, rho_s, rho_t = theta
    a = priors["group_shape"]
    power = min(a, 1.0)
    inside = (rho_s >= 0) & (rho_t >= 0)
    tau_s, tau_t = _taus(np.abs(rho_s), power), _taus(np.abs(rho_t), power)
    density = _log_density(e, tau_s, tau_t, stats, priors)
    if a > power:  # the prior's τ^(a − 1), which ρ = τ leaves
        positive = (tau_s > 0) & (tau_t > 0)
        logs = _vlog(np.where(positive, tau_s * tau_t, 1.0))
        density = np.where(positive, density + (a - power) * logs, -np.inf)
    return np.where(inside, density, -np.inf)


def _scalar(f: Callable[..., np.ndarray]) -> Callable[[list[float]], float]:
    return lambda x: float(f(tuple(np.array([v]) for v in x))[0])


def _derivatives(
    f: Callable[[list[float]], float], x: list[float], h: float = 1e-3
) -> tuple[float, list[float], list[list[float]]]:
    """``f(x)``, its gradient and Hessian by central differences."""
    n = len(x)

    def at(*moves: tuple[int, float]) -> float:
        point = list(x)
        for i, step in moves:
            point[i] += step
        return f(point)

    f0 = f(x)
    grad = [(at((i, h)) - at((i, -h))) / (2 * h) for i in range(n)]
    hess = [[0.0] * n for _ in range(n)]
    for i in range(n):
        hess[i][i] = (at((i, h)) - 2 * f0 + at((i, -h))) / (h * h)
        for j in range(i):
            value = (
                at((i, h), (j, h)) - at((i, h), (j, -h)) - at((i, -h), (j, h)) + at((i, -h), (j, -h))
            ) / (4 * h * h)
            hess[i][j] = hess[j][i] = value
    return f0, grad, hess


def _cholesky(a: list[list[float]]) -> list[list[float]] | None:
    """The lower Cholesky factor of a symmetric matrix, or None when it is not positive definite."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            rest = a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if not rest > 0:
                    return None
                low[i][i] = math.sqrt(rest)
            else:
                low[i][j] = rest / low[j][j]
    return low


def _solve(low: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``L Lᵀ x = b``."""
    n = len(b)
    z = [0.0] * n
    for i in range(n):
        z[i] = (b[i] - sum(low[i][k] * z[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (z[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _maximize(
    f: Callable[[list[float]], float], x: list[float], iterations: int = 200
) -> tuple[list[float], float]:
    """A local maximum of a smooth ``f`` by Newton's method with backtracking, falling back to a
    gradient step where the Hessian is not negative definite."""
    value = f(x)
    for _ in range(iterations):
        value, grad, hess = _derivatives(f, x)
        low = _cholesky([[-v for v in row] for row in hess])
        if low is not None:
            step = _solve(low, grad)
        else:
            norm = math.sqrt(sum(g * g for g in grad)) or 1.0
            step = [g / norm for g in grad]
        length = 1.0
        while length > 1e-10:
            candidate = [xi + length * si for xi, si in zip(x, step, strict=True)]
            new = f(candidate)
            if new > value:
                break
            length /= 2
        else:
            return x, value
        moved = max(abs(length * si) for si in step)
        x, value = candidate, new
        if moved < 1e-9:
            break
    return x, value


@dataclass(frozen=True)
class Proposal:
    """The Student t proposal in ``(log σ, ρ_s, ρ_t)``: ``θ = centre + root @ z / √(w/ν)`` with
    ``z`` standard normal and ``w ~ χ²(ν)/ν``; ``precision_root`` is the lower Cholesky factor R of
    the inverse of the scale matrix (``root`` = R⁻ᵀ); and the rejection bound, log M."""

    centre: list[float]
    precision_root: list[list[float]]
    root: list[list[float]]
    log_bound: float

    def log_density(self, theta: tuple[np.ndarray, ...]) -> np.ndarray:
        """log q at arrays of points, up to the constant that cancels in ``p/q``."""
        n = len(theta)
        gap = [theta[i] - self.centre[i] for i in range(n)]
        u = [
            sum((self.precision_root[k][i] * gap[k] for k in range(i, n)), np.zeros_like(gap[0]))
            for i in range(n)
        ]
        q = sum((v * v for v in u), np.zeros_like(u[0]))
        return -(PROPOSAL_DOF + n) / 2 * _vlog(1.0 + q / PROPOSAL_DOF)

    def widened(self, factor: float) -> Proposal:
        """The same proposal with its scales multiplied by ``factor``."""
        return Proposal(
            self.centre,
            [[v / factor for v in row] for row in self.precision_root],
            [[v * factor for v in row] for row in self.root],
            self.log_bound,
        )


def _start(stats: Statistics, priors: dict[str, float]) -> list[float]:
    """The analysis-of-variance (moment) estimates of the scales, in θ's coordinates."""
    n_s, n_t = stats.n_systems, stats.n_topics
    var = max(
        stats.residual / ((n_s - 1) * (n_t - 1)),
        1e-12 * (stats.between_systems + stats.between_topics) + 1e-300,
    )
    sys_var = max(stats.between_systems / (n_s - 1) - var / n_t, var / n_t)
    top_var = max(stats.between_topics / (n_t - 1) - var / n_s, var / n_s)
    g = priors["group_scale"]
    return [
        0.5 * math.log(var),
        0.5 * math.log(sys_var / var) - math.log(g),
        0.5 * math.log(top_var / var) - math.log(g),
    ]


def _laplace(
    mode: list[float], hess: list[list[float]]
) -> tuple[list[list[float]], list[list[float]]] | None:
    """R (lower, R Rᵀ = −Hessian) and R⁻ᵀ, or None when −Hessian is not positive definite."""
    low = _cholesky([[-v for v in row] for row in hess])
    if low is None:
        return None
    return low, _inverse_transpose(low)


def _inverse_transpose(low: list[list[float]]) -> list[list[float]]:
    """R⁻ᵀ of a lower triangular R: Rᵀ X = I solved column by column (Rᵀ is upper triangular)."""
    n = len(low)
    root = [[0.0] * n for _ in range(n)]
    for col in range(n):
        x = [0.0] * n
        for i in reversed(range(n)):
            x[i] = ((1.0 if i == col else 0.0) - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
        for i in range(n):
            root[i][col] = x[i]
    return root


def _moments(theta: np.ndarray, log_weight: np.ndarray) -> tuple[list[float], list[list[float]]] | None:
    """The weighted mean and the Cholesky factor of the inverse weighted covariance (None when
    that is singular) of points (``3 × n``) with log weights."""
    n = theta.shape[0]
    weight = _vexp(log_weight - np.max(log_weight))
    weight /= weight.sum()
    mean = [float(np.sum(weight * theta[i])) for i in range(n)]
    gap = [theta[i] - mean[i] for i in range(n)]
    cov = [[float(np.sum(weight * gap[i] * gap[j])) for j in range(n)] for i in range(n)]
    low = _cholesky(cov)
    if low is None:
        return None
    precision = [_solve(low, [1.0 if i == col else 0.0 for i in range(n)]) for col in range(n)]
    root = _cholesky([[v * PROPOSAL_SCALE**-2 for v in row] for row in precision])
    return (mean, root) if root is not None else None


def _with_root(centre: list[float], low: list[list[float]]) -> Proposal:
    return Proposal(list(centre), low, _inverse_transpose(low), 0.0)


def proposal(stats: Statistics, priors: dict[str, float], rng: np.random.Generator) -> Proposal:
    """The proposal and its bound.  The Laplace approximation at the mode of ``(log σ, log τ_s,
    log τ_t)`` (where the mode is interior) gives the first pilot proposals; their mean and
    covariance in ``(log σ, ρ_s, ρ_t)``, weighted by ``p/q``, give a Student t there (scales ×
    ``PROPOSAL_SCALE``), refined by ``PILOT_ROUNDS`` more rounds.  The bound is the largest of the
    ratios ``p/q`` at ``PILOT`` draws of that proposal with doubled scales and of the local maxima
    that Newton's method finds from the centre and from the ``STARTS`` largest of those ratios,
    the ratio taken at the nearest point with ρ ≥ 0 where a step crosses ρ = 0 (the same largest
    value)."""
    f = _scalar(lambda theta: log_posterior(theta, stats, priors))
    mode, top = _maximize(f, _start(stats, priors))
    _, _, hess = _derivatives(f, mode)
    laplace = _laplace(mode, hess) if math.isfinite(top) else None
    if laplace is None:
        raise RiskevalError(
            "The posterior of the variance components has no finite mode with a negative definite "
            "curvature for these scores; fit them with sampler='nuts'."
        )
    a = priors["group_shape"]
    shape = _with_root(mode, laplace[0]).widened(PROPOSAL_SCALE)
    theta, log_q = _propose(shape, rng, PILOT)
    log_weight = log_posterior(theta, stats, priors) - log_q
    power = min(a, 1.0)
    points = np.array([theta[0], _vexp(power * theta[1]), _vexp(power * theta[2])])
    for round in range(PILOT_ROUNDS + 1):
        found = _moments(points, log_weight)
        if found is None:
            break
        shape = _with_root(*found)
        if round < PILOT_ROUNDS:
            drawn, log_q = _propose(shape, rng, PILOT)
            points, log_weight = np.array(drawn), log_posterior_rho(drawn, stats, priors) - log_q
    final = shape

    def clamped(theta: tuple[np.ndarray, ...]) -> np.ndarray:
        inside = (theta[0], np.maximum(theta[1], 0.0), np.maximum(theta[2], 0.0))
        return log_posterior_rho(inside, stats, priors) - final.log_density(inside)

    drawn, _ = _propose(final.widened(2.0), rng, PILOT)
    log_ratio = clamped(drawn)
    pilot = np.array(drawn)
    best = float(np.max(log_ratio))
    ratio = _scalar(clamped)
    starts = [final.centre] + [
        list(map(float, pilot[:, k])) for k in np.argsort(-log_ratio, kind="stable")[:STARTS]
    ]
    for start in starts:
        best = max(best, _maximize(ratio, start)[1])
    return Proposal(final.centre, final.precision_root, final.root, best)


def _propose(
    shape: Proposal, rng: np.random.Generator, count: int
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """``count`` proposals and log q at each (up to the constant of :meth:`Proposal.log_density`)."""
    n = len(shape.centre)
    z = rng.standard_normal((n, count))
    w = rng.chisquare(PROPOSAL_DOF, count) / PROPOSAL_DOF
    scale = 1.0 / np.sqrt(w)
    theta = tuple(
        shape.centre[i] + sum((shape.root[i][k] * z[k] for k in range(n)), np.zeros(count)) * scale
        for i in range(n)
    )
    q = sum((z[k] * z[k] for k in range(n)), np.zeros(count)) / w
    return theta, -(PROPOSAL_DOF + n) / 2 * _vlog(1.0 + q / PROPOSAL_DOF)


def scales(
    stats: Statistics, priors: dict[str, float], draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``draws`` independent posterior draws of σ, τ_s, τ_t by rejection, and the share of
    proposals accepted."""
    shape = proposal(stats, priors, rng)
    state = rng.bit_generator.state
    while True:
        kept: list[tuple[np.ndarray, ...]] = []
        have = made = 0
        rate = 0.3
        raised = False
        while have < draws:
            count = max(1024, int((draws - have) / rate * 1.1))
            theta, log_q = _propose(shape, rng, count)
            log_ratio = log_posterior_rho(theta, stats, priors) - log_q
            worst = float(np.max(log_ratio))
            if not worst <= shape.log_bound:
                # the bound failed somewhere: raise it above what was seen, and start again
                shape = Proposal(shape.centre, shape.precision_root, shape.root, worst + 0.1)
                rng.bit_generator.state = state
                raised = True
                break
            # a proposal outside ρ ≥ 0 has ratio 0 (log −inf): never accepted
            accept = _vlog(1.0 - rng.random(count)) < log_ratio - shape.log_bound
            kept.append(tuple(part[accept] for part in theta))
            have += int(accept.sum())
            made += count
            rate = max(have / made, 0.01)
        if not raised:
            break
    e, rho_s, rho_t = (np.concatenate([part[i] for part in kept])[:draws] for i in range(3))
    power = min(priors["group_shape"], 1.0)
    return _vexp(e), _taus(rho_s, power), _taus(rho_t, power), have / made


def sample(
    y: np.ndarray, priors: dict[str, float], *, draws: int, seed: int
) -> tuple[dict[str, np.ndarray], float]:
    """``draws`` independent posterior draws of the model for the complete scores ``y`` (float64,
    systems × topics), as ``{name: array[1, draws, ...]}`` with the names of
    :func:`riskeval.bayes.model.sample` (one sequence: no chains), and the share of the proposals
    of the scales that was accepted."""
    stats = Statistics.of(y)
    if not stats.residual > 0:
        raise RiskevalError(
            "The scores are exactly a system effect plus a topic effect (the residual sum of squares "
            "is 0), so the residual SD has no posterior scale to sample; give scores with noise."
        )
    scales_seed, effects_seed = np.random.SeedSequence(seed).spawn(2)
    sigma, tau_s, tau_t, accepted = scales(
        stats, priors, draws, np.random.Generator(np.random.PCG64(scales_seed))
    )
    result = conditional(
        stats, priors, sigma, tau_s, tau_t, np.random.Generator(np.random.PCG64(effects_seed))
    )
    return {name: value[None] for name, value in result.items()}, accepted


def conditional(
    stats: Statistics,
    priors: dict[str, float],
    sigma: np.ndarray,
    tau_s: np.ndarray,
    tau_t: np.ndarray,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """One draw of the intercept and every effect from their Gaussian posterior given each draw of
    the scales (σ, τ_s, τ_t), in O(systems + topics) each (see the module); the scales' draws are
    returned with them as ``sigma``, ``sd_system`` and ``sd_topic``."""
    draws = sigma.shape[0]
    n_s, n_t = stats.n_systems, stats.n_topics
    var = sigma * sigma
    sd_system = sigma * tau_s * priors["group_scale"]
    sd_topic = sigma * tau_t * priors["group_scale"]
    var_s, var_t = sd_system * sd_system, sd_topic * sd_topic
    # (μ, mean b, mean c) | ȳ: a prior draw conditioned on the one observation ȳ (Matheron's rule)
    prior_var = (np.full(draws, priors["intercept_scale"] ** 2), var_s / n_s, var_t / n_t)
    prior_mean = (priors["intercept_location"], 0.0, 0.0)
    noise = rng.standard_normal((4, draws))
    prior_draw = [m + np.sqrt(v) * z for m, v, z in zip(prior_mean, prior_var, noise, strict=False)]
    total = prior_var[0] + prior_var[1] + prior_var[2] + var / (n_s * n_t)
    miss = (
        stats.grand - (prior_draw[0] + prior_draw[1] + prior_draw[2] + np.sqrt(var / (n_s * n_t)) * noise[3])
    ) / total
    intercept, mean_b, mean_c = (d + v * miss for d, v in zip(prior_draw, prior_var, strict=True))
    # the contrasts: shrunk deviations plus noise projected on the contrasts (centred normals)
    shrink_s = var_s / (var_s + var / n_t)
    shrink_t = var_t / (var_t + var / n_s)
    b_system = _effects(rng, mean_b, shrink_s, np.sqrt(shrink_s * var / n_t), stats.rows)
    b_topic = _effects(rng, mean_c, shrink_t, np.sqrt(shrink_t * var / n_s), stats.columns)
    return {
        "intercept": intercept,
        "sigma": sigma,
        "sd_system": sd_system,
        "sd_topic": sd_topic,
        "b_system": b_system,
        "b_topic": b_topic,
    }


def _effects(
    rng: np.random.Generator, mean: np.ndarray, shrink: np.ndarray, spread: np.ndarray, deviations: np.ndarray
) -> np.ndarray:
    """Draws of ``mean + shrink·deviations + spread·(z − mean(z))``, ``CHUNK`` draws at a time."""
    draws, n = mean.shape[0], deviations.shape[0]
    out = np.empty((draws, n))
    for start in range(0, draws, CHUNK):
        part = slice(start, min(start + CHUNK, draws))
        z = rng.standard_normal((part.stop - start, n))
        z -= z.mean(axis=1, keepdims=True)
        z *= spread[part, None]
        z += shrink[part, None] * deviations[None, :]
        z += mean[part, None]
        out[part] = z
    return out
