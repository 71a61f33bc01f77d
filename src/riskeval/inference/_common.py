"""What every resampling procedure shares: the random generator and the seed it records, the checks
of ``n_resamples`` and of the risk measures a test on risk-reward scores takes, and the draws,
produced block by block so that memory does not grow with the number of resamples.

Every draw comes from one :class:`numpy.random.Generator` made from the seed, so a result is
reproduced from the seed it records: either drawn here (bootstrap counts, sign vectors) or, for the
shuffles of the randomised Tukey HSD, drawn within the kernel from a key taken from that generator
(:func:`riskeval.core.random.stream_key`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from riskeval.core._numba import njit
from riskeval.errors import RiskevalError
from riskeval.measures.declared import RISK_MEASURES, RiskMeasure
from riskeval.options import MAX_RESAMPLES, RESAMPLES_REASON

#: Tolerance of the "at least as extreme" comparisons, on statistics scaled to [0, 1]: rounding
#: must not turn a tie with the observed value into a miss.
TOL = 1e-12


def on_risk_scores(measure: RiskMeasure, func: str, procedure: str) -> RiskMeasure:
    """``measure`` if ``procedure``, which resamples the risk-reward scores x_j(α) of each system
    against one baseline, tests it: a measure declared an increasing function of their mean
    (:attr:`RiskMeasure.of_risk_scores`) against the baseline.  Any other is refused, naming the
    measure, the reason and what to use instead."""
    if measure.of_risk_scores and measure.needs == "baseline":
        return measure
    takes = [cls.name for cls in RISK_MEASURES.values() if cls.of_risk_scores and cls.needs == "baseline"]
    if measure.of_risk_scores:
        why = (
            f"{measure.header} is against the per-topic MEAN of every system, not the one baseline "
            f"{procedure} compares with: give baseline='mean' and risk={takes[-1]!r}."
        )
    else:
        what = (
            f"{measure.name} compares each system with every other, not with one baseline, and is"
            if measure.needs == "matrix"
            else f"{measure.name} is"
        )
        why = (
            f"{what} not a function of the mean risk-reward score, which {procedure} resamples; "
            "test it with the bootstrap (riskeval.bootstrap_ci, riskeval.inference.bootstrap_difference)."
        )
    raise RiskevalError(
        f"The 'risk' parameter of {func} must be {' or '.join(takes)} (an object or its text). "
        f"Got {measure}. {why}"
    )


def resolve_rng(rng: Any, func: str, name: str = "rng") -> tuple[np.random.Generator, int]:
    """A fresh generator and the seed that reproduces it.

    ``rng`` is an int (the seed), None (a seed drawn from the operating system's entropy) or a
    :class:`numpy.random.Generator` (a seed drawn from it).  The returned seed is what results
    record: passing it back as ``rng`` gives the same resamples.
    """
    if rng is None:
        seed = int(np.random.default_rng().integers(2**63))
    elif isinstance(rng, np.random.Generator):
        seed = int(rng.integers(2**63))
    elif isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        seed = int(rng)
    else:
        raise RiskevalError(
            f"The '{name}' parameter of {func} must be a non-negative int, None or a "
            f"numpy.random.Generator. Got {rng!r}."
        )
    return np.random.default_rng(seed), seed


def check_n_resamples(n: Any, func: str, minimum: int = 1) -> int:
    """A number of resamples: an integer from ``minimum`` to :data:`~riskeval.options.MAX_RESAMPLES`
    (the message of a larger one says why, and what to choose)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise RiskevalError(
            f"The 'n_resamples' parameter of {func} must be an integer >= {minimum}. Got {n!r}."
        )
    if n > MAX_RESAMPLES:
        raise RiskevalError(
            f"The 'n_resamples' parameter of {func} must be at most {MAX_RESAMPLES:,}. Got {n!r}. "
            f"{RESAMPLES_REASON}"
        )
    return int(n)


def blocks(n: int, size: int) -> Iterator[int]:
    """Sizes of the consecutive blocks that make up ``n`` resamples."""
    for start in range(0, n, size):
        yield min(size, n - start)


def check_batch(batch: Any, func: str) -> int | None:
    """A number of resamples computed at a time: a positive integer, or None (all at once)."""
    if batch is None:
        return None
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise RiskevalError(
            f"The 'batch' parameter of {func} must be a positive integer or None. Got {batch!r}."
        )
    return int(batch)


def bootstrap_counts(rng: np.random.Generator, c: int, n: int, batch: int | None) -> Iterator[np.ndarray]:
    """Blocks of at most ``batch`` × c topic counts (float64; None: all n at once): each row is one
    bootstrap resample of the c topics, drawn as :func:`scipy.stats.bootstrap` draws it
    (``rng.integers(0, c, (batch, c))``, batch by batch).  The generator's stream of indices does not
    depend on how it is cut into batches, so neither do the resamples."""
    for m in blocks(n, n if batch is None else batch):
        yield _counts(rng.integers(0, c, (m, c)))


@njit(cache=True)
def _counts(idx):
    """Row b counts how many times each topic 0 … c − 1 appears in row b of ``idx`` (m × c)."""
    out = np.zeros(idx.shape)
    for b in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[b, idx[b, j]] += 1.0
    return out


def random_signs(rng: np.random.Generator, c: int, n: int, size: int) -> Iterator[np.ndarray]:
    """Blocks of at most ``size`` random sign vectors (rows of ±1.0, c columns): every sign is +1 or
    −1 with probability 1/2, independently.  Drawn as 64-bit words, one word per 64 topics (bit t
    of word w set: topic 64w + t flipped), so a seed gives the same sign vectors whatever the
    block size."""
    words = (c + 63) // 64
    for m in blocks(n, size):
        draws = rng.integers(0, 2**64, (m, words), dtype=np.uint64)
        yield _as_signs(draws.astype("<u8").view(np.uint8), c)


def all_signs(c: int, size: int) -> Iterator[np.ndarray]:
    """Every one of the 2^c sign vectors (c < 63), in blocks of at most ``size``: the bits of
    0 … 2^c − 1 (bit t set: topic t flipped), coded as :func:`random_signs` codes them; the first
    is the identity (no topic flipped)."""
    for start in range(0, 2**c, size):
        k = np.arange(start, min(2**c, start + size), dtype="<u8")
        yield _as_signs(k[:, None].view(np.uint8), c)


def _as_signs(octets: np.ndarray, c: int) -> np.ndarray:
    """Sign vectors from their bits (rows of little-endian bytes, bit t: topic t flipped): the
    first c bits of each row as ±1.0."""
    bits = np.unpackbits(octets, axis=1, count=c, bitorder="little")
    return 1.0 - 2.0 * bits


def mc_pvalue(count: Any, n: int) -> np.ndarray:
    """Monte Carlo p-value ``(1 + count)/(1 + n)``: the observed arrangement counts as one of the
    resamples, so p is never 0 and the test keeps its level (Phipson & Smyth, 2010)."""
    return (1.0 + np.asarray(count, dtype=np.float64)) / (1.0 + n)
