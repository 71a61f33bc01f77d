"""Every table of the command line sorts (``--sort COLUMN[:asc|:desc]``), keeps the first rows of
each measure and α (``--top N``) and writes to a file (``-o``); ``riskeval compare`` prints the table
of ``rk.compare``; names typed on the command line get "did you mean"; p-values in sentences read
``p < 1e-300``."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.cli.main import COMMANDS
from riskeval.formatting import p_equals
from riskeval.reporting.table_output import sort_rows


def csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out))


def test_risk_sorts_within_each_alpha_best_first_and_keeps_the_top(capsys):
    args = ["risk", "--example", "-b", "bm25base_p", "-a", "0,5", "--format", "csv"]
    code, out, err = run_cli([*args, "--sort", "urisk", "--top", "3"], capsys)
    assert code == 0 and err == ""
    got = csv(out)
    full = rk.risk_table(rk.example_scores(), baseline="bm25base_p", alphas=[0, 5])
    for alpha in (0, 5):
        rows = full[(full["alpha"] == alpha) & (full["system"] != "bm25base_p")]
        want = rows.sort_values("urisk", ascending=False, kind="stable")["system"].head(3).tolist()
        assert got.loc[got["alpha"] == alpha, "system"].tolist() == want
    assert got["alpha"].tolist() == [0, 0, 0, 5, 5, 5]  # the α groups in their order
    code, out, _ = run_cli([*args, "--sort", "URisk:asc", "--top", "1"], capsys)  # header, order
    assert code == 0 and csv(out)["system"].tolist() == ["UNH_exDL_bm25"] * 2


def test_sort_by_a_lower_is_better_column_puts_the_fewest_first(capsys):
    code, out, _ = run_cli(
        ["risk", "--example", "-b", "bm25base_p", "-a", "5", "--sort", "losses", "--format", "csv"], capsys
    )
    losses = csv(out).query("system != 'bm25base_p'")["losses"].to_numpy()
    assert code == 0 and (np.diff(losses) >= 0).all()
    assert csv(out)["system"].iloc[-1] == "bm25base_p"  # its own row last, without --top


def test_the_caption_says_the_order(capsys):
    code, out, _ = run_cli(["risk", "--example", "-a", "5", "--sort", "georisk", "--top", "2"], capsys)
    assert code == 0
    assert "; sorted by georisk (best first); the first 2 rows of each alpha" in out.splitlines()[0]
    assert len(out.strip().splitlines()) == 4  # caption, header, two rows


def test_an_unknown_sort_column_is_an_error_with_close_matches(capsys):
    code, out, err = run_cli(["risk", "--example", "--sort", "uriskk"], capsys)
    assert code == 2 and out == ""
    assert "The '--sort' option of riskeval risk names the column 'uriskk'" in err
    assert "Did you mean 'urisk'" in err and "Traceback" not in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_table_command_takes_sort_top_and_output(command, capsys):
    code, out, _ = run_cli([command, "--help"] if command != "ltr" else ["ltr", "--help"], capsys)
    assert code == 0
    if command in ("report", "ltr"):  # a page; LTR's subcommands
        return
    for option in ("--sort", "--top", "-o, --output"):
        assert option in out, (command, option)


@pytest.mark.parametrize("command", ["evaluate", "risk"])
def test_evaluate_and_risk_write_their_table_to_o(command, tmp_path, capsys):
    if command == "evaluate":
        (tmp_path / "q.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
        (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d1 1 1.0 a\n")
        (tmp_path / "b.run").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n2 Q0 d1 1 1.0 b\n")
        args = ["evaluate", "--qrels", tmp_path / "q.txt", tmp_path / "a.run", tmp_path / "b.run"]
    else:
        args = ["risk", "--example", "-a", "5"]
    target = tmp_path / "table.csv"
    code, out, err = run_cli([*args, "--format", "csv", "--sort", "system:desc", "-o", target], capsys)
    assert code == 0 and out == "" and err == ""
    code, printed, _ = run_cli([*args, "--format", "csv", "--sort", "system:desc"], capsys)
    assert target.read_text() == printed
    assert csv(printed)["system"].is_monotonic_decreasing


def test_compare_prints_the_table_of_rk_compare_in_every_format(capsys):
    X = rk.example_scores()
    want = rk.compare(X, "bm25base_p", measures="nDCG@10", risk="URisk@5")
    args = ["compare", "--example", "-b", "bm25base_p", "--risk", "URisk@5"]
    code, out, err = run_cli([*args, "--format", "latex"], capsys)
    assert code == 0 and err == "" and out == want.to_latex()
    code, out, _ = run_cli([*args, "--format", "markdown"], capsys)
    assert code == 0 and out == want.to_markdown()
    code, out, _ = run_cli([*args], capsys)
    assert code == 0 and out == str(want)
    code, out, _ = run_cli([*args, "--format", "csv"], capsys)
    got = csv(out).set_index("system")
    frame = want.to_frame()
    assert list(got.index) == list(frame.index)
    np.testing.assert_allclose(got["URisk@5"], frame["URisk@5"], rtol=1e-12)
    assert got["nDCG@10 better than"].fillna("").tolist() == frame["nDCG@10 better than"].tolist()


def test_compare_sorted_keeps_each_systems_letter_and_cuts_to_the_top(capsys):
    args = [
        "compare",
        "--example",
        "-b",
        "bm25base_p",
        "--risk",
        "URisk@5",
        "--sort",
        "nDCG@10",
        "--top",
        "3",
    ]
    code, out, _ = run_cli([*args, "--format", "csv"], capsys)
    got = csv(out)
    full = rk.compare(rk.example_scores(), "bm25base_p", measures="nDCG@10", risk="URisk@5").to_frame()
    best = full.sort_values("nDCG@10", ascending=False, kind="stable").head(3)
    assert code == 0 and got["system"].tolist() == best.index.tolist()
    assert got["label"].astype(str).tolist() == best["label"].astype(str).tolist()
    code, out, _ = run_cli([*args, "--format", "latex"], capsys)
    body = [line for line in out.splitlines() if line.endswith(r"\\") and "&" in line][1:]  # rows
    assert code == 0 and len(body) == 3
    assert [line.split(" & ")[1] for line in body] == [n.replace("_", r"\_") for n in best.index]


def test_topics_names_close_systems(capsys):
    code, out, err = run_cli(["risk", "--example", "--topics", "p_bertt"], capsys)
    assert code == 2 and out == ""
    assert "--topics names unknown system(s): 'p_bertt' (did you mean 'p_bert'" in err


def test_a_p_value_that_underflowed_reads_as_a_bound():
    assert p_equals(0.0) == "p < 1e-300"
    assert p_equals(0.0123) == "p = 0.0123" and p_equals(2.1e-11) == "p = 2.1e-11"


def test_chisq_caption_prints_the_bound_not_an_equals_sign(capsys):
    code, out, _ = run_cli(["chisq", "--example"], capsys)
    assert code == 0 and "p = <" not in out
    assert re.search(r"G² = [0-9.]+, df = \d+, p (<|=) ", out)


def test_sort_rows_keeps_groups_in_order_and_missing_values_last():
    frame = pd.DataFrame(
        {"alpha": [5, 5, 5, 0, 0], "system": list("abcab"), "urisk": [0.1, np.nan, 0.3, -1.0, 2.0]}
    )
    got = sort_rows(frame, "urisk")
    assert got["alpha"].tolist() == [5, 5, 5, 0, 0]
    assert got["system"].tolist() == ["c", "a", "b", "b", "a"]
    assert sort_rows(frame, "urisk:asc", 1)["system"].tolist() == ["a", "a"]
    assert sort_rows(frame, "alpha")["alpha"].tolist() == [0, 0, 5, 5, 5]  # the group column itself


@pytest.mark.parametrize(
    "args, named",
    [
        (["risk", "--example", "--columns", "system,uriskk"], "'uriskk' (did you mean 'urisk'"),
        (["compare-runs", "--example", "--runs", "p_bertt,bm25base_p"], "'p_bertt' (did you mean 'p_bert'"),
        (["report", "--example", "--systems", "p_bertt", "-o", "r.html"], "'p_bertt' (did you mean 'p_bert'"),
        (["compare", "--example", "-b", "bm25bas"], "Did you mean 'bm25base_p'"),
        (["risk", "--example", "--systems", "p_bertt"], "'p_bertt' (did you mean 'p_bert'"),
    ],
)
def test_every_name_typed_gets_close_matches(args, named, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert named in err
    assert not (tmp_path / "r.html").exists()
