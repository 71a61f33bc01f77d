"""The report's query-variation sections: mean-variance (Zuccon et al. 2016) and bias-variance
(Zhang et al. 2013), present only with their inputs in ``data=``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from shared_data import chromium

import riskeval as rk
from riskeval.cli.main import main

pytestmark = pytest.mark.slow  # whole reports

SYSTEMS = [f"s{i}" for i in range(5)]


@pytest.fixture(scope="module")
def variations() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    idx = pd.MultiIndex.from_product(
        [SYSTEMS, [str(t) for t in range(1, 7)], ["pivot", "most", "least"]],
        names=["system", "topic", "variant"],
    )
    return pd.DataFrame({"score": rng.random(len(idx)).round(2)}, index=idx).reset_index()


@pytest.fixture(scope="module")
def matrix(variations) -> pd.DataFrame:
    return variations.pivot_table(index="system", columns="topic", values="score")


def test_sections_only_with_their_inputs(matrix, variations):
    plain = rk.report(matrix, alphas=[0, 1])
    assert "Query variations: mean–variance" not in plain.sections
    assert "Bias–variance decomposition" not in plain.sections
    r = rk.report(matrix, alphas=[0, 1, 5], data={"variations": variations, "bias_variance": {}})
    assert r.sections[-2:] == ("Query variations: mean–variance", "Bias–variance decomposition")
    assert 'id="mean-variance"' in r.html and 'id="bias-variance"' in r.html
    assert " src=" not in r.html  # the page script is inline: nothing is fetched


def test_mean_variance_section_shows_the_library_values(matrix, variations):
    r = rk.report(matrix, alphas=[0, 5], data={"variations": variations})
    mv = rk.variations.mean_variance(variations, 5.0)
    section = r.html[r.html.index('id="mean-variance"') :]
    for system in SYSTEMS:
        assert f"{mv.loc[system, 'value']:.4f}" in section and f"{mv.loc[system, 'variance']:.5f}" in section
    assert "Largest rank changes between α = 0 and α = 5" in section
    assert section.count("<svg") >= 1  # the τ / τ_AP plot


def test_intra_topic_form_shows_the_per_topic_plot_only(matrix, variations):
    r = rk.report(matrix, data={"variations": variations, "variations_options": {"form": "intra"}})
    section = r.html[
        r.html.index('id="mean-variance"') : r.html.index("</section>", r.html.index('id="mean-variance"'))
    ]
    assert "Intra-topic form" in section and "Mean–variance evaluation per α" not in section
    assert "<svg" in section


def test_bias_variance_section_against_the_baseline_system(matrix):
    r = rk.report(matrix, baseline="s0", data={"bias_variance": {"target": "best"}})
    bv = rk.variations.bias_variance(matrix, target="best")
    ri = rk.variations.robustness_index(matrix, "s0")
    section = r.html[r.html.index('id="bias-variance"') :]
    assert "robustness index (n₊ − n₋)/c and &lt;Init against s0" in section
    for total, robust in zip(bv.total, ri.robustness_index, strict=True):
        assert f"{total:.4f}" in section and f"{robust:.4f}" in section
    assert section.count("<svg") >= 2


def test_report_command_with_variation_sections(matrix, variations, tmp_path, capsys):
    scores, table = tmp_path / "scores.csv", tmp_path / "variations.csv"
    matrix.to_csv(scores)
    variations.to_csv(table, index=False)
    out = tmp_path / "r.html"
    try:
        main(
            ["report", str(scores), "--variations", str(table), "--bias-variance", "perfect", "-o", str(out)]
        )
    except SystemExit as exc:
        assert not exc.code
    page = out.read_text(encoding="utf-8")
    assert "Query variations: mean–variance" in page and "Bias–variance decomposition" in page
    assert str(table) in page  # recorded among the inputs


def test_alpha_explorer_in_the_browser(tmp_path, matrix, variations):
    """Zuccon et al. (2016, §5.1)'s α explorer: clicking an α shows the ranking by O at that α,
    and only that one; no script is needed."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    r = rk.report(matrix, alphas=[0, 5], data={"variations": variations}, path=tmp_path / "r.html")
    assert " src=" not in r.html  # the page script is inline: nothing is fetched
    mv = rk.variations.mean_variance(variations, 20.0).sort_values("value", ascending=False, kind="stable")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto((tmp_path / "r.html").as_uri())
        visible = page.locator(".mv-panel:visible")
        assert visible.count() == 1 and "α = 0" in visible.locator("caption").inner_text()
        page.click("label:has-text('α = 20')")
        visible = page.locator(".mv-panel:visible")
        assert visible.count() == 1 and "α = 20" in visible.locator("caption").inner_text()
        first = visible.locator("tbody th").first.inner_text()
        page.screenshot(path=str(tmp_path / "explorer.png"))
        browser.close()
    assert first == str(mv.index[0])
