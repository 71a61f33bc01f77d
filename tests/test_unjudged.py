"""The unjudged-document policies of the evaluation: ``condensed`` equals the run filtered to its
judged documents then evaluated by ir_measures (and trec_eval -J, in the slow suite); ``relevant=G``
equals ir_measures against qrels that this test completes itself; both engines agree."""

from __future__ import annotations

import ir_measures
import pytest
from cli_runner import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.errors import RiskevalError

MEASURES = [
    "nDCG@10",
    "nDCG@3",
    "nDCG",
    "AP",
    "AP(rel=2)",
    "AP@5",
    "P@5",
    "R@10",
    "RR",
    "RR(rel=2)@5",
    "ERR@10",
]


def _write(tmp_path, qrels, run):
    q, r = tmp_path / "qrels.txt", tmp_path / "a.run"
    q.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    r.write_text(
        "".join(
            f"{t} Q0 {d} {i} {s} sys\n" for t, docs in run.items() for i, (d, s) in enumerate(docs.items())
        )
    )
    return q, r


def _reference(qrels, run, measures):
    """ir_measures' per-topic values of ``run`` against ``qrels`` (topics of the run with no value: 0)."""
    parsed = [ir_measures.parse_measure(m) for m in measures]
    got = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(parsed, qrels, run)}
    return {(str(m), t): got.get((str(m), t), 0.0) for m in parsed for t in run if t in qrels}


def _riskeval(q, r, measures, unjudged, engine):
    long = rk.io.evaluate_runs_long(q, [r], measures, unjudged=unjudged, engine=engine)
    return {(m, t): v for _, t, m, v in long.itertuples(index=False, name=None)}


docs = st.sampled_from([f"d{i}" for i in range(12)])
grades = st.integers(min_value=0, max_value=3)


@st.composite
def inputs(draw):
    """Two topics, each with a few judged documents (one relevant at least) and a run of distinct
    documents, some of them unjudged, with ties in score."""
    qrels, run = {}, {}
    for topic in ("1", "2"):
        judged = draw(st.dictionaries(docs, grades, min_size=1, max_size=8))
        judged[draw(docs)] = draw(st.integers(min_value=1, max_value=3))
        retrieved = draw(st.lists(docs, min_size=1, max_size=10, unique=True))
        scores = draw(
            st.lists(st.sampled_from([1.0, 2.0, 2.5, 3.0]), min_size=len(retrieved), max_size=len(retrieved))
        )
        qrels[topic] = judged
        run[topic] = dict(zip(retrieved, scores, strict=True))
    return qrels, run


@pytest.mark.parametrize("engine", ["compiled", "ir_measures"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=inputs())
def test_condensed_is_the_run_without_its_unjudged_documents(tmp_path, engine, data):
    qrels, run = data
    q, r = _write(tmp_path, qrels, run)
    filtered = {t: {d: s for d, s in ds.items() if d in qrels[t]} for t, ds in run.items()}
    assert _riskeval(q, r, MEASURES, "condensed", engine) == pytest.approx(
        _reference(qrels, filtered, MEASURES)
    )


@pytest.mark.parametrize("engine", ["compiled", "ir_measures"])
@pytest.mark.parametrize("grade", [1, 3])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=inputs())
def test_relevant_is_the_qrels_completed_at_the_grade(tmp_path, engine, grade, data):
    qrels, run = data
    q, r = _write(tmp_path, qrels, run)
    completed = {t: {**{d: grade for d in run[t]}, **qrels[t]} for t in qrels}
    policy = "relevant" if grade == 1 else f"relevant={grade}"
    assert _riskeval(q, r, MEASURES, policy, engine) == pytest.approx(_reference(completed, run, MEASURES))


def test_nonrelevant_is_the_default(tmp_path):
    qrels = {"1": {"a": 1, "b": 0}}
    q, r = _write(tmp_path, qrels, {"1": {"x": 3.0, "a": 2.0}})
    default = rk.evaluate_runs(q, [r], "nDCG@10")
    assert rk.evaluate_runs(q, [r], "nDCG@10", unjudged="nonrelevant").equals(default)
    assert default.iloc[0, 0] == pytest.approx(1 / 1.5849625007211563)  # a at rank 2


def test_negative_grades_are_unjudged_as_trec_eval_reads_them(tmp_path):
    """trec_eval 9.0.8 -J on these files prints map 1.0, P_2 0.5, ndcg_cut_10 1.0 for topic 1 (the
    document of grade -2 is dropped with the unjudged one) and 0 for topic 2 (nothing judged left)."""
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 n -2\n2 0 c 1\n")
    r.write_text("1 Q0 x 1 3 t\n1 Q0 n 2 2.5 t\n1 Q0 a 3 2 t\n1 Q0 b 4 1 t\n2 Q0 z 1 1 t\n")
    for engine in ("compiled", "ir_measures"):
        got = _riskeval(q, r, ["AP", "P@2", "nDCG@10"], "condensed", engine)
        assert got == {
            ("AP", "1"): 1.0,
            ("AP", "2"): 0.0,
            ("P@2", "1"): 0.5,
            ("P@2", "2"): 0.0,
            ("nDCG@10", "1"): 1.0,
            ("nDCG@10", "2"): 0.0,
        }
        # relevant=2: n counts at grade 2 like x (trec_eval: in the pool but not judged)
        got = _riskeval(q, r, ["P@2"], "relevant=2", engine)
        assert got == {("P@2", "1"): 1.0, ("P@2", "2"): 0.5}


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("relevant=0", "relevant=G with G a whole number from 1"),
        ("relevant=x", "relevant=G"),
        ("Condensed", "use 'condensed'"),
        ("judged", "'nonrelevant', 'condensed', 'relevant', 'relevant=G'"),
    ],
)
def test_bad_policies_are_refused(tmp_path, value, words):
    q, r = _write(tmp_path, {"1": {"a": 1}}, {"1": {"a": 1.0}})
    with pytest.raises(RiskevalError, match="unjudged") as caught:
        rk.evaluate_runs(q, [r], unjudged=value)
    assert words in str(caught.value)


def test_cli_evaluate_unjudged(tmp_path, capsys):
    q, r = _write(tmp_path, {"1": {"a": 1, "b": 0}}, {"1": {"x": 3.0, "a": 2.0}})
    code, out, _ = run_cli(
        ["evaluate", "--qrels", q, "--unjudged", "condensed", "--per-topic", "--format", "csv", r], capsys
    )
    assert code == 0
    assert out.splitlines()[1] == "sys,1,nDCG@10,1.0"
    code, out, err = run_cli(["evaluate", "--qrels", q, "--unjudged", "relevant=-1", r], capsys)
    assert code == 2
    assert err.strip().splitlines() == [
        "riskeval: error: The '--unjudged' parameter of riskeval evaluate takes relevant=G with G a "
        "whole number from 1 (the grade an unjudged document counts at). Got 'relevant=-1'."
    ]
