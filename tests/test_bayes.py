"""The Bayesian crossed random-effects model of Benham, Carterette, Culpepper & Moffat (SIGIR 2020):
its parameter checks, its sampler's parameterisation and reproducibility, and what the posterior
draws are turned into (differences, probabilities, the champion's table), against numpy on the
same draws."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numpyro")

from riskeval.bayes import BayesDiagnosticWarning, Priors, champion_challengers, fit, risk_adjusted  # noqa: E402
from riskeval.bayes import model as bayes_model  # noqa: E402
from riskeval.errors import MissingTopicsError, RiskevalError  # noqa: E402
from tests.shared_data import ROOT  # noqa: E402

#: NUTS, small enough to sample in about a second; enough draws for the means, too few for the
#: checks (the exact sampler is tested in test_bayes_exact.py).
SMALL = {"chains": 2, "draws": 200, "warmup": 200, "sampler": "nuts"}


def scores(n_systems=6, n_topics=40, seed=0):
    """Scores drawn from the model with informative data (system SD 0.1, residual SD 0.05: each
    system's mean over the topics pins its effect, so the sampler needs short trajectories)."""
    rng = np.random.default_rng(seed)
    values = (
        0.3
        + rng.normal(0, 0.1, (n_systems, 1))
        + rng.normal(0, 0.15, (1, n_topics))
        + rng.normal(0, 0.05, (n_systems, n_topics))
    )
    return pd.DataFrame(
        values, index=[f"s{i}" for i in range(n_systems)], columns=[f"t{j}" for j in range(n_topics)]
    )


X = scores()


@pytest.fixture(scope="module")
def small_fit():
    return fit(X, rng=7, check=False, **SMALL)


# --- parameter checks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"intercept_scale": 0}, r"Priors\(intercept_scale=...\) must be a finite number > 0; got 0"),
        ({"sigma_rate": -1.0}, r"Priors\(sigma_rate=...\) must be a finite number > 0; got -1.0"),
        ({"group_shape": float("nan")}, r"Priors\(group_shape=...\) must be a finite number > 0; got nan"),
        (
            {"intercept_location": float("inf")},
            r"Priors\(intercept_location=...\) must be a finite number; got inf",
        ),
        ({"group_scale": "1"}, r"Priors\(group_scale=...\) must be a number; got '1'"),
        ({"sigma_rate": True}, r"Priors\(sigma_rate=...\) must be a number; got True"),
    ],
)
def test_priors_refuse_bad_numbers(kwargs, message):
    with pytest.raises(RiskevalError, match=message):
        Priors(**kwargs)


def test_default_priors_are_rstanarms_scaled_to_the_scores():
    y = X.to_numpy()
    sd = np.std(y, ddof=1)
    assert Priors().resolve(y) == pytest.approx(
        {
            "intercept_location": y.mean(),
            "intercept_scale": 2.5 * sd,
            "sigma_rate": 1 / sd,
            "group_shape": 1.0,
            "group_scale": 1.0,
        }
    )
    assert Priors(intercept_location=0.5, sigma_rate=3.0).resolve(y)["intercept_location"] == 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chains": 0}, r"'chains' parameter of fit must be an integer >= 1; got 0"),
        ({"chains": 2.0}, r"'chains' parameter of fit must be an integer >= 1; got 2.0"),
        ({"draws": 5}, r"'draws' parameter of fit must be an integer >= 10; got 5"),
        ({"warmup": True}, r"'warmup' parameter of fit must be an integer >= 10; got True"),
        ({"target_accept": 1.0}, r"'target_accept' parameter of fit must be in \(0, 1\); got 1.0"),
        ({"target_accept": "0.9"}, r"'target_accept' parameter of fit must be in \(0, 1\); got '0.9'"),
        (
            {"rng": -1},
            r"'rng' parameter of fit must be a non-negative int, None or a numpy.random.Generator. Got -1",
        ),
        ({"priors": {"sigma_rate": 1}}, r"'priors' parameter of fit must be a riskeval.bayes.Priors"),
        (
            {"chains": 1000, "draws": 100_000},
            r"chains × draws must be at most 10,000,000 \(every draw .*\); got 1000 × 100000",
        ),
    ],
)
def test_fit_refuses_bad_settings_before_sampling(kwargs, message):
    with pytest.raises(RiskevalError, match=message):
        fit(X, **kwargs)


def test_fit_refuses_missing_cells_constant_scores_and_too_small_tables():
    holed = X.copy()
    holed.iloc[1, 2] = np.nan
    with pytest.raises(
        MissingTopicsError, match=r"1 missing \(NaN\) cell\(s\), e.g. \(system, topic\) \(s1, t2\)"
    ):
        fit(holed)
    long = pd.DataFrame({"system": ["a", "a", "b"], "topic": ["x", "y", "x"], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(MissingTopicsError, match="topic 'y' has no score for 'b'"):
        fit(long)
    with pytest.raises(RiskevalError, match=r"Every score is the same number.*Priors\(intercept_scale=..."):
        fit(pd.DataFrame(np.full((3, 4), 0.5)))
    with pytest.raises(
        RiskevalError, match=r"at least 2 systems and 2 topics; the scores have 1 system\(s\) × 4"
    ):
        fit(X.iloc[:1, :4])


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_questions_about_unknown_systems_and_bad_levels_and_margins(small_fit):
    with pytest.raises(
        RiskevalError, match=r"System 'nope' is not in the fitted scores; they hold 's0', 's1'"
    ):
        small_fit.system_draws("nope")
    with pytest.raises(RiskevalError, match=r"System 'nope' is not in the fitted scores"):
        small_fit.compare("nope")
    with pytest.raises(RiskevalError, match=r"System\(s\) \['zz'\] are not in the fitted scores"):
        small_fit.compare("s0", ["s1", "zz"])
    with pytest.raises(RiskevalError, match="'s0' cannot be compared with itself"):
        small_fit.against("s0", ["s0", "s1"])
    with pytest.raises(
        RiskevalError, match=r"'level' parameter of system_effects must be in \(0, 1\); got 95"
    ):
        small_fit.system_effects(95)
    with pytest.raises(RiskevalError, match=r"'level' parameter of compare must be in \(0, 1\); got 1"):
        small_fit.compare("s0", level=1)
    with pytest.raises(RiskevalError, match="'margin' must be a finite number; got nan"):
        small_fit.compare("s0", margin=float("nan"))
    with pytest.raises(RiskevalError, match="'margin' must be a finite number; got '0.1'"):
        small_fit.p_beats_all("s0", ["s1"], margin="0.1")


# --- the risk adjustment ----------------------------------------------------------------------


def test_risk_adjusted_against_the_transform_worked_by_hand():
    table = pd.DataFrame(
        [[0.5, 0.2, 0.4], [0.3, 0.6, 0.4], [0.1, 0.1, 0.9]], index=["c", "a", "b"], columns=["x", "y", "z"]
    )
    # a − c = (−0.2, +0.4, 0): the loss on topic 0 doubles at α = 1, is ×6 at α = 5
    # b − c = (−0.4, −0.1, +0.5)
    assert risk_adjusted(table, "c", 1.0).to_numpy() == pytest.approx(
        np.array([[0.5, 0.2, 0.4], [0.1, 0.6, 0.4], [-0.3, 0.0, 0.9]])
    )
    assert risk_adjusted(table, "c", 5.0).loc["b"].to_numpy() == pytest.approx([-1.9, -0.4, 0.9])
    pd.testing.assert_frame_equal(risk_adjusted(table, "c", 0.0), table.astype(float), check_names=False)


# --- what the draws are turned into -----------------------------------------------------------


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_effects_differences_and_probabilities_against_numpy_on_the_draws(small_fit):
    b = small_fit.idata.posterior["b_system"].values.reshape(-1, 6)
    np.testing.assert_array_equal(small_fit.draws("b_system"), b)
    effects = small_fit.system_effects(0.9)
    np.testing.assert_allclose(effects["mean"], b.mean(axis=0))
    np.testing.assert_allclose(effects["low"], np.quantile(b, 0.05, axis=0))
    np.testing.assert_allclose(effects["high"], np.quantile(b, 0.95, axis=0))

    margin = 0.01
    table = small_fit.compare("s2", ["s0", "s3"], margin=margin, level=0.8)
    for name, i in (("s0", 0), ("s3", 3)):
        d = b[:, i] - b[:, 2]
        row = table.loc[name]
        assert row["diff_mean"] == pytest.approx(d.mean())
        assert row["diff_median"] == pytest.approx(np.median(d))
        assert (row["diff_low"], row["diff_high"]) == pytest.approx(tuple(np.quantile(d, [0.1, 0.9])))
        assert row["p_better"] == np.mean(d > 0)
        assert row["p_better_margin"] == np.mean(d > margin)
    assert list(small_fit.compare("s2").index) == ["s0", "s1", "s3", "s4", "s5"]

    against = small_fit.against("s3", ["s0", "s1"], margin=margin)
    assert against.index.name == "champion"
    assert against.loc["s1", "p_better_margin"] == np.mean(b[:, 3] - b[:, 1] > margin)
    assert small_fit.p_beats_all("s3", ["s0", "s1"], margin=margin) == np.mean(
        (b[:, 3] - b[:, 0] > margin) & (b[:, 3] - b[:, 1] > margin)
    )

    sds = small_fit.variance_components()
    assert list(sds.index) == ["system", "topic", "residual"]
    assert sds.loc["residual", "mean"] == pytest.approx(small_fit.draws("sigma").mean())


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_diagnostics_table_has_a_row_per_parameter(small_fit):
    table = small_fit.diagnostics()
    assert list(table.columns) == ["group", "name", "rhat", "ess_bulk", "ess_tail"]
    assert len(table) == 4 + 6 + 40
    assert list(table["group"].value_counts().sort_index().items()) == [
        ("global", 4),
        ("system", 6),
        ("topic", 40),
    ]
    assert list(table.loc[table["group"] == "topic", "name"]) == list(X.columns)
    assert table[["rhat", "ess_bulk", "ess_tail"]].notna().all().all()


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_too_few_draws_are_warned_about_not_passed_silently():
    with pytest.warns(
        BayesDiagnosticWarning, match=r"bulk effective sample size of 6 system effect\(s\) is below 10,000"
    ):
        result = fit(X, rng=7, **SMALL)
    assert any("10,000" in text for text in result.problems())


# --- the sampler ------------------------------------------------------------------------------


def test_helmert_rows_are_an_orthonormal_basis_of_the_contrasts():
    for n in (2, 3, 7):
        h = bayes_model.helmert(n)
        np.testing.assert_allclose(h @ h.T, np.eye(n - 1), atol=1e-12)
        np.testing.assert_allclose(h.sum(axis=1), 0, atol=1e-12)


def _plain_log_joint(y, p, mu, sigma, tau_s, tau_t, b, c):
    """log p(μ, σ, τ, b, c, y) of ``score ~ (1 | topic) + (1 | system)`` written cell by cell."""
    from scipy import stats

    sd_s, sd_t = sigma * tau_s * p["group_scale"], sigma * tau_t * p["group_scale"]
    return (
        stats.norm.logpdf(mu, p["intercept_location"], p["intercept_scale"])
        + stats.expon.logpdf(sigma, scale=1 / p["sigma_rate"])
        + stats.gamma.logpdf([tau_s, tau_t], p["group_shape"]).sum()
        + stats.norm.logpdf(b, 0, sd_s).sum()
        + stats.norm.logpdf(c, 0, sd_t).sum()
        + stats.norm.logpdf(y, mu + b[:, None] + c[None, :], sigma).sum()
    )


def test_the_rotated_summarised_model_is_the_cell_by_cell_model():
    """The sampled density, in the Helmert coordinates and on the scores' sufficient statistics,
    equals the cell-by-cell joint density times the Jacobian ``sd_system · sd_topic`` of the
    non-centred means, up to one constant: the same posterior."""
    import jax
    from numpyro.infer.util import log_density

    y = X.to_numpy()
    n_s, n_t = y.shape
    p = Priors(group_shape=2.0, group_scale=0.7).resolve(y)
    prior_array = np.array([p[name] for name in bayes_model.PRIOR_NAMES])
    rng = np.random.default_rng(3)
    gaps = []
    with jax.enable_x64(True):
        stats = tuple(jax.numpy.asarray(s) for s in bayes_model.summaries(y))
        for _ in range(4):
            mu, sigma, tau_s, tau_t = (
                rng.normal(0.3, 0.1),
                rng.uniform(0.03, 0.2),
                rng.uniform(0.2, 3),
                rng.uniform(0.2, 3),
            )
            b, c = rng.normal(0, 0.1, n_s), rng.normal(0, 0.2, n_t)
            sd_s, sd_t = sigma * tau_s * p["group_scale"], sigma * tau_t * p["group_scale"]
            values = {
                "sigma": sigma,
                "tau_system": tau_s,
                "tau_topic": tau_t,
                "b_system_mean_z": b.mean() * np.sqrt(n_s) / sd_s,
                "b_system_contrast": bayes_model.helmert(n_s) @ b,
                "b_topic_mean_z": c.mean() * np.sqrt(n_t) / sd_t,
                "b_topic_contrast": bayes_model.helmert(n_t) @ c,
                "level": mu + b.mean() + c.mean(),
            }
            rotated, trace = log_density(bayes_model._model, (stats, prior_array), {}, values)
            np.testing.assert_allclose(trace["b_system"]["value"], b, atol=1e-12)
            np.testing.assert_allclose(trace["intercept"]["value"], mu, atol=1e-12)
            gaps.append(
                float(rotated) - _plain_log_joint(y, p, mu, sigma, tau_s, tau_t, b, c) - np.log(sd_s * sd_t)
            )
    assert np.ptp(gaps) < 1e-8


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_a_seed_gives_the_same_bits_again(small_fit):
    again = fit(X, rng=7, check=False, **SMALL)
    other = fit(X, rng=8, check=False, **SMALL)
    for name in ("b_system", "b_topic", "intercept", "sigma"):
        np.testing.assert_array_equal(again.draws(name), small_fit.draws(name))
    assert not np.array_equal(other.draws("b_system"), small_fit.draws("b_system"))
    assert small_fit.seed == 7


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_later_fits_of_a_shape_compile_nothing_and_a_progress_bar_changes_no_bit(small_fit, capsys):
    """A fit per α or per simulated collection reuses the compiled program: JAX logs no
    compilation for a second fit of the same shape and setting, with other scores and another
    seed; the progress bar (stderr) counts every iteration and leaves the draws as they were."""
    import logging

    import jax

    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles(True):
            other = fit(X + 0.01, rng=8, check=False, **SMALL)
            shown = fit(X, rng=7, check=False, progress=True, **SMALL)
    finally:
        logger.removeHandler(handler)
    assert not [r for r in records if "Compiling" in r], records
    assert other.draws("b_system").shape == small_fit.draws("b_system").shape
    for name in ("b_system", "b_topic", "intercept", "sigma"):
        np.testing.assert_array_equal(shown.draws(name), small_fit.draws(name))
    assert "400/400" in capsys.readouterr().err


DRAWS_SCRIPT = """
import hashlib, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_bayes import SMALL, X
from riskeval.bayes import fit
from riskeval.bayes.model import _program
def digest():
    f = fit(X, rng=11, check=False, **SMALL)
    return hashlib.sha256(np.ascontiguousarray(f.draws("b_system")).tobytes()).hexdigest()
first, cached = digest(), digest()
if "--again" in sys.argv:
    _program.cache_clear()
    print(digest())
print(first, cached)
"""


@pytest.mark.slow
def test_a_seed_gives_the_same_bits_with_one_or_many_threads_and_a_fresh_or_cached_sampler():
    """XLA on the CPU with one intra-op thread and with its default thread pool, on one core and
    on all, four processes at once; in each the sampler compiled afresh and reused, in one of them
    compiled again."""
    script = DRAWS_SCRIPT.format(tests=str(ROOT / "tests"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    one = {**env, "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}
    python = [sys.executable, "-c", script]
    runs = [
        (python + ["--again"], env),
        (python, one),
        (["taskset", "-c", "0", *python], env),
        (["taskset", "-c", "0", *python], one),
    ]
    processes = [
        subprocess.Popen(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for cmd, e in runs
    ]
    outputs = []
    for process in processes:
        out, err = process.communicate()
        assert process.returncode == 0, err
        outputs.append(out)
    digests = [word for output in outputs for word in output.split()]
    assert len(digests) == 9 and len(set(digests)) == 1, outputs


# --- one champion, many challengers -----------------------------------------------------------


@pytest.mark.slow  # samples (JAX compiles the sampler: tens of seconds on two cores)
def test_champion_challengers_table(small_fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BayesDiagnosticWarning)
        result = champion_challengers(X, "s2", ["s0", "s4"], alphas=[0, 2], margin=0.02, rng=5, **SMALL)
    table = result.table
    assert list(table.columns) == [
        "system", "alpha", "model", "role", "effect_mean", "effect_median", "effect_low", "effect_high",
        "diff_mean", "diff_low", "diff_high", "p_better", "p_better_margin",
    ]  # fmt: skip
    assert list(zip(table["system"], table["alpha"], table["role"], strict=True)) == [
        ("s2", 0.0, "champion"), ("s0", 0.0, "challenger"), ("s4", 0.0, "challenger"),
        ("s2", 2.0, "champion"), ("s0", 2.0, "challenger"), ("s4", 2.0, "challenger"),
    ]  # fmt: skip
    champion_rows = table[table["role"] == "champion"]
    diff_columns = ["diff_mean", "diff_low", "diff_high", "p_better", "p_better_margin"]
    assert champion_rows[diff_columns].isna().all().all()
    assert table.loc[table["role"] == "challenger", diff_columns].notna().all().all()
    assert set(result.fits) == {0.0, 2.0}
    for alpha, model in result.fits.items():
        expected = model.compare("s2", ["s0", "s4"], margin=0.02)
        rows = table[(table["alpha"] == alpha) & (table["role"] == "challenger")].set_index("system")
        np.testing.assert_array_equal(rows["p_better_margin"], expected["p_better_margin"])
    pd.testing.assert_frame_equal(result.fits[2.0].scores, risk_adjusted(X, "s2", 2.0))
    assert result.p_better().shape == (2, 2)
    with pytest.raises(RiskevalError, match="The champion 'zz' is not one of the systems"):
        champion_challengers(X, "zz")
