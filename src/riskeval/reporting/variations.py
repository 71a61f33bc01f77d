"""Report sections for stability across query variations and topics: mean–variance evaluation
(Zuccon et al. 2016) and the bias–variance decomposition (Zhang et al. 2013).

Both read their inputs from ``ctx.data`` and stay out of the page without them:

- ``data["variations"]``: a tidy query-variation table (system, topic, variant, score), with
  optional ``data["variations_options"]``, the options of :func:`riskeval.variations.mean_variance`
  (``form``, ``weights``, ``ddof``, ``unequal``, ``rng``, ...);
- ``data["bias_variance"]``: the options of :func:`riskeval.variations.bias_variance` for the report's score
  matrix (``{"target": "best"}``, ``{}`` for the defaults), with an optional ``"reference"``
  system for the robustness index (default: the report's baseline when it is a system).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskeval.reporting import html as h
from riskeval.reporting.build import ReportContext, Section

#: α grid of the rank-correlation plot: the paper's −20..20, step 0.1 (Zuccon et al. 2016, §5.1).
SWEEP = np.linspace(-20.0, 20.0, 401)
#: Rows of the rank-change table.
N_CHANGES = 10
#: Up to this many systems, the bias–variance plots name every point.
MAX_LABELLED = 40


def mean_variance_section(ctx: ReportContext) -> Section | None:
    """Mean, variance and portfolio value ``O = μ − α σ²`` per α of the report, the rank correlation
    with the mean-only ranking as α varies, and the systems whose rank moves most."""
    from riskeval.analysis.variations import mean_variance_sweep, rank_changes
    from riskeval.plots.variations import plot_rank_correlation

    if "variations" not in ctx.data:
        return None
    df = ctx.data["variations"]
    options = dict(ctx.data.get("variations_options", {}))
    form = options.get("form", "general")
    sweep = mean_variance_sweep(df, SWEEP, **options)
    n_topics, n_variants = _shape(df)
    body = [
        h.paragraph(
            f"{len(sweep.systems)} systems over {n_topics} topics × up to {n_variants} query variants "
            "(users). Each system is a portfolio of topics (Zuccon et al. 2016): μ is its mean over "
            "topics and variants, σ² the variance across users of the users' mean scores (variances "
            "within topics plus covariances across them), and O = μ − α σ² its value for a user with "
            "risk aversion α (α < 0 prefers unstable systems)."
            + (" Intra-topic form: each topic on its own." if form == "intra" else " Ranks by O; "
               "systems by mean.")
        ),
    ]  # fmt: skip
    if form != "intra":
        body.append(_values_table(sweep.systems, sweep.mean, sweep.variance, ctx.settings["alphas"]))
        body.append(_alpha_explorer(sweep.systems, sweep.mean, sweep.variance))
    display = plot_rank_correlation(sweep, ax=ctx.new_axes(8.0, _height(sweep)))
    body.append(
        ctx.figure(display, f"Ranking by O against the mean-only ranking ({form} form), −20 ≤ α ≤ 20")
    )
    top = max(ctx.settings["alphas"])
    if form != "intra" and top != 0:
        changes = rank_changes(df, 0.0, top, **options).head(N_CHANGES)
        body.append(h.table(changes, formats={"rank_from": h.integer, "rank_to": h.integer,
                                              "change": h.integer, "variance": h.number(5)},
                            caption=f"Largest rank changes between α = 0 and α = {top:g}"))  # fmt: skip
    return Section("Query variations: mean–variance", h.join(body), "mean-variance")


def bias_variance_section(ctx: ReportContext) -> Section | None:
    """Bias, variance and total error of every system of the report's matrix, GMAP, the robustness
    index and <Init against the reference, and the bias² against variance and total-error plots."""
    from riskeval.analysis.bias_variance import bias_variance, gmap, robustness_index
    from riskeval.plots.variations import BiasVarianceDisplay

    if "bias_variance" not in ctx.data:
        return None
    options = dict(ctx.data["bias_variance"] or {})
    reference = options.pop("reference", None)
    if reference is None and ctx.settings["baseline"] in ctx.matrix.index:
        reference = ctx.settings["baseline"]
    result = bias_variance(ctx.matrix, **options)
    table = result.to_frame().assign(gmap=gmap(ctx.matrix).to_numpy())
    if reference is not None:
        robust = robustness_index(ctx.matrix, reference).to_frame()
        table = table.join(robust[["robustness_index", "below_init"]].rename(columns={"below_init": "<Init"}))
    table = table.sort_values("total", kind="stable")
    description = f"{result.form} form, target {result.target}"
    annotate = len(table) <= MAX_LABELLED  # names of many systems would cover the points
    figures = []
    for kind, caption in (("variance", "Bias² against variance (Zhang et al. 2013, Figure 1)"),
                          ("total", "Bias² against total error (Figure 2)")):  # fmt: skip
        display = BiasVarianceDisplay(table, kind, description).plot(
            ctx.new_axes(7.0, 5.0), annotate=annotate
        )
        figures.append(ctx.figure(display, caption))
    body = [
        h.paragraph(
            f"Bias is the distance of the mean score from the target mean ({result.target_mean:.4f}; "
            f"{description}), variance the spread of the per-topic scores (population variance over "
            "topics): smaller bias is effectiveness, smaller variance stability, and their sum the "
            "total error, smaller better (Zhang et al. 2013). error to perfect = E(score − 1)²; GMAP "
            "with trec_eval's 1e-5 floor"
            + (f"; robustness index (n₊ − n₋)/c and <Init against {reference}." if reference else ".")
        ),
        h.table(table, caption="Bias–variance decomposition, by total error"),
        *figures,
    ]
    return Section("Bias–variance decomposition", h.join(body), "bias-variance")


def _values_table(systems, mean, variance, alphas) -> h.Markup:
    from riskeval.core.rank_correlation import competition_ranks

    table = pd.DataFrame({"mean": mean, "variance": variance}, index=pd.Index(systems, name="system"))
    table = table.sort_values("mean", ascending=False, kind="stable")
    columns = {("", "mean"): table["mean"], ("", "variance"): table["variance"]}
    for a in alphas:
        value = table["mean"] - a * table["variance"]
        columns[(f"α = {a:g}", "O")] = value
        columns[(f"α = {a:g}", "rank")] = pd.Series(competition_ranks(value.to_numpy()), index=table.index)
    wide = pd.DataFrame(columns).rename_axis("system")
    return h.table(wide, formats={"rank": h.integer, "variance": h.number(5)},
                   caption="Mean–variance evaluation per α")  # fmt: skip


#: α values of the explorer: the risk-seeking and risk-averse range of Zuccon et al. (2016, §5.1).
EXPLORER_ALPHAS = (-20.0, -10.0, -5.0, -2.0, -1.0, 0.0, 1.0, 2.0, 5.0, 10.0, 20.0)


def _alpha_explorer(systems, mean, variance) -> h.Markup:
    """The α explorer of Zuccon et al. (2016, §5.1), without a script: one radio button per α and
    the ranking by O = μ − α σ² it selects (plain CSS shows the checked one; with styles off every
    ranking is listed)."""
    from riskeval.core.rank_correlation import competition_ranks

    base = pd.DataFrame({"mean": mean, "variance": variance}, index=pd.Index(systems, name="system"))
    buttons, panels, rules = [], [], []
    for i, a in enumerate(EXPLORER_ALPHAS):
        key = f"mv-alpha-{i}"
        checked = " checked" if a == 0 else ""
        buttons.append(
            f'<input type="radio" name="mv-alpha" id="{key}"{checked}><label for="{key}">α = {a:g}</label>'
        )
        value = base["mean"] - a * base["variance"]
        table = base.assign(O=value, rank=competition_ranks(value.to_numpy())).sort_values(
            "rank", kind="stable"
        )
        inner = h.table(
            table,
            formats={"rank": h.integer, "variance": h.number(5)},
            caption=f"Ranking by O at α = {a:g}",
        )
        panels.append(f'<div class="mv-panel {key}">{inner}</div>')
        rules.append(f"#{key}:checked ~ .mv-panels .{key} {{ display: block; }}")
    style = (
        "<style>.mv-explorer .mv-panel { display: none; } "
        ".mv-explorer label { margin-right: .6rem; cursor: pointer; } " + " ".join(rules) + "</style>"
    )
    return h.Markup(
        f'{style}<div class="mv-explorer"><p>α explorer: choose a risk attitude and see the '
        f"ranking it gives (α &lt; 0 seeks risk, α &gt; 0 avoids it).</p>{''.join(buttons)}"
        f'<div class="mv-panels">{"".join(panels)}</div></div>'
    )


def _shape(df: pd.DataFrame) -> tuple[int, int]:
    first = df[df["system"] == df["system"].iloc[0]]
    return first["topic"].nunique(), first.groupby("topic")["variant"].nunique().max()


def _height(sweep) -> float:
    return 4.5 if sweep.topics is None else max(3.0, 0.22 * len(sweep.topics) + 1.5)
