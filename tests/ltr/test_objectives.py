"""The objectives' gradients against a slow plain-Python reference, U-CRO against Wang et al.'s
swap cases, GeoRisk against a full recompute of the matrix, and thread invariance (Dinçer, Macdonald & Ounis, SIGIR 2014 and 2016, §6)."""

import copy

import numba
import numpy as np
import pytest
from _ltr_reference import georisk_full, random_queries, reference_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

from riskeval.ltr import kernels
from riskeval.ltr.groups import default_gains
from riskeval.ltr.objectives import RiskObjective, georisk_parameters, risk_sd, trisk_alphas

OBJECTIVES = ["lambdarank", "ucro", "tsaro", "tfaro", "tstar_faro", "georisk"]


def _case(objective, seed):
    n_queries = 200 if objective == "georisk" else 8
    scores, labels, bounds = random_queries(n_queries, 8 if objective == "georisk" else 12, seed=seed)
    rng = np.random.default_rng(seed + 1)
    systems = 3 if objective in ("tstar_faro", "georisk") else 1
    baselines = None if objective == "lambdarank" else rng.uniform(0.2, 0.9, (systems, n_queries))
    return scores, labels, bounds, baselines


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("norm, ties", [(True, False), (False, True)])
def test_gradients_match_the_plain_python_reference(objective, norm, ties):
    scores, labels, bounds, baselines = _case(objective, seed=1)
    if ties:
        scores = np.round(scores)
    settings_ = dict(alpha=2.0, k=4, norm=norm, sigmoid=1.5)
    fobj = RiskObjective(
        objective,
        labels,
        bounds,
        baselines=baselines,
        truncation_level=6,
        label_gain=default_gains(),
        **settings_,
    )
    grad, hess = fobj(scores)
    ref_grad, ref_hess = reference_gradients(
        scores, labels, bounds, objective=objective, baselines=baselines, trunc=6, **settings_
    )
    # LightGBM's sigmoid table is exact to ~1e-4 relative; GeoRisk moves the other queries to
    # first order (the reference recomputes the whole matrix), an O(Δ/c) relative difference
    tol = 1e-2 if objective == "georisk" else 1e-4
    assert np.abs(grad - ref_grad).max() <= tol * np.abs(ref_grad).max()
    assert np.abs(hess - ref_hess).max() <= tol * np.abs(ref_hess).max()
    assert grad.dtype == hess.dtype == np.float32


@settings(max_examples=200, deadline=None)
@given(
    m=st.floats(0, 1),
    b=st.floats(0, 1),
    delta=st.floats(-1, 1).filter(lambda v: v != 0),
    alpha=st.floats(0, 20),
)
def test_ucro_closed_form_equals_wangs_four_swap_cases(m, b, delta, alpha):
    # Wang, Bennett & Collins-Thompson (SIGIR 2012) §4.3: the change of the query's
    # reward − (1+α)·risk term when a swap changes M_m by ΔM, by where M_m and M_m + ΔM lie
    after = m + delta
    if m >= b and after >= b:
        case = delta
    elif m < b and after < b:
        case = (1 + alpha) * delta
    elif m >= b:  # degrading swap crossing the baseline
        case = delta + alpha * (after - b)
    else:  # improving swap crossing the baseline
        case = delta - alpha * (m - b)
    ratio = kernels.crossing_ratio(delta, alpha, m - b)
    assert abs(delta) * ratio == pytest.approx(abs(case), rel=1e-9, abs=1e-12)
    # and the change of the query's risk-reward score, U(M_m + ΔM) − U(M_m)
    u = lambda x: x - b if x >= b else (1 + alpha) * (x - b)  # noqa: E731
    assert abs(delta) * ratio == pytest.approx(abs(u(after) - u(m)), rel=1e-9, abs=1e-12)


def test_trisk_alphas_follow_sigir2014_eq_25():
    delta = np.array([0.2, -0.1, 0.0, -0.3, 0.05])
    alpha = 4.0
    x = np.where(delta >= 0, delta, 5.0 * delta)
    sx = np.std(x, ddof=1)
    assert risk_sd(delta, alpha) == pytest.approx(sx)
    from scipy.stats import norm

    np.testing.assert_allclose(trisk_alphas(delta, alpha, sx), (1 - norm.cdf(x / sx)) * alpha)
    # a query far below the baseline gets almost the whole α, far above almost none
    assert trisk_alphas(np.array([-1.0]), alpha, 0.01)[0] == pytest.approx(alpha)
    assert trisk_alphas(np.array([1.0]), alpha, 0.01)[0] == pytest.approx(0.0, abs=1e-12)
    # no spread: no evidence either way, α/2
    assert trisk_alphas(np.zeros(3), alpha, 0.0).tolist() == [2.0, 2.0, 2.0]


def test_sx_update_first_tree_keeps_the_estimate_from_the_model_after_the_first_iteration():
    scores, labels, bounds, baselines = _case("tfaro", seed=3)
    rng = np.random.default_rng(0)
    steps = [scores + rng.normal(size=scores.size) for _ in range(4)]
    estimates = {}
    for update in ("first_tree", "every_tree"):
        fobj = RiskObjective(
            "tfaro",
            labels,
            bounds,
            alpha=1.0,
            baselines=baselines,
            sx_update=update,
            label_gain=default_gains(),
        )
        estimates[update] = []
        for s in steps:
            fobj(s)
            estimates[update].append(fobj.risk_sd_)
    first, every = estimates["first_tree"], estimates["every_tree"]
    assert first[0] == every[0]
    assert first[1] == every[1]  # after the first tree
    assert first[1:] == [first[1]] * 3  # kept
    assert len(set(every)) == 4  # re-estimated


def _georisk_matrix(c=60, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.05, 0.9, c), rng.uniform(0.05, 0.9, (3, c))


@pytest.mark.parametrize("q", [0, 7])
def test_georisk_ratio_against_a_full_recompute_of_the_matrix(q):
    m, B = _georisk_matrix()
    alpha = 2.0
    qp, gp = georisk_parameters(m, B, alpha, "first_order")
    sq, sg = georisk_parameters(m, B, alpha, "shortcut")
    g0 = georisk_full(m, B, alpha)
    scale = 2 * m.sum() / g0  # |ΔGeoRisk| in NDCG units (∂GeoRisk/∂S = GeoRisk/2S)

    def full(delta):
        row = m.copy()
        row[q] += delta
        return abs(georisk_full(row, B, alpha) - g0) / abs(delta) * scale

    errors = []
    for delta in (1e-2, 1e-3, -1e-3, 1e-4):
        exact = full(delta)
        errors.append(abs(kernels.georisk_ratio(delta, qp[q], gp) - exact) / exact)
        # the paper's shortcut ignores the other queries' expectations: it overstates the change
        assert kernels.georisk_ratio(delta, sq[q], sg) > 1.3 * exact
    # first order in the other queries: the error shrinks with Δ
    assert errors[1] < 1e-4 and errors[3] < 1e-5 and errors[3] < errors[1] / 5
    # Δ = 0 (a swap beyond rank k): the derivative
    eps = 1e-6
    row_up, row_down = m.copy(), m.copy()
    row_up[q] += eps
    row_down[q] -= eps
    slope = (georisk_full(row_up, B, alpha) - georisk_full(row_down, B, alpha)) / (2 * eps)
    assert kernels.georisk_ratio(0.0, qp[q], gp) == pytest.approx(abs(slope) * scale, rel=1e-6)


def test_georisk_without_effectiveness_falls_back_to_lambdamart():
    assert georisk_parameters(np.zeros(4), np.ones((2, 4)), 1.0, "first_order") is None


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_identical_gradients_at_one_and_two_threads(objective):
    # 300 queries: about 19 parallel tasks of 16 queries, handed out dynamically
    scores, labels, bounds = random_queries(300, 12, seed=5)
    rows = {"lambdarank": 0, "tstar_faro": 3, "georisk": 3}.get(objective, 1)
    baselines = np.random.default_rng(6).uniform(0.2, 0.9, (rows, 300)) if rows else None
    out = []
    before = numba.get_num_threads()
    for threads in (1, 2):
        fobj = RiskObjective(
            objective,
            labels,
            bounds,
            alpha=3.0,
            baselines=baselines,
            label_gain=default_gains(),
            num_threads=threads,
        )
        out.append(fobj(scores))
        assert numba.get_num_threads() == before  # the caller's setting is restored
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


@pytest.mark.parametrize("objective", ["lambdarank", "ucro", "georisk"])
def test_gradients_do_not_depend_on_the_previous_call(objective):
    # each call ranks the queries starting from the previous call's ranking
    scores, labels, bounds, baselines = _case(objective, seed=6)
    other = np.random.default_rng(1).permutation(scores)

    def objective_fn():
        return RiskObjective(
            objective, labels, bounds, alpha=1.5, baselines=baselines, label_gain=default_gains()
        )

    warm = objective_fn()
    warm(other)
    grad, hess = warm(scores)
    fresh_grad, fresh_hess = objective_fn()(scores)
    np.testing.assert_array_equal(grad, fresh_grad)
    np.testing.assert_array_equal(hess, fresh_hess)


def test_documents_scored_minus_infinity_take_part_in_no_pair():
    # LightGBM's kMinScore: such documents sort last and get no lambda or hessian
    scores, labels, bounds, _ = _case("lambdarank", seed=3)
    scores = scores.copy()
    scores[::5] = -np.inf
    fobj = RiskObjective("lambdarank", labels, bounds, label_gain=default_gains())
    grad, hess = fobj(scores)
    assert np.all(grad[::5] == 0.0) and np.all(hess[::5] == 0.0)
    assert np.isfinite(grad).all() and np.abs(grad).sum() > 0.0


def test_lightgbm_copies_of_params_share_one_objective():
    scores, labels, bounds, baselines = _case("ucro", seed=2)
    fobj = RiskObjective("ucro", labels, bounds, alpha=1.0, baselines=baselines, label_gain=default_gains())
    assert copy.deepcopy({"objective": fobj})["objective"] is fobj


@pytest.mark.parametrize("objective", ["lambdarank", "ucro", "tsaro", "tfaro"])
def test_one_pass_kernel_equals_the_two_pass_kernels(objective):
    # the objective sorts, scores and differentiates each query in one pass when its parameters
    # follow from its own NDCG@k (here: from the third call on, s_x being kept)
    scores, labels, bounds, baselines = _case(objective, seed=4)
    fobj = RiskObjective(
        objective,
        labels,
        bounds,
        alpha=2.0,
        baselines=baselines,
        k=4,
        truncation_level=6,
        label_gain=default_gains(),
    )
    for _ in range(3):
        grad, hess = fobj(scores)
    assert fobj._one_pass_rule() is not None
    loop = fobj._loop
    # each query's positions in reverse: ranked afresh
    order = np.concatenate([np.arange(a, b)[::-1] for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    m = kernels.rank_and_score(scores, fobj.labels, bounds, 4, loop.gains, loop.disc, fobj._inv_k, order)
    qp = np.zeros((bounds.size - 1, 5))
    mode = kernels.CONSTANT
    if objective != "lambdarank":
        delta = m - baselines[0]
        qp[:, 0] = 2.0 if objective == "ucro" else trisk_alphas(delta, 2.0, fobj.risk_sd_)
        if objective in ("ucro", "tsaro"):
            qp[:, 1] = delta
            mode = kernels.CROSSING
    g2 = np.empty_like(grad)
    h2 = np.empty_like(hess)
    kernels.lambdas(
        scores,
        fobj.labels,
        bounds,
        order,
        fobj._inv,
        fobj._inv_k,
        qp,
        np.zeros(7),
        loop._replace(mode=mode),
        g2,
        h2,
    )
    np.testing.assert_array_equal(grad, g2)
    np.testing.assert_array_equal(hess, h2)


def test_the_options_name_the_declared_objectives():
    # the light list of the command line is the registry of objectives, GeoRisk's named by its column
    from riskeval.ltr.objectives import OBJECTIVES as DECLARED
    from riskeval.ltr.options import OBJECTIVE_NAMES
    from riskeval.measures.declared import GeoRisk

    assert OBJECTIVE_NAMES == tuple(DECLARED) and GeoRisk.column in DECLARED
