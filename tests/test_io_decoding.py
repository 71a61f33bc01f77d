"""The one decoding layer every reader goes through, and what it means for each reader."""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.analysis.variations import mean_variance
from riskeval.errors import InputFormatError, RiskevalError
from riskeval.evaluation.api import _topic_key
from riskeval.evaluation.measures import parse_measures
from riskeval.io.clef2015 import read_clef2015_queries
from riskeval.io.decoding import read_text, read_utf8, read_utf8_array
from riskeval.io.measures import check_measure
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from riskeval.io.variations import read_mapping, read_variation_table

TEXT = "system,topic,score\na,1,0.5\na,2,0.25\nb,1,0.125\nb,2,1\n"


@pytest.mark.parametrize(
    "encoded",
    [
        TEXT.encode(),
        codecs.BOM_UTF8 + TEXT.encode(),
        TEXT.encode("utf-16"),
        TEXT.encode("utf-16-le"),
        TEXT.encode("utf-16-be"),
        TEXT.encode("utf-32"),
        TEXT.replace("\n", "\r\n").encode(),
        TEXT.replace("\n", "\r").encode(),
        gzip.compress(TEXT.encode(), mtime=0),
        bz2.compress(codecs.BOM_UTF8 + TEXT.encode()),
        lzma.compress(TEXT.encode("utf-16")),
    ],
)
def test_every_encoding_reads_as_the_same_text(encoded, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_bytes(encoded)
    assert read_text(path) == TEXT
    assert rk.io.read_scores(path).equals(rk.io.read_scores(_plain(tmp_path)))


def _plain(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text(TEXT)
    return path


@pytest.mark.parametrize(
    ("data", "where", "message"),
    [
        (b"ok\nbad \xff line\n", ":2", r"is not UTF-8 text \(byte 0xff"),
        (b"a\rb\r\nc\n\xe9", ":4", "is not UTF-8 text"),
        (b"ok\nnul\x00\n", ":2", "holds a NUL byte"),
        (codecs.BOM_UTF16_LE + "ok\n".encode("utf-16-le") + b"\x00\xd8", ":2", "is not valid UTF-16-LE"),
        (gzip.compress(TEXT.encode(), mtime=0)[:20], "", "is a truncated or corrupt gzip file"),
        (lzma.compress(TEXT.encode())[:-3], "", "is a truncated or corrupt xz file"),
        (bz2.compress(TEXT.encode())[:30], "", "is a truncated or corrupt bzip2 file"),
    ],
)
def test_undecodable_files_are_located(data, where, message, tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    with pytest.raises(InputFormatError, match=message) as info:
        read_utf8(path)
    assert info.value.problems[0][0] == f"{path}{where}"


def test_line_numbers_agree_in_both_csv_parsers_with_lone_cr(tmp_path):
    """A lone CR ends a line for every reader: no invented row, no shifted line numbers."""
    for quote in ("", '"'):
        path = tmp_path / "cr.csv"
        path.write_bytes(f"system,topic,score\r{quote}a{quote},1,0.5\ra,2,x\r\n0.2\n".encode())
        with pytest.raises(InputFormatError) as info:
            rk.io.read_scores(path, missing="zero")
        assert sorted(loc for loc, _ in info.value.problems) == [f"{path}:3", f"{path}:4"]


def test_python_number_syntax_is_refused(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 1_0 t\n1 Q0 d2 2 0.5 t\n")
    with pytest.raises(
        InputFormatError, match=r"r.run:1: field 5 \(score\) must be a finite number; got '1_0'"
    ):
        read_run(run)
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1_0\n1 0 d2 ¹\n1 0 d3 +-1\n1 0 d4 99999999999999999999\n1 0 d5 -2\n")
    with pytest.raises(InputFormatError) as info:
        read_qrels(qrels)
    assert [loc for loc, _ in info.value.problems] == [f"{qrels}:{n}" for n in (1, 2, 3, 4)]
    evals = tmp_path / "a.eval"
    evals.write_text("map\tq1\t1_0\nmap\tq2\t١\nmap\tq3\t0.5\n")
    with pytest.raises(InputFormatError) as info:
        rk.io.read_trec_eval(evals, "map")
    assert [loc for loc, _ in info.value.problems] == [f"{evals}:1", f"{evals}:2"]
    table = tmp_path / "s.csv"
    table.write_text("system,topic,score\na,1,1_0\na,2,0.5\n")
    with pytest.raises(InputFormatError, match=r"s.csv:2: field 'score': '1_0' is not a number"):
        rk.io.read_scores(table)


def test_bom_never_reaches_a_label(tmp_path):
    bom = codecs.BOM_UTF8
    run, qrels, evals = tmp_path / "r.run", tmp_path / "q.txt", tmp_path / "a.eval"
    run.write_bytes(bom + b"1 Q0 d1 1 2.0 t\n")
    qrels.write_bytes(bom + b"1 0 d1 1\n")
    evals.write_bytes(bom + b"map\t1\t0.5\nrunid\tall\tA\n")
    assert list(read_run(run).scores) == ["1"]
    assert read_qrels(qrels)["query_id"].tolist() == ["1"]
    assert rk.io.read_trec_eval(evals, "map").columns.tolist() == ["1"]


def test_run_structure_is_checked_on_every_line(tmp_path):
    """Lines of unjudged topics are not parsed, but each must still have six fields."""
    path = tmp_path / "r.run"
    path.write_text("1 Q0 d1 1 2.0 t\n2 Q0 d1 1\n2  Q0 d2 2 1.0 t\n3 Q0 d1 1 1.0 t extra\n\n")
    with pytest.raises(InputFormatError) as info:
        read_run(path, topics={"1"})
    assert [loc for loc, _ in info.value.problems] == [f"{path}:2", f"{path}:4"]
    path.write_text("\n  \n")
    with pytest.raises(InputFormatError, match="holds no run line"):
        read_run(path, topics={"1"})
    path.write_bytes(bytes(range(1, 256)) * 4)
    with pytest.raises(InputFormatError, match="r.run"):
        read_run(path, topics={"1"})


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("nDCG@0", "nDCG's cutoff must be a whole number from 1 to 2147483647; got 0. Write e.g. nDCG@10."),
        ("P(rel=2)@0", "P's cutoff must be"),
        ("Success@0", "Success's cutoff must be"),
        ("P", "P needs a cutoff. Write e.g. P@10."),
        ("nDCG@99999999999", "nDCG's cutoff must be"),
        ("AP(rel=0)", "AP's rel (the lowest grade counted relevant) must be a whole number from 1"),
        ("RBP(p=1e999)", "RBP's p (persistence) must be a finite number; got inf"),
        ("nDCG(dcg='x')@10", "nDCG's dcg must be one of 'log2', 'exp-log2'; got 'x'"),
    ],
)
def test_measure_parameters_are_checked_before_evaluation(measure, message):
    with pytest.raises(RiskevalError) as info:
        parse_measures([measure])
    assert message in str(info.value)
    assert "<object object" not in str(info.value)


def test_measure_objects_are_checked_too():
    import ir_measures

    with pytest.raises(RiskevalError, match="nDCG's cutoff must be"):
        check_measure(ir_measures.nDCG @ 0)
    check_measure(ir_measures.nDCG @ 10)


def test_topic_order_with_non_ascii_digits():
    topics = ["10", "2", "¹", "q1", "007", "١"]
    assert sorted(topics, key=_topic_key) == ["2", "007", "10", "q1", "¹", "١"]


def test_variation_table_problems_name_file_lines(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,topic,variant,score\n\ns1,1,a,0.5\ns1,1,a,0.25\ns2,1,a,high\n")
    with pytest.raises(InputFormatError) as info:
        read_variation_table(path)
    assert sorted({loc for loc, _ in info.value.problems}) == [f"{path}:3", f"{path}:4", f"{path}:5"]
    assert "row " not in str(info.value)


def test_mapping_and_clef_queries_through_the_decoding_layer(tmp_path):
    mapping = tmp_path / "m.txt"
    mapping.write_bytes(codecs.BOM_UTF8 + b"q1 1 a\r\nq2 1 b\r\nq3 1 a\r\n")
    with pytest.raises(InputFormatError, match=r"m.txt:3: topic '1', variant 'a' is mapped more than once"):
        read_mapping(mapping)
    queries = tmp_path / "queries.txt"
    block = "<top><num>clef2015.test.{n}</num><type>{v}</type><query_index>{q}</query_index></top>\n"
    queries.write_text(
        block.format(n=1, v="pivot", q="10") + block.format(n=2, v="pivot", q="9"), encoding="utf-16"
    )
    assert read_clef2015_queries(queries)["topic"].tolist() == ["9", "10"]
    queries.write_text(block.format(n=3, v="pivot", q="¹"))
    with pytest.raises(InputFormatError, match="cannot read query number / need"):
        read_clef2015_queries(queries)


def test_mean_variance_refuses_keep_outside_the_intra_form():
    rows = [("s1", "1", "a", 0.5), ("s1", "1", "b", 0.2), ("s1", "1", "c", 0.3)]
    rows += [("s1", "2", "a", 0.1), ("s1", "2", "b", 0.4)]
    rows += [("s2", t, v, x / 2) for _, t, v, x in rows]
    df = pd.DataFrame(rows, columns=["system", "topic", "variant", "score"])
    with pytest.raises(RiskevalError, match="unequal='keep' pads topics"):
        mean_variance(df, 1.0, unequal="keep")
    intra = mean_variance(df, 1.0, form="intra")
    assert np.isfinite(intra["mean"]).all()


ASCII = b"".join(b"%d qid:%d 1:0.5 2:0.25 # doc\n" % (i % 3, i // 10) for i in range(60_000))  # > 1 MiB


@pytest.mark.parametrize(
    "content",
    [
        b"",
        ASCII,
        ASCII[:-1],
        ASCII + "é\n".encode(),  # the first chunk ASCII, the last not
        ASCII.replace(b"\n", b"\r\n"),
        ASCII[:100] + b"\r" + ASCII[100:],
        codecs.BOM_UTF8 + ASCII,
        ASCII + b"\x00" + ASCII,  # stops at the NUL chunk: an error naming the line
        ASCII[:50] + codecs.BOM_UTF8 + ASCII[50:],
        codecs.BOM_UTF16_LE + ASCII[:1000].decode().encode("utf-16-le"),
        gzip.compress(ASCII),
        bz2.compress(ASCII[:5000]),
        b"\xff\xfe\xfd not text",
    ],
)
def test_the_text_as_an_array_is_read_utf8s(tmp_path, content):
    """read_utf8_array gives read_utf8's bytes, or its error, for every kind of file."""
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    try:
        expected = read_utf8(path)
    except InputFormatError as exc:
        with pytest.raises(InputFormatError) as caught:
            read_utf8_array(path)
        assert caught.value.problems == exc.problems
        return
    got = read_utf8_array(path)
    assert got.dtype == np.uint8 and got.tobytes() == expected
