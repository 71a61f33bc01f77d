"""A risk measure declared with ``rk.register_risk`` is shown wherever the built-in ones are: the
default columns, headers, decimals, direction and marks of the tables for people and papers, the
risk columns of ``rk.compare``, the report's risk table, shading and α curves, and the rankings;
and the "Your own risk measure" section of docs/risk.md runs as written and prints what it shows.

The presentation is tested on tables that hold the declared measure's column, computed here by
numpy from its definition (LossURisk(α) = (1+α)·Σδ⁻/c, the losses term of URisk, Dinçer, Macdonald &
Ounis, SIGIR 2014, eq. 4), whatever computes the column in ``risk_table``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest
from declared_measures import LossURisk, registered
from doc_blocks import run_statements

import riskeval as rk
from riskeval import formatting
from riskeval.analysis import measure_ranks
from riskeval.inference import comparison
from riskeval.measures.declared import RISK_MEASURES
from riskeval.model.matrix import as_matrix
from riskeval.reporting import explorer
from riskeval.reporting.sections import alpha_curves_section, summary_section

PAGE = Path(__file__).resolve().parents[1] / "docs" / "risk.md"
SYSTEMS = ["bm25base_p", "bm25tuned_p", "p_bert", "UNH_bm25"]


@dataclass(frozen=True)
class Spread(rk.RiskMeasure):
    """A lower-is-better, ranked, marked measure with 2 decimals: the mean |δ| (for the tests)."""

    name: ClassVar[str] = "Spread"
    column: ClassVar[str] = "spread"
    citation: ClassVar[str] = "for the tests"
    header: ClassVar[str] = "|δ|"
    decimals: ClassVar[int] = 2
    higher_is_better: ClassVar[bool] = False
    marked: ClassVar[bool] = True
    ranked: ClassVar[bool] = True

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        return (sums.sum_pos - sums.sum_neg) / sums.n


@pytest.fixture
def declared():
    """LossURisk declared for one test, removed afterwards."""
    with registered(LossURisk):
        yield LossURisk


@pytest.fixture
def spread():
    with registered(Spread):
        yield Spread


def _loss(M: pd.DataFrame, baseline: str, systems: pd.Series, alphas: pd.Series) -> np.ndarray:
    """LossURisk of ``systems`` at ``alphas`` against the system ``baseline``, from its definition."""
    delta = M.to_numpy() - M.loc[baseline].to_numpy()
    mean_loss = pd.Series(np.minimum(delta, 0.0).mean(axis=1), index=M.index.astype(str))
    return (1.0 + alphas.to_numpy()) * mean_loss.loc[systems.astype(str)].to_numpy()


@pytest.fixture
def with_loss_column(monkeypatch, declared):
    """``risk_table`` (where the report and ``rk.compare`` call it) with LossURisk's column against
    a system baseline, as a table of the declared measures has it."""
    from riskeval.analysis import table

    original = table.risk_table

    def risk_table(X: Any, baseline: Any = None, alphas: Any = None, **kwargs: Any) -> pd.DataFrame:
        t = original(X, baseline=baseline, alphas=alphas, **kwargs)
        M = as_matrix(X)
        t[LossURisk.column] = _loss(M, str(t["baseline"].iloc[0]), t["system"], t["alpha"])
        return t

    monkeypatch.setattr(table, "risk_table", risk_table)
    monkeypatch.setattr(comparison, "risk_table", risk_table)
    return risk_table


def _table() -> pd.DataFrame:
    X = rk.example_scores().loc[SYSTEMS]
    t = rk.risk_table(X, "bm25base_p", alphas=[5])
    t[LossURisk.column] = _loss(X, "bm25base_p", t["system"], t["alpha"])
    return t


def _shown_markdown() -> str:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Your own risk measure") : text.index("## Limits")]
    return re.search(r"`markdown` is:\n\n```markdown\n(.*?)```", section, flags=re.S).group(1)


def test_the_tables_show_a_declared_measure_as_the_page_says(declared):
    t = _table()
    # the default columns of a risk table: after the measures of the registry, before the counts
    assert formatting.compact()[-4:] == ("loss_urisk", "wins", "losses", "loss20")
    assert rk.to_markdown(t, columns="system, urisk, loss_urisk") == _shown_markdown()
    head = next(line for line in rk.to_latex(t).splitlines() if line.startswith("system"))
    assert "GeoRisk & Loss URisk & wins" in head
    # its declared 4 decimals and its best value (the largest: higher_is_better) in bold
    assert "\\textbf{$-$0.0604}" in rk.to_latex(t, columns="system, loss_urisk")
    assert re.search(r"p_bert +-0\.0604\n", formatting.to_text(t, columns="system,loss_urisk"))


def test_a_declared_direction_decimals_and_mark_are_obeyed(spread):
    frame = pd.DataFrame(
        {"system": ["a", "b", "c"], "spread": [0.123, 0.456, 0.789], "significant": [False, True, False]}
    )
    markdown = rk.to_markdown(frame)
    assert markdown.splitlines()[0] == "| system | \\|δ\\| |"
    # 2 decimals; the smallest is best; † on the first marked column the table has
    assert "| a | **0.12** |" in markdown and "| b | 0.46† |" in markdown
    assert formatting.marked()[:3] == ("urisk", "trisk", "spread")
    assert explorer.curve_measures(None)[-1] is Spread
    assert explorer.curve_measures(("urisk", "georisk")) == [rk.URisk, rk.GeoRisk]


def test_ranks_follow_the_declared_direction(spread):
    t = pd.DataFrame(
        {
            "system": ["a", "b", "c", "a", "b", "c"],
            "baseline": "c",
            "alpha": [1.0, 1.0, 1.0, 5.0, 5.0, 5.0],
            "spread": [0.2, 0.1, 0.0, 0.3, 0.4, 0.0],
        }
    )
    # no rank_spread column: ranked by value, the smallest first, the baseline c unranked
    ranks = measure_ranks.rank_by(t, Spread)
    np.testing.assert_array_equal(ranks.to_numpy(), [2.0, 1.0, np.nan, 1.0, 2.0, np.nan])


def test_compare_heads_a_declared_measure_and_keeps_its_decimals(with_loss_column):
    X = rk.example_scores().loc[SYSTEMS]
    table = rk.compare(X, "bm25base_p", risk=["URisk@5", "LossURisk@5"])
    rows = {line.split(" & ")[1]: line for line in table.to_latex().splitlines() if " & " in line}
    assert rows["system"].endswith("& URisk@5 & Loss URisk@5 \\\\")
    # 4 decimals; the best (largest) value in bold: the baseline's own 0, no loss against itself
    assert rows["p\\_bert"].endswith("& $-$0.0604 \\\\")
    assert rows["bm25base\\_p"].endswith("& \\textbf{0.0000} \\\\")
    assert "| Loss URisk@5 |" in table.to_markdown()


def test_the_report_shows_a_declared_measure(with_loss_column):
    X = rk.example_scores().loc[SYSTEMS]
    r = rk.report(X, baseline="bm25base_p", alphas=[5], sections=[summary_section, alpha_curves_section])
    html = r.html
    data = re.search(r'<script type="application/json" id="rk-data-m0">(.*?)</script>', html, re.S)
    d = json.loads(data.group(1))
    assert ["loss_urisk", "Loss URisk", 4, False] in d["columns"]
    at = d["systems"].index("p_bert")
    assert d["table"][0]["loss_urisk"][at] == pytest.approx(-0.0604, abs=5e-5)
    summary = html.split('id="summary"')[1].split("<details>")[0]
    assert "<th>Loss URisk</th>" in summary and ">-0.0604<" in summary
    # not ranked: no α curve of its own; the curves of the ranked built-ins
    assert [m["key"] for m in d["curves"]["series"]] == ["urisk", "trisk", "georisk"]


def test_the_page_example_runs_and_prints_what_it_shows():
    """Needs ``risk_table`` and ``bootstrap_ci`` to compute a declared measure."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Your own risk measure") : text.index("## Limits")]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    namespace: dict[str, Any] = {}
    try:
        (value,) = run_statements(code, str(PAGE), namespace)
        assert value == pytest.approx(-0.0604, abs=5e-5)
        assert namespace["markdown"] == _shown_markdown()
        ci = namespace["ci"]
        assert list(ci["risk"].unique()) == ["LossURisk"]
        assert (ci["low"] <= ci["estimate"]).all() and (ci["estimate"] <= ci["high"]).all()
    finally:
        RISK_MEASURES.pop("LossURisk", None)
