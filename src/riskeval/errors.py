"""Exceptions raised for bad user input.

Every error raised for user input derives from :class:`RiskevalError` (itself a ``ValueError``), so
callers can catch one type; the command-line interface turns them into a message and exit status 2.
The warnings riskeval emits are :class:`RiskevalWarning` and :class:`MissingTopicsWarning`.
"""

from __future__ import annotations

from collections.abc import Iterable


class RiskevalError(ValueError):
    """Base class of every error riskeval raises for bad input or bad parameters."""


class InputFormatError(RiskevalError):
    """A file or table does not have the expected content.

    ``problems`` holds one ``(location, message)`` pair per problem found, where ``location`` is
    ``"file:line"`` (or a row label for in-memory tables).  Readers collect every problem in an
    input before raising, so a user can fix them all at once, up to a budget (1,000 by default):
    ``omitted`` counts the problems found past it, which the message adds to those not shown.
    """

    def __init__(self, problems: Iterable[tuple[str, str]], *, limit: int = 20, omitted: int = 0):
        self.problems = list(problems)
        self.limit = limit
        self.omitted = omitted
        shown = [f"{loc}: {msg}" if loc else msg for loc, msg in self.problems[:limit]]
        more = len(self.problems) - len(shown) + omitted
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(shown))

    def __reduce__(self) -> tuple:
        """Pickled by its problems, as a worker process (Dask, ``--jobs``) returns it."""
        return (_input_format_error, (type(self), self.problems, self.limit, self.omitted))


def _input_format_error(
    kind: type[InputFormatError], problems: list[tuple[str, str]], limit: int, omitted: int
) -> InputFormatError:
    return kind(problems, limit=limit, omitted=omitted)


class OutputError(RiskevalError):
    """An output file could not be written (or would have replaced an input); the message names it."""


class MissingTopicsError(RiskevalError):
    """Systems were evaluated on different topic sets and the missing-topic policy is ``"raise"``."""


class MissingTopicsWarning(UserWarning):
    """Missing topics were filled with 0 or dropped, as the caller's missing-topic policy asked.

    The message counts the cells, topics and systems affected, so nothing is filled or dropped
    silently.  Silence it with ``warnings.filterwarnings("ignore", category=MissingTopicsWarning)``.
    """


class MissingDependencyError(RiskevalError, ImportError):
    """An optional dependency is not installed; the message names the extra that provides it."""


class RiskevalWarning(UserWarning):
    """Something was computed with a caveat the user should see (e.g. a measure left NaN)."""


__all__ = [
    "InputFormatError",
    "MissingDependencyError",
    "MissingTopicsError",
    "MissingTopicsWarning",
    "OutputError",
    "RiskevalError",
    "RiskevalWarning",
]
