"""``--n-resamples N``: a whole number from 1 (or a given minimum) to
:data:`riskeval.options.MAX_RESAMPLES`, refused beyond it with the reason and what to choose
instead, before any input is read."""

from __future__ import annotations

from typing import Any

import click

from riskeval.cli._input import WholeNumber
from riskeval.options import MAX_RESAMPLES, RESAMPLES_REASON


class ResampleCount(WholeNumber):
    """The number of resamples of a test or interval (see :data:`riskeval.options.MAX_RESAMPLES`)."""

    def __init__(self, minimum: int = 1) -> None:
        super().__init__(minimum, MAX_RESAMPLES)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        import re

        from riskeval.errors import RiskevalError

        try:
            return super().convert(value, param, ctx)
        except RiskevalError as exc:
            text = str(value).strip()
            if re.fullmatch(r"\+?[0-9]+", text) and int(text) > MAX_RESAMPLES:
                raise RiskevalError(f"{exc} {RESAMPLES_REASON}") from None
            raise
