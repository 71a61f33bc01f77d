"""Where the benchmarks find the campaign data: ``$RISKEVAL_DATA``, else ``shared/data`` beside
the repository root.  A benchmark that needs it and does not find it stops with a message."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def data_dir(*parts: str) -> Path:
    """Path of ``<data>/<parts>``; exits with a message naming both places looked in."""
    env = os.environ.get("RISKEVAL_DATA")
    base = Path(env) if env else ROOT.parent / "shared" / "data"
    path = base.joinpath(*parts)
    if not path.exists():
        sys.exit(f"campaign data not found: {path} (set RISKEVAL_DATA to the folder holding it)")
    return path


def clef2015_p10() -> Any:
    """The CLEF eHealth 2015 runs' P@10 (110 runs × 66 queries), read from the official per-topic
    trec_eval outputs: the campaign matrix of the size of the risk and inference targets."""
    import riskeval as rk

    outputs = sorted(str(p) for p in data_dir("clef-ehealth-2015-task2", "pertopic-evals").glob("*.dat"))
    return rk.io.read_trec_eval(outputs, "P_10", names="file")
