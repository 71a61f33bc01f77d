"""trec_eval -q output: hand-made files and the official CLEF eHealth 2015 Task 2 evaluations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from shared_data import shared_data

import riskeval as rk
from riskeval.errors import InputFormatError, MissingTopicsWarning


@pytest.fixture(scope="module")
def clef_evals() -> Path:
    """The CLEF eHealth 2015 Task 2 per-topic trec_eval outputs of the shared campaign data."""
    return shared_data("clef-ehealth-2015-task2", "pertopic-evals")


def values_in_text(path: Path, measure: str) -> dict[str, float]:
    """Per-topic values read straight from the file text, independently of riskeval."""
    pattern = re.compile(rf"^{re.escape(measure)}\s+(\S+)\s+(\S+)\s*$", re.MULTILINE)
    return {t: float(v) for t, v in pattern.findall(path.read_text()) if t != "all"}


@pytest.mark.parametrize("measure", ["P_10", "map", "recip_rank"])
def test_clef_files_match_their_text(clef_evals, measure):
    paths = [clef_evals / "CUNI_EN_Run.1.dat", clef_evals / "KISTI_EN_RUN.1.dat"]
    matrix = rk.io.read_trec_eval(paths, measure, names="file")
    assert list(matrix.index) == ["CUNI_EN_Run.1", "KISTI_EN_RUN.1"]  # named as the runs were
    assert matrix.shape == (2, 66)  # 67 queries, 66 evaluated
    assert "all" not in matrix.columns
    for path in paths:
        assert matrix.loc[path.stem].to_dict() == values_in_text(path, measure)


def test_clef_values_spot_checked(clef_evals):
    # lines 20 and 4 of CUNI_EN_Run.1.dat: "P_10  qtest.1  0.1000", "map  qtest.1  0.0900"
    matrix = rk.score_matrix([clef_evals / "CUNI_EN_Run.1.dat"], measure="P@10")
    assert list(matrix.index) == ["DirichletLM"]  # from the runid line
    assert matrix.loc["DirichletLM", "qtest.1"] == 0.1
    assert rk.score_matrix([clef_evals / "CUNI_EN_Run.1.dat"], measure="AP").iloc[0, 0] == 0.09


def test_clef_shared_runids_ask_for_file_names(clef_evals):
    paths = [clef_evals / "CUNI_EN_Run.1.dat", clef_evals / "CUNI_EN_Run.10.dat"]
    with pytest.raises(InputFormatError) as info:
        rk.score_matrix(paths, measure="map")
    ((location, message),) = info.value.problems
    assert location == f"{paths[0]}:1783"
    assert message.startswith(
        f"system name 'DirichletLM' is given to 2 outputs: {paths[0]}:1783 (runid line), "
        f"{paths[1]}:1783 (runid line)."
    )
    assert "pass names='file'" in message
    assert len(rk.score_matrix(paths, measure="map", names="file")) == 2
    named = rk.score_matrix(paths, measure="map", names=["dlm-1", "dlm-10"])
    assert list(named.index) == ["dlm-1", "dlm-10"]


def test_clef_ndcg_files_without_runid_take_the_file_name(clef_evals):
    paths = sorted(clef_evals.glob("CUNI_EN_Run.*.dat.ndcg"))[:3]
    matrix = rk.io.read_trec_eval(paths, "nDCG@10")  # the ir_measures name of ndcg_cut_10
    assert list(matrix.index) == [p.name for p in paths]
    for path in paths:
        assert matrix.loc[path.name].to_dict() == values_in_text(path, "ndcg_cut_10")


@pytest.mark.slow
def test_all_clef_runs(clef_evals):
    paths = sorted(clef_evals.glob("*.dat"))
    matrix = rk.io.read_trec_eval(paths, "P_10", names="file")
    assert matrix.shape == (110, 66)
    for path in paths:
        assert matrix.loc[path.stem].to_dict() == values_in_text(path, "P_10")


TWO_SYSTEMS = """\
map                   \tq1\t0.5000
P_10                  \tq1\t0.4000
map                   \tq2\t0.2500
P_10                  \tq2\t0.3000
runid                 \tall\tbm25
num_q                 \tall\t2
map                   \tall\t0.3750
P_10                  \tall\t0.3500
map                   \tq1\t0.1000
P_10                  \tq1\t0.2000
map                   \tq2\t0.0625
P_10                  \tq2\t0.1000
runid                 \tall\tdph
map                   \tall\t0.0813
"""


def test_several_systems_in_one_file(tmp_path):
    path = tmp_path / "all.eval"
    path.write_text(TWO_SYSTEMS)
    matrix = rk.io.read_trec_eval(path, "map")
    assert matrix.to_dict("index") == {
        "bm25": {"q1": 0.5, "q2": 0.25},
        "dph": {"q1": 0.1, "q2": 0.0625},
    }
    assert rk.score_matrix(path, format="trec_eval", measure="P_10").loc["dph", "q1"] == 0.2
    renamed = rk.io.read_trec_eval(path, "map", names=["a", "b"])
    assert list(renamed.index) == ["a", "b"]


def test_runid_with_spaces_and_files_of_one_system_each(tmp_path):
    one = tmp_path / "one.eval"
    one.write_text("map\tq1\t0.5\nmap\tq2\t0.1\nrunid\tall\tmy run 1\n")
    two = tmp_path / "two.eval"
    two.write_text("map\tq2\t0.2\nmap\tq1\t0.3\nrunid\tall\tother\nmap\tall\t0.25\n")
    matrix = rk.io.read_trec_eval([one, two], "map")
    assert list(matrix.index) == ["my run 1", "other"]
    assert list(matrix.columns) == ["q1", "q2"]  # order of first appearance
    assert matrix.loc["other"].tolist() == [0.3, 0.2]


def test_trec_eval_missing_topics_follow_the_policy(tmp_path):
    # trec_eval -q omits topics a run retrieved nothing for
    path = tmp_path / "runs.eval"
    path.write_text("map\tq1\t0.5\nmap\tq2\t0.1\nrunid\tall\ta\nmap\tq1\t0.3\nrunid\tall\tb\n")
    with pytest.raises(rk.errors.MissingTopicsError, match=f"{path}: 1 of 4 .*topic 'q2' has no score"):
        rk.io.read_trec_eval(path, "map")
    with pytest.warns(MissingTopicsWarning, match="1 of 4"):
        assert rk.io.read_trec_eval(path, "map", missing="zero").loc["b", "q2"] == 0.0
