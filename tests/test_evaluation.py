"""Per-topic evaluation of runs: ir_measures' values, the missing-topic policy,
system names, measure names, collected input errors."""

from __future__ import annotations

import gzip
import re
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import (
    InputFormatError,
    MissingTopicsError,
    MissingTopicsWarning,
    RiskevalError,
    RiskevalWarning,
)
from riskeval.io.qrels import read_qrels

# Three judged topics (grade -2: spam, as in TREC Web).  runB lacks topic 3 and retrieves for
# topics 7 and 8, which are not judged.
QRELS = """\
1 0 d1 2
1 0 d2 0
2 0 d3 1
3 0 d4 4
3 0 d5 -2
"""
# gdeval ERR@20 (R = (2^g - 1)/2^4, seed of TREC Web's gdeval.pl):
#   A: t1 d1 first -> 3/16 = 0.1875; t2 unjudged d9 then d3 -> (1/2)(1/16) = 0.03125; t3 d4 -> 15/16
#   B: t1 d2 then d1 -> (1/2)(3/16) = 0.09375; t2 d3 -> 1/16 = 0.0625; t3 absent (scored 0 with -c)
RUN_A = """\
1 Q0 d1 1 3.0 runA
1 Q0 d2 2 2.0 runA
2 Q0 d9 1 3.0 runA
2 Q0 d3 2 2.0 runA
3 Q0 d4 1 1.0 runA
3 Q0 d5 2 0.5 runA
"""
RUN_B = """\
1 Q0 d2 1 3.0 runB
1 Q0 d1 2 2.0 runB
2 Q0 d3 1 1.0 runB
7 Q0 d3 1 1.0 runB
8 Q0 d3 1 1.0 runB
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"qrels.txt": QRELS, "a.run": RUN_A, "b.run": RUN_B}.items():
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


def evaluate(files, measure="ERR@20", **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        M = rk.evaluate_runs(files["qrels.txt"], [files["a.run"], files["b.run"]], measure, **kwargs)
    return M, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_matrix_convention_and_hand_computed_err(files):
    M, _ = evaluate(files)
    assert M.index.name == "system" and M.columns.name == "topic"
    assert M.index.tolist() == ["runA", "runB"] and M.columns.tolist() == ["1", "2", "3"]
    assert all(M.dtypes == np.float64)
    np.testing.assert_allclose(M.loc["runA"], [0.1875, 0.03125, 0.9375], atol=1e-5)
    np.testing.assert_allclose(M.loc["runB"], [0.09375, 0.0625, 0.0], atol=1e-5)


def test_gdeval_style_c_urisk_on_a_hand_made_case(files):
    """URisk of runB against runA at α = 1 (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4) with gdeval -c: the missing topic counts
    as 0.  δ = (0.09375 − 0.1875, 0.0625 − 0.03125, 0 − 0.9375); x = (2δ₁, δ₂, 2δ₃)."""
    M, _ = evaluate(files)
    by_hand = (2 * (0.09375 - 0.1875) + (0.0625 - 0.03125) + 2 * (0.0 - 0.9375)) / 3
    assert by_hand == pytest.approx(-0.6770833333)
    assert rk.urisk(M.loc["runB"], M.loc["runA"], alpha=1.0) == pytest.approx(by_hand, abs=1e-5)
    D, _ = evaluate(files, missing="drop")  # without -c: the two shared topics only
    by_hand_dropped = (2 * (0.09375 - 0.1875) + (0.0625 - 0.03125)) / 2
    assert rk.urisk(D.loc["runB"], D.loc["runA"], alpha=1.0) == pytest.approx(by_hand_dropped, abs=1e-5)


@pytest.mark.parametrize(
    "measure",
    [
        "nDCG@10",
        "P@1",
        "AP",
        "AP(rel=2)",
        "RR(rel=2)@10",
        "ERR@20",
        "nDCG(dcg='exp-log2')@20",
        "R@5",
        "Judged@2",
    ],
)
def test_values_equal_ir_measures_per_query_values(files, measure):
    M, _ = evaluate(files, measure)
    qrels = list(ir_measures.read_trec_qrels(str(files["qrels.txt"])))
    for system, name in (("runA", "a.run"), ("runB", "b.run")):
        run = ir_measures.read_trec_run(str(files[name]))
        expected = {
            m.query_id: m.value
            for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run)
        }
        assert {t: M.loc[system, t] for t in M.columns} == {t: expected[t] for t in M.columns}


@pytest.mark.parametrize(
    ("missing", "topics", "says"),
    [("zero", ["1", "2", "3"], "scored 0"), ("drop", ["1", "2"], "dropped"), ("raise", None, None)],
)
def test_missing_topic_policy(files, missing, topics, says):
    """runB lacks judged topic 3: one (system, topic) cell, counted in the warning or the error."""
    if missing == "raise":
        with pytest.raises(MissingTopicsError, match=r"\b1\b.*\(system, topic\) cell\(s\).*runB"):
            evaluate(files, missing=missing)
        return
    M, caught = evaluate(files, missing=missing)
    assert M.columns.tolist() == topics
    assert M.loc["runA"].tolist() == evaluate(files)[0].loc["runA", topics].tolist()
    policy = [w for w in caught if "(system, topic) cell(s)" in w]
    assert len(policy) == 1 and re.search(r"\b1\b", policy[0]) and "runB" in policy[0] and says in policy[0]
    # topics 7 and 8 of runB are not judged: left out, counted
    assert any(
        w.startswith("2 (run, topic) pair(s) left out: 2 topic(s)") and "runB has 2" in w for w in caught
    )


def test_bad_missing_policy(files):
    with pytest.raises(RiskevalError, match="'missing' parameter of evaluate_runs must be one of"):
        evaluate(files, missing="fill")


def test_long_table_for_several_measures(files):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        long = rk.io.evaluate_runs_long(
            files["qrels.txt"], [files["a.run"], files["b.run"]], ["P@1", 'nDCG(dcg="exp-log2")@20']
        )
        M = rk.evaluate_runs(files["qrels.txt"], [files["a.run"], files["b.run"]], "P@1")
    assert list(long.columns) == ["system", "topic", "measure", "score"]
    assert long["measure"].unique().tolist() == ["P@1", "nDCG(dcg='exp-log2')@20"]
    p1 = long[long["measure"] == "P@1"].pivot(index="system", columns="topic", values="score")
    pd.testing.assert_frame_equal(p1, M, check_names=False)
    with pytest.raises(RiskevalError, match="takes one measure.*evaluate_runs_long"):
        rk.evaluate_runs(files["qrels.txt"], [files["a.run"]], ["P@1", "P@2"])


def test_unknown_measure_says_how_to_spell_measures(files):
    with pytest.raises(RiskevalError) as info:
        evaluate(files, "Ndcg@10")  # ranx's ndcg@10 is nDCG@10 (riskeval.io.measures.MEASURE_NAMES)
    message = str(info.value)
    assert "unknown measure 'Ndcg@10': no measure is called 'Ndcg'; did you mean nDCG or NDCG?" in message
    assert "Name(param=value)@cutoff" in message and "ERR@20" in message


def test_system_names(files, tmp_path):
    runs = [files["a.run"], files["b.run"]]
    qrels = files["qrels.txt"]
    kw = {"progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert rk.evaluate_runs(qrels, runs, "P@1", names="file", **kw).index.tolist() == ["a", "b"]
        assert rk.evaluate_runs(qrels, runs, "P@1", names=["x", "y"], **kw).index.tolist() == ["x", "y"]
        same = tmp_path / "same.run.gz"
        same.write_bytes(gzip.compress(RUN_A.encode()))
        with pytest.raises(RiskevalError, match=r"same system name \('runA': .*a.run, .*same.run.gz\)"):
            rk.evaluate_runs(qrels, [files["a.run"], same], "P@1", **kw)
        assert rk.evaluate_runs(qrels, [files["a.run"], same], "P@1", names="file", **kw).index.tolist() == [
            "a",
            "same",
        ]
        with pytest.raises(RiskevalError, match="one name per run: got 1 name"):
            rk.evaluate_runs(qrels, runs, "P@1", names=["x"], **kw)
        with pytest.raises(RiskevalError, match="'names' parameter"):
            rk.evaluate_runs(qrels, runs, "P@1", names="tags", **kw)


def test_problems_of_every_file_are_reported_together(files, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 x runC\n2 Q0 d3\n")
    missing_file = tmp_path / "absent.run"
    with pytest.raises(InputFormatError) as info:
        rk.evaluate_runs(files["qrels.txt"], [bad, files["a.run"], missing_file], "P@1")
    assert [loc for loc, _ in info.value.problems] == [f"{bad}:1", f"{bad}:2", str(missing_file)]
    assert "cannot read: No such file or directory" in str(info.value)


def test_worker_processes_give_the_same_matrix(files):
    serial, _ = evaluate(files, "nDCG@10", n_jobs=1)
    parallel, _ = evaluate(files, "nDCG@10", n_jobs=2)
    pd.testing.assert_frame_equal(serial, parallel)
    with pytest.raises(RiskevalError, match="'n_jobs' parameter"):
        evaluate(files, n_jobs=0)


def test_qrels_as_dataframe(files):
    qrels = read_qrels(files["qrels.txt"])
    M, _ = evaluate(files, "P@1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from_frame = rk.evaluate_runs(qrels, [files["a.run"], files["b.run"]], "P@1")
    pd.testing.assert_frame_equal(M, from_frame)
    with pytest.raises(RiskevalError, match="columns"):
        rk.evaluate_runs(qrels.rename(columns={"relevance": "grade"}), [files["a.run"]], "P@1")
    with pytest.raises(
        RiskevalError, match=r"judges 1 \(query_id, doc_id\) pair\(s\) twice, e.g. \('1', 'd1'\)"
    ):
        rk.evaluate_runs(pd.concat([qrels, qrels.iloc[:1]]), [files["a.run"]], "P@1")
    with pytest.raises(RiskevalError, match="integer grades"):
        rk.evaluate_runs(qrels.assign(relevance=qrels["relevance"] / 2), [files["a.run"]], "P@1")
    with pytest.raises(RiskevalError, match="at least one measure"):
        rk.io.evaluate_runs_long(qrels, [files["a.run"]], [])


def test_warning_categories(files):
    """Missing cells: MissingTopicsWarning (the project's missing-topic policy); unjudged run topics:
    RiskevalWarning."""
    with (
        pytest.warns(MissingTopicsWarning, match="scored 0"),
        pytest.warns(RiskevalWarning, match="left out"),
    ):
        rk.evaluate_runs(files["qrels.txt"], [files["a.run"], files["b.run"]], "P@1")
