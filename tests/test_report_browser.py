"""The report in headless Chromium through playwright: no request leaves the file, the tables sort
and filter, the α picker and the system picker change what the page shows, hover gives exact
values, and with scripts off the static tables stay.  Skips, saying why, only where playwright or
Chromium is absent (fails there under RISKEVAL_REQUIRE_BROWSER=1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.cli.main import main
from riskeval.datasets import example_scores
from riskeval.measures.declared import RISK_MEASURES
from tests.shared_data import chromium, shared_data

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser():
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    """The report of the shipped example, written by the command line, with a focus system."""
    path = tmp_path_factory.mktemp("browser") / "riskeval-report.html"
    main(["report", "--example", "--systems", "p_bert", "-o", str(path)])
    return path


@pytest.fixture(scope="module")
def dl20_file(tmp_path_factory) -> Path:
    """The report of the 59 TREC DL 2020 passage runs, from the run files and the qrels, with the
    topic texts, two focus systems and Holm's correction."""
    d = shared_data("trec-dl-2020-passage")
    out = tmp_path_factory.mktemp("dl20") / "dl20.html"
    main(
        [
            "report",
            "--qrels",
            str(d / "qrels.dl20-passage.txt"),
            "--measure",
            "nDCG@10",
            "--baseline",
            "p_bm25",
            "--topics-file",
            str(d / "topics.dl20-passage.txt"),
            "--systems",
            "p_d2q_bm25_duo,bigIR-T5-R",
            "--correction",
            "holm",
            "--no-progress",
            "-o",
            str(out),
            *map(str, sorted((d / "runs-top100").glob("*.gz"))),
        ]
    )
    return out


@pytest.fixture(scope="module")
def two_file(tmp_path_factory) -> Path:
    """One run against its baseline: p_bert against bm25base_p."""
    path = tmp_path_factory.mktemp("two") / "two.html"
    rk.report(
        example_scores().loc[["p_bert", "bm25base_p"]], baseline="bm25base_p", measure="nDCG@10", path=path
    )
    return path


def open_page(browser, path: Path, width: int = 1280, **context):
    """The page with every request but the file itself blocked and recorded."""
    ctx = browser.new_context(viewport={"width": width, "height": 900}, **context)
    page = ctx.new_page()
    page.blocked = []  # type: ignore[attr-defined]
    page.errors = []  # type: ignore[attr-defined]
    url = path.as_uri()

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            page.blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    return page


def data(page) -> dict:
    return json.loads(page.locator("#rk-data-m0").text_content())


def column(page, table: str, header: str) -> list[str]:
    heads = page.locator(f"#{table} thead th").all_text_contents()
    j = [h.strip() for h in heads].index(header)
    return page.eval_on_selector_all(
        f"#{table} tbody tr:not(.rk-more)", f"rows => rows.map(r => r.cells[{j}].textContent)"
    )


def test_no_request_leaves_the_file_and_no_error(browser, report_file):
    page = open_page(browser, report_file)
    assert page.blocked == [] and page.errors == []
    urls = page.eval_on_selector_all(
        "[src], [href]", "els => els.map(e => e.getAttribute('src') || e.getAttribute('href'))"
    )
    assert all(u.startswith("#") for u in urls)
    # the TRisk curves mark the table's decisions for the focus system, at the table's α values
    d = data(page)
    i = d["systems"].index("p_bert")
    marks = page.locator("figure[data-chart='trisk'] circle.rk-sig").count()
    assert marks == sum(d["sig"][a][i] != 0 for a in range(len(d["alphas"]))) > 0
    # the page scrolls vertically only: tables scroll inside their own box at 1280 px
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.context.close()


def test_sort_and_filter_the_risk_table(browser, report_file):
    page = open_page(browser, report_file)
    page.click("#m0-risk-table thead th:has-text('TRisk')")
    values = [float(v) for v in column(page, "m0-risk-table", "TRisk") if v != "–"]
    assert values == sorted(values)
    page.click("#m0-risk-table thead th:has-text('TRisk')")
    values = [float(v) for v in column(page, "m0-risk-table", "TRisk") if v != "–"]
    assert values == sorted(values, reverse=True)
    assert page.get_attribute("#m0-risk-table thead th:has-text('TRisk')", "aria-sort") == "descending"
    page.fill("input[data-table='m0-risk-table']", "bert")
    names = column(page, "m0-risk-table", "system")
    assert names and all("bert" in n.lower() for n in names)
    assert len(names) == sum("bert" in n.lower() for n in example_scores().index)
    page.context.close()


def test_changing_alpha_updates_the_table_and_the_plots(browser, report_file):
    page = open_page(browser, report_file)
    d = data(page)
    line = "figure[data-chart='trisk'] line[stroke='#2a5db0']"
    x10 = float(page.get_attribute(line, "x1"))
    page.select_option("#summary select.rk-alpha", "0")
    assert page.locator("#m0-risk-table caption").text_content() == "Risk at α = 0, systems by mean score"
    shown = [None if v == "–" else float(v) for v in column(page, "m0-risk-table", "TRisk")]
    assert shown == [None if v is None else round(v, 3) for v in d["table"][0]["trisk"]]
    # the shading of each measure declared as marked (URisk, TRisk) follows the significance at
    # α = 0, computed by riskeval
    marked = sum(cls.marked for cls in RISK_MEASURES.values())
    wins = page.locator("#m0-risk-table td.sig-win").count()
    assert marked == 2 and wins == marked * sum(s > 0 for s in d["sig"][0])
    assert float(page.get_attribute(line, "x1")) < x10  # the α marker moved left
    # every α picker of the measure follows, and the per-topic caption too
    assert page.locator("#topics select.rk-alpha").input_value() == "0"
    assert " at α = 0, topics by TR" in page.locator("#m0-topics-table caption").text_content()
    page.context.close()


def test_picking_a_system_shows_its_per_topic_analysis(browser, report_file):
    page = open_page(browser, report_file)
    assert page.locator("select.rk-system").input_value() == str(data(page)["systems"].index("p_bert"))
    X = example_scores()
    page.select_option("select.rk-system", label="UNH_bm25")
    assert page.locator("#m0-topics-table caption").text_content() == "UNH_bm25 at α = 10, topics by TR"
    assert page.locator("#m0-topics-table tbody tr").count() == X.shape[1]
    tr = rk.topic_risk(X.loc["UNH_bm25"], rk.analysis.baseline(X, "mean"), alpha=10)
    assert page.locator("#m0-topics-table td.sig-loss").count() == int(
        (tr["significant"] & (tr["tr"] < 0)).sum()
    )
    assert [float(v) for v in column(page, "m0-topics-table", "TR")] == sorted(np.round(tr["tr"], 2))
    bars = page.locator("figure[data-chart='topics'] rect[fill='#d62728']").count()
    assert bars == int((tr["significant"] & (tr["tr"] < 0)).sum())
    # hover: exact values of a topic
    chart = page.locator("figure[data-chart='topics'] svg")
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.08, box["y"] + box["height"] / 2)
    tip = page.locator("#rk-tip")
    assert tip.is_visible() and re.search(r"topic \d+\nscore [\d.]+, baseline [\d.]+", tip.text_content())
    page.context.close()


def test_hover_on_the_curves_names_the_system(browser, report_file):
    page = open_page(browser, report_file)
    svg = page.locator("figure[data-chart='trisk'] svg")
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.4)
    text = page.locator("#rk-tip").text_content()
    name = text.split("\n")[0]
    assert name in example_scores().index and re.search(r"TRisk -?[\d.]+ at α = [\d.]+", text)
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.4)
    assert page.locator("#m0-topics-table caption").text_content().startswith(name + " at α")
    page.context.close()


def test_scripts_off_the_static_tables_stay(browser, report_file):
    page = open_page(browser, report_file, java_script_enabled=False)
    assert page.locator("#m0-risk-table tbody tr").count() == 37
    assert page.locator("#m0-risk-table caption").text_content() == "Risk at α = 10, systems by mean score"
    assert not page.locator("select.rk-alpha").first.is_visible()
    assert page.locator("noscript").count() >= 1
    page.context.close()


def test_measure_tabs(browser, tmp_path):
    X = example_scores()
    path = tmp_path / "two-measures.html"
    rk.report({"nDCG@10": X, "rounded": X.round(1)}, path=path)
    page = open_page(browser, path)
    assert page.errors == []
    assert (
        page.locator("[data-measure='m0']").is_visible()
        and not page.locator("[data-measure='m1']").is_visible()
    )
    page.click(".rk-tabs button:has-text('rounded')")
    assert (
        page.locator("[data-measure='m1']").is_visible()
        and not page.locator("[data-measure='m0']").is_visible()
    )
    page.select_option("#m1-summary select.rk-alpha", "1")
    assert page.locator("#m1-risk-table caption").text_content() == "Risk at α = 1, systems by mean score"
    assert page.locator("#m0-risk-table caption").text_content() == "Risk at α = 10, systems by mean score"
    page.context.close()


def test_long_tables_show_the_first_thousand_rows_of_the_sort_and_filter(browser, tmp_path):
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.uniform(0, 1, (3, 1500)), index=["s0", "s1", "s2"])
    X.columns = [f"t{j:04d}" for j in range(1500)]
    path = tmp_path / "long.html"
    rk.report(X, path=path)
    page = open_page(browser, path)
    rows = page.locator("#m0-topics-table tbody tr")
    assert rows.count() == 1001 and "and 500 more rows" in rows.last.text_content()
    page.click("#m0-topics-table thead th:has-text('TR')")  # ascending: the lowest TR first
    first = float(column(page, "m0-topics-table", "TR")[0])
    page.click("#m0-topics-table thead th:has-text('TR')")  # descending: the highest, even beyond row 1000
    assert float(column(page, "m0-topics-table", "TR")[0]) > first
    page.fill("input[data-table='m0-topics-table']", "t149")
    assert sorted(column(page, "m0-topics-table", "topic")) == [f"t{j}" for j in range(1490, 1500)]
    page.context.close()


def test_hostile_names_run_no_script(browser, tmp_path):
    X = example_scores().iloc[:4, :6].copy()
    X.index = ["</script><img src=x onerror=alert(1)>", "a", "<b>b</b>", "c"]
    path = tmp_path / "evil.html"
    rk.report(X, topics={X.columns[0]: "<img src=y onerror=alert(2)>"}, path=path)
    page = open_page(browser, path)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.select_option("select.rk-system", label="</script><img src=x onerror=alert(1)>")
    page.wait_for_timeout(200)
    assert dialogs == [] and page.locator("img").count() == 0 and page.errors == []
    assert "</script><img src=x onerror=alert(1)>" in page.locator("#m0-risk-table").text_content()
    page.context.close()


def test_two_systems_and_a_campaign_render(browser, two_file, dl20_file):
    """One run against its baseline, and the 59 runs of TREC DL 2020 (from runs and qrels)."""
    page = open_page(browser, two_file)
    assert page.errors == [] and page.locator("#m0-risk-table tbody tr").count() == 2
    assert "Left out" in page.locator("#bias").text_content()
    page.context.close()
    page = open_page(browser, dl20_file)
    assert page.errors == [] and page.blocked == []
    assert page.locator("#m0-risk-table tbody tr").count() == 59
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    # holm: no ±t line in the per-topic plot, no band on the TRisk curves
    assert page.locator("figure[data-chart='topics'] line[stroke-dasharray='5 4']").count() == 0
    assert "p-values holm-adjusted" in page.locator("#alpha").text_content()
    # the topic text is shown, and at most 14 coloured curves are labelled
    assert page.locator("#m0-topics-table td.text").count() > 0
    labels = page.locator("figure[data-chart='trisk'] text[fill]").count()
    assert 2 <= labels <= 14
    page.context.close()


@pytest.mark.parametrize("which", ["report_file", "dl20_file", "two_file"])
def test_the_first_screen_shows_the_findings(browser, request, which):
    """At 1400 × 900 the findings are on the first screen, whole, under the title."""
    page = open_page(browser, request.getfixturevalue(which), width=1400)
    assert page.errors == []
    box = page.locator("#findings").bounding_box()
    assert box is not None and box["y"] + box["height"] < 900
    items = page.locator("#findings li").all_text_contents()
    assert len(items) >= 3 and "significantly better than" in items[0]
    assert page.locator("h1").bounding_box()["y"] < box["y"]
    # the settings are folded: their table is not on the first screen
    assert not page.locator("table.settings").is_visible()
    page.context.close()


def test_the_focus_curves_are_never_red_or_green(browser, dl20_file):
    page = open_page(browser, dl20_file)
    d = data(page)
    strokes = page.eval_on_selector_all(
        "figure[data-chart='trisk'] path[stroke-width='2']", "ps => ps.map(p => p.getAttribute('stroke'))"
    )
    assert len(strokes) == len(d["focus"]) == 2
    assert set(strokes) <= set(d["colours"]["focus"])
    assert not set(strokes) & {d["colours"]["loss"], d["colours"]["gain"]}
    page.context.close()


def test_print_shows_every_row_and_no_control(browser, dl20_file):
    page = open_page(browser, dl20_file)
    page.emulate_media(media="print")
    boxes = page.eval_on_selector_all(
        "div.scroll",
        """ds => ds.map(d => ({max: getComputedStyle(d).maxHeight, over: getComputedStyle(d).overflowY,
                               cut: d.scrollHeight - d.clientHeight,
                               rows: d.querySelectorAll('tbody tr').length,
                               shown: Array.from(d.querySelectorAll('tbody tr')).filter(r => r.getBoundingClientRect().height > 0).length}))""",
    )
    largest = max(boxes, key=lambda b: b["rows"])
    assert largest["rows"] == 59 * 4  # the tidy table: every system at every α, folded on screen
    for b in boxes:
        assert b["max"] == "none" and b["over"] == "visible" and b["cut"] <= 1
        assert b["shown"] == b["rows"]
    assert page.locator("#m0-risk-table tbody tr").count() == 59
    # the folded blocks are open, the controls hidden
    assert page.locator("table.settings").is_visible() and page.locator("table.full").is_visible()
    for control in ("select.rk-alpha", "input.rk-filter", "select.rk-system"):
        assert not page.locator(control).first.is_visible()
    page.emulate_media(media="screen")
    assert page.evaluate("getComputedStyle(document.querySelector('div.scroll')).maxHeight") != "none"
    page.context.close()


def test_a_click_on_a_system_opens_its_per_topic_analysis(browser, dl20_file):
    page = open_page(browser, dl20_file)
    d = data(page)
    page.locator("#m0-risk-table tbody tr:has(th:text-is('DoRA_Small'))").click()
    caption = page.locator("#m0-topics-table caption").text_content()
    assert caption == "DoRA_Small at α = 10, topics by TR"
    assert page.locator("select.rk-system").input_value() == str(d["systems"].index("DoRA_Small"))
    box = page.locator("#topics").bounding_box()
    assert box is not None and -1 <= box["y"] < 50  # the per-topic section brought into view
    # from the keyboard too: Enter on a system's name
    page.locator("#m0-risk-table tbody tr:has(th:text-is('pash_r3')) th").focus()
    page.keyboard.press("Enter")
    assert page.locator("#m0-topics-table caption").text_content().startswith("pash_r3 at α = 10")
    assert page.errors == []
    page.context.close()


def test_a_system_without_per_topic_data_in_the_page_says_how_to_get_it(browser, tmp_path, monkeypatch):
    from riskeval.reporting import explorer

    X = example_scores()
    # room in the page for the per-topic data of 3 systems (43 topics, 2 + 3 × 4 numbers each)
    monkeypatch.setattr(explorer, "TOPIC_VALUES", 3 * 43 * 14)
    path = tmp_path / "few.html"
    rk.report(X, baseline="bm25base_p", path=path)
    page = open_page(browser, path)
    d = data(page)
    assert len(d["pt"]["systems"]) == 3
    absent = next(n for i, n in enumerate(d["systems"]) if i not in d["pt"]["systems"])
    before = page.locator("#m0-topics-table caption").text_content()
    page.locator(f"#m0-risk-table tbody tr:has(th:text-is('{absent}'))").click()
    note = page.locator("#m0-topics-note")
    assert note.is_visible() and f"riskeval risk --topics {absent} gives it" in note.text_content()
    assert page.locator("#m0-topics-table caption").text_content() == before
    # a system whose data is in the page hides the note again
    shown = d["systems"][d["pt"]["systems"][1]]
    page.locator(f"#m0-risk-table tbody tr:has(th:text-is('{shown}'))").click()
    assert not note.is_visible() and page.locator("#m0-topics-table caption").text_content().startswith(shown)
    assert page.errors == []
    page.context.close()


def test_captions_name_the_order_of_the_rows(browser, report_file):
    page = open_page(browser, report_file)
    caption = page.locator("#m0-risk-table caption")
    assert caption.text_content() == "Risk at α = 10, systems by mean score"
    page.click("#m0-risk-table thead th:has-text('TRisk')")
    assert caption.text_content() == "Risk at α = 10, systems by TRisk, ascending"
    page.click("#m0-risk-table thead th:has-text('TRisk')")
    assert caption.text_content() == "Risk at α = 10, systems by TRisk, descending"
    page.select_option("#summary select.rk-alpha", "0")  # the sort stays, the caption says so
    assert caption.text_content() == "Risk at α = 0, systems by TRisk, descending"
    values = [float(v) for v in column(page, "m0-risk-table", "TRisk") if v != "–"]
    assert values == sorted(values, reverse=True)
    topics = page.locator("#m0-topics-table caption")
    page.click("#m0-topics-table thead th:text-is('score')")
    assert topics.text_content() == "p_bert at α = 0, topics by score, ascending"
    page.context.close()


def test_printed_landscape_every_column_of_the_widest_table_stays_on_the_page(browser, report_file, tmp_path):
    """The tidy table's 26 columns on an A4 landscape page less its 10 mm margins (277 mm, 1047
    CSS px): the page asks for landscape, and in print type the table fits that width."""
    page = open_page(browser, report_file, width=1047)
    page.emulate_media(media="print")
    full = page.locator("table.full")
    heads = full.locator("thead tr").last.locator("th")
    assert heads.count() == 26
    right = page.evaluate("document.documentElement.clientWidth")
    assert heads.last.bounding_box()["x"] + heads.last.bounding_box()["width"] <= right
    assert full.bounding_box()["x"] + full.bounding_box()["width"] <= right
    page.emulate_media(media="screen")
    pdf = page.pdf(prefer_css_page_size=True)
    import re as _re

    box = _re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box is not None and float(box.group(1)) > float(box.group(2))  # landscape
    page.context.close()


def _fuzz(page, seed: int, events: int) -> None:
    """Dispatch ``events`` random synthetic events (clicks, key presses, mouse moves, hovers,
    wheel turns, input and change) on random elements (half of them among those the script listens
    to, some already replaced by a redraw) at random coordinates, some outside the element or the
    window, and real mouse moves and clicks at random points, from ``seed``."""
    page.evaluate(
        """([seed, n]) => {
          let s = seed >>> 0;
          const rand = () => { s = (s + 0x6D2B79F5) >>> 0; let t = s;
            t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
            return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
          const pick = a => a[Math.floor(rand() * a.length)];
          const mouse = ["click", "dblclick", "mousedown", "mouseup", "mousemove", "mousemove", "mousemove",
                         "mouseover", "mouseout", "mouseenter", "mouseleave", "contextmenu"];
          const keys = ["Enter", " ", "Escape", "ArrowDown", "ArrowUp", "Tab", "a", "1"];
          // the elements as they were: a redraw replaces some, and events still reach the old ones
          const kinds = ["svg rect[fill='transparent']", "thead th", "tbody tr", "table", "select, input",
                         "button, summary"];
          let all = [], live = kinds.map(() => []);
          const look = () => {
            all = all.concat(Array.from(document.querySelectorAll("*")));
            kinds.forEach((k, i) => { live[i] = live[i].concat(Array.from(document.querySelectorAll(k))); });
          };
          for (let i = 0; i < n; i++) {
            if (i % 50 === 0) { look(); }
            const some = live.filter(l => l.length);  // the elements the script listens to, by kind
            const target = rand() < 0.5 && some.length ? pick(pick(some)) : pick(all);
            const kind = rand();
            const x = pick([0, 0, -5, 1e6, rand() * innerWidth]), y = pick([0, 0, -5, 1e6, rand() * innerHeight]);
            if (kind < 0.55) {
              target.dispatchEvent(new MouseEvent(pick(mouse), { bubbles: true, cancelable: true, clientX: x, clientY: y }));
            } else if (kind < 0.75) {
              target.dispatchEvent(new KeyboardEvent(pick(["keydown", "keyup", "keypress"]), { bubbles: true, key: pick(keys) }));
            } else if (kind < 0.85) {
              target.dispatchEvent(new WheelEvent("wheel", { bubbles: true, deltaY: rand() * 400 - 200 }));
            } else if (kind < 0.95) {
              const controls = document.querySelectorAll("select, input");
              const control = controls.length && rand() < 0.8 ? pick(controls) : target;
              if (control.tagName === "SELECT" && control.options.length) { control.selectedIndex = Math.floor(rand() * control.options.length); }
              if (control.tagName === "INPUT") { control.value = pick(["", "a", "<b>", "1", "zz"]); }
              control.dispatchEvent(new Event(pick(["input", "change"]), { bubbles: true }));
            } else {
              target.dispatchEvent(new Event(pick(["focus", "blur", "scroll", "resize"]), { bubbles: true }));
            }
          }
        }""",
        [seed, events],
    )
    rng = np.random.default_rng(seed)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    for _ in range(events // 10):
        x, y = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        page.mouse.move(x, y)
        if rng.uniform() < 0.3:
            page.mouse.click(x, y)
        if rng.uniform() < 0.2:
            page.mouse.wheel(0, float(rng.uniform(-600, 600)))


@pytest.mark.parametrize("which", ["two_file", "report_file"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_events_raise_no_page_error(browser, request, which, seed):
    """No event sequence throws: synthetic mouse events without coordinates on a chart once threw
    "Cannot read properties of undefined (reading 'topic')", even on a report of two runs."""
    page = open_page(browser, request.getfixturevalue(which))
    _fuzz(page, seed, 400)
    page.emulate_media(media="print")
    page.evaluate(
        "window.dispatchEvent(new Event('beforeprint')); window.dispatchEvent(new Event('afterprint'))"
    )
    assert page.errors == []
    page.context.close()
