"""The counter-based generator of the compiled kernels: splitmix64 against its published reference
values, streams that depend on (key, stream) alone, and bounded integers that are uniform and
independent (chi-square tests at level 10⁻³, so a correct generator fails one of them about once in
a thousand runs of each; the draws are fixed by their keys, so the outcome is too)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from riskeval.core.random import GAMMA, bounded, mix64, next_u64, stream_key, stream_start


def draws(key: int, stream: int, n: int, bound: int) -> np.ndarray:
    """The first n bounded integers of one stream, drawn one by one as a kernel draws them."""
    state = stream_start(np.uint64(key), stream)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        value, state = bounded(np.uint64(state), bound)
        out[i] = value
    return out


def test_splitmix64_equals_numbas_own():
    """Each output is splitmix64 of the state: numba's xoroshiro128+ seeding
    (``numba.cuda.random.init_xoroshiro128p_state``, Vigna's splitmix64.c, runs on the CPU) gives
    the same word for the state before it; seeded with 1234567 the first word is
    6457827717110365317, and ``mix64`` works on whole arrays too."""
    from numba.cuda.random import init_xoroshiro128p_state, xoroshiro128p_dtype

    ref = np.zeros(1, dtype=xoroshiro128p_dtype)
    state = np.uint64(1234567)
    for _ in range(5):
        init_xoroshiro128p_state(ref, 0, np.uint64(state))
        value, state = next_u64(np.uint64(state))
        assert value == ref[0]["s0"]
    assert next_u64(np.uint64(1234567))[0] == 6457827717110365317
    words = np.arange(1, 1000, dtype=np.uint64) * GAMMA
    np.testing.assert_array_equal(mix64.py_func(words), [mix64(w) for w in words])


def test_streams_depend_on_key_and_stream_only():
    a = draws(7, 3, 50, 1000)
    np.testing.assert_array_equal(a, draws(7, 3, 50, 1000))
    assert not np.array_equal(a, draws(7, 4, 50, 1000))
    assert not np.array_equal(a, draws(8, 3, 50, 1000))
    # the key comes from the seeded generator: same seed, same key
    assert stream_key(np.random.default_rng(5)) == stream_key(np.random.default_rng(5))
    # stream starts are a bijection of the stream number for a key: no two streams coincide
    starts = {int(stream_start(np.uint64(11), s)) for s in range(20_000)}
    assert len(starts) == 20_000


@pytest.mark.parametrize("bound", [1, 2, 3, 7, 10, 100])
def test_bounded_integers_are_uniform(bound: int):
    x = draws(2024, 0, 30_000, bound)
    assert x.min() >= 0 and x.max() < bound
    if bound > 1:
        assert stats.chisquare(np.bincount(x, minlength=bound)).pvalue > 1e-3


def test_bounded_rejects_exactly_the_low_words():
    """A bound just above 2³¹ rejects almost half the words (those whose ``w·n mod 2³²`` is below
    ``2³² mod n``): the values kept stay uniform over the two halves of [0, n)."""
    n = 2**31 + 12345
    x = draws(99, 1, 20_000, n)
    assert x.max() < n
    assert stats.chisquare(np.bincount(x >= n // 2, minlength=2)).pvalue > 1e-3


def test_draws_are_independent_within_and_across_streams():
    """Consecutive draws of a stream, and the same draw of consecutive streams, are independent:
    the 7 × 7 table of pairs is uniform."""
    x = draws(31337, 0, 49_000, 7)
    within = np.bincount(x[0::2] * 7 + x[1::2], minlength=49)
    assert stats.chisquare(within).pvalue > 1e-3
    first = np.array([draws(31337, s, 1, 7)[0] for s in range(24_500)])
    across = np.bincount(first[0::2] * 7 + first[1::2], minlength=49)
    assert stats.chisquare(across).pvalue > 1e-3


# An independent splitmix64 and Lemire bounded draw on Python integers (Steele, Lea & Flood 2014;
# Lemire 2019, Algorithm 5): every word and every bounded draw of the kernels equals it.
_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _reference_draws(key: int, stream: int, n: int, bound: int) -> tuple[list[int], int]:
    """The first n integers in [0, bound) of a stream, and how many words were rejected."""
    state = _mix(key ^ _mix(((stream + 1) * _GAMMA) & _M64))
    out, rejected = [], 0
    for _ in range(n):
        state = (state + _GAMMA) & _M64
        m = (_mix(state) >> 32) * bound
        low = m & 0xFFFFFFFF
        if low < bound:
            threshold = (1 << 32) % bound  # 2³² mod n, written as the paper writes it
            while low < threshold:
                rejected += 1
                state = (state + _GAMMA) & _M64
                m = (_mix(state) >> 32) * bound
                low = m & 0xFFFFFFFF
        out.append(m >> 32)
    return out, rejected


def test_stream_start_is_the_documented_mix():
    """Stream s of key k starts at mix(k ⊕ mix((s + 1)·γ))."""
    for key, stream in [(0, 0), (7, 3), (2**64 - 1, 12345), (2024, 2**40)]:
        want = _mix(key ^ _mix(((stream + 1) * _GAMMA) & _M64))
        assert int(stream_start(np.uint64(key), stream)) == want


# 3·2²⁹ and 3·2³⁰: the low word w·n mod 2³² is a multiple of 2²⁹ (2³⁰), so draws fall exactly on
# the rejection threshold 2³² mod n (kept) and below it (drawn again) about once in four.
@pytest.mark.parametrize("bound", [1, 7, 1000, 3 * 2**29, 3 * 2**30, 2**31 + 12345, 2**32 - 1])
def test_bounded_draws_equal_lemires_method(bound: int):
    want, rejected = _reference_draws(4242, 5, 400, bound)
    assert draws(4242, 5, 400, bound).tolist() == want
    if (1 << 32) % bound > 2**28:  # about one word in eight or more is rejected
        assert rejected > 50


def test_the_key_is_the_seeded_generators_first_64_bit_word():
    """With a seed, the key is the generator's first raw 64-bit output (numpy's integers over the
    whole uint64 range return it unchanged), so a seed gives the same draws in every version."""
    assert int(stream_key(np.random.default_rng(5))) == int(
        np.random.default_rng(5).bit_generator.random_raw()
    )
    assert int(stream_key(np.random.default_rng(6))) == int(
        np.random.default_rng(6).bit_generator.random_raw()
    )
