"""``riskeval evaluate``: the README's command, output shapes, errors as exit 2 without traceback."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import processes
import pytest
from cli_runner import run_cli as call

import riskeval as rk

SRC = Path(__file__).resolve().parents[1] / "src"
QRELS = "1 0 d1 2\n1 0 d2 0\n2 0 d3 1\n2 0 d4 3\n"
RUN_A = "1 Q0 d1 1 3.0 alpha\n1 Q0 d2 2 2.0 alpha\n2 Q0 d3 1 1.0 alpha\n2 Q0 d4 2 0.5 alpha\n"
RUN_B = "1 Q0 d2 1 3.0 beta\n1 Q0 d1 2 2.0 beta\n2 Q0 d4 1 1.0 beta\n"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run.gz").write_bytes(gzip.compress(RUN_B.encode()))
    return tmp_path


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return processes.run(
        [sys.executable, "-m", "riskeval", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def test_readme_command_through_a_shell(workdir):
    """The README's evaluate command, verbatim, through a shell."""
    command = (
        "riskeval evaluate --qrels qrels.txt --measure nDCG@10 --per-topic --format csv a.run b.run.gz "
        "> scores.csv"
    )
    shell = command.replace("riskeval", f"{sys.executable} -m riskeval", 1)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = processes.run(shell, shell=True, cwd=workdir, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    scores = pd.read_csv(workdir / "scores.csv", dtype={"system": str, "topic": str})
    assert list(scores.columns) == ["system", "topic", "measure", "score"]  # one schema, one measure too
    assert (scores["measure"] == "nDCG@10").all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        M = rk.evaluate_runs(workdir / "qrels.txt", [workdir / "a.run", workdir / "b.run.gz"], "nDCG@10")
    back = scores.pivot(index="system", columns="topic", values="score").loc[M.index, M.columns]
    pd.testing.assert_frame_equal(back, M, check_names=False)
    assert "beta lacks" not in done.stderr  # beta has both topics


def test_malformed_run_exits_2_with_file_line_and_no_traceback(workdir):
    (workdir / "bad.run").write_text("1 Q0 d1 1 3.0 x\n1 Q0 d2 two 2,5 x\n2 Q0 d3\n")
    done = run_cli(["evaluate", "--qrels", "qrels.txt", "a.run", "bad.run"], workdir)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "riskeval: error: bad.run:2: field 5 (score) must be a finite number; got '2,5'" in done.stderr
    assert "bad.run:3: expected 6 whitespace-separated fields" in done.stderr


def test_malformed_qrels_exit_2(workdir, capsys):
    (workdir / "q.txt").write_text("1 0 d1 relevant\n")
    code, _, err = call(["evaluate", "--qrels", str(workdir / "q.txt"), str(workdir / "a.run")], capsys)
    assert code == 2 and f"{workdir / 'q.txt'}:1: field 4 (grade) must be an integer" in err


def test_several_measures_names_and_json(workdir, capsys):
    args = [
        "evaluate",
        "--qrels",
        str(workdir / "qrels.txt"),
        "-m",
        "P@1",
        "-m",
        "AP(rel=2)",
        "--name",
        "A",
        "--name",
        "B",
        "--format",
        "json",
        "--per-topic",
        str(workdir / "a.run"),
        str(workdir / "b.run.gz"),
    ]
    code, out, err = call(args, capsys)
    assert code == 0, err
    table = pd.read_json(io.StringIO(out), dtype={"topic": str})
    assert list(table.columns) == ["system", "topic", "measure", "score"]
    assert set(table["system"]) == {"A", "B"} and set(table["measure"]) == {"P@1", "AP(rel=2)"}
    assert table.set_index(["system", "topic", "measure"]).loc[("B", "1", "P@1"), "score"] == 0.0


def test_missing_policy_and_warnings_on_stderr(workdir, capsys):
    (workdir / "c.run").write_text("1 Q0 d1 1 3.0 gamma\n9 Q0 d1 1 3.0 gamma\n")
    base = ["evaluate", "--qrels", str(workdir / "qrels.txt"), "--format", "csv", "--per-topic"]
    code, out, err = call([*base, str(workdir / "a.run"), str(workdir / "c.run")], capsys)
    assert code == 0
    assert "riskeval: warning: " in err and "(system, topic) cell(s)" in err and "scored 0" in err
    assert "riskeval: warning: 1 (run, topic) pair(s) left out" in err
    assert pd.read_csv(io.StringIO(out)).shape == (4, 4)
    code, out, err = call(
        [*base, "--missing", "drop", str(workdir / "a.run"), str(workdir / "c.run")], capsys
    )
    assert code == 0 and pd.read_csv(io.StringIO(out))["topic"].unique().tolist() == [1]
    code, out, err = call(
        [*base, "--missing", "raise", str(workdir / "a.run"), str(workdir / "c.run")], capsys
    )
    assert code == 2 and "riskeval: error: " in err and "(system, topic) cell(s)" in err and "gamma" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--name", "only-one"], "--name was given 1 time(s) for 2 run file(s)"),
        (["--name", "x", "--name", "y", "--name-from", "file"], "either --name"),
        (["--measure", "Ndcg@10"], "did you mean nDCG or NDCG?"),
    ],
)
def test_option_errors_exit_2(workdir, capsys, extra, message):
    args = [
        "evaluate",
        "--qrels",
        str(workdir / "qrels.txt"),
        *extra,
        str(workdir / "a.run"),
        str(workdir / "b.run.gz"),
    ]
    code, _, err = call(args, capsys)
    assert code == 2 and message in err


def test_name_from_file(workdir, capsys):
    (workdir / "a2.run").write_text(RUN_A)  # same tag as a.run
    args = ["evaluate", "--qrels", str(workdir / "qrels.txt"), "--format", "csv"]
    code, _, err = call([*args, str(workdir / "a.run"), str(workdir / "a2.run")], capsys)
    assert code == 2 and "Several runs have the same system name" in err and "--name-from file" in err
    code, out, _ = call(
        [*args, "--name-from", "file", str(workdir / "a.run"), str(workdir / "a2.run")], capsys
    )
    assert code == 0 and pd.read_csv(io.StringIO(out))["system"].unique().tolist() == ["a", "a2"]


def test_help_lists_evaluate(capsys):
    code, out, _ = call(["--help"], capsys)
    assert code == 0 and "evaluate" in out and "Mean or per-topic scores of TREC runs" in out


def test_engine_ir_measures_gives_ir_measures_own_values(workdir, capsys):
    import ir_measures

    files = [str(workdir / "a.run"), str(workdir / "b.run.gz")]
    args = [
        "evaluate",
        "--qrels",
        str(workdir / "qrels.txt"),
        "-m",
        "nDCG@10",
        "-m",
        "RR@10",
        "--format",
        "csv",
        "--per-topic",
    ]
    tables = []
    for engine in ("compiled", "ir_measures"):
        code, out, err = call([*args, "--engine", engine, *files], capsys)
        assert code == 0, err
        tables.append(pd.read_csv(io.StringIO(out), dtype={"topic": str}))
    assert tables[0].equals(tables[1])
    qrels = list(ir_measures.read_trec_qrels(str(workdir / "qrels.txt")))
    measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "RR@10")]
    expected = {
        (system, m.query_id, str(m.measure)): m.value
        for system, path in zip(("alpha", "beta"), files, strict=True)
        for m in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(path))
    }
    got = {(s, t, m): v for s, t, m, v in tables[1].itertuples(index=False, name=None)}
    assert {k: got[k] for k in expected} == expected
    code, _, err = call([*args, "--engine", "trec_eval", *files], capsys)
    assert code == 2 and "--engine" in err
