"""Every registered risk measure, through every consumer, equals the naive reference of the papers.

The contract of :data:`riskeval.measures.declared.RISK_MEASURES`: whatever computes a registered
measure — its own ``value`` from the sums it needs, :func:`riskeval.risk_table`, the out-of-core
``long_risk_table`` on a Dask cluster, the estimate of :func:`riskeval.bootstrap_ci`, the observed
statistic of the sign-flip tests, the risk columns of :func:`riskeval.compare` and the numbers of
the report's risk table — gives the value :mod:`naive_risk` computes from the papers' equations
(Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 3–12; Dinçer, Ounis & Macdonald, ECIR 2014, §3;
Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–8), NaN where it is NaN.  A procedure that cannot
handle a measure refuses it, naming the measure.  The measures are those registered, plus a
loss-only URisk declared as a user would.

Inputs: the shipped TREC DL 2019 nDCG@10 matrix; the CLEF eHealth 2015 P@10 matrix (campaign
data); a near-constant input (a system = baseline − 0.2 exactly, whose spread is rounding noise,
and the same with one topic moved by 1e-8, whose TRisk is about −1e8, or by 1e-14, within the
rounding rule's bound, or by as much as puts the spread between the bounds from the system's and
from the baseline's largest score); a tied input on the P@10 grid, large enough (16,800 cells) that the
compiled kernels of the paired and chi-square sums run, where the smaller inputs take their numpy
twins.

Tolerance: the reference is exact up to its last rounding (see :mod:`naive_risk`); the consumers
sum the same terms in other orders (pairwise, by partitions, in compiled kernels), which moves a
sum of c ≤ 420 terms of size ≤ 1 by at most about c·eps ≈ 1e-13 absolute; hence ``rtol=1e-12``
with ``atol=1e-12``.  A changed formula moves the values by far more (one topic is 1/c ≥ 0.2 % of
a mean).  The report rounds to the measure's ``decimals``: its numbers are within
half a unit of the last decimal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest
from declared_measures import LossURisk, registered
from naive_risk import NAIVE, urisk
from shared_data import shared_data

import riskeval as rk
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure

RTOL = ATOL = 1e-12
ALPHAS = (0.0, 1.0, 5.0, 10.0)
INPUTS = ("dl19", "clef2015", "near_constant", "tied")
#: A user's own measure, declared in the tests (the fixture ``declared`` registers it).
USER = LossURisk.name


@pytest.fixture(params=[*RISK_MEASURES, USER])
def declared(request: pytest.FixtureRequest) -> Iterator[type[RiskMeasure]]:
    """Each registered measure, and the user's own measure registered for the test only."""
    if request.param != USER:
        yield RISK_MEASURES[request.param]
        return
    with registered(LossURisk):
        yield LossURisk


@dataclass(frozen=True)
class Case:
    """An input: its matrix and the baseline of the settings (a system name or ``"mean"``)."""

    name: str
    matrix: pd.DataFrame
    baseline: str

    def baseline_vector(self) -> np.ndarray:
        X = self.matrix.to_numpy()
        return X.mean(axis=0) if self.baseline == "mean" else self.matrix.loc[self.baseline].to_numpy()

    def expected(self, measure: type[RiskMeasure]) -> np.ndarray:
        """The naive value of ``measure`` for every α (rows) and system (columns)."""
        return expected(self.name, measure.name)


@cache
def expected(data: str, measure: str) -> np.ndarray:
    assert measure in NAIVE, f"tests/naive_risk.py has no naive function of {measure}"
    X, b = case(data).matrix.to_numpy(), case(data).baseline_vector()
    return np.vstack([NAIVE[measure](X, b, a) for a in ALPHAS])


def _labelled(values: np.ndarray, prefix: str) -> pd.DataFrame:
    r, c = values.shape
    return pd.DataFrame(
        values,
        index=pd.Index([f"{prefix}{i}" for i in range(r)], name="system"),
        columns=pd.Index([f"t{j}" for j in range(c)], name="topic"),
    )


@cache
def case(name: str) -> Case:
    rng = np.random.default_rng(2014)
    if name == "dl19":
        return Case(name, rk.example_scores(), "bm25base_p")
    if name == "clef2015":
        folder = shared_data("clef-ehealth-2015-task2", "pertopic-evals")
        outputs = sorted(str(p) for p in folder.glob("*.dat"))  # as benchmarks/data.py clef2015_p10
        return Case(name, rk.io.read_trec_eval(outputs, "P_10", names="file"), "mean")
    if name == "near_constant":
        b = 0.3 + 0.5 * rng.random(40)
        shifted = b - 0.2
        near, edge, band = shifted.copy(), shifted.copy(), shifted.copy()
        near[0] += 1e-8
        edge[0] += 1e-14
        # s_x = h/√c halfway (geometrically) between the rule's bounds from the system's largest
        # score and from its baseline's: the bound is over both
        band[0] += np.sqrt(b.size) * 1024 * np.finfo(float).eps * np.sqrt(shifted.max() * b.max())
        other = np.clip(b + rng.normal(0, 0.1, b.size), 0, 1)
        M = _labelled(np.vstack([b, shifted, near, edge, band, other]), "s")
        return Case(name, M.rename(index={"s0": "base"}), "base")
    assert name == "tied", name
    # 40 × 420 cells: above NUMPY_CELLS, so the compiled kernels compute the sums
    return Case(name, _labelled(rng.integers(0, 11, (40, 420)) / 10, "s"), "s0")


@pytest.fixture(params=INPUTS)
def data(request: pytest.FixtureRequest) -> Case:
    return case(request.param)


def by_alpha(table: pd.DataFrame, column: str, M: pd.DataFrame) -> np.ndarray:
    """The values of ``column`` of a tidy (system, α) table: α rows, systems in ``M``'s order."""
    assert column in table.columns, f"no column {column!r} among {list(table.columns)}"
    wide = table.assign(system=table["system"].astype(str)).pivot(
        index="alpha", columns="system", values=column
    )
    return wide.loc[list(ALPHAS), [str(s) for s in M.index]].to_numpy(dtype=np.float64)


def same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=what)


def registry() -> tuple[str, ...]:
    """What the cached results depend on: the measures registered."""
    return tuple(RISK_MEASURES)


# ---------------------------------------------------------------------------------------- the reference


def test_every_registered_measure_has_a_naive_reference():
    assert set(RISK_MEASURES) <= set(NAIVE), set(RISK_MEASURES) - set(NAIVE)


def test_the_naive_reference_gives_the_papers_tables():
    """The reference itself against the papers: Table 5 of Dinçer, Macdonald & Ounis (SIGIR 2016),
    ZRisk and GeoRisk of its Table 3 matrix with every system a baseline, to the 3 decimals printed;
    and TRisk at α = 0 is the paired t statistic (Dinçer, Macdonald & Ounis, SIGIR 2014, §3)."""
    from scipy.stats import ttest_rel
    from test_zrisk_georisk import TABLE3, TABLE5_GEO, TABLE5_Z

    X = TABLE3.to_numpy()
    b = X[0]
    for alpha in TABLE5_Z:
        np.testing.assert_array_equal(np.round(NAIVE["ZRisk"](X, b, alpha), 3), TABLE5_Z[alpha])
        np.testing.assert_array_equal(np.round(NAIVE["GeoRisk"](X, b, alpha), 3), TABLE5_GEO[alpha])
    t = ttest_rel(X[1:], np.broadcast_to(b, X[1:].shape), axis=1).statistic
    np.testing.assert_allclose(NAIVE["TRisk"](X[1:], b, 0.0), t, rtol=RTOL, atol=ATOL)
    assert np.isnan(NAIVE["TRisk"](X[:1], b, 5.0)).all()  # the baseline against itself


# ---------------------------------------------------------------------------------------- the consumers

#: Results computed once per input and set of registered measures (a table holds every measure).
_RESULTS: dict[tuple[str, ...], Any] = {}


def once(kind: str, data: Case, compute: Any) -> Any:
    key = (kind, data.name, *registry())
    if key not in _RESULTS:
        _RESULTS[key] = compute()
    return _RESULTS[key]


def test_declared_value(declared, data):
    """The declaration itself: ``value(sums, alpha)`` from the sums the measure ``needs``, α on a
    first axis broadcast against a leading resample axis (two copies of the sums)."""
    from riskeval.core import chisq, paired

    X = data.matrix.to_numpy()
    if declared.needs == "matrix":
        sums: Any = chisq.zsums(X)
    else:
        sums = paired.paired_sums(X, X.mean(axis=0) if declared.needs == "mean" else data.baseline_vector())
    resampled = type(sums)(*(np.stack([v, v]) if isinstance(v, np.ndarray) else v for v in sums))
    got = declared().value(resampled, np.asarray(ALPHAS)[:, None, None])
    assert got.shape == (len(ALPHAS), 2, X.shape[0])
    for k in range(2):
        same(got[:, k], data.expected(declared), f"{declared.name}.value, resample {k}, on {data.name}")


def test_resampled_value(declared, data):
    """The sums of rows of topic weights, as the bootstrap draws them, give each row the measure of
    its topics repeated by their weights: the resamples' sums are the table's computation (every
    topic kept at least once, so that the scale of the rounding rule is the matrix's)."""
    from riskeval.core import chisq, paired

    X = data.matrix.to_numpy()
    W = np.random.default_rng(7).integers(1, 4, (3, X.shape[1])).astype(np.float64)
    b = X.mean(axis=0) if declared.needs == "mean" else data.baseline_vector()
    sums = chisq.zsums(X, None, W) if declared.needs == "matrix" else paired.paired_sums(X, b, W)
    got = declared().value(sums, np.asarray(ALPHAS)[:, None, None])
    # a resample's second moments are taken about the mean over every topic (shifted data, Chan,
    # Golub & LeVeque 1983), whose rounding grows with (mean/sd)²: on the near-constant rows
    # (sd/mean from 1e-8 down to 1e-13) TRisk keeps about 6 digits
    rtol = 1e-5 if data.name == "near_constant" else RTOL
    for k, w in enumerate(W.astype(int)):
        want = np.vstack([NAIVE[declared.name](np.repeat(X, w, axis=1), np.repeat(b, w), a) for a in ALPHAS])
        np.testing.assert_allclose(
            got[:, k], want, rtol=rtol, atol=ATOL, equal_nan=True, err_msg=f"{declared.name}, resample {k}"
        )


def test_risk_table(declared, data):
    table = once("risk_table", data, lambda: rk.risk_table(data.matrix, data.baseline, ALPHAS))
    got = by_alpha(table, declared.column, data.matrix)
    same(got, data.expected(declared), f"risk_table, {declared.name} on {data.name}")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A Dask cluster of one worker process, the client active for the module."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client


def test_long_risk_table_on_a_dask_cluster(declared, data, cluster):
    dd = pytest.importorskip("dask.dataframe")
    from riskeval.distributed.risk import long_risk_table

    def compute() -> pd.DataFrame:
        long = data.matrix.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
        return long_risk_table(dd.from_pandas(long, npartitions=3), data.baseline, ALPHAS)

    table = once("long_risk_table", data, compute)
    got = by_alpha(table, declared.column, data.matrix)
    same(got, data.expected(declared), f"long_risk_table, {declared.name} on {data.name}")


def test_bootstrap_estimate(declared, data):
    out = rk.bootstrap_ci(data.matrix, data.baseline, ALPHAS, risk=declared(), n_resamples=2, rng=0)
    rows = out[out["risk"] == declared.name]
    got = by_alpha(rows, "estimate", data.matrix)
    same(got, data.expected(declared), f"bootstrap_ci's estimate, {declared.name} on {data.name}")


def sign_flips(data: Case, measure: RiskMeasure) -> pd.DataFrame:
    return rk.risk_permutation_table(data.matrix, data.baseline, ALPHAS, risk=measure, n_resamples=20, rng=0)


def test_sign_flip_tests(declared, data):
    """The sign-flip test (its max-T table over systems × α, and the test of one pair) permutes the
    signs of the risk-reward scores x_j(α) against the one baseline it is given: its observed
    statistic is their mean, URisk(α) (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4).  A measure
    that is not a function of that mean, or that is computed against another baseline (T*Risk: the
    per-topic MEAN, ECIR 2014), is refused, naming the measure and the reason."""
    M = data.matrix
    X = M.to_numpy()
    b = data.baseline_vector()
    pair = {"system": M.iloc[1], "baseline": b, "risk": declared(alpha=5.0), "n_resamples": 20, "rng": 0}
    if not declared.of_risk_scores or declared.needs != "baseline":
        # what the declaration makes true of it; a chi-square measure may say how it differs
        reasons = {
            "baseline": ["not a function of the mean risk-reward score"],
            "mean": ["per-topic MEAN"],
            "matrix": [
                "not a function of the mean risk-reward score",
                "compares each system with every other",
            ],
        }[declared.needs]
        for func, call in {
            "risk_permutation_table": lambda: sign_flips(data, declared()),
            "permutation_test": lambda: rk.permutation_test(**pair),
        }.items():
            with pytest.raises(rk.RiskevalError) as refused:
                call()
            message = str(refused.value)
            assert declared.name in message or declared.header in message, (func, message)
            assert any(reason in message for reason in reasons), (func, message)
        return
    got = by_alpha(sign_flips(data, declared()), "urisk", M)
    same(
        got, expected(data.name, "URisk"), f"the max-T table's observed URisk, {declared.name} on {data.name}"
    )
    got = np.array([rk.permutation_test(**pair).statistic])
    same(got, urisk(X[1:2], b, 5.0), f"permutation_test's statistic, {declared.name} on {data.name}")


def test_compare_risk_columns(declared, data):
    def compute() -> Any:
        measures = [cls() for cls in RISK_MEASURES.values()]
        return rk.compare(data.matrix, data.baseline, alphas=ALPHAS, risk=measures)

    comparison = once("compare", data, compute)
    frame = comparison.to_frame()
    names = comparison.risk_columns()
    ir = comparison.means.columns[0]
    got = np.vstack([frame[names[ir, declared(alpha=a)]].to_numpy(dtype=np.float64) for a in ALPHAS])
    same(got, data.expected(declared), f"compare, {declared.name} on {data.name}")


def report_data(data: Case) -> dict[str, Any]:
    """The JSON the report page embeds for its risk tables (the summary section holds it)."""
    from riskeval.reporting.sections import summary_section

    page = rk.report(data.matrix, baseline=data.baseline, alphas=ALPHAS, sections=[summary_section])
    found = re.search(r'<script[^>]*id="rk-data-m0"[^>]*>(.*?)</script>', page.html, re.S)
    assert found, "the report embeds no data of its risk table"
    return json.loads(found.group(1))


def test_report_risk_table(declared, data):
    page = once("report", data, lambda: report_data(data))
    assert page["alphas"] == list(ALPHAS)
    tables = [t[declared.column] for t in page["table"]]
    got = np.array([[np.nan if v is None else v for v in values] for values in tables], dtype=np.float64)
    order = [list(map(str, data.matrix.index)).index(s) for s in page["systems"]]
    want = data.expected(declared)[:, order]
    what = f"the report's {declared.column}, {declared.name} on {data.name}"
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    ok = np.isnan(want) | (np.abs(got - want) <= 0.5 * 10.0**-declared.decimals + RTOL * np.abs(want))
    assert ok.all(), f"{what}: {got[~ok]} != {want[~ok]} at {declared.decimals} decimals"
