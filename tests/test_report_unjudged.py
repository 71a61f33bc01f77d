"""The report's section "Losses the qrels cannot decide" (riskeval report --unjudged bounds) on
three TREC DL 2020 passage runs, in headless Chromium: its tables hold the numbers of
riskeval.analysis.risk_bounds, and a report without bounds has no such section."""

from __future__ import annotations

import warnings

import pytest

import riskeval as rk
from riskeval.cli.main import main
from tests.shared_data import chromium, shared_data

pytestmark = pytest.mark.slow

RUNS = ["p_bm25", "bigIR-T5-R", "p_d2q_bm25_duo"]


def test_section_in_chromium(tmp_path):
    executable = chromium()
    d = shared_data("trec-dl-2020-passage")
    qrels = d / "qrels.dl20-passage.txt"
    runs = {name: d / "runs-top100" / f"input.{name}.gz" for name in RUNS}
    out = tmp_path / "report.html"
    main(
        ["report", "--qrels", str(qrels), "--unjudged", "bounds", "-b", "p_bm25", "--alpha", "0,5"]
        + ["--no-progress", "-o", str(out), *map(str, runs.values())]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bounds = rk.io.score_bounds(qrels, {n: str(p) for n, p in runs.items()}, "nDCG@10")
    expected = rk.analysis.risk_bounds(bounds, "p_bm25", [5.0]).set_index("system")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(out.as_uri())
        heading = page.locator("h2", has_text="Losses the qrels cannot decide")
        assert heading.count() == 1
        section = page.locator("section", has=heading)
        rows = section.locator("table").first.locator("tbody tr")
        assert rows.count() == 2
        for k in range(2):
            cells = rows.nth(k).locator("th, td").all_inner_texts()
            system = cells[0]
            assert cells[-2:] == [
                str(expected.at[system, "robust_losses"]),
                str(expected.at[system, "possible_losses"]),
            ]
            assert cells[2] == f"{expected.at[system, 'urisk_low']:.4f}"
        heading.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "unjudged-section.png"))
        browser.close()
    plain = tmp_path / "plain.html"
    main(
        [
            "report",
            "--qrels",
            str(qrels),
            "-b",
            "p_bm25",
            "--no-progress",
            "-o",
            str(plain),
            *map(str, runs.values()),
        ]
    )
    assert "Losses the qrels cannot decide" not in plain.read_text(encoding="utf-8")
