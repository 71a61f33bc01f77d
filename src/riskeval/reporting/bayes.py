"""The report's section of a Bayesian champion–challenger analysis (Benham, Carterette, Culpepper &
Moffat, SIGIR 2020): the forest plot of the systems' effects, one panel per α, the probability that
each challenger beats the champion at each α, and the verdict of the sampling checks.

The section reads a :class:`riskeval.bayes.ChampionComparison` from ``ctx.data["bayes"]`` (or, with
several measures, a mapping measure → comparison) and stays out of the page without one; the
report fits nothing itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskeval.reporting import html as h
from riskeval.reporting.build import ReportContext, Section

#: The section's anchor in the page.
SECTION_ID = "bayes"


def bayes_section(ctx: ReportContext) -> Section | None:
    """The champion against the challengers: the forest plot of every system's effect with its
    credible interval (Benham et al., SIGIR 2020, Figure 4) for each α, the challengers × α table of
    the posterior probability of beating the champion, and whether the sampling checks pass."""
    comparison = ctx.data.get("bayes")
    if isinstance(comparison, Mapping):
        comparison = comparison.get(ctx.measure)
    if comparison is None:
        return None
    alphas = sorted(set(comparison.table["alpha"]))
    fits = list(comparison.fits.values())
    fitted = ""
    if fits:
        first = fits[0]
        shape = first.samples["b_system"].shape
        drawn = (
            f"{shape[1]:,} independent exact draws"
            if first.sampler == "exact"
            else f"{shape[0]} chains × {shape[1]} draws"
        )
        fitted = (
            f", fitted to {len(first.systems)} systems × {len(first.topics)} topics ({drawn} per α, "
            f"seed {comparison.seed})"
        )
    if getattr(comparison, "model", "crossed") == "gainloss":
        model = (
            "The gains-and-losses model of each system's per-topic differences from the champion "
            "(the shares of gains, ties and losses and the mean size of each, for each system "
            f"alone){fitted}"
        )
        effect = "its expected difference from the champion"
    elif getattr(comparison, "model", "crossed") == "paired":
        model = (
            "The paired model of each system's per-topic differences from the champion (a topic "
            "effect shared by every system, partially pooled effects and residual scales per "
            f"system){fitted}"
        )
        effect = "its expected difference from the champion"
    else:
        model = (
            "The crossed random-effects model score ~ (1 | topic) + (1 | system) of Benham, "
            f"Carterette, Culpepper & Moffat (SIGIR 2020){fitted}"
        )
        effect = "its deviation from the grand mean"
    intro = h.paragraph(
        f"{model}, once per α after each loss against the champion {comparison.champion} is weighted "
        f"by (1 + α). A system's effect is {effect}; the lines are its {comparison.level * 100:g}% "
        "credible intervals, the dots their means. Green: the challenger's difference from the "
        "champion is credibly above 0; red: below 0; grey: the interval of the difference holds 0."
    )
    figure = ctx.figure(_forest(comparison, alphas), _caption(comparison, alphas))
    p_better = comparison.p_better()
    p_better.columns = [f"α = {a:g}" for a in p_better.columns]
    meaning = h.paragraph(
        f"The probability of beating {comparison.champion} is the share of posterior draws in which "
        "the challenger's effect is above the champion's: at α = 0, that its expected score on a "
        "topic is higher; at α > 0, that it stays ahead when each loss against the champion counts "
        "(1 + α) times. Near 1 the data back the challenger, near 0.5 they cannot tell the two "
        "apart, near 0 they back the champion."
    )
    table = h.table(
        p_better.rename_axis("challenger"),
        formats=dict.fromkeys(p_better.columns, h.number(3)),
        caption=f"Probability of beating the champion {comparison.champion}, by α",
    )
    body = [intro, figure, meaning, table, _verdict(comparison)]
    return Section("Bayesian risk: champion and challengers", h.join(body), SECTION_ID)


def _forest(comparison: Any, alphas: list[float]) -> Any:
    """The forest plot on a figure that belongs to no pyplot state, one panel per α."""
    from matplotlib.figure import Figure

    from riskeval.plots.bayes import forest_plot

    n = len(comparison.table[comparison.table["alpha"] == alphas[0]])
    fig = Figure(figsize=(1.2 + 3.6 * len(alphas), 1.0 + 0.28 * n), layout="constrained")
    axes = fig.subplots(1, len(alphas), sharey=True, squeeze=False)[0]
    for panel, alpha in zip(axes, alphas, strict=True):
        forest_plot(comparison, alpha=alpha, ax=panel)
    return fig


def _caption(comparison: Any, alphas: list[float]) -> str:
    return (
        f"Each system's effect with its {comparison.level * 100:g}% credible interval, champion "
        f"{comparison.champion} on top, at α = {', '.join(f'{a:g}' for a in alphas)} (Benham et al., "
        "SIGIR 2020, Figure 4); the grey line is the grand mean, the dotted one the champion's mean."
    )


def _verdict(comparison: Any) -> h.Markup:
    """The sampling checks of Benham et al. (SIGIR 2020): passed, or each one failed."""
    problems = comparison.problems()
    if not problems and getattr(comparison, "model", "crossed") == "gainloss":
        return h.paragraph(
            "Sampling checks: passed at every α (independent exact draws, at least 10,000 of every "
            "system effect)."
        )
    if not problems:
        return h.paragraph(
            "Sampling checks: passed at every α (R-hat below 1.01, bulk effective sample size above "
            "10,000 for every system effect and above 1,000 for every topic effect or, in the paired "
            "model, every scale and hyperparameter; no divergent transitions)."
        )
    items = h.join(h.Markup("<li>{}</li>").format(text) for text in problems)
    return h.join(
        [
            h.paragraph(
                "Sampling checks: FAILED. The intervals and probabilities above are not yet to be "
                "trusted; fit again with more draws or chains:"
            ),
            h.Markup('<ul class="bayes-problems">{}</ul>').format(items),
        ]
    )
