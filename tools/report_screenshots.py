"""Screenshots of the HTML report for docs/img: one run against its baseline (the shipped example's
p_bert against bm25base_p) and the 59 runs of TREC DL 2020 from runs and qrels (with topic texts,
two focus systems and Holm's correction), rendered by headless Chromium at 1280 px.

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


def shoot(browser, page_path: Path, out: Path, height: int) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": height})
    page.route("**/*", lambda r: r.continue_() if r.request.url == page_path.as_uri() else r.abort())
    page.goto(page_path.as_uri())
    page.screenshot(path=str(out), full_page=False)
    page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    env = os.environ.get("RISKEVAL_DATA")
    ap.add_argument("--data", type=Path, default=Path(env) if env else ROOT.parent / "shared" / "data")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    dl20 = args.data / "trec-dl-2020-passage"
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
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
                "-o",
                str(campaign),
                *map(str, sorted((dl20 / "runs-top100").glob("*.gz"))),
            ]
        )
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
        shoot(browser, two, ROOT / "docs" / "img" / "report-2-systems.png", 2400)
        shoot(browser, campaign, ROOT / "docs" / "img" / "report-dl2020.png", 3400)
        browser.close()


if __name__ == "__main__":
    main()
