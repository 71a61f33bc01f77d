"""Judged@k, the fraction of a run's top k that the qrels judge: equal to ir_measures' own values on
small inputs (ties at the cutoff, topics with fewer than k documents, negative grades, missing
topics), in the library and on the command line, and at the depth of any measure."""

from __future__ import annotations

import warnings
from io import StringIO
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.evaluation.judged import judged_fractions
from riskeval.io.measure_depth import judged_measure
from riskeval.reporting.judged import JUDGED_THRESHOLD
from tests.cli_runner import run_cli
from tests.shared_data import shared_data

pytestmark = pytest.mark.filterwarnings("ignore::riskeval.errors.MissingTopicsWarning")

# Topic 1: d1..d3 judged (d3 at grade -2: judged all the same), the run ties d2/d9 at the 2nd place.
# Topic 2: the run returns 3 documents, 2 judged: 2/3 at any k >= 3, not 2/k.
# Topic 3: judged, absent from run b (scored 0 under missing="zero").
QRELS = """\
1 0 d1 2
1 0 d2 0
1 0 d3 -2
2 0 e1 1
2 0 e2 0
3 0 f1 1
"""
RUN_A = """\
1 Q0 d1 1 3.0 a
1 Q0 d9 2 2.0 a
1 Q0 d2 3 2.0 a
1 Q0 d3 4 1.0 a
1 Q0 d8 5 0.5 a
2 Q0 e1 1 3.0 a
2 Q0 x1 2 2.0 a
2 Q0 e2 3 1.0 a
3 Q0 f1 1 1.0 a
3 Q0 f9 2 0.5 a
"""
RUN_B = """\
1 Q0 d8 1 3.0 b
1 Q0 d7 2 2.0 b
1 Q0 d1 3 1.0 b
2 Q0 e2 1 1.0 b
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"qrels.txt": QRELS, "a.run": RUN_A, "b.run": RUN_B}.items():
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


def ir_measures_values(qrels: Path, run: Path, measure: str) -> dict[str, float]:
    """ir_measures' own per-query values of ``measure``, from the files."""
    parsed = ir_measures.parse_measure(measure)
    q = list(ir_measures.read_trec_qrels(str(qrels)))
    r = list(ir_measures.read_trec_run(str(run)))
    return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], q, r)}


@pytest.mark.parametrize("engine", ["compiled", "ir_measures"])
@pytest.mark.parametrize("measure", ["Judged@1", "Judged@2", "Judged@3", "Judged@10", "Judged"])
def test_equals_ir_measures_per_topic(files, measure, engine):
    M = rk.evaluate_runs(files["qrels.txt"], [files["a.run"], files["b.run"]], measure=measure, engine=engine)
    for system, run in (("a", files["a.run"]), ("b", files["b.run"])):
        expected = ir_measures_values(files["qrels.txt"], run, measure)
        got = M.loc[system]
        for topic, value in got.items():
            assert value == expected.get(topic, 0.0), (system, topic)  # exact, not approximate
        assert set(expected) <= set(got.index)


@pytest.mark.parametrize("engine", ["compiled", "ir_measures"])
def test_conventions_by_hand(files, engine):
    """The values worked out from the definition: ties by document id ascending (d2 before d9),
    division by the documents returned when fewer than k, negative grades judged, absent topic 0;
    by the compiled kernels and from the parsed runs."""
    runs = [files["a.run"], files["b.run"]]
    M = rk.evaluate_runs(files["qrels.txt"], runs, measure="Judged@3", engine=engine)
    assert M.loc["a", "1"] == pytest.approx(2 / 3)  # d1, d2 (tie broken by id), d9 unjudged
    assert M.loc["a", "2"] == pytest.approx(2 / 3)
    assert M.loc["a", "3"] == pytest.approx(1 / 2)  # 2 documents returned: divided by 2, not 3
    assert M.loc["b", "1"] == pytest.approx(1 / 3)
    assert M.loc["b", "2"] == 1.0  # 1 document returned, judged
    assert M.loc["b", "3"] == 0.0  # absent: missing="zero"
    at2 = rk.evaluate_runs(files["qrels.txt"], [files["a.run"]], measure="Judged@2", engine=engine)
    assert at2.loc["a", "1"] == 1.0  # d1 then d2 (ascending id among the tied scores), both judged


def test_in_memory_runs_equal_files(files):
    qrels = {"1": {"d1": 2, "d2": 0, "d3": -2}, "2": {"e1": 1, "e2": 0}, "3": {"f1": 1}}
    from_files = rk.evaluate_runs(files["qrels.txt"], [files["a.run"]], measure="Judged@3")
    run = {
        "1": {"d1": 3.0, "d9": 2.0, "d2": 2.0, "d3": 1.0, "d8": 0.5},
        "2": {"e1": 3.0, "x1": 2.0, "e2": 1.0},
        "3": {"f1": 1.0, "f9": 0.5},
    }
    in_memory = rk.evaluate_runs(qrels, {"a": run}, measure="Judged@3")
    pd.testing.assert_frame_equal(from_files, in_memory)


def test_cli_per_topic(files, capsys):
    code, out, err = run_cli(
        [
            "evaluate",
            "--qrels",
            files["qrels.txt"],
            "-m",
            "Judged@3",
            "-m",
            "nDCG@3",
            "--per-topic",
            "--format",
            "csv",
            files["a.run"],
        ],
        capsys,
    )
    assert code == 0, err
    table = pd.read_csv(StringIO(out), dtype={"topic": str})
    judged = table[table["measure"] == "Judged@3"].set_index("topic")["score"]
    expected = ir_measures_values(files["qrels.txt"], files["a.run"], "Judged@3")
    assert judged.to_dict() == pytest.approx(expected, abs=0)


def test_cli_judged_flag_adds_the_depth_of_each_measure(files, capsys):
    base = ["evaluate", "--qrels", files["qrels.txt"], "--format", "csv", files["a.run"]]
    code, out, err = run_cli([*base, "-m", "nDCG@3", "-m", "AP", "-m", "P@3", "--judged"], capsys)
    assert code == 0, err
    table = pd.read_csv(StringIO(out))
    assert table["measure"].tolist() == ["nDCG@3", "AP", "P@3", "Judged@3", "Judged"]
    code, plain, err = run_cli([*base, "-m", "Judged@3", "-m", "Judged"], capsys)
    assert (
        pd.read_csv(StringIO(plain)).set_index("measure")["score"].to_dict()
        == table.set_index("measure")["score"].loc[["Judged@3", "Judged"]].to_dict()
    )


@pytest.mark.parametrize(
    ("measure", "depth"),
    [
        ("nDCG@10", "Judged@10"),
        ("ndcg_cut_20", "Judged@20"),
        ("ERR@20", "Judged@20"),
        ("P_5", "Judged@5"),
        ("AP", "Judged"),
        ("AP(rel=2)", "Judged"),
        ("map", "Judged"),
    ],
)
def test_judged_measure_at_depth(measure, depth):
    assert judged_measure(measure) == depth


def test_judged_measure_refuses_non_measure():
    with pytest.raises(RiskevalError, match="not a measure name"):
        judged_measure("nDGC@10")


def test_judged_fractions_one_pass_per_depth(files):
    out = judged_fractions(files["qrels.txt"], [files["a.run"], files["b.run"]], ["nDCG@3", "P@3", "AP"])
    assert list(out) == ["nDCG@3", "P@3", "AP"]
    direct = rk.evaluate_runs(files["qrels.txt"], [files["a.run"], files["b.run"]], measure="Judged@3")
    pd.testing.assert_frame_equal(out["nDCG@3"], direct)
    pd.testing.assert_frame_equal(out["P@3"], direct)
    assert out["AP"].loc["a", "1"] == pytest.approx(3 / 5)  # every document returned
    assert 0 < JUDGED_THRESHOLD < 1


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.integers(0, 9),
            st.integers(-2, 3),
        ),
        min_size=1,
        max_size=15,
    ),
    st.lists(st.tuples(st.integers(1, 3), st.integers(0, 11), st.integers(0, 4)), min_size=1, max_size=25),
    st.sampled_from(["Judged@1", "Judged@2", "Judged@3", "Judged@6", "Judged"]),
)
def test_random_inputs_equal_ir_measures(tmp_path_factory, judgments, ranking, measure):
    """Random qrels (negative grades too) and runs with many ties (scores 0..4, ids d1 < d10 < d2):
    riskeval's Judged@k is ir_measures' own, exactly, from the compiled kernels (a run file), from a
    run in memory and with the ir_measures engine."""
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in judgments:
        qrels.setdefault(str(q), {})[f"d{d}"] = g
    run: dict[str, dict[str, float]] = {}
    for q, d, s in ranking:
        run.setdefault(str(q), {})[f"d{d}"] = float(s)
    if not set(run) & set(qrels):
        return
    folder = tmp_path_factory.mktemp("judged")
    (folder / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    (folder / "r.run").write_text(
        "".join(f"{q} Q0 {d} 1 {s} r\n" for q, docs in run.items() for d, s in docs.items())
    )
    expected = {
        m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [
            rk.evaluate_runs(qrels, {"r": run}, measure=measure),
            rk.evaluate_runs(qrels, {"r": run}, measure=measure, engine="ir_measures"),
            rk.evaluate_runs(folder / "qrels.txt", [folder / "r.run"], measure=measure, names="file"),
            rk.evaluate_runs(folder / "qrels.txt", [folder / "r.run"], measure=measure, engine="ir_measures"),
        ]
    for M in results:
        row = M.iloc[0]
        for topic, value in row.items():
            assert value == expected.get(topic, 0.0), (topic, measure)
            assert 0.0 <= value <= 1.0
        assert set(expected) <= set(row.index)


@pytest.mark.parametrize("engine", ["compiled", "ir_measures"])
def test_the_ranking_as_returned_whatever_the_unjudged_policy(files, engine):
    """Judged@k describes the run's own ranking: condensing it (trec_eval -J) would leave judged
    documents alone, completing the qrels would judge every document, and Judged@k would be 1.  A
    negative grade is judged by default (ir_measures) and unjudged under the other policies."""
    runs = [files["a.run"], files["b.run"]]
    default = rk.evaluate_runs(files["qrels.txt"], runs, measure="Judged@3", engine=engine)
    for policy in ("condensed", "relevant", "relevant=3"):
        M = rk.evaluate_runs(files["qrels.txt"], runs, measure="Judged@3", engine=engine, unjudged=policy)
        assert M.loc["a", "1"] == pytest.approx(2 / 3)  # d1, d2 judged; d9 not
        assert M.loc["a", "2"] == default.loc["a", "2"] == pytest.approx(2 / 3)
        assert M.loc["b", "1"] == default.loc["b", "1"] == pytest.approx(1 / 3)
        at4 = rk.evaluate_runs(files["qrels.txt"], runs, measure="Judged@4", engine=engine, unjudged=policy)
        assert at4.loc["a", "1"] == pytest.approx(2 / 4)  # d3 at grade -2: unjudged here
    assert rk.evaluate_runs(files["qrels.txt"], runs, measure="Judged@4", engine=engine).loc[
        "a", "1"
    ] == pytest.approx(3 / 4)  # d3 at grade -2: judged, as in ir_measures


def test_judged_at_zero_is_left_to_ir_measures():
    from riskeval.evaluation.engine import compiled_plan

    assert compiled_plan(ir_measures.parse_measure("Judged@0")) is None
    assert compiled_plan(ir_measures.parse_measure("Judged")).cutoff == 0
    assert compiled_plan(ir_measures.parse_measure("Judged@7")).cutoff == 7


@pytest.mark.slow
@pytest.mark.parametrize(
    ("folder", "qrels", "runs"),
    [
        ("trec-dl-2019-passage", "qrels.dl19-passage.txt", "runs"),
        ("trec-dl-2020-passage", "qrels.dl20-passage.txt", "runs-top100"),
    ],
)
def test_campaign_runs_equal_ir_measures(folder, qrels, runs):
    """Every official TREC DL 2019 and 2020 passage run: Judged@10 per run and topic is ir_measures'
    own value, exactly, by the compiled kernels and from parsed runs (the ir_measures engine)."""
    d = shared_data(folder)
    runs = sorted((d / runs).glob("input.*"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        M = rk.evaluate_runs(d / qrels, runs, measure="Judged@10", names="file")
        parsed = rk.evaluate_runs(d / qrels, runs, measure="Judged@10", names="file", engine="ir_measures")
    pd.testing.assert_frame_equal(M, parsed, check_exact=True)
    judged = ir_measures.parse_measure("Judged@10")
    q = list(ir_measures.read_trec_qrels(str(d / qrels)))
    for path, (system, row) in zip(runs, M.iterrows(), strict=True):
        expected = {
            m.query_id: m.value
            for m in ir_measures.iter_calc([judged], q, ir_measures.read_trec_run(str(path)))
        }
        assert {t: row[t] for t in expected} == expected, system
        assert (row.drop(list(expected)) == 0).all()  # topics absent from the run: 0
    if folder == "trec-dl-2019-passage":  # the pooled runs are judged at 98.8% to 100% of their top 10
        assert M.mean(axis=1).min() >= 0.98


def test_scores_and_judged_fractions_in_one_pass(files):
    """What ``riskeval report --qrels`` reads: the scores and, from the same evaluation, the judged
    fractions, keyed by the measures' names in the scores; a Judged@k asked for stays a score."""
    from riskeval.evaluation.score_inputs import read_score_inputs

    runs = (str(files["a.run"]), str(files["b.run"]))
    read = read_score_inputs(
        runs, str(files["qrels.txt"]), ["ndcg_cut_3", "AP"], names=None, missing=None, judged=True
    )
    assert list(read.matrices) == ["nDCG@3", "AP"]
    assert read.judged is not None and list(read.judged) == ["nDCG@3", "AP"]
    expected = judged_fractions(files["qrels.txt"], list(runs), ["nDCG@3", "AP"])
    for name in ("nDCG@3", "AP"):
        pd.testing.assert_frame_equal(read.judged[name], expected[name], check_exact=True)
    plain = read_score_inputs(runs, str(files["qrels.txt"]), ["ndcg_cut_3"], names=None, missing=None)
    pd.testing.assert_frame_equal(plain.matrices["nDCG@3"], read.matrices["nDCG@3"])
    assert plain.judged is None
    asked = read_score_inputs(
        runs, str(files["qrels.txt"]), ["P@3", "Judged@3"], names=None, missing=None, judged=True
    )
    assert list(asked.matrices) == ["P@3", "Judged@3"]
    assert asked.judged is not None
    pd.testing.assert_frame_equal(asked.judged["P@3"], asked.matrices["Judged@3"])


def test_score_bounds_refuse_judged(files):
    """Judged@k counts the unjudged documents: no completion of the qrels bounds it."""
    from riskeval.evaluation.score_bounds import score_bounds

    with pytest.raises(RiskevalError, match="not for Judged@3"):
        score_bounds(files["qrels.txt"], [files["a.run"]], "Judged@3")
