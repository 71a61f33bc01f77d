"""``riskeval risk TABLE --workers N`` / ``--scheduler ADDRESS``: a long Parquet score table is read
on the cluster by ``long_risk_table``, with the values of the risk table computed in memory."""

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
def fake_cluster(monkeypatch):
    """``--scheduler`` opens a stand-in client: the checks made before any work reaches it."""
    monkeypatch.setattr(client_module, "cluster", lambda *a, **k: contextlib.nullcontext(object()))
    return ["--scheduler", "tcp://127.0.0.1:8786"]


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
def test_options_the_cluster_does_not_compute_are_refused(tmp_path, capsys, fake_cluster, options, named):
    table = _long_table(tmp_path / "scores.parquet")
    code, _, err = run_cli(["risk", str(table), "-m", "nDCG@10", *options, *fake_cluster], capsys)
    assert code == 2 and named in err and "cluster" in err and "Traceback" not in err


def test_a_table_that_is_not_parquet_is_refused(tmp_path, capsys, fake_cluster):
    path = tmp_path / "scores.csv"
    rk.example_scores().stack().rename("score").reset_index().to_csv(path, index=False)
    code, _, err = run_cli(["risk", str(path), *fake_cluster], capsys)
    assert code == 2 and "Parquet" in err and str(path) in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["risk", "report"])
def test_a_folder_without_a_cluster_names_the_form_that_reads_it(tmp_path, capsys, command):
    folder = tmp_path / "scores"
    folder.mkdir()
    _long_table(folder / "part0.parquet")
    code, _, err = run_cli([command, str(folder)], capsys)
    assert code == 2 and "Traceback" not in err
    assert f"{folder} is a folder" in err and "--workers" in err


@pytest.mark.parametrize("address", ["nonsense", "foo://host:1", "tcp://localhost:port"])
def test_a_bad_scheduler_address_is_one_line(tmp_path, capsys, address):
    pytest.importorskip("distributed")
    table = _long_table(tmp_path / "scores.parquet")
    code, _, err = run_cli(["risk", str(table), "-m", "nDCG@10", "--scheduler", address], capsys)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert "The '--scheduler' option must be a Dask scheduler address tcp://HOST:PORT" in err
    assert f"Got {address!r}." in err


@pytest.mark.slow
@pytest.mark.parametrize("form", ["file", "folder"])
def test_risk_of_a_parquet_table_on_a_local_cluster(tmp_path, capsys, form):
    pytest.importorskip("distributed")
    whole = _long_table(tmp_path / "scores.parquet")
    table = whole
    if form == "folder":  # riskeval risk FOLDER --workers 2, as docs/scale.md shows it
        table = tmp_path / "scores"
        table.mkdir()
        rows = pd.read_parquet(whole)
        for k in range(3):  # each file holds a third of the rows, in order
            rows.iloc[k * len(rows) // 3 : (k + 1) * len(rows) // 3].to_parquet(table / f"part{k}.parquet")
    args = ["-m", "nDCG@10", "-m", "P@10", "--baseline", "bm25base_p", "--alpha", "0,5", "--format", "csv"]
    code, remote, err = run_cli(["risk", str(table), *args, "--workers", "2"], capsys)
    assert code == 0, err
    code, local, err = run_cli(["risk", str(whole), *args], capsys)
    assert code == 0, err
    got, expected = pd.read_csv(io.StringIO(remote)), pd.read_csv(io.StringIO(local))
    assert got[["measure", "system", "alpha"]].equals(expected[["measure", "system", "alpha"]])
    numeric = [c for c in expected.columns if expected[c].dtype.kind == "f"]
    np.testing.assert_allclose(got[numeric], expected[numeric], rtol=1e-9, atol=1e-12)
    assert got["significant"].equals(expected["significant"])
