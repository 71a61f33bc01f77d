"""evaluate_runs takes the qrels and runs PyTerrier, ranx and ir_measures users hold in memory, with
the values of the same qrels and runs read from files (three TREC DL 2019 runs, written out and
read both ways)."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from tests.shared_data import shared_data

RUNS = ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")  # the three smallest DL 2019 runs
MEASURES = ["nDCG@10", "AP(rel=2)", "RR@10", "P@10", "R@100"]


@pytest.fixture(scope="module")
def dl19(tmp_path_factory):
    """Qrels and runs as files (written out, plain text) and as read (ir_measures' frames)."""
    base = shared_data("trec-dl-2019-passage")
    out = tmp_path_factory.mktemp("dl19")
    qrels = read_qrels(base / "qrels.dl19-passage.txt")
    qrels_path = out / "qrels.txt"
    qrels.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        qrels_path, sep=" ", header=False, index=False
    )
    frames, paths = {}, []
    for name in RUNS:
        frame = read_run(base / "runs" / f"input.{name}.gz").to_frame()
        path = out / f"{name}.run"
        ranked = frame.assign(rank=frame.groupby("query_id").cumcount() + 1, q0="Q0", tag=name)
        ranked[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
            path, sep=" ", header=False, index=False, float_format="%.17g"
        )
        frames[name] = frame
        paths.append(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.io.evaluate_runs_long(str(qrels_path), paths, MEASURES)
    return qrels, frames, expected


def _evaluate(qrels, runs, measures=MEASURES):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.io.evaluate_runs_long(qrels, runs, measures)


def _pyterrier_results(frame: pd.DataFrame) -> pd.DataFrame:
    """PyTerrier's results: qid, docno, score, rank from 0, rows in an arbitrary order."""
    out = frame.rename(columns={"query_id": "qid", "doc_id": "docno"})
    out = out.assign(rank=out.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1)
    return out.sample(frac=1.0, random_state=0)


def _qrels_forms(qrels: pd.DataFrame):
    yield "PyTerrier", qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    yield "ir_measures frame", qrels
    yield "ir_measures records", list(ir_measures.read_trec_qrels(_qrels_lines(qrels)))
    yield (
        "dict",
        {
            q: dict(zip(g.doc_id, g.relevance.astype(int).tolist(), strict=True))
            for q, g in qrels.groupby("query_id")
        },
    )


def _qrels_lines(qrels: pd.DataFrame) -> str:
    return "\n".join(
        f"{q} 0 {d} {r}" for q, d, r in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False)
    )


def _run_forms(frame: pd.DataFrame):
    yield "PyTerrier", _pyterrier_results(frame)
    yield "ir_measures frame", frame
    yield "ir_measures records", [ir_measures.ScoredDoc(q, d, s) for q, d, s in frame.itertuples(index=False)]
    yield "dict", {q: dict(zip(g.doc_id, g.score, strict=True)) for q, g in frame.groupby("query_id")}


def test_every_memory_form_gives_the_values_of_the_files(dl19):
    qrels, frames, expected = dl19
    for qrels_kind, qrels_form in _qrels_forms(qrels):
        got = _evaluate(qrels_form, {n: frames[n] for n in RUNS})
        pd.testing.assert_frame_equal(got, expected, obj=f"qrels as {qrels_kind}")
    for kinds in zip(*(list(_run_forms(frames[n])) for n in RUNS), strict=True):
        runs = {n: form for n, (_, form) in zip(RUNS, kinds, strict=True)}
        got = _evaluate(qrels, runs)
        pd.testing.assert_frame_equal(got, expected, obj=f"runs as {kinds[0][0]}")


def test_paths_and_memory_runs_mix_in_order(dl19, tmp_path):
    qrels, frames, expected = dl19
    path = tmp_path / "b.run"
    frame = frames[RUNS[1]]
    with open(path, "w") as f:
        for q, d, s in frame.itertuples(index=False):
            f.write(f"{q} Q0 {d} 1 {s!r} tag\n")
    got = _evaluate(
        qrels, {RUNS[0]: frames[RUNS[0]], RUNS[1]: path, RUNS[2]: _pyterrier_results(frames[RUNS[2]])}
    )
    pd.testing.assert_frame_equal(got, expected)


@pytest.mark.slow  # ranx compiles its typed dicts with numba: 10 s and more
def test_ranx_qrels_and_runs(dl19):
    ranx = pytest.importorskip("ranx")
    qrels, frames, expected = dl19
    (_, qrels_dict) = list(_qrels_forms(qrels))[-1]
    ranx_qrels = ranx.Qrels(qrels_dict)
    runs = {n: ranx.Run(list(_run_forms(frames[n]))[-1][1], name=n) for n in RUNS}
    pd.testing.assert_frame_equal(_evaluate(ranx_qrels, runs), expected)


def test_ties_are_ranked_as_trec_eval_ranks_them_not_by_pyterrier_rank():
    # d1 and d2 tie; trec_eval ranks d2 first (reverse document order), whatever PyTerrier's rank says
    results = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [1.0, 1.0], "rank": [0, 1]})
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [1]})
    M = rk.evaluate_runs(qrels, {"tied": results}, "RR")
    assert M.loc["tied", "1"] == 0.5
    expected = ir_measures.calc_aggregate([ir_measures.RR], {"1": {"d1": 1}}, {"1": {"d1": 1.0, "d2": 1.0}})
    assert M.loc["tied", "1"] == expected[ir_measures.RR]


def test_measure_names_in_every_spelling(dl19):
    qrels, frames, _ = dl19
    runs = {RUNS[0]: frames[RUNS[0]]}
    base = rk.evaluate_runs(qrels, runs, "nDCG@10")
    for spelling in ("ndcg_cut_10", "ndcg@10"):
        pd.testing.assert_frame_equal(rk.evaluate_runs(qrels, runs, spelling), base)
    long = _evaluate(qrels, runs, ["map-l2", "recip_rank", "P_10"])
    assert long["measure"].unique().tolist() == ["AP(rel=2)", "RR", "P@10"]


@pytest.mark.parametrize(
    ("qrels", "runs", "message"),
    [
        (
            pd.DataFrame({"q": ["1"], "d": ["a"], "r": [1]}),
            {"a": {"1": {"a": 1.0}}},
            "PyTerrier's columns qid, docno, label",
        ),
        (
            {"1": {"a": 1.5}},
            {"a": {"1": {"a": 1.0}}},
            r"topic '1', document 'a': the grade must be a whole number",
        ),
        (
            {"1": {"a": 1}},
            {"a": pd.DataFrame({"qid": ["1"], "docid": [3], "score": [1.0]})},
            "metadata=\\['docno'\\]",
        ),
        (
            {"1": {"a": 1}},
            {"a": pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}, index=[7, 8])},
            r"run 'a', row 8: document 'a' is ranked twice for topic '1'",
        ),
        (
            {"1": {"a": 1}},
            {"a": pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [np.nan]})},
            "row 0: the score must be a finite number",
        ),
        ({"1": {"a": 1}}, {"a": {"1": {"a": "high"}}}, "the score must be a finite number; got 'high'"),
        ({"1": {"a": 1}}, {"a": [("1", "a", 1.0)]}, r"run 'a', record 1: expected an ir_measures ScoredDoc"),
        (
            {"1": {"a": 1}},
            [pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})],
            "as a mapping name -> run",
        ),
        (
            {"1": {"a": 1}},
            pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]}),
            "as a mapping name -> run",
        ),
        (
            {"1": {"a": 1}},
            {"a": pd.DataFrame({"qid": [], "docno": [], "score": []})},
            "run 'a' holds no results",
        ),
    ],
)
def test_bad_memory_inputs_are_named(qrels, runs, message):
    with pytest.raises(rk.RiskevalError, match=message):
        rk.evaluate_runs(qrels, runs, "P@1")


def test_names_come_from_the_mapping():
    with pytest.raises(rk.RiskevalError, match="the keys are the system names"):
        rk.evaluate_runs({"1": {"a": 1}}, {"x": {"1": {"a": 1.0}}}, "P@1", names=["y"])
