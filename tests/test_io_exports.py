"""The input API is public at the package top level, and importing riskeval stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import riskeval as rk
from riskeval import io

INPUT_API = [
    "score_matrix",
    "from_long",
    "from_wide",
    "read_scores",
    "read_trec_eval",
    "from_ir_measures",
    "apply_missing",
    "as_matrix",
]


def test_input_api_is_exported():
    for name in INPUT_API:
        assert getattr(rk, name) is getattr(io, name)
        assert name in rk.__all__ and name in io.__all__
    assert issubclass(rk.MissingTopicsWarning, UserWarning)
    assert issubclass(rk.MissingTopicsError, rk.RiskevalError)
    assert issubclass(rk.InputFormatError, ValueError)
    assert isinstance(rk.__version__, str)


def test_import_does_not_load_pandas():
    code = "import sys, riskeval; assert 'pandas' not in sys.modules, 'pandas imported'"
    src = Path(__file__).resolve().parents[1] / "src"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=src)
