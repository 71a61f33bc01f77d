"""Baselines on the command line as trec_eval, ir_measures and PyTerrier users expect: files named
by one rule, ``-b`` checked in the option's words with close matches, and the default baseline (the
first of two systems, as ``pt.Experiment``; MEAN with a warning for more)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from cli_runner import run_cli as call

import riskeval as rk
from riskeval.datasets import example_scores
from riskeval.io.system_names import system_name_from_file


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("runs/bm25.run.gz", "bm25"),
        ("bm25.run", "bm25"),
        ("p_bm25.eval", "p_bm25"),
        ("CUNI_EN_Run.1.dat", "CUNI_EN_Run.1"),
        ("dense.tsv", "dense"),
        ("dense.jsonl", "dense"),
        ("input.bm25base_p.gz", "input.bm25base_p"),  # an extension not in the list is the name's
        ("bm25.rm3", "bm25.rm3"),
        (".run", ".run"),  # nothing would be left
    ],
)
def test_one_rule_names_systems_from_file_names(path, name):
    assert system_name_from_file(path) == name


RUN = "1 Q0 d1 1 3.0 {tag}\n1 Q0 d2 2 2.0 {tag}\n2 Q0 d3 1 1.0 {tag}\n2 Q0 d4 2 0.5 {tag}\n"
QRELS = "1 0 d1 2\n1 0 d2 0\n2 0 d3 1\n2 0 d4 3\n"


def test_a_run_and_its_q_files_name_the_same_system(tmp_path):
    """``evaluate --name-from file`` on bm25.run, trec_eval's -q output bm25.eval (no runid line) and
    ir_measures' -q output bm25.tsv all name the system ``bm25``."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "bm25.run").write_text(RUN.format(tag="x"))
    from_run = rk.evaluate_runs(tmp_path / "qrels.txt", [tmp_path / "bm25.run"], "P@1", names="file")
    (tmp_path / "bm25.eval").write_text("P_1\t1\t1.0000\nP_1\t2\t1.0000\nP_1\tall\t1.0000\n")
    (tmp_path / "dense.tsv").write_text("1\tP@1\t1.0\n2\tP@1\t0.0\n")
    trec_eval = rk.io.read_trec_eval(tmp_path / "bm25.eval", "P@1")
    (tmp_path / "bm25.tsv").write_text("1\tP@1\t1.0\n2\tP@1\t1.0\n")
    ir_measures = rk.io.score_matrices([tmp_path / "bm25.tsv", tmp_path / "dense.tsv"], ["P@1"])["P@1"]
    assert from_run.index.tolist() == trec_eval.index.tolist() == ["bm25"]
    assert ir_measures.index.tolist() == ["bm25", "dense"]
    assert (from_run.loc["bm25"] == trec_eval.loc["bm25"]).all()


def test_two_systems_without_b_take_the_first_as_the_baseline(tmp_path, capsys):
    X = example_scores().loc[["p_bert", "bm25base_p"]]
    X.to_csv(tmp_path / "two.csv")
    code, out, err = call(["risk", tmp_path / "two.csv", "-a", "0,5", "--format", "csv"], capsys)
    assert code == 0, err
    assert err == ""  # no warning: the rule of pt.Experiment
    got = pd.read_csv(io.StringIO(out))
    want = rk.risk_table(X, baseline="p_bert", alphas=[0, 5])
    assert (got["baseline"] == "p_bert").all()
    pd.testing.assert_series_equal(got["urisk"], want["urisk"], check_exact=False, rtol=1e-12)
    code, out, _ = call(["risk", tmp_path / "two.csv", "-b", "mean", "--format", "csv"], capsys)
    assert code == 0 and (pd.read_csv(io.StringIO(out))["baseline"] == "MEAN").all()  # MEAN on request


def test_more_systems_without_b_take_mean_and_say_so(tmp_path, capsys):
    rk.example_scores().rename_axis("system").to_csv(tmp_path / "scores.csv")
    code, out, err = call(["risk", tmp_path / "scores.csv", "-a", "5"], capsys)
    assert code == 0 and "baseline MEAN" in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("riskeval: warning: no -b/--baseline given: 37 systems")
    assert "-b NAME" in lines[0] and "-b mean" in lines[0]
    code, out, err = call(["risk", tmp_path / "scores.csv", "-a", "5", "-b", "mean"], capsys)
    assert code == 0 and "baseline MEAN" in out and err == ""


def test_the_example_names_its_mean_baseline_without_a_warning(capsys):
    """The README's first commands: the shipped example's table says its baseline, MEAN, in its
    caption, and stderr stays empty."""
    code, out, err = call(["risk", "--example", "-a", "5"], capsys)
    assert code == 0 and "baseline MEAN" in out.splitlines()[0] and err == ""


def test_unknown_b_is_an_error_in_cli_words_with_close_matches(capsys):
    code, out, err = call(["risk", "--example", "-b", "bm25_base_p"], capsys)
    assert code == 2 and out == ""
    assert err.startswith(
        "riskeval: error: The '-b/--baseline' option must be a run name, mean, median or max; "
        "'bm25_base_p' is none of them. Did you mean 'bm25base_p' or"
    )
    assert "risk_table" not in err and "per-topic vector" not in err and "Traceback" not in err
    code, _, err = call(["report", "--example", "-b", "MEAN", "-o", "r.html"], capsys)
    assert code == 2 and "Did you mean 'mean'?" in err


def test_unknown_baseline_in_python_names_close_matches():
    with pytest.raises(rk.RiskevalError, match=r"'bm25_base_p'\. Did you mean 'bm25base_p' or "):
        rk.risk_table(example_scores(), baseline="bm25_base_p")
