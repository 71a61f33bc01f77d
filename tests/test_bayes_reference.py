"""The posterior of ``riskeval.bayes`` against independent references: the REML fit of the same
crossed model by statsmodels on the Benham collections (Benham, Carterette, Culpepper & Moffat,
SIGIR 2020), and simulation-based calibration (Talts et al., 2018) on collections drawn from the
model."""

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from tests.shared_data import ROOT, shared_data

pytest.importorskip("numpyro")
pytestmark = pytest.mark.slow

from riskeval.bayes import BayesDiagnosticWarning, fit  # noqa: E402


def reml(scores: pd.DataFrame):
    """statsmodels' REML fit of ``score ~ 1 + (1 | system) + (1 | topic)``: one group holding every
    score, with the systems and the topics as variance components."""
    sm = pytest.importorskip("statsmodels.formula.api")
    long = scores.stack().rename("score").rename_axis(["system", "topic"]).reset_index()
    long["group"] = 1
    model = sm.mixedlm(
        "score ~ 1",
        long,
        groups="group",
        vc_formula={"system": "0 + C(system)", "topic": "0 + C(topic)"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' convergence chatter; the fit is checked below
        result = model.fit(reml=True)
    blups = result.random_effects[1]
    systems = pd.Series({name: blups[f"system[C(system)[{name}]]"] for name in scores.index}, dtype=float)
    components = dict(zip(model.exog_vc.names, np.sqrt(result.vcomp), strict=True))
    return result, systems, components


@pytest.mark.parametrize("collection", ["rb04", "trec17", "trec18"])
def test_system_effects_are_the_reml_blups_within_the_posterior_uncertainty(collection):
    """Posterior means of the system effects against statsmodels' BLUPs, and the posterior medians
    of the standard deviations against REML's estimates.

    They are not the same numbers: a BLUP shrinks a system's mean by the REML point estimates of
    the variance components, the posterior mean averages that shrinkage over their posterior, and
    the draws add Monte Carlo error (posterior SD / √ESS, about 1% of a posterior SD at ESS
    10,000).  On Robust04 the REML system SD (0.016) is close to σ/√T (0.015), so the shrinkage
    factor T·σ_s² / (T·σ_s² + σ²) is about 0.5 and its posterior spread moves the means most;
    measured with the defaults and seed 0, the largest gap over the 45 systems is 0.019, 0.018
    and 0.015 posterior SD on Robust04, Core 2017 and Core 2018.  The bound, 0.1 posterior SD
    (about 0.001 AP), is five times that, to leave room for Monte Carlo error under other seeds,
    and still fails if the effects move by a tenth of their uncertainty.  The standard deviations'
    posteriors are skewed and REML's estimates are point values: the posterior medians were 0.05,
    0.09 and 0.12 posterior SD from REML's system SD, at most 0.05 for the topic and residual SD;
    the bound is half a posterior SD.
    """
    path = shared_data("benham2020-bayesian-risk", f"{collection}_data.csv")
    scores = pd.read_csv(path).pivot(index="system", columns="topic", values="score")
    posterior = fit(scores, rng=0)  # the defaults: 4 chains × 3,000 draws
    result, blups, components = reml(scores)
    assert result.converged
    effects = posterior.system_effects()
    gap = (effects["mean"] - blups.loc[effects.index]).abs() / effects["sd"]
    assert gap.max() < 0.1, gap.sort_values().tail(3)
    sds = posterior.variance_components()
    reference = {
        "system": components["system"],
        "topic": components["topic"],
        "residual": np.sqrt(result.scale),
    }
    for name, value in reference.items():
        assert abs(sds.loc[name, "median"] - value) < 0.5 * sds.loc[name, "sd"], (name, sds.loc[name], value)


def test_simulation_based_calibration_of_the_system_effects():
    """Collections of 8 systems × 30 topics drawn from the model under fixed priors, fitted with
    the same priors (``benchmarks/sbc_bayes.py``, which runs 200 of them; the suite runs 20 to stay
    within minutes): the 95% intervals of the first system's effect hold the truth in a share of
    collections whose exact 99% binomial interval contains 0.95; over all 160 system effects the
    coverage is within 0.89–1 (0.95 ± 3.5 binomial SDs); and the ranks of the truth among the draws
    pass a chi-square test of uniformity at 0.001."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from sbc_bayes import calibrate
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BayesDiagnosticWarning)
        result = calibrate(collections=20, n_systems=8, n_topics=30, draws=300, warmup=300, seed=0)
    low, high = result["mc_interval_99"]
    assert low <= 0.95 <= high, result
    assert 0.89 <= result["coverage_all"] <= 1.0, result
    assert result["rank_chi2_p"] > 0.001, result
