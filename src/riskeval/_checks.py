"""Validation of parameters, in one place per kind of parameter (messages name the function,
the parameter, the allowed values and what was given)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from riskeval.errors import RiskevalError


def check_alpha(alpha: Any, func: str, *, negative_ok: bool = False) -> float:
    """The risk-aversion parameter α: a finite real number, ≥ 0 unless ``negative_ok``."""
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or (value < 0 and not negative_ok):
        want = "a finite real number" if negative_ok else "a finite number >= 0"
        raise RiskevalError(f"The 'alpha' parameter of {func} must be {want}. Got {alpha!r}.")
    return value


def check_alphas(alphas: Any, func: str, *, negative_ok: bool = False) -> np.ndarray:
    """A non-empty list of α values, each a finite number ≥ 0 unless ``negative_ok``."""
    seq = [alphas] if np.isscalar(alphas) else list(alphas)
    if not seq:
        raise RiskevalError(f"The 'alphas' parameter of {func} must list at least one value.")
    return np.array([check_alpha(a, func, negative_ok=negative_ok) for a in seq], dtype=np.float64)


def check_level(level: Any, func: str, name: str = "level") -> float:
    """A significance level (or confidence) strictly between 0 and 1."""
    try:
        value = float(level)
    except (TypeError, ValueError):
        value = math.nan
    if not 0.0 < value < 1.0:
        raise RiskevalError(
            f"The '{name}' parameter of {func} must be a number strictly between 0 and 1. Got {level!r}."
        )
    return value


def check_choice(value: Any, choices: Sequence[str], func: str, name: str) -> str:
    """One of a fixed set of option strings (case-insensitive)."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    allowed = ", ".join(repr(c) for c in choices)
    raise RiskevalError(f"The '{name}' parameter of {func} must be one of {allowed}. Got {value!r}.")


def check_nonnegative(values: np.ndarray, rows: Sequence[Any], cols: Sequence[Any], func: str) -> None:
    """ZRisk/GeoRisk need effectiveness scores ≥ 0 (SPEC §4); ``values`` is 2-D (rows × cols)."""
    bad = np.argwhere(values < 0)
    if bad.size:
        i, j = bad[0]
        raise RiskevalError(
            f"{func} needs scores >= 0 (chi-square expected values); found {len(bad)} negative "
            f"score(s), e.g. {values[i, j]!r} for system {rows[i]!r}, topic {cols[j]!r}."
        )
