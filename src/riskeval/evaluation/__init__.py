"""Evaluation of runs: TREC run files (or runs in memory) and qrels to a systems × topics score matrix.

- :mod:`~riskeval.evaluation.api`: :func:`evaluate_runs`, :func:`evaluate_runs_long`;
- :mod:`~riskeval.evaluation.variations`: runs over query variants to a variation table;
- :mod:`~riskeval.evaluation.judged`: :func:`judged_fractions`, how much of each ranking the qrels
  judge (``Judged@k``);
- :mod:`~riskeval.evaluation.several_qrels`: :func:`evaluate_under_qrels`, the runs under each of
  several qrels;
- :mod:`~riskeval.evaluation.inputs`: qrels and runs given as paths or in memory (PyTerrier, ranx,
  ir_measures, dicts);
- :mod:`~riskeval.evaluation.measures`: measure names, parsed and checked;
- :mod:`~riskeval.evaluation.engine`: the evaluator of one process (compiled kernels, ir_measures);
- :mod:`~riskeval.evaluation.run_pieces`, :mod:`~riskeval.evaluation.run_arrays` and
  :mod:`~riskeval.evaluation.kernels`: the compiled path, from a run's bytes to per-topic values;
- :mod:`~riskeval.evaluation.executors`: this process, a pool of processes, or a Dask client.
"""

from riskeval.evaluation.api import evaluate_runs, evaluate_runs_long
from riskeval.evaluation.judged import judged_fractions
from riskeval.evaluation.several_qrels import evaluate_under_qrels

__all__ = ["evaluate_runs", "evaluate_runs_long", "evaluate_under_qrels", "judged_fractions"]
