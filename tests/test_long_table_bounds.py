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


def test_a_table_of_distinct_labels_is_refused_before_its_matrix_is_allocated(tmp_path):
    n = 8_000  # 8,000 rows, 8,000 systems × 8,000 topics: 64 million cells, 512 MB of float64
    path = tmp_path / "scores.csv"
    path.write_text("system,topic,score\n" + "".join(f"s{i},t{i},0.5\n" for i in range(n)))
    tracemalloc.start()
    try:
        with pytest.raises(InputFormatError) as caught:
            rk.io.read_scores(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value) == (
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
