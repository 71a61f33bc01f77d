"""The Python examples of docs/papers.md give what their comments say.  Blocks preceded by ``<!--
needs the query-variation data -->`` read the UQV100 and Robust04 score files; they run, with the
others, in test_docs_snippets.py."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from doc_blocks import run_statements
from scipy import stats

import riskeval as rk

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


def run(codes: list[str]) -> list[list]:
    """Each block's expression values (:func:`doc_blocks.run_statements`), blocks in page order."""
    import matplotlib.pyplot as plt

    values = [run_statements(code, "docs/papers.md", {}) for code in codes]
    plt.close("all")
    return values


def urisk(s: np.ndarray, b: np.ndarray, alpha: float) -> float:
    """URisk (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4), straight from the formula."""
    d = np.asarray(s) - np.asarray(b)
    return float(np.where(d < 0, (1 + alpha) * d, d).mean())


def test_papers_page_examples_give_what_the_comments_say(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    own, corr, ranks, runs, chisq, jack, _families = run(blocks(with_data=False))
    X = rk.example_scores()
    V = X.to_numpy()
    # own baselines: each run against bm25base_p or bm25tuned_p
    for _, row in own[0].iterrows():
        base = "bm25base_p" if row["system"].startswith("bm25base") else "bm25tuned_p"
        assert row["urisk"] == pytest.approx(urisk(X.loc[row["system"]], X.loc[base], 5))
    # correlation with the baseline over every ordered pair of runs (37 × 36 = 1,332)
    statistic, pvalue, frisk = corr[0]
    assert (round(statistic, 2), round(frisk, 2)) == (0.36, -0.47) and pvalue < 1e-40
    # Figure 3: each run's URisk(5) against the other
    x_a, x_b = runs[0]
    assert x_a == pytest.approx(urisk(X.loc["p_bert"], X.loc["bm25base_p"], 5))
    assert x_b == pytest.approx(urisk(X.loc["bm25base_p"], X.loc["p_bert"], 5))
    assert (round(x_a, 4), round(x_b, 4)) == (0.1818, -1.4432)
    assert runs[2].loc["MEAN"].to_numpy() == pytest.approx([0, 0], abs=1e-9)
    # Pearson's chi-square of the matrix (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4)
    E = V.sum(axis=1, keepdims=True) * V.sum(axis=0) / V.sum()
    g2 = ((V - E) ** 2 / E).sum()
    test = chisq[1]
    assert test.statistic == pytest.approx(g2) and round(g2, 2) == 78.19
    assert test.pvalue == pytest.approx(stats.chi2.sf(g2, 36 * 42))
    # the jackknife of URisk: unbiased, and its pseudo-values are the per-topic risk-reward scores
    bias, corrected_minus_urisk = jack[0]
    assert abs(bias) < 1e-12 and abs(corrected_minus_urisk) < 1e-12
    d = (X.loc["UNH_bm25"] - X.loc["bm25base_p"]).to_numpy()
    x = pd.Series(np.where(d < 0, 6 * d, d), index=X.columns)
    np.testing.assert_allclose(jack[1].to_numpy(), x.nsmallest(3).to_numpy(), atol=1e-12)
    assert list(jack[1].index) == list(x.nsmallest(3).index)
    assert {p.name for p in tmp_path.iterdir()} >= {"correlation.png", "figure3.png", "biplot.png"}
