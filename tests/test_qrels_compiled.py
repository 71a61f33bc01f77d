"""The compiled qrels reader: its string columns, with and without Arrow strings, its repeat check
when hashes collide, and what it leaves to the line-by-line reader."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskeval.io import qrels as qrels_module
from riskeval.io.qrels import read_qrels

TEXT = "1 0 d1 2\n1\t0\tdé 0\n\n q7  Q0 d1 -2 \n2 0 d1 +1\n".encode()


def test_columns_of_pandas_default_string_dtype():
    frame = qrels_module._well_formed(TEXT)
    assert frame is not None
    expected = pd.DataFrame(
        {
            "query_id": pd.Series(["1", "1", "q7", "2"], dtype=str),
            "doc_id": pd.Series(["d1", "dé", "d1", "d1"], dtype=str),
            "relevance": np.array([2, 0, -2, 1], dtype=np.int64),
            "iteration": pd.Series(["0", "0", "Q0", "0"], dtype=str),
        }
    )
    pd.testing.assert_frame_equal(frame, expected)


def test_columns_without_arrow_strings(monkeypatch):
    """Where pandas' default strings are Python objects the columns are made of Python strings."""
    monkeypatch.setattr(qrels_module, "_STR", np.dtype(object))
    frame = qrels_module._well_formed(TEXT)
    assert frame is not None
    assert frame["doc_id"].tolist() == ["d1", "dé", "d1", "d1"]
    assert frame["query_id"].tolist() == ["1", "1", "q7", "2"]


def test_repeat_check_compares_pairs_when_hashes_collide():
    frame = qrels_module._well_formed(TEXT)
    assert frame is not None
    same = np.zeros(len(frame), dtype=np.uint64)  # every hash equal: the pairs decide
    assert not qrels_module._judged_twice(frame, same)
    twice = pd.concat([frame, frame.iloc[:1]], ignore_index=True)
    assert qrels_module._judged_twice(twice, np.arange(len(twice), dtype=np.uint64) % 3)


@pytest.mark.parametrize(
    "text",
    [
        b"1 0 d 1\n1 0 d 2\n",  # judged twice
        b"1 0 d 1 x\n",
        b"1 0 d\x01x 1\n",  # a control byte
        b"1 0 d 1_0\n",
        b"1 0 d 0000000000001\n",  # 13 digits: the line-by-line reader decides
        b"1 0 d 2147483648\n",
        b"\n\n",
    ],
)
def test_left_to_the_line_by_line_reader(text):
    assert qrels_module._well_formed(text) is None


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "30"]),
            st.sampled_from(["d", "e", "é", "d-1", "x" * 20]),
            st.integers(-3, 5),
            st.sampled_from([" ", "\t", "  ", "\x0b"]),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_same_frame_as_ir_measures(tmp_path_factory, rows):
    import ir_measures

    text = "".join(f"{q}{gap}0{gap}{d}{gap}{g}\n" for q, d, g, gap in rows)
    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_text(text, encoding="utf-8")
    pairs = [(q, d) for q, d, _, _ in rows]
    if len(set(pairs)) < len(pairs):
        assert qrels_module._well_formed(path.read_bytes()) is None
        return
    frame = read_qrels(path)
    expected = [(q.query_id, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(path))]
    assert list(zip(frame.query_id, frame.doc_id, frame.relevance.tolist(), strict=True)) == expected
