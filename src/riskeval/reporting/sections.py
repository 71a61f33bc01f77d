"""The built-in sections of the risk report, in page order (:data:`DEFAULT_SECTIONS`).

Each builder takes a :class:`~riskeval.reporting.build.ReportContext` and returns a
:class:`~riskeval.reporting.build.Section` (or ``None`` to stay out of the page).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskeval.reporting import html as h
from riskeval.reporting.build import ReportContext, Section
from riskeval.reporting.paper_sections import baseline_rankings_section, rank, residuals_section
from riskeval.reporting.variations import bias_variance_section, mean_variance_section

#: The "as α grows" plots run from 0 to at least 15 (Dinçer, Macdonald & Ounis, SIGIR 2014, Figure 1).
CURVE_ALPHA_MAX = 15.0


def summary_section(ctx: ReportContext) -> Section:
    """Risk per α: one row per system (by mean score), URisk/TRisk/GeoRisk for each α."""
    t = ctx.risk_table
    s = ctx.settings
    first = t.iloc[0]
    crit, baseline_name = float(first["critical"]), str(first["baseline"])
    per_alpha = ["urisk", "trisk", "georisk"]
    if baseline_name != "MEAN":
        per_alpha.insert(2, "tstar")
    names = {"urisk": "URisk", "trisk": "TRisk", "tstar": "T*Risk", "georisk": "GeoRisk"}
    order = t.groupby("system", sort=False)["mean"].first().sort_values(ascending=False).index
    fixed = t.drop_duplicates("system").set_index("system").loc[order, ["mean", "wins", "losses", "loss20"]]
    fixed.columns = pd.MultiIndex.from_product([[""], ["mean", "wins", "losses", "loss>20%"]])
    wide = t.pivot(index="system", columns="alpha", values=per_alpha).loc[order]
    wide = wide.swaplevel(axis=1).sort_index(axis=1, level=0, sort_remaining=False)
    wide.columns = pd.MultiIndex.from_tuples([(f"α = {a:g}", names[m]) for a, m in wide.columns])
    frame = pd.concat([fixed, wide], axis=1).rename_axis("system")
    sig = t.pivot(index="system", columns="alpha", values="significant").loc[order]
    sign = np.sign(t.pivot(index="system", columns="alpha", values="trisk").loc[order])
    classes = pd.DataFrame(None, index=frame.index, columns=frame.columns, dtype=object)
    for a in ctx.settings["alphas"]:
        loss_or_win = np.where(sign[a] < 0, "sig-loss", "sig-win")
        mark = np.where(sig[a].to_numpy(dtype=bool), loss_or_win, np.array(None, dtype=object))
        classes[(f"α = {a:g}", "TRisk")] = mark
    body = [
        h.paragraph(
            f"URisk and TRisk against {baseline_name} (SE {s['se']}); GeoRisk with every "
            f"system as a baseline. TRisk is shaded where the risk-reward trade-off is significant "
            f"at level {s['level']:g} (|TRisk| > {crit:.3f}, {int(first['df'])} degrees of "
            "freedom"
            + (f", p-values {s['correction']}-adjusted across systems" if s["correction"] else "")
            + "): red a significant loss, green a significant gain. Loss>20%: "
            "topics where the system loses more than 20% of the baseline's score. The p-values "
            "and every other measure are in the full table below."
        ),
        h.table(
            frame,
            formats={
                "wins": h.integer,
                "losses": h.integer,
                "loss>20%": h.integer,
                "TRisk": h.number(3),
                "T*Risk": h.number(3),
            },
            cell_class=classes,
            caption="Risk per α, systems by mean score",
            css_class="data risk",
        ),
        _full_table(t),
    ]
    return Section("Risk per α", h.join(body), "summary")


def risky_topics_section(ctx: ReportContext) -> Section | None:
    """The riskiest systems (lowest TRisk at the largest α): per-topic TR/TJ and their significant
    topics (Dinçer, Macdonald & Ounis, SIGIR 2014, §5 and Figure 2), and their sorted per-topic URisk
    scores (Dinçer, Ounis & Macdonald, ECIR 2014, Figure 4)."""
    from riskeval.analysis.topics import system_topic_risk
    from riskeval.plots.risk import TopicRiskDisplay, plot_sorted_urisk

    s = ctx.settings
    alpha = s["topic_alpha"]
    at = ctx.risk_table[ctx.risk_table["alpha"] == alpha].set_index("system")
    ranked = at["trisk"].dropna().sort_values()
    risky = list(ranked.index[: s["n_risky"]])
    if not risky:
        return None
    body = [
        h.paragraph(
            f"The {len(risky)} systems with the lowest TRisk at α = {alpha:g} against "
            f"{at['baseline'].iloc[0]}. Bars: TR_j = x_j / s_x (eq. 21); markers: TJ_j, the "
            "standardised jackknife influence of topic j; dashed lines: ±critical. A topic beyond the "
            "lines is a significant loss (red) or gain (green)"
            + (f", p-values {s['correction']}-adjusted across topics." if s["correction"] else ".")
        )
    ]
    for name in risky:
        topics = system_topic_risk(
            ctx.matrix,
            name,
            ctx.baseline,
            alpha,
            level=s["level"],
            correction=s["correction"],
            leave_one_out=s["leave_one_out"],
        )
        losses = int((topics["significant"] & (topics["tr"] < 0)).sum())
        wins = int((topics["significant"] & (topics["tr"] > 0)).sum())
        row = at.loc[name]
        body.append(h.Markup(f"<h3>{h.escape(name)}</h3>"))
        body.append(
            h.paragraph(
                f"Mean {row['mean']:.4f}; URisk {row['urisk']:.4f}, TRisk {row['trisk']:.3f} "
                f"(p {h.pvalue(row['pvalue'])}); {losses} significant loss(es), {wins} significant "
                f"gain(s) over {len(topics)} topics."
            )
        )
        width = min(14.0, max(7.0, 0.16 * len(topics) + 2))
        per_topic = TopicRiskDisplay(topics, name, str(topics["baseline"].iloc[0]), alpha).plot(
            ctx.new_axes(width, 3.6)
        )
        body.append(ctx.figure(per_topic, f"{name}: per-topic TR and TJ at α = {alpha:g}"))
        significant = topics[topics["significant"]].sort_values("tr")
        if len(significant):
            shown = significant[
                [
                    c
                    for c in ("score", "baseline_score", "delta", "x", "tr", "tj", "pvalue", "pvalue_adj")
                    if c in significant.columns
                ]
            ].rename(
                columns={
                    "score": "score",
                    "baseline_score": "baseline score",
                    "delta": "δ",
                    "x": "x",
                    "tr": "TR",
                    "tj": "TJ",
                    "pvalue": "p",
                    "pvalue_adj": "p (adj.)",
                }
            )
            body.append(
                h.table(
                    shown,
                    formats={"p": h.pvalue, "p (adj.)": h.pvalue},
                    caption=f"Significant topics of {name}",
                )
            )
    contrast = [n for n in ranked.index[::-1][:1] if n not in risky]
    display = plot_sorted_urisk(
        ctx.matrix,
        risky + contrast,
        ctx.baseline,
        alpha,
        leave_one_out=s["leave_one_out"],
        ax=ctx.new_axes(8.0, 4.0),
    )
    body.append(
        ctx.figure(
            display,
            "Per-topic URisk scores, sorted (the riskiest systems"
            + (f" and, for contrast, {contrast[0]}, the least risky)" if contrast else ")"),
        )
    )
    return Section("Significant topics of the riskiest systems", h.join(body), "topics")


def alpha_curves_section(ctx: ReportContext) -> Section:
    """GeoRisk and TRisk of every system as α grows (Dinçer, Macdonald & Ounis, SIGIR 2016, Figure 2;
    SIGIR 2014, Figure 1)."""
    from riskeval.plots.risk import plot_georisk, plot_trisk

    s = ctx.settings
    top = max(CURVE_ALPHA_MAX, max(s["alphas"]))
    grid = np.linspace(0.0, top, int(min(2 * top, 400)) + 1)  # at most 401 α values, however large α
    height = max(4.5, 0.13 * ctx.matrix.shape[0] / (1 + (ctx.matrix.shape[0] - 1) // 25) + 1)
    tr = plot_trisk(
        ctx.matrix,
        ctx.baseline,
        grid,
        level=s["level"],
        se=s["se"],
        leave_one_out=s["leave_one_out"],
        ax=ctx.new_axes(9.0, height),
    )
    body = [
        h.paragraph(
            "GeoRisk (every system a baseline) falls as α grows; a steep fall marks a "
            "system that fails badly on some topics. TRisk inside the grey band is a "
            "risk-reward trade-off that chance can explain."
        )
    ]
    if (ctx.matrix.to_numpy() >= 0).all():
        geo = plot_georisk(ctx.matrix, grid, ax=ctx.new_axes(9.0, height))
        body.append(ctx.figure(geo, f"GeoRisk for 0 ≤ α ≤ {top:g}"))
    else:
        body.append(h.paragraph("No GeoRisk plot: GeoRisk needs scores ≥ 0 and some are negative."))
    body.append(ctx.figure(tr, f"TRisk against {tr.baseline} for 0 ≤ α ≤ {top:g}, band ±{tr.critical:.3f}"))
    return Section("GeoRisk and TRisk as α grows", h.join(body), "alpha")


def bias_section(ctx: ReportContext) -> Section:
    """The baseline-bias study (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3–2.4): Friedman test and PCA."""
    from riskeval.analysis.bias_tables import bias_overview, bias_summary
    from riskeval.plots.risk import PCADisplay

    study = ctx.bias_study
    o = bias_overview(study).iloc[0]
    display = PCADisplay.from_study(study).plot(ax=ctx.new_axes(8.0, 6.5))
    summary = bias_summary(study, ctx.matrix).sort_values("mean", ascending=False)
    summary.columns = [c.replace("rank_vs_", "rank vs ").replace("_", " ") for c in summary.columns]
    rank_cols = {c: h.integer for c in summary.columns if "rank" in c}
    body = [
        h.paragraph(
            f"Each system in turn is the baseline and the others are ranked by URisk at α = "
            f"{study.alpha:g}. Friedman test of the {int(o['systems'])} rankings: χ² = "
            f"{o['friedman_statistic']:.2f}, p = {o['friedman_pvalue']:.3g}; a small p means the "
            "choice of a system as the baseline changes the ranking. The PCA places runs with "
            "similar per-topic profiles together; a baseline favours the runs near it. MEAN, "
            "MEDIAN and MAX are virtual runs that favour no system."
        ),
        ctx.figure(
            display, f"PCA of the runs: PC1 {o['pc1_pct']:.1f}%, PC2 {o['pc2_pct']:.1f}% of the variance"
        ),
        h.table(
            summary,
            formats={"virtual": lambda v: "virtual" if v else "", **rank_cols},
            caption="Rank (by URisk) of each system under the virtual baselines, and its best "
            "and worst rank with each other system as the baseline",
        ),
    ]
    return Section("Baseline bias", h.join(body), "bias")


def _full_table(t: pd.DataFrame) -> h.Markup:
    counts = {c: h.integer for c in ("df", "wins", "losses", "ties", "loss20")}
    p = {c: h.pvalue for c in ("pvalue", "pvalue_adj")}
    # the settings (the same on every row) are stated in the section's text
    settings = ["baseline", "leave_one_out", "se_method", "level", "critical", "correction"]
    shown = t.drop(columns=settings, errors="ignore").set_index(["system", "alpha"])
    ranks = {c: rank for c in ("rank_urisk", "rank_trisk", "rank_georisk")}
    inner = h.table(shown, formats={**counts, **p, **ranks}, css_class="data full")
    return h.Markup(
        f"<details><summary>Every measure (the tidy table of riskeval.risk_table)</summary>{inner}</details>"
    )


#: The sections of the page, in order.  Add a builder to extend the report.
DEFAULT_SECTIONS = (
    summary_section,
    risky_topics_section,
    alpha_curves_section,
    bias_section,
    baseline_rankings_section,
    residuals_section,
    # with their inputs in data= only: query variations, bias-variance
    mean_variance_section,
    bias_variance_section,
)
