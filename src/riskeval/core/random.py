"""A counter-based random generator for compiled resampling kernels: draw i of stream s under a key
is a fixed function of (key, s, i), so each resample's draws do not depend on which thread computes
it, and a seeded result is reproduced on any machine and with any number of threads.

The generator is splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014): the state of a stream advances by a fixed odd increment γ (a Weyl sequence) and each
output is a bijective 64-bit mix of the state.  Stream s of key k starts at ``mix(k ⊕ mix((s + 1)·γ))``,
so streams of one key, and keys, start at unrelated points.  Bounded integers follow Lemire's
multiply-and-reject method ("Fast random integer generation in an interval", ACM TOMACS 29(1), 2019):
the high 32 bits w of an output give ``⌊w·n/2³²⌋``, and w is drawn again when ``w·n mod 2³²`` falls
below ``2³² mod n``, which leaves every value in [0, n) exactly ⌊2³²/n⌋ words: the integers are
exactly uniform for a uniform generator (bounds below 2³²).

The functions are numba-compiled and inline into the kernels that call them.  From Python they take
``numpy.uint64`` words (a stream's state is one word; a Python int above 2⁶³ would not convert),
and ``mix64.py_func`` works on whole ``uint64`` arrays.
"""

from __future__ import annotations

import numpy as np

from riskeval.core._numba import njit

#: The Weyl increment γ of splitmix64 (the odd integer closest to 2⁶⁴/φ) and the two multipliers of
#: its output mix (Steele, Lea & Flood, 2014).
GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(inline="always")
def mix64(z):
    """The splitmix64 output function: a bijective avalanche of a 64-bit word."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def stream_start(key, stream):
    """State of stream ``stream`` (an integer ≥ 0, e.g. the resample's number) under ``key``."""
    return mix64(np.uint64(key) ^ mix64((np.uint64(stream) + np.uint64(1)) * GAMMA))


@njit(inline="always")
def next_u64(state):
    """The next output of a stream and the stream's next state: ``(mix(s + γ), s + γ)``."""
    state = np.uint64(state) + GAMMA
    return mix64(state), state


@njit(inline="always")
def bounded(state, n):
    """A uniform integer in [0, n) for 1 ≤ n < 2³², and the stream's next state (Lemire, 2019):
    ``⌊w·n/2³²⌋`` of the high 32 bits w of an output, another output while ``w·n mod 2³²`` is below
    ``2³² mod n`` (computed only when ``w·n mod 2³² < n``, about once in 2³²/n draws)."""
    bound = np.uint64(n)
    u, state = next_u64(state)
    product = (u >> np.uint64(32)) * bound
    if (product & _LOW32) < bound:
        threshold = (_TWO32 - bound) % bound
        while (product & _LOW32) < threshold:
            u, state = next_u64(state)
            product = (u >> np.uint64(32)) * bound
    return product >> np.uint64(32), state


def stream_key(rng: np.random.Generator) -> np.uint64:
    """The 64-bit key of the streams that a kernel draws from, taken from a seeded generator: with
    the same seed, the same key and so the same draws."""
    return np.uint64(rng.integers(0, 2**64, dtype=np.uint64))


__all__ = ["GAMMA", "bounded", "mix64", "next_u64", "stream_key", "stream_start"]
