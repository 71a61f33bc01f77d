"""Report sections for the papers' analyses beyond the measures (listed in
:data:`riskeval.reporting.sections.DEFAULT_SECTIONS`)."""

from __future__ import annotations

import pandas as pd

from riskeval.measures.declared import URisk
from riskeval.reporting import html as h
from riskeval.reporting.build import LEFT_OUT, ReportContext, Section


def left_out(title: str, why: str, section_id: str) -> Section:
    """A section that stays in the contents with one line saying why it is left out."""
    return Section(title, h.Markup(LEFT_OUT) + h.escape("Left out: " + why) + h.Markup("</p>"), section_id)


def rank(v: object) -> str:
    """A rank: an integer, or with one decimal when tied ranks share their mean (``2.5``)."""
    if v is None or v != v:  # None or NaN
        return "–"
    f = float(v)  # type: ignore[arg-type]
    return f"{int(f)}" if f.is_integer() else f"{f:.1f}"


def baseline_rankings_section(ctx: ReportContext) -> Section:
    """URisk rankings against MEAN, MEDIAN and MAX side by side, and their agreement with the
    ranking by mean score (Dinçer, Ounis & Macdonald, ECIR 2014, Table 3 and §4)."""
    from riskeval.analysis.baseline_ranks import (
        MEAN_SCORE,
        baseline_rankings,
        ranking_agreement,
        rankings_wide,
    )

    s = ctx.settings
    if len(ctx.matrix) < 3:
        return left_out(
            "Risk rankings under unbiased baselines",
            f"with {len(ctx.matrix)} systems, MEAN and MEDIAN are the same baseline and every ranking "
            "is of two systems, so its agreement with the ranking by mean score (Kendall's τ) is ±1. "
            "It needs at least 3 systems.",
            "baseline-rankings",
        )
    alphas = [a for a in s["alphas"] if a > 0] or list(s["alphas"])
    tidy = baseline_rankings(ctx.matrix, alphas=alphas, leave_one_out=s["leave_one_out"])
    wide = rankings_wide(tidy)
    wide.columns = pd.MultiIndex.from_tuples([(f"{b}, {a}" if b else "", f) for b, a, f in wide.columns])
    cut = (
        f" The table shows the first {RANKING_ROWS:,} of {len(wide):,} systems by mean score; "
        "riskeval.analysis.baseline_rankings gives them all."
        if len(wide) > RANKING_ROWS
        else ""
    )
    wide = wide.iloc[:RANKING_ROWS]
    agree = ranking_agreement(tidy)
    agree = agree[agree["reference_baseline"] == MEAN_SCORE]
    agree = agree.assign(
        ranking=[f"{b}, α = {a:g}" for b, a in zip(agree["baseline"], agree["alpha"], strict=True)]
    )
    agree = agree.set_index("ranking")[["tau", "tau_ap"]].rename(
        columns={"tau": "Kendall τ", "tau_ap": "τ_AP"}
    )
    body = [
        h.paragraph(
            "URisk of every system against the per-topic MEAN, MEDIAN and MAX of all systems, "
            "with its rank (1 = best), beside the mean score and its rank (Dinçer, Ounis & "
            "Macdonald, ECIR 2014, Table 3). These baselines favour no system; the paper observes "
            "that the rankings they give stay close to the ranking by mean score as α grows "
            "(§4). Against MAX every topic is a loss, so URisk = (1 + α)·(mean − mean of MAX) and "
            "its ranking is exactly the ranking by mean score." + cut
        ),
        h.table(
            wide,
            formats={"rank": rank, URisk.name: h.number(URisk.decimals)},
            caption="Risk rankings under the unbiased baselines, systems by mean score",
        ),
        h.table(
            agree,
            formats={"Kendall τ": h.number(3), "τ_AP": h.number(3)},
            caption="Agreement of each risk ranking with the ranking by mean score (τ_AP: the "
            "mean-score ranking is the reference, disagreements at the top of the risk ranking "
            "weigh most)",
        ),
    ]
    return Section("Risk rankings under unbiased baselines", h.join(body), "baseline-rankings")


#: Most systems in the table of risk rankings under the unbiased baselines.
RANKING_ROWS = 1_000
#: Largest systems × topics matrix whose residuals are drawn as a heat map in the report.
HEATMAP_CELLS = 4_000
#: Largest matrix whose residual section is in the report (a tidy row per cell is computed).
RESIDUAL_CELLS = 2_000_000


def residuals_section(ctx: ReportContext) -> Section | None:
    """The residuals behind ZRisk (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6): the chi-square
    test of the matrix, the z_ij heat map and the topics on which the systems with the lowest ZRisk
    fall furthest below expectation.  Absent when a score is negative (no expected values)."""
    from riskeval.analysis.chisq import chisq_residuals, chisq_test
    from riskeval.plots.paper import ResidualDisplay

    if (ctx.matrix.to_numpy() < 0).any():
        return None
    r, c = ctx.matrix.shape
    if r < 3:
        return left_out(
            "Where ZRisk comes from",
            f"with {r} systems the expected score e_ij = S_i·T_j/N of each system is drawn from the "
            "other one (and can exceed the scale of the measure), so the residuals say nothing "
            "beyond the per-topic differences of the per-topic analysis. It needs at least 3 systems.",
            "zrisk-residuals",
        )
    if r * c > RESIDUAL_CELLS:
        return Section(
            "Where ZRisk comes from",
            h.paragraph(
                f"Left out at this size ({r * c:,} cells; drawn up to {RESIDUAL_CELLS:,}): "
                "riskeval.analysis.chisq_residuals gives every residual z_ij of the matrix."
            ),
            "zrisk-residuals",
        )
    alpha = max(ctx.settings["alphas"])
    res = chisq_residuals(ctx.matrix, alpha=alpha)
    test = chisq_test(ctx.matrix)
    zr = res.groupby("system", sort=False)["zrisk_term"].sum().sort_values()
    worst = list(zr.index[: min(3, len(zr))])
    below = res[res["system"].isin(worst) & res["below"]]
    below = below.sort_values("z").groupby("system", sort=False).head(5)
    table = below.set_index(["system", "topic"])[["score", "expected", "z"]]
    if r * c <= HEATMAP_CELLS:
        display = ResidualDisplay(res).plot(
            ax=ctx.new_axes(max(6.0, 0.18 * c + 3), max(3.0, 0.2 * len(zr) + 1.5))
        )
        heatmap = ctx.figure(display, "Standardised residuals z_ij: red below expectation, blue above")
    else:
        heatmap = h.paragraph(
            f"The heat map of z_ij is left out: its {r * c:,} cells would not be readable (it is "
            f"drawn up to {HEATMAP_CELLS:,}); riskeval.analysis.chisq_residuals gives every cell, and "
            "riskeval.plots.paper.plot_residuals draws any subset of the systems and topics."
        )
    body = [
        h.paragraph(
            "ZRisk compares each score with its expected value e_ij = S_i·T_j/N, the system's total "
            "spread over the topics in proportion to how all systems score them, through the "
            "standardised residual z_ij = (x_ij − e_ij)/√e_ij (Dinçer, Macdonald & Ounis, SIGIR "
            f"2016, eq. 5–6); negative residuals weigh 1 + α. Pearson's chi-square of the matrix: "
            f"G² = {test.statistic:.3f}, {test.df} degrees of freedom, p = {test.pvalue:.3g} "
            "(scores are not counts: read it as a measure of how far the profiles depart from one "
            "shape)."
        ),
        heatmap,
        h.table(
            table,
            formats={"z": h.number(3)},
            caption=f"The topics furthest below expectation of the {len(worst)} systems with the "
            f"lowest ZRisk at α = {alpha:g}",
        ),
    ]
    return Section("Where ZRisk comes from", h.join(body), "zrisk-residuals")
