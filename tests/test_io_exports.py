"""The input API is public in ``riskeval.io``, and ``score_matrix`` at the top level."""

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
    assert rk.score_matrix is io.score_matrix and "score_matrix" in rk.__all__
    for name in INPUT_API:
        assert name in io.__all__ and callable(getattr(io, name))
    for name in MODEL_API:
        assert getattr(io, name) is getattr(matrix, name)
        assert name in io.__all__
    assert issubclass(rk.errors.MissingTopicsWarning, UserWarning)
    assert issubclass(rk.errors.MissingTopicsError, rk.RiskevalError)
    assert issubclass(rk.errors.InputFormatError, ValueError)
    assert isinstance(rk.__version__, str)
