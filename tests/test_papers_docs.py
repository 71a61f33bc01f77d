"""The Python examples of docs/papers.md run as written.  Blocks preceded by ``<!-- needs the
query-variation data -->`` read the UQV100 and Robust04 score files: they run from the folder that
holds ``query-variations/`` and are skipped, with a message, when it is absent."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import matplotlib
from shared_data import shared_data

from riskeval.errors import RiskevalWarning

matplotlib.use("Agg")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "papers.md"
DATA_MARK = "<!-- needs the query-variation data -->\n"


def blocks(with_data: bool) -> list[str]:
    found = re.findall(
        r"(<!-- needs the query-variation data -->\n)?```python\n(.*?)```",
        PAGE.read_text("utf-8"),
        flags=re.S,
    )
    return [code for mark, code in found if bool(mark) == with_data]


def run(codes: list[str]) -> None:
    import matplotlib.pyplot as plt

    for code in codes:
        exec(compile(code, "docs/papers.md", "exec"), {})
    plt.close("all")


def test_papers_page_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    codes = blocks(with_data=False)
    assert codes
    run(codes)
    assert list(tmp_path.iterdir())


def test_papers_page_data_examples_run(monkeypatch):
    codes = blocks(with_data=True)
    assert codes
    monkeypatch.chdir(shared_data("query-variations").parent)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RiskevalWarning)  # the documented count of unequal topics
        run(codes)
