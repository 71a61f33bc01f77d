"""Exact quantiles of bootstrap distributions: from a kept distribution, or from a stream of blocks
of values that can be produced again, in memory that does not depend on the number of resamples.

A quantile follows numpy's default (linear) interpolation between two order statistics; the
order statistics are selected, never sorted.

Streamed rows (:func:`streamed_intervals`) are summarised in a first pass (count, standard error,
mid-rank counts below the estimate and below the null value, and a histogram of each row over the
range of its first block); the ranks wanted are then known, and each is located in one bin.  Later
passes regenerate the same blocks and keep only the values of those bins, among which the ranks are
selected; a bin too full to keep is divided into bins again instead, and a bin whose values are all
equal gives its value at once (Munro & Paterson, "Selection and sorting with limited storage",
*Theor. Comput. Sci.* 12(3), 1980: exact selection in a few passes with little memory).  A bin's
edges are computed the same way by every pass, and a value's bin is checked against them, so every
count is exact and so is every result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from riskeval.inference._kernels import (
    block_histograms,
    block_summaries,
    block_targets,
    order_stats,
    pick,
    select_kept,
)

#: Cells of the histograms and of the kept values, each (8 bytes a cell: 16 MiB).
_CELLS = 1 << 21
#: The most bins per histogram.
_MAX_BINS = 128
#: Standard deviations on either side of the mean that a kept distribution's histogram spans.
_GUESS_SDS = 10.0


def quantile_ranks(valid: np.ndarray, probs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, list[tuple]]:
    """The order statistics (m × 2·len(probs), from 0) that numpy's linear quantile ``p[i]`` of
    ``valid[i]`` values interpolates between: ⌊h⌋ and ⌊h⌋ + 1 with ``h = (valid − 1)·p``; and what
    :func:`interpolate` needs."""
    v = valid.astype(np.int64)
    parts = []
    for p in probs:
        h = (np.maximum(v, 1) - 1) * np.clip(np.nan_to_num(p), 0.0, 1.0)
        lo = np.floor(h).astype(np.int64)
        parts.append((p, h, lo, np.minimum(lo + 1, np.maximum(v - 1, 0))))
    ranks = np.ascontiguousarray(np.stack([x for _, _, lo, hi in parts for x in (lo, hi)], axis=1))
    return ranks, parts


def interpolate(stats: np.ndarray, parts: list[tuple], valid: np.ndarray) -> list[np.ndarray]:
    """numpy's linear interpolation between the order statistics of :func:`quantile_ranks` (columns
    of ``stats``); NaN where a row has no defined value or its probability is not finite."""
    out = []
    for n, (p, h, lo, _) in enumerate(parts):
        a, b = stats[:, 2 * n], stats[:, 2 * n + 1]
        t = h - lo
        with np.errstate(invalid="ignore"):
            q = np.where(t >= 0.5, b - (b - a) * (1.0 - t), a + (b - a) * t)  # numpy's lerp
        out.append(np.where((valid > 0) & np.isfinite(p), q, np.nan))
    return out


def quantiles(boot: np.ndarray, sums: Summaries, p1: np.ndarray, p2: np.ndarray) -> list[np.ndarray]:
    """Quantiles ``p1[i]`` and ``p2[i]`` of the defined values of row i of ``boot`` (m × B, NaN =
    undefined; ``sums`` its :func:`summaries`), with numpy's default (linear) interpolation; NaN
    where undefined.  The order statistics are selected, not sorted
    (:func:`riskeval.inference._kernels.order_stats`), by a histogram over the mean ± 10 standard
    deviations, which holds the quantiles of any distribution but the most heavy-tailed (those
    measure their range instead)."""
    ranks, parts = quantile_ranks(sums.valid, (p1, p2))
    reach = _GUESS_SDS * sums.se
    stats = pick(order_stats, boot.size)(boot, sums.valid, ranks, sums.mean - reach, sums.mean + reach)
    return interpolate(stats, parts, sums.valid)


@dataclass(frozen=True)
class Summaries:
    """Per-row summaries of a bootstrap distribution (NaN = undefined resample): the number of
    defined values, their standard deviation (ddof = 1), twice the mid-rank counts below the
    estimate and below 0, and their mean."""

    valid: np.ndarray
    se: np.ndarray
    below_est: np.ndarray
    below_null: np.ndarray
    mean: np.ndarray


def _running(m: int) -> np.ndarray:
    """Running summaries of m rows, as :func:`riskeval.inference._kernels.block_summaries` adds to
    them: count, Σd, Σd², the two mid-rank counts."""
    return np.zeros((m, 5))


def _summaries(acc: np.ndarray, estimate: np.ndarray) -> Summaries:
    v, s, ss = acc[:, 0], acc[:, 1], acc[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_off = s / v
        sd = np.where(v > 1, np.sqrt(np.maximum(ss - v * mean_off * mean_off, 0.0) / (v - 1.0)), np.nan)
    mean = np.where(np.isfinite(estimate), estimate, 0.0) + mean_off
    return Summaries(v.copy(), sd, acc[:, 3].copy(), acc[:, 4].copy(), mean)


def summaries(boot: np.ndarray, estimate: np.ndarray) -> Summaries:
    """:class:`Summaries` of the rows of a kept distribution ``boot`` (m × B)."""
    acc = _running(boot.shape[0])
    estimate = np.ascontiguousarray(estimate, dtype=np.float64)
    pick(block_summaries, boot.size)(boot, estimate, 0.0, acc)
    return _summaries(acc, estimate)


@dataclass
class _Targets:
    """Order statistics still sought: target t is rank ``rank[t]`` (from 0) among the values x of
    row ``row[t]`` with ``lo[t] ≤ x < hi[t]``, of which there are ``count[t]``; its result goes to
    position ``slot[t]`` of the flattened results."""

    slot: np.ndarray
    row: np.ndarray
    rank: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    count: np.ndarray

    def take(self, idx: np.ndarray) -> _Targets:
        return _Targets(*(getattr(self, f)[idx] for f in self.__dataclass_fields__))

    def then(self, other: _Targets) -> _Targets:
        """These targets followed by ``other``'s."""
        return _Targets(
            *(np.concatenate([getattr(self, f), getattr(other, f)]) for f in self.__dataclass_fields__)
        )


def _bin_bounds(lo: np.ndarray, w: np.ndarray, g: np.ndarray, nb: int) -> tuple[np.ndarray, np.ndarray]:
    """Interval ``[low, high)`` of bin g of :func:`riskeval.inference._kernels._bin_of` (edges
    ``lo + j·w``, computed as the kernel computes them)."""
    low = np.where(g == 0, -np.inf, lo + np.maximum(g - 1, 0).astype(np.float64) * w)
    high = np.where(g == nb + 1, np.inf, lo + g.astype(np.float64) * w)
    return low, np.where(g == 0, lo, high)


def _locate(hist: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``hist`` (counts per bin) and each rank k of that row in ``ranks``: the bin
    holding rank k (from 0), and the number of values in the bins before it."""
    m, nbins = hist.shape
    cum = np.cumsum(hist, axis=1)
    step = int(cum[:, -1].max(initial=0)) + 1
    shift = np.arange(m, dtype=np.int64)[:, None] * step
    flat = (cum + shift).ravel()  # rows one after another: still ascending
    pos = np.searchsorted(flat, ranks + shift, side="right")
    g = pos - np.arange(m, dtype=np.int64)[:, None] * nbins
    before = np.where(g > 0, flat[np.maximum(pos - 1, 0)] - shift, 0)
    return g, before


def streamed_intervals(
    blocks: Callable[[], Iterator[np.ndarray]],
    m: int,
    estimate: np.ndarray,
    probs_of: Callable[[Summaries], tuple[np.ndarray, ...]],
) -> tuple[Summaries, list[np.ndarray]]:
    """:class:`Summaries` of m streamed rows, and their quantiles at the probabilities that
    ``probs_of`` gives from those summaries (one array of m per probability array).

    ``blocks()`` yields the distribution as blocks of columns (m × b arrays, NaN = undefined), the
    same blocks each time it is called: it is called once per pass, usually twice.  Memory holds one
    block, the histograms (m rows of at most 128 bins, within 16 MiB) and the values kept (within
    16 MiB), whatever the number of resamples.
    """
    estimate = np.ascontiguousarray(estimate, dtype=np.float64)
    nb = int(max(8, min(_MAX_BINS, _CELLS // max(m, 1) - 2)))
    acc = _running(m)
    hist = np.zeros((m, nb + 2), dtype=np.int64)
    extremes = np.tile([np.inf, -np.inf], (m, 1))
    lo = w = np.zeros(m)
    for n, A in enumerate(blocks()):
        if n == 0:  # bins over the range of the first block, widened by a tenth on each side
            defined = ~np.isnan(A)
            seen = defined.any(axis=1)
            first_lo = np.where(seen, np.min(np.where(defined, A, np.inf), axis=1), 0.0)
            first_hi = np.where(seen, np.max(np.where(defined, A, -np.inf), axis=1), 0.0)
            span = first_hi - first_lo
            lo = np.ascontiguousarray(first_lo - 0.1 * span)
            w = np.ascontiguousarray(1.2 * span / nb)
        pick(block_summaries, A.size)(A, estimate, 0.0, acc)
        pick(block_histograms, A.size)(A, lo, w, hist, extremes)
    sums = _summaries(acc, estimate)
    ranks, parts = quantile_ranks(sums.valid, probs_of(sums))
    stats = np.full(ranks.shape, np.nan)
    has = np.flatnonzero(sums.valid > 0)
    g, before = _locate(hist[has], ranks[has])
    low, high = _bin_bounds(lo[has, None], w[has, None], g, nb)
    k = ranks.shape[1]
    targets = _Targets(
        (has[:, None] * k + np.arange(k)).ravel(),
        np.repeat(has, k),
        (ranks[has] - before).ravel(),
        low.ravel(),
        high.ravel(),
        np.take_along_axis(hist[has], g, axis=1).ravel(),
    )
    while targets.slot.size:
        slots, values, targets = _pass(blocks, m, nb, targets, extremes[:, 0], extremes[:, 1])
        stats.ravel()[slots] = values
    return sums, interpolate(stats, parts, sums.valid)


def _pass(
    blocks: Callable[[], Iterator[np.ndarray]],
    m: int,
    nb: int,
    tg: _Targets,
    row_min: np.ndarray,
    row_max: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, _Targets]:
    """One more pass over the blocks.  Targets whose values fit in memory keep them and are selected
    among them; others are binned again (as many as the histogram memory allows) and narrowed to
    the bin of their rank; a target whose values are all equal is that value.  Targets of the same
    row and interval share one look at the values.  Returns the slots and values of the targets
    resolved, and the targets left."""
    tg = tg.take(np.lexsort((tg.hi, tg.lo, tg.row)))
    n_t = tg.slot.size
    idx = np.arange(n_t)
    dup = np.zeros(n_t, dtype=bool)
    dup[1:] = (tg.row[1:] == tg.row[:-1]) & (tg.lo[1:] == tg.lo[:-1]) & (tg.hi[1:] == tg.hi[:-1])
    lead = np.maximum.accumulate(np.where(dup, 0, idx))
    sub_lo = np.maximum(tg.lo, row_min[tg.row])
    sub_w = (np.minimum(tg.hi, row_max[tg.row]) - sub_lo) / nb
    # a span too narrow to divide (below nb of the smallest subnormal) is kept whatever its size
    fits = (tg.count <= _CELLS) | ~(sub_w > 0)
    kept = np.cumsum(np.where(fits & ~dup, tg.count, 0))
    keep = fits & (kept[lead] <= _CELLS)
    if fits.any() and not keep.any():  # one at least, so that every pass makes progress
        keep |= lead == lead[np.argmax(fits)]
    split = np.flatnonzero(~fits)
    split = split[np.cumsum(~dup[split]) <= max(1, _CELLS // (nb + 2))]
    mode = np.zeros(n_t, dtype=np.int64)
    offset = np.zeros(n_t, dtype=np.int64)
    mode[keep] = 1
    lead_keep = keep & ~dup
    offset[lead_keep] = np.cumsum(tg.count[lead_keep]) - tg.count[lead_keep]
    mode[split] = 2
    offset[split] = np.cumsum(~dup[split]) - 1
    offset = offset[lead]
    sub_w = np.where(mode[lead] == 2, sub_w, 0.0)  # duplicates too, for their bins' bounds
    sub = np.zeros((max(int(offset[split].max(initial=0)) + 1, 1), nb + 2), dtype=np.int64)
    look = np.where(dup, -1, mode)  # the kernel skips duplicates
    buf = np.empty(int(tg.count[lead_keep].sum()))
    fill = np.zeros(n_t, dtype=np.int64)
    t_min, t_max = np.full(n_t, np.inf), np.full(n_t, -np.inf)
    first = np.searchsorted(tg.row, np.arange(m + 1)).astype(np.int64)
    for A in blocks():
        pick(block_targets, A.size)(
            A, first, tg.lo, tg.hi, look, offset, fill, t_min, t_max, buf, sub_lo, sub_w, sub
        )
    t_min, t_max = t_min[lead], t_max[lead]
    tied = t_min == t_max  # every value of the interval the same
    done = keep | tied
    values = np.where(tied, t_min, np.nan)
    chosen = np.flatnonzero(keep & ~tied)
    picked = np.empty(chosen.size)
    select_kept(buf, offset[chosen], tg.count[chosen], tg.rank[chosen], picked)
    values[chosen] = picked
    refine = split[~tied[split]]
    g, before = _locate(sub[offset[refine]], tg.rank[refine][:, None])
    low, high = _bin_bounds(sub_lo[refine, None], sub_w[refine, None], g, nb)
    narrowed = _Targets(
        tg.slot[refine],
        tg.row[refine],
        tg.rank[refine] - before[:, 0],
        np.maximum(low[:, 0], tg.lo[refine]),
        np.minimum(high[:, 0], tg.hi[refine]),
        np.take_along_axis(sub[offset[refine]], g, axis=1)[:, 0],
    )
    left = tg.take(np.flatnonzero(~done & (mode != 2)))
    return tg.slot[done], values[done], narrowed.then(left)
