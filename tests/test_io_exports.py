"""The input API is public in ``riskeval.io``, and ``score_matrix`` at the top level."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval import io
from riskeval.model import matrix

INPUT_API = [
    "score_matrix",
    "from_long",
    "from_wide",
    "read_scores",
    "read_trec_eval",
    "from_ir_measures",
]
MODEL_API = ["apply_missing", "as_matrix"]


def test_input_api_is_exported():
    assert rk.score_matrix is io.score_matrix and "score_matrix" in rk.__all__
    for name in INPUT_API:
        assert name in io.__all__ and callable(getattr(io, name))
    for name in MODEL_API:
        assert getattr(io, name) is getattr(matrix, name)
        assert name in io.__all__
    assert issubclass(rk.errors.MissingTopicsWarning, UserWarning)
    assert issubclass(rk.errors.MissingTopicsError, rk.RiskevalError)
    assert issubclass(rk.errors.InputFormatError, ValueError)
    assert isinstance(rk.__version__, str)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(max_size=6),
            st.sampled_from(["1", "q,2", 'q"3', "q\n4", " 5"]),
            st.floats(allow_nan=True, allow_infinity=True),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_rows_written_as_csv_are_what_pandas_writes(rows):
    """The per-topic table written from rows (``riskeval evaluate --per-topic --format csv``,
    without pandas) is byte for byte pandas' CSV of the same table: quoting, line ends, numbers
    as their shortest repr, NaN as an empty cell."""
    import io as text_io

    import pandas as pd

    from riskeval.io.table_export import write_csv_rows, write_for_programs

    columns = ("system", "topic", "measure", "score")
    long_rows = [(s, t, "nDCG@10", v) for s, t, v in rows]
    frame = pd.DataFrame(long_rows, columns=list(columns))
    expected, got = text_io.StringIO(), text_io.StringIO()
    write_for_programs(frame, "csv", expected)
    write_csv_rows(columns, long_rows, got)
    assert got.getvalue() == expected.getvalue()
