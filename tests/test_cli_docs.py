"""The command-line examples of docs/cli.md print what the page shows: every ``text`` block that
starts with ``$ riskeval`` is run and its output compared line by line (up to a ``...`` line, which
stands for the rest)."""

from __future__ import annotations

import glob
import re
import shlex
from pathlib import Path

import pytest
from shared_data import shared_data

from riskeval.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli.md"
CLEF = "clef-ehealth-2015-task2"


def _examples() -> list:
    blocks = re.findall(
        r"```text\n\$ (riskeval [^\n]*)\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S
    )
    params = []
    for command, output in blocks:
        if "--example" not in command and CLEF not in command:
            continue  # the reader's own files (bad.csv...)
        marks = [pytest.mark.slow] if CLEF in command else []  # campaign data
        params.append(pytest.param(command, output, marks=marks, id=command[9:60]))
    return params


@pytest.mark.parametrize("command, output", _examples())
def test_snapshot_page_example_prints_what_the_page_shows(command, output, capsys, monkeypatch, tmp_path):
    """Regression snapshot: the page's outputs were pasted from riskeval's own runs; a change of
    any printed line is caught here (the values themselves are checked in the measures' tests)."""
    if CLEF in command:  # run from a folder holding the campaign's data, as the page says
        (tmp_path / CLEF).symlink_to(shared_data(CLEF))
    monkeypatch.chdir(tmp_path)
    args = []
    for arg in shlex.split(command)[1:]:
        if any(c in arg for c in "*?["):
            found = sorted(glob.glob(arg))
            assert found, f"no file of the campaign data matches {arg}"
            args += found
        else:
            args.append(arg)
    main(args)
    got = capsys.readouterr().out.splitlines()
    want = output.rstrip("\n").splitlines()
    if "..." in want:
        want = want[: want.index("...")]
        got = got[: len(want)]
    assert got == want
