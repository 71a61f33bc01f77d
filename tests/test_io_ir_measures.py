"""ir_measures per-query results arrive in the matrix intact."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, RR, P, Qrel, ScoredDoc, nDCG

import riskeval as rk
from riskeval.errors import MissingTopicsWarning

QRELS = [
    Qrel("q1", "d1", 2),
    Qrel("q1", "d2", 0),
    Qrel("q1", "d3", 1),
    Qrel("q2", "d1", 1),
    Qrel("q2", "d4", 3),
    Qrel("q3", "d2", 1),
]
RUNS = {
    "bm25": [
        ScoredDoc("q1", "d1", 3.0),
        ScoredDoc("q1", "d2", 2.0),
        ScoredDoc("q1", "d3", 1.0),
        ScoredDoc("q2", "d4", 2.0),
        ScoredDoc("q2", "d5", 1.0),
        ScoredDoc("q3", "d9", 1.0),
    ],
    "dph": [
        ScoredDoc("q1", "d3", 3.0),
        ScoredDoc("q1", "d1", 2.0),
        ScoredDoc("q2", "d5", 2.0),
        ScoredDoc("q2", "d1", 1.0),
        ScoredDoc("q3", "d2", 1.0),
    ],
}
MEASURES = [nDCG @ 10, P @ 5, AP, RR]


def results(system: str) -> list:
    return list(ir_measures.iter_calc(MEASURES, QRELS, RUNS[system]))


@pytest.mark.parametrize("measure", MEASURES)
def test_every_value_arrives_intact(measure):
    per_system = {name: results(name) for name in RUNS}
    matrix = rk.score_matrix(per_system, measure=measure)
    assert list(matrix.index) == ["bm25", "dph"]
    for name, metrics in per_system.items():
        expected = {m.query_id: m.value for m in metrics if m.measure == measure}
        assert matrix.loc[name].to_dict() == expected
    # the measure may also be named as a string, in ir_measures or trec_eval syntax
    pd.testing.assert_frame_equal(rk.io.from_ir_measures(per_system, str(measure)), matrix)


def test_names_and_trec_eval_spelling():
    ndcg = rk.score_matrix(results("dph"), measure="ndcg_cut_10", names="dph")
    assert list(ndcg.index) == ["dph"]
    direct = rk.io.from_ir_measures(iter(results("dph")), nDCG @ 10, system="dph")  # a generator
    pd.testing.assert_frame_equal(ndcg, direct)
    assert ndcg.loc["dph", "q2"] == pytest.approx(
        ir_measures.calc_aggregate(
            [nDCG @ 10],
            [q for q in QRELS if q.query_id == "q2"],
            [d for d in RUNS["dph"] if d.query_id == "q2"],
        )[nDCG @ 10]
    )


def test_one_measure_needs_no_choice():
    only_ap = list(ir_measures.iter_calc([AP], QRELS, RUNS["bm25"]))
    matrix = rk.score_matrix(only_ap, names=["bm25"])
    assert matrix.loc["bm25"].to_dict() == {m.query_id: m.value for m in only_ap}


def test_queries_missing_for_a_system_follow_the_policy():
    per_system = {name: results(name) for name in RUNS}
    per_system["dph"] = [m for m in per_system["dph"] if m.query_id != "q3"]
    with pytest.raises(rk.errors.MissingTopicsError, match="ir_measures results: 1 of 6 .*'q3'"):
        rk.score_matrix(per_system, measure=AP)
    with pytest.warns(MissingTopicsWarning, match="1 of 6 .*dropped"):
        assert list(rk.score_matrix(per_system, measure=AP, missing="drop").columns) == ["q1", "q2"]
