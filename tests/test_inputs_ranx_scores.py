"""score_matrix reads ranx's per-query scores (run.scores after ranx.evaluate or ranx.compare): the
structures by hand (fast) and from ranx itself on TREC DL 2019 (slow: ranx compiles with numba)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import riskeval as rk
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from tests.shared_data import shared_data

# what ranx leaves in run.scores: {metric: {query_id: score}}
BM25 = {"ndcg@10": {"1": 0.5, "2": 0.25}, "map": {"1": 0.4, "2": 0.1}}
DENSE = {"ndcg@10": {"1": 0.75, "2": 0.5}, "map": {"1": 0.6, "2": 0.2}}


def test_one_run_and_a_mapping_of_runs():
    one = rk.score_matrix(BM25, measure="nDCG@10", names="bm25")
    assert one.to_dict("index") == {"bm25": {"1": 0.5, "2": 0.25}}
    both = rk.score_matrix({"bm25": BM25, "dense": DENSE}, measure="map")
    assert both.index.tolist() == ["bm25", "dense"] and both.loc["dense", "2"] == 0.2
    for spelling in ("AP", "map", "ndcg_cut_10", "ndcg@10"):
        rk.score_matrix({"bm25": BM25}, measure=spelling)


def test_mistakes_are_named():
    with pytest.raises(rk.RiskevalError, match="2 measures"):
        rk.score_matrix({"bm25": BM25})
    with pytest.raises(rk.RiskevalError, match="Name the system of these ranx scores"):
        rk.score_matrix(BM25, measure="map")
    with pytest.raises(rk.RiskevalError, match="'P@10' is not in the 'measure' column"):
        rk.score_matrix({"bm25": BM25}, measure="P@10")
    with pytest.raises(rk.RiskevalError, match="the keys are the system names"):
        rk.score_matrix({"bm25": BM25}, measure="map", names="x")
    with pytest.raises(rk.errors.MissingTopicsError):
        rk.score_matrix({"bm25": BM25, "dense": {"map": {"1": 0.3}}}, measure="map")


@pytest.mark.slow  # ranx compiles its metrics with numba
def test_scores_left_by_ranx_evaluate_and_compare():
    ranx = pytest.importorskip("ranx")
    base = shared_data("trec-dl-2019-passage")
    qrels = read_qrels(base / "qrels.dl19-passage.txt")
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        qrels_dict.setdefault(q, {})[d] = int(r)
    runs = {}
    for name in ("ICT-BERT2", "ICT-CKNRM_B"):
        scores = read_run(base / "runs" / f"input.{name}.gz", topics=set(qrels_dict)).scores
        runs[name] = ranx.Run(scores, name=name)
    metrics = ["precision@10", "recall@100"]
    ranx.compare(ranx.Qrels(qrels_dict), list(runs.values()), metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.evaluate_runs(qrels, {n: r.to_dict() for n, r in runs.items()}, "P@10")
    for data in (runs, list(runs.values())[0], {n: r.scores for n, r in runs.items()}):
        got = rk.score_matrix(data, measure="P_10")
        pd.testing.assert_frame_equal(got, expected.loc[got.index, got.columns], check_names=False)
