"""Where the benchmarks find the campaign data: ``$RISKEVAL_DATA``, else ``shared/data`` beside
the repository root.  A benchmark that needs it and does not find it stops with a message."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_dir(*parts: str) -> Path:
    """Path of ``<data>/<parts>``; exits with a message naming both places looked in."""
    env = os.environ.get("RISKEVAL_DATA")
    base = Path(env) if env else ROOT.parent / "shared" / "data"
    path = base.joinpath(*parts)
    if not path.exists():
        sys.exit(f"campaign data not found: {path} (set RISKEVAL_DATA to the folder holding it)")
    return path
