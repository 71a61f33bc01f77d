"""A table of systems for a paper: the mean of each IR measure with the systems each one is
significantly better than, as superscripts, beside risk measures against a baseline.

The layout is that of ranx's ``Report`` (Bassani, ECIR 2022): every system gets a letter, and the
mean of a measure carries the letters of the systems it beats with a paired test of the
per-topic differences, the p-values of the pairs adjusted for multiple testing (Holm 1979,
Benjamini–Hochberg 1995 or Bonferroni) within each measure.  The risk columns are those of
:func:`riskeval.risk_table`: URisk and TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1 and 3)
by default, with † where the test of URisk against the baseline rejects.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval import _display
from riskeval.analysis.table import risk_table
from riskeval.core.corrections import adjust_pvalues
from riskeval.core.pvalues import t_pvalue
from riskeval.errors import RiskevalError
from riskeval.inference._common import check_n_resamples, resolve_rng
from riskeval.inference.bootstrap import bootstrap_ci
from riskeval.inference.maxt import risk_permutation_table
from riskeval.inference.tables import with_test
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure, TRisk, URisk, expand_risks
from riskeval.model.by_measure import measure_matrices
from riskeval.model.matrix import as_matrix
from riskeval.options import RISK_TESTS, check_option
from riskeval.settings import RiskSettings, resolve_settings

_FUNC = "compare"
#: How the captions name the tests.
TEST_NAMES = {
    "t": "paired t test",
    "permutation": "paired randomisation test",
    "bootstrap": "BCa bootstrap",
}


@dataclass(frozen=True, eq=False)
class Comparison:
    """What :func:`riskeval.compare` found, and its tables for people and papers.

    Attributes
    ----------
    means : DataFrame
        Mean of each IR measure (columns) for each system (rows), in the order given; the rows
        of the tables (a copy with some rows, in another order, shows those).
    labels : Series
        The letter (or, beyond 26 systems, number) of each system.
    pairs : DataFrame
        Every ordered pair of systems for each measure: ``measure, system, other, difference``
        (mean of system − other), ``pvalue`` (two-sided), ``pvalue_adj`` (with a correction) and
        ``better`` (system significantly better than other).
    risk : DataFrame
        The :func:`riskeval.risk_table` rows behind the risk columns (with the resampling test's
        p-values for ``test="permutation"`` or ``"bootstrap"``), with a ``measure`` column.
    risks : list of risk measures
        The risk columns, each at its α.
    settings : RiskSettings
        Baseline, level and correction used.
    test : str
        ``"t"``, ``"permutation"`` or ``"bootstrap"``.
    baseline : str
        The name of the baseline of the risk columns.
    seed : int or None
        The seed of the resampling test (``None`` for the t test).
    """

    means: pd.DataFrame
    labels: pd.Series
    pairs: pd.DataFrame
    risk: pd.DataFrame
    risks: list[RiskMeasure]
    settings: RiskSettings
    test: str
    baseline: str
    seed: int | None

    def risk_columns(self) -> dict[tuple[str, RiskMeasure], str]:
        """The name of the column of each (IR measure, risk measure): ``URisk@5``, or with several
        IR measures ``nDCG@10 URisk@5``."""
        several = len(self.means.columns) > 1
        return {
            (m, r): (f"{m} " if several else "") + _risk_name(r)
            for m in self.means.columns
            for r in self.risks
        }

    def better_than(self) -> pd.DataFrame:
        """For each system (rows) and IR measure (columns), the labels of the systems it is
        significantly better than, in label order (``"bc"``; numbers are comma separated)."""
        sep = "," if len(self.labels) > len(string.ascii_lowercase) else ""
        order = {name: i for i, name in enumerate(self.labels.index)}
        out = pd.DataFrame("", index=self.means.index, columns=self.means.columns, dtype=object)
        wins = self.pairs[self.pairs["better"]]
        for (measure, system), part in wins.groupby(["measure", "system"], sort=False):
            if system not in out.index:  # a row left out (the means of some systems only)
                continue
            others = sorted(part["other"], key=order.__getitem__)
            out.loc[system, measure] = sep.join(self.labels[o] for o in others)
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per system: ``label``, then for each IR measure its mean, ``<measure> better
        than`` (the labels of :meth:`better_than`) and the risk columns."""
        frame = pd.DataFrame({"label": self.labels}, index=self.means.index)
        better = self.better_than()
        names = self.risk_columns()
        for m in self.means.columns:
            frame[m] = self.means[m]
            frame[f"{m} better than"] = better[m]
            for r in self.risks:
                frame[names[m, r]] = self._risk_values(m, r)
        frame.index.name = "system"
        return frame

    def caption(self) -> str:
        """What the table shows: the test behind the superscripts and the risk columns' baseline."""
        s = self.settings
        pairs = len(self.labels) * (len(self.labels) - 1) // 2
        test = TEST_NAMES[self.test] + (f", seed {self.seed}" if self.seed is not None else "")
        adjusted = f", {s.correction}-adjusted over the {pairs} pairs" if s.correction else ""
        text = (
            f"Mean of each measure; superscripts: the systems the row's system is significantly better "
            f"than ({test}, two-sided, level {s.level:g}{adjusted})"
        )
        if self.risks:
            text += (
                f". Risk against {self.baseline}; †: URisk differs from 0 ({test}, level {s.level:g}"
                + (f", {s.correction}-adjusted over the systems" if s.correction else "")
                + ")"
            )
        return text + "."

    def to_latex(
        self,
        *,
        caption: str | None = None,
        label: str | None = None,
        digits: int = 4,
        columns: str | Sequence[str] | None = None,
    ) -> str:
        """A booktabs LaTeX table (:func:`riskeval.to_latex`): superscript letters after each
        mean, † after significant URisk (or TRisk) values, the best value of each column in bold.
        ``caption`` defaults to :meth:`caption`; ``columns`` chooses and orders the columns
        (``#``, ``system``, the measures, the risk columns)."""
        from riskeval.formatting import to_latex

        frame, sups, best, decimals = self._display()
        return to_latex(
            frame,
            caption=self.caption() if caption is None else caption,
            label=label,
            digits=digits,
            decimals=decimals,
            best=best,
            groups=(),
            columns=columns,
            superscripts=sups,
        )

    def to_markdown(
        self, *, caption: str | None = None, digits: int = 4, columns: str | Sequence[str] | None = None
    ) -> str:
        """A Markdown pipe table (:func:`riskeval.to_markdown`), superscripts as ``<sup>``; the
        same parameters as :meth:`to_latex`."""
        from riskeval.formatting import to_markdown

        frame, sups, best, decimals = self._display()
        return to_markdown(
            frame,
            caption=self.caption() if caption is None else caption,
            digits=digits,
            decimals=decimals,
            best=best,
            groups=(),
            columns=columns,
            superscripts=sups,
        )

    def __str__(self) -> str:
        from riskeval.formatting import to_text

        return to_text(self.to_frame().reset_index(), caption=self.caption())

    def __repr__(self) -> str:
        return (
            f"<Comparison of {len(self.labels)} systems on {', '.join(self.means.columns)}: "
            f"{TEST_NAMES[self.test]}, risk against {self.baseline}>"
        )

    def _repr_html_(self) -> str:
        s = self.settings
        facts = [
            f"{len(self.labels)} systems; {', '.join(map(str, self.means.columns))}",
            f"{TEST_NAMES[self.test]}, level {s.level:g}, {s.correction or 'no'} correction",
            f"risk against {self.baseline}",
        ]
        return _display.block(
            "Comparison",
            facts,
            [(self.caption(), self.to_frame())],
            note="str() gives the whole table; to_latex(), to_markdown() and to_frame() the paper's.",
        )

    def _risk_values(self, measure: str, r: RiskMeasure) -> np.ndarray:
        rows = self.risk[(self.risk["measure"] == measure) & (self.risk["alpha"] == r.alpha)]
        return rows.set_index("system")[r.column].reindex(self.means.index).to_numpy()

    def _significant(self, measure: str, alpha: float | None) -> np.ndarray:
        rows = self.risk[(self.risk["measure"] == measure) & (self.risk["alpha"] == alpha)]
        flags = rows.set_index("system")["significant"].reindex(self.means.index)
        return flags.fillna(False).astype(bool).to_numpy()

    def _display(self) -> tuple[pd.DataFrame, dict[str, list[str]], dict[str, str], dict[str, int]]:
        """The table for people, the superscript of each cell, the columns' best direction and the
        risk columns' decimals (each measure's declared ones).  † goes on the first measure, in the
        order of the registry, that declares ``marked`` (URisk, else TRisk)."""
        frame = pd.DataFrame(
            {"#": self.labels.reindex(self.means.index).to_numpy(), "system": self.means.index.astype(str)}
        )
        better = self.better_than()
        names = self.risk_columns()
        sups: dict[str, list[str]] = {}
        kinds = {type(r) for r in self.risks}
        marked = next((cls for cls in RISK_MEASURES.values() if cls.marked and cls in kinds), None)
        best = dict.fromkeys(self.means.columns, "max")
        decimals = {}
        for m in self.means.columns:
            frame[m] = self.means[m].to_numpy()
            sups[m] = better[m].tolist()
            for r in self.risks:
                frame[names[m, r]] = self._risk_values(m, r)
                best[names[m, r]] = "max" if r.higher_is_better else "min"
                decimals[names[m, r]] = r.decimals
                if type(r) is marked and r.alpha is not None:
                    sups[names[m, r]] = ["†" if f else "" for f in self._significant(m, r.alpha)]
        return frame, sups, best, decimals


def compare(
    X: Any,
    baseline: Any = None,
    *,
    measures: str | Sequence[str] | None = None,
    alphas: Any = None,
    risk: Any = None,
    settings: RiskSettings | None = None,
    test: str = "t",
    level: float | None = None,
    correction: str | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
) -> Comparison:
    """Every system against every other on each IR measure, and its risk against a baseline: the
    table of a paper.

    Parameters
    ----------
    X : DataFrame (systems × topics), or several IR measures
        One score matrix, a mapping measure -> matrix, or a long table with a ``measure`` column
        (as :func:`riskeval.risk_table` takes).  Every measure must score the same systems.
    baseline : str, Series or vector, optional
        The baseline of the risk columns, as for :func:`riskeval.risk_table`; default the
        settings' (``"mean"``).
    measures : str or list of str, optional
        The IR measures to show, in that order (default every measure of ``X``); for one matrix,
        the name of its measure (default ``"mean"``).
    alphas : float or list of float, optional
        The α of risk measures without their own; default the settings' (0, 1, 5, 10).
    risk : risk measure, its text, or a list, optional
        The risk columns, each at its α or at every α (``"URisk@5"``, ``rk.GeoRisk()``);
        default URisk and TRisk at every α.
    settings : RiskSettings, optional
        Baseline, α grid, level and correction; the keywords given here override it.
    test : {"t", "permutation", "bootstrap"}
        The paired test of each pair of systems (of the mean difference) and of URisk against
        the baseline: Student's t (:func:`scipy.stats.ttest_rel`; TRisk), the sign-flip
        randomisation test (Fisher's, as in Smucker, Allan & Carterette, CIKM 2007) or the BCa
        bootstrap over topics (Efron & Tibshirani 1993, §14.3), all two-sided.
    level, correction : optional
        Significance level (default 0.05) and the correction (``"holm"``, ``"bh"``,
        ``"bonferroni"``, ``"none"``; default the settings', none) of the pairs' p-values, within
        each measure over the r(r − 1)/2 pairs, and of URisk's, over the systems at each α.
    n_resamples, rng : optional
        Resamples and seed (int, None or a numpy Generator) of the permutation and bootstrap
        tests; every pair's test uses the same seed, recorded in the result.

    Returns
    -------
    Comparison
        With :meth:`~Comparison.to_frame`, :meth:`~Comparison.to_latex` and
        :meth:`~Comparison.to_markdown`.  A system is "better" than another when the mean
        difference is positive and its (adjusted) p-value is below ``level``; a pair whose
        differences are all 0 has no p-value (NaN) and is never significant.

    Examples
    --------
    >>> import riskeval as rk
    >>> X = rk.example_scores().loc[["bm25base_p", "p_bert", "UNH_bm25"]]
    >>> table = rk.compare(X, "bm25base_p", risk="URisk@5")
    >>> latex = table.to_latex()
    """
    s = resolve_settings(
        settings, _FUNC, baseline=baseline, alphas=alphas, level=level, correction=correction
    )
    test = check_option(test, RISK_TESTS, _FUNC, "test")
    seed = None
    if test != "t":
        check_n_resamples(n_resamples, _FUNC)
        seed = resolve_rng(rng, _FUNC)[1]
    matrices = _matrices(X, measures)
    chosen = expand_risks([URisk(), TRisk()] if risk is None else risk, s.alphas, _FUNC)
    systems = next(iter(matrices.values())).index
    means, pairs, tables = {}, [], []
    for name, M in matrices.items():
        if list(M.index) != list(systems):
            raise RiskevalError(
                f"compare: every measure must score the same systems in the same order; {name!r} has "
                f"{', '.join(map(str, M.index))}, the first measure {', '.join(map(str, systems))}."
            )
        means[name] = M.mean(axis=1)
        pairs.append(_pairs(M, test, s, n_resamples, seed).assign(measure=name))
        tables.append(_risk_rows(M, chosen, s, test, n_resamples, seed).assign(measure=name))
    labels = pd.Series(_labels(len(systems)), index=systems, name="label")
    pair_table = pd.concat(pairs, ignore_index=True)
    pair_table = pair_table[["measure", *(c for c in pair_table.columns if c != "measure")]]
    risk_rows = pd.concat(tables, ignore_index=True)
    risk_rows = risk_rows[["measure", *(c for c in risk_rows.columns if c != "measure")]]
    base = str(risk_rows["baseline"].iloc[0])
    return Comparison(
        pd.DataFrame(means, index=systems), labels, pair_table, risk_rows, chosen, s, test, base, seed
    )


def _matrices(X: Any, measures: str | Sequence[str] | None) -> dict[str, pd.DataFrame]:
    """The score matrix of each IR measure shown, in order."""
    several = measure_matrices(X)
    wanted = [measures] if isinstance(measures, str) else (None if measures is None else list(measures))
    if several is None:
        if wanted is not None and len(wanted) != 1:
            raise RiskevalError(
                f"The 'measures' parameter of compare names the measure of one score matrix: give one "
                f"name. Got {measures!r}."
            )
        return {str(wanted[0]) if wanted else "mean": as_matrix(X)}
    if wanted is None:
        return {name: as_matrix(M) for name, M in several.items()}
    unknown = [m for m in wanted if m not in several]
    if unknown or not wanted:
        raise RiskevalError(
            f"The 'measures' parameter of compare names {', '.join(map(repr, unknown)) or 'no measure'}; "
            f"the measures are {', '.join(several)}."
        )
    return {m: as_matrix(several[m]) for m in dict.fromkeys(wanted)}


def _labels(r: int) -> list[str]:
    """a, b, c... for up to 26 systems, else 1, 2, 3..."""
    letters = string.ascii_lowercase
    return list(letters[:r]) if r <= len(letters) else [str(i + 1) for i in range(r)]


def _pairs(M: pd.DataFrame, test: str, s: RiskSettings, n_resamples: int, seed: int | None) -> pd.DataFrame:
    """Every ordered pair (system, other): the mean difference and the two-sided p-value of the
    test, adjusted over the unordered pairs (each pair's p-value is that of the first system of
    the matrix's order against the second)."""
    values = M.to_numpy(dtype=np.float64)
    r, c = values.shape
    names = M.index.astype(str)
    p = np.full((r, r), np.nan)
    for j in range(r):
        if test == "t":
            d = values[:j] - values[j]
            mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                p[:j, j] = t_pvalue(mean / (sd / np.sqrt(c)), c - 1, "two-sided")
        elif j > 0:
            p[:j, j] = _resampled(M, names[j], test, n_resamples, seed)[:j]
    upper = np.triu_indices(r, 1)
    decisive = p[upper]
    if s.correction:
        decisive = adjust_pvalues(decisive, s.correction)
    adjusted = np.full((r, r), np.nan)
    adjusted[upper] = decisive
    p = np.fmin(p, p.T)  # the pair's p-value in both orders (NaN on the diagonal)
    adjusted = np.fmin(adjusted, adjusted.T)
    means = values.mean(axis=1)
    diff = means[:, None] - means[None, :]
    row, col = np.nonzero(~np.eye(r, dtype=bool))
    table = {
        "system": names[row],
        "other": names[col],
        "difference": diff[row, col],
        "pvalue": p[row, col],
        "pvalue_adj": adjusted[row, col],
    }
    decide = adjusted if s.correction else p
    table["better"] = (np.nan_to_num(decide[row, col], nan=1.0) < s.level) & (diff[row, col] > 0)
    frame = pd.DataFrame(table)
    return frame if s.correction else frame.drop(columns="pvalue_adj")


def _resampled(M: pd.DataFrame, other: str, test: str, n_resamples: int, seed: int | None) -> np.ndarray:
    """The p-value of each system's mean difference with ``other`` by the resampling ``test``."""
    if test == "permutation":
        t = risk_permutation_table(M, baseline=other, risk=URisk(alpha=0), n_resamples=n_resamples, rng=seed)
    else:
        t = bootstrap_ci(
            M, baseline=other, risk=URisk(alpha=0), method="bca", n_resamples=n_resamples, rng=seed
        )
    return t.set_index("system")["pvalue"].reindex(M.index).to_numpy(dtype=np.float64)


def _risk_rows(
    M: pd.DataFrame, chosen: list[RiskMeasure], s: RiskSettings, test: str, n_resamples: int, seed: int | None
) -> pd.DataFrame:
    """:func:`riskeval.risk_table` at the α of the risk columns, with the p-values of ``test``."""
    alphas = tuple(sorted({float(m.alpha) for m in chosen if m.alpha is not None})) or s.alphas
    se = next((m.se for m in chosen if isinstance(m, TRisk)), s.se)
    settings = s.replace(alphas=alphas, se=se)
    table = risk_table(M, settings=settings)
    if test != "t":
        table = with_test(table, M, test=test, settings=settings, n_resamples=n_resamples, rng=seed)
    return table


def _risk_name(r: RiskMeasure) -> str:
    """A risk column's header: the measure's declared header (``T*Risk``) at its α."""
    return f"{r.header}@{r.alpha:g}" if r.alpha is not None else r.header


def pair_summary(
    X: Any,
    a: str,
    b: str,
    alphas: Sequence[float],
    *,
    test: str = "t",
    level: float = 0.05,
    n_resamples: int = 10_000,
    rng: Any = None,
) -> pd.DataFrame:
    """The difference between runs ``a`` and ``b`` of ``X`` with its p-value and interval: the mean
    of ``a − b``, then URisk(α) of ``a`` with ``b`` as the baseline for each α (Dinçer, Macdonald &
    Ounis, SIGIR 2014, eq. 1; α = 0 is the mean difference).

    ``test="t"``: Student's paired t test (TRisk, eq. 3) and the t interval
    ``estimate ± t(1 − level/2, c − 1)·s/√c``; ``"permutation"``: the sign-flip randomisation
    test (:func:`riskeval.permutation_test`), which gives no interval; ``"bootstrap"``: the BCa
    bootstrap over topics (:func:`riskeval.bootstrap_ci`), its p-value (the interval inverted)
    and its interval.  All two-sided, at confidence ``1 − level``.  Columns: ``statistic, alpha,
    estimate, pvalue, low, high, test, level`` and, for a resampling test, ``n_resamples, seed``.
    """
    from scipy.special import stdtrit

    from riskeval.core.paired import risk_scores
    from riskeval.inference.permutation import permutation_test
    from riskeval.options import check_level

    func = "compare-runs"
    test = check_option(test, RISK_TESTS, func, "test")
    level = check_level(level, func)
    M = as_matrix(X)
    for name in (a, b):
        if name not in M.index:
            raise RiskevalError(f"{func}: no system {name!r} in the matrix.")
    seed = None
    if test != "t":
        check_n_resamples(n_resamples, func)
        seed = resolve_rng(rng, func)[1]
    grid = [0.0, *(float(x) for x in alphas)]
    delta = M.loc[a].to_numpy(dtype=np.float64) - M.loc[b].to_numpy(dtype=np.float64)
    c = delta.size
    rows = []
    if test == "bootstrap":
        boot = bootstrap_ci(
            M.loc[[a, b]],
            baseline=b,
            alphas=sorted(set(grid)),
            risk=URisk(),
            method="bca",
            n_resamples=n_resamples,
            confidence_level=1 - level,
            rng=seed,
        )
        boot = boot[boot["system"].astype(str) == a].set_index("alpha")
    for alpha in grid:
        x = risk_scores(delta, alpha)
        estimate = float(x.mean())
        if test == "t":
            se = float(x.std(ddof=1)) / np.sqrt(c)
            with np.errstate(divide="ignore", invalid="ignore"):
                p = float(t_pvalue(np.float64(estimate) / se, c - 1, "two-sided"))
            half = float(stdtrit(c - 1, 1 - level / 2)) * se
            low, high = estimate - half, estimate + half
        elif test == "permutation":
            p = permutation_test(M.loc[a], M.loc[b], alpha, n_resamples=n_resamples, rng=seed).pvalue
            low = high = np.nan
        else:
            row = boot.loc[alpha]
            p, low, high = float(row["pvalue"]), float(row["low"]), float(row["high"])
        rows.append((alpha, estimate, p, low, high))
    frame = pd.DataFrame(rows, columns=["alpha", "estimate", "pvalue", "low", "high"])
    frame.insert(0, "statistic", [f"mean {a} − {b}", *(f"URisk of {a} against {b}" for _ in alphas)])
    frame["alpha"] = [np.nan, *frame["alpha"].iloc[1:]]
    frame["test"] = test
    frame["level"] = level
    if seed is not None:
        frame["n_resamples"] = n_resamples
        frame["seed"] = seed
    return frame
