"""Small things a new user trips over, each pinned: α printed as written, Tukey's URisk column named
for what it holds, the report's --systems help, the report extra's error from any entry point, the
error example of docs/cli.md, no overflow warnings at a huge α, and ranx objects read whole."""

from __future__ import annotations

import io
import math
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import processes
import pytest
from cli_runner import run_cli as call

import riskeval as rk

ROOT = Path(__file__).resolve().parents[1]


def test_agreement_prints_alpha_as_written(capsys):
    code, out, err = call(["baseline-rankings", "--example", "--show", "agreement"], capsys)
    assert code == 0, err
    rows = [line.split() for line in out.splitlines()[2:]]
    mean_row = next(r for r in rows if r[0] == "MEAN")
    assert mean_row[1] == "5" and "5.0000" not in out
    code, out, _ = call(["baseline-rankings", "--example", "--show", "agreement", "--format", "csv"], capsys)
    table = pd.read_csv(io.StringIO(out))
    assert table["reference_alpha"].dropna().unique().tolist() == [5.0, 10.0]  # numbers for programs


def test_tukey_names_its_column_urisk(capsys):
    args = [
        "risk",
        "--example",
        "-b",
        "bm25base_p",
        "-a",
        "5",
        "--tukey",
        "--seed",
        "1",
        "--n-resamples",
        "200",
    ]
    code, out, err = call(args, capsys)
    assert code == 0, err
    header = out.splitlines()[1].split()
    assert header == ["system", "alpha", "baseline", "urisk", "letters", "seed"]
    X = rk.example_scores()
    top = out.splitlines()[2].split()
    assert float(top[3]) == pytest.approx(rk.urisk(X.loc[top[0]], X.loc["bm25base_p"], 5.0), abs=5e-5)
    code, out, _ = call([*args, "--format", "csv"], capsys)
    assert {"urisk_a", "urisk_b"} <= set(pd.read_csv(io.StringIO(out)).columns)


def test_report_systems_help_says_what_the_option_does(capsys):
    code, out, _ = call(["report", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0 and "listed first" not in text
    assert "first in its system picker; every table keeps every system" in text


def test_reporting_modules_without_the_extra_name_it():
    """Importing the report's building blocks (custom sections do) without markupsafe is the one-line
    error naming riskeval[report], not a bare ModuleNotFoundError."""
    code = (
        "import sys\n"
        "for m in ('markupsafe', 'jinja2', 'matplotlib'): sys.modules[m] = None\n"
        "from riskeval.errors import MissingDependencyError\n"
        "try:\n"
        "    import riskeval.reporting.sections\n"
        "except MissingDependencyError as e:\n"
        "    print(e)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = processes.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert 'pip install "riskeval[report]"' in done.stdout


def test_the_error_example_of_the_cli_page_is_what_riskeval_prints(tmp_path, capsys, monkeypatch):
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ riskeval risk bad.csv\n(.*?)```", page, flags=re.S)
    assert block is not None
    monkeypatch.chdir(tmp_path)
    Path("bad.csv").write_text("system,topic,score\na,1,0.5\na,2,x\na,3,0.1\nb,1,0.2\nb,1,0.3\n")
    code, out, err = call(["risk", "bad.csv"], capsys)
    assert code == 2 and out == ""
    assert err == block.group(1)


def test_the_largest_alpha_on_the_largest_scores_stays_finite_without_warnings():
    """α up to 10⁶ on scores up to the 10¹⁰⁰ every matrix is checked against: (1 + α)·δ, its squares
    and their sums stay below float64's largest number, so no standard error is infinite and numpy
    has nothing to warn about; a larger α is refused."""
    from riskeval.options import MAX_ALPHA

    M = (
        pd.DataFrame(
            [[0.1, 0.5, 0.2], [0.3, 0.2, 0.6], [0.2, 0.4, 0.1]], index=list("abc"), columns=list("xyz")
        )
        * 9e99
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for se in ("parametric", "jackknife"):
            table = rk.risk_table(M, alphas=[0, MAX_ALPHA], se=se)
            assert np.isfinite(table["se"]).all() and np.isfinite(table["urisk"]).all()
    with pytest.raises(rk.RiskevalError, match="must be at most"):
        rk.risk_table(M, alphas=[1e308])


@pytest.mark.slow  # ranx compiles its typed dicts with numba on import
def test_ranx_objects_read_in_one_pass_equal_to_dict():
    ranx = pytest.importorskip("ranx")
    from riskeval.io.ranx_objects import ranx_nested

    run = ranx.Run({"q1": {"d1": 1.5, "d2": 0.25}, "q2": {"d3": -2.0}}, name="bm25")
    assert ranx_nested(run) == {k: dict(v) for k, v in run.to_dict().items()}
    qrels = ranx.Qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
    got = ranx_nested(qrels)
    assert got == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
    assert all(isinstance(g, int) for docs in got.values() for g in docs.values())
    odd = ranx.Run({"q1": {"d\x1f1": 1.0}, "q2": {"d2": math.nan}})
    assert ranx_nested(odd) is None  # read entry by entry, where a bad score is located
    with pytest.raises(rk.errors.InputFormatError, match="run 'odd'.*the score must be a finite number"):
        rk.evaluate_runs(qrels, {"odd": odd}, "P@1")
