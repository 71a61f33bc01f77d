"""The Python examples of the plots and report pages run as written and give what the pages say
(a block preceded by ``<!-- not run: ... -->`` needs the reader's own files and is skipped)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from doc_blocks import run_statements
from scipy import stats

import riskeval as rk

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parents[1] / "docs"


def examples(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.findall(r"(<!-- not run[^>]*-->\n)?```python\n(.*?)```", text, flags=re.S)
    return [code for skip, code in found if not skip]


def test_plots_page_draws_the_trisk_it_says(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    (code,) = examples("plots.md")
    drawn = run_statements(code, "plots.md", {})[0]  # d.trisk.loc[5.0, "p_bert"], d.critical
    plt.close("all")
    X = rk.example_scores()
    # TRisk(5) of p_bert against MEAN: URisk over its SE (Dinçer, Macdonald & Ounis, SIGIR 2014,
    # eqs. 4 and 9), and the two-sided 5% critical value of t on 42 degrees of freedom
    d = (X.loc["p_bert"] - X.mean()).to_numpy()
    x = np.where(d < 0, 6 * d, d)
    assert drawn[0] == pytest.approx(x.mean() / (x.std(ddof=1) / np.sqrt(x.size)))
    assert drawn[1] == pytest.approx(stats.t.ppf(0.975, 42))
    assert (tmp_path / "risk.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_report_page_writes_the_reports_it_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, custom = examples("report.md")
    (path, sections, alphas), chosen, two_sections = run_statements(first, "report.md", {})
    assert Path(path).resolve() == (tmp_path / "riskeval-report.html").resolve()
    assert chosen == ["URisk", "GeoRisk"]
    assert "<th>risk measures</th><td>URisk, GeoRisk</td>" in (tmp_path / "chosen.html").read_text(
        encoding="utf-8"
    )
    assert alphas == [0, 1, 5, 10] and sections[0] == "Risk per α"
    assert two_sections == ("nDCG@10: Risk per α", "nDCG@10: Per-topic analysis")
    page = (tmp_path / "riskeval-report.html").read_text(encoding="utf-8")
    assert "p_bert" in page and "bm25base_p" in (tmp_path / "two.html").read_text(encoding="utf-8")
    assert "nDCG@10 (rounded)" in (tmp_path / "two-measures.html").read_text(encoding="utf-8")
    (custom_sections,) = run_statements(custom, "report.md", {})
    assert custom_sections == ("Risk per α", "Spread over topics")
