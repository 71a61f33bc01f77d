"""The forest plot of a champion–challenger comparison (Benham et al., SIGIR 2020, Figure 4), the
report's Bayesian section (``rk.report(bayes=...)``, ``riskeval report --bayes``) and, slow, that
section in headless Chromium.

The fast tests draw comparisons built by hand (known effects, intervals and probabilities, no
sampler); the slow ones fit a small model."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
import riskeval.bayes
from riskeval.bayes.champion import COLUMNS, ChampionComparison
from riskeval.errors import RiskevalError
from riskeval.plots._base import GAIN_COLOUR, LOSS_COLOUR
from riskeval.plots.bayes import CHAMPION_COLOUR, NEUTRAL_COLOUR, forest_plot
from tests.cli_runner import run_cli
from tests.shared_data import chromium

NAMES = ["champ", "<b>x&y</b>", "$x^{$", "loser"]


class _Fit:
    """What the section reads of a fit: its systems and topics, the shape of its draws (2 chains ×
    100), and the checks it fails."""

    def __init__(self, problems):

        self._problems = problems
        self.systems, self.topics = pd.Index(NAMES), pd.Index([f"t{j}" for j in range(6)])
        self.samples, self.sampler = {"b_system": np.zeros((2, 100, len(NAMES)))}, "nuts"

    def problems(self):
        return self._problems


def comparison(alphas=(0.0, 5.0), problems=()) -> ChampionComparison:
    """Champion at effect 0 (interval ±0.05); '<b>x&y</b>' credibly better (difference interval
    0.01–0.05), '$x^{$' undecided (−0.02–0.04), 'loser' credibly worse (−0.08–−0.02); p_better
    0.99, 0.7, 0.01 at α = 0, each minus α/100 at larger α."""
    diffs = {"<b>x&y</b>": (0.03, 0.01, 0.05, 0.99), "$x^{$": (0.01, -0.02, 0.04, 0.7),
             "loser": (-0.05, -0.08, -0.02, 0.01)}  # fmt: skip
    rows = []
    for a in alphas:
        for name in NAMES:
            d = diffs.get(name, (np.nan,) * 4)
            mean = 0.0 if name == "champ" else d[0]
            rows.append({"system": name, "alpha": a, "model": "paired",
                         "role": "champion" if name == "champ" else "challenger",
                         "effect_mean": mean, "effect_median": mean, "effect_low": mean - 0.05,
                         "effect_high": mean + 0.05, "diff_mean": d[0], "diff_low": d[1], "diff_high": d[2],
                         "p_better": max(d[3] - a / 100, 0) if name != "champ" else np.nan,
                         "p_better_margin": np.nan if name == "champ" else 0.5})  # fmt: skip
    fits = {a: _Fit(list(problems) if a == alphas[-1] else []) for a in alphas}
    return ChampionComparison(
        pd.DataFrame(rows)[list(COLUMNS)], fits, "champ", tuple(NAMES[1:]), 0.95, 0.0, 40
    )


@pytest.fixture
def matrix() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame(rng.random((4, 6)), index=NAMES, columns=[f"t{j}" for j in range(6)])


def test_forest_plot_one_panel_per_alpha_champion_on_top():
    fig = forest_plot(comparison())
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["α = 0", "α = 5"]
    ax = axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    positions = list(ax.get_yticks())
    assert dict(zip(labels, positions, strict=True)) == {"champ": 3, "<b>x&y</b>": 2, "$x^{$": 1, "loser": 0}
    lines = ax.collections[0]  # the intervals
    segments = np.array([seg[:, 0] for seg in lines.get_segments()])
    np.testing.assert_allclose(
        segments, [[-0.05, 0.05], [-0.02, 0.08], [-0.04, 0.06], [-0.1, 0.0]], atol=1e-12
    )
    assert [seg[0, 1] for seg in lines.get_segments()] == [3, 2, 1, 0]
    from matplotlib.colors import to_hex

    assert [to_hex(c) for c in lines.get_colors()] == [
        CHAMPION_COLOUR, GAIN_COLOUR, to_hex(NEUTRAL_COLOUR), LOSS_COLOUR
    ]  # fmt: skip
    assert list(ax.collections[1].get_offsets()[:, 0]) == pytest.approx([0.0, 0.03, 0.01, -0.05])  # the means
    vertical = [line.get_xdata()[0] for line in ax.get_lines()]
    assert vertical == [0.0, 0.0]  # the grand mean and the champion's mean (0 here)
    fig.savefig(__import__("io").BytesIO(), format="png")  # '$x^{$' is text, not broken mathtext


def test_forest_plot_one_alpha_on_given_axes():
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    fig = forest_plot(comparison(), alpha=5, ax=ax)
    assert fig is ax.figure and ax.get_title() == "α = 5"
    with pytest.raises(
        RiskevalError, match=r"'alpha' parameter of forest_plot must be one of .*\(0, 5\); got 2"
    ):
        forest_plot(comparison(), alpha=2)
    with pytest.raises(RiskevalError, match="pass 'alpha' to draw one on 'ax'"):
        forest_plot(comparison(), ax=ax)


def test_report_section_table_and_escaped_names(matrix):
    page = rk.report(matrix, baseline="champ", bayes=comparison())
    assert page.sections[-1] == "Bayesian risk: champion and challengers"
    html = page.html
    section = html[html.index('<section id="bayes"') :]
    section = section[: section.index("</section>")]
    assert "<b>x&y</b>" not in html and "$x^{$" in section
    table = section[section.index("<table") : section.index("</table>")]
    assert "<caption>Probability of beating the champion champ, by α</caption>" in table
    assert "<th>α = 0</th><th>α = 5</th>" in table
    assert '<th scope="row">&lt;b&gt;x&amp;y&lt;/b&gt;</th><td>0.990</td><td>0.940</td>' in table
    assert '<th scope="row">loser</th><td>0.010</td><td>0.000</td>' in table
    assert "<svg" in section and "&lt;b&gt;x&amp;y&lt;/b&gt;" in section.split("<svg", 1)[1]
    assert "share of posterior draws" in section
    assert "fitted to 4 systems × 6 topics (2 chains × 100 draws per α, seed 40)" in section
    assert "Sampling checks: passed at every α" in section


def test_report_section_failed_checks(matrix):
    problem = "α = 5: R-hat is 1.2 (≥ 1.01) for <3> parameter(s)"
    html = rk.report(
        matrix, baseline="champ", bayes=comparison(problems=["R-hat is 1.2 (≥ 1.01) for <3> parameter(s)"])
    ).html
    assert "Sampling checks: FAILED" in html
    assert f"<li>{problem.replace('<', '&lt;').replace('>', '&gt;')}</li>" in html


def test_report_without_bayes_is_unchanged(matrix):
    page = rk.report(matrix, baseline="champ")
    assert 'id="bayes"' not in page.html and all("Bayesian" not in t for t in page.sections)


def test_report_bayes_per_measure(matrix):
    page = rk.report(
        {"AP": matrix, "P@10": matrix * 0.5}, baseline="champ", bayes={"P@10": comparison((0.0,))}
    )
    assert [t for t in page.sections if "Bayesian" in t] == ["P@10: Bayesian risk: champion and challengers"]


@pytest.mark.parametrize("bad", [pd.DataFrame(), {"AP": 1}, {}])
def test_report_bayes_must_be_a_comparison(matrix, bad):
    with pytest.raises(
        RiskevalError, match="The 'bayes' parameter of report must be a riskeval.bayes.ChampionComparison"
    ):
        rk.report(matrix, baseline="champ", bayes=bad)


@pytest.fixture
def sampler(monkeypatch):
    """champion_challengers replaced by :func:`comparison` at the α it is given, recording its call."""
    calls = []

    def fake(scores, champion, challengers=None, **options):
        calls.append({"champion": champion, "challengers": challengers, **options})
        return comparison(tuple(options["alphas"]))

    monkeypatch.setattr(riskeval.bayes, "champion_challengers", fake)
    return calls


def test_cli_report_bayes(matrix, sampler, capsys, tmp_path):
    scores = tmp_path / "scores.csv"
    matrix.rename_axis("system").to_csv(scores)
    out = tmp_path / "report.html"
    code, _, err = run_cli(["report", scores, "--baseline", "champ", "--alpha", "0,5", "--level", "0.1",
                            "--bayes", "--champion", "champ", "--challengers", "loser", "--chains", 2,
                            "--draws", 100, "--warmup", 50, "--seed", 9, "--no-progress", "-o", out], capsys)  # fmt: skip
    assert code == 0, err
    (call,) = sampler
    assert call["champion"] == "champ" and call["challengers"] == ["loser"]
    assert call["alphas"] == [0.0, 5.0] and call["level"] == pytest.approx(0.9)
    assert (call["chains"], call["draws"], call["warmup"], call["rng"]) == (2, 100, 50, 9)
    assert '<section id="bayes"' in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--champion", "champ"], "--champion and --challengers go with --bayes."),
        (["--bayes"], "riskeval report --bayes needs --champion NAME"),
        (
            ["--bayes", "--champion", "nobody"],
            "The '--champion' option of riskeval report --bayes names 'nobody'",
        ),
    ],
)
def test_cli_report_bayes_errors(matrix, sampler, capsys, tmp_path, extra, message):
    scores = tmp_path / "scores.csv"
    matrix.rename_axis("system").to_csv(scores)
    code, _, err = run_cli(
        ["report", scores, "--baseline", "champ", "-o", tmp_path / "r.html", *extra], capsys
    )
    assert code == 2 and message in err and "Traceback" not in err
    assert not sampler and not (tmp_path / "r.html").exists()


@pytest.fixture(scope="module")
def fitted_report(tmp_path_factory) -> Path:
    """A report with the section of a real (small) fit, written by the command line."""
    rng = np.random.default_rng(3)
    effects = np.array([0.0, 0.12, -0.1, 0.03, 0.08])
    values = np.clip(0.4 + effects[:, None] + rng.normal(0, 0.15, 10) + rng.normal(0, 0.05, (5, 10)), 0, 1)
    folder = tmp_path_factory.mktemp("bayes-report")
    names = ["champion", "better & <bold>", "worse", "close", "good"]
    pd.DataFrame(values, index=pd.Index(names, name="system"), columns=[f"t{j}" for j in range(10)]).to_csv(
        folder / "scores.csv"
    )
    from riskeval.cli.main import main

    path = folder / "report.html"
    main(["report", str(folder / "scores.csv"), "--baseline", "champion", "--alpha", "0,5", "--bayes",
          "--champion", "champion", "--chains", "2", "--draws", "300", "--warmup", "300", "--seed", "4",
          "--no-progress", "-o", str(path)])  # fmt: skip
    return path


@pytest.mark.slow
def test_bayes_section_in_chromium(fitted_report, tmp_path):
    """The section and its table are visible in Chromium; the screenshot of the section is left in
    the test's folder (``report-bayes.png``) to be looked at."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(fitted_report.as_uri())
        section = page.locator("section#bayes")
        section.scroll_into_view_if_needed()
        assert section.is_visible()
        assert section.locator("figure svg").is_visible()
        table = section.locator("table")
        assert table.is_visible()
        rows = table.locator("tbody tr")
        assert rows.count() == 4
        labels = [rows.nth(i).locator("th").inner_text() for i in range(4)]
        assert labels == ["better & <bold>", "worse", "close", "good"]
        values = [float(v) for v in rows.nth(0).locator("td").all_inner_texts()]
        assert len(values) == 2 and all(0 <= v <= 1 for v in values)
        assert re.search(r"Sampling checks: (passed|FAILED)", section.inner_text())
        section.screenshot(path=str(tmp_path / "report-bayes.png"))
        browser.close()
