"""TREC run and qrels readers: same content as ir_measures' readers, every problem located."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run


def write(path: Path, text: str, *, gz: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def ir_measures_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for doc in ir_measures.read_trec_run(str(path)):
        run.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    return run


# --- runs -------------------------------------------------------------------------------------------

TOPIC_IDS = st.sampled_from(
    ["1", "19335", "q-7", "a" * 15, "b" * 16, "topic-with-a-long-identifier-42", "1\x01"]
)
SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t "])
SCORES = st.floats(-1e6, 1e6, allow_nan=False).map(repr) | st.integers(-5, 5).map(str) | st.just("1e-3")


@st.composite
def run_files(draw):
    """Text of a run file: topics in blocks or interleaved, odd whitespace, blank lines, CRLF."""
    lines = []
    seen = set()
    for _ in range(draw(st.integers(0, 25))):
        qid, doc = draw(TOPIC_IDS), draw(st.sampled_from(["d1", "d2", "D3", "clueweb09-en0000-00-00001"]))
        if (qid, doc) in seen:
            continue
        seen.add((qid, doc))
        sep = draw(SEPARATORS)
        lead = draw(st.sampled_from(["", "", " ", "\t"]))
        fields = [qid, "Q0", doc, str(len(lines)), draw(SCORES), "tag1"]
        lines.append(lead + sep.join(fields) + draw(st.sampled_from(["", " ", "\r"])))
        if draw(st.booleans()) and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "   ", "\t"])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=150, deadline=None)
@given(text=run_files(), gz=st.booleans(), subset=st.sets(TOPIC_IDS))
def test_read_run_equals_ir_measures_reader(text, gz, subset):
    """Scores, topic order and document order as ``ir_measures.read_trec_run``; a topic filter keeps
    exactly the lines of those topics and lists the others (vectorised and per-line paths alike)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / ("run.gz" if gz else "run"), text, gz=gz)
        expected = ir_measures_run(path)
        if not expected:  # no line at all: not a run
            with pytest.raises(InputFormatError, match="holds no run line"):
                read_run(path, topics=subset)
            return
        run = read_run(path)
        filtered = read_run(path, topics=subset)
    assert run.scores == expected
    assert [list(d.items()) for d in run.scores.values()] == [list(d.items()) for d in expected.values()]
    assert run.skipped_topics == ()
    assert filtered.scores == {q: docs for q, docs in expected.items() if q in subset}
    assert filtered.skipped_topics == tuple(sorted(set(expected) - subset))
    assert run.tag == "tag1"


def test_run_tag_is_the_sixth_field_of_the_first_line(tmp_path):
    path = write(tmp_path / "r.txt", "\n1 Q0 d1 1 2.5 first\n1 Q0 d2 2 1.5 second\n")
    run = read_run(path)
    assert run.tag == "first"
    frame = run.to_frame()
    assert list(frame.columns) == ["query_id", "doc_id", "score"]
    assert frame["score"].tolist() == [2.5, 1.5]


def test_gzip_is_recognised_by_content_not_name(tmp_path):
    text = "3 Q0 d 1 0.5 t\n"
    assert read_run(write(tmp_path / "plain.gz", text)).scores == {"3": {"d": 0.5}}
    assert read_run(write(tmp_path / "packed.run", text, gz=True)).scores == {"3": {"d": 0.5}}


def test_malformed_run_lines_are_all_reported_with_file_line_and_field(tmp_path):
    text = (
        "1 Q0 d1 1 2.0 t\n"
        "1 Q0 d2 2 high t\n"  # line 2: score
        "1 Q0 d3 3\n"  # line 3: 4 fields
        "1 Q0 d1 4 1.0 t\n"  # line 4: d1 again (first on line 1)
        "\n"
        "2 Q0 d1 1 nan t\n"  # line 6: not finite
        "2 Q0 d2 2 1.0 t extra\n"  # line 7: 7 fields
    )
    path = write(tmp_path / "bad.run", text)
    with pytest.raises(InputFormatError) as info:
        read_run(path)
    where = [loc for loc, _ in info.value.problems]
    assert where == [f"{path}:{n}" for n in (2, 3, 4, 6, 7)]
    message = str(info.value)
    assert "field 5 (score) must be a finite number; got 'high'" in message
    assert "expected 6 whitespace-separated fields 'qid Q0 docno rank score tag', found 4" in message
    assert "document 'd1' appears twice in topic '1' (first on line 1)" in message
    assert "got 'nan'" in message and "found 7" in message


def test_scores_in_unread_topics_are_not_parsed_but_repeated_documents_are_reported(tmp_path):
    """With a topic filter only the lines of those topics are parsed (the speed design); a document
    twice in a topic is reported in every topic, read or not."""
    path = write(tmp_path / "r", "1 Q0 d1 1 2.0 t\n2 Q0 d1 1 oops t\n2 Q0 d2 1 1.0 t\n")
    assert read_run(path, topics={"1"}).scores == {"1": {"d1": 2.0}}
    with pytest.raises(InputFormatError, match=r":2: field 5"):
        read_run(path, topics={"2"})
    path = write(tmp_path / "r", "1 Q0 d1 1 2.0 t\n2 Q0 d1 1 oops t\n2 Q0 d1 1 1.0 t\n")
    with pytest.raises(
        InputFormatError, match=r":3: document 'd1' appears twice in topic '2' \(first on line 2\)"
    ):
        read_run(path, topics={"1"})


def test_unreadable_gzip(tmp_path):
    path = tmp_path / "broken.gz"
    path.write_bytes(gzip.compress(b"1 Q0 d 1 1 t\n" * 100)[:30])
    with pytest.raises(InputFormatError, match="is a truncated or corrupt gzip file"):
        read_run(path)


# --- qrels ------------------------------------------------------------------------------------------


def test_qrels_equal_ir_measures_reader_with_negative_grades(tmp_path):
    path = write(tmp_path / "q", "151  0  doc-a   -2\n151 0 doc-b 4\n\n152\t0\tdoc-a\t0\n")
    frame = read_qrels(path)
    assert list(frame.columns) == ["query_id", "doc_id", "relevance", "iteration"]
    assert frame["relevance"].dtype == "int64"
    rows = list(frame.itertuples(index=False, name=None))
    assert rows == [tuple(q) for q in ir_measures.read_trec_qrels(str(path))]
    assert rows[0] == ("151", "doc-a", -2, "0")


def test_malformed_qrels_are_all_reported(tmp_path):
    text = "1 0 a 1\n1 0 b rel\n1 0 c\n1 0 a 0\n2 1 x 1\n2 2 x 0\n"
    path = write(tmp_path / "qrels.txt", text)
    with pytest.raises(InputFormatError) as info:
        read_qrels(path)
    assert [loc for loc, _ in info.value.problems] == [f"{path}:{n}" for n in (2, 3, 4, 6)]
    message = str(info.value)
    assert (
        "field 4 (grade) must be an integer from -2147483648 to 2147483647 (negative allowed); got 'rel'"
        in message
    )
    assert "expected 4 whitespace-separated fields" in message
    assert "document 'a' is judged twice for topic '1' (first on line 1)\n" in message + "\n"
    assert "subtopic judgments (a diversity qrels file)" in message


def test_empty_qrels(tmp_path):
    with pytest.raises(RiskevalError, match="holds no judgments"):
        read_qrels(write(tmp_path / "q", "\n\n"))


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.lists(
            st.sampled_from(["1", "q-7", "a" * 15, "b" * 16, "Q0", "d1", "1.5", "x\x01y", "é"]), max_size=8
        ),
        max_size=12,
    ),
    seps=st.lists(st.sampled_from([" ", "\t", "  ", " \t", "\x0b", "\x0c"]), min_size=1, max_size=4),
    lead=st.sampled_from(["", " ", "\t"]),
    trail=st.sampled_from(["", " ", "\t"]),
    end=st.sampled_from(["", "\n"]),
)
def test_one_pass_scan_agrees_with_splitting_each_line(lines, seps, lead, trail, end):
    """The vectorised scan: line bounds, topic heads, and 'simple' lines really hold six fields."""
    from riskeval.io.runs import _WINDOW, _scan

    text = "\n".join(
        (lead if k % 2 else "") + seps[k % len(seps)].join(fields) + (trail if k % 3 == 0 else "")
        for k, fields in enumerate(lines)
    )
    buf = (text + end).encode()
    starts, ends, simple, heads, regular = _scan(buf)
    expected = buf.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    assert [buf[s:e] for s, e in zip(starts, ends, strict=True)] == expected
    for line, ok, head, reg in zip(expected, simple, heads, regular, strict=True):
        fields = line.split()
        if ok:
            assert len(fields) == 6
        if reg and fields:
            assert head == fields[0] and not line[:1].isspace()
        elif fields:
            assert line[:1].isspace() or len(fields[0]) >= _WINDOW
        else:
            assert head == b""


def test_blocks_and_line_by_line_parsing_agree(tmp_path):
    """Lines of one topic are parsed as a block; any problem sends the block to the line-by-line
    parser, which locates it: a document repeated across blocks of its topic, a bad score inside a
    block, a line with other whitespace among good ones."""
    path = write(
        tmp_path / "r.run",
        "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n2 Q0 d1 1 1.0 t\n1 Q0 d3 3 1.5 t\n1  Q0 d4 4 1.0 t\n"
        "1 Q0 d5 5 0.5 t\n",
    )
    run = read_run(path)
    assert run.scores == ir_measures_run(path)
    assert list(run.scores["1"]) == ["d1", "d2", "d3", "d4", "d5"]
    path = write(
        tmp_path / "bad.run",
        "1 Q0 d1 1 3.0 t_1\n1 Q0 d2 2 2.0 t_1\n2 Q0 d1 1 1.0 t_1\n1 Q0 d3 3 1_5 t_1\n1 Q0 d1 4 1.0 t_1\n",
    )
    with pytest.raises(InputFormatError) as info:
        read_run(path, topics={"1"})
    assert info.value.problems == [
        (f"{path}:4", "field 5 (score) must be a finite number; got '1_5'"),
        (
            f"{path}:5",
            "document 'd1' appears twice in topic '1' (first on line 1); a run ranks each document at "
            "most once per topic",
        ),
    ]
