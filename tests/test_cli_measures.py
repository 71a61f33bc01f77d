"""Several measures through the command line's score loading: ``--measure`` repeated, trec_eval and
ir_measures ``-q`` files as inputs, long tables with a ``measure`` column."""

from __future__ import annotations

import json

import click
import ir_measures
import pandas as pd
import pytest

import riskeval as rk
from riskeval.cli._input import load_scores
from riskeval.io.per_query import per_query_format, read_ir_measures

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 2\nq3 0 d2 1\n"
RUNS = {
    "a": "q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d4 1 1.0 a\nq3 Q0 d3 1 1.0 a\n",
    "b": "q1 Q0 d3 1 3.0 b\nq2 Q0 d1 1 2.0 b\nq2 Q0 d4 2 1.0 b\nq3 Q0 d2 1 1.0 b\n",
    "c": "q1 Q0 d2 1 3.0 c\nq1 Q0 d1 2 2.0 c\nq2 Q0 d9 1 1.0 c\nq3 Q0 d2 1 1.0 c\n",
}
MEASURES = ("nDCG@10", "AP(rel=2)")


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    runs = []
    for name, text in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text(text)
        runs.append(str(path))
    return str(qrels), runs


def _per_query(qrels: str, run: str) -> list:
    parsed = [ir_measures.parse_measure(m) for m in MEASURES]
    return list(
        ir_measures.iter_calc(parsed, ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    )


def test_qrels_with_two_measures_gives_each_matrix_in_order(files):
    qrels, runs = files
    scores = load_scores(tuple(runs), False, qrels, MEASURES, "tag", None)
    assert list(scores.matrices) == list(MEASURES)
    assert scores.measure == "nDCG@10" and scores.matrix is scores.matrices["nDCG@10"]
    for measure in MEASURES:
        expected = rk.evaluate_runs(qrels, runs, measure)
        pd.testing.assert_frame_equal(scores.matrices[measure], expected)


def test_ir_measures_files_tsv_and_jsonl(files, tmp_path):
    qrels, runs = files
    paths = []
    for k, run in enumerate(runs):
        metrics = _per_query(qrels, run)
        path = tmp_path / f"run{k}.{'tsv' if k % 2 == 0 else 'jsonl'}.q"
        if k % 2 == 0:  # as `ir_measures qrels run MEASURES -q` prints them, with its summary lines
            lines = [f"{m.query_id}\t{m.measure}\t{m.value:.4f}" for m in metrics] + ["all\tAP(rel=2)\t0.5"]
        else:
            lines = [
                json.dumps({"query_id": m.query_id, "measure": str(m.measure), "value": m.value})
                for m in metrics
            ]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
        assert per_query_format(path) == "ir_measures"
    scores = load_scores(tuple(paths), False, None, (), "tag", None)
    first_seen = list(dict.fromkeys(str(m.measure) for m in _per_query(qrels, runs[0])))
    assert list(scores.matrices) == first_seen and sorted(first_seen) == sorted(MEASURES)
    assert list(scores.matrix.index) == ["run0.tsv.q", "run1.jsonl.q", "run2.tsv.q"]
    expected = rk.evaluate_runs(qrels, runs, "AP(rel=2)")
    got = scores.matrices["AP(rel=2)"]
    assert (abs(got.to_numpy() - expected.loc[:, got.columns].to_numpy()) <= 5e-5).all()
    one = read_ir_measures(paths, ["AP(rel=2)"])
    assert list(one) == ["AP(rel=2)"]


def test_trec_eval_files_every_measure_or_the_chosen_ones(tmp_path):
    paths = []
    for name, shift in (("x", 0.0), ("y", 0.1)):
        lines = [
            f"{m}\t{t}\t{v + shift:.4f}"
            for t, v in (("1", 0.2), ("2", 0.4))
            for m in ("map", "P_10", "ndcg_cut_10")
        ]
        path = tmp_path / f"{name}.dat"
        path.write_text("\n".join([*lines, f"runid\tall\t{name}", "map\tall\t0.3"]) + "\n")
        paths.append(str(path))
    assert per_query_format(paths[0]) == "trec_eval"
    every = load_scores(tuple(paths), False, None, (), "tag", None)
    assert list(every.matrices) == ["map", "P_10", "ndcg_cut_10"]
    chosen = load_scores(tuple(paths), False, None, ("nDCG@10", "AP"), "tag", None)
    assert list(chosen.matrices) == ["nDCG@10", "AP"]
    assert chosen.matrices["AP"].loc["y"].tolist() == pytest.approx([0.3, 0.5])
    with pytest.raises(rk.errors.InputFormatError, match="'P@20' is not there"):
        load_scores(tuple(paths), False, None, ("P@20",), "tag", None)


def test_long_table_without_measure_gives_every_measure(tmp_path):
    path = tmp_path / "long.csv"
    rows = [
        (s, t, m, v) for m in ("ERR@20", "nDCG@20") for s, v in (("a", 0.1), ("b", 0.3)) for t in ("1", "2")
    ]
    pd.DataFrame(rows, columns=["system", "topic", "measure", "score"]).to_csv(path, index=False)
    scores = load_scores((str(path),), False, None, (), "tag", None)
    assert list(scores.matrices) == ["ERR@20", "nDCG@20"] and scores.measure == "ERR@20"
    one = load_scores((str(path),), False, None, ("ndcg@20",), "tag", None)
    assert list(one.matrices) == ["ndcg@20"]
    with click.Context(click.Command("chisq"), info_name="riskeval chisq"):
        with pytest.raises(click.UsageError, match="takes one measure; the input gives 2: ERR@20, nDCG@20"):
            scores.one()


def test_not_a_per_query_file_names_the_file_and_line(tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text("\n\nhello world\n")
    with pytest.raises(rk.errors.InputFormatError, match=r"scores.txt:3.*is not a score table"):
        load_scores((str(path),), False, None, (), "tag", None)
