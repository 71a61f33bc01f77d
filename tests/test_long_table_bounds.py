"""A long table cannot make riskeval allocate what its rows do not hold: a matrix of far more cells
than the table has rows is refused before it is allocated, and a table of many bad rows is refused
with the first thousand problems written and the others counted."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import InputFormatError
from riskeval.io.problems import MAX_PROBLEMS
from riskeval.io.tables import DENSE_FLOOR, MAX_CELLS_PER_ROW


def refused_with_peak(path) -> tuple[InputFormatError, int]:
    """The error of reading ``path`` (which must be refused) and the peak of the Python memory
    traced while it was read."""
    tracemalloc.start()
    try:
        with pytest.raises(InputFormatError) as caught:
            rk.io.read_scores(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return caught.value, peak


def test_a_table_of_distinct_labels_is_refused_before_its_matrix_is_allocated(tmp_path):
    n = 8_000  # 8,000 rows, 8,000 systems × 8,000 topics: 64 million cells, 512 MB of float64
    path = tmp_path / "scores.csv"
    path.write_text("system,topic,score\n" + "".join(f"s{i},t{i},0.5\n" for i in range(n)))
    error, peak = refused_with_peak(path)
    assert str(error) == (
        f"{path}: has 8,000 rows for 8,000 systems × 8,000 topics: its matrix would have 64,000,000 "
        "cells (0.5 GiB), 8,000 for each row, but a table of scores of systems on common topics fills "
        "at least one cell in 4. Check its system and topic columns ('system', 'topic')."
    )
    assert peak < 50e6


def test_a_small_sparse_table_is_left_to_the_missing_topic_policy():
    small = pd.DataFrame({"system": ["a", "a", "b"], "topic": ["1", "2", "1"], "score": [0.1, 0.2, 0.3]})
    with pytest.warns(rk.errors.MissingTopicsWarning):
        assert rk.score_matrix(small, missing="zero").shape == (2, 2)


@pytest.mark.slow
def test_a_table_past_the_floor_filling_a_quarter_of_its_cells_is_read():
    systems, topics = 2_000, 10_000
    assert systems * topics > DENSE_FLOOR
    rows = systems * topics // MAX_CELLS_PER_ROW
    i = np.arange(rows)
    long = pd.DataFrame({"system": i % systems, "topic": i // systems * 4 % topics + i % 4, "score": 0.5})
    with pytest.warns(rk.errors.MissingTopicsWarning):
        matrix = rk.score_matrix(long.astype({"system": str, "topic": str}), missing="zero")
    assert matrix.shape == (systems, topics)


def test_many_bad_rows_cost_a_thousand_messages(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("system,topic,score\n" + "s,1,0.5\n" * 200_000)  # every row but one a duplicate
    with pytest.raises(InputFormatError) as caught:
        rk.io.read_scores(path)
    error = caught.value
    assert len(error.problems) == MAX_PROBLEMS and error.omitted == 200_000 - 1 - MAX_PROBLEMS
    assert error.problems[0] == (f"{path}:3", f"duplicate (system, topic) ('s', '1'): first at {path}:2.")
    assert str(error).endswith(f"... and {200_000 - 1 - 20} more problem(s)")


def test_a_parquet_table_of_distinct_labels_is_refused_from_its_dictionaries(tmp_path):
    """The count of systems and topics comes from the Arrow columns, before any label is a Python
    string: the message is the one of a CSV table; a table of two measures is checked per measure."""
    n = 10_000
    long = pd.DataFrame({"system": [f"s{i}" for i in range(n)], "topic": [f"t{i}" for i in range(n)]})
    path = tmp_path / "scores.parquet"
    long.assign(score=0.5).to_parquet(path)
    error, peak = refused_with_peak(path)
    assert str(error).startswith(f"{path}: has 10,000 rows for 10,000 systems × 10,000 topics: its matrix")
    assert peak < 2e6  # Python objects: none per label (pyarrow's own memory is not traced)
    two = tmp_path / "two.parquet"
    long.assign(measure=["a", "b"] * (n // 2), score=0.5).to_parquet(two)
    with pytest.raises(InputFormatError, match=r"has 5,000 rows for 5,000 systems × 5,000 topics"):
        rk.io.read_scores(two, measure="a", missing="zero")
    one = tmp_path / "one.parquet"
    long.assign(measure="a", score=0.5).to_parquet(one)
    with pytest.raises(InputFormatError, match=r"has 10,000 rows for 10,000 systems"):
        rk.io.read_scores(one, measure="a", missing="zero")


@pytest.mark.parametrize("index", [True, False])
def test_a_parquet_table_of_many_columns_reads_as_pandas_reads_it(tmp_path, index):
    """A wide table of more columns than are read at once is the table pandas reads."""
    from riskeval.io.score_files import PARQUET_COLUMNS_AT_ONCE

    topics = 2 * PARQUET_COLUMNS_AT_ONCE + 3
    wide = pd.DataFrame(
        np.arange(3 * topics, dtype=float).reshape(3, topics) / 7,
        index=pd.Index(["b", "a", "c"], name="system"),
        columns=[f"q{j}" for j in range(topics)],
    )
    path = tmp_path / "wide.parquet"
    (wide if index else wide.reset_index()).to_parquet(path, index=index)
    got = rk.io.read_scores(path)
    assert got.shape == (3, topics)
    pd.testing.assert_frame_equal(got, rk.score_matrix(pd.read_parquet(path)))
    np.testing.assert_array_equal(got.loc[list(wide.index), list(wide.columns)].to_numpy(), wide.to_numpy())
