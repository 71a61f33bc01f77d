"""Wall time of a call as ``python -m timeit`` reports it: the best of a few runs."""

from __future__ import annotations

import timeit
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """The best of ``repeat`` timed calls of ``fn``, in seconds."""
    return min(timeit.repeat(fn, number=1, repeat=repeat))
