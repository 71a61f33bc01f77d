"""The problems a reader finds in a file, kept up to a budget and counted past it.

A file of millions of malformed lines has millions of problems; listing the first thousand says
what is wrong as well as listing them all, and keeps the memory of a refusal independent of the
file's size.  Every reader collects its problems in a :class:`Problems`: it keeps the first
``budget`` (:data:`MAX_PROBLEMS` by default) and counts the others, which
:class:`~riskeval.errors.InputFormatError` reports as "... and N more problem(s)".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riskeval.errors import InputFormatError, RiskevalError

#: Problems a reader lists before it only counts them.
MAX_PROBLEMS = 1000


class Problems:
    """``(location, message)`` pairs up to ``budget``, and the count of those past it."""

    def __init__(self, budget: int = MAX_PROBLEMS):
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise RiskevalError(f"max_problems must be an integer >= 1; got {budget!r}.")
        self.budget = budget
        self.kept: list[tuple[str, str]] = []
        self.omitted = 0
        self.reserved = 0

    def __len__(self) -> int:
        return len(self.kept) + self.omitted

    def __bool__(self) -> bool:
        return bool(self.kept) or self.omitted > 0

    @property
    def room(self) -> int:
        """How many more problems are kept."""
        return max(0, self.budget - len(self.kept) - self.reserved)

    @property
    def full(self) -> bool:
        """Whether further problems are only counted."""
        return self.room == 0

    def add(self, location: str, message: str, *, reserved: bool = False) -> None:
        """Keep a problem, or count it once the budget is spent; ``reserved``: its place was
        held by :meth:`reserve`."""
        if reserved:
            self.reserved -= 1
            self.kept.append((location, message))
        elif self.full:
            self.omitted += 1
        else:
            self.kept.append((location, message))

    def append(self, problem: tuple[str, str]) -> None:
        """:meth:`add` of a ``(location, message)`` pair."""
        self.add(*problem)

    def reserve(self) -> bool:
        """Hold a place for a problem whose message can only be written later (then
        :meth:`add` it with ``reserved=True``); False, and the problem counted, when the budget is
        spent."""
        if self.full:
            self.omitted += 1
            return False
        self.reserved += 1
        return True

    def extend(self, problems: list[tuple[str, str]], omitted: int = 0) -> None:
        """Keep (or count) several problems, and count ``omitted`` others."""
        kept = problems[: self.room]
        self.kept += kept
        self.omitted += len(problems) - len(kept) + omitted

    def error(self) -> InputFormatError:
        """The error listing the problems kept and counting the others."""
        return InputFormatError(self.kept, omitted=self.omitted)

    def raise_any(self) -> None:
        """Raise :meth:`error` when there is a problem."""
        if self:
            raise self.error()


def show(value: Any) -> str:
    """``repr`` of a cell or label as the user wrote it (``0.5``, not ``np.float64(0.5)``), for a
    problem's message."""
    return repr(_plain(value))


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value
