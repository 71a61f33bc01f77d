"""The report's first screen and its behaviour outside the browser: the findings written from the
numbers (each equal to the tables), escaped; the settings folded; the print style; the system the
per-topic analysis opens on; focus colours apart from the loss and gain colours; the sections left
out with 2 systems; the short repr and the notebook summary."""

from __future__ import annotations

import colorsys
import html
import json
import re

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.datasets import example_scores
from riskeval.plots._base import FOCUS_COLOURS, GAIN_COLOUR, LOSS_COLOUR
from riskeval.reporting import sections as sec
from riskeval.reporting.paper_sections import baseline_rankings_section, residuals_section

FAST = [sec.summary_section, sec.risky_topics_section]


def text_of(markup: str) -> str:
    """The text of HTML, as a reader sees it."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def items(report: rk.reporting.Report) -> list[str]:
    """The findings, one string per line."""
    return [text_of(li) for li in re.findall(r"<li>(.*?)</li>", report.findings, flags=re.S)]


def data_of(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="rk-data-m0">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def matrix(r: int, c: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        rng.uniform(0, 1, (r, c)), index=[f"run{i}" for i in range(r)], columns=[f"t{j}" for j in range(c)]
    )


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"systems": ["p_bert", "UNH_bm25"]},
        {"baseline": "bm25base_p", "correction": "holm", "alphas": [0, 5], "systems": ["idst_bert_p1"]},
    ],
)
def test_every_number_of_the_findings_equals_the_tables(X, kwargs):
    r = rk.report(X, measure="nDCG@10", sections=FAST, **kwargs)
    alpha = max(kwargs.get("alphas", [10]))
    correction = kwargs.get("correction")
    table = rk.risk_table(X, alphas=[alpha], baseline=kwargs.get("baseline"), correction=correction)
    at = table.set_index("system")
    base = str(table["baseline"].iloc[0])
    runs = at.drop(index=base, errors="ignore")
    lines = items(r)
    better = int((runs["significant"] & (runs["urisk"] > 0)).sum())
    worse = int((runs["significant"] & (runs["urisk"] < 0)).sum())
    assert lines[0] == (
        f"{better} of {len(runs)} runs {'is' if better == 1 else 'are'} significantly better than {base} at "
        f"α = {alpha:g} (TRisk, Student's t, level 0.05, {f'correction {correction}' if correction else 'no correction'}); "
        f"{worse} significantly worse."
    )
    b = X.loc[kwargs["baseline"]] if "baseline" in kwargs else rk.analysis.baseline(X, "mean")

    def topic_losses(name):
        tr = rk.topic_risk(X.loc[name], b, alpha=alpha, correction=correction)
        return int((tr["significant"] & (tr["tr"] < 0)).sum())

    # the runs to ship: significantly better, and significantly worse on no topic
    better = runs[runs["significant"] & (runs["urisk"] > 0)].sort_values("mean", ascending=False)
    safe = [n for n in better.index if topic_losses(n) == 0]
    assert lines[1].startswith(f"To ship at α = {alpha:g}: {', '.join(safe) if safe else 'none'}")
    for name in better.index.difference(safe):
        assert f"{name} ({topic_losses(name)})" in lines[1]
    best = runs["mean"].idxmax()
    assert lines[2] == (
        f"The run of highest mean nDCG@10: {best} ({runs.loc[best, 'mean']:.4f}; the baseline {base}: "
        f"{runs.loc[best, 'baseline_mean']:.4f})."
    )
    # broken runs (below the baseline on at least 90% of the topics) apart from the riskiest
    broken = runs[runs["losses"] >= 0.9 * X.shape[1]].sort_values("losses", ascending=False, kind="stable")
    assert len(broken) == 1
    assert lines[3] == (
        f"Broken, not risky (below {base} on at least 90% of the topics): "
        + ", ".join(f"{n} ({runs.loc[n, 'losses']} of {X.shape[1]})" for n in broken.index)
        + "; check these runs before reading their risk."
    )
    risky = runs.drop(index=broken.index)["trisk"].idxmin()
    assert lines[4] == (
        f"The riskiest other run (lowest TRisk): {risky} (URisk {runs.loc[risky, 'urisk']:.4f}, TRisk "
        f"{runs.loc[risky, 'trisk']:.3f}; losses on {runs.loc[risky, 'losses']} of {X.shape[1]} topics)."
    )
    # the topics whose losses against the baseline, summed over the runs, are the largest
    deltas = pd.DataFrame({n: rk.topic_risk(X.loc[n], b, alpha=alpha)["delta"] for n in runs.index}).T
    loss = (-deltas.clip(upper=0)).sum().sort_values(ascending=False)
    below = (deltas < 0).sum()
    want = ", ".join(
        f"{t} (summed loss {loss[t]:.4f}; {below[t]} of {len(runs)} runs below it)" for t in loss.index[:3]
    )
    assert lines[5].startswith(
        "The topics that carry most of the risk (losses against the baseline summed over the runs): " + want
    )
    assert lines[5].endswith(
        f"these 3 of 43 topics hold {loss.iloc[:3].sum() / loss.sum():.0%} of all losses."
    )
    # one line per focus system: its row of the risk table and its significant topic losses
    ranks = at["mean"].rank(ascending=False, method="first")
    focus = kwargs["systems"]
    assert len(lines) == 6 + len(focus)
    for name, line in zip(focus, lines[6:], strict=True):
        row = at.loc[name]
        tr = rk.topic_risk(X.loc[name], b, alpha=alpha, correction=correction)
        lost = tr[tr["significant"] & (tr["tr"] < 0)].sort_values("tr")
        p = f"p {rk.reporting.html.pvalue(row['pvalue'])}"
        if correction:
            p += f", p ({correction}) {rk.reporting.html.pvalue(row['pvalue_adj'])}"
        assert line.startswith(
            f"{name}: mean {row['mean']:.4f} (rank {int(ranks[name])} of {len(X)} by mean); URisk "
            f"{row['urisk']:.4f}, TRisk {row['trisk']:.3f}, {p}: "
        )
        verdict = (
            "significantly better"
            if row["significant"] and row["urisk"] > 0
            else "significantly worse"
            if row["significant"]
            else "not significantly different"
        )
        assert f"{verdict} than the baseline" in line or f"{verdict} from the baseline" in line
        assert f"below it on {row['losses']} of 43 topics, {len(lost)} of them a significant loss" in line
        assert all(str(t) in line for t in lost.index[:5])
    # the tables of the page show the same numbers
    d = data_of(r.html)
    i = d["systems"].index(risky)
    assert d["table"][d["alpha"]]["trisk"][i] == round(runs.loc[risky, "trisk"], 3)


def test_the_findings_say_what_to_ship_and_which_runs_are_broken():
    """Against "base": "good" wins on every topic, "lossy" wins overall but loses one topic badly,
    "mild" wins with three small losses (fine at α = 0, not at α = 20), "broken" loses on 19 of
    20 topics."""
    rng = np.random.default_rng(3)
    base = rng.uniform(0.4, 0.6, 20)
    noise = rng.uniform(0, 0.01, (5, 20))
    X = pd.DataFrame(
        [
            base,
            base + 0.2 + noise[0],
            base + np.r_[np.full(19, 0.1), -0.35] + noise[1],
            base + np.r_[np.full(17, 0.08), np.full(3, -0.02)] + noise[2],
            base - np.r_[np.full(19, 0.1), -0.1] + noise[3],
            base + rng.normal(0, 0.05, 20),
        ],
        index=["base", "good", "lossy", "mild", "broken", "plain"],
        columns=[f"t{j}" for j in range(20)],
    )
    r = rk.report(X, baseline="base", alphas=[0], sections=FAST)
    lines = items(r)
    assert lines[1] == (
        "To ship at α = 0: good, mild (significantly better than base and significantly worse on no "
        "topic; best mean first). Better, but with significant topic losses: lossy (1)."
    )
    assert lines[3] == (
        "Broken, not risky (below base on at least 90% of the topics): broken (19 of 20); "
        "check these runs before reading their risk."
    )
    assert lines[4].startswith("The riskiest other run (lowest TRisk): plain")
    lead = r.html.split('<p class="lead">')[1].split("</p>")[0]
    assert "The findings are at α = 0" in lead and "a loss and a gain of the same size weigh the same" in lead
    # at α = 20 nothing ships without "good": the line names the largest α where a run does
    hard = rk.report(X.drop(index="good"), baseline="base", alphas=[0, 5, 20], sections=FAST)
    assert items(hard)[1].startswith("To ship at α = 20: none; no run is ")
    assert items(hard)[1].endswith(" At α = 5, where a loss weighs less: mild.")
    lead = hard.html.split('<p class="lead">')[1].split("</p>")[0]
    assert "there a loss against the baseline weighs 21 times a gain of the same size" in lead
    # on fewer than 10 topics no run is called broken
    few = rk.report(X.iloc[:, :8], baseline="base", alphas=[0], sections=FAST)
    assert not any(line.startswith("Broken") for line in items(few))


def test_findings_come_first_and_the_settings_are_folded(X):
    r = rk.report(X, measure="nDCG@10", sections=FAST)
    page = r.html
    order = [page.index(x) for x in ("<h1>", 'id="findings"', "<nav>", 'id="settings"', 'id="summary"')]
    assert order == sorted(order)
    assert r.findings in page and page.index(r.findings) < page.index("<nav>")
    settings = page.split('id="settings"')[1].split("</section>")[0]
    assert settings.startswith('>\n<details class="settings">') and "</table>\n</details>" in settings
    assert "<details open" not in settings


def test_findings_escape_run_names_and_topics():
    X = matrix(4, 6)
    evil = "<img src=x onerror=alert(1)>"
    X.index = [evil, "a&b", "c", "d"]
    X.columns = ["<t1>", *X.columns[1:]]
    X.iloc[0] = 0.01  # the riskiest run, losing on every topic
    X["<t1>"] = [0.0, 0.0, 0.0, 3.0]  # the topic of the largest summed loss
    r = rk.report(X, systems=[evil], topics={"<t1>": "</script><b>q</b>"}, sections=FAST)
    assert "<img" not in r.findings and "<b>q" not in r.findings and "<t1>" not in r.findings
    assert "&lt;img src=x onerror=alert(1)&gt;" in r.findings
    assert evil in text_of(r.findings) and "</script><b>q</b>" in text_of(r.findings)
    assert "<img" not in r._repr_html_()


def test_several_measures_have_their_findings_under_their_names():
    r = rk.report({"nDCG@10": matrix(4, 8, 1), "AP": matrix(4, 8, 2)}, sections=FAST[:1])
    assert r.findings.startswith("<h3>nDCG@10</h3><ul") and "<h3>AP</h3><ul" in r.findings
    assert r.findings.count('<ul class="findings">') == 2


def test_the_per_topic_analysis_opens_on_the_best_run_never_a_degenerate_one():
    X = matrix(6, 20)
    X.loc["run4"] = 0.02  # degenerate: the lowest mean and the lowest TRisk
    X.loc["run2"] += 0.3
    r = rk.report(X.clip(0, 1), sections=FAST)
    d = data_of(r.html)
    assert d["systems"][d["byRisk"][0]] == "run4"
    assert d["systems"][d["pt"]["systems"][0]] == "run2"
    assert "<caption>run2 at α = 10, topics by TR</caption>" in r.html
    # a focus system first, whatever its mean; the baseline run is never opened (it has no TRisk)
    focus = data_of(rk.report(X.clip(0, 1), systems=["run4"], sections=FAST).html)
    assert focus["systems"][focus["pt"]["systems"][0]] == "run4"
    named = data_of(rk.report(X.clip(0, 1), baseline="run2", sections=FAST).html)
    assert named["systems"][named["pt"]["systems"][0]] == X.drop(index="run2").mean(axis=1).idxmax()


def _hue(colour: str) -> tuple[float, float]:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    return h * 360, s


def test_focus_colours_are_never_the_loss_or_gain_colours(X):
    assert not {c.lower() for c in FOCUS_COLOURS} & {LOSS_COLOUR.lower(), GAIN_COLOUR.lower()}
    assert len(set(FOCUS_COLOURS)) == len(FOCUS_COLOURS) >= 6  # three riskiest and three safest
    red, green = _hue(LOSS_COLOUR)[0], _hue(GAIN_COLOUR)[0]
    for colour in FOCUS_COLOURS:
        hue, saturation = _hue(colour)
        if saturation < 0.1:  # a grey or black has no hue to confuse
            continue
        for other in (red, green):
            assert min(abs(hue - other), 360 - abs(hue - other)) >= 25, colour
    # the page draws with these colours: the script has no colour list of its own
    r = rk.report(X.iloc[:5], systems=[X.index[0]], sections=FAST)
    d = data_of(r.html)
    assert d["colours"] == {"focus": list(FOCUS_COLOURS), "loss": LOSS_COLOUR, "gain": GAIN_COLOUR}
    script = r.html.split("<script>")[1]
    assert not set(re.findall(r"#[0-9a-f]{6}", script, flags=re.I)) & {c.lower() for c in FOCUS_COLOURS}


def test_two_systems_leave_out_what_means_nothing_with_one_line_each(X):
    two = rk.report(X.loc[["p_bert", "bm25base_p"]], baseline="bm25base_p")
    for sid in ("bias", "baseline-rankings", "zrisk-residuals"):
        body = two.html.split(f'<section id="{sid}">')[1].split("</section>")[0]
        lines = re.findall(r"<p[ >].*?</p>", body, flags=re.S)
        assert len(lines) == 1 and lines[0].startswith('<p class="left-out">Left out: ')
        assert "<table" not in body and "<svg" not in body
        assert "at least 3 systems" in body
        assert f'<li class="left-out"><a href="#{sid}">' in two.html  # marked in the contents
    assert "Kendall τ" not in two.html and "expected" not in text_of(two.findings)
    assert "The riskiest run" not in two.findings  # one run: its own line instead
    assert items(two)[-1].startswith("p_bert: mean 0.7380 (rank 1 of 2 by mean)")
    three = rk.report(
        X.loc[["p_bert", "bm25base_p", "UNH_bm25"]], sections=[baseline_rankings_section, residuals_section]
    )
    assert "Left out" not in three.html and "Kendall τ" in three.html and "<svg" in three.html


def test_print_style_shows_every_row_and_opens_every_block(X):
    page = rk.report(X.iloc[:4], sections=FAST).html
    style = page.split("<style>")[1].split("</style>")[0]
    printed = style.split("@media print {")[1]
    assert re.search(r"div\.scroll \{[^}]*max-height: none", printed)
    assert "details::details-content" in printed and ".js-only" in printed
    assert "beforeprint" in page.split("<script>")[1]


def test_repr_is_one_line_and_the_notebook_view_is_the_findings(X, tmp_path):
    path = tmp_path / "a&b report.html"
    r = rk.report(X, measure="nDCG@10", title="T <1>", sections=FAST, path=path)
    assert repr(r) == f"<Report 'T <1>': 37 systems × 43 topics, nDCG@10, written to {str(path)!r}>"
    assert len(repr(r)) < 200
    view = r._repr_html_()
    assert len(view) < 5000 and r.findings in view and "<script" not in view and "<style" not in view
    assert "<strong>T &lt;1&gt;</strong>" in view
    assert (
        f'href="{path.resolve().as_uri()}"' in view and ">" + str(path).replace("&", "&amp;") + "</a>" in view
    )
    unsaved = rk.report(X.iloc[:3], sections=FAST)
    assert repr(unsaved) == "<Report 'Risk report': 3 systems × 43 topics, not written>"
    assert "<a " not in unsaved._repr_html_() and "Report.save(path)" in unsaved._repr_html_()
