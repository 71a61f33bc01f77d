"""The HTML report: one self-contained file (no external resource, scripts only inline), the tables,
the embedded data and the plots it promises, the inputs and settings recorded, pluggable sections,
any comparison size from 2 systems, several measures, focus systems, topic texts, tests."""

from __future__ import annotations

import datetime as dt
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.datasets import example_scores
from riskeval.errors import RiskevalError
from riskeval.reporting import Section
from riskeval.reporting.sections import (
    DEFAULT_SECTIONS,
    alpha_curves_section,
    risky_topics_section,
    summary_section,
)


class Page(HTMLParser):
    """Collects what the assertions need: tags, ids, attribute URLs, table cells with classes."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.urls: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self.cells: list[tuple[str, str | None]] = []  # (text, class) of <td> in risk tables
        self._td: tuple[list[str], str | None] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.append(a["id"])
        self.urls += [v for k, v in attrs if k in ("src", "href", "xlink:href", "action", "data")]
        if tag == "td":
            self._td = ([], a.get("class"))
        if tag == "script":
            self.scripts.append(a)

    def handle_data(self, data):
        if self._td is not None:
            self._td[0].append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self._td is not None:
            self.cells.append(("".join(self._td[0]), self._td[1]))
            self._td = None


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


@pytest.fixture(scope="module")
def example(X, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    return rk.report(X, measure="nDCG@10", inputs=["dl19-passage-ndcg10.csv"], path=path)


def page_data(html: str, key: str = "m0") -> dict:
    """The JSON a measure's interactive parts read, parsed as the page script parses it."""
    m = re.search(rf'<script type="application/json" id="rk-data-{key}">(.*?)</script>', html, re.S)
    assert m is not None
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def small() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        rng.uniform(0, 1, (5, 12)),
        index=[f"s{i}" for i in range(5)],
        columns=[str(100 + j) for j in range(12)],
    )


def test_written_file_is_the_returned_page(example):
    assert isinstance(example.path, Path) and example.path.exists()
    assert example.path.read_text(encoding="utf-8") == example.html
    assert example.sections == (
        "Risk per α",
        "Per-topic analysis",
        "URisk, TRisk and GeoRisk as α grows",
        "Baseline bias",
        "Risk rankings under unbiased baselines",
        "Where ZRisk comes from",
    )


def test_self_contained_scripts_inline_no_external_resource(example):
    page = Page(example.html)
    external = [u for u in page.urls if not u.startswith("#")]
    assert external == []  # only in-page anchors (table of contents, SVG clip paths)
    for tag in ("link", "img", "iframe", "object", "embed"):
        assert tag not in page.tags
    # one inline script, and the data as JSON (never a src= to fetch)
    assert [s.get("type") for s in page.scripts] == ["application/json", None]
    assert all("src" not in s for s in page.scripts)
    style = example.html.split("</style>")[0]
    assert not re.search(r"url\(|@import|https?://", style)
    script = example.html.split("<script>")[1].split("</script>")[0]
    assert not re.search(r"fetch|XMLHttpRequest|import\(|\.src\b|https?://(?!www\.w3\.org/2000/svg)", script)
    assert "<?xml" not in example.html and "<!DOCTYPE svg" not in example.html


def test_settings_are_recorded(example):
    s = example.settings
    assert s["measure"] == "nDCG@10" and s["inputs"] == ["dl19-passage-ndcg10.csv"]
    assert (s["baseline"], s["alphas"], s["level"], s["correction"], s["se"]) == (
        "MEAN",
        [0.0, 1.0, 5.0, 10.0],
        0.05,
        None,
        "parametric",
    )
    assert s["riskeval"] and s["systems"] == 37 and s["topics"] == 43
    text = example.html
    for shown in (
        "nDCG@10",
        "dl19-passage-ndcg10.csv",
        "<td>MEAN</td>",
        "<td>0, 1, 5, 10</td>",
        "<td>0.05</td>",
        "<td>none</td>",
        "<td>parametric</td>",
        f"riskeval {s['riskeval']}",
        dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
    ):
        assert shown in text, shown


def test_plots_are_inline_svg_or_drawn_from_the_data_with_unique_ids(example):
    page = Page(example.html)
    # matplotlib: the PCA and the ZRisk residuals; the script: per-topic bars, the curves of the
    # measures that rank systems (URisk, TRisk, GeoRisk)
    svgs = re.findall(r"<svg\b.*?</svg>", example.html, flags=re.S)
    assert len(svgs) == 2
    assert all(svg.count("<path") + svg.count("<use") > 40 and svg.count("<text") > 10 for svg in svgs)
    charts = re.findall(r'<figure class="rk-chart" data-chart="(\w+)" data-key="m0">', example.html)
    assert charts == ["topics", "urisk", "trisk", "georisk"]
    assert len(page.ids) == len(set(page.ids))


def test_summary_table_shows_every_system_and_the_risk_table_values(example, X):
    summary = example.html.split('id="summary"')[1].split("<details>")[0]
    for name in X.index:
        assert f'<th scope="row">{name}</th>' in summary
    # The static table is the largest α; the JSON holds every α, from the same risk table.
    table = rk.risk_table(X, alphas=[0, 1, 5, 10]).set_index(["system", "alpha"])
    at10 = table.xs(10.0, level="alpha")
    row = at10[at10["significant"] & (at10["trisk"] > 0)].iloc[0]
    assert f'<td class="sig-win">{row["trisk"]:.3f}</td>' in summary
    page = Page(summary)
    losses = at10[at10["significant"] & (at10["trisk"] < 0)]
    assert sum(cls == "sig-loss" for _, cls in page.cells) == 2 * len(losses)  # URisk and TRisk shaded
    assert sum(cls == "sig-win" for _, cls in page.cells) == 2 * (
        int(at10["significant"].sum()) - len(losses)
    )
    d = page_data(example.html)
    assert d["alphas"] == [0, 1, 5, 10] and d["alpha"] == 3
    for k, a in enumerate(d["alphas"]):
        at = table.xs(float(a), level="alpha").loc[d["systems"]]
        assert d["sig"][k] == (at["significant"] * np.sign(at["urisk"])).astype(int).tolist()
        np.testing.assert_allclose(d["table"][k]["trisk"], at["trisk"].round(3), atol=1e-12)
    assert d["systems"] == list(X.mean(axis=1).sort_values(ascending=False, kind="stable").index)


def test_per_topic_analysis_opens_on_the_best_run_and_holds_every_system(example, X):
    at10 = rk.risk_table(X, alphas=[10]).set_index("system")["trisk"].sort_values()
    topics = example.html.split('id="topics"')[1].split('id="alpha"')[0]
    assert f"<caption>{X.mean(axis=1).idxmax()} at α = 10, topics by TR</caption>" in topics
    riskiest = topics.split("The 3 systems with the lowest TRisk")[1]
    assert [n for n in at10.index[:4] if f'<th scope="row">{n}</th>' in riskiest] == list(at10.index[:3])
    d = page_data(example.html)
    assert sorted(d["pt"]["systems"]) == list(range(len(X)))
    # the per-topic data of a system equal topic_risk's, significance included
    name = "p_bert"
    k = d["pt"]["systems"].index(d["systems"].index(name))
    tr = rk.topic_risk(X.loc[name], rk.analysis.baseline(X, "mean"), alpha=5)
    np.testing.assert_allclose(np.array(d["pt"]["tr"][k][2]) / 100, tr["tr"].round(2), atol=1e-12)
    signed = [
        (j + 1) * (1 if t > 0 else -1)
        for j, (t, s) in enumerate(zip(tr["tr"], tr["significant"], strict=True))
        if s
    ]
    assert d["pt"]["sig"][k][2] == signed


def test_bias_section_reports_friedman_and_pca(example, X):
    study = rk.bias_study(X, 1.0)
    bias = example.html.split('id="bias"')[1]
    assert f"χ² = {study.friedman.statistic:.2f}" in bias
    assert f"PC1 {study.pca.explained.iloc[0]:.1f}%" in bias
    for run in ("MEAN", "MEDIAN", "MAX"):
        assert f'<th scope="row">{run}</th>' in bias


def test_named_baseline_correction_and_no_path(small):
    r = rk.report(
        small,
        baseline="s0",
        alphas=[0, 2],
        correction="holm",
        level=0.1,
        n_risky=1,
        sections=[summary_section, risky_topics_section],
    )
    assert r.path is None and r.settings["correction"] == "holm"
    assert "T*Risk" in r.html and "holm-adjusted" in r.html
    assert r.settings["baseline"] == "s0" and r.settings["bias_alpha"] == 2.0
    # with a correction, topics are marked by adjusted p and no unadjusted ±t line is the rule
    topics = r.html.split('id="topics"')[1]
    assert "<th>p (holm)</th>" in topics and "dashed lines" not in topics
    assert "adjusted p ≤ 0.1" in topics
    assert topics.split("The system with the lowest TRisk")[1].count("<tr>") == 2


def test_sections_are_pluggable(small):
    def extra(ctx):
        if "note" not in ctx.data:
            return None
        return Section("Query variations", f"<p>{ctx.data['note']} over {ctx.matrix.shape[1]} topics</p>")

    assert extra not in DEFAULT_SECTIONS and summary_section in DEFAULT_SECTIONS
    r = rk.report(small, sections=[summary_section, extra], data={"note": "mean-variance"})
    assert r.sections == ("Risk per α", "Query variations")
    assert 'id="query-variations"' in r.html and "mean-variance over 12 topics" in r.html
    assert '<a href="#query-variations">' in r.html
    assert rk.report(small, sections=[summary_section, extra]).sections == ("Risk per α",)
    only = rk.report(small, sections=[])
    assert only.sections == () and "Inputs and settings" in only.html


def test_section_bodies_from_builders_are_trusted_but_titles_are_escaped(small):
    r = rk.report(small, sections=[lambda ctx: Section("<b>x</b>", "<em>ok</em>")], title="A & B")
    assert "&lt;b&gt;x&lt;/b&gt;" in r.html and "<em>ok</em>" in r.html
    assert "<title>A &amp; B</title>" in r.html


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"baseline": "nosuchrun"}, "nosuchrun"),
        ({"alphas": [-1]}, "alpha"),
        ({"level": 1.5}, "level"),
        ({"correction": "fdr"}, "correction"),
        ({"n_risky": -1}, "n_risky"),
        ({"risk": "Urisk5"}, "Unknown risk measure 'Urisk5'"),
        ({"risk": []}, "The 'risk' parameter of report"),
        ({"settings": {"level": 0.1}}, "The 'settings' parameter of report"),
        ({"test": "permutation", "rng": -1}, "The 'rng' parameter of report"),
    ],
)
def test_bad_settings_raise_before_writing(small, tmp_path, kwargs, match):
    path = tmp_path / "r.html"
    with pytest.raises(RiskevalError, match=match):
        rk.report(small, path=path, **kwargs)
    assert not path.exists()


def test_negative_scores_give_a_report_without_the_georisk_plot():
    # Score differences (or any measure below 0): GeoRisk is undefined (its √e_ij and √(S_i/c) need
    # scores ≥ 0), the rest holds.
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(0, 1, (4, 9)), index=list("abcd"))
    with pytest.warns(rk.errors.RiskevalWarning, match="GeoRisk"):
        r = rk.report(X, sections=[alpha_curves_section])
    assert "No GeoRisk plot" in r.html and 'data-chart="trisk"' in r.html
    series = {m["key"]: m for m in page_data(r.html)["curves"]["series"]}
    assert 'data-chart="georisk"' not in r.html and series["georisk"]["values"] is None
    assert series["trisk"]["values"] is not None and series["trisk"]["band"]


def test_too_small_a_matrix_is_refused():
    with pytest.raises(RiskevalError, match="at least 2 systems"):
        rk.report(pd.DataFrame([[0.1, 0.2, 0.3]]))
    with pytest.raises(RiskevalError, match="2 topics"):
        rk.report(pd.DataFrame([[0.1], [0.3]]))


def test_report_is_the_function_whatever_was_imported_first():
    # riskeval's names are imported on first use: importing the reporting modules first must not
    # make riskeval.report a module.
    import subprocess
    import sys

    code = (
        "import riskeval as rk; from riskeval.reporting.sections import DEFAULT_SECTIONS; "
        "print(callable(rk.report), rk.report.__module__)"
    )
    src = Path(__file__).resolve().parents[1] / "src"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(src)}, check=True
    ).stdout.split()
    assert out == ["True", "riskeval.reporting.build"]


# rounding and plotting risks of magnitude 1e308 overflow to ±inf on purpose: numpy's warnings
# about it are expected here, not news for the suite summary
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_infinite_values_travel_in_the_page_data():
    """The win/loss ratio of a system that never loses is infinite: JSON has no infinity, so the
    page data writes ±∞ as {"__inf__": ±1} (the page's script reads it back as a number) and NaN as
    null."""
    from riskeval.reporting.html import json_script

    html = str(json_script("rk-x", {"u": [1.5, -np.inf, np.inf, np.nan], "name": "Infinity"}))
    text = html[html.index(">") + 1 : html.rindex("</script>")]
    assert json.loads(text) == {"u": [1.5, {"__inf__": -1}, {"__inf__": 1}, None], "name": "Infinity"}
    M = pd.DataFrame(
        [[0.9, 0.8, 0.7], [0.3, 0.2, 0.6], [0.2, 0.4, 0.1]], index=list("abc"), columns=list("xyz")
    )  # a wins every topic against the MEAN
    page = rk.report(M).html
    assert "__inf__" in page


def test_settings_object_gives_the_report_of_the_keywords(small):
    keywords = dict(
        baseline="median", alphas=(0, 2), level=0.1, correction="holm", se="jackknife", leave_one_out=True
    )
    fast = [summary_section, risky_topics_section, alpha_curves_section]
    by_keywords = rk.report(small, sections=fast, **keywords)
    by_settings = rk.report(small, sections=fast, settings=rk.RiskSettings(**keywords))
    overridden = rk.report(
        small,
        sections=fast,
        settings=rk.RiskSettings(baseline="max", alphas=(3,), level=0.01, se="jackknife"),
        baseline="median",
        alphas=[0, 2],
        level=0.1,
        correction="holm",
        leave_one_out=True,
    )
    want = page_data(by_keywords.html)
    assert want["alphas"] == [0, 2] and want["baseline"] == "MEDIAN" and want["correction"] == "holm"
    for other in (by_settings, overridden):
        assert page_data(other.html) == want
        assert {k: v for k, v in other.settings.items() if k != "created"} == {
            k: v for k, v in by_keywords.settings.items() if k != "created"
        }


def test_risk_restricts_the_tables_to_its_measures_at_their_alphas(small):
    r = rk.report(small, risk=[rk.URisk(alpha=5), "GeoRisk"], alphas=[1], sections=[summary_section])
    d = page_data(r.html)
    assert d["alphas"] == [1, 5] and r.settings["alphas"] == [1.0, 5.0]
    assert [c[0] for c in d["columns"]] == ["mean", "urisk", "georisk", "wins", "losses", "loss20"]
    want = rk.risk_table(small, alphas=[1, 5]).query("alpha == 5").set_index("system")
    np.testing.assert_allclose(d["table"][1]["georisk"], want.loc[d["systems"], "georisk"].round(4))
    full = r.html.split("<details>")[1]
    assert "<th>georisk</th>" in full and "<th>urisk</th>" in full
    assert "<th>trisk</th>" not in full and "<th>zrisk</th>" not in full
    assert r.settings["risk"] == ["URisk(alpha=5)", "GeoRisk"]
    assert "<th>risk measures</th><td>URisk(alpha=5), GeoRisk</td>" in r.html
    every = rk.report(small, sections=[summary_section])
    assert every.settings["risk"] == list(rk.measures.declared.RISK_MEASURES)
    assert "<th>trisk</th>" in every.html.split("<details>")[1]
    # the measures that declare `marked` are shaded, those of risk= only
    assert "URisk and TRisk are shaded" in every.html
    assert "URisk is shaded" in r.html and "TRisk are shaded" not in r.html


def test_rng_a_seed_or_a_generator_gives_the_recorded_seed(small):
    kwargs = dict(test="permutation", n_resamples=200, sections=[summary_section])
    drawn = rk.report(small, rng=np.random.default_rng(5), **kwargs)
    seed = drawn.settings["seed"]
    assert isinstance(seed, int)
    again = rk.report(small, rng=seed, **kwargs)
    assert page_data(again.html) == page_data(drawn.html)
    assert f"seed {seed}" in again.html
