"""Labels of a validated score matrix: converted to ``str``, duplicates refused, the caller's frame
left alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError


@pytest.mark.parametrize(
    ("index", "shown"),
    [
        (pd.Index(["a", "b", "a"]), "['a']"),
        (pd.Index([3, 7, 3]), "['3']"),
        (pd.Index([1, "1", 2], dtype=object), "['1']"),  # distinct labels, one text
        (pd.Index([0.5, 2.0, 0.5]), "['0.5']"),
    ],
)
def test_duplicate_system_labels_are_refused_and_named(index, shown):
    frame = pd.DataFrame(np.full((3, 2), 0.5), index=index)
    with pytest.raises(RiskevalError, match=rf"X has duplicate system labels: \{shown}\."):
        rk.io.as_matrix(frame)


def test_duplicate_topic_labels_are_refused_and_named():
    frame = pd.DataFrame(np.full((2, 3), 0.5), columns=[5, 6, 5])
    with pytest.raises(RiskevalError, match=r"X has duplicate topic labels: \['5'\]\."):
        rk.io.as_matrix(frame)


@pytest.mark.parametrize(
    "labels",
    [
        pd.RangeIndex(3),
        pd.Index([10, -2, 7], dtype="int8"),
        pd.Index([-(2**63), 2**63 - 1, 0], dtype="int64"),  # the extremes, digit for digit
        pd.Index([2**64 - 1, 0, 9], dtype="uint64"),
        pd.Index([0.5, 1.0, 2.5]),
        pd.Index(["x", "y", "z"]),
    ],
)
def test_labels_become_the_text_of_str(labels):
    M = rk.io.as_matrix(pd.DataFrame(np.eye(3), index=labels, columns=labels))
    want = [str(v) for v in labels]
    assert M.index.tolist() == want and M.columns.tolist() == want
    assert (M.index.name, M.columns.name) == ("system", "topic")
    assert pd.api.types.is_string_dtype(M.index.dtype) and M.index.dtype != object


def test_renaming_a_result_leaves_the_input_alone():
    X = rk.example_scores()
    index, columns = X.index.copy(), X.columns.copy()
    M = rk.io.as_matrix(X)
    z = rk.zrisk(X, [0.0, 1.0])
    M.index.name = "run"
    M.columns.name = "query"
    z.index.name = "run"
    assert X.index.equals(index) and X.index.name == index.name == "system"
    assert X.columns.equals(columns) and X.columns.name == columns.name == "topic"


@pytest.mark.parametrize(
    "labels", [pd.RangeIndex(4), pd.RangeIndex(3, 11, 2), pd.RangeIndex(5, -3, -2), pd.RangeIndex(-2, 2)]
)
def test_range_labels_are_the_text_of_str_on_every_call(labels):
    """A RangeIndex's text is made once per range and reused: every call still gets the labels of
    its own range, named for its own axis."""
    n = len(labels)
    for _ in range(3):
        M = rk.io.as_matrix(pd.DataFrame(np.ones((n, n)), index=labels, columns=labels))
        assert M.index.tolist() == M.columns.tolist() == [str(v) for v in labels]
        assert (M.index.name, M.columns.name) == ("system", "topic")
        assert pd.api.types.is_string_dtype(M.index.dtype) and M.index.dtype != object


def test_renaming_the_labels_of_one_result_leaves_the_next_alone():
    """The kept text of a range is never handed out itself: renaming (or naming) the labels of one
    result does not reach the labels of the next call with the same range."""
    X = np.random.default_rng(0).uniform(size=(4, 6))
    first = rk.zrisk(X)
    first.index.name = "run"
    M = rk.io.as_matrix(X)
    M.columns.name = "query"
    again = rk.io.as_matrix(pd.DataFrame(X))
    assert (again.index.name, again.columns.name) == ("system", "topic")
    assert rk.zrisk(X).index.name == "system"
    assert again.index.tolist() == ["0", "1", "2", "3"]
    assert again.columns.tolist() == [str(j) for j in range(6)]
