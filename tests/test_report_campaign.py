"""The report from one run against its baseline to a campaign: several measures, focus systems,
topic texts, the test behind the p-values, hostile names escaped, sections that say why they are
left out, and the topic-text reader."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.topic_texts import read_topic_texts
from riskeval.reporting import sections as sec


def matrix(r: int, c: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        rng.uniform(0, 1, (r, c)),
        index=[f"run{i}" for i in range(r)],
        columns=[str(100 + j) for j in range(c)],
    )


def data_of(html: str, key: str = "m0") -> dict:
    m = re.search(rf'<script type="application/json" id="rk-data-{key}">(.*?)</script>', html, re.S)
    assert m is not None
    return json.loads(m.group(1))


FAST = [sec.summary_section, sec.risky_topics_section, sec.alpha_curves_section, sec.bias_section]


def test_one_run_against_its_baseline_is_a_full_report():
    X = matrix(2, 30)
    r = rk.report(X, baseline="run0")
    assert r.sections[:4] == (
        "Risk per α",
        "Per-topic analysis",
        "URisk, TRisk and GeoRisk as α grows",
        "Baseline bias",
    )
    bias = r.html.split('id="bias"')[1]
    assert "Left out" in bias and "at least 3 systems" in bias
    d = data_of(r.html)
    assert d["systems"] == list(X.mean(axis=1).sort_values(ascending=False).index)
    # the run's per-topic analysis opens first (the baseline's own TRisk is undefined)
    assert d["systems"][d["pt"]["systems"][0]] == "run1"
    assert "<caption>run1 at α = 10, topics by TR</caption>" in r.html


def test_several_measures_give_one_tab_each():
    A, B = matrix(4, 10, 1), matrix(4, 10, 2)
    r = rk.report({"nDCG@10": A, "AP": B}, sections=FAST[:2])
    assert r.sections == (
        "nDCG@10: Risk per α",
        "nDCG@10: Per-topic analysis",
        "AP: Risk per α",
        "AP: Per-topic analysis",
    )
    assert r.settings["measures"] == ["nDCG@10", "AP"]
    assert '<button type="button" role="tab" data-tab="m1">AP</button>' in r.html
    assert 'id="m0-summary"' in r.html and 'id="m1-summary"' in r.html
    ids = re.findall(r'\bid="([^"]+)"', r.html)
    assert len(ids) == len(set(ids))  # sections, tables and data of both measures
    t = rk.risk_table(B, alphas=[10]).set_index("system").loc[data_of(r.html, "m1")["systems"]]
    np.testing.assert_allclose(data_of(r.html, "m1")["table"][3]["urisk"], t["urisk"].round(4))


def test_focus_systems_are_listed_and_drawn_first_but_baselines_use_every_system():
    X = matrix(12, 15)
    r = rk.report(X, systems=["run7", "run3"], sections=FAST[:3])
    d = data_of(r.html)
    assert [d["systems"][i] for i in d["focus"]] == ["run7", "run3"]
    assert [d["systems"][i] for i in d["pt"]["systems"][:2]] == ["run7", "run3"]
    assert "focus: run7, run3" in r.html
    # MEAN over all 12 systems, not the 2 in focus
    full = rk.risk_table(X, alphas=[10]).set_index("system")
    assert data_of(r.html)["table"][3]["urisk"][d["systems"].index("run7")] == round(
        full.loc["run7", "urisk"], 4
    )
    with pytest.raises(RiskevalError, match="nosuch"):
        rk.report(X, systems=["nosuch"])


def test_topic_texts_are_shown_and_hostile_names_escaped_everywhere():
    X = matrix(3, 5)
    evil = "</script><img src=x onerror=alert(1)>"
    X.index = ["ok", evil, "a&b"]
    topics = {"100": "<b>bold</b> & co", "101": "</script><script>alert(2)</script>"}
    r = rk.report(X, topics=topics, systems=[evil], title=evil, sections=FAST[:3])
    assert "<img" not in r.html and "<b>bold" not in r.html and "alert(2)</script>" not in r.html
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in r.html
    d = data_of(r.html)  # the JSON gives every text back unchanged
    assert evil in d["systems"] and d["texts"][:2] == [topics["100"], topics["101"]]
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in r.html


def test_the_test_correction_and_seed_are_stated_and_decide_significance():
    X = matrix(5, 20)
    r = rk.report(X, test="permutation", n_resamples=500, rng=3, correction="holm", sections=FAST[:1])
    assert r.settings["test"] == "permutation" and r.settings["seed"] == 3
    summary = r.html.split('id="summary"')[1]
    assert "sign-flip randomisation test of URisk (500 resamples, seed 3), p-values holm-adjusted" in summary
    from riskeval.inference.tables import with_test

    t = with_test(
        rk.risk_table(X, correction="holm"), X, test="permutation", baseline="mean", n_resamples=500, rng=3
    ).set_index(["system", "alpha"])
    d = data_of(r.html)
    for k, a in enumerate(d["alphas"]):
        at = t.xs(float(a), level="alpha").loc[d["systems"]]
        assert d["sig"][k] == (at["significant"] * np.sign(at["urisk"])).astype(int).tolist()
        np.testing.assert_allclose(d["table"][k]["pvalue_adj"], [float(f"{p:.3g}") for p in at["pvalue_adj"]])
    with pytest.raises(RiskevalError, match="test"):
        rk.report(X, test="wilcoxon")


def test_large_campaigns_are_summarised_and_say_so(monkeypatch):
    from riskeval.reporting import explorer, paper_sections

    X = matrix(40, 25)
    monkeypatch.setattr(sec, "BIAS_VISITS", 1000)
    # the static tables are cut at TABLE_ROWS rows (the script shows every row)
    monkeypatch.setattr(sec, "TABLE_ROWS", 10)
    monkeypatch.setattr(explorer, "TOPIC_VALUES", 25 * 14 * 6)
    monkeypatch.setattr(explorer, "CURVE_SYSTEMS", 8)
    monkeypatch.setattr(paper_sections, "RESIDUAL_CELLS", 100)
    r = rk.report(X, systems=["run5"], sections=[*FAST, paper_sections.residuals_section])
    d = data_of(r.html)
    assert len(d["pt"]["systems"]) == 6 and d["systems"][d["pt"]["systems"][0]] == "run5"
    assert len(d["curves"]["systems"]) == 8 and d["systems"].index("run5") in d["curves"]["systems"]
    assert d["pt"]["systems"][1] == d["byRisk"][0] and d["pt"]["systems"][2] == d["byRisk"][-1]
    assert "6 of the 40 systems travel in the page" in r.html
    assert "8 of the 40 systems are drawn" in r.html
    assert "first 10 of 40 systems" in r.html and "the 10 topics of lowest TR of 25" in r.html
    assert r.html.split('id="m0-topics-table"')[1].split("</table>")[0].count("<tr>") == 11
    assert "Left out at this size" in r.html.split('id="bias"')[1]
    assert "Left out at this size (1,000 cells" in r.html


def test_progress_goes_to_stderr(capsys):
    rk.report(matrix(3, 6), progress=True, sections=FAST[:1])
    err = capsys.readouterr().err
    assert "riskeval report [" in err and "risk table" in err


def test_short_input_paths(tmp_path):
    files = [str(tmp_path / "runs" / f"r{i}.gz") for i in range(30)] + [str(tmp_path / "qrels.txt")]
    r = rk.report(matrix(2, 4), inputs=files, sections=[])
    assert "30 files (r0.gz, r1.gz, …, r29.gz)" in r.html
    assert r.html.count(str(tmp_path)) <= 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "1030303\twho is aziz hashim\r\n1037496\twho is rep scalise?\n",
            {"1030303": "who is aziz hashim", "1037496": "who is rep scalise?"},
        ),
        ("151:403b\n152:angular cheilitis\n", {"151": "403b", "152": "angular cheilitis"}),
        (
            "<top>\n<num> Number: 301\n<title> International Organized Crime\n<desc> Description:\nx\n</top>\n"
            "<top>\n<num> Number: 302\n<title> Poliomyelitis and Post-Polio\n</top>\n",
            {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio"},
        ),
        (
            '<?xml version="1.0"?>\n<webtrack2012>\n<topic number="151" type="faceted">\n'
            "  <query>403b &amp; co</query>\n  <description>x</description>\n</topic>\n</webtrack2012>\n",
            {"151": "403b & co"},
        ),
    ],
)
def test_topic_texts_reader_layouts(tmp_path, text, expected):
    path = tmp_path / "topics.txt"
    path.write_text(text, encoding="utf-8")
    assert read_topic_texts(path) == expected


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("1\tfoo\nno separator here\n", ":2", "no topic id"),
        ("1\tfoo\n2\t \n", ":2", "topic 2 has no text"),
        ("1\tfoo\n\n1\tbar\n", ":3", "topic 1 is given twice"),
        ("<top>\n<num> Number: 1\n</top>\n", ":1", "topic 1 has no text"),
        ("\n\n", "", "no topic found"),
    ],
)
def test_topic_texts_reader_errors_name_file_and_line(tmp_path, text, where, what):
    path = tmp_path / "topics.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFormatError, match=re.escape(f"{path}{where}: ") + ".*" + what):
        read_topic_texts(path)


@pytest.mark.slow
def test_command_line_measures_focus_topics_and_test(tmp_path, capsys):
    from click.testing import CliRunner

    from riskeval.cli.main import cli

    X = matrix(4, 8)
    long = pd.concat(
        [
            X.stack().rename("score").rename_axis(["system", "topic"]).reset_index().assign(measure=m)
            for m in ("nDCG@10", "AP")
        ]
    )
    scores = tmp_path / "scores.csv"
    long.to_csv(scores, index=False)
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{t}\tquery {t}\n" for t in X.columns), encoding="utf-8")
    out = tmp_path / "r.html"
    args = ["report", str(scores), "--measure", "nDCG@10", "--measure", "AP", "--systems", "run2"]
    args += ["--topics-file", str(topics), "--test", "bootstrap", "--n-resamples", "200", "--seed", "5"]
    res = CliRunner().invoke(cli, [*args, "--no-progress", "-o", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    assert data_of(html, "m1")["measure"] == "AP" and data_of(html)["texts"][0] == "query 100"
    assert "BCa bootstrap of URisk over topics (200 resamples, seed 5)" in html
    assert "focus: run2" in html
    from riskeval.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main([*args[:2], "--systems", "nosuch", "-o", str(out)])
    assert stop.value.code == 2 and "unknown system(s): 'nosuch'" in capsys.readouterr().err


def test_pca_names_only_runs_apart_and_friedman_p_never_zero():
    X = matrix(40, 12, 3)
    X.iloc[:20] += 0.3  # two groups, so that points crowd
    r = rk.report(X.clip(0, 1), systems=["run5"], sections=[sec.bias_section])
    study = rk.bias_study(X.clip(0, 1), 1.0)
    xy = study.pca.coordinates.iloc[:, :2]
    named = [n for n in xy.index if f">{n}</text>" in r.html]
    assert "run5" in named and "MEAN" in named and len(named) < len(xy)
    span = (xy.max() - xy.min()).to_numpy()
    for i, a in enumerate(named):
        for b in named[i + 1 :]:
            gap = np.abs(xy.loc[a] - xy.loc[b]).to_numpy() / span
            assert not (gap[0] < 0.08 and gap[1] < 0.04), (a, b)
    assert "p = 0;" not in r.html
