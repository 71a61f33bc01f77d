"""Readers and writers: score tables, trec_eval output, ir_measures results, runs and qrels, query
variations, LETOR files.  They only read and write; the data model they produce (score matrices,
the missing-topic policy, query-variation tables) is :mod:`riskeval.model`."""

from riskeval.io.inputs import score_matrix
from riskeval.io.ir_measures_results import from_ir_measures
from riskeval.io.score_files import read_scores
from riskeval.io.tables import from_long, from_wide
from riskeval.io.trec_eval import read_trec_eval

__all__ = [
    "from_ir_measures",
    "from_long",
    "from_wide",
    "read_scores",
    "read_trec_eval",
    "score_matrix",
]
