"""Readers: score tables, trec_eval output, runs and qrels, query variations."""

from riskeval.io.inputs import score_matrix
from riskeval.io.ir_measures_results import from_ir_measures
from riskeval.io.matrix import apply_missing, as_matrix
from riskeval.io.score_files import read_scores
from riskeval.io.tables import from_long, from_wide
from riskeval.io.trec_eval import read_trec_eval

__all__ = [
    "apply_missing",
    "as_matrix",
    "from_ir_measures",
    "from_long",
    "from_wide",
    "read_scores",
    "read_trec_eval",
    "score_matrix",
]
