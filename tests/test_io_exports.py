"""The input API is public at the package top level."""

from __future__ import annotations

import riskeval as rk
from riskeval import io
from riskeval.model import matrix

INPUT_API = [
    "score_matrix",
    "from_long",
    "from_wide",
    "read_scores",
    "read_trec_eval",
    "from_ir_measures",
]
MODEL_API = ["apply_missing", "as_matrix"]


def test_input_api_is_exported():
    for name in INPUT_API:
        assert getattr(rk, name) is getattr(io, name)
        assert name in rk.__all__ and name in io.__all__
    for name in MODEL_API:
        assert getattr(rk, name) is getattr(matrix, name)
        assert name in rk.__all__
    assert issubclass(rk.MissingTopicsWarning, UserWarning)
    assert issubclass(rk.MissingTopicsError, rk.RiskevalError)
    assert issubclass(rk.InputFormatError, ValueError)
    assert isinstance(rk.__version__, str)
