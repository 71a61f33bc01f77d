"""The table commands on campaign data: the official per-query trec_eval files of CLEF eHealth 2015
(several measures per file), TREC DL 2020 runs evaluated for two measures in one pass, and the
ir_measures command line's own ``-q`` output of those runs."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from shared_data import shared_data

import riskeval as rk
from riskeval.cli.main import cli

pytestmark = pytest.mark.slow
MEASURES = ("nDCG@10", "AP(rel=2)")


def invoke(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def dl20() -> tuple[str, list[str]]:
    root = shared_data("trec-dl-2020-passage")
    return str(root / "qrels.dl20-passage.txt"), [
        str(p) for p in sorted((root / "runs-top100").glob("*.gz"))[:3]
    ]


def test_clef_per_query_files_every_run_two_measures():
    files = sorted(str(p) for p in shared_data("clef-ehealth-2015-task2", "pertopic-evals").glob("*.dat"))
    assert len(files) == 110
    out = invoke(
        ["risk", *files, "--name-from", "file", "-m", "P@10", "-m", "map", "-a", "0,5", "--format", "csv"]
    )
    got = pd.read_csv(io.StringIO(out))
    assert list(got["measure"].unique()) == ["P@10", "map"] and got["system"].nunique() == 110
    for measure, trec_name in (("P@10", "P_10"), ("map", "map")):
        want = rk.risk_table(rk.io.read_trec_eval(files, trec_name, names="file"), alphas=[0, 5])
        part = got[got["measure"] == measure]
        np.testing.assert_allclose(part["urisk"], want["urisk"], rtol=1e-12)
        np.testing.assert_allclose(part["zrisk"], want["zrisk"], rtol=1e-12)
    latex = invoke(["risk", *files[:5], "--name-from", "file", "-m", "map", "-a", "5", "--format", "latex"])
    assert latex.count("\\\\\n") == 1 + 5  # the header and the five runs (the baseline is MEAN)


def test_dl20_runs_two_measures_one_pass(dl20):
    qrels, runs = dl20
    out = invoke(["risk", "--qrels", qrels, *runs, "-m", MEASURES[0], "-m", MEASURES[1], "--format", "csv"])
    got = pd.read_csv(io.StringIO(out))
    for measure in MEASURES:
        want = rk.risk_table(rk.evaluate_runs(qrels, runs, measure))
        np.testing.assert_allclose(got.loc[got["measure"] == measure, "trisk"], want["trisk"], rtol=1e-12)
    out = invoke(
        [
            "bias-study",
            "--qrels",
            qrels,
            *runs,
            "-m",
            MEASURES[0],
            "-m",
            MEASURES[1],
            "--show",
            "overview",
            "--format",
            "csv",
        ]
    )
    overview = pd.read_csv(io.StringIO(out))
    assert list(overview["measure"]) == list(MEASURES) and (overview["systems"] == 3).all()
    for measure, row in zip(MEASURES, overview.itertuples(), strict=True):
        study = rk.bias_study(rk.evaluate_runs(qrels, runs, measure), 1.0)
        assert row.friedman_statistic == pytest.approx(study.friedman.statistic, rel=1e-12)


def test_ir_measures_command_line_output_as_input(dl20, tmp_path):
    qrels, runs = dl20
    files = []
    for run in runs:
        done = subprocess.run(
            [sys.executable, "-m", "ir_measures", qrels, run, *MEASURES, "-q", "--places", "-1"],
            capture_output=True,
            text=True,
            check=True,
        )
        path = tmp_path / f"{run.rsplit('/', 1)[-1]}.tsv"
        path.write_text(done.stdout)
        files.append(str(path))
    out = invoke(["risk", *files, "-a", "1", "--format", "csv"])  # every measure of the files
    got = pd.read_csv(io.StringIO(out))
    assert set(got["measure"]) == set(MEASURES)
    for measure in MEASURES:
        # ir_measures leaves out the judged topics a run has no result for; riskeval's runs score them 0
        want = rk.risk_table(rk.evaluate_runs(qrels, runs, measure, missing="drop"), alphas=[1])
        part = got[got["measure"] == measure]
        np.testing.assert_allclose(part["urisk"], want["urisk"], rtol=1e-9)
