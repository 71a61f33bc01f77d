"""Every bad input gets a message naming where (file:line or row), which field, and what to do."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalError

# (id, file name, file text, score_matrix keyword arguments, [(location, message fragment)])
# Locations are relative to the file; every problem of the file must be reported, in order.
# CSV/TSV cases run twice: as written, and with a quoted header field (the other reader).
FILE_CASES = [
    (
        "long: non-numeric, missing, NaN, infinite, duplicate, empty label, all at once",
        "runs.csv",
        "system,topic,score\n"
        "bm25,q1,0.5\n"
        "bm25,q2,abc\n"
        "dph,q1,\n"
        "dph,q2,nan\n"
        "dph,q3,-inf\n"
        "bm25,q1,0.4\n"
        ",q4,0.1\n",
        {},
        [
            (":3", "field 'score': 'abc' is not a number"),
            (":4", "field 'score' is empty or NaN: a long table lists the evaluated"),
            (":5", "field 'score' is empty or NaN"),
            (":6", "field 'score' is infinite: scores must be finite"),
            (":7", "duplicate (system, topic) ('bm25', 'q1'): first at {path}:2"),
            (":8", "field 'system' is empty: every row needs one"),
        ],
    ),
    (
        "long: huge scores",
        "runs.csv",
        "system,topic,score\nbm25,q1,0.5\nbm25,q2,1e100\ndph,q1,-1e101\n",
        {},
        [
            (":3", "field 'score' is 1e+100: scores must be of magnitude below 1e+100"),
            (":4", "field 'score' is -1e+101: scores must be of magnitude below 1e+100"),
        ],
    ),
    (
        "long: line numbers count blank lines",
        "runs.csv",
        "system,topic,score\n\nbm25,q1,0.5\n\n\nbm25,q2,x\n",
        {},
        [(":6", "field 'score': 'x' is not a number")],
    ),
    (
        "long: a quoted field over two lines, and CRLF line ends",
        "runs.csv",
        'system,topic,score\r\n"bm\n25",q1,0.5\r\nbm25,q2,x\r\n',
        {},
        [(":4", "field 'score': 'x' is not a number")],
    ),
    (
        "long: lines with the wrong number of fields, and the other problems too",
        "runs.tsv",
        "system\ttopic\tscore\nbm25\tq1\t0.5\nbm25\tq2\nbm25\tq3\t0.1\textra\ndph\tq1\tx\n",
        {},
        [
            (":3", "expected 3 fields as in the header, got 2"),
            (":4", "expected 3 fields as in the header, got 4"),
            (":5", "field 'score': 'x' is not a number"),
        ],
    ),
    (
        "long: a required column is missing",
        "runs.csv",
        "system,topic,value\nbm25,q1,0.5\n",
        {},
        [
            (
                "",
                "missing required column(s) ['score']; the table has columns "
                "['system', 'topic', 'value']. Name the columns",
            )
        ],
    ),
    (
        "long: custom column names are named in the messages",
        "runs.csv",
        "run,qid,ndcg\nbm25,q1,0.5\nbm25,q1,high\n",
        {"system": "run", "topic": "qid", "score": "ndcg"},
        [
            (":3", "field 'ndcg': 'high' is not a number"),
            (":3", "duplicate (system, topic) ('bm25', 'q1'): first at {path}:2"),
        ],
    ),
    (
        "long: several measures and no measure=",
        "tidy.csv",
        "system,topic,measure,score\nbm25,q1,AP,0.5\nbm25,q1,nDCG@10,0.6\n",
        {},
        [("", "there are 2 measures (column 'measure'): AP, nDCG@10; choose one with measure=")],
    ),
    (
        "long: the measure is not in the measure column",
        "tidy.csv",
        "system,topic,measure,score\nbm25,q1,map,0.5\nbm25,q1,P_10,0.6\n",
        {"measure": "nDCG@10"},
        [
            (
                "",
                "measure 'nDCG@10' is not in the 'measure' column; the measures there are: map (AP)",
            )
        ],
    ),
    (
        "long: measure= without a measure column",
        "runs.csv",
        "system,topic,score\nbm25,q1,0.5\n",
        {"measure": "AP"},
        [("", "measure='AP' was given but the table has no 'measure' column")],
    ),
    (
        "wide: non-numeric and infinite cells, a duplicate system, an empty label",
        "wide.csv",
        "system,q1,q2\nbm25,0.1,x\ndph,inf,0.2\nbm25,0.3,0.4\n,0.5,0.5\n",
        {},
        [
            (":2, topic 'q2'", "'x' is not a number"),
            (":3, topic 'q1'", "infinite score: scores must be finite"),
            (":4", "system 'bm25' appears again (first at {path}:2)"),
            (":5", "the system label is empty"),
        ],
    ),
    (
        "wide: a huge score beside a missing one (a NaN cell)",
        "wide.csv",
        "system,q1,q2\nbm25,,1e100\ndph,0.1,-2e300\n",
        {},
        [
            (":2, topic 'q2'", "score 1e+100: scores must be of magnitude below 1e+100"),
            (":3, topic 'q2'", "score -2e+300: scores must be of magnitude below 1e+100"),
        ],
    ),
    (
        "wide: duplicate and unnamed topic columns",
        "wide.csv",
        "run,q1,q1,\nbm25,0.1,0.2,0.3\n",
        {},
        [
            ("", "topic column 'q1' appears more than once"),
            ("", "topic column 3 has no name"),
        ],
    ),
    (
        "wide: a long table with unexpected column names gets a hint",
        "runs.csv",
        "run,qid,value\nbm25,q1,0.5\n",
        {},
        [
            ("", "column(s) ['qid'] hold no numbers. The table was read as wide"),
            (":2, topic 'qid'", "'q1' is not a number"),
        ],
    ),
    (
        "wide: measure= has no meaning",
        "wide.csv",
        "system,q1\nbm25,0.1\n",
        {"measure": "AP"},
        None,  # a RiskevalError, checked below
    ),
    ("empty file", "runs.csv", "", {}, [("", "is empty: expected a header line")]),
    (
        "header without data",
        "runs.csv",
        "system,topic,score\n\n",
        {},
        [("", "has a header line but no data lines")],
    ),
    (
        "trec_eval: malformed lines, bad values, a repeated topic, all at once",
        "run.eval",
        "map\tq1\t0.5\nmap\tq2\nmap\tq3\tx\nmap\tq4\tnan\nmap\tq1\t0.2\nmap q5 0.1 extra\nrunid\tall\tbm25\n",
        {"format": "trec_eval", "measure": "map"},
        [
            (":2", "expected 3 whitespace-separated fields (measure, topic, value)"),
            (":6", "got 4: 'map q5 0.1 extra'"),
            (":3", "value 'x' of measure 'map' is not a number"),
            (":4", "value 'nan' of measure 'map' is not finite"),
            (":5", "topic 'q1' of measure 'map' appears again (first at line 1)"),
        ],
    ),
    (
        "trec_eval: the measure is absent; the available ones are listed",
        "run.eval",
        "map\tq1\t0.5\nP_10\tq1\t0.2\nrunid\tall\tbm25\ngm_map\tall\t0.4\n",
        {"format": "trec_eval", "measure": "ndcg_cut_10"},
        [
            (
                ":1",
                "measure 'ndcg_cut_10' is not there; the per-topic measures there are: map (AP), P_10 (P@10)",
            )
        ],
    ),
    (
        "trec_eval: the measure exists only as a summary",
        "run.eval",
        "map\tq1\t0.5\nrunid\tall\tbm25\ngm_map\tall\t0.4\n",
        {"format": "trec_eval", "measure": "gm_map"},
        [(":1", "measure 'gm_map' appears only in the summary ('all') lines, not per topic")],
    ),
    (
        "trec_eval: output without -q",
        "run.eval",
        "runid\tall\tbm25\nmap\tall\t0.4\n",
        {"format": "trec_eval", "measure": "map"},
        [(":1", "summary ('all') lines only: run trec_eval with -q")],
    ),
    (
        "trec_eval: two outputs without runid lines in one file",
        "run.eval",
        "map\tq1\t0.5\nmap\tall\t0.5\nmap\tq1\t0.4\nmap\tall\t0.4\n",
        {"format": "trec_eval", "measure": "map"},
        [
            (":1", "no runid line and shares its file with 1 other(s): pass names=[...]"),
            (":3", "no runid line and shares its file with 1 other(s)"),
        ],
    ),
    (
        "trec_eval: two outputs with the same runid",
        "run.eval",
        "map\tq1\t0.5\nrunid\tall\tbm25\nmap\tq1\t0.4\nrunid\tall\tbm25\n",
        {"format": "trec_eval", "measure": "map"},
        [
            (
                ":2",
                "system name 'bm25' is given to 2 outputs: {path}:2 (runid line), {path}:4 "
                "(runid line). System names must be unique: pass names='file'",
            )
        ],
    ),
    (
        "trec_eval: names='file' with two outputs in the file",
        "run.eval",
        "map\tq1\t0.5\nrunid\tall\ta\nmap\tq1\t0.4\nrunid\tall\tb\n",
        {"format": "trec_eval", "measure": "map", "names": "file"},
        [("", "names='file' needs one output per file, but this file holds 2")],
    ),
    (
        "trec_eval: empty file",
        "run.eval",
        "\n",
        {"format": "trec_eval", "measure": "map"},
        [("", "is empty: expected trec_eval -q output")],
    ),
]


def _quotable(case) -> bool:
    return case[1].endswith((".csv", ".tsv")) and bool(case[2].strip())


@pytest.mark.parametrize(
    "name, text, kwargs, expected, quoted",
    [(*case[1:], False) for case in FILE_CASES]
    + [(*case[1:], True) for case in FILE_CASES if _quotable(case)],
    ids=[case[0] for case in FILE_CASES] + [f"{case[0]} (quoted)" for case in FILE_CASES if _quotable(case)],
)
def test_file_errors(tmp_path, name, text, kwargs, expected, quoted):
    if quoted:
        # a quoted header field sends the file to the csv-module reader: same problems expected
        first, sep, rest = text.partition("," if name.endswith(".csv") else "\t")
        text = f'"{first}"{sep}{rest}'
    path = tmp_path / name
    path.write_text(text)
    if expected is None:
        with pytest.raises(RiskevalError, match=f"{path}: measure='AP' applies to long tables only"):
            rk.score_matrix(path, **kwargs)
        return
    with pytest.raises(InputFormatError) as info:
        rk.score_matrix(path, **kwargs)
    problems = info.value.problems
    assert len(problems) == len(expected), problems
    for (location, message), (where, fragment) in zip(problems, expected, strict=True):
        assert location == f"{path}{where}"
        assert fragment.format(path=path) in message
    # the exception text lists every problem as "location: message"
    assert str(info.value).splitlines()[0] == f"{problems[0][0]}: {problems[0][1]}"


def test_problems_of_all_files_are_reported_together(tmp_path):
    good, bad1, bad2 = (tmp_path / f"{n}.eval" for n in ("good", "bad1", "bad2"))
    good.write_text("P_10\tq1\t0.5\nrunid\tall\tbm25\n")
    bad1.write_text("P_10\tq1\toops\nrunid\tall\tdph\n")
    bad2.write_text("map\tq1\t0.5\nrunid\tall\tql\n")
    with pytest.raises(InputFormatError) as info:
        rk.io.read_trec_eval([good, bad1, bad2], "P@10")
    assert [loc for loc, _ in info.value.problems] == [f"{bad1}:1", f"{bad2}:1"]
    assert "measure 'P@10' is not there; the per-topic measures there are: map (AP)" in str(info.value)


def test_measure_absent_from_many_outputs_is_one_problem(tmp_path):
    paths = []
    for k in range(6):
        paths.append(tmp_path / f"r{k}.eval")
        paths[-1].write_text(f"map\tq1\t0.5\nrunid\tall\tr{k}\n")
    with pytest.raises(InputFormatError) as info:
        rk.io.read_trec_eval(paths, "P_10")
    assert len(info.value.problems) == 1
    location, message = info.value.problems[0]
    assert location == f"{paths[0]}:1"
    assert f"(nor in 5 other output(s): {paths[1]}:1, {paths[2]}:1, {paths[3]}:1, ...)" in message


def test_long_problem_count_is_capped_in_the_text_but_kept_in_full(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("system,topic,score\n" + "".join(f"s,q{k},x\n" for k in range(30)))
    with pytest.raises(InputFormatError) as info:
        rk.score_matrix(path)
    assert len(info.value.problems) == 30
    assert str(info.value).splitlines()[-1] == "... and 10 more problem(s)"


# In-memory inputs: (id, data, keyword arguments, error type, message fragments)
MEMORY_CASES = [
    (
        "long DataFrame rows are named by their index label",
        pd.DataFrame(
            {"system": ["a", "a", None], "topic": ["q1", "q1", "q2"], "score": [0.1, np.nan, 0.2]},
            index=[10, 11, 12],
        ),
        {},
        InputFormatError,
        [
            "row 11: field 'score' is empty or NaN",
            "row 11: duplicate (system, topic) ('a', 'q1'): first at row 10",
            "row 12: field 'system' is empty",
        ],
    ),
    (
        "long DataFrame with a (system, topic) index",
        pd.DataFrame(
            {"score": [0.1, "x"]},
            index=pd.MultiIndex.from_tuples([("a", "q1"), ("a", "q2")], names=["system", "topic"]),
        ),
        {},
        InputFormatError,
        ["row ('a', 'q2'): field 'score': 'x' is not a number"],
    ),
    (
        "wide DataFrame cells",
        pd.DataFrame({"q1": [0.1, "n/a"], "q2": ["1,5", np.inf]}, index=["a", "b"]),
        {"missing": "zero"},
        InputFormatError,
        ["row 'a', topic 'q2': '1,5' is not a number", "row 'b', topic 'q2': infinite score"],
    ),
    (
        "empty long DataFrame",
        pd.DataFrame({"system": [], "topic": [], "score": []}),
        {},
        InputFormatError,
        ["the table: is empty: expected one row per (system, topic)"],
    ),
    (
        "empty wide DataFrame",
        pd.DataFrame(index=["a", "b"]),
        {},
        InputFormatError,
        ["the table: is empty: expected systems (rows) × topics (columns); got (2, 0)"],
    ),
    (
        "names= does not apply to a DataFrame",
        pd.DataFrame({"q1": [0.1]}),
        {"names": "file"},
        RiskevalError,
        ["The 'names' parameter of score_matrix does not apply to a DataFrame; got 'file'"],
    ),
    (
        "a Series needs two index levels",
        pd.Series([0.1, 0.2]),
        {},
        RiskevalError,
        ["A Series must have a two-level index (system, topic)"],
    ),
    (
        "a 1-D array",
        np.zeros(3),
        {},
        RiskevalError,
        ["A numpy array must be 2-D (systems × topics); got 1 dimension(s)"],
    ),
    (
        "an unsupported type",
        42,
        {},
        RiskevalError,
        ["score_matrix cannot read a int: pass a DataFrame (long or wide)"],
    ),
    ("an empty list", [], {}, RiskevalError, ["score_matrix got an empty list: nothing to read"]),
    (
        "a list of score tables",
        ["a.csv", "b.csv"],
        {"format": "csv"},
        RiskevalError,
        ["A list of files is read as trec_eval -q output"],
    ),
    (
        "an unknown extension",
        "scores.xlsx",
        {},
        RiskevalError,
        ["scores.xlsx: unknown score file extension '.xlsx'; known extensions: .csv, .tsv"],
    ),
    (
        "an unknown format",
        "scores.csv",
        {"format": "excel"},
        RiskevalError,
        [
            "The 'format' parameter of score_matrix must be one of 'csv', 'tsv', 'parquet', "
            "'trec_eval', 'ir_measures'. Got 'excel'."
        ],
    ),
    (
        "measure= of the wrong type",
        pd.DataFrame({"q1": [0.1]}),
        {"measure": 10},
        RiskevalError,
        ["The 'measure' parameter must be a measure name such as 'ndcg_cut_10'"],
    ),
    (
        "trec_eval without a measure",
        ["run.eval"],
        {},
        RiskevalError,
        ["read_trec_eval needs measure=, e.g. 'ndcg_cut_10'"],
    ),
    (
        "column names do not apply to trec_eval output",
        ["run.eval"],
        {"measure": "map", "score": "value"},
        RiskevalError,
        ["Column names (score='value') apply to tables only, not to trec_eval output"],
    ),
]


@pytest.mark.parametrize(
    "data, kwargs, error, fragments",
    [case[1:] for case in MEMORY_CASES],
    ids=[case[0] for case in MEMORY_CASES],
)
def test_in_memory_and_parameter_errors(data, kwargs, error, fragments):
    with pytest.raises(error) as info:
        rk.score_matrix(data, **kwargs)
    for fragment in fragments:
        assert fragment in str(info.value)


def _metric(q, v, measure=ir_measures.AP):
    return ir_measures.Metric(q, measure, v)


IR_MEASURES_CASES = [
    (
        "a record that is not a Metric",
        {"bm25": [_metric("q1", 0.5), ("q2", 0.1)]},
        {},
        ["system 'bm25', result 2: expected an ir_measures Metric (query_id, measure, value)"],
    ),
    (
        "a query measured twice, a NaN value",
        {"bm25": [_metric("q1", 0.5), _metric("q1", 0.4), _metric("q2", float("nan"))]},
        {},
        [
            "system 'bm25', query 'q1', measure AP: duplicate (system, topic) ('bm25', 'q1'): "
            "first at system 'bm25', query 'q1', measure AP",
            "system 'bm25', query 'q2', measure AP: field 'value' is empty or NaN",
        ],
    ),
    (
        "several measures, none chosen",
        {"bm25": [_metric("q1", 0.5), _metric("q1", 0.5, ir_measures.nDCG @ 10)]},
        {},
        ["ir_measures results: there are 2 measures (column 'measure'): AP, nDCG@10"],
    ),
    (
        "the chosen measure is absent",
        {"bm25": [_metric("q1", 0.5)]},
        {"measure": "P@10"},
        ["measure 'P@10' is not in the 'measure' column; the measures there are: AP"],
    ),
    ("no results", {"bm25": []}, {}, ["ir_measures results: are empty"]),
]


@pytest.mark.parametrize(
    "results, kwargs, fragments",
    [case[1:] for case in IR_MEASURES_CASES],
    ids=[case[0] for case in IR_MEASURES_CASES],
)
def test_ir_measures_errors(results, kwargs, fragments):
    with pytest.raises(InputFormatError) as info:
        rk.score_matrix(results, **kwargs)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_ir_measures_naming_errors():
    results = [_metric("q1", 0.5)]
    with pytest.raises(RiskevalError, match="Name the system of these ir_measures results"):
        rk.score_matrix(results)
    with pytest.raises(RiskevalError, match="Name the system of these results with system="):
        rk.io.from_ir_measures(results)
    with pytest.raises(RiskevalError, match="with a dict of results, the dict keys are the system"):
        rk.io.from_ir_measures({"a": results}, system="a")


def test_trec_eval_names_errors(tmp_path):
    path = tmp_path / "two.eval"
    path.write_text("map\tq1\t0.5\nrunid\tall\ta\nmap\tq1\t0.4\nrunid\tall\tb\n")
    with pytest.raises(RiskevalError, match=r"names= has 1 name\(s\) but the files hold 2 .*two.eval: 2"):
        rk.io.read_trec_eval(path, "map", names=["x"])
    with pytest.raises(RiskevalError, match=r"names= must hold non-empty strings; got \[''\]"):
        rk.io.read_trec_eval(path, "map", names=["x", ""])
    with pytest.raises(RiskevalError, match="must be None \\(runid lines\\), 'file' or a list"):
        rk.io.read_trec_eval(path, "map", names="runid")
    with pytest.raises(InputFormatError, match="system name 'x' is given to 2 outputs"):
        rk.io.read_trec_eval(path, "map", names=["x", "x"])
    with pytest.raises(RiskevalError, match="needs at least one file"):
        rk.io.read_trec_eval([], "map")
    with pytest.raises(RiskevalError, match="got the same file more than once: .*two.eval"):
        rk.io.read_trec_eval([path, str(path)], "map")
    with pytest.raises(RiskevalError, match="must be None \\(runid lines\\), 'file' or a list"):
        rk.io.read_trec_eval(path, "map", names=5)


def test_unreadable_files(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("system,topic,score\nbm\xe9,q1,0.5\n".encode("latin-1"))
    with pytest.raises(InputFormatError, match=r"latin.csv:2: is not UTF-8 text \(byte 0xe9"):
        rk.score_matrix(latin)
    broken = tmp_path / "broken.parquet"
    broken.write_text("not parquet")
    with pytest.raises(InputFormatError, match="broken.parquet: is not a readable Parquet file"):
        rk.score_matrix(broken)
    with pytest.raises(FileNotFoundError):
        rk.score_matrix(tmp_path / "absent.csv")
