"""Every error about an input file is riskeval's and names the file (and the line, where there is
one): a damaged Parquet file, pyarrow's ``OSError`` inside; a families file or a baseline map that
lists a system twice, leaves one out or misspells one, with the close names."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.errors import InputFormatError
from riskeval.io.baseline_map import read_baseline_map
from riskeval.io.families import read_families

SYSTEMS = ["bm25", "bm25-rm3", "dph"]


@pytest.fixture
def scores(tmp_path):
    path = tmp_path / "scores.csv"
    pd.DataFrame(
        [[0.1, 0.2], [0.3, 0.2], [0.5, 0.4]], index=pd.Index(SYSTEMS, name="system"), columns=["1", "2"]
    ).to_csv(path)
    return path


@pytest.fixture
def damaged_parquet(tmp_path):
    """A long score table whose Parquet footer (its Thrift metadata) is overwritten."""
    pytest.importorskip("pyarrow")
    path = tmp_path / "scores.parquet"
    rk.example_scores().stack().rename("score").reset_index().to_parquet(path, index=False)
    data = bytearray(path.read_bytes())
    data[-40:-8] = bytes(b ^ 0x5A for b in data[-40:-8])
    path.write_bytes(bytes(data))
    return path


def test_a_damaged_parquet_file_is_an_input_error_naming_it(damaged_parquet, capsys):
    with pytest.raises(
        InputFormatError, match=rf"^{damaged_parquet}: is not a readable Parquet file: .*thrift"
    ):
        rk.io.read_scores(damaged_parquet)
    code, out, err = run_cli(["risk", damaged_parquet, "-b", "mean"], capsys)
    assert (code, out) == (2, "")
    assert (
        err.startswith(f"riskeval: error: {damaged_parquet}: is not a readable Parquet file")
        and err.count("\n") == 1
    )


def test_a_damaged_parquet_table_for_dask_is_an_input_error_naming_it(damaged_parquet):
    pytest.importorskip("dask.dataframe")
    from riskeval.analysis import long_risk_table

    with pytest.raises(
        InputFormatError, match=rf"^{damaged_parquet}: is not a readable Parquet file or folder"
    ):
        long_risk_table(damaged_parquet)


def damage_a_page(path, column: int, where: str) -> None:
    """Overwrite 8 bytes of a page of ``column``'s chunk in the first row group: its dictionary
    page's compressed data, or the header or data of its first data page; the footer stays whole."""
    pq = pytest.importorskip("pyarrow.parquet")
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(column)
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    end = start + chunk.total_compressed_size
    at = {
        "dictionary page": (start + chunk.data_page_offset) // 2,
        "page header": chunk.data_page_offset + 2,
        "data page": (chunk.data_page_offset + end) // 2,
    }[where]
    data = bytearray(path.read_bytes())
    data[at : at + 8] = bytes(b ^ 0x5A for b in data[at : at + 8])
    path.write_bytes(bytes(data))
    assert pq.ParquetFile(path).metadata.num_rows == 1591  # the footer reads


@pytest.mark.parametrize("where", ["dictionary page", "page header", "data page"])
def test_a_damaged_page_is_an_input_error_naming_the_file_in_memory_and_on_dask(where, tmp_path, capsys):
    pytest.importorskip("dask.dataframe")
    from riskeval.analysis import long_risk_table

    path = tmp_path / "scores.parquet"
    rk.example_scores().stack().rename("score").reset_index().to_parquet(path, index=False)
    damage_a_page(path, 0, where)  # the system column
    pattern = rf"^{path}: is not a readable Parquet file: (Corrupt snappy|Couldn't deserialize|Unexpected)"
    with pytest.raises(InputFormatError, match=pattern):
        rk.io.read_scores(path)
    with pytest.raises(InputFormatError, match=pattern):  # read by a Dask task, not by the footer's
        long_risk_table(path)
    code, out, err = run_cli(["risk", path, "-b", "mean"], capsys)
    assert (code, out) == (2, "") and err.startswith(f"riskeval: error: {path}: ") and err.count("\n") == 1


def test_an_input_error_crosses_processes_whole():
    """A Dask worker or a ``--jobs`` process hands its errors back pickled."""
    error = InputFormatError([("a.parquet", "is damaged")] * 25, omitted=3)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is InputFormatError and again.problems == error.problems
    assert str(again) == str(error) and str(again).endswith("... and 8 more problem(s)")


def test_a_missing_parquet_file_still_says_it_cannot_be_opened(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    code, _, err = run_cli(["risk", tmp_path / "absent.parquet"], capsys)
    assert code == 2 and "absent.parquet" in err and "No such file" in err


def problems(read, path, text, *args):
    """The problems of the InputFormatError ``read(path, *args)`` raises for a file of ``text``."""
    path.write_text(text)
    with pytest.raises(InputFormatError) as caught:
        read(path, *args)
    return caught.value.problems


def test_baseline_map_names_the_line_the_entry_and_the_close_systems(tmp_path, scores, capsys):
    path = tmp_path / "own.csv"
    text = "system,baseline\nbm25,bm25\nbm25-rm4,bm25\n\ndph,bm52\nother-table,x\n"
    assert problems(read_baseline_map, path, text, SYSTEMS) == [
        (str(path), "gives no baseline for 1 system(s) of the scores: 'bm25-rm3'; add a line for each"),
        (f"{path}:3", "system 'bm25-rm4' is not in the scores; did you mean 'bm25-rm3'?"),
        (f"{path}:6", "system 'other-table' is not in the scores"),
        (f"{path}:5", "the baseline 'bm52' of 'dph' is not a system of the scores; did you mean 'bm25'?"),
    ]
    assert read_baseline_map(path).to_dict()["bm25-rm4"] == "bm25"  # without the scores: as read
    code, _, err = run_cli(["risk", scores, "--baseline-map", path], capsys)
    assert code == 2 and f"{path}:3: system 'bm25-rm4' is not in the scores; did you mean 'bm25-rm3'?" in err


def test_a_baseline_map_of_every_system_ignores_other_tables_systems(tmp_path):
    path = tmp_path / "own.csv"
    path.write_text("bm25 bm25\nbm25-rm3 bm25\ndph bm25\nother-table x\n")
    assert read_baseline_map(path, SYSTEMS).to_dict() == {
        "bm25": "bm25",
        "bm25-rm3": "bm25",
        "dph": "bm25",
        "other-table": "x",
    }


def test_families_name_the_line_of_a_system_listed_twice(tmp_path):
    path = tmp_path / "families.csv"
    text = "system,family,parameter\nbm25,bm25,0.4\n\nbm25-rm3,rm3,\nbm25,bm25,0.9\n"
    assert problems(read_families, path, text) == [
        (f"{path}:5", f"system 'bm25' is listed twice (first at {path}:2); list each once")
    ]


def test_families_name_a_system_left_out_and_the_misspelt_entry(tmp_path, scores, capsys):
    path = tmp_path / "families.csv"
    text = "system,family,parameter\nbm25,bm25,0.4\nbm25-rm3,rm3,\n\ndhp,dfr,\n"
    misspelt = (f"{path}:5", "system 'dhp' is not in the scores; did you mean 'dph'?")
    left_out = (str(path), "gives no family for 1 system(s) of the scores: 'dph'; add a line for each")
    assert problems(read_families, path, text, SYSTEMS) == [left_out, misspelt]
    code, _, err = run_cli(["bias-variance-families", scores, "--families", path, "--target", "dph"], capsys)
    assert code == 2 and ": ".join(misspelt) in err


@pytest.mark.slow
def test_a_damaged_page_read_by_a_worker_process_reaches_the_caller_as_an_input_error(tmp_path):
    distributed = pytest.importorskip("distributed")
    from riskeval.analysis import long_risk_table

    path = tmp_path / "scores.parquet"
    rk.example_scores().stack().rename("score").reset_index().to_parquet(path, index=False)
    damage_a_page(path, 0, "data page")
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster),
        pytest.raises(InputFormatError, match=rf"^{path}: is not a readable Parquet file: "),
    ):
        long_risk_table(path)
