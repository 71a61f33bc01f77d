"""risk_experiment takes pt.Experiment's arguments and gives risk_table of riskeval's evaluation, and
score_matrix reads pt.Experiment(..., perquery=True) output: tested on three TREC DL 2019 runs with
pure-Python transformers (no Java), against PyTerrier's own per-query values."""

from __future__ import annotations

import sys
import warnings

import pandas as pd
import pytest

import riskeval as rk
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from tests.shared_data import shared_data

pt = pytest.importorskip("pyterrier")

RUNS = ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")
NAMES = ["bert", "reversed", "cknrm50"]


@pytest.fixture(scope="module")
def dl19():
    base = shared_data("trec-dl-2019-passage")
    topics = pd.read_csv(
        base / "topics.dl19-passage.txt", sep="\t", names=["qid", "query"], dtype=str, keep_default_na=False
    )
    qrels = read_qrels(base / "qrels.dl19-passage.txt").rename(
        columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}
    )[["qid", "docno", "label"]]
    results = {
        name: read_run(base / "runs" / f"input.{name}.gz")
        .to_frame()
        .rename(columns={"query_id": "qid", "doc_id": "docno"})
        for name in RUNS
    }
    reverse = pt.apply.generic(lambda df: df.assign(score=-df["score"]))
    systems = [
        pt.Transformer.from_df(results[RUNS[0]]),
        pt.Transformer.from_df(results[RUNS[1]]) >> reverse,  # a pipeline: the ranking upside down
        results[RUNS[2]],  # a results frame, as pt.Experiment takes too
    ]
    as_run = {  # what each system retrieves, as riskeval's evaluate_runs takes it
        NAMES[0]: results[RUNS[0]],
        NAMES[1]: results[RUNS[1]].assign(score=-results[RUNS[1]]["score"]),
        NAMES[2]: results[RUNS[2]],
    }
    return systems, topics, qrels, as_run


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_risk_experiment_is_risk_table_of_evaluate_runs(dl19):
    systems, topics, qrels, as_run = dl19
    measures = [pt.measures.nDCG @ 10, "map", "mrr@10"]
    got = _quiet(
        rk.analysis.risk_experiment, systems, topics, qrels, measures, names=NAMES, baseline=0, alphas=[0, 5]
    )
    expected = []
    for measure, canonical in zip(measures, ["nDCG@10", "AP", "RR@10"], strict=True):
        M = _quiet(rk.evaluate_runs, qrels, as_run, measure)
        table = rk.risk_table(M, NAMES[0], [0, 5])
        table.insert(0, "measure", canonical)
        expected.append(table)
    pd.testing.assert_frame_equal(got, pd.concat(expected, ignore_index=True))
    assert not pt.java.started()
    one = _quiet(
        rk.analysis.risk_experiment, systems, topics, qrels, ["nDCG@10"], names=NAMES, baseline="reversed"
    )
    assert "measure" not in one.columns and set(one["baseline"]) == {"reversed"}
    mean = _quiet(
        rk.analysis.risk_experiment, dict(zip(NAMES, systems, strict=True)), topics, qrels, ["P@10"]
    )
    assert mean["system"].unique().tolist() == NAMES and set(mean["baseline"]) == {"MEAN"}


def test_pyterrier_perquery_output_is_read_by_score_matrix(dl19):
    systems, topics, qrels, as_run = dl19
    measures = [pt.measures.nDCG @ 10, pt.measures.AP(rel=2), "P_10"]
    perquery = _quiet(pt.Experiment, systems, topics, qrels, measures, names=NAMES, perquery=True)
    for spelling, ours in [
        ("nDCG@10", "nDCG@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("map-l2", "AP(rel=2)"),
        ("P@10", "P@10"),
    ]:
        got = rk.score_matrix(perquery, measure=spelling)
        expected = _quiet(rk.evaluate_runs, qrels, as_run, ours)
        pd.testing.assert_frame_equal(got.loc[expected.index, expected.columns], expected, obj=spelling)
    with pytest.raises(rk.RiskevalError, match="there are 3 measures"):
        rk.score_matrix(perquery)


def test_bad_arguments_are_named(dl19):
    systems, topics, qrels, _ = dl19
    with pytest.raises(rk.RiskevalError, match="baseline=3 is not the position of a system"):
        rk.analysis.risk_experiment(systems, topics, qrels, ["P@10"], names=NAMES, baseline=3)
    with pytest.raises(rk.RiskevalError, match="names= gives 1 name"):
        rk.analysis.risk_experiment(systems, topics, qrels, ["P@10"], names=["x"])
    with pytest.raises(rk.RiskevalError, match=r"Several systems are named \['x'\]"):
        rk.analysis.risk_experiment(systems[:2], topics, qrels, ["P@10"], names=["x", "x"])
    with pytest.raises(rk.RiskevalError, match="No topic of the topics is judged"):
        rk.analysis.risk_experiment(
            systems, topics.assign(qid="q" + topics["qid"]), qrels, ["P@10"], names=NAMES
        )
    with pytest.raises(rk.RiskevalError, match="neither a PyTerrier transformer nor a results DataFrame"):
        rk.analysis.risk_experiment([systems[0], 42], topics, qrels, ["P@10"], names=NAMES[:2])


def test_without_python_terrier_the_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyterrier", None)
    with pytest.raises(rk.errors.MissingDependencyError, match=r'pip install "riskeval\[pyterrier\]"'):
        rk.analysis.risk_experiment(
            [pd.DataFrame(), pd.DataFrame()], pd.DataFrame(), pd.DataFrame(), ["P@10"]
        )


def test_tied_results_have_the_values_of_the_run_file_pyterrier_writes(tmp_path):
    # d1 and d2 tie: PyTerrier's rank puts d1 first; trec_eval, and riskeval, rank d2 first
    results = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [1.0, 1.0], "rank": [0, 1]})
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [1]})
    pt.io.write_results(results, tmp_path / "tied.run", format="trec", run_name="tied")
    from_file = rk.evaluate_runs(qrels, [tmp_path / "tied.run"], "RR")
    in_memory = rk.evaluate_runs(qrels, {"tied": results}, "RR")
    assert from_file.loc["tied", "1"] == in_memory.loc["tied", "1"] == 0.5
