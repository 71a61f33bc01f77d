"""One home per statistic: every consumer computes each declared risk measure by its
``value(sums, α)`` from the same sums, so the bootstrap's estimate, the randomisation test's
statistic, the Tukey HSD's means and the single-pair functions are risk_table's values to the last
bit (NaN where it is NaN); a measure declared with ``register_risk`` works everywhere or is refused
with the reason; nothing returns memory it did not write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest
from declared_measures import LossURisk, registered
from shared_data import shared_data

import riskeval as rk
from riskeval.core import paired
from riskeval.errors import RiskevalError
from riskeval.inference.bootstrap import ResampledMeasures
from riskeval.measures.baselines import ResolvedBaseline
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure, URisk

ALPHAS = [0.0, 1.0, 5.0, 10.0]


def dl19() -> pd.DataFrame:
    """The shipped TREC DL 2019 example (37 runs × 43 topics, nDCG@10)."""
    return rk.example_scores()


def clef2015() -> pd.DataFrame:
    """CLEF eHealth 2015 P@10 (110 runs × 66 queries), from the official per-topic trec_eval
    outputs of the campaign data."""
    outputs = sorted(str(p) for p in shared_data("clef-ehealth-2015-task2", "pertopic-evals").glob("*.dat"))
    return rk.io.read_trec_eval(outputs, "P_10", names="file")


def near_constant() -> pd.DataFrame:
    """A system = its baseline − 0.2 but on one topic, moved by 1e-8: a tiny but real spread, so
    TRisk is about −1.2e8 (no second rule may call it undefined)."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.9, 30)
    near = base - 0.2
    near[4] += 1e-8
    return pd.DataFrame([base, near, rng.uniform(0.2, 0.8, 30)], index=["base", "near", "other"])


def tied() -> pd.DataFrame:
    """Scores on a 0.1 grid with many zeros, two systems identical, one equal to the baseline on
    every topic (URisk 0, TRisk NaN)."""
    rng = np.random.default_rng(1)
    X = np.round(rng.beta(2, 3, (8, 25)), 1) * (rng.uniform(size=(8, 25)) > 0.4)
    X[5] = X[2]
    X[7] = X[0]
    return pd.DataFrame(X, index=[f"s{i}" for i in range(8)])


CASES = {"DL 2019": (dl19, "mean"), "CLEF 2015": (clef2015, "mean"), "near-constant": (near_constant, "base")}
CASES["tied"] = (tied, "s0")


@pytest.fixture(params=list(CASES))
def case(request: Any) -> tuple[pd.DataFrame, str]:
    load, baseline = CASES[request.param]
    return load(), baseline


def test_the_bootstrap_estimate_is_risk_tables_value(case):
    X, baseline = case
    for loo in (False, True):
        table = rk.risk_table(X, baseline, ALPHAS, leave_one_out=loo)
        boot = rk.bootstrap_ci(
            X, baseline, ALPHAS, risk=list(RISK_MEASURES), n_resamples=20, rng=1, leave_one_out=loo
        )
        for cls in RISK_MEASURES.values():
            rows = boot[boot["risk"] == cls.name]
            assert list(rows["system"]) == list(table["system"]) and list(rows["alpha"]) == list(
                table["alpha"]
            )
            np.testing.assert_array_equal(rows["estimate"].to_numpy(), table[cls.column].to_numpy(), cls.name)


def test_the_near_constant_difference_has_one_trisk_everywhere():
    X = near_constant()
    table = rk.risk_table(X, "base", ALPHAS)
    t = table.loc[table["system"] == "near", "trisk"].to_numpy()
    assert np.all(t < -1e7) and np.all(np.isfinite(t))  # a spread of 1e-8 is no rounding noise
    boot = rk.bootstrap_ci(X, "base", ALPHAS, risk="TRisk", n_resamples=50, rng=2)
    np.testing.assert_array_equal(boot.loc[boot["system"] == "near", "estimate"].to_numpy(), t)
    single = [rk.trisk(X.loc["near"], X.loc["base"], a).statistic for a in ALPHAS]
    np.testing.assert_array_equal(single, t)


def test_the_single_pair_functions_and_tests_are_risk_tables_values(case):
    X, baseline = case
    table = rk.risk_table(X, baseline, ALPHAS)
    b = X.loc[baseline] if baseline in X.index else rk.analysis.baseline(X, baseline)
    cells = [(s, a) for s in X.index for a in ALPHAS]
    urisk = table["urisk"].to_numpy()
    np.testing.assert_array_equal([rk.urisk(X.loc[s], b, a) for s, a in cells], urisk)
    trisk = [rk.trisk(X.loc[s], b, a).statistic for s, a in cells]
    np.testing.assert_array_equal(trisk, table["trisk"].to_numpy())
    observed = [rk.permutation_test(X.loc[s], b, a, n_resamples=9, rng=1).statistic for s, a in cells]
    np.testing.assert_array_equal(observed, urisk)
    perm = rk.risk_permutation_table(X, baseline, ALPHAS, n_resamples=9, rng=1)
    np.testing.assert_array_equal(perm["urisk"].to_numpy(), urisk)
    hsd = rk.tukey_hsd(X, baseline, 5.0, n_resamples=9, rng=1).letters.set_index("system")["urisk"]
    np.testing.assert_array_equal(hsd.reindex(X.index).to_numpy(), urisk[2 :: len(ALPHAS)])


def test_effect_sizes_are_undefined_exactly_where_trisk_is(case):
    """The standardised URisk x̄/s_x of the bootstrap, the sign-flip test and the max-T table is
    TRisk/√c, NaN exactly where TRisk is (one rule of a constant difference: the tied system equal
    to its baseline, and no huge value where the spread is rounding noise)."""
    X, baseline = case
    table = rk.risk_table(X, baseline, ALPHAS)
    b = X.loc[baseline] if baseline in X.index else rk.analysis.baseline(X, baseline)
    want = table["trisk"].to_numpy() / np.sqrt(X.shape[1])
    boot = rk.bootstrap_ci(X, baseline, ALPHAS, risk="URisk", n_resamples=9, rng=1)
    perm = rk.risk_permutation_table(X, baseline, ALPHAS, n_resamples=9, rng=1)
    single = [
        rk.permutation_test(X.loc[s], b, a, n_resamples=9, rng=1).effect_size for s in X.index for a in ALPHAS
    ]
    for got in (boot["effect_size"].to_numpy(), perm["effect_size"].to_numpy(), np.array(single)):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-9)


def test_rounding_noise_has_no_effect_size():
    """Differences 0.1 − 0.3, 0.2 − 0.4, … are −0.2 up to rounding: TRisk and the effect size are
    both undefined (no ±1e15 from a spread of one ulp)."""
    base = np.arange(3, 13) / 10
    X = pd.DataFrame([base, base - 0.2], index=["base", "shifted"])
    table = rk.risk_table(X, "base", [0.0])
    assert np.isnan(table["trisk"]).all()
    assert np.isnan(
        rk.bootstrap_ci(X, "base", [0.0], risk="URisk", n_resamples=9, rng=1)["effect_size"]
    ).all()
    assert np.isnan(
        rk.permutation_test(X.loc["shifted"], X.loc["base"], 0.0, n_resamples=9, rng=1).effect_size
    )


def test_zrisk_and_georisk_are_risk_tables_values():
    X = dl19()
    table = rk.risk_table(X, "mean", ALPHAS)
    np.testing.assert_array_equal(rk.zrisk(X, ALPHAS).to_numpy().ravel(), table["zrisk"].to_numpy())
    np.testing.assert_array_equal(rk.georisk(X, ALPHAS).to_numpy().ravel(), table["georisk"].to_numpy())


# --- a measure of one's own -------------------------------------------------------------------


@pytest.fixture
def loss_urisk() -> Any:
    """A loss-only URisk, declared for the test and removed afterwards."""

    with registered(LossURisk):
        yield LossURisk


def _loss_urisk(X: pd.DataFrame, baseline: np.ndarray, alpha: float) -> np.ndarray:
    """The loss-only URisk by its definition, from the per-topic differences."""
    return (1.0 + alpha) * np.minimum(X.to_numpy() - baseline, 0.0).mean(axis=1)


def test_a_declared_measure_works_everywhere(loss_urisk):
    X = dl19()
    base = rk.analysis.baseline(X, "mean").to_numpy()
    table = rk.risk_table(X, "mean", ALPHAS)
    assert "loss_urisk" in table.columns and "loss_urisk" in rk.analysis.table.COLUMNS
    want = np.stack([_loss_urisk(X, base, a) for a in ALPHAS], axis=1).ravel()
    np.testing.assert_allclose(table["loss_urisk"], want, rtol=1e-12, atol=1e-15)
    only = rk.risk_table(X, "mean", risk="LossURisk@5")
    assert list(only.columns) == [*rk.analysis.table.columns_of([]), "loss_urisk"]
    boot = rk.bootstrap_ci(X, "mean", ALPHAS, risk=[loss_urisk(), "URisk"], n_resamples=200, rng=3)
    rows = boot[boot["risk"] == "LossURisk"]
    np.testing.assert_array_equal(rows["estimate"].to_numpy(), table["loss_urisk"].to_numpy())
    assert np.isfinite(rows[["low", "high", "se", "pvalue"]].to_numpy()).all()
    assert ((rows["low"] <= rows["estimate"]) & (rows["estimate"] <= rows["high"])).mean() > 0.9
    assert (rows["high"] <= 0).all()  # no rewards: never above 0
    diff = rk.inference.bootstrap_difference(
        X, X.index[0], X.index[1], risk="LossURisk@1", n_resamples=200, rng=4
    )
    loss = dict(
        zip(
            table.loc[table["alpha"] == 1, "system"],
            table.loc[table["alpha"] == 1, "loss_urisk"],
            strict=True,
        )
    )
    assert diff.statistic == pytest.approx(loss[X.index[0]] - loss[X.index[1]], abs=1e-15)
    ranks = rk.inference.rank_intervals(X, risk="LossURisk@1", n_resamples=100, rng=5)
    np.testing.assert_array_equal(ranks["estimate"], table.loc[table["alpha"] == 1, "loss_urisk"])


def test_a_declared_measure_in_the_table_of_a_long_table(loss_urisk):
    """The out-of-core table merges partial sums and computes every declared measure from them."""
    pytest.importorskip("dask.dataframe")
    from riskeval.distributed.risk import long_risk_table

    X = dl19().iloc[:6]
    long = X.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    got = long_risk_table(long, "mean", ALPHAS)
    want = rk.risk_table(X, "mean", ALPHAS)
    assert list(got.columns) == list(want.columns) and "loss_urisk" in got.columns
    np.testing.assert_allclose(got["loss_urisk"], want["loss_urisk"], rtol=1e-12, atol=1e-15)


def test_a_procedure_refuses_a_measure_it_cannot_test_with_the_reason(loss_urisk):
    X = dl19()
    reason = "LossURisk is not a function of the mean risk-reward score"
    with pytest.raises(RiskevalError, match=f"must be URisk or TRisk.*{reason}.*bootstrap"):
        rk.permutation_test(X.iloc[0], X.iloc[1], risk="LossURisk")
    with pytest.raises(RiskevalError, match=reason):
        rk.risk_permutation_table(X, risk=["URisk", "LossURisk"])
    with pytest.raises(RiskevalError, match=reason):
        rk.tukey_hsd(X, risk="LossURisk")


def test_a_measure_without_a_null_value_has_no_pvalue_and_nothing_unwritten(loss_urisk):
    X = dl19().iloc[:6]

    @dataclass(frozen=True)
    class Worst(RiskMeasure):
        """The mean loss, undefined (NaN) for a system that never loses; no null value."""

        name: ClassVar[str] = "Worst"
        column: ClassVar[str] = "worst"
        needs: ClassVar[str] = "baseline"
        null_value: ClassVar[float | None] = None

        def value(self, sums: Any, alpha: Any) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(sums.losses > 0, sums.sum_neg / sums.losses, np.nan)  # no α: broadcast

    with registered(Worst):
        X = X.copy()
        X.iloc[3] = X.iloc[:, :].max().to_numpy() + 0.01  # wins every topic against the MEAN
        boot = rk.bootstrap_ci(X, "mean", [0.0, 2.0], risk="Worst", n_resamples=50, rng=6, method="bca")
        assert boot["pvalue"].isna().all() and boot["effect_size"].isna().all()
        never = boot["system"] == X.index[3]
        assert boot.loc[never, ["estimate", "low", "high", "se"]].isna().all().all()
        assert np.isfinite(boot.loc[~never, ["estimate", "low", "high", "se"]].to_numpy()).all()
        table = rk.risk_table(X, "mean", [0.0, 2.0])
        np.testing.assert_array_equal(boot["estimate"], table["worst"])


def test_a_value_of_the_wrong_shape_is_refused_by_name():
    @dataclass(frozen=True)
    class Total(RiskMeasure):
        name: ClassVar[str] = "Total"
        column: ClassVar[str] = "total"

        def value(self, sums: Any, alpha: Any) -> np.ndarray:
            return np.atleast_1d(np.sum(sums.sum_pos))  # one number for every system: not vectorised

    with registered(Total):
        with pytest.raises(RiskevalError, match=r"Total\.value\(sums, alpha\) returned an array of shape"):
            rk.bootstrap_ci(dl19(), "mean", [1.0], risk="Total", n_resamples=20, rng=1)
        with pytest.raises(RiskevalError, match=r"Total\.value\(sums, alpha\) returned"):
            rk.risk_table(dl19())


def test_resamples_count_wins_for_a_declared_measure_that_reads_them():
    """The resamples' paired sums leave out wins, losses and Loss>20% when only measures that do
    not read them are asked; a declared measure gets them, each resample's own."""

    @dataclass(frozen=True)
    class WinShare(RiskMeasure):
        """Share of the topics won against the baseline."""

        name: ClassVar[str] = "WinShare"
        column: ClassVar[str] = "win_share"
        citation: ClassVar[str] = "Wins of Dinçer, Macdonald & Ounis, SIGIR 2016, Table 7"

        def value(self, sums: Any, alpha: Any) -> np.ndarray:
            return sums.wins / sums.n + 0.0 * alpha

    X = dl19().to_numpy()
    base = X.mean(axis=0)
    W = np.random.default_rng(7).integers(0, 3, (40, X.shape[1])).astype(np.float64)
    bases = {"baseline": ResolvedBaseline(base, "MEAN", np.zeros(X.shape[0], dtype=bool))}
    alone = ResampledMeasures(X, bases, [(URisk(), np.array([0.0, 5.0]))])
    assert not alone.counts
    both = ResampledMeasures(X, bases, [(URisk(), np.array([0.0, 5.0])), (WinShare(), np.array([0.0]))])
    urisk, share = both.values_for(W)
    np.testing.assert_array_equal(alone.values_for(W)[0], urisk)  # the same bits either way
    want = ((X > base) @ W.T) / W.sum(axis=1)  # systems × resamples
    np.testing.assert_allclose(share[:, 0, :], want, rtol=1e-15)
    lean = paired.paired_sums(X, base, W, counts=False)
    full = paired.paired_sums(X, base, W)
    assert lean.wins is None and lean.losses is None and lean.loss20 is None
    for f in ("n", "sum_pos", "sum_neg", "m2_pos", "m2_neg", "cross", "scale"):
        np.testing.assert_array_equal(getattr(lean, f), getattr(full, f))
