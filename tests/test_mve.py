"""Mean–variance evaluation (Zuccon, Palotti & Hanbury, CIKM 2016, §3–4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import riskeval as rk
from riskeval.core import mve
from riskeval.errors import RiskevalError


def tidy(R: np.ndarray, systems=None) -> pd.DataFrame:
    """Long table of an (S, N, M) array: system s, topic t<i>, variant u<k>."""
    s, n, m = R.shape
    systems = systems or [f"s{i}" for i in range(s)]
    idx = pd.MultiIndex.from_product(
        [systems, [f"t{i}" for i in range(n)], [f"u{k}" for k in range(m)]],
        names=["system", "topic", "variant"],
    )
    return pd.DataFrame({"score": R.ravel()}, index=idx).reset_index()


def cubes(min_m=2):
    return st.tuples(st.integers(2, 5), st.integers(1, 6), st.integers(min_m, 6)).flatmap(
        lambda shape: arrays(np.float64, shape, elements=st.floats(0, 1, allow_nan=False))
    )


def test_mean_variance_of_two_users_worked_by_hand():
    df = tidy(np.array([[[0.2, 0.4], [0.6, 0.8]], [[0.5, 0.5], [0.5, 0.5]]]), ["A", "B"])
    mv = rk.variations.mean_variance(df, alpha=1.0)  # indexed by system: columns alpha, mean, variance, value
    assert isinstance(mv, pd.DataFrame)
    assert list(mv.columns) == ["alpha", "mean", "variance", "value"] and mv.index.name == "system"
    # A: user means (0.2+0.6)/2 = 0.4 and (0.4+0.8)/2 = 0.6 -> sample variance 0.02
    np.testing.assert_allclose(mv.loc["A"], [1.0, 0.5, 0.02, 0.48])
    np.testing.assert_allclose(mv.loc["B"], [1.0, 0.5, 0.0, 0.5])


@settings(max_examples=60, deadline=None)
@given(cubes(), st.sampled_from([0, 1]), st.data())
def test_general_variance_is_the_weighted_covariance_sum(R, ddof, data):
    # eq. 3: σ² = Σ_i Σ_j w_i w_j cov(R_i, R_j), checked against numpy.cov's topic covariance.
    n = R.shape[1]
    w = np.asarray(data.draw(st.lists(st.floats(0.01, 10), min_size=n, max_size=n)))
    w = w / w.sum()
    mean, var = mve.general_moments(R, w, ddof)
    diag = mve.topic_variance(R, w, ddof)
    for s in range(R.shape[0]):
        cov = np.atleast_2d(np.cov(R[s], ddof=ddof))
        assert var[s] == pytest.approx(w @ cov @ w, abs=1e-12)
        assert diag[s] == pytest.approx(np.sum(w**2 * np.diag(cov)), abs=1e-12)
        assert mean[s] == pytest.approx(w @ R[s].mean(axis=1), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(cubes(), st.sampled_from([0, 1]), st.floats(-50, 50))
def test_general_equals_intra_topic_with_one_topic(R, ddof, alpha):
    # Zuccon et al. §4.2: with N = 1 the covariance terms vanish and eq. 7 reduces to eq. 8.
    df = tidy(R[:, :1, :])
    general = rk.variations.mean_variance(df, alpha, ddof=ddof)
    intra = rk.variations.mean_variance(df, alpha, ddof=ddof, form="intra").droplevel("topic")
    pd.testing.assert_frame_equal(general, intra, atol=1e-12, rtol=0)


@settings(max_examples=40, deadline=None)
@given(cubes(), st.sampled_from([0, 1]))
def test_alpha_zero_is_the_mean_over_all_queries(R, ddof):
    # α = 0: "the framework resolves to only compare mean effectiveness across queries and topics".
    mv = rk.variations.mean_variance(tidy(R), 0.0, ddof=ddof)
    np.testing.assert_allclose(mv["value"], R.mean(axis=(1, 2)), atol=1e-12)


def test_one_variant_per_topic_alpha_zero_ranks_by_mean():
    rng = np.random.default_rng(7)
    R = rng.random((8, 10, 1))
    df = tidy(R)
    means = R[:, :, 0].mean(axis=1)
    inter = rk.variations.mean_variance(df, 0.0, form="inter")
    general = rk.variations.mean_variance(df, 3.0, ddof=0)  # one user: σ² = 0, any α
    expected = list(pd.Series(means, index=inter.index).sort_values(ascending=False).index)
    for table in (inter, general):
        np.testing.assert_allclose(table["value"], means, atol=1e-12)
        assert list(table["value"].sort_values(ascending=False).index) == expected
    sweep = rk.variations.mean_variance_sweep(df, [0.0], form="inter")
    assert sweep.tau[0] == pytest.approx(1.0) and sweep.tau_ap[0] == pytest.approx(1.0)


def test_inter_topic_variance_is_sample_variance_over_topics():
    # eq. 9 with uniform weights and ddof = 1: the sample variance of the per-topic scores.
    rng = np.random.default_rng(3)
    R = rng.random((4, 9, 3))
    mv = rk.variations.mean_variance(tidy(R), 2.0, form="inter", variant="u1")
    np.testing.assert_allclose(mv["variance"], R[:, :, 1].var(axis=1, ddof=1))
    np.testing.assert_allclose(mv["value"], R[:, :, 1].mean(1) - 2 * R[:, :, 1].var(1, ddof=1))
    # weighted: numpy.cov's reliability-weights (aweights) estimate
    w = rng.random(9) + 0.1
    weights = {f"t{i}": wi for i, wi in enumerate(w)}
    mvw = rk.variations.mean_variance(tidy(R), 0.0, form="inter", variant="u1", weights=weights)
    for s in range(4):
        assert mvw["variance"].iloc[s] == pytest.approx(np.cov(R[s, :, 1], aweights=w))


def test_weights_are_normalised_and_change_the_mean():
    R = np.array([[[1.0, 1.0], [0.0, 0.0]]])
    mv = rk.variations.mean_variance(tidy(R), 0.0, weights={"t0": 3, "t1": 1})
    assert mv["mean"].iloc[0] == pytest.approx(0.75)
    with pytest.raises(RiskevalError, match="no weight for 1 topic"):
        rk.variations.mean_variance(tidy(R), weights={"t0": 1})
    with pytest.raises(RiskevalError, match=">= 0"):
        rk.variations.mean_variance(tidy(R), weights={"t0": -1, "t1": 2})
    with pytest.warns(UserWarning, match="not in the data"):
        rk.variations.mean_variance(tidy(R), weights={"t0": 1, "t1": 1, "t9": 1})


def test_query_popularity_counts_a_query_once_per_user():
    # Topic t0: users u0 and u1 issued the same query (score 0.9), u2 another one (0.3): the
    # popular query weighs 2/3 in the topic's mean (eq. 2, p(r) = #queries with r / |Q_i|).
    df = pd.DataFrame(
        {
            "system": "A",
            "topic": "t0",
            "variant": ["u0", "u1", "u2"],
            "score": [0.9, 0.9, 0.3],
            "query": ["q1", "q1", "q2"],
        }
    )
    mv = rk.variations.mean_variance(df, 0.0, form="intra")
    assert mv["mean"].iloc[0] == pytest.approx(0.7)
    assert mv["variance"].iloc[0] == pytest.approx(np.var([0.9, 0.9, 0.3], ddof=1))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 6),
    m=st.integers(2, 8),
    seed=st.integers(0, 2**32 - 1),
    ddof=st.sampled_from([0, 1]),
)
def test_covariance_terms_vanish_in_expectation_for_independent_topics(n, m, seed, ddof):
    # Topics scored independently across users: every cov(R_i, R_j), i ≠ j, has expectation 0 (the
    # sample covariance of independent variables, with either ddof), so the covariance part
    # σ² − Σ w_i² var(R_i) averages to 0.  K replicates give a mean whose standard error is
    # estimated from the replicates; |mean| ≤ 5 SE fails by chance with probability ≈ 6e-7 per
    # example (normal approximation, K = 4000 so the CLT applies to the bounded summands).
    rng = np.random.default_rng(seed)
    K = 4000
    scales = rng.uniform(0.05, 0.5, size=n)
    R = rng.random((K, n, m)) * scales[None, :, None] + rng.random(n)[None, :, None]
    w = mve.normalise_weights(rng.random(n) + 0.1, n)
    cov_part = mve.general_moments(R, w, ddof)[1] - mve.topic_variance(R, w, ddof)
    se = cov_part.std(ddof=1) / np.sqrt(K)
    assert abs(cov_part.mean()) <= 5 * se
    # and the part is not identically zero: the test could fail on a wrong kernel
    assert cov_part.std() > 0


def test_decomposed_variance_detects_users_good_on_every_topic():
    # Positive covariance: user u0 issues the better query for both topics (§4.1); negative: u0
    # is good on one topic and bad on the other.  decompose=True splits σ² into the two parts.
    R = np.array([[[0.9, 0.1], [0.8, 0.2]], [[0.9, 0.1], [0.2, 0.8]]])
    mv = rk.variations.mean_variance(tidy(R, ["same", "opposite"]), 1.0, decompose=True)
    assert list(mv.columns) == ["alpha", "mean", "variance", "value", "topic_variance", "covariance"]
    np.testing.assert_allclose(mv["topic_variance"] + mv["covariance"], mv["variance"])
    assert mv.loc["same", "covariance"] > 0 > mv.loc["opposite", "covariance"]
    # w² var: 0.25 · (0.32 + 0.18); cov(u-scores of t0, t1) = 0.24 → 2 · 0.25 · 0.24
    assert mv.loc["same", "topic_variance"] == pytest.approx(0.125)
    assert mv.loc["same", "covariance"] == pytest.approx(0.12)
    with pytest.raises(RiskevalError, match="form='general' only"):
        rk.variations.mean_variance(tidy(R), form="intra", decompose=True)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0, 1),
    st.floats(0, 0.2),
    st.floats(0, 1),
    st.floats(0, 0.2),
)
def test_swap_alpha_matches_a_brute_force_scan(mu_a, var_a, mu_b, var_b):
    alpha = float(mve.swap_alpha(mu_a, var_a, mu_b, var_b))
    grid = np.linspace(-200, 200, 400_001)  # step 0.001
    diff = (mu_a - grid * var_a) - (mu_b - grid * var_b)
    flips = np.flatnonzero(np.diff(np.sign(diff)) != 0)
    if abs(var_a - var_b) < 1e-9 or not np.isfinite(alpha) or abs(alpha) > 199:
        return  # no swap inside the scanned range
    assert flips.size >= 1
    assert grid[flips[0]] - 1e-9 <= alpha <= grid[flips[-1] + 1] + 1e-9


def test_swap_alpha_from_a_table_and_edge_cases():
    table = pd.DataFrame(
        {"mean": [0.5, 0.4, 0.5, 0.5], "variance": [0.03, 0.01, 0.03, 0.01]},
        index=pd.Index(["A", "B", "C", "D"], name="system"),
    )
    assert rk.variations.swap_alpha(table, "A", "B") == pytest.approx(5.0)
    assert np.isnan(rk.variations.swap_alpha(table, "A", "C"))  # identical: tied for every α
    assert rk.variations.swap_alpha(table, "A", "D") == 0.0  # same mean: the stabler one wins for α > 0
    with pytest.raises(RiskevalError, match="not in the table"):
        rk.variations.swap_alpha(table, "A", "Z")
    with pytest.raises(RiskevalError, match="one row per system"):
        rk.variations.swap_alpha(table.rename(columns={"variance": "var"}), "A", "B")


def test_alpha_sweep_values_and_frames():
    rng = np.random.default_rng(11)
    df = tidy(rng.random((5, 4, 3)))
    sweep = rk.variations.mean_variance_sweep(df, [-1.0, 0.0, 2.5])
    for a, column in zip(sweep.alphas, sweep.values().T, strict=True):
        np.testing.assert_allclose(column, rk.variations.mean_variance(df, a)["value"])
    frame = sweep.to_frame()
    assert list(frame.columns) == ["alpha", "tau", "tau_ap"] and len(frame) == 3
    values = sweep.values_frame()
    assert list(values.columns) == ["system", "alpha", "value"] and len(values) == 15
    # α = 0 ranks by the mean itself: τ = 1 (scipy's τ-b, within an ulp) and τ_AP = 1
    assert sweep.tau[1] == pytest.approx(1.0, abs=1e-15) and sweep.tau_ap[1] == 1.0
    default = rk.variations.mean_variance_sweep(df)
    assert default.alphas.size == 401 and default.alphas[0] == -20 and default.alphas[-1] == 20


def test_intra_topic_sweep_is_per_topic():
    rng = np.random.default_rng(5)
    df = tidy(rng.random((6, 3, 4)))
    sweep = rk.variations.mean_variance_sweep(df, np.linspace(-5, 5, 11), form="intra")
    assert sweep.tau.shape == (3, 11) and sweep.tau_ap.shape == (3, 11)
    np.testing.assert_allclose(sweep.tau_ap[:, 5], 1.0)  # α = 0
    frame = sweep.to_frame()
    assert list(frame.columns) == ["topic", "alpha", "tau", "tau_ap"] and len(frame) == 33
    values = sweep.values_frame()
    assert list(values.columns) == ["system", "topic", "alpha", "value"]
    assert len(values) == 6 * 3 * 11


def test_rank_changes():
    # A has the best mean but a large variance; at α = 5 it drops below B and C.
    R = np.array(
        [
            [[0.9, 0.1], [0.9, 0.1]],  # A: mean 0.5, user means 0.9/0.1 -> variance 0.32
            [[0.45, 0.45], [0.45, 0.45]],  # B: 0.45, variance 0
            [[0.4, 0.4], [0.4, 0.4]],  # C: 0.40, variance 0
        ]
    )
    changes = rk.variations.rank_changes(tidy(R, ["A", "B", "C"]), 0.0, 5.0)
    assert list(changes.index) == ["A", "B", "C"]
    assert changes.loc["A", ["rank_from", "rank_to", "change"]].tolist() == [1, 3, -2]
    assert changes.loc["B", "change"] == 1
    with pytest.raises(RiskevalError, match="form='general' or 'inter'"):
        rk.variations.rank_changes(tidy(R), form="intra")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"form": "portfolio"}, "'form' parameter"),
        ({"ddof": 2}, "'ddof' parameter must be 0 or 1"),
        ({"alpha": "high"}, "'alpha' parameter"),
        ({"alpha": float("inf")}, "finite"),
        ({"variant": "u0"}, "form='inter' only"),
        ({"form": "intra", "weights": {"t0": 1, "t1": 1, "t2": 1}}, "do not apply to form='intra'"),
        ({"form": "inter"}, "choose one with variant"),
        ({"form": "inter", "variant": "zz"}, "No rows with variant 'zz'"),
    ],
)
def test_bad_parameters_are_named(kwargs, message):
    df = tidy(np.random.default_rng(0).random((2, 3, 2)))
    with pytest.raises(RiskevalError, match=message):
        rk.variations.mean_variance(df, **kwargs)


def test_ddof_one_needs_two_users():
    df = tidy(np.random.default_rng(0).random((2, 3, 1)))
    with pytest.raises(RiskevalError, match="needs more than 1"):
        rk.variations.mean_variance(df)
