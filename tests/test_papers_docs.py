"""The Python examples of docs/papers.md run as written (each page section's figures are written to a
temporary folder)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "papers.md"


def test_papers_page_examples_run(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/papers.md", "exec"), {})
    plt.close("all")
    assert list(tmp_path.iterdir())
