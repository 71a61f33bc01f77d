"""A document ranked twice in one topic of a run is reported in every topic, judged or not: by the
reader that reads only the judged topics' lines (``read_run(topics=...)``), by the compiled fast
path of ``evaluate_runs`` and by ir_measures' engine, naming both lines."""

from __future__ import annotations

import pytest

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalWarning
from riskeval.io.runs import _WINDOW_BYTES, read_run

QRELS = "1 0 d1 1\n1 0 d2 0\n"


def lines(topic: str, docs: range, tag: str = "t") -> str:
    return "".join(f"{topic} Q0 d{d} {k + 1} {1000 - k} {tag}\n" for k, d in enumerate(docs))


@pytest.mark.parametrize("engine", ["compiled", "ir_measures"])
def test_a_duplicate_in_an_unjudged_topic_is_an_error_naming_both_lines(tmp_path, engine):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(lines("1", range(1, 3)) + "9 Q0 d5 1 2.0 t\n9 Q0 d5 2 1.0 t\n")
    with pytest.raises(InputFormatError) as info:
        rk.evaluate_runs(tmp_path / "q.txt", [tmp_path / "a.run"], "nDCG@10", engine=engine)
    assert "a.run:4: document 'd5' appears twice in topic '9' (first on line 3)" in str(info.value)


def test_the_reader_of_judged_topics_reports_a_duplicate_far_apart_in_a_long_file(tmp_path):
    """Lines of an unread topic in several windows of the scan, the second copy in another window."""
    path = tmp_path / "long.run"
    text = lines("1", range(1, 3)) + lines("7", range(0, 50_000))
    text += "7 Q0 d3 50001 0.5 t\n"  # d3 again, several windows later
    assert len(text) > 3 * _WINDOW_BYTES
    path.write_text(text)
    with pytest.raises(InputFormatError) as info:
        read_run(path, topics={"1"})
    assert (
        f"long.run:{text.count(chr(10))}: document 'd3' appears twice in topic '7' (first on line 6)"
        in str(info.value)
    )


def test_pairs_that_only_look_alike_are_not_duplicates(tmp_path):
    """The same document in two topics, topic and document ids that run into each other
    (topic 1 d23 and topic 1d d23 ...), a document under a prefix of another: all distinct."""
    path = tmp_path / "a.run"
    path.write_text(
        lines("1", range(1, 3))
        + "12 Q0 3 1 2.0 t\n1 Q0 23 3 1.0 t\n123 Q0 x 1 1.0 t\n12 Q0 3x 2 1.0 t\n"
        + "8 Q0 d5 1 2.0 t\n9 Q0 d5 1 2.0 t\n8 Q0 d55 2 1.0 t\n8\tQ0  d5x 3 1.0 t\n"
    )
    run = read_run(path, topics={"1"})
    assert set(run.scores) == {"1"} and set(run.skipped_topics) == {"12", "123", "8", "9"}
    (tmp_path / "q.txt").write_text(QRELS)
    with pytest.warns(RiskevalWarning, match="4 topic"):  # the unjudged topics, and no error
        rk.evaluate_runs(tmp_path / "q.txt", [path], "nDCG@10")


def test_whitespace_does_not_hide_a_duplicate(tmp_path):
    path = tmp_path / "a.run"
    path.write_text(lines("1", range(1, 3)) + "9 Q0 d5 1 2.0 t\n9\tQ0   d5 2 1.0 t\n")
    with pytest.raises(InputFormatError, match="document 'd5' appears twice in topic '9'"):
        read_run(path, topics={"1"})


@pytest.mark.parametrize("width", [7, 8, 9, 16, 17, 32, 33, 80])
def test_a_duplicate_is_found_whatever_the_length_of_its_ids(tmp_path, width):
    """Topic and document ids of every length around the 8-byte words they are hashed by (and past
    the longest hashed so), documents alike but for their last byte: one duplicate, named."""
    doc = "d" * (width - 1)
    topic = "t" * width
    path = tmp_path / "a.run"
    path.write_text(
        lines("1", range(1, 3))
        + f"{topic} Q0 {doc}a 1 3.0 t\n{topic} Q0 {doc}b 2 2.0 t\n{topic}x Q0 {doc}a 1 2.0 t\n"
        + f"{topic} Q0 {doc}a 3 1.0 t"  # the last line, without a line break
    )
    with pytest.raises(InputFormatError) as info:
        read_run(path, topics={"1"})
    assert info.value.problems == [
        (
            f"{path}:6",
            f"document '{doc}a' appears twice in topic '{topic}' (first on line 3); a run ranks each "
            "document at most once per topic",
        )
    ]
    path.write_text(lines("1", range(1, 3)) + f"{topic} Q0 {doc}a 1 3.0 t\n{topic} Q0 {doc}b 2 2.0 t\n")
    assert read_run(path, topics={"1"}).skipped_topics == (topic,)
