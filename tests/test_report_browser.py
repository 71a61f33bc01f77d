"""The report rendered by headless Chromium (issue: "a screenshot you look at, and assertions on
the DOM").  Skips, saying why, only where no Chromium is installed (``.ci/run`` installs it)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from riskeval.cli.main import main
from riskeval.datasets import example_scores

CHROMIUM = next(
    (
        p
        for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
        if p and Path(p).exists()
    ),
    None,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (apt-get install chromium); the browser test "
        "of the HTML report cannot run",
    ),
]

# Headless, offline and quiet: no sandbox (containers), no GPU, no network services.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium(tmp: Path, *args: str) -> str:
    proc = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """The report of the shipped example, written by the command line."""
    tmp = tmp_path_factory.mktemp("browser")
    path = tmp / "riskeval-report.html"
    main(["report", "--example", "-o", str(path)])
    return path


def test_dom_has_the_tables_and_the_plots(page):
    dom = chromium(page.parent, "--dump-dom", page.as_uri())
    assert "<title>Risk report</title>" in dom
    X = example_scores()
    summary = dom.split('id="summary"')[1].split("</table>")[0]
    rows = re.findall(r'<th scope="row">([^<]+)</th>', summary)
    assert sorted(rows) == sorted(X.index)  # every system, once
    assert re.search(r'class="sig-loss"', summary) and re.search(r'class="sig-win"', summary)
    # Eight plots (3 per-topic TR/TJ, sorted URisk, GeoRisk, TRisk, PCA, the z_ij heat map), each an
    # <svg> with content.
    svgs = re.findall(r"<svg\b.*?</svg>", dom, flags=re.S)
    assert len(svgs) == 8
    assert all(len(re.findall(r"<(path|use)\b", s)) > 40 for s in svgs)
    for heading in (
        "Inputs and settings",
        "Risk per α",
        "Significant topics of the riskiest systems",
        "GeoRisk and TRisk as α grows",
        "Baseline bias",
        "Risk rankings under unbiased baselines",
        "Where ZRisk comes from",
    ):
        assert f">{heading}</h2>" in dom


def test_screenshot_shows_shaded_tables_and_drawn_plots(page):
    from PIL import Image

    shot = page.parent / "report.png"
    chromium(page.parent, f"--screenshot={shot}", "--window-size=1280,4200", page.as_uri())
    image = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert image.shape == (4200, 1280, 3)
    ink = (image.sum(axis=2) < 600).mean()  # dark text, lines and bars
    assert ink > 0.01

    def share(colour: str) -> float:
        rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
        return (np.abs(image - rgb).sum(axis=2) <= 6).mean()

    # The significant TRisk cells of the summary table (CSS backgrounds) ...
    assert share("#cdebd0") > 0.002 and share("#f6c9c9") > 0.002
    # ... and the red bars of significant per-topic losses in the first TR/TJ plot (tab:red).
    assert share("#d62728") > 0.0005
