"""The built-in sections of the risk report, in page order (:data:`DEFAULT_SECTIONS`).

Each builder takes a :class:`~riskeval.reporting.build.ReportContext` and returns a
:class:`~riskeval.reporting.build.Section` (or ``None`` to stay out of the page).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskeval.measures.declared import RISK_MEASURES, TRisk
from riskeval.reporting import html as h
from riskeval.reporting.bayes import bayes_section
from riskeval.reporting.build import ReportContext, Section
from riskeval.reporting.explorer import test_caption
from riskeval.reporting.judged import judged_label, judged_of, low_judged_losses
from riskeval.reporting.judged import note as judged_note
from riskeval.reporting.paper_sections import baseline_rankings_section, left_out, rank, residuals_section
from riskeval.reporting.unjudged import unjudged_section
from riskeval.reporting.variations import bias_variance_section, mean_variance_section

#: Most rows of a table written into the page (the rest: riskeval risk --format csv).
TABLE_ROWS = 1_000
#: Most r²·c cell visits of the bias study drawn into the page (every system each other's baseline).
BIAS_VISITS = 2e10


def summary_section(ctx: ReportContext) -> Section:
    """Risk per α: one row per system (by mean score) with every declared risk measure (URisk,
    TRisk, T*Risk, ZRisk, GeoRisk and any :func:`riskeval.register_risk` declares), the p-values
    and the win/loss counts at the chosen α (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 6–12;
    SIGIR 2016, eq. 7–10); the measures that declare ``marked`` shaded by the system's
    significance."""
    d = ctx.page_data
    s = ctx.settings
    a = d["alpha"]
    alpha = d["alphas"][a]
    order = d["systems"]
    cols = d["columns"]
    frame = pd.DataFrame(
        {label: d["table"][a][key] for key, label, _, _ in cols}, index=pd.Index(order, name="system")
    )
    formats: dict[str, h.Formatter] = {}
    for _, label, digits, _ in cols:
        formats[label] = h.pvalue if digits == "p" else h.integer if digits == 0 else h.number(int(digits))
    classes = pd.DataFrame(None, index=frame.index, columns=frame.columns, dtype=object)
    sign = np.array(d["sig"][a])
    shaded = [label for _, label, _, marked in cols if marked]
    for label in shaded:
        classes[label] = [_sig_class(v) for v in sign]
    shown = frame.iloc[:TABLE_ROWS]
    note = (
        f" Without scripts the table holds the first {TABLE_ROWS:,} of {len(frame):,} systems by mean; "
        "the script shows them all, and riskeval risk --format csv writes every row."
        if len(frame) > TABLE_ROWS
        else ""
    )
    rule = (
        f"|{TRisk.header}| > {d['critical']:.3f}"
        if s["test"] == "t" and not s["correction"] and d["critical"] is not None
        else "p (adj.) ≤ level"
        if s["correction"]
        else "p ≤ level"
    )
    shading = (
        f" {_and(shaded)} {'is' if len(shaded) == 1 else 'are'} shaded where the system's risk-reward "
        f"trade-off is significant ({test_caption(s, d['baseline'])}; {rule}): red a significant "
        "loss, green a significant gain."
        if shaded
        else ""
    )
    body = [
        ctx.data_script(),
        _alpha_picker(ctx),
        h.paragraph(
            f"{_against(cols, d['baseline'], s['se'])}{shading} Loss>20%: topics where the system "
            "loses more than 20% of the baseline's score."
            + (
                f" {judged_label(ctx)}: the system's mean fraction of judged documents at the "
                "measure's depth; low values mean its losses may be holes in the qrels."
                if judged_of(ctx) is not None
                else ""
            )
            + " Click a column to sort, a system for its "
            f"per-topic analysis; type in the box to filter.{note}"
        ),
        _filter_box(ctx, "risk-table", "filter systems"),
        h.table(
            shown,
            formats=formats,
            cell_class=classes.iloc[:TABLE_ROWS],
            caption=f"Risk at α = {alpha:g}, systems by mean score",
            css_class="data risk rk-sortable",
            table_id=f"{ctx.key}-risk-table",
        ),
        _full_table(ctx.risk_table, ctx.columns),
    ]
    return Section("Risk per α", h.join(body), "summary")


def _and(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def _against(cols: list[list], baseline: str, se: str) -> str:
    """What the measures of the table's columns ``cols`` are computed against, in words."""
    shown = {key for key, *_ in cols}
    measures = [cls for cls in RISK_MEASURES.values() if cls.column in shown]
    parts = []
    for needs, words in (
        ("baseline", f"against {baseline} (SE {se})"),
        ("mean", "against the per-topic MEAN of every system"),
        ("matrix", "with every system as a baseline"),
    ):
        headers = [cls.header for cls in measures if cls.needs == needs]
        if headers:
            parts.append(f"{_and(headers)} {words}")
    return (_and(parts) + ".") if parts else ""


def risky_topics_section(ctx: ReportContext) -> Section | None:
    """The per-topic analysis of any system: TR_j = x_j / s_x (eq. 21) and the standardised
    jackknife influence TJ_j of every topic, and the significant topics (Dinçer, Macdonald & Ounis,
    SIGIR 2014, §5 and Figure 2).  Opens on the first focus system, else the run of highest mean
    score (never on a degenerate run, as the riskiest often is)."""

    d = ctx.page_data
    s = ctx.settings
    alpha = d["alphas"][d["alpha"]]
    pt = d["pt"]
    order = d["systems"]
    default = order[pt["systems"][0]]
    frame = ctx.topic_risk(default, alpha)
    rule = (
        f"p-values {s['correction']}-adjusted across topics; a topic is significant when its adjusted "
        f"p ≤ {s['level']:g} (no fixed line marks it)"
        if s["correction"]
        else f"dashed lines at ±{pt['critical']:.3f}, the critical value of Student's t at level "
        f"{s['level']:g}"
    )
    p_col = "pvalue_adj" if s["correction"] else "pvalue"
    p_name = f"p ({s['correction']})" if s["correction"] else "p"
    shown = pd.DataFrame(
        {
            "score": frame["score"],
            "baseline": frame["baseline_score"],
            "δ": frame["delta"],
            "TR": frame["tr"],
            "TJ": frame["tj"],
            p_name: frame[p_col],
            "significant": frame["significant"].astype(bool),
        }
    ).rename_axis("topic")
    if ctx.topic_text:
        shown.insert(0, "text", [ctx.topic_text.get(str(t), "") for t in shown.index])
    judged = judged_of(ctx)
    if judged is not None:
        fraction = judged.loc[default].reindex(shown.index).to_numpy(dtype=float)
        shown[judged_label(ctx)] = fraction
        flagged = low_judged_losses(shown["score"], shown["baseline"], fraction)
        shown["low judged loss"] = np.where(flagged, "yes", "")
    shown = shown.sort_values("TR", kind="stable")
    classes = pd.DataFrame(None, index=shown.index, columns=shown.columns, dtype=object)
    if "text" in classes:
        classes["text"] = "text"
    if judged is not None:
        classes["low judged loss"] = ["rk-hole" if v == "yes" else "" for v in shown["low judged loss"]]
    classes["TR"] = [
        _sig_class(np.sign(tr) if sig else 0)
        for tr, sig in zip(shown["TR"], shown["significant"], strict=True)
    ]
    n_sys = len(order)
    only = (
        ""
        if len(pt["systems"]) == n_sys
        else f" The per-topic data of {len(pt['systems'])} of the {n_sys} systems travel in the page "
        "(the focus systems, then the riskiest and the safest); riskeval risk --topics SYSTEM "
        "gives any other."
    )
    if len(shown) > TABLE_ROWS:
        only += (
            f" Without scripts the table holds the {TABLE_ROWS:,} topics of lowest TR of {len(shown):,}; "
            "the script shows them all."
        )
    body = [
        ctx.data_script(),
        _alpha_picker(ctx),
        h.Markup(
            '<p class="js-only"><label>System: '
            f'<select class="rk-system" data-key="{ctx.key}"></select></label></p>'
            f'<p class="rk-note js-only" id="{ctx.key}-topics-note" role="status" hidden></p>'
        ),
        h.paragraph(
            f"Each topic's risk-reward score against {d['baseline']}, standardised: bars TR_j = x_j / s_x "
            "(sorted, worst first), dots TJ_j, the jackknife influence of topic j; "
            f"{rule}. Red: a significant loss, green: a significant gain. Hover a bar for the topic."
            f"{judged_note(ctx)}{only}"
        ),
        h.Markup(f'<figure class="rk-chart" data-chart="topics" data-key="{ctx.key}"></figure>'),
        h.Markup(
            "<noscript><p>The plots of this page are drawn by its script; the table holds the "
            "values.</p></noscript>"
        ),
        _filter_box(ctx, "topics-table", "filter topics"),
        h.table(
            shown.iloc[:TABLE_ROWS],
            formats={p_name: h.pvalue, "TR": h.number(2), "TJ": h.number(2), judged_label(ctx): h.number(3)},
            cell_class=classes.iloc[:TABLE_ROWS],
            caption=f"{default} at α = {alpha:g}, topics by TR",
            css_class="data rk-sortable",
            table_id=f"{ctx.key}-topics-table",
        ),
        _riskiest(ctx),
    ]
    return Section("Per-topic analysis", h.join(body), "topics")


def _riskiest(ctx: ReportContext) -> h.Markup:
    """The n_risky riskiest systems at the default α with their significant losses and gains."""
    d = ctx.page_data
    pt = d["pt"]
    a = d["alpha"]
    rows = []
    for i in d["byRisk"][: ctx.settings["n_risky"]]:
        if i not in pt["systems"]:
            continue
        sig = pt["sig"][pt["systems"].index(i)][a]
        losses = [d["topics"][-j - 1] for j in sig if j < 0]
        rows.append(
            {
                "system": d["systems"][i],
                TRisk.header: d["table"][a][TRisk.column][i],
                "significant losses": len(losses),
                "significant gains": sum(j > 0 for j in sig),
                "topics lost": ", ".join(losses[:12]) + (" …" if len(losses) > 12 else ""),
            }
        )
    if not rows:
        return h.Markup("")
    frame = pd.DataFrame(rows).set_index("system")
    return h.table(
        frame,
        formats={
            TRisk.header: h.number(TRisk.decimals),
            "significant losses": h.integer,
            "significant gains": h.integer,
        },
        caption=(f"The {len(rows)} systems" if len(rows) > 1 else "The system")
        + f" with the lowest {TRisk.header} at α = {d['alphas'][a]:g}",
    )


def alpha_curves_section(ctx: ReportContext) -> Section | None:
    """The risk measures that rank systems (URisk, TRisk, GeoRisk, and any declared ``ranked``) as
    α grows (Dinçer, Macdonald & Ounis, SIGIR 2016, Figure 2; SIGIR 2014, Figure 1), drawn by the
    page script: the focus systems (or the safest and riskiest) in colour, the others grey, values
    on hover.  ``None`` when the report shows none of them."""
    d = ctx.page_data
    s = ctx.settings
    c = d["curves"]
    series = c["series"]
    if not series:
        return None
    n = len(c["systems"])
    subset = (
        ""
        if n == len(d["systems"])
        else f" {n} of the {len(d['systems'])} systems are drawn: the focus, the riskiest and the safest."
    )
    banded = [m["header"] for m in series if m["band"]]
    band = (
        ""
        if not banded
        else f" The grey band is ±{c['critical']:.3f}, Student's t critical value at level {s['level']:g}: "
        f"{_and(banded)} inside it is a trade-off chance can explain."
        if s["test"] == "t" and not s["correction"] and c["critical"] is not None
        else f" No band is drawn: with this test and correction a fixed critical value of {_and(banded)} "
        "is not the rule."
    )
    dotted = [m["header"] for m in series if m["marked"] and m["values"] is not None]
    dots = (
        f" Dots on the coloured {_and(dotted)} curves mark a significant loss (red) or gain (green) "
        f"at the α values of the table, as the table decides them ({test_caption(s, d['baseline'])})."
        if dotted
        else ""
    )
    against = [
        f"{m['header']} is against {m['against']}"
        if m["against"]
        else f"{m['header']} has every system as a baseline"
        for m in series
    ]
    body = [
        ctx.data_script(),
        _alpha_picker(ctx),
        h.paragraph(
            f"{_and(against)}; a steep fall as α grows marks a system that fails badly on some topics."
            f"{band}{dots} The vertical line is the chosen α; click a line to open its system in the "
            f"per-topic analysis.{subset}"
        ),
    ]
    for m in series:
        if m["values"] is not None:
            body.append(
                h.Markup(f'<figure class="rk-chart" data-chart="{m["key"]}" data-key="{ctx.key}"></figure>')
            )
        else:
            body.append(
                h.paragraph(
                    f"No {m['header']} plot: {m['header']} has every system as a baseline, which needs "
                    "scores ≥ 0, and some are negative."
                )
            )
    body.append(h.Markup("<noscript><p>These plots are drawn by the page script.</p></noscript>"))
    return Section(f"{_and([m['header'] for m in series])} as α grows", h.join(body), "alpha")


def _apart(xy: pd.DataFrame, names: list[str]) -> set[str]:
    """The names, in order of priority, whose points are not too close to the point of a name
    already kept (8% of the x range and 4% of the y range: a label is wide): labels that do not
    collide on the plot."""
    span = np.array(xy.max() - xy.min(), dtype=float)
    span[span == 0] = 1.0
    kept: list[str] = []
    for name in dict.fromkeys(names):
        gap = np.abs(xy.loc[kept].to_numpy(dtype=float) - xy.loc[name].to_numpy(dtype=float)) / span
        if not len(kept) or not ((gap[:, 0] < 0.08) & (gap[:, 1] < 0.04)).any():
            kept.append(name)
    return set(kept)


def _p_equals(p: float) -> str:
    """``p = 0.012``, ``p = 3.4e-09``, or ``p < 1e-300`` where the p-value underflows to 0."""
    return "p < 1e-300" if p == 0 else f"p = {p:.3g}"


def _sig_class(sign: float) -> str | None:
    """The CSS class of a significant loss (sign < 0) or gain (> 0), none otherwise."""
    return "sig-loss" if sign < 0 else "sig-win" if sign > 0 else None


def _alpha_picker(ctx: ReportContext) -> h.Markup:
    d = ctx.page_data
    options = "".join(
        f'<option value="{i}"{" selected" if i == d["alpha"] else ""}>{a:g}</option>'
        for i, a in enumerate(d["alphas"])
    )
    return h.Markup(
        f'<p class="js-only rk-controls"><label>α <select class="rk-alpha" data-key="{ctx.key}">'
        f"{options}</select></label></p>"
    )


def _filter_box(ctx: ReportContext, name: str, placeholder: str) -> h.Markup:
    return h.Markup(
        f'<p class="js-only"><input type="search" class="rk-filter" data-table="{ctx.key}-{name}" '
        f'placeholder="{h.escape(placeholder)}" aria-label="{h.escape(placeholder)}"></p>'
    )


def bias_section(ctx: ReportContext) -> Section:
    """The baseline-bias study (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3–2.4): Friedman test and PCA.
    Left out, saying why, with fewer than 3 systems or more than :data:`BIAS_VISITS` cell visits."""
    from riskeval.analysis.bias_tables import bias_overview, bias_summary
    from riskeval.plots.risk import PCADisplay

    r, c = ctx.matrix.shape
    title = "Baseline bias"
    if r < 3:
        return left_out(
            title,
            "the bias study ranks the other systems with each system as the baseline, and compares "
            f"the rankings (Friedman test, PCA); with {r} systems there is no ranking to compare. "
            "It needs at least 3 systems.",
            "bias",
        )
    if r * r * c > BIAS_VISITS:
        return Section(
            title,
            h.paragraph(
                f"Left out at this size: every system as every other's baseline is {r}² × {c} = "
                f"{r * r * c:.2g} cell visits. Run riskeval bias-study (it shows its progress) for "
                "this study on its own."
            ),
            "bias",
        )
    study = ctx.bias_study
    o = bias_overview(study).iloc[0]
    xy = study.pca.coordinates.iloc[:, :2]
    labels = None
    if r > 30:  # name the focus, the virtual runs and the extremes, where the names do not collide
        virtual = [b for b in study.urisk.index if b not in study.urisk.columns]
        ends = [*xy.iloc[:, 0].nsmallest(4).index, *xy.iloc[:, 0].nlargest(4).index]
        ends += [*xy.iloc[:, 1].nsmallest(3).index, *xy.iloc[:, 1].nlargest(3).index]
        labels = _apart(xy, [*ctx.focus, *virtual, *ends])
    display = PCADisplay.from_study(study).plot(ax=ctx.new_axes(8.0, 6.5), labels=labels)
    summary = bias_summary(study, ctx.matrix).sort_values("mean", ascending=False)
    summary.columns = [c.replace("rank_vs_", "rank vs ").replace("_", " ") for c in summary.columns]
    rank_cols = {c: h.integer for c in summary.columns if "rank" in c}
    body = [
        h.paragraph(
            f"Each system in turn is the baseline and the others are ranked by URisk at α = "
            f"{study.alpha:g}. Friedman test of the {int(o['systems'])} rankings: χ² = "
            f"{o['friedman_statistic']:.2f}, {_p_equals(o['friedman_pvalue'])}; a small p means the "
            "choice of a system as the baseline changes the ranking. The PCA places runs with "
            "similar per-topic profiles together; a baseline favours the runs near it. MEAN, "
            "MEDIAN and MAX are virtual runs that favour no system."
        ),
        ctx.figure(
            display,
            f"PCA of the runs: PC1 {o['pc1_pct']:.1f}%, PC2 {o['pc2_pct']:.1f}% of the variance"
            + (
                ""
                if labels is None
                else "; named where the names do not collide: the focus systems, the virtual runs "
                "and the runs at the ends of each axis (the table below has every run's coordinates)"
            ),
        ),
        h.table(
            summary,
            formats={"virtual": lambda v: "virtual" if v else "", **rank_cols},
            caption="Rank (by URisk) of each system under the virtual baselines, and its best "
            "and worst rank with each other system as the baseline",
        ),
    ]
    return Section("Baseline bias", h.join(body), "bias")


def _full_table(t: pd.DataFrame, columns: tuple[str, ...] | None) -> h.Markup:
    """The tidy risk table, with the ``columns`` of the measures of ``risk=`` (``None``: all)
    and the columns of the test."""
    from riskeval.analysis.table import COLUMNS

    if columns is not None:
        t = t.drop(columns=[c for c in COLUMNS if c in t and c not in columns])
    counts = {c: h.integer for c in ("df", "wins", "losses", "ties", "loss20")}
    p = {c: h.pvalue for c in ("pvalue", "pvalue_adj")}
    # the settings (the same on every row) are stated in the section's text
    settings = [
        "baseline",
        "leave_one_out",
        "se_method",
        "level",
        "critical",
        "correction",
        "test",
        "n_resamples",
        "seed",
    ]
    shown = t.drop(columns=settings, errors="ignore").set_index(["system", "alpha"])
    if len(shown) > TABLE_ROWS:
        return h.paragraph(
            f"The tidy table of riskeval.risk_table has {len(shown):,} rows here; riskeval risk "
            "--format csv writes every row and column."
        )
    measures = RISK_MEASURES.values()
    values = {cls.column: h.number(cls.decimals) for cls in measures}
    ranks = {f"rank_{cls.column}": rank for cls in measures if cls.ranked}
    inner = h.table(shown, formats={**counts, **p, **values, **ranks}, css_class="data full")
    return h.Markup(
        "<details><summary>Every measure at every α (the tidy table of riskeval.risk_table)"
        f"</summary>{inner}</details>"
    )


#: The sections of the page, in order.  Add a builder to extend the report.
DEFAULT_SECTIONS = (
    summary_section,
    risky_topics_section,
    alpha_curves_section,
    bias_section,
    baseline_rankings_section,
    residuals_section,
    # with their inputs in data= only: query variations, bias-variance, Bayesian champion–challengers,
    # score bounds over the completions of the qrels
    mean_variance_section,
    bias_variance_section,
    bayes_section,
    unjudged_section,
)
