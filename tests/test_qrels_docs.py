"""The command-line examples of docs/qrels.md print what the page shows: every ``text`` block that
starts with ``$ riskeval`` is run on the campaign data (TREC DL 2020, CLEF eHealth 2015) and its
output compared line by line."""

from __future__ import annotations

import glob
import re
import shlex
from pathlib import Path

import pytest

from riskeval.cli.main import main
from tests.shared_data import shared_data

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "qrels.md"
FOLDERS = ("clef-ehealth-2015-task2", "trec-dl-2020-passage")


def _examples() -> list:
    blocks = re.findall(
        r"```text\n\$ (riskeval [^\n]*)\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S
    )
    return [pytest.param(command, output, id=command[9:60]) for command, output in blocks]


def test_the_page_has_examples():
    assert len(_examples()) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("command, output", _examples())
def test_page_example_prints_what_the_page_shows(command, output, capsys, monkeypatch, tmp_path):
    for folder in FOLDERS:
        if folder in command:
            (tmp_path / folder).symlink_to(shared_data(folder))
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
    assert capsys.readouterr().out.splitlines() == output.rstrip("\n").splitlines()
