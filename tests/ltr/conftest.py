"""Fixtures of the learning-to-rank tests: the shared LETOR set and small random ranking data."""

from __future__ import annotations

from pathlib import Path

import pytest

LETOR = "letor-lightgbm-lambdarank"


def _shared_data_dir() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    for candidate in (root.parent / "shared" / "data", Path("/work/shared/data")):
        if (candidate / LETOR).is_dir():
            return candidate
    return None


@pytest.fixture(scope="session")
def letor_dir() -> Path:
    """The LightGBM LambdaRank example set (``../shared/data/letor-lightgbm-lambdarank``)."""
    base = _shared_data_dir()
    if base is None:
        pytest.skip(f"shared data {LETOR} not found beside the repository (../shared/data)")
    return base / LETOR


@pytest.fixture(scope="session")
def letor_train(letor_dir):
    from riskeval.io.letor import read_letor

    return read_letor(letor_dir / "rank.train")
