"""The exact sampler of the crossed random-effects model (``riskeval.bayes.exact``) against
independent computations of the same posterior: the model written cell by cell with a dense
Gaussian conditional (scipy and numpy linear algebra on the whole design matrix), numerical
integration of the variance components' posterior on a grid, ArviZ's effective sample size, and
NumPyro's No-U-Turn sampler; and its seeds, bit for bit."""

import hashlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from riskeval.bayes import BayesDiagnosticWarning, Priors, exact, fit
from riskeval.errors import RiskevalError
from tests.shared_data import ROOT, shared_data


def scores(n_systems=6, n_topics=40, system_sd=0.1, seed=0):
    """Scores drawn from the model (intercept 0.3, topic SD 0.15, residual SD 0.05)."""
    rng = np.random.default_rng(seed)
    values = (
        0.3
        + rng.normal(0, system_sd, (n_systems, 1))
        + rng.normal(0, 0.15, (1, n_topics))
        + rng.normal(0, 0.05, (n_systems, n_topics))
    )
    return pd.DataFrame(
        values, index=[f"s{i}" for i in range(n_systems)], columns=[f"t{j}" for j in range(n_topics)]
    )


X = scores()
#: No system effect at all: the posterior of the system SD piles up near 0 (a skewed, long-tailed
#: marginal in log τ_s, the hardest shape for the rejection sampler's proposal).
FLAT = scores(n_systems=5, n_topics=30, system_sd=0.0, seed=3)


def dense_conditional(y, priors, sigma, sd_s, sd_t):
    """The Gaussian posterior of (μ, b_1..S, c_1..T) given the scales, from the design matrix of
    ``y_ij = μ + b_i + c_j + ε_ij`` cell by cell: precision XᵀX/σ² + prior precision."""
    n_s, n_t = y.shape
    design = np.zeros((n_s * n_t, 1 + n_s + n_t))
    design[:, 0] = 1
    for i in range(n_s):
        for j in range(n_t):
            design[i * n_t + j, 1 + i] = 1
            design[i * n_t + j, 1 + n_s + j] = 1
    prior_precision = np.diag([priors["intercept_scale"] ** -2] + [sd_s**-2] * n_s + [sd_t**-2] * n_t)
    precision = design.T @ design / sigma**2 + prior_precision
    shift = design.T @ y.reshape(-1) / sigma**2
    shift[0] += priors["intercept_location"] / priors["intercept_scale"] ** 2
    cov = np.linalg.inv(precision)
    return cov @ shift, cov


def plain_log_joint(y, priors, theta, x):
    """log p(θ, μ, b, c | y) + const, cell by cell, with θ = (log σ, log τ_s, log τ_t)."""
    n_s, n_t = y.shape
    sigma, tau_s, tau_t = np.exp(theta)
    sd_s, sd_t = sigma * tau_s * priors["group_scale"], sigma * tau_t * priors["group_scale"]
    mu, b, c = x[0], x[1 : 1 + n_s], x[1 + n_s :]
    return (
        st.expon.logpdf(sigma, scale=1 / priors["sigma_rate"])
        + st.gamma.logpdf(tau_s, priors["group_shape"])
        + st.gamma.logpdf(tau_t, priors["group_shape"])
        + np.sum(theta)  # the Jacobian of the logarithms
        + st.norm.logpdf(mu, priors["intercept_location"], priors["intercept_scale"])
        + st.norm.logpdf(b, 0, sd_s).sum()
        + st.norm.logpdf(c, 0, sd_t).sum()
        + st.norm.logpdf(y, mu + b[:, None] + c[None, :], sigma).sum()
    )


def test_the_marginal_density_is_the_joint_over_the_gaussian_conditional():
    """p(θ | y) = p(θ, μ, b, c | y) / p(μ, b, c | θ, y): the sampler's O(1) density of the scales,
    from the analysis-of-variance sums of squares, differs from the cell-by-cell joint over the
    dense Gaussian conditional by the same constant at every θ and every (μ, b, c)."""
    y = scores(n_systems=4, n_topics=5).to_numpy()
    priors = Priors().resolve(y)
    stats = exact.Statistics.of(y)
    rng = np.random.default_rng(1)
    gaps = []
    for _ in range(12):
        theta = rng.normal([-3.0, 0.0, 0.5], 0.8)
        sigma, tau_s, tau_t = np.exp(theta)
        mean, cov = dense_conditional(y, priors, sigma, sigma * tau_s, sigma * tau_t)
        x = rng.multivariate_normal(mean, cov) + rng.normal(0, 0.05, mean.size)
        marginal = exact.log_posterior(tuple(np.array([v]) for v in theta), stats, priors)[0]
        conditional = st.multivariate_normal(mean, cov).logpdf(x)
        gaps.append(marginal - (plain_log_joint(y, priors, theta, x) - conditional))
    assert np.ptp(gaps) < 1e-7, gaps


def test_the_effects_given_the_scales_are_the_dense_gaussian_conditional():
    """40,000 draws of (μ, b, c) at fixed scales, whitened by the dense conditional's mean and
    Cholesky factor: mean 0 and covariance I within 5 Monte Carlo standard errors (1/√n)."""
    y = scores(n_systems=4, n_topics=6).to_numpy()
    priors = Priors().resolve(y)
    sigma, tau_s, tau_t = 0.05, 1.5, 2.5
    n = 40_000
    drawn = exact.conditional(
        exact.Statistics.of(y),
        priors,
        np.full(n, sigma),
        np.full(n, tau_s),
        np.full(n, tau_t),
        np.random.default_rng(2),
    )
    x = np.column_stack([drawn["intercept"], drawn["b_system"], drawn["b_topic"]])
    mean, cov = dense_conditional(y, priors, sigma, sigma * tau_s, sigma * tau_t)
    white = np.linalg.solve(np.linalg.cholesky(cov), (x - mean).T).T
    assert np.abs(white.mean(axis=0)).max() < 5 / np.sqrt(n)
    assert np.abs(np.cov(white.T) - np.eye(x.shape[1])).max() < 5 * np.sqrt(2 / n)
    assert np.all(drawn["sd_system"] == sigma * tau_s) and np.all(drawn["sigma"] == sigma)


@pytest.mark.parametrize("shape", [0.5, 1.0, 3.0])
def test_the_sampling_coordinates_are_the_log_coordinates_with_their_jacobian(shape):
    """The density of (log σ, ρ_s, ρ_t), ρ = τ^c with c = min(a, 1), is that of (log σ, log τ_s,
    log τ_t) times the Jacobian |d log τ / dρ| = 1/(c·ρ) of each group: their logarithms differ by
    −c·(log τ_s + log τ_t) and a constant; negative ρ has density 0."""
    y = X.to_numpy()
    priors = Priors(group_shape=shape).resolve(y)
    stats = exact.Statistics.of(y)
    power = min(shape, 1.0)
    theta = np.random.default_rng(6).normal([-3.0, 0.0, 0.5], 0.7, size=(40, 3)).T
    in_rho = (theta[0], np.exp(power * theta[1]), np.exp(power * theta[2]))
    gaps = exact.log_posterior_rho(in_rho, stats, priors) - exact.log_posterior(tuple(theta), stats, priors)
    gaps += power * (theta[1] + theta[2])
    assert np.ptp(gaps) < 1e-9, gaps
    outside = (theta[0][:2], np.array([-0.1, 0.2]), np.array([0.3, -1e-9]))
    assert np.all(exact.log_posterior_rho(outside, stats, priors) == -np.inf)


@pytest.mark.parametrize(
    ("data", "shape"),
    [(X, 1.0), (FLAT, 1.0), (X, 0.5), (FLAT, 3.0)],
    ids=["informative", "no-system-effect", "informative-shape-0.5", "no-system-effect-shape-3"],
)
def test_the_scales_follow_their_posterior_integrated_on_a_grid(data, shape):
    """The rejection sampler's draws of log σ, log τ_s and log τ_t against the posterior
    integrated numerically (midpoint rule on a 48³ grid spanning the draws and beyond), under the
    default prior of the group SDs' τ (Gamma(1, 1)) and under Gamma(0.5, 1) and Gamma(3, 1): at the
    draws' 5%, 25%, 50%, 75% and 95% points of each coordinate, the grid's cumulative probability
    is the nominal one within 4.5 binomial standard errors."""
    y = data.to_numpy()
    priors = Priors(group_shape=shape).resolve(y)
    stats = exact.Statistics.of(y)
    n = 10_000
    sigma, tau_s, tau_t, accepted = exact.scales(stats, priors, n, np.random.default_rng(4))
    assert 0.01 < accepted < 0.9
    theta = np.log(np.column_stack([sigma, tau_s, tau_t]))
    low, high = theta.min(axis=0), theta.max(axis=0)
    width = high - low
    axes = [np.linspace(lo - 0.3 * w, hi + 0.3 * w, 48) for lo, hi, w in zip(low, high, width, strict=True)]
    grid = np.meshgrid(*axes, indexing="ij")
    log_p = exact.log_posterior(tuple(g.reshape(-1) for g in grid), stats, priors).reshape(grid[0].shape)
    weight = np.exp(log_p - log_p.max())
    weight /= weight.sum()
    # the grid holds the posterior: its edges carry next to nothing
    for k in range(3):
        marginal = weight.sum(axis=tuple(i for i in range(3) if i != k))
        assert marginal[0] < 1e-4 and marginal[-1] < 1e-4, (k, marginal[:3], marginal[-3:])
        cells = np.cumsum(marginal)
        for q in (0.05, 0.25, 0.5, 0.75, 0.95):
            point = np.quantile(theta[:, k], q)
            # the grid's CDF at the point, the midpoint cell split linearly
            step = axes[k][1] - axes[k][0]
            position = (point - axes[k][0]) / step + 0.5
            index = int(position)
            below = cells[index - 1] + (position - index) * marginal[index]
            assert abs(below - q) < 4.5 * np.sqrt(q * (1 - q) / n), (k, q, below)


def test_a_bound_found_too_low_is_raised_and_the_draws_made_again(monkeypatch):
    """A rejection bound below the true largest ratio p/q would bias the draws: the sampler sees
    the ratio exceed it, raises it, starts again, and its draws follow the same posterior as with
    the bound found by Newton's method (means of the three scales within 5 standard errors)."""
    y = X.to_numpy()
    priors = Priors().resolve(y)
    stats = exact.Statistics.of(y)
    found = exact.proposal(stats, priors, np.random.default_rng(0))
    made: list[exact.Proposal] = []

    def low_bound(*args):
        shape = exact.Proposal(found.centre, found.precision_root, found.root, found.log_bound - 3.0)
        made.append(shape)
        return shape

    n = 8_000
    right = np.column_stack(exact.scales(stats, priors, n, np.random.default_rng(5))[:3])
    monkeypatch.setattr(exact, "proposal", low_bound)
    calls = []
    propose = exact._propose
    monkeypatch.setattr(exact, "_propose", lambda *a: calls.append(a[0].log_bound) or propose(*a))
    again = np.column_stack(exact.scales(stats, priors, n, np.random.default_rng(5))[:3])
    assert made and calls[0] == found.log_bound - 3.0 and max(calls) > found.log_bound - 1.0
    standard_error = np.sqrt(right.var(axis=0) * 2 / n)
    assert np.all(np.abs(again.mean(axis=0) - right.mean(axis=0)) < 5 * standard_error)


def test_the_draws_are_independent_by_arviz_and_the_fit_says_which_sampler_answered():
    """ArviZ's bulk ESS of the draws (one sequence) is about their number, as for independent
    draws; the diagnostics table says so (ESS = draws, no R-hat) and the checks ask for more draws
    of the variance components too when there are fewer than 10,000."""
    az = pytest.importorskip("arviz")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = fit(X, chains=1, draws=4_000, rng=3)
    assert f.sampler == "exact" and f.divergences == 0
    assert repr(f) == "BayesFit(6 systems × 40 topics, 4000 independent exact draws, seed=3)"
    for name in ("sigma", "sd_system", "sd_topic", "intercept"):
        assert az.ess(f.samples[name][0], method="bulk") > 0.8 * 4_000, name
    assert (az.ess(f.idata, method="bulk")["b_system"].values > 0.8 * 4_000).all()
    table = f.diagnostics()
    assert table["rhat"].isna().all() and (table[["ess_bulk", "ess_tail"]] == 4_000).all().all()
    assert len(table) == 4 + 6 + 40
    (warning,) = [w for w in caught if issubclass(w.category, BayesDiagnosticWarning)]
    text = str(warning.message)
    assert "4 intercept and standard deviation(s) is below 10,000" in text
    assert "6 system effect(s) is below 10,000" in text and "R-hat" not in text
    assert fit(X, rng=3).problems() == []  # 4 × 4,000 = 16,000 independent draws


def test_the_sampler_parameter_and_additive_scores_are_refused_clearly():
    with pytest.raises(
        RiskevalError, match=r"'sampler' parameter of fit must be one of exact, nuts; got 'gibbs'"
    ):
        fit(X, sampler="gibbs")
    additive = pd.DataFrame(np.add.outer([0.0, 1.0], [0.0, 1.0, 2.0]))  # residuals exactly 0
    with pytest.raises(RiskevalError, match="residual sum of squares is 0"):
        fit(additive)


DIGEST = """
import hashlib, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_bayes_exact import X
from riskeval.bayes import fit
f = fit(X, rng=11, check=False)
print(hashlib.sha256(b"".join(np.ascontiguousarray(v).tobytes() for v in f.samples.values())).hexdigest())
"""


def test_a_seed_gives_the_same_bits_with_or_without_vector_extensions_and_threads():
    """The draws, every variable, in this process and in fresh ones with numpy's AVX2 and AVX-512
    code paths turned off (where numpy's own exp and log give other bits) and with one BLAS
    thread; another seed gives other draws."""
    f = fit(X, rng=11, check=False)
    here = hashlib.sha256(b"".join(np.ascontiguousarray(v).tobytes() for v in f.samples.values())).hexdigest()
    again = fit(X, rng=11, check=False)
    for name, values in f.samples.items():
        np.testing.assert_array_equal(again.samples[name], values)
    assert not np.array_equal(fit(X, rng=12, check=False).samples["b_system"], f.samples["b_system"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    plain = {
        **env,
        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
        "OPENBLAS_NUM_THREADS": "1",
    }
    script = DIGEST.format(tests=str(ROOT / "tests"))
    for variables in (env, plain):
        out = subprocess.run(
            [sys.executable, "-c", script], env=variables, capture_output=True, text=True, check=True
        )
        assert out.stdout.split() == [here], out.stderr


@pytest.mark.slow  # JAX compiles the NUTS program: tens of seconds on two cores
def test_exact_and_nuts_agree_within_monte_carlo_error():
    """The same posterior by two samplers on 6 systems × 40 topics: NumPyro's NUTS (2 chains × 1,000
    draws) and 16,000 exact draws; every posterior mean (intercept, the three SDs, every system
    and topic effect) within 4.5 combined Monte Carlo standard errors (ArviZ's MCSE for NUTS,
    SD/√n for the exact draws)."""
    pytest.importorskip("numpyro")
    az = pytest.importorskip("arviz")
    nuts = fit(X, sampler="nuts", chains=2, draws=1_000, warmup=500, rng=1, check=False)
    exact_fit = fit(X, rng=1)
    assert nuts.sampler == "nuts"
    mcse = az.mcse(nuts.idata)
    for name in ("intercept", "sigma", "sd_system", "sd_topic", "b_system", "b_topic"):
        a, b = nuts.draws(name), exact_fit.draws(name)
        error = np.sqrt(np.asarray(mcse[name].values) ** 2 + b.var(axis=0) / b.shape[0])
        z = np.abs(a.mean(axis=0) - b.mean(axis=0)) / error
        assert np.all(z < 4.5), (name, z.max())


@pytest.mark.slow  # three NUTS fits with the defaults (4 × 4,000 draws): a minute or more on two cores
@pytest.mark.parametrize("collection", ["rb04", "trec17", "trec18"])
def test_exact_and_nuts_agree_on_the_benham_collections(collection):
    """Benham, Carterette, Culpepper & Moffat's collections (SIGIR 2020; 45 systems × 50 topics of
    AP), both samplers with their defaults: the posterior mean of every system effect and of the
    three SDs within 4.5 combined Monte Carlo standard errors, the 95% bounds of every system effect
    within 0.003 AP (about 5 standard errors of a 2.5% quantile at 10,000 effective draws and a
    posterior SD of 0.02), and each challenger's probability of beating the champion within 4.5
    binomial standard errors of the two samplers' draws (NUTS's at its smallest bulk ESS)."""
    pytest.importorskip("numpyro")
    az = pytest.importorskip("arviz")

    path = shared_data("benham2020-bayesian-risk", f"{collection}_data.csv")
    data = pd.read_csv(path).pivot(index="system", columns="topic", values="score")
    nuts = fit(data, sampler="nuts", rng=0, check=False)
    exact_fit = fit(data, rng=0)
    mcse = az.mcse(nuts.idata)
    for name in ("sigma", "sd_system", "sd_topic", "b_system"):
        a, b = nuts.draws(name), exact_fit.draws(name)
        error = np.sqrt(np.asarray(mcse[name].values) ** 2 + b.var(axis=0) / b.shape[0])
        z = np.abs(a.mean(axis=0) - b.mean(axis=0)) / error
        assert np.all(z < 4.5), (name, z.max())
    bounds = (nuts.system_effects() - exact_fit.system_effects())[["low", "high"]].abs()
    assert bounds.to_numpy().max() < 0.003, bounds.max()
    ess = nuts.diagnostics().query("group == 'system'")["ess_bulk"].min()
    a = nuts.compare("Champion")["p_better"]
    b = exact_fit.compare("Champion")["p_better"]
    p = (a + b) / 2
    error = np.sqrt(p * (1 - p) * (1 / ess + 1 / exact_fit.draws("sigma").size)) + 1e-4
    assert ((a - b).abs() < 4.5 * error).all(), ((a - b).abs() / error).max()
