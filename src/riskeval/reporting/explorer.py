"""The data of the report's interactive parts, computed once per measure and embedded as JSON.

The page script (``templates/report.js``) only selects, sorts, filters and draws what is here: every
number and every "significant" is computed in Python, by :func:`riskeval.risk_table` (systems, with
the test and correction of the report) and :func:`riskeval.topic_risk` (topics).

Size is bounded whatever the campaign: the per-topic analysis travels for at most
:data:`TOPIC_VALUES` values (the focus systems or the run of best mean first, then the riskiest and
the safest), the α
curves for at most :data:`CURVE_SYSTEMS` systems.

The risk measures' columns, headers and decimals, in the tables and the curves, are those of the
registry of risk measures (:data:`riskeval.measures.declared.RISK_MEASURES`), which the page script
reads from this data: a measure declared with :func:`riskeval.register_risk` shows as the built-in
ones do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from riskeval.measures.declared import RISK_MEASURES, RiskMeasure, TRisk
from riskeval.plots._base import FOCUS_COLOURS, GAIN_COLOUR, LOSS_COLOUR

if TYPE_CHECKING:
    from riskeval.reporting.build import ReportContext

#: Most numbers embedded for the per-topic analysis: each system takes topics × (2 + 3 × α values)
#: (score, baseline; TR, TJ, p per α), about 4 bytes each.
TOPIC_VALUES = 900_000
#: Most systems whose α curves are embedded (the focus, the best and the worst).
CURVE_SYSTEMS = 120
#: The α grid of the curves runs from 0 to at least this (Dinçer, Macdonald & Ounis, SIGIR 2014, Figure 1).
CURVE_ALPHA_MAX = 15.0

#: The columns of the interactive table besides the risk measures': (column of risk_table, header,
#: decimals or ``"p"``), the first before the measures, the tests' after the marked measures, the
#: counts last (see :func:`table_columns`).
MEAN_COLUMN = ("mean", "mean", 4)
TEST_COLUMNS = (("pvalue", "p", "p"), ("pvalue_adj", "p (adj.)", "p"))
COUNT_COLUMNS = (("wins", "wins", 0), ("losses", "losses", 0), ("loss20", "loss>20%", 0))

TEST_NAMES = {
    "t": "Student's t test of TRisk",
    "permutation": "sign-flip randomisation test of URisk",
    "bootstrap": "BCa bootstrap of URisk over topics",
}


def table_columns() -> list[tuple[str, str, int | str, bool]]:
    """The columns of the interactive table, in order: (column of :func:`riskeval.risk_table`,
    header, decimals or ``"p"``, marked).  The mean, the risk measures that declare ``marked``
    (URisk, TRisk: shaded by the system's significance), the p-values, the other measures, the
    counts; each measure with its declared header and decimals, in the registry's order."""
    measures = list(RISK_MEASURES.values())
    shaded = [(cls.column, cls.header, cls.decimals, True) for cls in measures if cls.marked]
    rest = [(cls.column, cls.header, cls.decimals, False) for cls in measures if not cls.marked]
    plain = [(key, label, d, False) for key, label, d in TEST_COLUMNS]
    counts = [(key, label, d, False) for key, label, d in COUNT_COLUMNS]
    return [(*MEAN_COLUMN, False), *shaded, *plain, *rest, *counts]


def curve_measures(shown: tuple[str, ...] | None) -> list[type[RiskMeasure]]:
    """The measures whose α curves the report draws: those that rank systems (``ranked``: URisk,
    TRisk, GeoRisk) among the columns ``shown`` (``None``: every column)."""
    return [cls for cls in RISK_MEASURES.values() if cls.ranked and (shown is None or cls.column in shown)]


def numbers(values: Any, digits: int | str) -> list[Any]:
    """A column as JSON numbers: rounded to ``digits`` decimals (``"p"``: 3 significant digits),
    integers for 0 decimals, ``None`` for NaN."""
    a = np.asarray(values, dtype=float)
    finite = np.isfinite(a)
    if digits == "p":
        out: list[Any] = [float(f"{v:.3g}") for v in a.tolist()]
    elif digits == 0:
        out = np.where(finite, a, 0).astype(np.int64).tolist()
    else:
        out = np.round(np.where(finite, a, 0.0), int(digits)).tolist()
    return [v if ok else None for v, ok in zip(out, finite.tolist(), strict=True)]


def fixed(values: Any, digits: int) -> list[int | None]:
    """A column as integers in units of 10^-digits (``None`` for NaN): the same rounding as
    :func:`numbers`, in fewer characters (``-123`` for -1.23 at 2 digits); the page divides back."""
    a = np.asarray(values, dtype=float)
    finite = np.isfinite(a)
    out = np.round(np.where(finite, a, 0.0) * 10**digits).astype(np.int64).tolist()
    return [v if ok else None for v, ok in zip(out, finite.tolist(), strict=True)]


def test_caption(settings: dict[str, Any], baseline: str) -> str:
    """What decides "significant" in the risk table, in words: test, correction, level, baseline."""
    s = settings
    test = TEST_NAMES[s["test"]]
    if s["test"] != "t":
        test += f" ({s['n_resamples']:,} resamples, seed {s['seed']})"
    corr = f"p-values {s['correction']}-adjusted across systems per α" if s["correction"] else "no correction"
    return f"{test}, {corr}, level {s['level']:g}, against {baseline}"


def page_data(ctx: ReportContext) -> dict[str, Any]:
    """The JSON of one measure (see the module)."""
    t = ctx.risk_table
    s = ctx.settings
    alphas = list(s["alphas"])
    order = list(
        t.groupby("system", sort=False)["mean"].first().sort_values(ascending=False, kind="stable").index
    )
    position = {name: i for i, name in enumerate(order)}
    focus = [position[n] for n in ctx.focus]
    columns = table_columns()
    # the sign of a significant difference: that of the first marked measure (URisk, TRisk)
    signed = next(key for key, _, _, shaded in columns if shaded and key in t)
    tables, signs = [], []
    for a in alphas:
        at = t[t["alpha"] == a].set_index("system").loc[order]
        cols = {key: numbers(at[key], d) if key in at else None for key, _, d, _ in columns}
        tables.append(cols)
        sign = np.where(at["significant"].to_numpy(dtype=bool), np.sign(at[signed].to_numpy(dtype=float)), 0)
        signs.append(sign.astype(int).tolist())
    first = t.iloc[0]
    baseline = str(first["baseline"])
    default_alpha = alphas.index(s["topic_alpha"])
    at_default = t[t["alpha"] == s["topic_alpha"]].set_index("system")[TRisk.column]
    by_risk = [position[n] for n in at_default.loc[order].sort_values(kind="stable").dropna().index]
    opening = opening_systems(focus, by_risk)
    data: dict[str, Any] = {
        "key": ctx.key,
        "measure": ctx.measure,
        "baseline": baseline,
        "alphas": alphas,
        "alpha": default_alpha,
        "level": s["level"],
        "correction": s["correction"],
        "test": s["test"],
        "caption": test_caption(s, baseline),
        "critical": float(first["critical"]) if np.isfinite(first["critical"]) else None,
        "systems": order,
        "focus": focus,
        # a measure against the MEAN (T*Risk) equals its kin against the baseline when the baseline
        # is the MEAN (Dinçer, Macdonald & Ounis, SIGIR 2014, §4); risk= shows its measures only
        "columns": [
            [key, label, d, shaded]
            for key, label, d, shaded in columns
            if key in t
            and not (baseline == "MEAN" and key in _against_mean())
            and (ctx.columns is None or key in ctx.columns)
        ],
        # the systems are ordered from the riskiest by this column (the coloured curves)
        "riskiest": TRisk.column,
        "table": tables,
        "sig": signs,
        "byRisk": by_risk,
        "colours": {"focus": list(FOCUS_COLOURS), "loss": LOSS_COLOUR, "gain": GAIN_COLOUR},
    }
    data["curves"] = _curves(ctx, order, focus, by_risk)
    data.update(_per_topic(ctx, order, opening, by_risk))
    data["judged"] = _judged(ctx, order, data)
    return data


def _judged(ctx: ReportContext, order: list[str], data: dict[str, Any]) -> dict[str, Any] | None:
    """The judged fractions (``report(judged=...)``), or ``None``: each system's mean as a column
    of the risk table, beside its mean score, and each topic's (in 10⁻³) for the systems of the
    per-topic analysis, with the threshold and the topics (0-based) flagged as losses where little
    is judged (:func:`riskeval.reporting.judged.judged_losses`)."""
    from riskeval.reporting.judged import JUDGED_THRESHOLD, judged_label, judged_losses, judged_of

    J, masks = judged_of(ctx), judged_losses(ctx)
    if J is None or masks is None:
        return None
    flagged = masks[1]
    holes = [np.flatnonzero(flagged.loc[order[i]].to_numpy()).tolist() for i in data["pt"]["systems"]]
    label = judged_label(ctx)
    means = numbers(J.loc[order].mean(axis=1), 3)
    for table in data["table"]:
        table["judged"] = means
    columns = data["columns"]
    columns.insert(1 if columns and columns[0][0] == MEAN_COLUMN[0] else 0, ["judged", label, 3, False])
    return {
        "label": label,
        "threshold": JUDGED_THRESHOLD,
        "pt": [fixed(J.loc[order[i]], 3) for i in data["pt"]["systems"]],
        "holes": holes,
    }


def _against_mean() -> set[str]:
    """The columns of the measures computed against the per-topic MEAN (T*Risk)."""
    return {cls.column for cls in RISK_MEASURES.values() if cls.needs == "mean"}


def opening_systems(focus: list[int], by_risk: list[int]) -> list[int]:
    """The systems (positions in the order by mean score) whose per-topic analysis the page opens
    on, first to last: the focus systems, else the run of best mean score that has a TRisk (the
    baseline run has none), never a degenerate run of low mean that the riskiest would be."""
    return list(focus) if focus else sorted(by_risk)[:1]


def _shown_systems(order: list[str], first: list[int], by_risk: list[int], limit: int) -> list[int]:
    """At most ``limit`` systems (positions in ``order``): ``first`` (the focus, or the opening
    system), then alternately the riskiest and the safest, then the rest by mean."""
    chosen = list(dict.fromkeys(first))
    ends = [i for pair in zip(by_risk, by_risk[::-1], strict=True) for i in pair]
    for i in [*ends, *range(len(order))]:
        if len(chosen) >= limit:
            break
        if i not in chosen:
            chosen.append(i)
    return chosen


def _curves(ctx: ReportContext, order: list[str], focus: list[int], by_risk: list[int]) -> dict[str, Any]:
    """The measures of :func:`curve_measures` on an α grid for at most CURVE_SYSTEMS systems: for
    each, its column, header, decimals, what it is against, whether Student's t critical value
    bands it (TRisk) and whether the table's decisions mark it; its values per system, or ``None``
    for a measure of the whole matrix (GeoRisk) when a score is negative; a measure the table
    lacks is left out."""
    from riskeval.analysis.table import risk_table

    s = ctx.settings
    top = max(CURVE_ALPHA_MAX, max(s["alphas"]))
    grid = np.unique(np.concatenate([np.linspace(0.0, top, 31), s["alphas"]]))
    ctx.log(f"α curves ({len(grid)} α values)")
    t = risk_table(
        ctx.matrix,
        baseline=ctx.baseline,
        alphas=grid,
        se=s["se"],
        level=s["level"],
        leave_one_out=s["leave_one_out"],
    )
    shown = sorted(_shown_systems(order, focus, by_risk, CURVE_SYSTEMS))
    names = [order[i] for i in shown]
    nonnegative = bool((ctx.matrix.to_numpy() >= 0).all())
    against = {"baseline": str(t["baseline"].iloc[0]), "mean": "MEAN", "matrix": None}
    series = []
    for cls in curve_measures(ctx.columns):
        if cls.column not in t:
            continue
        values = None
        if cls.needs != "matrix" or nonnegative:
            wide = t.pivot(index="system", columns="alpha", values=cls.column).loc[names, grid]
            values = [numbers(row, cls.decimals) for row in wide.to_numpy()]
        series.append(
            {
                "key": cls.column,
                "header": cls.header,
                "decimals": cls.decimals,
                "against": against[cls.needs],
                "band": cls is TRisk,
                "marked": cls.marked,
                "values": values,
            }
        )
    return {
        "alphas": numbers(grid, 3),
        "systems": shown,
        "series": series,
        "critical": float(t["critical"].iloc[0]) if np.isfinite(t["critical"].iloc[0]) else None,
    }


def _per_topic(
    ctx: ReportContext, order: list[str], opening: list[int], by_risk: list[int]
) -> dict[str, Any]:
    """Scores and baseline (in units of 10⁻⁴), TR and TJ (10⁻²), p-values (10⁻³) and the
    significant topics (signed 1-based indices) per α, for the systems that fit the size bound,
    the ``opening`` systems first."""
    from riskeval.measures.baselines import resolve_baseline
    from riskeval.measures.paired import topic_risk

    s = ctx.settings
    M = ctx.matrix
    topics = [str(c) for c in M.columns]
    limit = max(1, TOPIC_VALUES // (len(topics) * (2 + 3 * len(s["alphas"]))))
    shown = _shown_systems(order, opening, by_risk, min(limit, len(order)))
    ctx.log(f"per-topic analysis of {len(shown)} systems")
    base = resolve_baseline(M, ctx.baseline, "report", leave_one_out=s["leave_one_out"]).values
    values = M.to_numpy()
    scores, bases, tr, tj, sig, p = [], [], [], [], [], []
    for i in shown:
        row = M.index.get_loc(order[i])
        b = base if base.ndim == 1 else base[row]
        rows = [
            topic_risk(values[row], b, a, level=s["level"], correction=s["correction"]) for a in s["alphas"]
        ]
        scores.append(fixed(values[row], 4))
        bases.append(fixed(b, 4))
        tr.append([fixed(r["tr"], 2) for r in rows])
        tj.append([fixed(r["tj"], 2) for r in rows])
        p.append([_pvalues(r["pvalue_adj" if s["correction"] else "pvalue"]) for r in rows])
        sig.append([_signed(r) for r in rows])
    same_base = all(b == bases[0] for b in bases)
    first = topic_risk(values[0], base if base.ndim == 1 else base[0], s["alphas"][0], level=s["level"])
    return {
        "topics": topics,
        "texts": [ctx.topic_text.get(t, "") for t in topics] if ctx.topic_text else None,
        "pt": {
            "systems": shown,
            "score": scores,
            "base": bases[:1] if same_base else bases,
            "tr": tr,
            "tj": tj,
            "p": p,
            "sig": sig,
            "critical": float(first["critical"].iloc[0]),
        },
    }


def _pvalues(p: Any) -> list[Any]:
    """Per-topic p-values as the page shows them: thousandths, and 0 for "<0.001"."""
    a = np.asarray(p, dtype=float)
    return fixed(np.where(a < 0.001, 0.0, a), 3)


def _signed(frame: pd.DataFrame) -> list[int]:
    """The significant topics of a :func:`riskeval.topic_risk` frame as signed 1-based positions:
    ``-j`` a significant loss on topic j, ``+j`` a significant gain."""
    sig = frame["significant"].to_numpy(dtype=bool)
    pos = np.flatnonzero(sig) + 1
    return (pos * np.where(frame["tr"].to_numpy()[sig] < 0, -1, 1)).astype(int).tolist()
