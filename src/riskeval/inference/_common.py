"""What every resampling procedure shares: the random generator and the seed it records, the checks
of ``n_resamples``, and the draws, produced block by block so that memory does not grow with the
number of resamples.

Kernels consume random numbers, they never draw them: every draw comes from one
:class:`numpy.random.Generator` here, so a result is reproduced from the seed it records.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from riskeval.errors import RiskevalError

#: Resamples per block: the draws of one block (e.g. 1,024 × c signs or topic counts) are all that
#: is held at a time.
BLOCK = 1024
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


def blocks(n: int, size: int = BLOCK) -> Iterator[int]:
    """Sizes of the consecutive blocks that make up ``n`` resamples."""
    for start in range(0, n, size):
        yield min(size, n - start)


def bootstrap_counts(rng: np.random.Generator, c: int, n: int, size: int = BLOCK) -> Iterator[np.ndarray]:
    """Blocks (≤ ``size`` × c, float64) of topic counts: each row is one bootstrap resample of the c
    topics, drawn as :func:`scipy.stats.bootstrap` draws it (``rng.integers(0, c, (block, c))``, block
    by block), so that with the same seed and ``batch=size`` both see the same resamples."""
    for m in blocks(n, size):
        idx = rng.integers(0, c, (m, c))
        flat = (idx + c * np.arange(m)[:, None]).ravel()
        yield np.bincount(flat, minlength=m * c).reshape(m, c).astype(np.float64)


def random_signs(rng: np.random.Generator, c: int, n: int, size: int = BLOCK) -> Iterator[np.ndarray]:
    """Blocks of random sign vectors (rows of ±1 as int8, each sign +1 with probability 1/2)."""
    for m in blocks(n, size):
        yield (2 * rng.integers(0, 2, (m, c), dtype=np.int8) - 1).astype(np.int8)


def all_signs(c: int, size: int = BLOCK) -> Iterator[np.ndarray]:
    """Every one of the 2^c sign vectors (int8 ±1), in blocks; the first row is all +1 (the
    identity)."""
    bits = np.arange(c, dtype=np.int64)
    for start in range(0, 2**c, size):
        k = np.arange(start, min(2**c, start + size), dtype=np.int64)
        yield (1 - 2 * ((k[:, None] >> bits) & 1)).astype(np.int8)


def mc_pvalue(count: Any, n: int) -> np.ndarray:
    """Monte Carlo p-value ``(1 + count)/(1 + n)``: the observed arrangement counts as one of the
    resamples, so p is never 0 and the test keeps its level (Phipson & Smyth, 2010)."""
    return (1.0 + np.asarray(count, dtype=np.float64)) / (1.0 + n)
