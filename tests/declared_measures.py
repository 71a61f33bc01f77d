"""A risk measure of one's own for the tests, and the declaration of measures for one test.

:class:`LossURisk` is URisk without its rewards, (1+α)·Σδ⁻/c, the losses term of URisk (Dinçer,
Macdonald & Ounis, SIGIR 2014, eq. 4), declared as a user declares a measure with
``rk.register_risk``; :func:`registered` declares measures for the length of a ``with`` block and
removes them afterwards, so that no test leaves its measures in the registry.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from riskeval.measures.declared import RISK_MEASURES, RiskMeasure, register_risk


@dataclass(frozen=True)
class LossURisk(RiskMeasure):
    """(1+α)·Σδ⁻/c: URisk without its rewards (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4)."""

    name: ClassVar[str] = "LossURisk"
    column: ClassVar[str] = "loss_urisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4, its losses"
    needs: ClassVar[str] = "baseline"
    header: ClassVar[str] = "Loss URisk"

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        return (1.0 + alpha) * sums.sum_neg / sums.n


@contextmanager
def registered(*measures: type[RiskMeasure]) -> Iterator[None]:
    """``measures`` declared (``register_risk``) inside the block, removed from the registry after."""
    try:
        for cls in measures:
            register_risk(cls)
        yield
    finally:
        for cls in measures:
            RISK_MEASURES.pop(cls.name, None)
