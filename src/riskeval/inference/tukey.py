"""Randomised Tukey HSD over many systems (Carterette, ACM TOIS 30(1), 2012): every pair of
systems compared at once, the family-wise error rate controlled.

Under H0 the systems are exchangeable within each topic: a resample shuffles, independently in
every topic, the scores across the systems, and records the range ``max_i m_i − min_i m_i`` of the
systems' means.  The family-wise p-value of a pair is the share of resamples whose range reaches
the pair's observed ``|m_a − m_b|``; the pairwise p-value is the share whose own difference
``|m_a − m_b|`` (the same two positions, the same shuffles) does.  A pair's difference is never
larger than the range, so the family-wise p-value is never below the pairwise one.

On risk-reward scores (``baseline`` given) the scores shuffled are each system's x_ij(α) against the
baseline (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 3), and the means compared are URisk(α).
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import pandas as pd

from riskeval import _display
from riskeval.core._numba import njit, prange
from riskeval.core.paired import paired_sums, risk_scores, topic_major
from riskeval.core.random import bounded, stream_key, stream_start
from riskeval.errors import RiskevalError
from riskeval.inference._common import TOL, check_n_resamples, mc_pvalue, on_risk_scores, resolve_rng
from riskeval.measures.baselines import resolve_baseline
from riskeval.measures.declared import URisk, risk_measures
from riskeval.model.matrix import as_matrix
from riskeval.options import check_alpha
from riskeval.settings import RiskSettings, resolve_settings


@njit(cache=True)
def shuffled_means(Yt, key, b, perm, means):
    """The systems' means (to ``means``) after resample ``b`` of ``key`` has shuffled each topic's
    scores (rows of ``Yt``, c × r) across the systems; ``perm`` is work space for r values.

    Each topic is shuffled by Fisher–Yates run inside out (Knuth, TAOCP vol. 2, §3.4.2, Algorithm
    P; Durstenfeld, CACM 7(7), 1964): for i = 1 … r − 1 the score of system i goes to a uniform
    position k ≤ i (:func:`riskeval.core.random.bounded` with bound i + 1, from the resample's own
    stream), the score there to i.  Topics are taken in order, all from one stream.
    """
    c, r = Yt.shape
    state = stream_start(key, b)
    means[:] = 0.0
    for j in range(c):
        row = Yt[j]
        perm[0] = row[0]
        for i in range(1, r):
            k, state = bounded(state, i + 1)
            perm[i] = perm[k]
            perm[k] = row[i]
        for i in range(r):
            means[i] += perm[i]
    for i in range(r):
        means[i] /= c


@njit(parallel=True, cache=True)
def tukey_counts(Yt, key, n, threshold, cuts, runs):
    """Randomised Tukey HSD counts over the resamples 0 … n − 1 of ``key``.

    For each resample, the means after the shuffle (:func:`shuffled_means`); for every pair i < k
    (in ``numpy.triu_indices`` order), whether ``|m_i − m_k| ≥ threshold[p]`` (counted); and the
    range ``max − min`` of the means, placed among the ascending ``cuts`` (``hist[q]``: resamples
    with exactly q cuts at or below their range).  Resamples are dealt out to ``runs`` runs (one
    per thread), each with its own integer counts (r(r − 1)/2 + len(cuts) + 1 of them), summed at
    the end: every resample's draws depend on ``key`` and its number alone, so the counts do not
    depend on ``runs`` nor on the number of threads.
    """
    c, r = Yt.shape
    pairs = np.zeros((runs, threshold.size), dtype=np.int64)
    hist = np.zeros((runs, cuts.size + 1), dtype=np.int64)
    for g in prange(runs):
        perm = np.empty(r)
        means = np.empty(r)
        count = pairs[g]
        for b in range(g, n, runs):
            shuffled_means(Yt, key, b, perm, means)
            hist[g, np.searchsorted(cuts, means.max() - means.min(), side="right")] += 1
            p = 0  # pairs (i, i + 1 … r − 1) are p … p + r − i − 2
            for i in range(r - 1):
                m = r - i - 1
                others, reach, hits = means[i + 1 :], threshold[p : p + m], count[p : p + m]
                for q in range(m):
                    hits[q] += abs(means[i] - others[q]) >= reach[q]
                p += m
    return pairs.sum(axis=0), hist.sum(axis=0)


@njit(cache=True)
def pair_effect_sizes(Y):
    """Mean over standard deviation (ddof = 1) of the per-topic differences ``Y[i] − Y[k]`` of every
    pair i < k of rows of ``Y`` (r × c), in ``numpy.triu_indices(r, 1)`` order; NaN where the
    differences do not vary.  Two passes per pair, as ``numpy.std`` computes it."""
    r, c = Y.shape
    out = np.empty(r * (r - 1) // 2)
    p = 0
    for i in range(r - 1):
        for k in range(i + 1, r):
            s = 0.0
            for j in range(c):
                s += Y[i, j] - Y[k, j]
            mean = s / c
            ss = 0.0
            for j in range(c):
                d = Y[i, j] - Y[k, j] - mean
                ss += d * d
            sd = math.sqrt(ss / (c - 1)) if c > 1 else np.nan
            out[p] = mean / sd if sd > 0 else np.nan
            p += 1
    return out


@dataclass(frozen=True)
class TukeyHSDResult:
    """Randomised Tukey HSD of every pair of systems.

    Attributes
    ----------
    table : DataFrame
        One row per pair (a before b in matrix order): ``system_a, system_b, mean_a, mean_b,
        difference`` (mean_a − mean_b; on risk-reward scores ``urisk_a, urisk_b`` in place of
        ``mean_a, mean_b``, their means being URisk(α)), ``effect_size`` (the mean per-topic
        difference over its standard deviation, ddof = 1), ``pvalue`` (pairwise randomisation
        p-value), ``pvalue_hsd`` (family-wise, Tukey HSD), ``significant`` (``pvalue_hsd <
        level``), ``alpha, baseline, n_resamples, seed``.
    letters : DataFrame
        The compact letter display: one row per system, best mean first: ``system, mean,
        letters`` (``urisk`` in place of ``mean`` on risk-reward scores); two systems share a
        letter exactly when their difference is not significant at ``level`` (family-wise).
    alpha : float
        The risk-aversion parameter α (0 on effectiveness scores).
    baseline : str or None
        The baseline of the risk-reward scores, None for effectiveness scores.
    level : float
        Family-wise significance level of ``significant`` and the letters.
    n_resamples : int
    seed : int
        Seed of the shuffles: ``rng=seed`` reproduces the result.
    """

    table: pd.DataFrame
    letters: pd.DataFrame
    alpha: float
    baseline: str | None
    level: float
    n_resamples: int
    seed: int

    def _facts(self) -> list[str]:
        scores = (
            f"risk-reward scores, α = {self.alpha:g}, baseline {self.baseline}"
            if self.baseline is not None
            else "effectiveness scores"
        )
        return [
            f"{len(self.letters)} systems, {len(self.table)} pairs, "
            f"{int(self.table['significant'].sum())} significant at level {self.level:g} (family-wise)",
            scores,
            f"{self.n_resamples:,} resamples, seed {self.seed}",
        ]

    def __repr__(self) -> str:
        return f"<TukeyHSDResult: {'; '.join(self._facts())}>"

    def _repr_html_(self) -> str:
        return _display.block(
            "Randomised Tukey HSD",
            self._facts(),
            [
                (
                    "Compact letter display: systems that share a letter do not differ",
                    self.letters.set_index("system"),
                )
            ],
            note="table holds every pair.",
        )


def _letter(k: int) -> str:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    return alphabet[k] if k < len(alphabet) else f"{alphabet[k % len(alphabet)]}{k // len(alphabet)}"


def compact_letters(means: np.ndarray, significant: np.ndarray) -> list[str]:
    """Letters per system such that two systems share a letter iff they are not significantly
    different.

    ``significant`` is an r × r boolean matrix (symmetric).  The letters are the maximal groups of
    systems in which no two differ significantly: the maximal cliques of the graph linking the pairs
    that do not differ, the display of Piepho's insert-and-absorb algorithm (J. Comput. Graph. Stat.
    13(2), 2004), found here by Bron & Kerbosch's enumeration (CACM 16(9), 1973) with Tomita,
    Tanaka & Takahashi's pivot (Theor. Comput. Sci. 363(1), 2006).  Systems are ranked by mean,
    best first (ties in matrix order), and the groups are lettered in the order of their members'
    ranks, compared best first: the best system gets "a".
    """
    r = means.size
    order = np.argsort(-means, kind="stable")  # bit v of a group: the system ranked v
    close = ~significant[np.ix_(order, order)]
    np.fill_diagonal(close, False)
    adjacent = [_mask(row) for row in close]
    # A system that differs from no other is in every group: the groups are those of the others,
    # each with all such systems added.
    everywhere = _mask(close.sum(axis=1) == r - 1)
    # Bron–Kerbosch over bitmasks, with a stack instead of recursion: each entry is a clique
    # (members), the systems that may extend it (candidates) and those that would extend it but
    # whose cliques were listed already (excluded); a clique is maximal when neither remains.
    groups = []
    stack = [(everywhere, ((1 << r) - 1) & ~everywhere, 0)]
    while stack:
        members, candidates, excluded = stack.pop()
        if not candidates:
            if not excluded:
                groups.append(members)
            continue
        pivot = max(_bits(candidates | excluded), key=lambda u: (candidates & adjacent[u]).bit_count())
        for v in _bits(candidates & ~adjacent[pivot]):  # the mask as it is here, not as the loop changes it
            stack.append((members | 1 << v, candidates & adjacent[v], excluded & adjacent[v]))
            candidates &= ~(1 << v)
            excluded |= 1 << v
    ranked = sorted(list(_bits(g)) for g in groups)
    out = [""] * r
    for n, group in enumerate(ranked):
        for v in group:
            out[order[v]] += _letter(n)
    return out


def _mask(flags: np.ndarray) -> int:
    """The boolean vector ``flags`` as a bitmask: bit v set where ``flags[v]``."""
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


def _bits(mask: int) -> Iterator[int]:
    """Positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def tukey_hsd(
    X: Any,
    baseline: Any = None,
    alpha: float | None = None,
    *,
    risk: Any = None,
    settings: RiskSettings | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    level: float | None = None,
    leave_one_out: bool | None = None,
) -> TukeyHSDResult:
    """Randomised Tukey HSD of all pairs of systems (Carterette, TOIS 2012).

    Every pair is compared two-sided: the HSD refers each pair's ``|m_a − m_b|`` to the
    distribution of the range ``max − min`` of the means (the studentised range), which has no
    one-sided form, so there is no ``alternative`` parameter (nor has
    :func:`scipy.stats.tukey_hsd`).  For a one-sided question about one system, use
    :func:`riskeval.permutation_test` or :func:`riskeval.risk_permutation_table`.

    Parameters
    ----------
    X : DataFrame, systems × topics
        The score matrix (at least two systems).
    baseline : None, str, Series or vector
        None, with neither ``risk`` nor ``settings``: compare the systems' effectiveness (mean
        scores).  Otherwise compare their URisk(α) against this baseline ("mean", "median", "max",
        a system name or per-topic scores; default the settings'), by shuffling the risk-reward
        scores x_ij(α).
    alpha : float, default 0
        Risk aversion α of the risk-reward scores; needs a baseline when not 0.
    risk : URisk, an object or its text
        The measure compared, e.g. ``riskeval.URisk(alpha=5)`` or ``"URisk@5"``: its α if it has
        one, else ``alpha``; against ``baseline`` (default the settings').  The HSD compares the
        means of the risk-reward scores (URisk, the same bits as :func:`riskeval.risk_table`'s), so
        it takes the declared measures of those scores (``of_risk_scores``: URisk, TRisk) and
        refuses the others with the reason.
    settings : :class:`riskeval.RiskSettings`
        Baseline, level and leave-one-out in one object; the keywords given here override it.
    n_resamples : int, default 10,000
        Shuffles of the matrix (each topic shuffled independently).
    rng : int, None or numpy.random.Generator
        Seed or generator; the seed used is recorded.
    level : float
        Family-wise significance level of ``significant`` and of the letter display; default the
        settings' (0.05).
    leave_one_out : bool
        Aggregate baselines leave the evaluated system out; default the settings' (False).

    Returns
    -------
    TukeyHSDResult
        ``table`` (one row per pair) and ``letters`` (compact letter display).
    """
    func = "tukey_hsd"
    on_risk = baseline is not None or risk is not None or settings is not None
    s = resolve_settings(settings, func, baseline=baseline, level=level, leave_one_out=leave_one_out)
    if risk is not None:
        measures = risk_measures(risk, func)
        if len(measures) != 1:
            raise RiskevalError(
                f"The 'risk' parameter of {func} names one risk measure: the HSD compares the "
                f"systems' mean risk-reward scores. Got {', '.join(map(str, measures))}."
            )
        on_risk_scores(measures[0], func, "the HSD")
        if measures[0].alpha is not None:
            if alpha is not None and float(alpha) != measures[0].alpha:
                raise RiskevalError(
                    f"{func}: the 'alpha' parameter ({alpha!r}) differs from the α of "
                    f"risk={measures[0]}; give one of them."
                )
            alpha = measures[0].alpha
    M = as_matrix(X)
    alpha = check_alpha(0.0 if alpha is None else alpha, func)
    n = check_n_resamples(n_resamples, func)
    gen, seed = resolve_rng(rng, func)
    r, c = M.shape
    if r < 2:
        raise RiskevalError(f"{func} needs at least two systems; the matrix has {r}.")
    values = M.to_numpy()
    name: str | None = None
    if not on_risk:
        if alpha != 0.0:
            raise RiskevalError(
                f"The 'alpha' parameter of {func} needs a 'baseline': risk-reward scores are against "
                f"a baseline. Got alpha={alpha!r} with baseline=None."
            )
        Y = values
        means = Y.mean(axis=1)
    else:
        rb = resolve_baseline(M, s.baseline, func, leave_one_out=s.leave_one_out)
        name = rb.name
        Y = risk_scores(values - rb.values, alpha)
        # the mean of x_ij(α) over the topics is URisk(α): from the same sums as risk_table's
        means = URisk().value(paired_sums(values, rb.values), alpha)
    held = URisk.column if on_risk else "mean"
    iu, ku = np.triu_indices(r, 1)
    threshold = np.abs(means[iu] - means[ku]) - TOL * max(1.0, float(np.abs(Y).max()))
    Yt = np.ascontiguousarray(topic_major(Y))
    cuts = np.unique(threshold)  # ascending: a resample's range is placed among them
    count_pair, hist = tukey_counts(Yt, stream_key(gen), n, threshold, cuts, numba.get_num_threads())
    # resamples whose range reaches cut q: those with more than q cuts at or below their range
    reach = n - np.cumsum(hist)[:-1]
    count_range = reach[np.searchsorted(cuts, threshold)]
    p_pair = mc_pvalue(count_pair, n)
    p_hsd = mc_pvalue(count_range, n)
    effect = pair_effect_sizes(np.ascontiguousarray(Y, dtype=np.float64))
    labels = M.index.to_numpy()
    table = pd.DataFrame(
        {
            "system_a": labels[iu],
            "system_b": labels[ku],
            f"{held}_a": means[iu],
            f"{held}_b": means[ku],
            "difference": means[iu] - means[ku],
            "effect_size": effect,
            "pvalue": p_pair,
            "pvalue_hsd": p_hsd,
            "significant": p_hsd < s.level,
            "alpha": alpha,
            "baseline": name,
            "n_resamples": n,
            "seed": seed,
        }
    )
    sig = np.zeros((r, r), dtype=bool)
    sig[iu, ku] = p_hsd < s.level
    sig |= sig.T
    order = np.argsort(-means, kind="stable")
    letters = compact_letters(means, sig)
    display = pd.DataFrame(
        {"system": labels[order], held: means[order], "letters": [letters[i] for i in order]}
    )
    return TukeyHSDResult(table, display, alpha, name, s.level, n, seed)
