"""Where the tools find the campaign data sets (the same rule as the tests and the benchmarks)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def campaign_data() -> Path:
    """The folder of the campaign data sets: ``$RISKEVAL_DATA``, else ``../shared/data`` relative to
    the repository root."""
    env = os.environ.get("RISKEVAL_DATA")
    return Path(env) if env else ROOT.parent / "shared" / "data"
