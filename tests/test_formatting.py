"""Tables for people and papers: p-values, α and counts written as people write them; LaTeX with
booktabs rules, escaping, bold best values and significance marks; Markdown pipe tables that a run
name cannot break."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import riskeval as rk
from riskeval.formatting import format_alpha, format_pvalue, latex_escape, markdown_escape, to_text

NASTY = "a&b_%$#{x}~^\\|<b>*[l](u)`"


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "system": ["bm25", NASTY, "bert", "bm25", NASTY, "bert"],
            "alpha": [0.0, 0.0, 0.0, 5.0, 5.0, 5.0],
            "baseline": ["bm25"] * 6,
            "mean": [0.5, 0.6, 0.7, 0.5, 0.6, 0.7],
            "urisk": [0.0, 0.1, 0.2, 0.0, -0.3, 0.05],
            "pvalue": [np.nan, 2.13e-11, 0.0, np.nan, 0.0159, 0.452],
            "significant": [False, True, True, False, True, False],
            "wins": [0, 30, 31, 0, 30, 31],
            "rank_urisk": [np.nan, 2.0, 1.0, np.nan, 2.0, 1.0],
        }
    )


@pytest.mark.parametrize(
    "p, text",
    [
        (0.0159, "0.0159"),
        (0.45175, "0.452"),
        (1.0, "1"),
        (2.13e-11, "2.13e-11"),
        (6.1e-4, "6.1e-4"),
        (0.0, "<1e-300"),  # underflow: a bound, not the smallest double
    ],
)
def test_pvalues_three_significant_digits_scientific_below_one_in_a_thousand(p, text):
    assert format_pvalue(p) == text


@given(st.floats(min_value=0, max_value=1, allow_nan=False))
def test_a_pvalue_is_never_printed_as_zero_and_reads_back_close(p):
    text = format_pvalue(p)
    assert text not in ("0", "0.0", "0.0000")
    if not text.startswith("<"):
        assert float(text) == pytest.approx(p, rel=5e-3)


def test_alpha_without_trailing_zeros():
    assert [format_alpha(a) for a in (5.0, 0.5, -20.0, 10.0)] == ["5", "0.5", "-20", "10"]


def test_text_leaves_out_the_baseline_row_once_and_writes_counts_as_integers():
    text = to_text(_table(), caption="Risk against bm25")
    lines = text.splitlines()
    assert lines[0] == "Risk against bm25"
    assert lines[-1] == "bm25 is the baseline: its own rows against itself left out."
    assert not any(line.split()[0] == "bm25" for line in lines[2:-1])
    assert "2.13e-11" in text and "<1e-300" in text and "NaN" not in text
    row = lines[2].split()
    assert row[1] == "0" and "30" in row and "2" in row  # α, wins, rank: no ".0000"


def test_latex_structure_escaping_bold_and_marks():
    latex = rk.to_latex(_table(), caption="URisk on nDCG@10, α ∈ {0, 5}, 50% of topics", label="tab:risk")
    lines = latex.splitlines()
    assert lines[0] == r"\begin{table}" and lines[-1] == r"\end{table}"
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert r"\label{tab:risk}" in latex
    caption = next(line for line in lines if line.startswith(r"\caption{"))
    assert r"$\alpha$ $\in$ \{0, 5\}, 50\% of topics" in caption and "bm25 is the baseline" in caption
    assert r"\begin{tabular}{lrlrrrrr}" in latex  # system, α, baseline, mean, urisk, p, wins, rank
    escaped = latex_escape(NASTY)
    assert escaped in latex and NASTY not in latex
    commands = (
        r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}|\\[&%$#_{}]"
    )
    assert not set(re.sub(commands, "", escaped)) & set("&%$#_{}~^\\|<>")  # every special escaped
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    assert len(body) == 4 and all(line.endswith(r"\\") and line.count(" & ") == 7 for line in body)
    bert0 = next(line for line in body if line.startswith("bert & 0"))
    # the best mean and URisk at α = 0 are bert's; its URisk is significant: marked
    assert r"\textbf{0.7000}" in bert0 and r"\textbf{0.2000$^\dagger$}" in bert0
    assert r"$2.13 \times 10^{-11}$" in latex and r"$<$" in latex
    nasty5 = next(line for line in body if line.startswith(escaped + " & 5"))
    assert r"$-$0.3000$^\dagger$" in nasty5 and r"\textbf{$-$0.3000" not in nasty5  # worst: not bold
    assert "significant" not in lines[lines.index(r"\toprule") + 1]


def test_bold_marks_the_best_value_per_alpha_and_direction():
    table = _table()
    latex = rk.to_latex(table, bold_best=True)
    body = latex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    at5 = [line for line in body if " & 5 & " in line]
    best5 = [line for line in at5 if r"\textbf{0.0500" in line]
    assert len(best5) == 1 and best5[0].startswith("bert")  # the highest URisk at α = 5
    assert all(r"\textbf{1}" in line for line in body if line.startswith("bert"))  # rank: smallest
    plain = rk.to_latex(table, bold_best=False)
    assert r"\textbf" not in plain


def test_markdown_pipe_table_a_name_cannot_break():
    md = rk.to_markdown(_table(), caption="risk | table")
    lines = md.splitlines()
    assert lines[0] == r"risk \| table"
    header, rule = lines[2], lines[3]
    assert header.startswith("| system | alpha |") and rule.startswith("| :--- | ---: |")
    rows = [line for line in lines[4:] if line.startswith("|")]
    assert len(rows) == 4
    columns = header.count(" | ")
    for row in rows:  # an escaped | does not split a cell
        assert len(re.split(r"(?<!\\) \| ", row)) - 1 == columns
    assert markdown_escape(NASTY) in md and "<b>" not in md
    assert "**0.2000†**" in md and "bm25 is the baseline" in lines[-2]


def test_learning_to_rank_tests_print_small_pvalues_in_scientific_notation():
    tests = pd.DataFrame(
        {
            "model": ["T-FARO α=5"],
            "against": ["LambdaMART"],
            "URisk": [0.01],
            "TRisk": [9.5],
            "p": [3.2e-12],
            "p_perm": [1e-4],
            "p_adj": [6.4e-12],
            "p_perm_adj": [2e-4],
        }
    )
    text = to_text(tests)
    assert "0.0000" not in text and "3.2e-12" in text and "1e-4" in text and "2e-4" in text


def test_groups_choose_the_rows_among_which_the_best_is_bold():
    table7 = pd.DataFrame(
        {
            "baseline": ["feature 0", "feature 0", "LambdaMART"],
            "objective": ["LambdaMART", "T-FARO", "T-FARO"],
            "alpha": [0.0, 2.0, 2.0],
            "NDCG@10": [0.7064, 0.7184, 0.7184],
            "Risk": [0.0334, 0.0269, 0.0300],
        }
    )
    by_alpha = rk.to_markdown(table7).splitlines()  # per α: the two T-FARO rows tie
    assert "**0.7184**" in by_alpha[3] and "**0.7184**" in by_alpha[4] and "**" not in by_alpha[2]
    by_baseline = rk.to_markdown(table7, groups=("baseline",)).splitlines()
    assert "**0.7184**" in by_baseline[3] and "**0.0269**" in by_baseline[3]  # higher NDCG, lower Risk
    assert "**" not in by_baseline[2] and "**" not in by_baseline[4]  # alone against LambdaMART


def test_a_risk_table_shows_the_compact_columns_by_default_and_all_on_request():
    from riskeval.formatting import COMPACT

    table = rk.risk_table(rk.example_scores(), "bm25base_p", alphas=[0, 5], correction="holm")
    header = next(line for line in rk.to_latex(table).splitlines() if line.startswith("system"))
    shown = [c.strip() for c in header.rstrip("\\ ").split("&")]
    expected = [c for c in COMPACT if c in table.columns and c != "significant"]
    # the measures' columns headed by their declared headers
    headers = {"urisk": "URisk", "trisk": "TRisk", "tstar": "T*Risk", "zrisk": "ZRisk", "georisk": "GeoRisk"}
    assert shown == [
        {"alpha": r"$\alpha$", "pvalue_adj": r"pvalue\_adj", **headers}.get(c, c) for c in expected
    ]
    assert len(shown) == 13 < len(table.columns)
    every = next(line for line in rk.to_latex(table, columns="all").splitlines() if line.startswith("system"))
    assert every.count("&") == len(table.columns) - 2  # every column but significant (the marks)
    markdown = rk.to_markdown(table).splitlines()
    assert (
        markdown[0]
        == "| "
        + " | ".join(headers.get(c, c) for c in expected).replace("_", r"\_").replace("*", r"\*")
        + " |"
    )


def test_columns_choose_and_order_and_keep_the_marks():
    text = rk.to_latex(_table(), columns=["urisk", "system"])
    rows = [line for line in text.splitlines() if line.endswith("\\\\")]
    assert rows[0] == "URisk & system \\\\"  # chosen by column, headed by the measure's header
    assert rows[1].startswith("0.1000$^\\dagger$ & ")  # marks without choosing `significant`
    markdown = rk.to_markdown(_table(), columns="system, urisk")
    assert markdown.splitlines()[0] == "| system | URisk |"
    assert re.search(r"system +urisk\n", to_text(_table(), columns="system,urisk"))


def test_other_tables_show_every_column_by_default():
    frame = pd.DataFrame({"system": ["a", "b"], "frisk": [0.1, 0.2], "reason": ["x", "y"]})
    assert rk.to_markdown(frame).splitlines()[0] == "| system | frisk | reason |"


def test_an_unknown_column_is_an_error_listing_the_columns():
    with pytest.raises(rk.RiskevalError) as err:
        rk.to_markdown(_table(), columns=["system", "p_value"])
    message = str(err.value)
    assert "'columns' parameter of to_markdown names 'p_value'" in message
    assert "system, alpha, baseline, mean, urisk, pvalue, significant, wins, rank_urisk" in message
    assert "'all'" in message
    with pytest.raises(rk.RiskevalError, match="names no column"):
        rk.to_latex(_table(), columns=[])


def test_superscripts_follow_the_value_escaped():
    frame = pd.DataFrame({"system": ["a_1", "b"], "mean": [0.5, 0.25]})
    latex = rk.to_latex(frame, superscripts={"mean": ["b&c", ""]}, bold_best=False)
    assert "0.5000\\textsuperscript{b\\&c} \\\\" in latex and "0.2500 \\\\" in latex
    assert "a\\_1" in latex
    markdown = rk.to_markdown(frame, superscripts={"mean": ["*", "†"]}, bold_best=False)
    assert "0.5000<sup>\\*</sup>" in markdown and "0.2500<sup>†</sup>" in markdown
    with pytest.raises(
        rk.RiskevalError, match=r"'superscripts' parameter of to_latex .* one text per row \(2\)"
    ):
        rk.to_latex(frame, superscripts={"mean": ["x"]})
