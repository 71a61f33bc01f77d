"""Fixtures of the learning-to-rank tests: LightGBM's LambdaRank example set, when present."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared-data helper
from shared_data import shared_data  # noqa: E402

LETOR = "letor-lightgbm-lambdarank"


@pytest.fixture(scope="session")
def letor_dir() -> Path:
    """LightGBM's ``examples/lambdarank`` set (skips, saying so, when the shared data is absent)."""
    return shared_data(LETOR)


@pytest.fixture(scope="session")
def letor_train(letor_dir):
    from riskeval.io.letor import read_letor

    return read_letor(letor_dir / "rank.train")
