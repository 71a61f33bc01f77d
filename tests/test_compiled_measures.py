"""The compiled evaluation path (riskeval.evaluation.run_arrays + riskeval.evaluation.kernels) gives
ir_measures' values bit for bit: on random runs full of ties, on real runs, and it hands every text
with something to report to the reader that says what."""

from __future__ import annotations

import gzip
import math

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import shared_data

import riskeval as rk
from riskeval.evaluation import kernels, run_arrays
from riskeval.evaluation.engine import RunEvaluator, compiled_plan
from riskeval.evaluation.inputs import qrels_dict
from riskeval.evaluation.measures import parse_measures
from riskeval.evaluation.run_arrays import (
    JudgedDocuments,
    _grades,
    _hash_spans,
    _repeats,
    _scores,
    read_judged_lines,
)
from riskeval.evaluation.run_pieces import RunPiece
from riskeval.io.runs import parse_run

COMPILED = [
    "nDCG@10",
    "nDCG@3",
    "nDCG",
    "AP",
    "AP(rel=2)",
    "AP@5",
    "P@5",
    "P(rel=2)@10",
    "R@5",
    "R@100",
    "R(rel=2)@10",
    "RR",
    "RR(rel=2)",
    "RR@10",
    "RR(rel=2)@3",
    "Judged@1",
    "Judged@3",
    "Judged",
]


def _reference(qrels, text, measures):
    """ir_measures' per-topic values of a run text: {(measure, topic): value}."""
    run = parse_run(text, "run")
    evaluator = ir_measures.evaluator([ir_measures.parse_measure(m) for m in measures], qrels)
    return {(str(m.measure), m.query_id): float(m.value) for m in evaluator.iter_calc(run.scores)}


def _compiled(qrels, text, measures):
    evaluator = RunEvaluator(qrels, parse_measures(measures))
    assert len(evaluator.compiled) == len(measures) and not evaluator.others
    result = evaluator.piece(RunPiece("run", 1, text))
    assert not result.problems
    assert result.present == {line.split()[0].decode() for line in text.splitlines()} & qrels.keys()
    return result.values


def test_every_compiled_measure_is_recognised():
    plans = [compiled_plan(m) for m in parse_measures(COMPILED)]
    assert all(p is not None for p in plans)
    others = ["ERR@20", "nDCG(dcg='exp-log2')@20", "nDCG(judged_only=True)@10", "Bpref", "Success@10"]
    assert all(compiled_plan(m) is None for m in parse_measures(others))


# documents whose ids share prefixes, differ in length and hold UTF-8 bytes above 0x7f: ties are
# broken by the ids' bytes
_DOCS = ["d", "d1", "d10", "d2", "D", "é", "éa", "a-b", "z", "zz", "10", "9", "0"]
# scores that tie as doubles, and scores that differ as doubles but tie in single precision
_SCORES = ["1", "1.0", "0.5", "0.50000001", "0.5000000001", "-0", "0", "2e-3", "0.002", "7", "-3.25"]


@st.composite
def _run_and_qrels(draw):
    topics = draw(st.lists(st.sampled_from(["1", "2", "30", "x"]), min_size=1, max_size=4, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    lines = []
    for topic in topics:
        docs = draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=len(_DOCS), unique=True))
        judged = draw(st.lists(st.sampled_from(_DOCS), max_size=8, unique=True))
        qrels[topic] = {d: draw(st.integers(0, 3)) for d in judged} or {"unretrieved": 1}
        for d in docs:
            lines.append(f"{topic} Q0 {d} 1 {draw(st.sampled_from(_SCORES))} tag")
    extra = draw(st.sampled_from(["", "99 Q0 d 1 1 tag\n"]))  # a topic nobody judged
    return qrels, (extra + "\n".join(lines) + "\n").encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_run_and_qrels())
def test_equal_to_ir_measures_on_random_runs_with_ties(case):
    qrels, text = case
    assert _compiled(qrels, text, COMPILED) == _reference(qrels, text, COMPILED)


def _ranked(rows, trec):
    """Rows (document, score text) in rank order by Python's sort: score decreasing (in single
    precision for trec_eval), then id bytes decreasing (trec_eval) or increasing (MS MARCO)."""
    if trec:
        return sorted(rows, key=lambda r: (float(np.float32(float(r[1]))), r[0].encode()), reverse=True)
    by_id = sorted(rows, key=lambda r: r[0].encode())
    return sorted(by_id, key=lambda r: float(r[1]), reverse=True)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(_DOCS), st.sampled_from(_SCORES)), max_size=12, unique_by=lambda r: r[0]
        ),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
    st.booleans(),
)
def test_rank_order_is_a_sort_by_score_then_id(topics, trec, in_order):
    """``kernels.rank`` orders each topic's rows as :func:`_ranked` does, whether the topics are
    listed already in rank order or not."""
    listed = [_ranked(rows, trec) if in_order else rows for rows in topics]
    rows = [r for t in listed for r in t]
    ids = [d.encode() for d, _ in rows]
    lengths = np.array([len(i) for i in ids], dtype=np.int64)
    ends = np.cumsum(lengths)
    text = np.frombuffer(b"".join(ids) or b" ", dtype=np.uint8)
    scores = np.array([float(s) for _, s in rows])
    offsets = np.cumsum([0] + [len(t) for t in listed]).astype(np.int64)
    order = kernels.rank(text, ends - lengths, ends, scores, offsets, trec)
    assert [rows[i] for i in order.tolist()] == [r for t in listed for r in _ranked(t, trec)]


def test_single_precision_ties_follow_pytrec_eval_and_double_ties_msmarco():
    # 0.5 and 0.5000000001 tie in single precision: trec_eval breaks the tie by decreasing id
    # ("b" first), the MS MARCO evaluator by score ("a" first)
    qrels = {"1": {"a": 1}}
    text = b"1 Q0 a 1 0.5000000001 t\n1 Q0 b 2 0.5 t\n"
    values = _compiled(qrels, text, ["RR", "RR@10"])
    assert values == {("RR", "1"): 0.5, ("RR@10", "1"): 1.0}
    assert values == _reference(qrels, text, ["RR", "RR@10"])


@pytest.mark.parametrize(
    "token",
    [
        "1",
        "-0",
        "+2.5",
        "1.",
        ".5",
        "007.250",
        "1e3",
        "1E-3",
        "-2.5e+10",
        "0.1234567890123456789",
        "123456789012345678901234",
        "1e-400",
        "1e300",
        "4.9e-324",
        "0.30000000000000004",
        "-1.1279716491699219",
        "9007199254740993",
        "1e0022",
        "1.5e22",
        "1.5e23",
    ],
)
def test_scores_are_what_float_reads(token):
    text = f"1 Q0 d 1 {token} t\n1 Q0 e 2 0 t\n".encode()
    lines = read_judged_lines(text, JudgedDocuments.from_qrels({"1": {"d": 1}}))
    assert lines is not None
    assert lines.scores[0] == float(token) and math.copysign(1, lines.scores[0]) == math.copysign(
        1, float(token)
    )


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(r"\A[+-]?[0-9]{0,20}(\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?\Z", fullmatch=True).filter(
        lambda s: any(c.isdigit() for c in s.split("e")[0].split("E")[0])
    )
)
def test_random_decimal_scores_are_what_float_reads(token):
    text = f"1 Q0 d 1 {token} t\n".encode()
    lines = read_judged_lines(text, JudgedDocuments.from_qrels({"1": {"d": 1}}))
    value = float(token)
    if not math.isfinite(value):
        assert lines is None
    else:
        assert lines is not None and lines.scores[0] == value


_LONG_DECIMALS = st.from_regex(r"\A[+-]?[0-9]{0,20}(\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?\Z", fullmatch=True)


@pytest.mark.parametrize("by_pandas", [True, False], ids=["pandas-reader", "float"])
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        _LONG_DECIMALS | st.sampled_from(["1_0", "nan", "-inf", "0x10", "1e", ".", '"1"', "1,5"]), min_size=1
    )
)
def test_scores_read_together_are_what_float_reads(by_pandas, tokens):
    """The scores the fast path leaves (many digits, large exponents, anything else) read together:
    each the double ``float`` reads, or ``None`` when one is not a finite number ``float`` reads
    (``1_0`` included: float's digit separator is no number in a run file) — by pandas' reader
    (pandas >= 3.1) and by ``float`` alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_arrays, "_PANDAS_READS_EXACTLY", by_pandas and run_arrays._PANDAS_READS_EXACTLY)
        got = run_arrays._read_scores("".join(t + "\n" for t in tokens).encode(), len(tokens))
    try:
        expected = [float(t) for t in tokens]
    except ValueError:
        expected = None
    if expected is None or "_" in "".join(tokens) or not all(map(math.isfinite, expected)):
        assert got is None
    else:
        assert got is not None and got.tolist() == expected
        assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in expected]


def test_seventeen_to_twenty_digit_decimals_are_what_float_reads():
    """Shortest representations of random doubles (up to 17 digits) and 19-digit decimals, which
    pandas' reader before 3.1 missed by an ulp about half the time: bit for bit ``float``'s."""
    rng = np.random.default_rng(7)
    tokens = [repr(v) for v in rng.random(20_000).tolist()]
    tokens += ["0." + "".join(map(str, rng.integers(0, 10, 19).tolist())) for _ in range(20_000)]
    got = run_arrays._read_scores("".join(t + "\n" for t in tokens).encode(), len(tokens))
    assert got is not None and got.tolist() == [float(t) for t in tokens]


@pytest.mark.parametrize(
    "text",
    [
        b"1 Q0 d 1 0.5 t\n1 Q0 e 2\n",  # five fields
        b"1 Q0 d 1 1_0 t\n",  # float's digit separator
        b"1 Q0 d 1 nan t\n",
        b"1 Q0 d 1 inf t\n",
        b"1 Q0 d 1 0.5x t\n",
        b"1 Q0 d 1 0.5 t\n1 Q0 d 2 0.4 t\n",  # a document twice
        b"7 Q0 d 1 0.5 t\n7 Q0 d\n",  # an unjudged topic's line with three fields
    ],
)
def test_text_with_a_problem_goes_to_the_reader_that_says_what(text):
    assert read_judged_lines(text, JudgedDocuments.from_qrels({"1": {"d": 1}})) is None


def test_an_unjudged_topic_is_not_read_but_counted():
    text = b"7 Q0 d 1 nan t\n1 Q0 d 1 2 t\n"  # the score of topic 7 is never read
    lines = read_judged_lines(text, JudgedDocuments.from_qrels({"1": {"d": 1}}))
    assert lines is not None and lines.skipped == ["7"] and lines.topics == ["1"] and lines.tag == "t"


def test_grades_and_repeats_are_found_by_bytes_when_hashes_collide():
    """Every hash equal: the lookup and the repeat check rest on comparing the ids' bytes."""
    judgments = JudgedDocuments.from_qrels({"1": {"ab": 2, "a": 1, "b": 3}})
    judgments = judgments._replace(hashes=np.zeros_like(judgments.hashes))
    data = b"b a c ab"
    text = np.frombuffer(data, dtype=np.uint8)
    starts, ends = np.array([0, 2, 4, 6]), np.array([1, 3, 5, 8])
    hashes = np.zeros(4, dtype=np.uint64)
    grades = _grades(text, starts, ends, hashes, np.array([0]), np.array([0, 4]), *judgments[1:7])
    assert grades.tolist() == [3, 1, -1, 2]
    assert not _repeats(text, hashes, starts, ends, np.array([0, 4]))
    again = np.frombuffer(b"b a c b", dtype=np.uint8)
    assert _repeats(again, hashes, starts, np.array([1, 3, 5, 7]), np.array([0, 4]))
    # the same document in two topics is no repeat
    assert not _repeats(
        np.frombuffer(b"b a b", dtype=np.uint8),
        np.zeros(3, np.uint64),
        np.array([0, 2, 4]),
        np.array([1, 3, 5]),
        np.array([0, 2, 3]),
    )
    assert _hash_spans(text, starts, ends).tolist()[0] != _hash_spans(text, starts, ends).tolist()[1]


def test_compiled_and_ir_measures_measures_together(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 0.2 t\n1 Q0 b 2 0.9 t\n2 Q0 c 1 1 t\n2 Q0 a 2 3 t\n")
    measures = ["nDCG@10", "ERR@20", "RR@10"]
    long = rk.io.evaluate_runs_long(qrels, [run], measures)
    reference = _reference({"1": {"a": 2, "b": 0}, "2": {"c": 1}}, run.read_bytes(), measures)
    assert {(m, t): s for m, t, s in zip(long.measure, long.topic, long.score, strict=True)} == reference


def test_equal_to_ir_measures_on_trec_dl_2019_runs(tmp_path):
    folder = shared_data("trec-dl-2019-passage")
    qrels = qrels_dict(folder / "qrels.dl19-passage.txt")
    for name in ["input.TUW19-p1-f.gz", "input.bm25base_p.gz", "input.idst_bert_p1.gz", "input.test1.gz"]:
        text = gzip.decompress((folder / "runs" / name).read_bytes())
        judged = b"".join(line + b"\n" for line in text.splitlines() if line.split()[0].decode() in qrels)
        assert _compiled(qrels, judged, COMPILED) == _reference(qrels, judged, COMPILED), name


_GAPS = st.sampled_from([" ", "\t", "  ", " \t ", "\x0b", "\x0c", "\r"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "x7", "99"]),
            st.sampled_from(_DOCS),
            st.sampled_from(_SCORES),
            st.lists(_GAPS, min_size=7, max_size=7),
            st.booleans(),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_same_lines_and_scores_as_the_reader_whatever_the_whitespace(rows):
    """Odd whitespace between, before and after fields, and blank lines: the judged lines, their
    scores and the tag are those ``parse_run`` reads (or both refuse the text)."""
    text = (
        "".join(
            f"{g[0] if lead else ''}{q}{g[1]}Q0{g[2]}{d}{g[3]}1{g[4]}{s}{g[5]}tag{g[6] if lead else ''}\n"
            + ("\n" if lead else "")
            for q, d, s, g, lead in rows
        )
        .replace("\r", " ")
        .encode()
    )
    qrels = {"1": {"d": 1}, "2": {"é": 2}, "x7": {"z": 1}}
    judged = read_judged_lines(text, JudgedDocuments.from_qrels(qrels))
    try:
        run = parse_run(text, "run", topics=set(qrels))
    except rk.errors.InputFormatError:
        assert judged is None
        return
    assert judged is not None and judged.tag == run.tag and judged.skipped == sorted(run.skipped_topics)
    read = {
        (topic, judged.text[a:b].tobytes().decode()): score
        for g, topic in enumerate(judged.topics)
        for a, b, score in zip(
            judged.doc_starts[judged.offsets[g] : judged.offsets[g + 1]],
            judged.doc_ends[judged.offsets[g] : judged.offsets[g + 1]],
            judged.scores[judged.offsets[g] : judged.offsets[g + 1]],
            strict=True,
        )
    }
    assert read == {(t, d): s for t, docs in run.scores.items() for d, s in docs.items()}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::riskeval.errors.RiskevalWarning")
@pytest.mark.parametrize(
    ("qrels", "runs"),
    [
        ("trec-web-2012/qrels-topics/2012/qrels.adhoc.txt", "trec-web-2012/baselines-2012"),
        ("trec-dl-2020-passage/qrels.dl20-passage.txt", "trec-dl-2020-passage/runs-top100"),
        (
            "clef-ehealth-2015-task2/qrels/qrels.eng.clef2015.qtest.graded.txt",
            "clef-ehealth-2015-task2/runs-en",
        ),
    ],
    ids=["web-2012", "dl-2020", "clef-2015"],
)
def test_equal_to_ir_measures_on_campaign_runs(qrels, runs):
    """TREC Web 2012 (grades -2 to 4), TREC DL 2020, CLEF eHealth 2015: the compiled kernels and
    ir_measures' evaluators give the same value for every run, topic and measure."""
    qrels_path = shared_data(*qrels.split("/"))
    paths = sorted(p for p in shared_data(*runs.split("/")).iterdir() if p.is_file())[:4]
    compiled = rk.io.evaluate_runs_long(qrels_path, paths, COMPILED, names="file", n_jobs=1)
    reference = rk.io.evaluate_runs_long(qrels_path, paths, COMPILED, names="file", engine="ir_measures")
    assert len(compiled) == len(reference) > 0
    assert compiled.equals(reference)


@pytest.mark.slow
def test_every_score_of_the_campaign_runs_is_what_float_reads():
    """Every score of every run of the campaign data (TREC DL 2019 and 2020, Web 2012, CLEF eHealth
    2015): read by the fast path or together (:func:`run_arrays._read_scores`), the double that
    ``float`` reads."""
    folders = ["trec-dl-2019-passage", "trec-dl-2020-passage", "trec-web-2012", "clef-ehealth-2015-task2"]
    paths = [
        p for f in folders for p in sorted(shared_data(f).rglob("*")) if p.is_file() and "qrels" not in p.name
    ]
    checked = 0
    for path in paths:
        data = path.read_bytes()
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        fields = [line.split() for line in data.splitlines()]
        if not fields or any(len(f) != 6 for f in fields):
            continue  # not a run file
        tokens = [f[4] for f in fields]
        text = np.frombuffer(b" ".join(tokens), dtype=np.uint8)
        ends = np.cumsum([len(t) + 1 for t in tokens]) - 1
        starts = ends - np.array([len(t) for t in tokens])
        values, unread = _scores(text, starts, ends, run_arrays._POWERS)
        together = run_arrays._read_scores(b"".join(t + b"\n" for t in tokens), len(tokens))
        assert together is not None, path
        expected = np.array([float(t) for t in tokens])
        assert np.array_equal(values[~unread], expected[~unread]), path
        assert np.array_equal(together, expected), path
        checked += len(tokens)
    assert checked > 7_000_000
