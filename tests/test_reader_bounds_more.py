"""The per-query readers (trec_eval and ir_measures ``-q`` output), the per-variant score files of
UQV100, the CLEF 2015 queries and the topic weights read one line at a time: a file of hundreds of
thousands of malformed lines lists the budget of problems and counts the others, and a file of
blank lines costs no memory per line."""

from __future__ import annotations

import tracemalloc

import pytest

from riskeval.errors import InputFormatError
from riskeval.io.clef2015 import read_clef2015_queries
from riskeval.io.per_query import per_query_format, read_ir_measures
from riskeval.io.problems import MAX_PROBLEMS
from riskeval.io.topic_weights import read_topic_weights
from riskeval.io.trec_eval import read_trec_eval_measures
from riskeval.io.uqv100 import read_variant_scores

LINES = 200_000

READERS = {
    "trec_eval": read_trec_eval_measures,
    "ir_measures": read_ir_measures,
    "uqv100": read_variant_scores,
    "clef2015": read_clef2015_queries,
    "topic weights": read_topic_weights,
}


@pytest.mark.parametrize(
    "name, line, after",
    [
        ("trec_eval", "x\n", 1),  # and the file holds no output
        ("ir_measures", "x\n", 0),
        ("uqv100", "x\n", 0),
        ("clef2015", "<top></top>\n", 0),
        ("topic weights", "x\n", 0),
    ],
)
def test_malformed_lines_past_the_budget_are_counted(tmp_path, name, line, after):
    path = tmp_path / "bad.txt"
    path.write_text(line * LINES)
    with pytest.raises(InputFormatError) as info:
        READERS[name](path)
    assert len(info.value.problems) == MAX_PROBLEMS
    assert info.value.omitted == LINES - MAX_PROBLEMS + after
    assert info.value.problems[0][0] == f"{path}:1"
    assert info.value.problems[-1][0] == f"{path}:{MAX_PROBLEMS}"
    assert str(info.value).endswith(f"... and {LINES - 20 + after} more problem(s)")


def test_the_budget_keeps_the_problems_found_after_the_lines(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("x\n" * 3 + "P_10 301 0.5\n")
    with pytest.raises(InputFormatError) as info:
        read_trec_eval_measures(path, ["map"])
    assert [loc for loc, _ in info.value.problems] == [f"{path}:{n}" for n in (1, 2, 3, 4)]
    assert "measure 'map' is not there" in info.value.problems[-1][1]


def test_clef2015_blocks_are_located_by_line(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text("<top>\n</top>\n\n<top></top>\n" * 2)
    with pytest.raises(InputFormatError) as info:
        read_clef2015_queries(path)
    assert [loc for loc, _ in info.value.problems] == [f"{path}:{n}" for n in (1, 4, 5, 8)]


@pytest.mark.slow  # 300,000 lines through each reader under tracemalloc
@pytest.mark.parametrize("name", [*READERS, "format detection"])
def test_blank_lines_cost_no_memory_per_line(tmp_path, name):
    path = tmp_path / "blank.txt"
    path.write_text("\n" * 300_000)
    read = READERS.get(name, per_query_format)
    tracemalloc.start()
    try:
        with pytest.raises(InputFormatError):
            read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The text (0.3 MB) and a chunk of decoding (1 MiB); a list of the lines would add 2.4 MB.
    assert peak < 2.5 * 2**20


def test_clef2015_unclosed_blocks_take_linear_time(tmp_path):
    path = tmp_path / "queries.txt"
    block = "<top><num>qtest.1</num><type>pivot</disease><query_index>1</query_index></top>\n"
    path.write_text("<top>\n" * LINES + block)  # a pattern scanning to the end at each <top>: hours
    mapping = read_clef2015_queries(path)
    assert mapping[["query", "topic", "variant"]].values.tolist() == [["qtest.1", "1", "pivot"]]
