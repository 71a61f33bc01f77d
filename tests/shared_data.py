"""Where the shared campaign data is: ``../shared/data`` beside the repository root, else
``/work/shared/data``.  Tests that need it skip, saying what is missing, when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_data(*parts: str) -> Path:
    """Path of ``shared/data/<parts>``, or skip the calling test if it does not exist."""
    for base in (ROOT.parent / "shared" / "data", Path("/work/shared/data")):
        path = base.joinpath(*parts)
        if path.exists():
            return path
    pytest.skip(f"shared campaign data not found: shared/data/{'/'.join(parts)} beside the repository")
