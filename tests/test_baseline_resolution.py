"""What a ``baseline=`` option resolves to: the defaults of the aggregate baselines, the single-
baseline form of ZRisk (the 2-row matrix of Dinçer, Macdonald & Ounis, SIGIR 2016, Table 4), the
baseline's own row of a risk table, and the names and topic labels that tables show."""

from __future__ import annotations

import typing

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.measures import baselines

X = pd.DataFrame(
    [[0.1, 0.4, 0.3, 0.0], [0.3, 0.2, 0.1, 0.6], [0.2, 0.25, 0.5, 0.1]],
    index=list("abc"),
    columns=list("wxyz"),
)


def zrisk_of_pair(s: np.ndarray, b: np.ndarray, alpha: float) -> float:
    """ZRisk of the first row of the 2-row matrix [s; b], written out from eq. 4-6."""
    M = np.vstack([s, b])
    e = M.sum(axis=1)[:, None] * M.sum(axis=0)[None, :] / M.sum()
    z = (M[0] - e[0]) / np.sqrt(e[0])
    return float(z[z > 0].sum() + (1 + alpha) * z[z < 0].sum())


def test_the_leave_one_out_baseline_is_the_mean_of_the_others_by_default():
    others = (X.sum().to_numpy()[None, :] - X.to_numpy()) / 2
    pd.testing.assert_frame_equal(
        rk.analysis.loo_baseline(X), pd.DataFrame(others, X.index, X.columns), check_names=False
    )


@pytest.mark.parametrize("kind", ["mean", "max"])
def test_an_aggregate_baseline_of_zrisk_is_the_two_row_matrix_of_each_system(kind):
    b = getattr(X, kind)().to_numpy()  # over every system, the evaluated one included
    expected = [zrisk_of_pair(X.loc[i].to_numpy(), b, 5.0) for i in X.index]
    assert rk.zrisk(X, 5.0, baseline=kind).to_numpy() == pytest.approx(expected, rel=1e-12)


def test_the_named_baseline_is_marked_in_its_own_rows():
    reason = rk.risk_table(X, baseline="b", alphas=[1.0]).set_index("system")["reason"]
    assert reason.loc["b"] == "the system is the baseline"
    assert reason.drop("b").isna().all()


def test_an_aggregate_baseline_marks_no_row():
    assert rk.risk_table(X, baseline="mean", alphas=[1.0])["reason"].isna().all()


@pytest.mark.parametrize(
    ("baseline", "name"),
    [
        (pd.Series([0.1, 0.2, 0.3, 0.4], index=list("wxyz")), "baseline"),
        (pd.Series([0.1, 0.2, 0.3, 0.4], index=list("wxyz"), name="bm25"), "bm25"),
        ([0.1, 0.2, 0.3, 0.4], "baseline"),
        ("c", "c"),
        ("max", "MAX"),
    ],
)
def test_tables_name_the_baseline(baseline, name):
    assert set(rk.risk_table(X, baseline=baseline)["baseline"]) == {name}
    assert set(rk.analysis.chisq_residuals(X, baseline=baseline)["baseline"]) == {name}


def test_a_vector_baseline_gives_the_scores_in_the_topic_order():
    v = [0.1, 0.2, 0.3, 0.4]
    table = rk.risk_table(X, baseline=v, alphas=[0.0]).set_index("system")
    assert table["urisk"].to_numpy() == pytest.approx((X.to_numpy() - v).mean(axis=1), abs=1e-15)


@pytest.mark.parametrize(
    ("system", "baseline"),
    [
        (X.loc["a"], X.loc["b"]),
        (X.loc["a"], X.loc["b"].to_numpy()),
        (X.loc["a"].to_numpy(), X.loc["b"].reset_index(drop=True)),
    ],
)
def test_per_topic_tables_are_indexed_by_topic(system, baseline):
    index = rk.topic_risk(system, baseline).index
    assert index.name == "topic"
    assert index.tolist() == (list("wxyz") if isinstance(system, pd.Series) else ["0", "1", "2", "3"])


def test_the_parts_of_a_baseline_option_have_resolvable_types():
    option = baselines.baseline_option("mean", X.index, X.columns, "f", leave_one_out=False)
    assert option == baselines.BaselineOption("MEAN", aggregate="mean")
    assert (option.system, option.values) == (None, None)
    assert typing.get_type_hints(baselines.BaselineOption) == {
        "name": str,
        "aggregate": str | None,
        "system": str | None,
        "values": np.ndarray | None,
    }
    resolved = baselines.resolve_baseline(X, "a", "f")
    assert resolved.is_self.tolist() == [True, False, False]
    assert typing.get_type_hints(baselines.ResolvedBaseline) == {
        "values": np.ndarray,
        "name": str,
        "is_self": np.ndarray,
    }
