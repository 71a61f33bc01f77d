"""Where the shared campaign data is, for the query-variation tests.

The data lives beside the repository (``../shared/data``); for a checkout that is a git worktree the
same folder is also reachable as ``/work/shared/data``.  Tests that need it skip with a message when
it is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_CANDIDATES = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data",
    Path("/work/shared/data"),
)


def shared_data(name: str) -> Path:
    """Path of ``../shared/data/<name>``, or skip the calling test."""
    for root in _CANDIDATES:
        if (root / name).is_dir():
            return root / name
    pytest.skip(f"shared campaign data {name!r} not found beside the repository (../shared/data)")


def clef2015() -> Path:
    return shared_data("clef-ehealth-2015-task2")
