"""Student's t p-values under each alternative (against scipy.stats.t), the corrections' option
and edge counts, and the tie rule and column runs of the rank correlations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from riskeval.core.corrections import adjust_pvalues
from riskeval.core.pvalues import t_pvalue
from riskeval.core.rank_correlation import TIE_RTOL, rank_correlations, tau_ap, tie_groups
from riskeval.errors import RiskevalError


def test_t_pvalues_under_each_alternative_are_scipys():
    t, df = np.array([-2.5, -0.3, 0.0, 1.7, 3.2]), 7
    np.testing.assert_allclose(t_pvalue(t, df), 2 * stats.t.sf(np.abs(t), df), rtol=1e-12)
    np.testing.assert_allclose(t_pvalue(t, df, "less"), stats.t.cdf(t, df), rtol=1e-12)
    np.testing.assert_allclose(t_pvalue(t, df, "greater"), stats.t.sf(t, df), rtol=1e-12)


def test_a_correction_of_one_test_leaves_it_and_names_its_options():
    for method in ("holm", "bh", "bonferroni"):
        np.testing.assert_array_equal(adjust_pvalues([np.nan, 0.03], method), [np.nan, 0.03])
    with pytest.raises(RiskevalError) as e:
        adjust_pvalues([0.03], "Holm")
    assert str(e.value) == (
        "The 'method' parameter of adjust_pvalues must be one of 'holm', 'bh', 'bonferroni'. "
        "Got 'Holm'. Option values are lower case: use 'holm'."
    )


def test_scores_closer_than_the_tie_tolerance_share_a_rank():
    """Scores within TIE_RTOL = 10⁻⁹ of the largest magnitude tie, scores 1.5·10⁻⁹ of it apart do
    not, at any scale; all-zero scores tie."""
    assert TIE_RTOL == 1e-9
    for scale in (1.0, 1000.0):
        np.testing.assert_array_equal(tie_groups(scale * np.array([1.0, 1.0 - 0.5e-9, 0.5])), [0, 0, 1])
        np.testing.assert_array_equal(tie_groups(scale * np.array([1.0, 1.0 - 1.5e-9, 0.5])), [0, 1, 2])
    np.testing.assert_array_equal(tie_groups(np.zeros(3)), [0, 0, 0])


def _one_column(reference: np.ndarray, column: np.ndarray) -> tuple[float, float]:
    """Kendall's τ-b (scipy) and τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008, eq. 2, by its
    definition) of one column without ties."""
    n = len(column)
    ref_rank = np.argsort(np.argsort(-reference))
    order = np.argsort(-column)
    above = sum(sum(ref_rank[order[k]] < ref_rank[order[i]] for k in range(i)) / i for i in range(1, n))
    return stats.kendalltau(reference, column).statistic, 2.0 / (n - 1) * above - 1.0


def test_every_column_of_a_run_gets_its_own_ranking():
    """Columns ranking like the one before share its computation, and only those: here columns
    0, 2 and 3 rank alike, column 1 differs from column 0 in every position, column 4 from
    column 3 in some."""
    reference = np.array([0.9, 0.5, 0.4, 0.1])
    a, b, c = [4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 1.0, 2.0]
    evaluated = np.array([a, b, a, a, c]).T
    tau, ap = rank_correlations(reference, evaluated)
    for k in range(5):
        want = _one_column(reference, evaluated[:, k])
        assert (tau[k], ap[k]) == pytest.approx(want, abs=1e-12), k
    assert ap[1] == -1.0 and ap[0] == 1.0


def test_tau_ap_names_shapes_it_refuses():
    with pytest.raises(RiskevalError) as e:
        tau_ap([1.0, 2.0, 3.0], [1.0, 2.0])
    assert str(e.value) == "reference and evaluated must be 1-D of the same length; got (3,) and (2,)."
