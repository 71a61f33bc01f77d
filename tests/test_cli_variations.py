"""``riskeval mean-variance`` and ``riskeval bias-variance``: outputs, formats, errors as exit 2."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as call
from shared_data import shared_data

import riskeval as rk

# Zhang et al. 2013, Table 1 as trec_eval -q outputs (measure map, queries q1 and q2).
TABLE1 = {"A": (0.3, 0.1), "B": (0.6, 0.08), "C": (0.65, 0.03), "T": (0.7, 0.2)}


@pytest.fixture
def tidy_file(tmp_path):
    rng = np.random.default_rng(1)
    rows = [
        (s, t, v, round(float(rng.random()), 2))
        for s in ("sysA", "sysB", "sysC")
        for t in ("1", "2", "3", "4")
        for v in ("pivot", "most", "least")
    ]
    frame = pd.DataFrame(rows, columns=["system", "topic", "variant", "score"])
    path = tmp_path / "variations.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.fixture
def trec_eval_files(tmp_path):
    paths = []
    for name, (q1, q2) in TABLE1.items():
        path = tmp_path / f"{name}.dat"
        path.write_text(f"map\tq1\t{q1}\nmap\tq2\t{q2}\nrunid\tall\t{name}\nmap\tall\t0.5\n")
        paths.append(path)
    return paths


@pytest.fixture
def table1_csv(tmp_path):
    path = tmp_path / "table1.csv"
    pd.DataFrame(TABLE1, index=["q1", "q2"]).T.rename_axis("system").to_csv(path)  # wide: one row per model
    return path


def test_help_lists_both_commands(capsys):
    code, out, _ = call(["--help"], capsys)
    assert code == 0 and "mean-variance" in out and "bias-variance" in out


def test_mean_variance_table_csv_json(tidy_file, capsys):
    path, frame = tidy_file
    expected = rk.variations.mean_variance(frame, alpha=2.0)
    code, out, _ = call(["mean-variance", path, "--alpha", "2", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out), dtype={"system": str}).set_index("system")
    assert list(got.columns) == ["alpha", "mean", "variance", "value", "rank"]
    # the same columns as the library's table, which the command line ranks
    pd.testing.assert_frame_equal(got.drop(columns="rank"), expected.loc[got.index], atol=1e-12)
    assert got["value"].is_monotonic_decreasing and got["rank"].tolist() == [1, 2, 3]
    assert (got["alpha"] == 2.0).all()
    code, out, _ = call(["mean-variance", path, "--format", "json"], capsys)
    records = json.loads(out)
    assert code == 0 and set(records[0]) == {"system", "alpha", "mean", "variance", "value", "rank"}
    code, out, _ = call(["mean-variance", path, "--alpha", "-1,0", "-a", "2", "--format", "csv"], capsys)
    several = pd.read_csv(io.StringIO(out), dtype={"system": str})
    assert code == 0 and several["alpha"].tolist() == [-1.0] * 3 + [0.0] * 3 + [2.0] * 3
    for alpha, part in several.groupby("alpha"):
        want = rk.variations.mean_variance(frame, alpha=alpha).loc[part["system"]]
        np.testing.assert_allclose(part["value"], want["value"], atol=1e-12)
        assert part["rank"].tolist() == [1, 2, 3]
    code, out, _ = call(["mean-variance", path, "--alpha", "1_0"], capsys)
    assert code == 2 and "not a decimal number" in out + _
    code, out, _ = call(["mean-variance", path, "--decompose", "--format", "csv"], capsys)
    got = pd.read_csv(io.StringIO(out)).set_index("system")
    np.testing.assert_allclose(got["topic_variance"] + got["covariance"], got["variance"], atol=1e-12)
    code, out, _ = call(["mean-variance", path, "--form", "intra"], capsys)
    assert code == 0 and "topic" in out.splitlines()[0] and len(out.splitlines()) == 1 + 12


def test_mean_variance_sweep_and_rank_change(tidy_file, capsys):
    path, frame = tidy_file
    code, out, _ = call(["mean-variance", path, "--sweep", "-2:2:0.5", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    expected = rk.variations.mean_variance_sweep(frame, np.linspace(-2, 2, 9)).to_frame()
    pd.testing.assert_frame_equal(got, expected, atol=1e-12)
    code, out, _ = call(["mean-variance", path, "--rank-change", "0", "50", "--format", "csv"], capsys)
    got = pd.read_csv(io.StringIO(out), dtype={"system": str})
    assert code == 0 and list(got.columns) == ["system", "mean", "variance", "rank_from", "rank_to", "change"]


def test_mean_variance_from_trec_eval_files_mapping_and_weights(trec_eval_files, tmp_path, capsys):
    mapping = tmp_path / "map.txt"
    mapping.write_text("q1 topicX u1\nq2 topicX u2\n")
    weights = tmp_path / "weights.txt"
    weights.write_text("# topic weight\ntopicX 2\n")
    args = [
        "mean-variance",
        "--mapping",
        mapping,
        "--measure",
        "map",
        "--weights",
        weights,
        "--format",
        "csv",
    ]
    code, out, _ = call([*args, *trec_eval_files], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out)).set_index("system")
    # one topic, two users: mean of the two APs, sample variance of the two
    assert got.loc["B", "mean"] == pytest.approx(0.34)
    assert got.loc["B", "variance"] == pytest.approx(np.var([0.6, 0.08], ddof=1))
    # the same scores as ir_measures -q output (query_id, measure, value), systems named by file
    ir_files = []
    for name, (q1, q2) in TABLE1.items():
        path = tmp_path / name
        path.write_text(f"q1\tAP\t{q1}\nq2\tAP\t{q2}\nall\tAP\t0.5\n")
        ir_files.append(path)
    code, out, err = call([*args, *ir_files], capsys)
    assert code == 0, err
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(out)).set_index("system"), got)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sweep", "a:b"], "START:STOP:STEP"),
        (["--sweep", "0:1:0.5", "--rank-change", "0", "1"], "either --sweep or --rank-change"),
        (["--form", "inter"], "choose one with variant"),
        (["--unequal", "raise", "--ddof", "1", "--alpha", "x"], "is not a decimal number"),
    ],
)
def test_mean_variance_bad_options_exit_2(tidy_file, capsys, args, message):
    code, _, err = call(["mean-variance", tidy_file[0], *args], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_mean_variance_bad_inputs_exit_2(tmp_path, capsys, trec_eval_files):
    bad = tmp_path / "bad.csv"
    bad.write_text("system,topic,score\nA,1,0.5\n")
    code, _, err = call(["mean-variance", bad], capsys)
    assert code == 2 and "lacks column(s) ['variant']" in err
    uneven = tmp_path / "uneven.csv"
    uneven.write_text("system,topic,variant,score\nA,1,p,0.5\nA,1,m,0.2\nA,2,p,0.1\n")
    code, _, err = call(["mean-variance", uneven], capsys)
    assert code == 2 and "1 topic(s) have fewer than 2: 2 (1)" in err and "unequal='drop'" in err
    code, out, err = call(["mean-variance", uneven, "--unequal", "drop", "--ddof", "0"], capsys)
    assert code == 0 and "riskeval: warning: Dropped 1 topic(s)" in err
    code, _, err = call(["mean-variance"], capsys)
    assert code == 2 and "Give one table" in err
    code, _, err = call(["mean-variance", "--mapping", bad], capsys)
    assert code == 2 and "--mapping needs the trec_eval or ir_measures -q files" in err
    weights = tmp_path / "w.txt"
    weights.write_text("1 heavy\n")
    code, _, err = call(["mean-variance", uneven, "--weights", weights], capsys)
    assert code == 2 and f"{weights}:1" in err


def test_bias_variance_table1(table1_csv, capsys):
    args = ["bias-variance", table1_csv, "--target", "T", "--reference", "A", "--format", "csv"]
    code, out, _ = call(args, capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out)).set_index("system")
    # Zhang et al. (SIGIR 2013) Table 1, with its two misprints corrected, sorted by total error
    assert list(got.index) == ["T", "A", "B", "C"]
    np.testing.assert_allclose(got.loc[list("ABCT"), "total"], [0.0725, 0.0797, 0.1082, 0.0625], atol=1e-12)
    np.testing.assert_allclose(got.loc[list("ABCT"), "below_init"], [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(got.loc[list("ABCT"), "robustness_index"], [0, 0, 0, 1])
    assert "gmap" in got.columns
    code, out, _ = call(["bias-variance", table1_csv, "--target", "0.45"], capsys)
    assert code == 0 and "0.1082" in out
    code, out, _ = call(
        ["bias-variance", table1_csv, "--target", "T", "--form", "delta", "--format", "json"], capsys
    )
    totals = {r["system"]: r["total"] for r in json.loads(out)}
    assert totals == pytest.approx({"A": 0.085, "B": 0.0122, "C": 0.0157, "T": 0.0})


def test_bias_variance_errors_exit_2(table1_csv, capsys):
    code, _, err = call(["bias-variance", table1_csv, "--target", "Z"], capsys)
    assert code == 2 and "neither 'perfect', 'best' nor a system" in err
    code, _, err = call(["bias-variance"], capsys)
    assert (
        code == 2
        and "Give one score table file, trec_eval or ir_measures -q files, run files with --qrels" in err
    )
    code, _, err = call(["bias-variance", "--variant", "pivot", table1_csv], capsys)
    assert code == 2 and "--variant applies to --clef2015 only" in err


def test_bias_variance_from_runs_and_qrels(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n2 Q0 d3 1 1 a\n2 Q0 d4 2 0.5 a\n")
    (tmp_path / "b.run").write_text("1 Q0 d2 1 3 b\n1 Q0 d1 2 2 b\n2 Q0 d4 1 1 b\n")
    args = ["bias-variance", "--qrels", tmp_path / "qrels.txt", "--measure", "AP", "--format", "csv"]
    code, out, err = call([*args, tmp_path / "a.run", tmp_path / "b.run"], capsys)
    table = pd.read_csv(io.StringIO(out)).set_index("system")
    # AP: a = (1, 1), b = (0.5, 0.5): perfect target, bias 1 − MAP, no variance for either
    assert code == 0 and table.loc["a", "total"] == pytest.approx(0.0)
    assert table.loc["b", "bias"] == pytest.approx(0.5) and table.loc["b", "variance"] == pytest.approx(0.0)


def test_bias_variance_on_the_shipped_example(capsys):
    code, out, _ = call(["bias-variance", "--example", "--target", "best", "--format", "csv"], capsys)
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and len(table) == 37 and table["total"].is_monotonic_increasing


def clef2015_variance(root, run: str) -> float:
    """Zuccon, Palotti & Hanbury (CIKM 2016, §4.1, inter-topic form) straight from the campaign's
    files: P@10 of each query from the run's trec_eval -q output; the 21 information needs with
    all three variants (pivot, most, least); the variance over the variants (ddof = 1) of their
    mean over the needs."""
    queries = (root / "queries" / "clef2015.test_with_narratives.queries-EN.txt").read_text()
    tops = re.findall(
        r"<num>clef2015\.test\.(\d+)</num>.*?<type>(\w+)</.*?<query_index>(\d+)<", queries, re.S
    )
    p10 = {}
    for line in (root / "pertopic-evals" / run).read_text().splitlines():
        field = line.split()
        if len(field) == 3 and field[0] == "P_10" and field[1].startswith("qtest."):
            p10[field[1].removeprefix("qtest.")] = float(field[2])
    needs: dict[str, dict[str, float]] = {}
    for number, variant, need in tops:
        if number in p10:
            needs.setdefault(need, {})[variant] = p10[number]
    complete = [v for v in needs.values() if len(v) == 3]
    assert len(complete) == 21
    means = [np.mean([v[variant] for v in complete]) for variant in ("pivot", "most", "least")]
    return float(np.var(means, ddof=1))


@pytest.mark.slow
def test_clef2015_commands(capsys):
    root = shared_data("clef-ehealth-2015-task2")
    code, out, err = call(["mean-variance", "--clef2015", root, "--alpha", "5", "--format", "csv"], capsys)
    assert code == 0 and "Dropped 2 information need(s)" in err
    table = pd.read_csv(io.StringIO(out)).set_index("system")
    assert len(table) == 110
    assert table.loc["CUNI_EN_Run.6", "variance"] == pytest.approx(
        clef2015_variance(root, "CUNI_EN_Run.6.dat")
    )
    code, out, _ = call(
        ["bias-variance", "--clef2015", root, "--variant", "pivot", "--target", "best", "--format", "csv"],
        capsys,
    )
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and len(table) == 110 and table["total"].is_monotonic_increasing


@pytest.mark.parametrize("value", ["1_0", "١", "0x1"])
def test_number_options_take_decimal_notation_only(value):
    from click.testing import CliRunner

    from riskeval.cli.risk import risk

    out = CliRunner().invoke(risk, ["--example", "--alpha", value])
    assert out.exit_code == 2 and "is not a decimal number" in out.output
    out = CliRunner().invoke(risk, ["--example", "--level", value])
    assert out.exit_code == 2 and "is not a decimal number" in out.output
