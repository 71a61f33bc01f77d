"""``riskeval risk`` and ``riskeval bias-study`` on the shipped example; csv/json parse back to the
library's numbers; bad input exits with status 2 and a ``file:line`` message, never a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as run

import riskeval as rk
from riskeval.datasets import example_scores

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


def test_example_has_the_documented_shape(X):
    # 37 official TREC DL 2019 passage runs × 43 judged topics, nDCG@10 in [0, 1].
    assert X.shape == (37, 43)
    assert X.index.name == "system" and X.columns.name == "topic"
    assert ((X >= 0) & (X <= 1)).all().all()


def test_risk_table_human_shows_the_compact_columns(capsys):
    code, out, err = run(["risk", "--example"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert "37 systems × 43 topics" in lines[0] and "baseline MEAN" in lines[0]
    assert lines[1].split() == [
        "system",
        "alpha",
        "mean",
        "urisk",
        "trisk",
        "pvalue",
        "significant",
        "tstar",
        "zrisk",
        "georisk",
        "wins",
        "losses",
        "loss20",
    ]
    assert len(lines) == 2 + 37 * 4  # header, column names, one row per (system, α)


def test_risk_csv_parses_back_to_risk_table(X, capsys):
    code, out, _ = run(["risk", "--example", "--alpha", "0,1", "-a", "5", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    want = rk.risk_table(X, baseline="mean", alphas=[0, 1, 5])
    assert list(got.columns) == list(want.columns)
    assert sorted(got["alpha"].unique()) == [0.0, 1.0, 5.0]
    for col in ("urisk", "trisk", "pvalue", "tstar", "zrisk", "georisk"):
        np.testing.assert_allclose(got[col], want[col], rtol=1e-12)
    assert (got["significant"] == want["significant"]).all()


def test_risk_json_with_a_named_baseline_and_correction(X, capsys):
    code, out, _ = run(
        [
            "risk",
            "--example",
            "-b",
            "p_bert",
            "-a",
            "1",
            "--correction",
            "holm",
            "--level",
            "0.1",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    got = pd.DataFrame(json.loads(out))
    want = rk.risk_table(X, baseline="p_bert", alphas=[1], correction="holm", level=0.1)
    np.testing.assert_allclose(got["pvalue_adj"].astype(float), want["pvalue_adj"], rtol=1e-12)
    itself = got.set_index("system").loc["p_bert"]
    assert itself["urisk"] == 0 and itself["reason"] == "the system is the baseline"


def test_risk_topics_is_topic_risk_of_one_system(X, capsys):
    code, out, _ = run(["risk", "--example", "--topics", "p_bert", "-a", "5", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out), dtype={"topic": str})
    want = rk.topic_risk(X.loc["p_bert"], rk.analysis.baseline(X, "mean"), alpha=5)
    assert (got["system"] == "p_bert").all() and (got["baseline"] == "MEAN").all()
    # worst first: the rows of topic_risk ordered by x
    want = want.sort_values("x", kind="stable")
    assert got["topic"].tolist() == want.index.tolist()
    for col in ("delta", "x", "tr", "tj", "pvalue", "significant"):
        np.testing.assert_allclose(got[col], want[col], rtol=1e-12)


def test_risk_topics_leave_one_out_uses_the_system_own_baseline(X, capsys):
    code, out, _ = run(
        ["risk", "--example", "--topics", "p_bert", "-a", "0", "--leave-one-out", "--format", "csv"], capsys
    )
    assert code == 0
    got = pd.read_csv(io.StringIO(out), dtype={"topic": str})
    others = X.drop(index="p_bert").mean(axis=0)
    np.testing.assert_allclose(got["baseline_score"], others.loc[got["topic"]].to_numpy(), rtol=1e-12)


def test_bias_study_summary(X, capsys):
    code, out, err = run(["bias-study", "--example"], capsys)
    assert code == 0, err
    study = rk.bias_study(X, 1.0)
    assert f"chi² = {study.friedman.statistic:.2f}" in out
    assert f"PC1 {study.pca.explained.iloc[0]:.1f}%" in out
    rows = out.splitlines()[3:]  # caption, Friedman test and PCA, column names
    assert len(rows) == 37 + 3  # the systems and the MEAN, MEDIAN, MAX virtual runs


def test_bias_study_ranks_csv_parses_back(X, capsys):
    code, out, _ = run(["bias-study", "--example", "-a", "5", "--show", "ranks", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out)).set_index(["baseline", "system"])
    study = rk.bias_study(X, 5.0)
    np.testing.assert_allclose(
        got["urisk"].unstack().loc[study.urisk.index, study.urisk.columns], study.urisk, rtol=1e-12
    )
    ranks = got["rank"].unstack().loc[study.ranks.index, study.ranks.columns]
    np.testing.assert_array_equal(ranks.to_numpy(dtype=float), study.ranks.to_numpy())


def test_bias_study_overview_json_and_no_virtual_runs(X, capsys):
    code, out, _ = run(
        ["bias-study", "--example", "--virtual", "none", "--show", "overview", "--format", "json"], capsys
    )
    assert code == 0
    [row] = json.loads(out)
    study = rk.bias_study(X, 1.0, virtual=())
    assert row["friedman_statistic"] == pytest.approx(study.friedman.statistic, rel=1e-12)
    assert row["pc1_pct"] == pytest.approx(study.pca.explained.iloc[0], rel=1e-12)
    code, out, _ = run(
        ["bias-study", "--example", "--virtual", "none", "--show", "pca", "--format", "csv"], capsys
    )
    assert len(pd.read_csv(io.StringIO(out))) == 37


@pytest.fixture
def tables(tmp_path: Path) -> dict[str, Path]:
    files = {
        "bad.csv": "system,topic,score\na,1,0.5\na,2,x\nb,1,0.3\nb,2,0.4\na,1,0.2\n",
        "holes.csv": "system,topic,score\na,1,0.5\na,2,0.1\nb,1,0.4\n",
        "wide.tsv": "system\t1\t2\t3\na\t0.5\t0.1\t0.7\nb\t0.4\t0.3\t0.2\nc\t0.2\t0.2\t0.6\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {name: tmp_path / name for name in files}


def test_bad_file_gives_exit_2_and_every_problem_with_file_and_line(tables, capsys):
    code, out, err = run(["risk", str(tables["bad.csv"])], capsys)
    assert code == 2 and out == ""
    assert f"{tables['bad.csv']}:3" in err and "'x'" in err  # the non-numeric score
    assert f"{tables['bad.csv']}:6" in err and "duplicate" in err  # the repeated (a, 1)
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["risk", "{holes}"], "missing='zero'"),
        (["risk", "{wide}", "--example"], "--example takes no score table"),
        (["risk"], "Give one score table file, trec_eval or ir_measures -q files, run files with --qrels"),
        (["risk", "{wide}", "{holes}"], "Give one score table file"),
        (["risk", "--qrels", "{wide}"], "--qrels needs at least one run file"),
        (["risk", "{dir}/absent.csv"], "absent.csv"),
        (["risk", "--example", "-b", "nosuchrun"], "'nosuchrun'"),
        (["risk", "--example", "-a", "1,x"], "'x' is not a decimal number"),
        (["risk", "--example", "-a", "-1"], "'alpha'"),
        (["risk", "--example", "--level", "2"], "'level'"),
        (["risk", "--example", "--topics", "nosuchrun"], "'nosuchrun'"),
        (["bias-study", "--example", "--virtual", "mode"], "'virtual'"),
    ],
)
def test_user_errors_exit_2_with_a_message(argv, message, tables, tmp_path, capsys):
    argv = [a.format(dir=tmp_path, **{k.split(".")[0]: str(v) for k, v in tables.items()}) for a in argv]
    code, _, err = run(argv, capsys)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_missing_topics_policy_zero_warns_with_the_count(tables, capsys):
    code, out, err = run(
        ["risk", str(tables["holes.csv"]), "--missing", "zero", "-a", "0", "--format", "csv"], capsys
    )
    assert code == 0
    assert "riskeval: warning:" in err and "1 of 4 (system, topic) cell(s) are missing" in err
    got = pd.read_csv(io.StringIO(out)).set_index("system")
    assert got.loc["b", "mean"] == pytest.approx(0.2)  # (0.4 + 0) / 2


def test_wide_tsv_is_read(tables, capsys):
    code, out, _ = run(["risk", str(tables["wide.tsv"]), "-a", "0", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out)).set_index("system")
    assert got.loc["a", "mean"] == pytest.approx((0.5 + 0.1 + 0.7) / 3)


@pytest.mark.slow
def test_command_line_process_bad_file_no_traceback(tables):
    proc = subprocess.run(
        [sys.executable, "-m", "riskeval", "risk", str(tables["bad.csv"])],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC)},
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("riskeval: error:") and "Traceback" not in proc.stderr


def test_help_does_not_import_the_subcommands_or_heavy_libraries():
    heavy = ("numpy", "pandas", "scipy", "matplotlib", "jinja2", "riskeval.cli.risk", "riskeval.cli.report")
    code = (
        "import sys; from riskeval.cli.main import main; main(['--help']); "
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)}
    )
    assert proc.returncode == 0, proc.stderr
    assert "bias-study" in proc.stdout and "risk" in proc.stdout
    assert proc.stdout.strip().endswith("[]")


@pytest.mark.slow
def test_report_on_the_example_prints_the_path_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["report", "--example"], capsys)  # default file name, in the cwd
    assert code == 0, err
    written = Path(out.strip())
    assert written == (tmp_path / "riskeval-report.html").resolve() and written.exists()
    html = written.read_text(encoding="utf-8")
    assert "dl19-passage-ndcg10.csv (shipped with riskeval)" in html and "<td>nDCG@10</td>" in html
    assert html.count("<svg") == 2  # PCA and residuals; the script draws the other plots


def test_report_from_a_score_table_with_settings(tables, tmp_path, capsys):
    out_file = tmp_path / "sub.html"
    code, out, err = run(
        [
            "report",
            str(tables["wide.tsv"]),
            "-o",
            str(out_file),
            "-b",
            "median",
            "-a",
            "0,2",
            "--correction",
            "bh",
            "--measure",
            "AP",
            "--title",
            "Wide",
            "--n-risky",
            "1",
        ],
        capsys,
    )
    assert code == 0, err
    assert Path(out.strip()) == out_file.resolve()
    html = out_file.read_text(encoding="utf-8")
    for shown in (
        str(tables["wide.tsv"]),
        "<td>AP</td>",
        "<td>MEDIAN</td>",
        "<td>0, 2</td>",
        "<td>bh</td>",
        "<title>Wide</title>",
    ):
        assert shown in html, shown
    assert "<caption>The system with the lowest TRisk at α = 2</caption>" in html  # --n-risky 1


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{wide}", "{bad}"],
        ["report", "{wide}", "--example"],
        ["report", "{bad}"],
        ["report", "--example", "--n-risky", "-1"],
        ["report", "--example", "-o", "{dir}/no/r.html"],
    ],
)
def test_report_user_errors_exit_2(argv, tables, tmp_path, capsys):
    names = {k.split(".")[0]: str(v) for k, v in tables.items()} | {"dir": str(tmp_path)}
    code, out, err = run([a.format(**names) for a in argv], capsys)
    assert code == 2 and out == "" and "Traceback" not in err


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    """Three tiny runs (tags ra, rb, rc) over three judged topics; rc retrieves nothing for topic 3."""
    qrels = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n2 0 d4 1\n2 0 d5 0\n3 0 d6 2\n3 0 d7 1\n"
    docs = {
        "ra": {"1": ["d1", "d2", "d3"], "2": ["d4", "d5"], "3": ["d7", "d6"]},
        "rb": {"1": ["d2", "d3", "d1"], "2": ["d5", "d4"], "3": ["d6", "d7"]},
        "rc": {"1": ["d3", "d1"], "2": ["d4"]},
    }
    files = {"qrels": tmp_path / "qrels.txt"}
    files["qrels"].write_text(qrels)
    for tag, topics in docs.items():
        lines = [f"{q} Q0 {d} {r + 1} {10 - r} {tag}" for q, ds in topics.items() for r, d in enumerate(ds)]
        files[tag] = tmp_path / f"{tag}.run"
        files[tag].write_text("\n".join(lines) + "\n")
    return files


def test_risk_from_runs_equals_ir_measures_scores(runs, capsys):
    import ir_measures

    code, out, err = run(
        [
            "risk",
            "--qrels",
            str(runs["qrels"]),
            "--measure",
            "P@2",
            "-a",
            "0",
            "--format",
            "csv",
            str(runs["ra"]),
            str(runs["rb"]),
            str(runs["rc"]),
        ],
        capsys,
    )
    assert code == 0, err
    assert "riskeval: warning:" in err  # rc lacks judged topic 3: scored 0, counted
    got = pd.read_csv(io.StringIO(out)).set_index("system")["mean"]
    qrels = list(ir_measures.read_trec_qrels(str(runs["qrels"])))
    for tag in ("ra", "rb", "rc"):
        per_topic = {
            m.query_id: m.value
            for m in ir_measures.iter_calc(
                [ir_measures.parse_measure("P@2")], qrels, ir_measures.read_trec_run(str(runs[tag]))
            )
        }
        assert got[tag] == pytest.approx(sum(per_topic.get(q, 0.0) for q in "123") / 3)


@pytest.mark.slow
def test_report_from_runs_records_the_files_and_the_measure(runs, tmp_path, capsys):
    out_file = tmp_path / "runs.html"
    code, out, err = run(
        [
            "report",
            "--qrels",
            str(runs["qrels"]),
            "-m",
            "nDCG@10",
            "--name-from",
            "file",
            "-o",
            str(out_file),
            str(runs["ra"]),
            str(runs["rb"]),
            str(runs["rc"]),
        ],
        capsys,
    )
    assert code == 0, err
    html = out_file.read_text(encoding="utf-8")
    assert f"{runs['qrels']}, {runs['ra']}, {runs['rb']}, {runs['rc']}" in html
    assert "<td>nDCG@10</td>" in html and "<td>3 × 3</td>" in html


def test_measure_selects_rows_of_a_measure_column_and_names_other_tables(tmp_path, capsys):
    table = tmp_path / "two.csv"
    table.write_text(
        "system,topic,measure,score\n"
        + "".join(
            f"{s},{t},{m},{v}\n"
            for s, base in (("a", 0.5), ("b", 0.3), ("c", 0.1))
            for t in ("1", "2")
            for m, v in (("AP", base), ("P@10", base / 2))
        )
    )
    code, out, _ = run(["risk", str(table), "-m", "P@10", "-a", "0", "--format", "csv"], capsys)
    assert code == 0
    assert pd.read_csv(io.StringIO(out)).set_index("system").loc["a", "mean"] == pytest.approx(0.25)
    code, out, err = run(["risk", str(table), "-a", "0", "--format", "csv"], capsys)  # every measure
    assert code == 0, err
    both = pd.read_csv(io.StringIO(out))
    assert list(both.columns[:2]) == ["measure", "system"] and list(both["measure"].unique()) == [
        "AP",
        "P@10",
    ]
    code, _, err = run(["chisq", str(table)], capsys)  # a command of one measure: choose one
    assert code == 2 and "takes one measure; the input gives 2: AP, P@10" in err
