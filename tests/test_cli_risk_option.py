"""``--risk`` and ``--alternative`` of ``riskeval risk``, and ``--risk`` of ``riskeval report`` and
``riskeval baseline-rankings``: the measures by their text, the same numbers as the library, the
registry in the help, clear errors with exit status 2."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as run

import riskeval as rk
from riskeval.datasets import example_scores
from riskeval.measures.declared import RISK_MEASURES, split_top_level


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


def csv(args: list[str], capsys: pytest.CaptureFixture) -> pd.DataFrame:
    code, out, err = run(["risk", "--example", *args, "--format", "csv"], capsys)
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def assert_same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    assert got["system"].tolist() == want["system"].astype(str).tolist()
    for col in want.columns:
        if pd.api.types.is_numeric_dtype(want[col]) and not pd.api.types.is_bool_dtype(want[col]):
            np.testing.assert_allclose(got[col], want[col].astype(float), rtol=1e-12, err_msg=col)
        else:
            assert got[col].astype(str).tolist() == want[col].astype(str).tolist(), col


def test_repeated_risk_gives_the_columns_and_alphas_of_risk_table(X, capsys):
    got = csv(["--risk", "URisk@5", "--risk", "GeoRisk", "--alpha", "1,5"], capsys)
    want = rk.risk_table(X, alphas=[1, 5], risk=[rk.URisk(alpha=5), rk.GeoRisk()])
    assert_same_table(got, want)
    assert "urisk" in got and "georisk" in got and "trisk" not in got and "zrisk" not in got


def test_a_comma_list_splits_outside_parentheses(X, capsys):
    got = csv(["--risk", "TRisk(alpha=5, se='jackknife'),ZRisk@1", "--correction", "holm"], capsys)
    want = rk.risk_table(X, correction="holm", risk=["TRisk(alpha=5, se='jackknife')", rk.ZRisk(alpha=1)])
    assert_same_table(got, want)
    assert set(got["alpha"]) == {1.0, 5.0} and set(got["se_method"]) == {"jackknife"}


def test_split_top_level():
    assert split_top_level("URisk@5, TRisk(alpha=1, se='jackknife'),GeoRisk") == [
        "URisk@5",
        "TRisk(alpha=1, se='jackknife')",
        "GeoRisk",
    ]
    assert split_top_level("ZRisk(1)") == ["ZRisk(1)"]


def test_human_table_shows_only_the_chosen_columns(capsys):
    code, out, err = run(["risk", "--example", "--risk", "GeoRisk@5"], capsys)
    assert code == 0, err
    caption, header = out.splitlines()[:2]
    assert header.split() == ["system", "alpha", "mean", "georisk"]
    assert "critical" not in caption  # no TRisk, no test
    assert len(out.splitlines()) == 2 + 37


@pytest.mark.parametrize("command", ["risk", "report"])
def test_help_lists_every_registered_measure_with_its_citation(command, capsys):
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    for name, cls in RISK_MEASURES.items():
        assert f"{name}(" in text, name
        assert " ".join(cls.citation.split()) in text, name


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("Urisk5", ["Unknown risk measure 'Urisk5'", "URisk, TRisk, TStarRisk, ZRisk, GeoRisk"]),
        ("GeoRisk(beta=1)", ["GeoRisk takes the parameters alpha"]),
        ("URisk@-1", ["'alpha'", ">= 0"]),
        ("TRisk(se='bootstrap')", ["'se'", "parametric"]),
    ],
)
def test_a_bad_risk_exits_2_with_one_paragraph(value, words, capsys):
    code, out, err = run(["risk", "--example", "--risk", value], capsys)
    assert code == 2 and out == ""
    assert err.startswith("riskeval: error: The '--risk' option: ")
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_alternative_gives_the_one_sided_pvalues_of_risk_table(X, capsys):
    for alternative in ("less", "greater"):
        got = csv(["-b", "bm25base_p", "-a", "0,5", "--alternative", alternative], capsys)
        want = rk.risk_table(X, baseline="bm25base_p", alphas=[0, 5], alternative=alternative)
        assert_same_table(got, want)
    code, out, _ = run(["risk", "--example", "-b", "bm25base_p", "--alternative", "less"], capsys)
    assert code == 0 and "one-sided: the alternative is URisk < 0" in out.splitlines()[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--topics", "p_bert", "--risk", "URisk"], "--risk goes with the table of systems"),
        (["--tukey", "--alternative", "less", "--risk", "URisk"], "--risk, --alternative go with the table"),
        (["--topics", "p_bert", "--tukey"], "--topics and --tukey are two analyses"),
        (["--test", "permutation", "--alternative", "greater"], "goes with Student's t test of TRisk"),
    ],
)
def test_options_of_another_analysis_are_usage_errors(args, message, capsys):
    code, _, err = run(["risk", "--example", *args], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_risk_with_a_resampling_test_keeps_the_pvalue_columns(X, capsys):
    got = csv(
        ["-b", "bm25base_p", "--risk", "GeoRisk@5", "--test", "permutation", "--n-resamples", "200"], capsys
    )
    got = got.assign(seed=got["seed"].astype(int))
    assert set(got["alpha"]) == {5.0}
    assert {"georisk", "trisk", "pvalue", "pvalue_maxt", "significant"} <= set(got.columns)
    assert "urisk" not in got and "zrisk" not in got
    from riskeval.inference.tables import with_test

    seed = int(got["seed"].iloc[0])
    table = rk.risk_table(X, baseline="bm25base_p", risk=["GeoRisk@5", "TRisk@5"])
    want = with_test(table, X, test="permutation", baseline="bm25base_p", n_resamples=200, rng=seed)
    np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=1e-12)
    np.testing.assert_allclose(got["georisk"], want["georisk"], rtol=1e-12)


def test_report_takes_risk(tmp_path, capsys):
    path = tmp_path / "r.html"
    code, _, err = run(
        ["report", "--example", "--risk", "URisk@5,GeoRisk", "--alpha", "1", "-o", path, "--no-progress"],
        capsys,
    )
    assert code == 0, err
    html = path.read_text(encoding="utf-8")
    assert re.search(r"<th>risk measures</th><td>URisk\(alpha=5\), GeoRisk</td>", html)
    assert "<th>α (risk aversion)</th><td>1, 5</td>" in html


def test_baseline_rankings_takes_one_ranking_measure_with_its_alpha(X, capsys):
    from riskeval.analysis.baseline_ranks import baseline_rankings

    code, out, _ = run(
        ["baseline-rankings", "--example", "--risk", "TRisk@1", "--show", "tidy", "--format", "csv"], capsys
    )
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    want = baseline_rankings(X, alphas=[1], risk="TRisk")
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12)
    code, _, err = run(["baseline-rankings", "--example", "--risk", "GeoRisk"], capsys)
    assert code == 2 and "takes one of URisk, TRisk" in err and "Got GeoRisk" in err
