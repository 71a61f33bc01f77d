"""A refused baseline says, in the whole message, which function and which parameter, what was
given and what to give instead: named systems, aggregates, per-topic vectors and Series,
per-system baseline DataFrames and long tables.  Lists in messages are cut at a stated length."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import riskeval as rk

X = pd.DataFrame([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.2, 0.2, 0.2]], index=list("abc"), columns=list("xyz"))

NON_FINITE = "missing topics need a policy (riskeval.score_matrix(..., missing=...))."
POLICY = "Build both from one score matrix with a missing-topic policy (riskeval.score_matrix(..., missing='zero' or 'drop'))."
COMPLEX = "scores must be real numbers; take .real explicitly if the imaginary parts are 0."
USE = "Use 'mean', 'median', 'max', a system name"


def message(call, *args, **kwargs) -> str:
    with pytest.raises(rk.RiskevalError) as e:
        call(*args, **kwargs)
    return str(e.value)


def matrix(systems: list[str]) -> pd.DataFrame:
    """A systems × 3 topics matrix of distinct scores."""
    values = np.arange(len(systems) * 3, dtype=float).reshape(len(systems), 3) / 100
    return pd.DataFrame(values, index=systems, columns=list("xyz"))


# --- a baseline named by text ------------------------------------------------------------------


def test_an_unknown_system_name_lists_the_systems():
    assert message(rk.risk_table, X, baseline="d") == (
        f"The 'baseline' parameter of risk_table names no system of the matrix: 'd'. {USE} "
        "('a', 'b', 'c') or a per-topic vector."
    )


def test_an_aggregate_in_capitals_is_told_to_be_lower_case():
    assert message(rk.zrisk, X, baseline="MEAN") == (
        "The 'baseline' parameter of zrisk names no system of the matrix: 'MEAN'. Aggregate baselines "
        f"are lower case: use 'mean'. {USE} ('a', 'b', 'c') or a per-topic vector."
    )


def test_a_near_miss_offers_the_three_closest_system_names():
    # difflib.get_close_matches: ratio 6/7 for each of run1..run4 against "run"; equally close
    # names come last name first, and three at most are offered
    M = matrix(["run1", "run2", "run3", "run4", "other"])
    assert message(rk.risk_table, M, baseline="run") == (
        "The 'baseline' parameter of risk_table names no system of the matrix: 'run'. Did you mean "
        f"'run4' or 'run3' or 'run2'? {USE} ('run1', 'run2', 'run3', 'run4', 'other') or a per-topic "
        "vector."
    )


def test_the_system_list_of_a_message_stops_after_ten_names():
    ten = [f"s{i:02d}" for i in range(10)]
    listed = ", ".join(repr(s) for s in ten)
    assert message(rk.risk_table, matrix(ten), baseline="zz") == (
        f"The 'baseline' parameter of risk_table names no system of the matrix: 'zz'. {USE} "
        f"({listed}) or a per-topic vector."
    )
    assert message(rk.risk_table, matrix([*ten, "s10"]), baseline="zz") == (
        f"The 'baseline' parameter of risk_table names no system of the matrix: 'zz'. {USE} "
        f"({listed} ...) or a per-topic vector."
    )


def test_leaving_one_out_needs_two_systems():
    assert message(rk.analysis.loo_baseline, X.iloc[:1]) == (
        "loo_baseline: a leave-one-out baseline needs at least two systems."
    )
    assert message(rk.risk_table, X.iloc[:1], baseline="mean", leave_one_out=True) == (
        "risk_table: a leave-one-out baseline needs at least two systems."
    )


# --- a per-topic vector ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "described"),
    [
        (np.zeros((2, 3)), "ndarray of shape (2, 3)"),
        (np.zeros((3, 3)), "ndarray of shape (3, 3)"),  # as many rows as topics: still not a vector
        ([0.1, 0.2], "list of shape (2,)"),
        (["a", "b", "c"], "list of shape (3,)"),
        (0.5, "0.5"),
    ],
)
def test_a_baseline_that_is_no_vector_of_the_topics_is_described(given, described):
    assert message(rk.risk_table, X, baseline=given) == (
        "The 'baseline' parameter of risk_table must be 'mean', 'median', 'max', a system name, a "
        f"Series indexed by topic, or a vector of 3 scores. Got {described}."
    )


def test_a_complex_baseline_vector_is_refused():
    assert message(rk.risk_table, X, baseline=np.array([0.1, 0.2, 0.3j])) == (
        f"The 'baseline' of risk_table holds complex numbers (dtype complex128): {COMPLEX}"
    )


def test_a_non_finite_or_huge_baseline_score_is_refused_with_its_position():
    assert message(rk.risk_table, X, baseline=[0.1, np.nan, 0.3]) == (
        f"The 'baseline' of risk_table has a non-finite score (nan) at position 1; {NON_FINITE}"
    )
    # the bound itself is refused: scores must be below it
    assert message(rk.risk_table, X, baseline=[0.1, 0.2, 1e100]) == (
        "The 'baseline' of risk_table has a score of magnitude 1e+100 at position 2; scores must be "
        "below 1e+100 in magnitude (rescale them, which changes no ranking)."
    )


# --- a per-topic Series ------------------------------------------------------------------------


def test_a_baseline_series_must_cover_every_topic_once_with_numbers():
    assert message(rk.risk_table, X, baseline=pd.Series([1.0, 2.0, 3j], index=list("xyz"))) == (
        f"The 'baseline' of risk_table holds complex numbers (dtype complex128): {COMPLEX}"
    )
    assert message(rk.risk_table, X, baseline=pd.Series([0.1, 0.2], index=list("xy"))) == (
        f"The 'baseline' of risk_table has no score for 1 topic(s) of the system: ['z']. {POLICY}"
    )
    assert message(rk.risk_table, X, baseline=pd.Series([0.1, 0.2, "u"], index=list("xyz"))) == (
        "The 'baseline' of risk_table must hold numbers only."
    )


def test_duplicate_topics_of_a_series_are_listed_up_to_five():
    topics = list("xyz") + [f"d{i}" for i in range(6)] * 2
    v = pd.Series(0.1, index=topics)
    assert message(rk.risk_table, X, baseline=v) == (
        "The 'baseline' Series of risk_table has duplicate topics: ['d0', 'd1', 'd2', 'd3', 'd4']."
    )


def test_missing_topics_of_a_series_are_listed_up_to_ten():
    topics = [f"t{i:02d}" for i in range(12)]
    M = pd.DataFrame(np.full((2, 12), 0.5), index=["a", "b"], columns=topics)
    assert message(rk.risk_table, M, baseline=pd.Series([0.1], index=["t00"])) == (
        f"The 'baseline' of risk_table has no score for 11 topic(s) of the system: {topics[1:11]}. {POLICY}"
    )


# --- a system and a baseline given as a pair ---------------------------------------------------


def test_a_pair_of_series_must_cover_the_same_topics():
    extra = [f"e{i:02d}" for i in range(11)]
    b = pd.Series(0.1, index=[*"xyz", *extra])
    assert message(rk.trisk, X.loc["a"], b) == (
        f"The 'baseline' of trisk has 11 topic(s) the system lacks: {extra[:10]}. {POLICY}"
    )


@pytest.mark.parametrize(
    ("system", "baseline", "expected"),
    [
        (
            pd.Series([0.1, np.nan, 0.3], index=list("xyz")),
            X.loc["a"],
            f"The 'system' of trisk has a non-finite score (nan) at position 1; {NON_FINITE}",
        ),
        (
            X.loc["a"],
            [0.1, 0.2, np.inf],
            f"The 'baseline' of trisk has a non-finite score (inf) at position 2; {NON_FINITE}",
        ),
        (
            [0.1, 0.2, 0.3],
            pd.Series([0.1, np.nan, 0.3]),
            f"The 'baseline' of trisk has a non-finite score (nan) at position 1; {NON_FINITE}",
        ),
        (
            [0.1, -1e100, 0.3],
            [0.1, 0.2, 0.3],
            "The 'system' of trisk has a score of magnitude -1e+100 at position 1; scores must be "
            "below 1e+100 in magnitude (rescale them, which changes no ranking).",
        ),
        (
            [0.1, 0.2, 0.3],
            [[0.1, 0.2, 0.3]],
            "The 'baseline' parameter of trisk must be a 1-D vector of at least two per-topic "
            "scores. Got list of shape (1, 3).",
        ),
        (
            "abc",
            [0.1, 0.2, 0.3],
            "The 'system' parameter of trisk must be a 1-D vector of at least two per-topic "
            "scores. Got 'abc'.",
        ),
        (
            [0.1, 0.2, 0.3j],
            [0.1, 0.2, 0.3],
            f"The 'system' of trisk holds 0.3j (a complex number) for position 2: {COMPLEX}",
        ),
        (
            [0.1, 0.2, 0.3],
            [0.1, 0.2],
            "trisk: the system has 3 topic scores and the baseline 2; they must score the same topics.",
        ),
        (
            X.loc["a"],
            [0.1, 0.2],
            "trisk: the system has 3 topic scores and the baseline 2; they must score the same topics.",
        ),
    ],
)
def test_a_bad_pair_says_which_side_and_why(system, baseline, expected):
    assert message(rk.trisk, system, baseline) == expected


# --- each system's own baseline run ------------------------------------------------------------


def test_baseline_runs_needs_a_mapping():
    assert message(rk.analysis.baseline_runs, X, ["a"]) == (
        "The 'mapping' parameter of baseline_runs must be a dict or a Series (system -> baseline). Got list."
    )


def test_baseline_runs_lists_up_to_ten_unmapped_systems():
    systems = [f"s{i:02d}" for i in range(12)]
    assert message(rk.analysis.baseline_runs, matrix(systems), {"s00": "s00"}) == (
        f"baseline_runs: 11 system(s) have no baseline: {systems[1:11]}. Map every system (a "
        "baseline run to itself)."
    )


def test_baseline_runs_lists_up_to_ten_unknown_baselines():
    systems = [f"s{i:02d}" for i in range(12)]
    unknown = {s: f"u{s}" for s in systems}
    assert message(rk.analysis.baseline_runs, matrix(systems), unknown) == (
        f"baseline_runs: 12 baseline(s) are not systems of the matrix: {[f'u{s}' for s in systems[:10]]}."
    )


def test_baseline_runs_reads_a_series_as_a_mapping():
    runs = rk.analysis.baseline_runs(X, pd.Series({"a": "c", "b": "c", "c": "c"}))
    expected = pd.DataFrame([X.loc["c"].to_numpy()] * 3, index=X.index, columns=X.columns)
    pd.testing.assert_frame_equal(runs, expected, check_names=False)


def per_system(index: list[str], columns: list[str], fill: object = 0.1) -> pd.DataFrame:
    return pd.DataFrame([[fill] * len(columns)] * len(index), index=index, columns=columns)


def test_duplicate_labels_of_a_per_system_baseline_are_listed_up_to_five():
    doubled = [f"d{i}" for i in range(6)] * 2
    assert message(rk.risk_table, X, baseline=per_system([*"abc", *doubled], list("xyz"))) == (
        "The per-system 'baseline' DataFrame of risk_table has duplicate system labels: "
        "['d0', 'd1', 'd2', 'd3', 'd4']."
    )
    assert message(rk.risk_table, X, baseline=per_system(list("abc"), [*"xyz", *doubled])) == (
        "The per-system 'baseline' DataFrame of risk_table has duplicate topic labels: "
        "['d0', 'd1', 'd2', 'd3', 'd4']."
    )


def test_a_per_system_baseline_names_what_it_lacks_in_the_matrix_order():
    need = "it needs one row per system of the matrix (labelled like it) and a column for each of its topics."
    systems = [f"s{i:02d}" for i in range(12)][::-1]  # the matrix's order, not sorted
    assert message(rk.risk_table, matrix(systems), baseline=per_system(["s11"], list("xyz"))) == (
        f"The per-system 'baseline' DataFrame of risk_table has no system {systems[1:11]} (11 missing): {need}"
    )
    M = pd.DataFrame(np.full((2, 3), 0.5), index=["a", "b"], columns=list("zyx"))
    assert message(rk.risk_table, M, baseline=per_system(["a", "b"], ["q"])) == (
        f"The per-system 'baseline' DataFrame of risk_table has no topic ['z', 'y', 'x'] (3 missing): {need}"
    )


def test_a_per_system_baseline_must_hold_finite_real_numbers():
    name = "The per-system 'baseline' DataFrame of risk_table"
    assert message(rk.risk_table, X, baseline=per_system(list("abc"), list("xyz"), 0.1j)) == (
        f"{name} holds complex numbers (dtype complex128): {COMPLEX}"
    )
    assert message(rk.risk_table, X, baseline=per_system(list("abc"), list("xyz"), "u")) == (
        f"{name} must hold numbers."
    )
    nan = per_system(list("abc"), list("xyz"))
    nan.loc["b", "y"] = np.nan
    assert message(rk.risk_table, X, baseline=nan) == (
        f"The 'per-system baseline' of risk_table has a non-finite score (nan) at position 4; {NON_FINITE}"
    )


# --- a long table, known by its partial sums ---------------------------------------------------


@pytest.fixture(scope="module")
def long_table() -> pd.DataFrame:
    pytest.importorskip("dask.dataframe")
    return X.stack().rename("score").rename_axis(["system", "topic"]).reset_index()


@pytest.mark.parametrize(
    ("baseline", "leave_one_out", "expected"),
    [
        (
            "median",
            False,
            "long_risk_table: the MEDIAN baseline needs every score of a topic at once, which partial "
            "sums do not give; use 'mean', 'max' or a system name, or the in-memory risk_table.",
        ),
        (
            "max",
            True,
            "long_risk_table: the leave-one-out MAX baseline needs the two largest scores of every "
            "topic; use 'mean', or the in-memory risk_table.",
        ),
        (
            [0.1, 0.2, 0.3],
            False,
            "long_risk_table: a baseline vector has no topic labels, and the topics of a long table "
            "have no fixed order; give a Series indexed by topic.",
        ),
        (
            X,
            False,
            "long_risk_table: a per-system baseline DataFrame needs each system's scores beside its "
            "own baseline's, which partial sums do not give; use the in-memory risk_table.",
        ),
    ],
)
def test_a_long_table_refuses_the_baselines_partial_sums_cannot_give(
    long_table, baseline, leave_one_out, expected
):
    assert message(rk.analysis.long_risk_table, long_table, baseline, leave_one_out=leave_one_out) == expected


def test_a_long_table_takes_the_max_and_the_mean_left_out(long_table):
    for baseline, leave_one_out in (("max", False), ("mean", True)):
        long = rk.analysis.long_risk_table(long_table, baseline, leave_one_out=leave_one_out)
        memory = rk.risk_table(X, baseline, leave_one_out=leave_one_out)
        assert long["urisk"].to_numpy() == pytest.approx(memory["urisk"].to_numpy(), abs=1e-12)
