"""Rebuild the worked example of docs/bayes.md: the champion against four challengers on the three
collections of Benham, Carterette, Culpepper & Moffat (SIGIR 2020), at α = 0, 1, 2 and 5.

Fits every collection with riskeval.bayes.champion_challengers and the paper's crossed model
(model="crossed"; default sampler settings, a fixed seed), prints the page's Markdown tables (the
effects and their 95% intervals at α = 0, the probability of beating the champion over α), the
authors' check (Chal. 4's 2.5% bound above the
champion's 97.5% bound), the sampling checks and the time taken, and draws docs/img/bayes-forest.png
(one panel per collection, α = 0).

The data are the authors' per-topic AP files (rmit-ir/bayesian-risk, data/), three CSV files
system,topic,score.  Run from the repository root:  python tools/bayes_docs.py [--data DIR]
(without --data: $RISKEVAL_DATA/benham2020-bayesian-risk, else ../shared/data/benham2020-bayesian-risk).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd
from campaign_data import campaign_data

import riskeval
from riskeval.bayes import ChampionComparison, champion_challengers
from riskeval.io.atomic import atomic_open

ROOT = Path(__file__).resolve().parents[1]
FIGURE = ROOT / "docs" / "img" / "bayes-forest.png"
#: file stem -> the collection's name on the page
COLLECTIONS = {"rb04": "Robust04", "trec17": "Core 2017", "trec18": "Core 2018"}
CHAMPION = "Champion"
CHALLENGERS = ("Chal. 1", "Chal. 2", "Chal. 3", "Chal. 4")
ALPHAS = (0.0, 1.0, 2.0, 5.0)
SEED = 2020
LEVEL = 0.95


def compare(path: Path, alphas: tuple[float, ...] = ALPHAS) -> ChampionComparison:
    """The champion against the challengers on one collection's file, at the page's seed."""
    scores = riskeval.score_matrix(pd.read_csv(path))
    return champion_challengers(
        scores, CHAMPION, list(CHALLENGERS), alphas=list(alphas), level=LEVEL, model="crossed", rng=SEED
    )


def effects_table(comparison: ChampionComparison) -> pd.DataFrame:
    """The α = 0 rows of the page: each system's effect, its 95% interval and the interval's width,
    and for the challengers the difference from the champion and the probability of beating it."""
    rows = comparison.table[comparison.table["alpha"] == 0].set_index("system")
    table = rows[["effect_mean", "effect_low", "effect_high"]].copy()
    table["width"] = table["effect_high"] - table["effect_low"]
    table[["diff_mean", "diff_low", "diff_high", "p_better"]] = rows[
        ["diff_mean", "diff_low", "diff_high", "p_better"]
    ]
    return table


def effects_markdown(comparison: ChampionComparison) -> str:
    """:func:`effects_table` as the page's Markdown table."""
    lines = [
        "| system | effect | 95% interval | width | difference from the champion | P(better) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for system, row in effects_table(comparison).iterrows():
        if system == CHAMPION:
            versus = "—", "—"
        else:
            versus = (
                f"{row.diff_mean:+.3f} [{row.diff_low:+.3f}, {row.diff_high:+.3f}]",
                f"{row.p_better:.3f}",
            )
        lines.append(
            f"| {system} | {row.effect_mean:+.3f} | [{row.effect_low:+.3f}, {row.effect_high:+.3f}] "
            f"| {row.width:.3f} | {versus[0]} | {versus[1]} |"
        )
    return "\n".join(lines)


def p_better_markdown(comparison: ChampionComparison) -> str:
    """The probability of beating the champion, challengers × α, as the page's Markdown table."""
    p = comparison.p_better()
    lines = [
        "| challenger | " + " | ".join(f"α = {a:g}" for a in p.columns) + " |",
        "|---|" + "---:|" * len(p.columns),
    ]
    lines += [f"| {system} | " + " | ".join(f"{v:.3f}" for v in row) + " |" for system, row in p.iterrows()]
    return "\n".join(lines)


def authors_check(comparison: ChampionComparison) -> bool:
    """Whether Chal. 4's lower bound is above the champion's upper bound at α = 0 (Benham et al.,
    SIGIR 2020, Figure 4: Chal. 4 is the one challenger clearly better than the champion)."""
    effects = effects_table(comparison)
    return bool(effects.loc["Chal. 4", "effect_low"] > effects.loc[CHAMPION, "effect_high"])


def forest_figure(comparisons: dict[str, ChampionComparison], out: Path) -> None:
    """One panel per collection: the α = 0 effects of the champion and the challengers with their
    95% intervals (:func:`riskeval.plots.bayes.forest_plot`, as the authors' Figure 4)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from riskeval.plots.bayes import forest_plot

    fig, axes = plt.subplots(1, len(comparisons), figsize=(11, 2.6), sharey=True, layout="constrained")
    for ax, (name, comparison) in zip(axes, comparisons.items(), strict=True):
        forest_plot(comparison, alpha=0.0, ax=ax)
        ax.set_title(f"{name}, α = 0")
    with atomic_open(out, "wb") as handle:
        fig.savefig(handle, dpi=110, format="png", metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the benham2020-bayesian-risk folder")
    args = parser.parse_args()
    data = args.data or campaign_data() / "benham2020-bayesian-risk"
    if not data.is_dir():
        sys.exit(f"{data} not found: pass --data, or set RISKEVAL_DATA to the folder holding it")
    comparisons: dict[str, ChampionComparison] = {}
    for stem, name in COLLECTIONS.items():
        start = time.perf_counter()
        comparisons[name] = comparison = compare(data / f"{stem}_data.csv")
        seconds = time.perf_counter() - start
        print(f"### {name}\n\n{effects_markdown(comparison)}\n\n{p_better_markdown(comparison)}\n")
        print(f"Chal. 4's 2.5% bound above the champion's 97.5% bound: {authors_check(comparison)}")
        print(f"sampling checks failed: {comparison.problems() or 'none'}")
        print(f"{len(ALPHAS)} fits in {seconds:.1f} s\n")
    forest_figure(comparisons, FIGURE)
    print(f"wrote {FIGURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
