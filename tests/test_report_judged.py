"""The judged fractions in the report: each system's mean Judged@k beside its risk, each topic's in
the per-topic analysis with the losses below the threshold flagged, a page without them saying why,
bad judged= refused; in Chromium, the table the script draws flags the same topics, for the runs and
qrels of TREC DL 2020 evaluated by the command line."""

from __future__ import annotations

import json
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import RiskevalError
from riskeval.reporting.judged import JUDGED_THRESHOLD
from riskeval.reporting.sections import risky_topics_section, summary_section
from tests.shared_data import chromium, shared_data

SECTIONS = [summary_section, risky_topics_section]


def page_data(html: str, key: str = "m0") -> dict:
    m = re.search(rf'<script type="application/json" id="rk-data-{key}">(.*?)</script>', html, re.S)
    assert m is not None
    return json.loads(m.group(1))


class Rows(HTMLParser):
    """The cells of the table with the given id, row by row (header row first)."""

    def __init__(self, table_id: str):
        super().__init__()
        self.table_id, self.inside, self.rows, self.cell = table_id, False, [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == self.table_id:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = [attrs.get("class") or "", ""]

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(tuple(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data


def table_rows(html: str, table_id: str) -> list[list[tuple[str, str]]]:
    parser = Rows(table_id)
    parser.feed(html)
    return [r for r in parser.rows if r]


@pytest.fixture(scope="module")
def scores() -> pd.DataFrame:
    # base is the baseline; a loses on t1 (judged 0.5: flagged), t2 (judged 0.9: a loss, not
    # flagged) and gains on t3 (judged 0.2: low, but no loss); b always wins.
    return pd.DataFrame(
        {"t1": [0.5, 0.2, 0.6], "t2": [0.5, 0.3, 0.6], "t3": [0.4, 0.6, 0.5], "t4": [0.3, 0.3, 0.4]},
        index=pd.Index(["base", "a", "b"], name="system"),
    )


@pytest.fixture(scope="module")
def judged(scores) -> pd.DataFrame:
    return pd.DataFrame(
        {"t1": [1.0, 0.5, 1.0], "t2": [1.0, 0.9, 1.0], "t3": [1.0, 0.2, 1.0], "t4": [1.0, 1.0, 0.6]},
        index=scores.index,
    )


def test_risk_table_and_per_topic_view_show_the_judged_fraction(scores, judged):
    r = rk.report(scores, baseline="base", measure="nDCG@10", judged=judged, sections=SECTIONS, systems=["a"])
    d = page_data(r.html)
    assert d["columns"][1] == ["judged", "Judged@10", 3, False]
    position = {name: i for i, name in enumerate(d["systems"])}
    means = d["table"][0]["judged"]
    assert means[position["a"]] == pytest.approx(judged.loc["a"].mean(), abs=5e-4)
    assert means[position["b"]] == pytest.approx(0.9)
    assert d["judged"]["threshold"] == JUDGED_THRESHOLD == 0.8
    assert d["judged"]["pt"][0] == [500, 900, 200, 1000]  # the opening system, a, in 10^-3
    assert d["judged"]["holes"][0] == [0]  # t1: a loss judged at 0.5
    risk = table_rows(r.html, "m0-risk-table")
    header = [text for _, text in risk[0]]
    assert header[:3] == ["system", "mean", "Judged@10"]
    topics = table_rows(r.html, "m0-topics-table")
    header = [text for _, text in topics[0]]
    assert header[-2:] == ["Judged@10", "low judged loss"]
    flagged = {row[0][1]: (row[-1][1], row[-1][0]) for row in topics[1:]}
    assert flagged == {
        "t1": ("yes", "rk-hole"),
        "t2": ("", ""),
        "t3": ("", ""),  # low judged fraction, but a gain
        "t4": ("", ""),  # a tie: no loss
    }
    assert "Judged@10: the fraction of the system" in r.html


def test_findings_name_the_runs_judged_below_the_threshold(scores, judged):
    r = rk.report(scores, baseline="base", measure="nDCG@10", judged=judged, sections=SECTIONS)
    text = re.sub("<[^>]+>", "", r.findings)
    assert "1 run has a mean Judged@10 below 0.8" in text
    assert "a (0.650; 1 of its 2 losses on topics judged below 0.8)" in text  # t1 flagged, t2 not
    enough = rk.report(
        scores, baseline="base", measure="nDCG@10", judged=judged.clip(lower=0.9), sections=SECTIONS
    )
    assert "Every run has a mean Judged@10 of 0.8 or more (the lowest: a, 0.925)" in re.sub(
        "<[^>]+>", "", enough.findings
    )
    assert "Judged" not in rk.report(scores, baseline="base", measure="nDCG@10", sections=SECTIONS).findings


def test_without_judged_fractions_the_page_says_so(scores):
    r = rk.report(scores, baseline="base", measure="nDCG@10", sections=SECTIONS)
    assert page_data(r.html)["judged"] is None
    assert "No judged fraction: the report was given scores, not runs and their qrels" in r.html
    assert "low judged loss" not in r.html


def test_depth_follows_the_measure_and_several_measures(scores, judged):
    r = rk.report({"AP": scores, "P@5": scores}, baseline="base", judged={"P@5": judged}, sections=SECTIONS)
    assert page_data(r.html, "m0")["judged"] is None
    assert page_data(r.html, "m1")["judged"]["label"] == "Judged@5"


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda J: J.drop(columns="t4"), "lacks system"),
        (lambda J: J.drop(index="b"), "lacks system"),
        (lambda J: J * 2, "outside"),
        (lambda J: J.where(J < 1), "outside"),
        (lambda J: J.to_numpy(), "DataFrame"),
        (lambda J: {"ERR@20": J}, "do not have"),
    ],
)
def test_bad_judged_fractions_are_refused(scores, judged, change, match):
    with pytest.raises(RiskevalError, match=match):
        rk.report(scores, baseline="base", measure="nDCG@10", judged=change(judged), sections=SECTIONS)


@pytest.mark.slow
def test_dl20_report_in_chromium(tmp_path):
    """TREC DL 2020 from its run files and qrels: the risk table's Judged@10 is each run's mean
    ir_measures Judged@10; in Chromium the per-topic table of the least judged run flags exactly the
    losses below the threshold, and the plot rings as many bars."""
    from riskeval.cli.main import main

    d = shared_data("trec-dl-2020-passage")
    runs = sorted(str(p) for p in (d / "runs-top100").glob("input.*"))
    out = tmp_path / "dl20.html"
    main(["report", "--qrels", str(d / "qrels.dl20-passage.txt"), "-b", "p_bm25", "-o", str(out), *runs])
    html = out.read_text(encoding="utf-8")
    data = page_data(html)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = rk.evaluate_runs(d / "qrels.dl20-passage.txt", runs, measure="Judged@10")
        M = rk.evaluate_runs(d / "qrels.dl20-passage.txt", runs, measure="nDCG@10")
    expected = J.mean(axis=1).round(3).loc[data["systems"]].tolist()
    assert data["table"][0]["judged"] == pytest.approx(expected, abs=1e-9)
    low = min(range(len(expected)), key=expected.__getitem__)
    assert expected[low] < JUDGED_THRESHOLD  # a run outside the pool: the flags have work to do
    name = data["systems"][low]
    losses = (M.loc[name] < M.loc["p_bm25"]) & (J.loc[name] < JUDGED_THRESHOLD)
    assert losses.sum() > 0

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(Path(out).as_uri())
        page.locator(f'#m0-risk-table tr[data-system="{low}"] th').click()
        rows = page.locator("#m0-topics-table tbody tr")
        flagged = set()
        for k in range(rows.count()):
            cells = rows.nth(k).locator("th, td")
            if cells.nth(cells.count() - 1).inner_text() == "yes":
                flagged.add(cells.nth(0).inner_text())
        rings = page.locator("rect.rk-hole-mark").count()
        browser.close()
    assert errors == []
    assert flagged == set(losses[losses].index.astype(str))
    assert rings == len(flagged)
