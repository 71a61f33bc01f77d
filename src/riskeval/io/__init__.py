"""Readers: score tables, trec_eval and ir_measures output, ranx and PyTerrier results, query texts,
baseline maps, and the evaluation of run files into long tables, with the bounds of their scores
over the completions of the qrels (:func:`score_bounds`) and the qrels without one run's
contributions to the pool (:func:`without_run`).

Readers of files are named ``read_*``; readers of objects in memory (DataFrames, ir_measures
results, ranx scores) ``from_*``.  :func:`score_matrix` takes any of these inputs and tells them
apart.  The modules of this package only read and write; the data model they produce (score
matrices, the missing-topic policy, query-variation tables) is :mod:`riskeval.model`, whose
:func:`as_matrix` and :func:`apply_missing` are exported here.

Names are imported on first use.
"""

from __future__ import annotations

from riskeval import _lazy

# public name -> module that defines it
_EXPORTS = {
    # any input
    "score_matrix": "riskeval.io.inputs",
    "score_matrices": "riskeval.io.matrices",
    # files
    "read_scores": "riskeval.io.score_files",
    "read_trec_eval": "riskeval.io.trec_eval",
    "read_trec_eval_measures": "riskeval.io.trec_eval",
    "read_ir_measures": "riskeval.io.per_query",
    "read_baseline_map": "riskeval.io.baseline_map",
    "read_topic_texts": "riskeval.io.topic_texts",
    # objects in memory
    "from_long": "riskeval.io.tables",
    "from_wide": "riskeval.io.tables",
    "from_ir_measures": "riskeval.io.ir_measures_results",
    "from_ranx": "riskeval.io.ranx_scores",
    # measure names, score matrices and missing topics
    "canonical_measure": "riskeval.io.measures",
    "as_matrix": "riskeval.model.matrix",
    "apply_missing": "riskeval.model.matrix",
    # run files evaluated into a long table (one row per measure, system and topic)
    "evaluate_runs_long": "riskeval.evaluation.api",
    "score_bounds": "riskeval.evaluation.score_bounds",
    "ScoreBounds": "riskeval.model.score_bounds",
    "pool_contributions": "riskeval.evaluation.pool_reuse",
    "without_run": "riskeval.evaluation.pool_reuse",
    "remove_judgments": "riskeval.evaluation.pool_reuse",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
