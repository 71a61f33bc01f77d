"""Qrels read in bulk (the fast path of well-formed files) equal qrels read line by line, and any
file with a problem gets the line-by-line messages."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from riskeval.errors import InputFormatError
from riskeval.io import qrels as qrels_module
from riskeval.io.qrels import read_qrels

field = st.sampled_from(["1", "2", "10", "q", "d1", "d2", "é", "0"])
grade = st.sampled_from(
    ["0", "1", "-2", "+3", "007", "2147483647", "-2147483648", "2147483648", "1.5", "x", "+-1", "-"]
)
line = st.one_of(
    st.tuples(field, st.sampled_from(["0", "Q0"]), field, grade).map(" ".join),
    st.just(""),
    st.just("1 0 d1"),
    st.just("1 0 d1 1 extra"),
)


def line_by_line(path):
    original = qrels_module._well_formed
    qrels_module._well_formed = lambda text: None
    try:
        return read_qrels(path)
    finally:
        qrels_module._well_formed = original


def outcome(read, path):
    try:
        return read(path)
    except InputFormatError as exc:
        return exc.problems


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(line, max_size=8), tabs=st.booleans())
def test_bulk_and_line_by_line_agree(tmp_path_factory, lines, tabs):
    text = "\n".join(lines).replace(" ", "\t" if tabs else " ")
    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_text(text, encoding="utf-8")
    fast, slow = outcome(read_qrels, path), outcome(line_by_line, path)
    if isinstance(slow, pd.DataFrame):
        assert isinstance(fast, pd.DataFrame)
        pd.testing.assert_frame_equal(fast, slow)
    else:
        assert fast == slow


def test_bulk_path_reads_campaign_qrels():
    from shared_data import shared_data

    path = shared_data("trec-dl-2019-passage", "qrels.dl19-passage.txt")
    assert qrels_module._well_formed(path.read_bytes()) is not None
    pd.testing.assert_frame_equal(read_qrels(path), line_by_line(path))
