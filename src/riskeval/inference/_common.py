"""What every resampling procedure shares: the random generator and the seed it records, the checks
of ``n_resamples``, and the draws, produced block by block so that memory does not grow with the
number of resamples.

Every draw comes from one :class:`numpy.random.Generator` made from the seed, so a result is
reproduced from the seed it records: either drawn here (bootstrap counts, sign vectors) or, for the
shuffles of the randomised Tukey HSD, drawn within the kernel from a key taken from that generator
(:func:`riskeval.core.random.stream_key`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from riskeval.errors import RiskevalError

#: Topic counts held at a time by the bootstrap (float64: 8 MiB); see :func:`bootstrap_block`.
COUNTS = 2**20
#: Tolerance of the "at least as extreme" comparisons, on statistics scaled to [0, 1]: rounding
#: must not turn a tie with the observed value into a miss.
TOL = 1e-12


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
    """A number of resamples: an integer ≥ ``minimum``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise RiskevalError(
            f"The 'n_resamples' parameter of {func} must be an integer >= {minimum}. Got {n!r}."
        )
    return int(n)


def blocks(n: int, size: int) -> Iterator[int]:
    """Sizes of the consecutive blocks that make up ``n`` resamples."""
    for start in range(0, n, size):
        yield min(size, n - start)


def bootstrap_block(c: int) -> int:
    """Bootstrap resamples per block for c topics: ⌊2^20/c⌋ within [256, 2048], so a block of
    counts stays within 8 MiB (for c ≤ 4096), the per-block work arrays (resamples × systems) stay
    small, and a run makes few parallel passes."""
    return max(256, min(2048, COUNTS // max(1, c)))


def bootstrap_counts(rng: np.random.Generator, c: int, n: int) -> Iterator[np.ndarray]:
    """Blocks (:func:`bootstrap_block` × c, float64) of topic counts: each row is one bootstrap
    resample of the c topics, drawn as :func:`scipy.stats.bootstrap` draws it
    (``rng.integers(0, c, (block, c))``, block by block), so that with the same seed and
    ``batch=bootstrap_block(c)`` both see the same resamples."""
    for m in blocks(n, bootstrap_block(c)):
        idx = rng.integers(0, c, (m, c))
        flat = (idx + c * np.arange(m)[:, None]).ravel()
        yield np.bincount(flat, minlength=m * c).reshape(m, c).astype(np.float64)


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
