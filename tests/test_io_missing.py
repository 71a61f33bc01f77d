"""The missing-topic policy (raise / zero / drop) of every input path.

A topic evaluated for some systems and not others is never filled or dropped silently: the caller
chooses, and ``zero``/``drop`` warn with the counts of cells, topics and systems affected.
"""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import MissingTopicsError, MissingTopicsWarning, RiskevalError

nan = np.nan


def frame(rows, systems=None, topics=None):
    rows = np.asarray(rows, dtype=float)
    systems = systems or [f"s{i + 1}" for i in range(rows.shape[0])]
    topics = topics or list("abcdefgh"[: rows.shape[1]])
    return pd.DataFrame(rows, index=systems, columns=topics)


# (id, matrix with NaN for missing cells, policy, expected matrix, fragments of the message)
POLICY_CASES = [
    (
        "one cell, raise",
        frame([[0.1, nan, 0.3], [0.4, 0.5, 0.6]]),
        "raise",
        MissingTopicsError,
        [
            "1 of 6 (system, topic) cell(s) are missing",
            "1 of 3 topic(s) are not evaluated for every system",
            "1 of 2 system(s) affected",
            "topic 'b' has no score for 's1'",
            "missing='zero'",
            "missing='drop'",
        ],
    ),
    (
        "one cell, zero",
        frame([[0.1, nan, 0.3], [0.4, 0.5, 0.6]]),
        "zero",
        frame([[0.1, 0.0, 0.3], [0.4, 0.5, 0.6]]),
        ["1 of 6 (system, topic) cell(s) are missing", "scored 0 (missing='zero')"],
    ),
    (
        "one cell, drop",
        frame([[0.1, nan, 0.3], [0.4, 0.5, 0.6]]),
        "drop",
        frame([[0.1, 0.3], [0.4, 0.6]], topics=["a", "c"]),
        [
            "1 of 6 (system, topic) cell(s) are missing",
            "Those 1 topic(s) were dropped (missing='drop')",
            "discarding 1 score(s)",
            "2 topic(s) remain",
        ],
    ),
    (
        "three cells over two topics and three systems, zero",
        frame([[nan, 0.2, nan, 0.4], [0.1, 0.2, nan, 0.4], [0.5, 0.5, 0.5, 0.5]]),
        "zero",
        frame([[0.0, 0.2, 0.0, 0.4], [0.1, 0.2, 0.0, 0.4], [0.5, 0.5, 0.5, 0.5]]),
        [
            "3 of 12 (system, topic) cell(s) are missing",
            "2 of 4 topic(s)",
            "2 of 3 system(s) affected",
            "topic 'a' has no score for 's1'",
            "topic 'c' has no score for 's1', 's2'",
        ],
    ),
    (
        "three cells over two topics and three systems, drop",
        frame([[nan, 0.2, nan, 0.4], [0.1, 0.2, nan, 0.4], [0.5, 0.5, 0.5, 0.5]]),
        "drop",
        frame([[0.2, 0.4], [0.2, 0.4], [0.5, 0.5]], topics=["b", "d"]),
        ["3 of 12 (system, topic) cell(s)", "Those 2 topic(s) were dropped", "discarding 3 score"],
    ),
    (
        "a system with no score, drop leaves nothing",
        frame([[nan, nan], [0.1, 0.2]]),
        "drop",
        MissingTopicsError,
        ["2 of 4", "System(s) with no score at all: 's1'", "would leave nothing"],
    ),
    (
        "a system with no score, zero",
        frame([[nan, nan], [0.1, 0.2]]),
        "zero",
        frame([[0.0, 0.0], [0.1, 0.2]]),
        ["2 of 4", "System(s) with no score at all: 's1'"],
    ),
    (
        "many systems are summarised",
        frame([[nan, 1.0]] * 5 + [[1.0, 1.0]]),
        "raise",
        MissingTopicsError,
        ["5 of 12", "topic 'a' has no score for 's1', 's2', 's3' and 2 more"],
    ),
]


@pytest.mark.parametrize(
    "matrix, policy, expected, fragments",
    [case[1:] for case in POLICY_CASES],
    ids=[case[0] for case in POLICY_CASES],
)
def test_apply_missing_policy(matrix, policy, expected, fragments):
    before = matrix.copy()
    if expected is MissingTopicsError:
        with pytest.raises(MissingTopicsError) as info:
            rk.io.apply_missing(matrix, policy, source="runs.csv")
        message = str(info.value)
    else:
        with pytest.warns(MissingTopicsWarning) as record:
            result = rk.io.apply_missing(matrix, policy, source="runs.csv")
        assert len(record) == 1
        message = str(record[0].message)
        assert record[0].filename == __file__  # attributed to the caller, not to riskeval
        pd.testing.assert_frame_equal(result, expected, check_names=False)
        assert result.index.name == "system" and result.columns.name == "topic"
    assert message.startswith("runs.csv: ")
    for fragment in fragments:
        assert fragment in message
    pd.testing.assert_frame_equal(matrix, before)  # the caller's frame is untouched


@pytest.mark.parametrize("policy", ["raise", "zero", "drop"])
def test_complete_matrix_passes_without_warning(policy):
    matrix = frame([[0.1, 0.2], [0.3, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = rk.io.apply_missing(matrix, policy)
    np.testing.assert_array_equal(result.to_numpy(), matrix.to_numpy())
    result.iloc[0, 0] = 9.0  # an independent, writable frame
    assert matrix.iloc[0, 0] == 0.1


@pytest.mark.parametrize("policy", ["raise", "zero", "drop"])
def test_infinite_is_an_error_under_every_policy(policy):
    with pytest.raises(RiskevalError, match="1 infinite or huge cell.*system 's2', topic 'a'"):
        rk.io.apply_missing(frame([[0.1, nan], [np.inf, 0.4]]), policy)


@pytest.mark.parametrize("policy", ["fill", "ZERO", None, 0])
def test_unknown_policy(policy):
    message = r"The 'missing' parameter of \w+ must be one of 'zero', 'drop', 'raise'. Got"
    with pytest.raises(RiskevalError, match=message):
        rk.io.apply_missing(frame([[0.1]]), policy)
    with pytest.raises(RiskevalError, match=message):
        rk.score_matrix(frame([[0.1]]), missing=policy)


def test_as_matrix_refuses_missing_cells_and_names_the_policy():
    with pytest.raises(MissingTopicsError, match=r"X has 1 missing \(NaN\) cell.*\(s1, b\).*'drop'"):
        rk.io.as_matrix(frame([[0.1, nan], [0.3, 0.4]]))


# The same data (s1 evaluated on q1, q2, q3; s2 on q1, q3) through every input path.
SCORES = {
    ("s1", "q1"): 0.5,
    ("s1", "q2"): 0.25,
    ("s1", "q3"): 0.75,
    ("s2", "q1"): 0.1,
    ("s2", "q3"): 0.2,
}


def _long():
    return pd.DataFrame([(s, t, v) for (s, t), v in SCORES.items()], columns=["system", "topic", "score"])


def _wide():
    return _long().pivot(index="system", columns="topic", values="score")


def _trec_eval(tmp_path):
    paths = []
    for name in ("s1", "s2"):
        lines = [f"map\t{t}\t{v}" for (s, t), v in SCORES.items() if s == name]
        path = tmp_path / f"{name}.eval"
        path.write_text("\n".join([*lines, f"runid\tall\t{name}", "map\tall\t0.4"]) + "\n")
        paths.append(path)
    return {"data": paths, "measure": "map"}


def _ir_measures(tmp_path):
    results = {"s1": [], "s2": []}
    for (s, t), v in SCORES.items():
        results[s].append(ir_measures.Metric(t, ir_measures.AP, v))
    return {"data": results}


def _long_csv(tmp_path):
    path = tmp_path / "long.csv"
    _long().to_csv(path, index=False)
    return {"data": path}


def _wide_tsv(tmp_path):
    path = tmp_path / "wide.tsv"
    _wide().to_csv(path, sep="\t")
    return {"data": path}


INPUTS = {
    "long DataFrame": lambda tmp_path: {"data": _long()},
    "wide DataFrame": lambda tmp_path: {"data": _wide()},
    "long CSV": _long_csv,
    "wide TSV": _wide_tsv,
    "trec_eval files": _trec_eval,
    "ir_measures results": _ir_measures,
}


@pytest.mark.parametrize("kind", INPUTS)
def test_every_input_path_applies_the_policy(kind, tmp_path):
    args = INPUTS[kind](tmp_path)
    with pytest.raises(MissingTopicsError, match="1 of 6 .*topic 'q2' has no score for 's2'"):
        rk.score_matrix(**args)
    with pytest.warns(MissingTopicsWarning, match="1 of 6 .*scored 0") as record:
        zero = rk.score_matrix(**args, missing="zero")
    assert record[0].filename == __file__
    assert zero.loc["s2", "q2"] == 0.0
    assert {(s, t): zero.loc[s, t] for (s, t) in SCORES} == SCORES
    with pytest.warns(MissingTopicsWarning, match="1 topic.*dropped.*discarding 1 score"):
        dropped = rk.score_matrix(**args, missing="drop")
    assert list(dropped.columns) == ["q1", "q3"]
    assert list(dropped.index) == ["s1", "s2"]


def test_large_finite_scores_are_complete_without_warnings():
    # their sum of squares is large but finite: no cell is mistaken for an infinite or missing one
    large = frame([[9e99, -9e99], [1e99, 1e99]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rk.io.as_matrix(large).equals(large.rename_axis(index="system", columns="topic"))
        assert rk.io.apply_missing(large).to_numpy().max() == 9e99


@pytest.mark.parametrize("value", [1e100, -1e300, 1.7e308])
def test_scores_beyond_the_magnitude_bound_are_refused(value):
    """Squares and chi-square products of such scores overflow float64: refused, not mis-computed."""
    huge = frame([[value, 0.5], [0.25, 0.5]])
    with pytest.raises(
        RiskevalError, match=r"1 infinite or huge cell.*system 's1', topic 'a'.*below 1e\+100"
    ):
        rk.io.as_matrix(huge)
    with pytest.raises(RiskevalError, match="magnitude"):
        rk.trisk([value, 0.1, 0.2], [0.3, 0.2, 0.1])
