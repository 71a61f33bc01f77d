"""The findings at the top of the report: sentences written from the numbers of the risk table and
of the per-topic analysis, at the α the page opens on (the largest of the list).

Every number is the one the tables show, rounded as they show it: the risk table of
:func:`riskeval.risk_table` (with the report's test and correction) for systems, and
:func:`riskeval.topic_risk` for the significant topics of a focus system.  Every text from the
user (run names, topic ids and texts) is escaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from riskeval.measures.declared import RiskMeasure, TRisk, URisk
from riskeval.reporting import html as h

if TYPE_CHECKING:
    from riskeval.reporting.build import ReportContext

#: How many of the topics with the largest summed losses the findings name.
RISK_TOPICS = 3
#: Topic texts are shortened to this many characters in the findings.
TEXT_CHARS = 60
#: A run below the baseline on at least this share of the topics is broken, not risky: the
#: findings name it on its own line, apart from the riskiest run ...
BROKEN_SHARE = 0.9
#: ... on a matrix of at least this many topics (on fewer, the share says little).
BROKEN_MIN_TOPICS = 10
#: The runs to ship are named up to this many, best mean first.
SHIP_NAMED = 8


def findings(ctx: ReportContext) -> Markup:
    """The findings of one measure as an HTML list (``<ul class="findings">``): how many runs are
    significantly better and worse than the baseline, which of the better ones lose significantly
    on no topic (the runs one can ship), the run of highest mean score, the broken runs (below the
    baseline on almost every topic), the riskiest of the other runs (lowest TRisk), the topics whose
    losses against the baseline, summed over the runs, are the largest, and one line per focus
    system."""
    s = ctx.settings
    alpha = s["topic_alpha"]
    t = ctx.risk_table
    at = t[t["alpha"] == alpha].set_index("system")
    baseline = str(t["baseline"].iloc[0])
    runs = at[at.index.astype(str) != baseline] if baseline in ctx.matrix.index else at
    lines = [_significance(runs, baseline, alpha, s), _ship(ctx, runs, baseline, alpha)]
    by_mean = runs["mean"].sort_values(ascending=False, kind="stable")
    measure = f" {ctx.measure}" if ctx.measure else ""
    if len(runs) > 1:
        lines.append(
            _sentence(
                "The run of highest mean",
                measure,
                ": ",
                _b(by_mean.index[0]),
                f" ({by_mean.iloc[0]:.4f}; the baseline {baseline}: "
                f"{runs.loc[by_mean.index[0], 'baseline_mean']:.4f}).",
            )
        )
    c = ctx.matrix.shape[1]
    broken = runs[runs["losses"] >= BROKEN_SHARE * c] if c >= BROKEN_MIN_TOPICS else runs.iloc[:0]
    if len(broken):
        lines.append(_broken(broken, baseline, c))
    risky = runs.drop(index=broken.index)[TRisk.column].dropna().sort_values(kind="stable")
    if len(runs) > 1 and len(risky):
        name = risky.index[0]
        row = runs.loc[name]
        lines.append(
            _sentence(
                f"The riskiest {'other ' if len(broken) else ''}run (lowest {TRisk.header}): ",
                _b(name),
                f" ({_shown(row, URisk)}, {_shown(row, TRisk)}; losses on {int(row['losses'])} "
                f"of {ctx.matrix.shape[1]} topics).",
            )
        )
    lines.append(_risk_topics(ctx, baseline))
    judged = _judged(ctx, runs)
    if judged is not None:
        lines.append(judged)
    focus = ctx.focus or ([] if len(runs) > 1 else [str(runs.index[0])])
    ranks = at["mean"].rank(ascending=False, method="first")
    lines += [_focus_line(ctx, name, at, int(ranks[name]), baseline, alpha) for name in focus]
    return (
        Markup('<ul class="findings">')
        + h.join(Markup("<li>") + x + Markup("</li>") for x in lines)
        + Markup("</ul>")
    )


def _judged(ctx: ReportContext, runs: pd.DataFrame) -> Markup | None:
    """The runs judged at less than the threshold on average at the measure's depth, with how many
    of their losses fall where little is judged; or that every run is judged enough; ``None``
    without judged fractions (:mod:`riskeval.reporting.judged`)."""
    from riskeval.reporting.judged import JUDGED_THRESHOLD, judged_label, judged_summary

    table = judged_summary(ctx, runs.index)
    if table is None or table.empty:
        return None
    label = judged_label(ctx)
    low = table[table["judged"] < JUDGED_THRESHOLD]
    if low.empty:
        return _sentence(
            f"Every run has a mean {label} of {JUDGED_THRESHOLD:g} or more (the lowest: ",
            _b(table.index[0]),
            f", {table['judged'].iloc[0]:.3f}): the qrels judge most of what the runs rank.",
        )
    parts: list[Any] = [
        _b(f"{len(low)} run{'' if len(low) == 1 else 's'}"),
        f" {'has' if len(low) == 1 else 'have'} a mean {label} below {JUDGED_THRESHOLD:g}, so some "
        "of their losses may be holes in the qrels (flagged in the per-topic analysis): ",
    ]
    for k, (name, row) in enumerate(low.iloc[:SHIP_NAMED].iterrows()):
        parts += [
            "; " if k else "",
            _b(name),
            f" ({row['judged']:.3f}; {int(row['flagged'])} of its {int(row['losses'])} losses on "
            f"topics judged below {JUDGED_THRESHOLD:g})",
        ]
    more = f" and {len(low) - SHIP_NAMED} more" if len(low) > SHIP_NAMED else ""
    return _sentence(*parts, f"{more}.")


def _shown(row: pd.Series, measure: type[RiskMeasure]) -> str:
    """``URisk 0.0123``: a measure's header and its value in ``row`` as the tables show it."""
    return f"{measure.header} {row[measure.column]:.{measure.decimals}f}"


def _b(text: Any) -> Markup:
    return Markup("<strong>") + escape(str(text)) + Markup("</strong>")


def _sentence(*parts: Any) -> Markup:
    """Parts joined, text escaped, markup kept."""
    return h.join(escape(p) for p in parts)


def _test_words(s: dict[str, Any]) -> str:
    """The decision rule in a few words: statistic, test, level, correction."""
    if s["test"] == "t":
        test = "TRisk, Student's t"
    else:
        name = "sign-flip randomisation test" if s["test"] == "permutation" else "BCa bootstrap"
        test = f"URisk, {name}, {s['n_resamples']:,} resamples"
    correction = f"correction {s['correction']}" if s["correction"] else "no correction"
    return f"{test}, level {s['level']:g}, {correction}"


def _significance(runs: pd.DataFrame, baseline: str, alpha: float, s: dict[str, Any]) -> Markup:
    sig = runs["significant"].to_numpy(dtype=bool)
    gain = runs[URisk.column].to_numpy()
    better = int((sig & (gain > 0)).sum())
    worse = int((sig & (gain < 0)).sum())
    n = len(runs)
    return _sentence(
        _b(f"{better} of {n}"),
        f" run{'' if n == 1 else 's'} {'is' if better == 1 or n == 1 else 'are'} significantly better than ",
        _b(baseline),
        f" at α = {alpha:g} ({_test_words(s)}); ",
        _b(str(worse)),
        " significantly worse.",
    )


def _names(names: list[str], limit: int = SHIP_NAMED) -> Markup:
    """Names in bold, comma separated, the first ``limit`` and a count of the others."""
    shown = Markup(", ").join(_b(n) for n in names[:limit])
    return shown + (escape(f" and {len(names) - limit} more") if len(names) > limit else Markup(""))


def _shippable(
    ctx: ReportContext, runs: pd.DataFrame, alpha: float
) -> tuple[list[str], list[tuple[str, int]]]:
    """The runs significantly better than the baseline at ``alpha`` (the table's test), best mean
    first, split into those with no significant loss on any topic (the per-topic test of
    :func:`riskeval.topic_risk`, the page's level and correction) and those with some (name, count)."""
    better = runs[runs["significant"].astype(bool) & (runs[URisk.column] > 0)]
    safe: list[str] = []
    losing: list[tuple[str, int]] = []
    for name in better["mean"].sort_values(ascending=False, kind="stable").index:
        topics = ctx.topic_risk(str(name), alpha)
        lost = int((topics["significant"].astype(bool) & (topics["tr"] < 0)).sum())
        if lost:
            losing.append((str(name), lost))
        else:
            safe.append(str(name))
    return safe, losing


def _ship(ctx: ReportContext, runs: pd.DataFrame, baseline: str, alpha: float) -> Markup:
    """The runs one can ship at ``alpha`` (:func:`_shippable`), the better runs that lose
    significantly on some topic, and, when none is to ship, the largest α of the report at which
    some run is."""
    safe, losing = _shippable(ctx, runs, alpha)
    head = f"To ship at α = {alpha:g}: "
    if safe:
        text = _sentence(
            head,
            _names(safe),
            " (significantly better than ",
            _b(baseline),
            " and significantly worse on no topic" + ("; best mean first)." if len(safe) > 1 else ")."),
        )
    else:
        text = _sentence(
            head,
            "none; no run is ",
            "both significantly better than " if losing else "significantly better than ",
            _b(baseline),
            " and without a significant topic loss." if losing else ".",
        )
    if losing:
        text += _sentence(
            " Better, but with significant topic losses: ",
            Markup(", ").join(_sentence(_b(n), f" ({k})") for n, k in losing[:SHIP_NAMED]),
            f" and {len(losing) - SHIP_NAMED} more." if len(losing) > SHIP_NAMED else ".",
        )
    if not safe:
        t = ctx.risk_table
        for other in sorted((a for a in ctx.settings["alphas"] if a < alpha), reverse=True):
            at = t[t["alpha"] == other].set_index("system").loc[runs.index]
            found, _ = _shippable(ctx, at, other)
            if found:
                text += _sentence(f" At α = {other:g}, where a loss weighs less: ", _names(found), ".")
                break
    return text


def _broken(broken: pd.DataFrame, baseline: str, topics: int) -> Markup:
    """The runs below the baseline on almost every topic: broken (a failed run, a wrong file)
    rather than risky."""
    worst = broken.sort_values("losses", ascending=False, kind="stable")
    named = [
        _sentence(_b(name), f" ({int(row['losses'])} of {topics})")
        for name, row in worst.iloc[:SHIP_NAMED].iterrows()
    ]
    more = f" and {len(worst) - SHIP_NAMED} more" if len(worst) > SHIP_NAMED else ""
    return _sentence(
        "Broken, not risky (below ",
        _b(baseline),
        f" on at least {BROKEN_SHARE:.0%} of the topics): ",
        Markup(", ").join(named),
        f"{more}; check these runs before reading their risk.",
    )


def topic_losses(ctx: ReportContext) -> pd.DataFrame:
    """Per topic, the losses of the runs against the baseline summed over the runs (``loss``: the
    sum of ``max(0, baseline − score)``, in points of the measure: the δ_j < 0 that URisk weighs by
    1 + α, Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 3–4) and the number of runs that score below
    the baseline on it (``runs``), largest loss first; the baseline run is not a run."""
    from riskeval.measures.baselines import resolve_baseline

    M = ctx.matrix
    base = resolve_baseline(M, ctx.baseline, "report", leave_one_out=ctx.settings["leave_one_out"]).values
    delta = M.to_numpy(dtype=float) - base
    keep = M.index.astype(str) != str(ctx.risk_table["baseline"].iloc[0])
    delta = delta[keep]
    frame = pd.DataFrame(
        {"loss": np.clip(-delta, 0.0, None).sum(axis=0), "runs": (delta < 0).sum(axis=0)},
        index=pd.Index([str(c) for c in M.columns], name="topic"),
    )
    return frame.sort_values("loss", ascending=False, kind="stable")


def _risk_topics(ctx: ReportContext, baseline: str) -> Markup:
    losses = topic_losses(ctx)
    total = float(losses["loss"].sum())
    if total <= 0:
        return _sentence("No run scores below ", _b(baseline), " on any topic.")
    top = losses[losses["loss"] > 0].iloc[:RISK_TOPICS]
    n_runs = int((ctx.matrix.index.astype(str) != baseline).sum())
    named = []
    for topic, row in top.iterrows():
        text = ctx.topic_text.get(str(topic), "")
        short = text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"
        named.append(
            _sentence(
                _b(topic),
                f" “{short}”" if short else "",
                f" (loss {row['loss']:.4f})"
                if n_runs == 1
                else f" (summed loss {row['loss']:.4f}; {int(row['runs'])} of {n_runs} runs below it)",
            )
        )
    share = float(top["loss"].sum()) / total
    return _sentence(
        "The topics that carry most of the risk ("
        + (
            "losses against the baseline summed over the runs): "
            if n_runs > 1
            else "the largest losses against the baseline): "
        ),
        Markup(", ").join(named),
        f"; {'these' if len(top) > 1 else 'this'} {len(top)} of {len(losses)} topics hold "
        f"{share:.0%} of all losses.",
    )


def _focus_line(
    ctx: ReportContext, name: str, at: pd.DataFrame, rank: int, baseline: str, alpha: float
) -> Markup:
    """One line about a focus system: its mean and rank, its risk and the verdict, its topic losses."""

    s = ctx.settings
    row = at.loc[name]
    if name == baseline:
        return _sentence(_b(name), f" is the baseline (mean {row['mean']:.4f}).")
    verdict = (
        "not significantly different from the baseline"
        if not row["significant"]
        else "significantly better than the baseline"
        if row[URisk.column] > 0
        else "significantly worse than the baseline"
    )
    p = f", p {h.pvalue(row['pvalue'])}"
    if s["correction"]:
        p += f", p ({s['correction']}) {h.pvalue(row['pvalue_adj'])}"
    topics = ctx.topic_risk(name, alpha)
    lost = topics[topics["significant"].astype(bool) & (topics["tr"] < 0)].sort_values("tr")
    ids = [str(t) for t in lost.index[:5]]
    which = f": {', '.join(ids)}{', …' if len(lost) > 5 else ''}" if len(lost) else ""
    return _sentence(
        _b(name),
        f": mean {row['mean']:.4f} (rank {rank} of {len(at)} by mean); {_shown(row, URisk)}, "
        f"{_shown(row, TRisk)}{p}: {verdict}; below it on {int(row['losses'])} of "
        f"{ctx.matrix.shape[1]} topics, {len(lost)} of them a significant loss{which}.",
    )
