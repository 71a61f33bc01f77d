"""docs/coming-from.md: its fast examples print what the page shows (every example runs, without a
warning, in test_docs_snippets.py), and its measure table is riskeval's (every spelling in a row
gives the row's ir_measures name and back)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

from riskeval.io.measures import canonical_measure, spellings

PAGE = Path(__file__).resolve().parents[1] / "docs" / "coming-from.md"
SLOW = "<!-- slow:"


def _blocks() -> list[tuple[bool, str]]:
    """(slow, code) of every python block, in page order."""
    found = re.findall(r"(<!-- slow:[^>]*-->\n)?```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return [(bool(marker), code) for marker, code in found]


def _shown_output(code: str) -> str:
    """The comment lines that follow a print(...) line: what the page says the block prints."""
    shown, after_print = [], False
    for line in code.splitlines():
        if line.startswith("print("):
            after_print = True
        elif after_print and line.startswith("#"):
            shown.append(line[2:].rstrip())
        else:
            after_print = False
    return "\n".join(shown)


def _run(blocks: list[str], folder: Path, monkeypatch) -> None:
    monkeypatch.chdir(folder)
    namespace: dict = {}
    for code in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, str(PAGE), "exec"), namespace)  # noqa: S102
        printed = "\n".join(line.rstrip() for line in out.getvalue().splitlines())
        assert printed == _shown_output(code), code


def test_snapshot_examples_print_what_the_page_shows(tmp_path, monkeypatch):
    pytest.importorskip("pyterrier")
    blocks = [code for slow, code in _blocks() if not slow]
    assert len(blocks) >= 6
    _run(blocks, tmp_path, monkeypatch)


def _table_rows() -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    table = text[text.index("| ir_measures | trec_eval | ranx |") :].split("\n\n")[0].splitlines()[2:]
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in table]


def test_measure_table_is_riskevals():
    rows = _table_rows()
    assert len(rows) >= 15
    for ir, trec, ranx in rows:
        assert canonical_measure(ir) == ir
        expected = {
            "ir_measures": ir,
            "trec_eval": None if trec == "—" else trec,
            "ranx": None if ranx == "—" else ranx,
        }
        assert spellings(ir) == expected, ir
        for spelled in (trec, ranx):
            if spelled != "—":
                assert canonical_measure(spelled) == ir, spelled
