"""The Python examples of the CLI, plots and report pages run as written (a block preceded by
``<!-- not run: ... -->`` needs the reader's own files and is skipped)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ("plots.md", pytest.param("report.md", marks=pytest.mark.slow))  # report.md writes whole reports


def examples(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.findall(r"(<!-- not run[^>]*-->\n)?```python\n(.*?)```", text, flags=re.S)
    return [code for skip, code in found if not skip]


@pytest.mark.parametrize("page", PAGES)
def test_examples_run(page, tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    blocks = examples(page)
    assert blocks
    for code in blocks:
        exec(compile(code, page, "exec"), {})
    plt.close("all")
    assert list(tmp_path.iterdir())  # each page's examples write a file (a figure, a report)
