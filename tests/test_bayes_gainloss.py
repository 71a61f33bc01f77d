"""The gains-and-losses model of champion and challengers (``riskeval.bayes.gainloss``): its
statistics, its posterior against the model written out with scipy's distributions, exactness of
the draws, what it refuses, and (slow) its calibration and power by simulation
(``benchmarks/sim_bayes_paired.py``)."""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from riskeval.bayes import BayesDiagnosticWarning, champion_challengers, gainloss, risk_adjusted
from riskeval.errors import RiskevalError
from tests.shared_data import shared_data

ROOT = Path(__file__).resolve().parents[1]


def _scores() -> pd.DataFrame:
    """A champion; a variant with a gain on most topics, one tie and two losses; a run with one
    loss; a run with no loss; two background runs."""
    rng = np.random.default_rng(11)
    t = 40
    champion = rng.uniform(0.2, 0.6, t)
    variant = champion + np.where(rng.random(t) < 0.8, 0.04, 0.0)
    variant[[3, 7]] = champion[[3, 7]] - [0.05, 0.11]
    one_loss = champion + rng.uniform(0.01, 0.2, t)
    one_loss[5] = champion[5] - 0.08
    no_loss = champion + rng.uniform(0.001, 0.1, t)
    rows = {"champ": champion, "variant": variant, "one loss": one_loss, "no loss": no_loss}
    for k in range(2):
        rows[f"run{k}"] = rng.uniform(0.0, 0.8, t)
    return pd.DataFrame(rows).T.set_axis([f"q{j}" for j in range(t)], axis=1)


def test_statistics_count_and_summarise_each_side():
    d = np.array([[0.2, -0.1, 0.0, 0.4, -0.3], [0.0, 0.0, 0.1, 0.0, 0.0]])
    got = gainloss.statistics(d)
    np.testing.assert_array_equal(got["n_gain"], [2, 1])
    np.testing.assert_array_equal(got["n_tie"], [1, 4])
    np.testing.assert_array_equal(got["n_loss"], [2, 0])
    np.testing.assert_allclose(got["mean_gain"], [0.3, 0.1])
    np.testing.assert_allclose(got["mean_loss"], [-0.2, 0.0])
    np.testing.assert_allclose(got["scatter_gain"], [0.02, 0.0], atol=1e-15)
    np.testing.assert_allclose(got["scatter_loss"], [0.02, 0.0], atol=1e-15)
    np.testing.assert_array_equal(got["skew_gain"], [0.0, 0.0])  # fewer than three: none
    x = np.array([[0.1, 0.2, 0.6, -0.1, -0.2, -0.6, -0.3]])
    got = gainloss.statistics(x)
    np.testing.assert_allclose(got["skew_gain"], stats.skew([0.1, 0.2, 0.6], bias=False))
    np.testing.assert_allclose(got["skew_loss"], stats.skew([0.1, 0.2, 0.6, 0.3], bias=False))


def _definition(d: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """The model of :mod:`riskeval.bayes.gainloss` written out system by system with scipy's
    distributions: draws of each system's effect (``[draws, systems]``)."""
    rng = np.random.default_rng(seed)
    ties = bool(np.any(d == 0))
    sizes = {"gain": [row[row > 0] for row in d], "loss": [row[row < 0] for row in d]}
    pooled = {}
    for side, rows in sizes.items():
        many = [r for r in rows if len(r) >= 2]
        within = sum(float(np.sum((r - r.mean()) ** 2)) for r in many) / sum(len(r) - 1 for r in many)
        means = [float(r.mean()) for r in rows if len(r)]
        pooled[side] = (within, float(np.mean(means)), float(np.std(means, ddof=1)))
    out = np.empty((draws, d.shape[0]))
    for i, row in enumerate(d):
        counts = [np.sum(row > 0), np.sum(row < 0)] + ([np.sum(row == 0)] if ties else [])
        shares = stats.dirichlet(np.asarray(counts) + 0.5).rvs(draws, random_state=rng)
        means = []
        for side in ("gain", "loss"):
            x = sizes[side][i]
            within, centre, between = pooled[side]
            n = len(x)
            if n >= 3:  # a Student t whose numerator is Pearson type III of skewness 2γ/√n
                with warnings.catch_warnings():  # a side of equal sizes: any skewness, no spread
                    warnings.simplefilter("ignore", RuntimeWarning)
                    g = stats.skew(np.abs(x), bias=False) / math.sqrt(n)
                top = stats.pearson3(2 * g).rvs(draws, random_state=rng) + g / 2
                t = top / np.sqrt(stats.chi2(n - 1).rvs(draws, random_state=rng) / (n - 1))
                drawn = np.abs(x.mean()) + x.std(ddof=1) / math.sqrt(n) * t
            elif n >= 1:
                variance = (float(np.sum((x - x.mean()) ** 2)) + 2 * within) / (n + 1)
                drawn = stats.t(n + 1, x.mean(), math.sqrt(variance / n)).rvs(draws, random_state=rng)
            else:
                drawn = stats.norm(centre, between).rvs(draws, random_state=rng)
            means.append(np.abs(drawn) * (1 if side == "gain" else -1))
        out[:, i] = shares[:, 0] * means[0] + shares[:, 1] * means[1]
    return out


@pytest.mark.parametrize("alpha", [0.0, 5.0])
def test_the_posterior_is_the_model_written_out_with_scipy(alpha):
    """Each system's posterior mean, 95% bounds and P(better) from the fit and from
    :func:`_definition` (independent draws, another generator) agree within Monte Carlo error:
    5 standard errors of the means, 4 binomial standard errors for the share of one's draws below
    the other's bounds, 0.02 for the probabilities."""
    X = _scores()
    fitted = champion_challengers(X, "champ", alphas=[alpha], rng=3).fits[alpha]
    adjusted = risk_adjusted(X, "champ", alpha)
    d = adjusted.drop("champ").to_numpy() - adjusted.loc["champ"].to_numpy()
    ours = fitted.draws("b_system")[:, 1:]
    plain = _definition(d, 40_000, 4)
    for i, name in enumerate(X.index[1:]):
        a, b = ours[:, i], plain[:, i]
        se = math.hypot(a.std() / math.sqrt(a.size), b.std() / math.sqrt(b.size))
        assert abs(a.mean() - b.mean()) < 5 * se, name
        for q in (0.025, 0.975):  # the share of b below a's bound: binomial error of both
            share = np.mean(b <= np.quantile(a, q))
            assert abs(share - q) < 4 * math.sqrt(q * (1 - q) * (1 / a.size + 1 / b.size)), (name, q)
        assert abs(np.mean(a > 0) - np.mean(b > 0)) < 0.02, name


def test_the_posterior_mean_is_near_the_mean_difference_and_the_interval_near_the_t_interval():
    """With many topics on each side the posterior is about the paired t-test's answer: the mean
    within 0.1 standard error of the mean difference plus the prior's pull, the bounds within 15%."""
    rng = np.random.default_rng(12)
    champion = rng.uniform(0.2, 0.6, 400)
    X = pd.DataFrame({"a": champion, "b": champion + rng.normal(0.02, 0.1, 400)}).T
    row = champion_challengers(X, "a", rng=1).table.iloc[1]
    d = X.loc["b"] - X.loc["a"]
    low, high = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert abs(row["diff_mean"] - d.mean()) < 0.1 * d.std() / math.sqrt(400) + 0.01 * abs(d.mean())
    assert abs((row["diff_high"] - row["diff_low"]) / (high - low) - 1) < 0.15


def test_draws_are_exact_reproducible_and_checked():
    X = _scores()
    first = champion_challengers(X, "champ", rng=9)
    again = champion_challengers(X, "champ", rng=9)
    other = champion_challengers(X, "champ", rng=10)
    fit = first.fits[0.0]
    np.testing.assert_array_equal(fit.samples["b_system"], again.fits[0.0].samples["b_system"])
    assert not np.array_equal(fit.samples["b_system"], other.fits[0.0].samples["b_system"])
    assert fit.samples["b_system"].shape == (1, 16_000, 6)
    assert np.all(fit.system_draws("champ") == 0)
    assert set(first.table["model"]) == {"gainloss"} and first.model == "gainloss"
    table = fit.diagnostics()
    assert list(table["name"]) == list(X.index[1:])
    assert (table["ess_bulk"] == 16_000).all() and table["rhat"].isna().all()
    assert fit.problems() == [] and first.problems() == []
    with pytest.warns(BayesDiagnosticWarning, match="below 10,000"):
        champion_challengers(X, "champ", draws=1_000, rng=9)
    sides = fit.sides()
    shares = sides[["share_gain_mean", "share_tie_mean", "share_loss_mean"]].sum(axis=1)
    np.testing.assert_allclose(shares, 1.0)
    assert (sides["mean_gain_low"] >= 0).all() and (sides["mean_loss_high"] <= 0).all()
    assert "16,000 independent exact draws" in repr(fit)
    page = fit._repr_html_()
    assert "gains-and-losses model" in page and "share_loss_mean" in page and "<table" in page


def test_a_side_never_seen_is_drawn_from_the_other_systems():
    """A run that never loses still may: its share of losses has posterior mean ½ / (n + 3/2),
    and their mean size is drawn from the other systems' mean losses, so P(better) stays below 1
    while every topic is a gain."""
    X = _scores()
    fit = champion_challengers(X, "champ", ["no loss"], alphas=[5], rng=2).fits[5.0]
    assert fit.sides().loc["no loss", "share_loss_mean"] == pytest.approx(0.5 / 41.5, rel=0.05)
    assert fit.sides().loc["no loss", "mean_loss_mean"] < 0


def test_two_challengers_are_not_compared_with_each_other_and_there_are_no_topic_effects():
    fit = champion_challengers(_scores(), "champ", rng=1).fits[0.0]
    with pytest.raises(RiskevalError, match="compares each system with the champion 'champ' only"):
        fit.difference("variant", "run0")
    with pytest.raises(RiskevalError, match="compares each system with the champion"):
        fit.against("variant", ["run0", "run1"])
    with pytest.raises(RiskevalError, match="no topic effects"):
        fit.topic_effects()
    with pytest.raises(RiskevalError, match="no variance components"):
        fit.variance_components()


def test_priors_are_refused_for_a_model_that_has_none_to_set():
    from riskeval.bayes import Priors

    with pytest.raises(RiskevalError, match="fixed Jeffreys priors; 'priors' applies to model='paired'"):
        champion_challengers(_scores(), "champ", priors=Priors(sigma_rate=10))


def test_an_unknown_model_is_refused():
    X = pd.DataFrame(np.random.default_rng(3).random((3, 4)), index=["a", "b", "c"])
    with pytest.raises(
        RiskevalError,
        match=r"'model' parameter of champion_challengers must be one of \('gainloss', 'paired', 'crossed'\)",
    ):
        champion_challengers(X, "a", model="pairwise")


@pytest.mark.slow
def test_calibrated_by_simulation_at_alpha_0_and_5():
    """``benchmarks/sim_bayes_paired.py`` on 150 collections at α = 0 and 5 (the benchmark runs
    1,000): coverage of the 95% intervals within 2 Monte Carlo SE of 0.95, false claims at most 5%
    plus 2 SE, and power of P(better) > 0.95 at least that of the one-sided paired t-test sized on
    the null challengers of the same run (its false claims at most 5%) minus 2 SE."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import sim_bayes_paired as sim
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BayesDiagnosticWarning)
        table = sim.summary(sim.run(150, [0.0, 5.0], ["gainloss"], seed=7, draws=2_500, warmup=500))
    n = 150
    for _, row in table.iterrows():
        assert row["coverage"] >= 0.95 - 2 * math.sqrt(0.95 * 0.05 / (2 * n)), row
        assert row["false"] <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / n), row
        assert row["power"] >= row["ta_power"] - 2 * max(row["power_se"], row["ta_power_se"]), row


@pytest.mark.slow
def test_the_docs_table_of_the_three_collections_is_what_the_model_gives():
    """docs/bayes.md's table of the default model on the Benham collections (Benham et al., SIGIR
    2020), row by row: the same seed gives the same draws, so every printed number is reproduced
    exactly, and the paired t columns are scipy's."""
    import riskeval as rk

    text = (ROOT / "docs" / "bayes.md").read_text(encoding="utf-8")
    start = text.index("| collection | challenger | α | difference, gains-and-losses")
    rows = [line for line in text[start:].split("\n\n")[0].splitlines()[2:]]
    files = {"Robust04": "rb04", "Core 2017": "trec17", "Core 2018": "trec18"}
    names = ["Chal. 1", "Chal. 2", "Chal. 3", "Chal. 4"]
    expected = []
    for label, name in files.items():
        X = rk.score_matrix(shared_data("benham2020-bayesian-risk", f"{name}_data.csv"))
        table = champion_challengers(X, "Champion", names, alphas=[0, 5], rng=2020).table
        table = table.set_index(["system", "alpha"])
        for alpha in (0, 5):
            adjusted = risk_adjusted(X, "Champion", alpha)
            for system in names:
                d = adjusted.loc[system] - adjusted.loc["Champion"]
                low, high = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
                p = stats.ttest_1samp(d, 0.0, alternative="greater").pvalue
                row = table.loc[(system, float(alpha))]
                expected.append(
                    f"| {label} | {system} | {alpha} | {row.diff_mean:+.3f} [{row.diff_low:+.3f}, "
                    f"{row.diff_high:+.3f}] | {row.p_better:.3f} | {d.mean():+.3f} [{low:+.3f}, "
                    f"{high:+.3f}] | {p:.3f} |"
                )
    assert rows == expected


@settings(max_examples=15, deadline=None)
@given(
    scale=st.floats(0.01, 100.0),
    seed=st.integers(0, 2**32 - 1),
    alpha=st.sampled_from([0.0, 1.0, 5.0]),
)
def test_the_effects_scale_with_the_scores(scale, seed, alpha):
    """The model is scale-equivariant: scores times c > 0 give every draw of every effect times c
    (same seed), at any α, ties, single losses and unseen sides included."""
    X = _scores()
    rng = np.random.default_rng(seed)
    X.iloc[:, :5] = np.round(X.iloc[:, :5] * 4) / 4  # ties with the champion on some topics
    X.iloc[:, 5:] += rng.normal(0, 0.01, X.iloc[:, 5:].shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BayesDiagnosticWarning)  # 2,400 draws: enough here
        one, scaled = (
            champion_challengers(Y, "champ", alphas=[alpha], draws=600, rng=seed).fits[alpha]
            for Y in (X, X * scale)
        )
    np.testing.assert_allclose(
        scaled.samples["b_system"], scale * one.samples["b_system"], rtol=1e-9, atol=1e-12
    )
