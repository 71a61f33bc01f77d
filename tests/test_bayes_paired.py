"""The paired model of champion and challengers (``riskeval.bayes.paired``): its density against the
dense multivariate normal it integrates, its exact draws of the system effects against the Gaussian
conditional, and, slow, against an independent NumPyro implementation of the same model with every
topic and system effect sampled, its calibration and power by simulation
(``benchmarks/sim_bayes_paired.py``), Ctrl-C, and the persistent compilation cache."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from riskeval.bayes import Priors, champion_challengers, paired
from tests.shared_data import ROOT

PRIORS = np.array([0.1, 0.5, 2.0, 1.5, 1.2])  # location, scale, sigma rate, group shape, group scale


def _parameters(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    params = {name: np.asarray(rng.normal() * 0.3) for name in paired.HYPER}
    params.update(log_scale=rng.normal(size=n) * 0.3 - 1, z=rng.normal(size=n))
    return params


def _dense(d: np.ndarray, p: dict[str, np.ndarray]) -> float:
    """log N(vec(d); μ, I_T ⊗ Σ + σ_θ² 1 1ᵀ ⊗ I): θ and u integrated out by brute force, plus
    the log prior density of the unconstrained parameters, written from the model's definition."""
    n, t = d.shape
    loc, scale, rate, shape, group_scale = PRIORS
    s, f = np.exp(p["log_scale"]), np.tanh(p["z"])
    typical, tau = np.exp(p["log_sigma_typ"]), np.exp(p["log_tau"])
    omega, zeta, kappa = np.exp(p["log_omega"]), np.exp(p["log_zeta"]), np.exp(p["log_kappa"])
    sigma = np.diag((s * np.sqrt(1 - f**2)) ** 2) + np.outer(s * f, s * f)
    cov = np.kron(np.eye(t), sigma) + (typical * tau * group_scale) ** 2 * np.kron(np.ones((t, t)), np.eye(n))
    likelihood = stats.multivariate_normal(np.full(n * t, p["mu"]), cov).logpdf(d.T.reshape(-1))
    prior = (
        stats.norm(loc, scale).logpdf(p["mu"])
        + stats.expon(scale=1 / rate).logpdf(typical) + p["log_sigma_typ"]
        + stats.gamma(shape).logpdf(tau) + p["log_tau"]
        + sum(stats.halfnorm().logpdf(np.exp(p[k])) + p[k] for k in ("log_omega", "log_zeta", "log_kappa"))
        + stats.norm(p["log_sigma_typ"], omega).logpdf(p["log_scale"]).sum()
        + stats.norm(zeta, kappa).logpdf(p["z"]).sum()
    )  # fmt: skip
    return float(likelihood + prior)


def test_the_integrated_density_is_the_dense_model_up_to_a_constant():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(0)
    d = rng.normal(0.1, 0.3, (5, 7))
    with jax.enable_x64(True):
        stats_ = tuple(jax.numpy.asarray(x) for x in paired.statistics(d))
        points = [_parameters(rng, 5) for _ in range(4)]
        gaps = [
            float(paired.log_density({k: jax.numpy.asarray(v) for k, v in p.items()}, stats_, PRIORS))
            - _dense(d, p)
            for p in points
        ]
    assert np.ptp(gaps) < 1e-9  # one constant: the same density; a wrong term moves some points


def test_the_scatter_factor_gives_the_scatter_matrix():
    d = np.random.default_rng(1).normal(size=(6, 4))
    mean, diagonal, factor, n_topics = paired.statistics(d)
    centred = d - d.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(factor @ factor.T, centred @ centred.T, atol=1e-12)
    np.testing.assert_allclose(diagonal, np.diag(centred @ centred.T))
    assert factor.shape == (6, 4) and n_topics == 4 and np.allclose(mean, d.mean(axis=1))


def test_the_effects_are_drawn_from_their_gaussian_conditional():
    """Matheron's rule against the conditional written densely: θ | d̄ with θ ~ N(μ, diag(b)) and
    d̄ | θ ~ N(θ, Σ/T), mean and covariance within Monte Carlo error of 200,000 draws."""
    rng = np.random.default_rng(2)
    n, t, draws = 4, 9, 200_000
    d = rng.normal(0.05, 0.2, (n, t))
    prior_sd, scale, share = (
        np.array([0.05, 0.2, 0.1, 0.08]),
        np.array([0.1, 0.3, 0.2, 0.05]),
        np.array([0.5, -0.2, 0.8, 0.0]),
    )
    drawn = {"mu": np.full((1, draws), 0.02), "prior_sd": np.broadcast_to(prior_sd, (1, draws, n)),
             "scale": np.broadcast_to(scale, (1, draws, n)), "share": np.broadcast_to(share, (1, draws, n))}  # fmt: skip
    theta = paired.effects(d, drawn, rng)[0]
    loading, sigma = scale * share, scale * np.sqrt(1 - share**2)
    noise = (np.diag(sigma**2) + np.outer(loading, loading)) / t
    precision = np.diag(1 / prior_sd**2) + np.linalg.inv(noise)
    cov = np.linalg.inv(precision)
    mean = cov @ (0.02 / prior_sd**2 + np.linalg.solve(noise, d.mean(axis=1)))
    se = np.sqrt(np.diag(cov) / draws)
    assert np.all(np.abs(theta.mean(axis=0) - mean) < 5 * se)
    np.testing.assert_allclose(np.cov(theta.T), cov, atol=5 * np.sqrt(2 / draws) * np.max(np.diag(cov)))


def _plain(d: np.ndarray, priors: dict[str, float]) -> None:
    """The paired model written as its definition, every topic and system effect sampled."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    n, t = d.shape
    mu = numpyro.sample("mu", dist.Normal(priors["intercept_location"], priors["intercept_scale"]))
    typical = numpyro.sample("typical", dist.Exponential(priors["sigma_rate"]))
    tau = numpyro.sample("tau", dist.Gamma(priors["group_shape"], 1.0))
    omega = numpyro.sample("omega", dist.HalfNormal(1.0))
    zeta = numpyro.sample("zeta", dist.HalfNormal(1.0))
    kappa = numpyro.sample("kappa", dist.HalfNormal(1.0))
    with numpyro.plate("systems", n):
        theta = numpyro.sample("theta", dist.Normal(mu, typical * tau * priors["group_scale"]))
        scale = jnp.exp(numpyro.sample("log_scale", dist.Normal(jnp.log(typical), omega)))
        share = jnp.tanh(numpyro.sample("z", dist.Normal(zeta, kappa)))
    with numpyro.plate("topics", t):
        u = numpyro.sample("u", dist.Normal(0.0, 1.0))
    mean = theta[:, None] + (scale * share)[:, None] * u[None, :]
    numpyro.sample("d", dist.Normal(mean, (scale * jnp.sqrt(1 - share**2))[:, None]), obs=d)


@pytest.mark.slow
def test_the_paired_fit_agrees_with_an_independent_numpyro_model():
    """Each challenger's posterior mean, 95% bounds and P(better) from the paired fit (effects
    integrated out, drawn exactly) and from :func:`_plain` (NumPyro's NUTS on every effect), within
    Monte Carlo error: 4 standard errors of the means (ArviZ's MCSE of both), 0.25 posterior SD for
    the bounds and 0.04 for the probabilities."""
    import arviz as az
    import jax
    from numpyro.infer import MCMC, NUTS

    rng = np.random.default_rng(4)
    t = 30
    champion = rng.normal(0.3, 0.15, t)
    rows = {"champ": champion, "variant": champion + np.where(rng.random(t) < 0.8, 0.05, -0.08)}
    for k in range(5):
        rows[f"run{k}"] = champion.mean() + rng.normal(0, 0.05) + rng.normal(0, 0.12, t)
    X = pd.DataFrame(rows).T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = champion_challengers(X, "champ", list(X.index[1:]), model="paired", draws=4_000, rng=5).fits[
            0.0
        ]
    d = X.iloc[1:].to_numpy() - X.loc["champ"].to_numpy()
    with jax.enable_x64(True):
        mcmc = MCMC(NUTS(_plain, target_accept_prob=0.95), num_warmup=1_000, num_samples=4_000,
                    num_chains=4, chain_method="vectorized", progress_bar=False)  # fmt: skip
        mcmc.run(jax.random.PRNGKey(6), d, Priors().resolve(d))
        plain = np.asarray(mcmc.get_samples(group_by_chain=True)["theta"])
    ours = fitted.idata.posterior["b_system"].values[:, :, 1:]
    for i in range(d.shape[0]):
        a, b = ours[:, :, i], plain[:, :, i]
        se = math.hypot(*(float(az.mcse(az.convert_to_dataset({"x": v}))["x"]) for v in (a, b)))
        assert abs(a.mean() - b.mean()) < 4 * se, X.index[i + 1]
        for q in (0.025, 0.975):
            assert abs(np.quantile(a, q) - np.quantile(b, q)) < 0.25 * b.std(), (X.index[i + 1], q)
        assert abs(np.mean(a > 0) - np.mean(b > 0)) < 0.04, X.index[i + 1]


@pytest.mark.slow
def test_calibrated_and_as_powerful_as_the_paired_t_test_by_simulation():
    """``benchmarks/sim_bayes_paired.py`` on 30 collections at α = 0 (the benchmark runs 200 at
    α = 0 and 5): coverage of the 95% intervals within 2 Monte Carlo SE of 0.95 or above, power of
    P(better) > 0.95 at least the one-sided paired t-test's minus 2 SE, false claims at most 5% plus
    2 SE, for challengers that are variants of the champion and for systems of the crossed model."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import sim_bayes_paired as sim
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    table = sim.summary(sim.run(30, [0.0], ["paired"], seed=7, draws=500, warmup=500))
    for _, row in table.iterrows():
        assert row["coverage"] >= 0.95 - 2 * max(row["coverage_se"], math.sqrt(0.95 * 0.05 / 60)), row
        assert row["power"] >= row["t_power"] - 2 * max(row["power_se"], row["t_power_se"]), row
        assert row["false"] <= 0.05 + 2 * max(row["false_se"], math.sqrt(0.05 * 0.95 / 30)), row


def _riskeval(args: list[str], env: dict[str, str], **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "riskeval", *args], env=env, text=True, **options)


@pytest.mark.slow
def test_ctrl_c_stops_a_fit_between_two_segments_with_status_130_and_no_output(tmp_path):
    """SIGINT while the chains run: the command ends long before its draws would (10 million
    iterations), with status 130, nothing on stdout and no output file."""
    scores = tmp_path / "scores.csv"
    rng = np.random.default_rng(8)
    pd.DataFrame(rng.random((5, 12)), index=[f"s{i}" for i in range(5)]).rename_axis("system").to_csv(scores)
    out = tmp_path / "table.csv"
    env = {**os.environ, "RISKEVAL_JAX_CACHE": str(tmp_path / "cache")}
    process = _riskeval(["bayes", str(scores), "--champion", "s0", "--model", "paired", "--chains", "1", "--draws", "10000000",
                         "--progress", "-o", str(out)], env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    seen = threading.Event()
    err: list[str] = []

    def watch() -> None:  # the bar counts a finished segment: the chains are running
        while chunk := process.stderr.read(1):
            err.append(chunk)
            if re.search(r"\b[1-9]\d*/10001000\b", "".join(err[-200:])):
                seen.set()

    threading.Thread(target=watch, daemon=True).start()
    assert seen.wait(600), "".join(err)
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    stdout, _ = process.communicate(timeout=120)
    assert process.returncode == 130, "".join(err)
    assert stdout == "" and not out.exists()
    assert time.monotonic() - started < 120  # far from the hours the draws would take


@pytest.mark.slow
def test_a_second_process_compiles_nothing(tmp_path):
    """The compiled sampler is written to the cache folder by the first process and loaded by the
    second, which adds no entry (every compilation is kept, whatever its time or size)."""
    cache = tmp_path / "cache"
    code = (
        "import numpy as np, pandas as pd, warnings; from riskeval.bayes import champion_challengers;"
        "warnings.simplefilter('ignore');"
        "X = pd.DataFrame(np.random.default_rng(9).random((4, 10)), index=list('abcd'));"
        "champion_challengers(X, 'a', model='paired', draws=50, warmup=50, chains=2, rng=1)"
    )
    env = {**os.environ, "RISKEVAL_JAX_CACHE": str(cache)}
    for run in range(2):
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr
        assert "Very slow compile" not in result.stderr and "E1206" not in result.stderr
        entries = sorted(p.name for p in cache.iterdir())
        if run == 0:
            first = entries
            assert any(name.startswith("jit_advance") for name in first), first
    assert entries == first
