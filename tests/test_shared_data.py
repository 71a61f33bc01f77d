"""A missing data set, browser or extra skips the test that needs it, with a message naming what
is missing, and fails it under RISKEVAL_REQUIRE_DATA=1 / RISKEVAL_REQUIRE_BROWSER=1 /
RISKEVAL_REQUIRE_EXTRAS=1 (what .ci/run sets), so that a complete run cannot pass by skipping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import processes
import shared_data

TESTS = Path(__file__).resolve().parent

NEEDS_BOTH = """
import shared_data


def test_needs_data():
    shared_data.shared_data("no-such-campaign", "qrels.txt")


def test_needs_data_that_is_there():
    assert shared_data.shared_data("campaign", "qrels.txt").read_text().startswith("1 0 d1 1")


def test_needs_browser():
    shared_data.CHROMIUM = ("no-such-browser-executable",)
    shared_data.chromium()
"""


def run_pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    test_file = tmp_path / "test_needs.py"
    (tmp_path / "data" / "campaign").mkdir(parents=True)
    (tmp_path / "data" / "campaign" / "qrels.txt").write_text("1 0 d1 1\n")
    test_file.write_text(NEEDS_BOTH, encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("RISKEVAL_REQUIRE_")}
    environ.update(PYTHONPATH=os.pathsep.join([str(TESTS), environ.get("PYTHONPATH", "")]), **env)
    return processes.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            str(test_file),
        ],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
    )


def test_missing_data_and_browser_skip_with_a_message(tmp_path):
    done = run_pytest(tmp_path, RISKEVAL_DATA=str(tmp_path / "data"), RISKEVAL_REQUIRE_DATA="0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 2 skipped" in done.stdout
    missing = tmp_path / "data" / "no-such-campaign" / "qrels.txt"
    assert f"campaign data not found: {missing} (set RISKEVAL_DATA" in done.stdout
    assert "Chromium is not installed" in done.stdout or "playwright is not installed" in done.stdout


def test_required_data_and_browser_fail_when_missing(tmp_path):
    done = run_pytest(
        tmp_path,
        RISKEVAL_DATA=str(tmp_path / "data"),
        RISKEVAL_REQUIRE_DATA="1",
        RISKEVAL_REQUIRE_BROWSER="1",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 1 passed" in done.stdout
    assert "RISKEVAL_REQUIRE_DATA is set, so this is a failure" in done.stdout
    assert "RISKEVAL_REQUIRE_BROWSER is set, so this is a failure" in done.stdout


def test_a_failure_for_want_of_an_extra_is_a_skip_naming_it(monkeypatch):
    monkeypatch.setattr(shared_data, "_installed", lambda module: module != "pyarrow")
    monkeypatch.delenv("RISKEVAL_REQUIRE_EXTRAS", raising=False)
    for text in (
        "ImportError: Unable to find a usable engine\n - `Import pyarrow` failed.",  # pandas
        "RiskevalError: Reading Parquet files needs pyarrow: pip install 'riskeval[parquet]'.",
        "ModuleNotFoundError: No module named 'pyarrow.parquet'",
    ):
        assert shared_data.missing_extra(text).startswith(
            "needs riskeval's 'parquet' extra (pyarrow not installed)"
        )
    assert shared_data.missing_extra("No module named 'lightgbm'") is None  # installed here
    assert (
        shared_data.missing_extra("AssertionError: pip install 'riskeval[parquet]'") is None
    )  # not an error of it
    monkeypatch.setenv("RISKEVAL_REQUIRE_EXTRAS", "1")
    assert shared_data.missing_extra("No module named 'pyarrow'") is None  # a failure, as .ci/run wants
