"""The table commands as one family: several measures in one table (a ``measure`` column), the
rows of chosen systems (``--systems``) from analyses over all systems, LaTeX and Markdown for every
table command, and the text format's human numbers."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import riskeval as rk
from riskeval.cli.main import cli, main
from riskeval.datasets import example_scores

RUNS = {
    "a": "q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d4 1 1.0 a\nq3 Q0 d3 1 1.0 a\n",
    "b": "q1 Q0 d3 1 3.0 b\nq2 Q0 d1 1 2.0 b\nq2 Q0 d4 2 1.0 b\nq3 Q0 d2 1 1.0 b\n",
    "c": "q1 Q0 d2 1 3.0 c\nq1 Q0 d1 2 2.0 c\nq2 Q0 d9 1 1.0 c\nq3 Q0 d2 1 1.0 c\n",
}
QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 2\nq3 0 d2 1\n"


def invoke(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


@pytest.fixture
def runs(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
    return str(tmp_path / "qrels.txt"), [str(tmp_path / f"{n}.run") for n in RUNS]


def test_risk_table_of_a_mapping_or_a_long_table_has_a_measure_column_first(X):
    scores = {"nDCG@10": X, "squared": X**2}
    got = rk.risk_table(scores, baseline="bm25base_p", alphas=[0, 5])
    assert got.columns[0] == "measure" and list(got["measure"].unique()) == ["nDCG@10", "squared"]
    for name, M in scores.items():
        want = rk.risk_table(M, baseline="bm25base_p", alphas=[0, 5])
        part = got[got["measure"] == name].drop(columns="measure").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, want, check_categorical=False)
    long = pd.concat(
        [M.stack().rename("score").reset_index().assign(measure=name) for name, M in scores.items()]
    )
    from_long = rk.risk_table(long, baseline="bm25base_p", alphas=[0, 5])
    pd.testing.assert_frame_equal(from_long, got, check_categorical=False, check_dtype=False)


def test_systems_selects_rows_of_the_analysis_over_every_system(X):
    full = rk.risk_table(X, baseline="mean", alphas=[5], correction="holm")
    some = rk.risk_table(X, baseline="mean", alphas=[5], correction="holm", systems="p_bert,ICT-BERT2")
    assert list(some["system"]) == ["ICT-BERT2", "p_bert"]  # the matrix order
    want = full[full["system"].isin(["p_bert", "ICT-BERT2"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(some, want, check_categorical=False)  # MEAN, ZRisk, ranks, p_adj
    with pytest.raises(rk.RiskevalError, match=r"'p_brt' \(did you mean 'p_bert'"):
        rk.risk_table(X, systems=["p_brt"])


def test_risk_from_runs_with_two_measures_is_one_table(runs):
    qrels, paths = runs
    out = invoke(
        ["risk", "--qrels", qrels, *paths, "-m", "nDCG@10", "-m", "AP(rel=2)", "-a", "0,1", "--format", "csv"]
    )
    got = pd.read_csv(io.StringIO(out))
    assert list(got.columns[:2]) == ["measure", "system"]
    for measure in ("nDCG@10", "AP(rel=2)"):
        want = rk.risk_table(rk.evaluate_runs(qrels, paths, measure), alphas=[0, 1])
        part = got[got["measure"] == measure]
        np.testing.assert_allclose(part["urisk"], want["urisk"], rtol=1e-12)
        np.testing.assert_allclose(part["georisk"], want["georisk"], rtol=1e-12)
    text = invoke(["risk", "--qrels", qrels, *paths, "-m", "nDCG@10", "-m", "AP(rel=2)", "-a", "0"])
    assert text.splitlines()[1].split()[:2] == ["measure", "system"]
    assert "nDCG@10, AP(rel=2)" in text.splitlines()[0]


def test_bias_study_over_two_measures_and_two_alphas(runs):
    qrels, paths = runs
    out = invoke(
        [
            "bias-study",
            "--qrels",
            qrels,
            *paths,
            "-m",
            "P@1",
            "-m",
            "RR",
            "-a",
            "1,5",
            "--show",
            "overview",
            "--format",
            "csv",
        ]
    )
    got = pd.read_csv(io.StringIO(out))
    assert list(got["measure"]) == ["P@1", "P@1", "RR", "RR"] and list(got["alpha"]) == [1, 5, 1, 5]


def test_risk_systems_option_and_text_numbers(X):
    out = invoke(["risk", "--example", "-b", "bm25base_p", "-a", "0,5", "--systems", "p_bert,bm25base_p"])
    lines = out.splitlines()
    assert "(2 shown)" in lines[0]
    rows = [line.split() for line in lines[2:-1]]
    assert [r[0] for r in rows] == ["p_bert", "p_bert"]  # the baseline's own rows are left out...
    assert lines[-1] == "bm25base_p is the baseline: its own rows against itself left out."  # ...once
    assert [r[1] for r in rows] == ["0", "5"]  # α without trailing zeros
    assert rows[0][5] == "3.4e-8" and "0.0000" not in rows[0][5]  # p-value
    assert rows[0][-3:] == ["36", "6", "0"]  # counts as integers
    full = rk.risk_table(X, baseline="bm25base_p", alphas=[0, 5])
    zrisk = full.set_index("system").loc["p_bert", "zrisk"].iloc[1]  # over all systems
    assert f"{zrisk:.3f}" in lines[3]  # with ZRisk's declared 3 decimals


def test_unknown_systems_are_an_error_with_close_matches(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["risk", "--example", "--systems", "p_bert,bm25_base_p"])
    err = capsys.readouterr().err
    assert (
        exit_.value.code == 2 and "'bm25_base_p' (did you mean 'bm25base_p'" in err and "Traceback" not in err
    )


@pytest.fixture
def variations(tmp_path):
    rng = np.random.default_rng(3)
    rows = [
        (s, t, v, round(float(rng.random()), 2))
        for s in ("sysA", "sys_B", "sysC")
        for t in ("1", "2", "3")
        for v in ("pivot", "most", "least")
    ]
    path = tmp_path / "variations.csv"
    pd.DataFrame(rows, columns=["system", "topic", "variant", "score"]).to_csv(path, index=False)
    return str(path)


COMMANDS = [
    ["risk", "--example", "-b", "bm25base_p", "-a", "0,5"],
    ["risk", "--example", "--topics", "p_bert", "-a", "5"],
    ["bias-study", "--example"],
    ["baseline-rankings", "--example"],
    ["baseline-correlation", "--example", "-b", "bm25base_p"],
    ["compare-runs", "--example", "--runs", "p_bert,bm25base_p"],
    ["risk-reward", "--example"],
    ["pca-topics", "--example"],
    ["chisq", "--example", "--systems", "p_bert"],
    ["risk-ranks", "--example", "-a", "5"],
    ["bias-variance", "--example"],
    ["evaluate", "--qrels", "{qrels}", "{run}"],
    ["mean-variance", "{variations}", "-a", "0,1"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_table_command_writes_latex_and_markdown(args, runs, variations):
    qrels, paths = runs
    args = [a.format(qrels=qrels, run=paths[0], variations=variations) for a in args]
    latex = invoke([*args, "--format", "latex"])
    lines = latex.splitlines()
    assert lines[0] == r"\begin{table}" and lines[-1] == r"\end{table}"
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert "_" not in latex.replace(r"\_", "")  # every underscore of a name or column escaped
    markdown = invoke([*args, "--format", "markdown"])
    table = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert len(table) >= 3 and set(table[1].replace(" ", "")) <= set("|:-")
    assert len({line.count(" | ") - line.count(r"\|") for line in table}) == 1  # aligned columns


@pytest.mark.parametrize(
    "files, args, message",
    [
        ({"g.txt": "hello there world\n"}, [], "g.txt:1: is not a score table"),
        ({"i.txt": "q1\tAP\t0.5\nq2\tAP\t1_0\n"}, [], "i.txt:2: value '1_0' of measure 'AP' is not a number"),
        ({"t.dat": "map\tq1\t0.5\n", "i.txt": "q1\tAP\t0.5\n"}, [], "one tool at a time"),
        ({"t.dat": "map\tq1\t0.5\nmap\tq2\t0.1\n"}, ["-m", "P@10"], "t.dat:1: measure 'P@10' is not there"),
        ({"i.txt": "q1\tAP\t0.5\nq1\tAP\t0.7\n"}, [], "i.txt:2: duplicate (system, topic)"),
        ({"j.txt": '{"query_id": "q1", "value": 1}\n'}, [], "j.txt:1: expected a JSON object with query_id"),
    ],
)
def test_bad_per_query_files_exit_2_naming_file_and_line(files, args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(SystemExit) as exit_:
        main(["risk", *files, *args])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err


def test_bias_table_over_measures_alphas_and_chosen_systems(X):
    from riskeval.analysis.bias_tables import bias_overview, bias_ranks

    small = X.iloc[:8, :20]
    scores = {"nDCG@10": small, "squared": small**2}
    overview = rk.analysis.bias_table(scores, [1, 5], show="overview")
    assert list(overview.columns[:2]) == ["measure", "alpha"] and len(overview) == 4
    want = bias_overview(rk.bias_study(small**2, 5.0))
    assert overview.iloc[3]["friedman_statistic"] == pytest.approx(want["friedman_statistic"].iloc[0])
    some = small.index[[1, 4]].tolist()
    ranks = rk.analysis.bias_table(small, 1, show="ranks", systems=some)
    assert set(ranks["system"]) == set(some)
    full = bias_ranks(rk.bias_study(small, 1.0)).reset_index()
    pd.testing.assert_frame_equal(ranks, full[full["system"].isin(some)].reset_index(drop=True))


def test_risk_columns_choose_and_order_in_every_format():
    args = ["risk", "--example", "-b", "bm25base_p", "--alpha", "5", "--systems", "p_bert,runid3"]
    text = invoke([*args, "--columns", "urisk,system"])
    assert re.search(r"^ *urisk +system$", text, re.MULTILINE)
    csv = pd.read_csv(io.StringIO(invoke([*args, "--columns", "system,pvalue", "--format", "csv"])))
    assert list(csv.columns) == ["system", "pvalue"] and list(csv["system"]) == ["p_bert", "runid3"]
    every = pd.read_csv(io.StringIO(invoke([*args, "--columns", "all", "--format", "csv"])))
    full = rk.risk_table(example_scores(), "bm25base_p", alphas=[5], systems=["p_bert", "runid3"])
    assert list(every.columns) == list(full.columns)
    markdown = invoke([*args, "--columns", "all", "--format", "markdown"])
    assert "se\\_method" in markdown


def test_an_unknown_column_is_a_usage_error_listing_the_columns(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["risk", "--example", "--columns", "system,p_value"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert "'--columns' option of riskeval risk names 'p_value'" in err and "pvalue, significant" in err


def test_the_default_columns_of_the_command_line_and_of_to_latex_are_the_same():
    args = [
        "risk",
        "--example",
        "-b",
        "bm25base_p",
        "--alpha",
        "0,5",
        "--correction",
        "holm",
        "--format",
        "latex",
    ]
    header = next(line for line in invoke(args).splitlines() if line.startswith("system"))
    table = rk.risk_table(example_scores(), "bm25base_p", alphas=[0, 5], correction="holm")
    assert header == next(line for line in rk.to_latex(table).splitlines() if line.startswith("system"))


def test_the_bootstrap_interval_is_on_screen():
    args = ["risk", "--example", "-b", "bm25base_p", "--alpha", "5", "--test", "bootstrap", "--seed", "3"]
    args += ["--n-resamples", "400", "--systems", "p_bert,runid3"]
    csv = pd.read_csv(io.StringIO(invoke([*args, "--format", "csv"]))).set_index("system")
    text = invoke(args)
    assert "low, high: the BCa 95% interval of URisk" in text
    header = next(line for line in text.splitlines() if line.lstrip().startswith("system"))
    assert header.split()[5:8] == ["pvalue", "low", "high"]
    for system in ("p_bert", "runid3"):
        line = next(x for x in text.splitlines() if x.startswith(system))
        assert f"{csv.loc[system, 'low']:.4f} {csv.loc[system, 'high']:.4f}" in " ".join(line.split())
