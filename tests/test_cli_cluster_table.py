"""``riskeval risk TABLE --workers N`` / ``--scheduler ADDRESS``: a long Parquet score table is read
on the cluster by ``long_risk_table``, with the values of the risk table computed in memory."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.cli import risk as risk_cli


def _long_table(path):
    M = rk.example_scores()
    long = M.stack().rename("score").reset_index()
    both = pd.concat(
        [long.assign(measure="nDCG@10"), long.assign(measure="P@10", score=long["score"] ** 2)],
        ignore_index=True,
    )[["system", "topic", "measure", "score"]]
    both.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--topics", "p_bert"], "--topics"),
        (["--tukey"], "--tukey"),
        (["--test", "permutation"], "--test"),
    ],
)
def test_options_the_cluster_does_not_compute_are_refused(tmp_path, capsys, monkeypatch, options, named):
    monkeypatch.setattr(risk_cli, "active_client", lambda: object())
    table = _long_table(tmp_path / "scores.parquet")
    code, _, err = run_cli(["risk", str(table), "-m", "nDCG@10", *options], capsys)
    assert code == 2 and named in err and "cluster" in err and "Traceback" not in err


def test_a_table_that_is_not_parquet_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(risk_cli, "active_client", lambda: object())
    path = tmp_path / "scores.csv"
    rk.example_scores().stack().rename("score").reset_index().to_csv(path, index=False)
    code, _, err = run_cli(["risk", str(path)], capsys)
    assert code == 2 and "Parquet" in err and str(path) in err and err.count("\n") == 1


@pytest.mark.slow
def test_risk_of_a_parquet_table_on_a_local_cluster(tmp_path, capsys):
    pytest.importorskip("distributed")
    table = _long_table(tmp_path / "scores.parquet")
    args = ["risk", str(table), "-m", "nDCG@10", "-m", "P@10", "--baseline", "bm25base_p", "--alpha", "0,5"]
    code, remote, err = run_cli([*args, "--workers", "2", "--format", "csv"], capsys)
    assert code == 0, err
    code, local, err = run_cli([*args, "--format", "csv"], capsys)
    assert code == 0, err
    got, expected = pd.read_csv(io.StringIO(remote)), pd.read_csv(io.StringIO(local))
    assert got[["measure", "system", "alpha"]].equals(expected[["measure", "system", "alpha"]])
    numeric = [c for c in expected.columns if expected[c].dtype.kind == "f"]
    np.testing.assert_allclose(got[numeric], expected[numeric], rtol=1e-9, atol=1e-12)
    assert got["significant"].equals(expected["significant"])
