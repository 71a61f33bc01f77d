"""Screenshots of the HTML report for docs/img, rendered by headless Chromium: the first screen at
1400 × 900 of the shipped example's report, of the 59 runs of TREC DL 2020 from runs and qrels (with
topic texts, two focus systems and Holm's correction) and of one run against its baseline (the
example's p_bert against bm25base_p); and the risk table of the DL 2020 report as printed (print
media: every row, no controls).

    python tools/report_screenshots.py [--data DIR] [--chromium /usr/bin/chromium]

``--data``: the folder holding trec-dl-2020-passage (default: ``$RISKEVAL_DATA``, else
``../shared/data`` relative to the repository root).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import riskeval as rk
from riskeval.cli.main import main as cli

ROOT = Path(__file__).resolve().parents[1]


def open_page(browser, page_path: Path):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.route("**/*", lambda r: r.continue_() if r.request.url == page_path.as_uri() else r.abort())
    page.goto(page_path.as_uri())
    return page


def first_screen(browser, page_path: Path, out: Path) -> None:
    page = open_page(browser, page_path)
    page.screenshot(path=str(out), full_page=False)
    page.close()


def printed(browser, page_path: Path, section: str, out: Path) -> None:
    page = open_page(browser, page_path)
    page.emulate_media(media="print")
    page.locator(section).screenshot(path=str(out))
    page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    env = os.environ.get("RISKEVAL_DATA")
    ap.add_argument("--data", type=Path, default=Path(env) if env else ROOT.parent / "shared" / "data")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    dl20 = args.data / "trec-dl-2020-passage"
    img = ROOT / "docs" / "img"
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        example = Path(tmp) / "riskeval-report.html"
        cli(["report", "--example", "--no-progress", "-o", str(example)])
        two = Path(tmp) / "two.html"
        X = rk.example_scores().loc[["p_bert", "bm25base_p"]]
        rk.report(X, baseline="bm25base_p", measure="nDCG@10", inputs=["dl19-passage-ndcg10.csv"], path=two)
        campaign = Path(tmp) / "dl20.html"
        cli(
            [
                "report",
                "--qrels",
                str(dl20 / "qrels.dl20-passage.txt"),
                "--measure",
                "nDCG@10",
                "--baseline",
                "p_bm25",
                "--systems",
                "p_d2q_bm25_duo,bigIR-T5-R",
                "--topics-file",
                str(dl20 / "topics.dl20-passage.txt"),
                "--correction",
                "holm",
                "--title",
                "TREC DL 2020 passage: 59 runs against p_bm25",
                "--no-progress",
                "-o",
                str(campaign),
                *map(str, sorted((dl20 / "runs-top100").glob("*.gz"))),
            ]
        )
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
        first_screen(browser, example, img / "report-example.png")
        first_screen(browser, campaign, img / "report-dl2020.png")
        first_screen(browser, two, img / "report-2-systems.png")
        printed(browser, campaign, "#m0-risk-table", img / "report-print.png")
        browser.close()


if __name__ == "__main__":
    main()
