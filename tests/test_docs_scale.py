"""The Python examples of docs/scale.md run as written (a block preceded by ``<!-- not run: ... -->``
needs a cluster and is skipped): Dask evaluation gives the local values, and the long-table risk
equals risk_table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "scale.md"


@pytest.mark.filterwarnings("ignore::riskeval.errors.RiskevalWarning")
def test_scale_examples_run(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    found = re.findall(
        r"(<!-- not run[^>]*-->\n)?```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S
    )
    blocks = [code for skip, code in found if not skip]
    assert len(blocks) == 2
    for code in blocks:
        exec(compile(code, str(PAGE), "exec"), {})
    assert (tmp_path / "scores").is_dir()
