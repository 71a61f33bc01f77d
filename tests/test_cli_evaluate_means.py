"""``riskeval evaluate`` as a drop-in for trec_eval and ir_measures: each system's means by default
(equal to ``ir_measures.calc_aggregate``), ``--per-topic`` for the rows, one long csv schema, the
pipeline into ``riskeval risk -``, and qrels that judge no topic of the runs refused."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import processes
import pytest
from cli_runner import run_cli as call
from shared_data import shared_data

SRC = Path(__file__).resolve().parents[1] / "src"
QRELS = "1 0 d1 2\n1 0 d2 0\n2 0 d3 1\n2 0 d4 3\n"
RUN_A = "1 Q0 d1 1 3.0 alpha\n1 Q0 d2 2 2.0 alpha\n2 Q0 d3 1 1.0 alpha\n2 Q0 d4 2 0.5 alpha\n"
RUN_B = "1 Q0 d2 1 3.0 beta\n1 Q0 d1 2 2.0 beta\n2 Q0 d4 1 1.0 beta\n"
RUN_C = "1 Q0 d1 1 3.0 gamma\n2 Q0 d4 1 1.0 gamma\n2 Q0 d3 2 0.5 gamma\n"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    for name, text in (("a.run", RUN_A), ("b.run", RUN_B), ("c.run", RUN_C)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_default_is_a_mean_per_system_and_measure(workdir, capsys):
    args = ["evaluate", "--qrels", workdir / "qrels.txt", "-m", "P@1", "-m", "AP"]
    runs = [workdir / "a.run", workdir / "b.run"]
    code, out, err = call([*args, *runs], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert "Mean over 2 topic(s)" in lines[0] and "--per-topic" in lines[0]
    assert lines[1].split() == ["system", "P@1", "AP"]  # one row per system, one column per measure
    assert lines[2].split() == ["alpha", "1.0000", "1.0000"]
    # beta: P@1 (0 + 1) / 2; AP topic 1: d1 at rank 2, 1/2; topic 2: d4 at rank 1, d3 not retrieved, 1/2
    assert lines[3].split() == ["beta", "0.5000", "0.5000"]
    code, out, _ = call([*args, "--format", "csv", *runs], capsys)
    means = pd.read_csv(io.StringIO(out))
    assert list(means.columns) == ["system", "measure", "score"]
    per_topic = pd.read_csv(io.StringIO(call([*args, "--format", "csv", "--per-topic", *runs], capsys)[1]))
    want = per_topic.groupby(["system", "measure"], sort=False)["score"].mean().reset_index()
    pd.testing.assert_frame_equal(means, want)


def test_one_csv_schema_whatever_the_number_of_measures(workdir, capsys):
    base = ["evaluate", "--qrels", workdir / "qrels.txt", "--format", "csv", workdir / "a.run"]
    for measures in (["-m", "P@1"], ["-m", "P@1", "-m", "AP"]):
        rows = pd.read_csv(io.StringIO(call([*base, "--per-topic", *measures], capsys)[1]))
        assert list(rows.columns) == ["system", "topic", "measure", "score"]
        means = pd.read_csv(io.StringIO(call([*base, *measures], capsys)[1]))
        assert list(means.columns) == ["system", "measure", "score"]


@pytest.mark.slow  # evaluates three TREC DL 2020 runs twice
def test_means_equal_ir_measures_calc_aggregate_on_trec_dl():
    """ir_measures' aggregate of nDCG@10, AP(rel=2) and RR(rel=2)@10 of three TREC DL 2020 runs,
    which retrieve for every judged topic (so trec_eval -c changes nothing)."""
    import ir_measures

    root = shared_data("trec-dl-2020-passage")
    qrels = root / "qrels.dl20-passage.txt"
    runs = [root / "runs-top100" / f"input.{name}.gz" for name in ("1", "CoRT-bm25", "DoRA_Med")]
    measures = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10"]
    done = _riskeval(
        ["evaluate", "--qrels", str(qrels), *(a for m in measures for a in ("-m", m))]
        + ["--format", "csv", "--name-from", "file", *map(str, runs)],
        Path.cwd(),
    )
    assert done.returncode == 0, done.stderr
    got = pd.read_csv(io.StringIO(done.stdout)).set_index(["system", "measure"])["score"]
    parsed = [ir_measures.parse_measure(m) for m in measures]
    for run in runs:
        want = ir_measures.calc_aggregate(
            parsed, ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run))
        )
        for measure in parsed:
            assert got[(run.name.removesuffix(".gz"), str(measure))] == pytest.approx(
                want[measure], abs=1e-12
            )


def _riskeval(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return processes.run(
        [sys.executable, "-m", "riskeval", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow  # two command lines in subprocesses, piped
def test_per_topic_csv_pipes_into_risk(workdir):
    """The documented pipeline ``riskeval evaluate --per-topic --format csv ... | riskeval risk -``
    gives the risk table of the same scores read from a file."""
    rows = _riskeval(
        ["evaluate", "--qrels", "qrels.txt", "--per-topic", "--format", "csv", "a.run", "b.run", "c.run"],
        workdir,
    )
    assert rows.returncode == 0, rows.stderr
    (workdir / "scores.csv").write_text(rows.stdout)
    args = ["-b", "alpha", "-a", "0,5", "--format", "csv"]
    piped = _riskeval(["risk", "-", *args], workdir, stdin=rows.stdout)
    assert piped.returncode == 0, piped.stderr
    from_file = _riskeval(["risk", "scores.csv", *args], workdir)
    assert piped.stdout == from_file.stdout and "beta" in piped.stdout
    shown = _riskeval(["risk", "-", "-b", "alpha", "-a", "5"], workdir, stdin=rows.stdout)
    assert "from standard input, nDCG@10; baseline alpha" in shown.stdout.splitlines()[0]


def test_qrels_sharing_no_topic_with_the_runs_are_an_error(workdir, capsys):
    (workdir / "other.txt").write_text("301 0 d1 1\n302 0 d2 1\n")
    for command in ("evaluate", "risk"):
        code, out, err = call(
            [command, "--qrels", workdir / "other.txt", workdir / "a.run", workdir / "b.run"], capsys
        )
        assert code == 2 and out == ""
        assert f"No topic of the run(s) {workdir / 'a.run'}, {workdir / 'b.run'} is judged in " in err
        assert f"{workdir / 'other.txt'}: the qrels judge topics 301, 302; the runs rank topics 1, 2" in err
