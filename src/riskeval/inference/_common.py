"""What every resampling procedure shares: the random generator and the seed it records, the checks
of ``n_resamples``, and the draws, produced block by block so that memory does not grow with the
number of resamples.

Every draw comes from one :class:`numpy.random.Generator` made from the seed, so a result is
reproduced from the seed it records: either drawn here (bootstrap counts, sign vectors) or, for the
shuffles of the randomised Tukey HSD, drawn within the kernels from a key taken from that generator
(:func:`stream_key`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from riskeval.errors import RiskevalError

#: Sign vectors per block (bit-coded, :func:`sign_words` words each): few parallel passes per test.
SIGN_BLOCK = 16384
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


def stream_key(rng: np.random.Generator) -> np.uint64:
    """The 64-bit key of the random streams that kernels draw within themselves: resample b of a
    kernel draws from its own stream of this key (:func:`riskeval.inference._kernels.stream_start`),
    so results depend on the seed only, not on the number of threads."""
    return np.uint64(rng.integers(0, 2**64, dtype=np.uint64))


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
        idx = rng.integers(0, c, (m, c))
        idx += c * np.arange(m)[:, None]  # resample b's topics counted in cells b·c … b·c + c − 1
        yield np.bincount(idx.ravel(), minlength=m * c).reshape(m, c).astype(np.float64)


def sign_words(c: int) -> int:
    """64-bit words of a sign vector of c topics: enough for c topics padded to whole groups of up
    to 8 (bit t set: topic t flipped)."""
    return (c + 7 + 63) // 64


def random_signs(rng: np.random.Generator, c: int, n: int, size: int = SIGN_BLOCK) -> Iterator[np.ndarray]:
    """Blocks of random sign vectors (B × :func:`sign_words` uint64, bit t set: topic t flipped):
    every sign is +1 or −1 with probability 1/2, independently.  The draws depend on c alone, so
    every grouping of the topics (:func:`sign_group_size`) reads the same sign vectors."""
    words = sign_words(c)
    for m in blocks(n, size):
        yield rng.integers(0, 2**64, (m, words), dtype=np.uint64)


def all_signs(c: int, size: int = SIGN_BLOCK) -> Iterator[np.ndarray]:
    """Every one of the 2^c sign vectors (c < 63), in blocks, coded as :func:`random_signs` codes
    them: the bits of 0 … 2^c − 1; the first is the identity (no topic flipped)."""
    words = sign_words(c)
    for start in range(0, 2**c, size):
        k = np.arange(start, min(2**c, start + size), dtype=np.uint64)
        block = np.zeros((k.size, words), dtype=np.uint64)
        block[:, 0] = k
        yield block


#: The largest table of signed sums (see :func:`sign_group_size`): beyond the second-level cache
#: of the machines measured, a table row costs more to fetch than an extra row costs to add.
SIGN_TABLE_BYTES = 2**21


def sign_group_size(rows: int, c: int) -> int:
    """Topics per group of the tables of signed sums of ``rows`` rows (:func:`sign_tables`): the
    largest of 8, 7, 6, 5 whose table holds at most :data:`SIGN_TABLE_BYTES`, else 4.  Fewer topics
    per group mean more rows to add per sign vector, but a table that stays in cache (the kernel on
    30 × 500: 4.3 ms with groups of 5, 8.5 ms with groups of 8)."""
    for size in range(8, 4, -1):
        if -(-c // size) * 2**size * rows * 8 <= SIGN_TABLE_BYTES:
            return size
    return 4


def sign_tables(v: np.ndarray, size: int = 8) -> np.ndarray:
    """For rows of ``v`` (r × c): ``T[g, s, i] = Σ_t ε_t(s) v[i, size·g + t]`` over the topics of
    group g, with ``ε_t(s) = −1`` where bit t of s is set, else +1 — every signed sum of each group
    of ``size`` topics (⌈c/size⌉ × 2^size × r; the last group padded with zeros).  Built by
    doubling: the codes with bit t set are those below 2^t with topic t's sign turned,
    ``T[s + 2^t] = T[s] − 2 v_t``, one vector operation per bit."""
    r, c = v.shape
    groups = -(-c // size)
    padded = np.zeros((groups, size, r))
    padded.reshape(groups * size, r)[:c] = v.T
    out = np.empty((groups, 2**size, r))
    padded.sum(axis=1, out=out[:, 0])
    for t in range(size):
        h = 1 << t
        np.subtract(out[:, :h], 2.0 * padded[:, t][:, None], out=out[:, h : 2 * h])  # in place
    return out


def mc_pvalue(count: Any, n: int) -> np.ndarray:
    """Monte Carlo p-value ``(1 + count)/(1 + n)``: the observed arrangement counts as one of the
    resamples, so p is never 0 and the test keeps its level (Phipson & Smyth, 2010)."""
    return (1.0 + np.asarray(count, dtype=np.float64)) / (1.0 + n)
