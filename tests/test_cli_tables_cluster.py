"""``riskeval risk TABLE --workers N --risk ... --alternative ...``: the risk measures and the
alternative of the p-values reach ``long_risk_table`` on the cluster, which gives the table that
the same options give in memory."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.distributed import client as client_module


@pytest.fixture
def local_cluster(monkeypatch):
    """``--scheduler`` opens no cluster: ``long_risk_table`` then runs on Dask's local scheduler."""
    pytest.importorskip("dask")
    monkeypatch.setattr(client_module, "cluster", lambda *a, **k: contextlib.nullcontext(object()))
    return ["--scheduler", "tcp://127.0.0.1:8786"]


@pytest.mark.parametrize(
    "options",
    [
        ["--risk", "URisk@5", "--risk", "TRisk@5"],
        ["--alternative", "less", "--alpha", "1,5"],
        ["--risk", "TRisk", "--alternative", "greater", "--alpha", "0,5"],
    ],
)
def test_risk_and_alternative_reach_the_cluster(tmp_path, capsys, local_cluster, options):
    path = tmp_path / "scores.parquet"
    rk.example_scores().stack().rename("score").reset_index().to_parquet(path, index=False)
    args = ["risk", str(path), "-b", "bm25base_p", *options, "--format", "csv"]
    code, remote, err = run_cli([*args, *local_cluster], capsys)
    assert code == 0, err
    code, local, err = run_cli(args, capsys)
    assert code == 0, err
    got, expected = pd.read_csv(io.StringIO(remote)), pd.read_csv(io.StringIO(local))
    assert list(got.columns) == list(expected.columns)
    numeric = [c for c in expected.columns if expected[c].dtype.kind == "f"]
    np.testing.assert_allclose(got[numeric], expected[numeric], rtol=1e-9, atol=1e-12)
    assert got["significant"].equals(expected["significant"])
    if "--alternative" in options:
        assert set(got["alternative"]) == {options[options.index("--alternative") + 1]}
    code, text, err = run_cli([*args[:-2], *local_cluster], capsys)
    assert code == 0 and "Dask cluster" in text
    if "--alternative" in options:
        assert "one-sided" in text
