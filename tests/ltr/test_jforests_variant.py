"""``variant="jforests"``: U-CRO, T-SARO, T-FARO and T*-FARO as the authors' Jforests implementation
computes them, against a plain-Python transcription of its swap scorers (``_ltr_reference``)."""

import numpy as np
import pytest
from _ltr_reference import jforests_delta_t, jforests_estimates, random_queries, reference_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

from riskeval.errors import RiskevalError
from riskeval.ltr import kernels
from riskeval.ltr.groups import default_gains
from riskeval.ltr.objectives import RiskObjective

JFORESTS = ["ucro", "tsaro", "tfaro", "tstar_faro"]


def _case(objective, seed, ties=False):
    scores, labels, bounds = random_queries(10, 12, seed=seed, ties=ties)
    labels[bounds[3] : bounds[4]] = 0  # a query without relevant documents
    rng = np.random.default_rng(seed + 1)
    rows = 3 if objective == "tstar_faro" else 1
    baselines = rng.uniform(0.1, 0.9, (rows, bounds.size - 1))
    baselines[:, 3] = 0.0  # riskeval's NDCG of that query
    return scores, labels, bounds, baselines


@pytest.mark.parametrize("objective", JFORESTS)
@pytest.mark.parametrize(("norm", "ties"), [(True, False), (False, False), (True, True)])
def test_gradients_match_a_transcription_of_jforests(objective, norm, ties):
    """First tree and a later one.  With ties (every score 0 in the first tree, many equal scores
    later), documents of equal score rank lowest label first, as Jforests ranks them: the
    transcription with ties in input order (LightGBM's) gives other gradients on these queries."""
    scores, labels, bounds, baselines = _case(objective, seed=6 if ties else 2, ties=ties)
    settings_ = dict(alpha=3.0, k=4, norm=norm, sigmoid=1.5)
    fobj = RiskObjective(
        objective,
        labels,
        bounds,
        baselines=baselines,
        truncation_level=6,
        label_gain=default_gains(),
        variant="jforests",
        **settings_,
    )
    if ties:
        steps = ((True, np.zeros_like(scores)), (False, scores))
    else:
        steps = (
            (True, scores),
            (False, scores + np.random.default_rng(0).normal(scale=0.5, size=scores.size)),
        )

    def reference(s, first, order):
        return reference_gradients(
            s,
            labels,
            bounds,
            objective=objective,
            baselines=baselines,
            trunc=6,
            variant="jforests",
            first=first,
            ties=order,
            **settings_,
        )

    for first, s in steps:
        grad, hess = (a.copy() for a in fobj(s))
        ref_grad, ref_hess = reference(s, first, "lowest_label")
        # LightGBM's sigmoid table is exact to ~1e-4 relative
        assert np.abs(grad - ref_grad).max() <= 1e-4 * np.abs(ref_grad).max(), first
        assert np.abs(hess - ref_hess).max() <= 1e-4 * np.abs(ref_hess).max(), first
        if ties:
            input_order, _ = reference(s, first, "input")
            assert np.abs(grad - input_order).max() > 1e-2 * np.abs(input_order).max(), first


def test_sx_is_estimated_once_before_the_first_tree_against_a_zero_model():
    scores, labels, bounds, baselines = _case("tfaro", seed=3)
    alpha = 2.0
    fobj = RiskObjective(
        "tfaro",
        labels,
        bounds,
        alpha=alpha,
        baselines=baselines,
        label_gain=default_gains(),
        variant="jforests",
    )
    b = baselines[0].copy()
    b[3] = 1.0  # Jforests' NDCG of a query without relevant documents
    expected = np.sqrt(jforests_estimates(b, np.zeros(b.size), alpha)[1])
    assert fobj.risk_sd_ == pytest.approx(expected, rel=1e-12)
    assert fobj.risk_sd_ == pytest.approx((1 + alpha) * np.std(b, ddof=1), rel=1e-12)
    for step in range(3):
        fobj(scores + step)
        assert fobj.risk_sd_ == pytest.approx(expected, rel=1e-12)  # kept


@settings(max_examples=300, deadline=None)
@given(
    m=st.floats(0, 1),
    b=st.floats(0, 1),
    delta=st.floats(-1, 1).filter(lambda v: v != 0),
    alpha=st.floats(0, 20),
)
def test_jforests_ucro_case_analysis_equals_the_crossing_ratio(m, b, delta, alpha):
    # Jforests' U-CRO pair weight |delta_T| is riskeval's |ΔM|·(1 + α·φ) for the same ΔM and M_m
    better_above = delta < 0  # a swap that moves the better document down loses effectiveness
    jf = abs(jforests_delta_t("ucro", delta, m, b, better_above, alpha, 1.0))
    ours = abs(delta) * kernels.crossing_ratio(delta, alpha, m - b)
    assert ours == pytest.approx(jf, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("objective", ["lambdarank", "georisk"])
def test_jforests_variant_leaves_lambdamart_and_georisk_alone(objective):
    scores, labels, bounds, baselines = _case("tstar_faro", seed=4)
    baselines = None if objective == "lambdarank" else baselines
    out = []
    for variant in ("paper", "jforests"):
        fobj = RiskObjective(
            objective,
            labels,
            bounds,
            alpha=2.0,
            baselines=baselines,
            label_gain=default_gains(),
            variant=variant,
        )
        out.append(fobj(scores))
    np.testing.assert_array_equal(out[0][0], out[1][0])


def test_jforests_variant_options():
    scores, labels, bounds, baselines = _case("tsaro", seed=5)
    with pytest.raises(RiskevalError, match="takes sx_update='first_tree'"):
        RiskObjective(
            "tsaro",
            labels,
            bounds,
            alpha=1.0,
            baselines=baselines,
            label_gain=default_gains(),
            variant="jforests",
            sx_update="every_tree",
        )
    with pytest.raises(
        RiskevalError, match="The 'variant' parameter of train must be one of 'paper', 'jforests'"
    ):
        RiskObjective(
            "tsaro", labels, bounds, baselines=baselines, label_gain=default_gains(), variant="Jforests"
        )
