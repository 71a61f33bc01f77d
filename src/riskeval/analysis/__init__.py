"""Analyses built on the risk measures: tables over α grids, topics, baselines and their bias,
comparisons of runs, and the long tables of large evaluations.

- risk tables and topics: :func:`risk_table`, :func:`topic_risk`, :func:`riskiest_topics`,
  :func:`topic_risk_by_alpha`, :func:`risk_reward`, :func:`measure_rankings`, and the PyTerrier
  experiment :func:`risk_experiment`;
- baselines (Dinçer, Ounis & Macdonald, ECIR 2014): :func:`baseline`, :func:`loo_baseline`,
  :func:`baseline_runs`, the baseline-bias study :func:`bias_study` with :func:`bias_table` and
  :func:`bias_study_tables`,
  :func:`baseline_correlation`, :func:`baseline_rankings`, :func:`ranking_agreement`,
  :func:`pca_biplot`, :func:`chisq_residuals`;
- several qrels of the same topics (two assessors, graded and binary labels): :func:`qrels_agreement`;
- runs compared: :func:`compare_runs`, :func:`risk_reward_tradeoff`;
- query variations and stability: :func:`mean_variance_table`, :func:`bias_variance_table`;
- qrels with holes: :func:`risk_bounds`, :func:`topic_bounds` (URisk, TRisk and each topic's
  loss over the completions of the qrels), :func:`label_changes` (Zobel's pool-reusability test);
- long tables (one row per system, topic and measure, on a Dask cluster too):
  :func:`long_risk_table`, :func:`long_topic_risk`.

Names are imported on first use.
"""

from __future__ import annotations

from riskeval import _lazy

# public name -> module that defines it
_EXPORTS = {
    # risk tables and topics
    "risk_table": "riskeval.analysis.table",
    "topic_risk": "riskeval.measures.paired",
    "riskiest_topics": "riskeval.analysis.topics",
    "risk_reward": "riskeval.measures.paired",
    "RiskReward": "riskeval.measures.results",
    "TRiskResult": "riskeval.measures.results",
    "measure_rankings": "riskeval.analysis.measure_ranks",
    "topic_risk_by_alpha": "riskeval.analysis.alpha_tables",
    "mean_variance_table": "riskeval.analysis.alpha_tables",
    "bias_variance_table": "riskeval.analysis.variance_tables",
    "qrels_agreement": "riskeval.analysis.qrels_comparison",
    "QrelsAgreement": "riskeval.analysis.qrels_comparison",
    "risk_experiment": "riskeval.pyterrier",
    # baselines and their bias
    "baseline": "riskeval.measures.baselines",
    "loo_baseline": "riskeval.measures.baselines",
    "baseline_runs": "riskeval.measures.baselines",
    "bias_study": "riskeval.analysis.baseline_bias",
    "BiasStudy": "riskeval.analysis.baseline_bias",
    "bias_table": "riskeval.analysis.bias_tables",
    "bias_study_tables": "riskeval.analysis.alpha_tables",
    "baseline_correlation": "riskeval.analysis.correlation",
    "BaselineCorrelation": "riskeval.analysis.correlation",
    "baseline_rankings": "riskeval.analysis.baseline_ranks",
    "ranking_agreement": "riskeval.analysis.baseline_ranks",
    "pca_biplot": "riskeval.analysis.pca",
    "chisq_residuals": "riskeval.analysis.chisq",
    # runs compared
    "compare_runs": "riskeval.analysis.run_comparison",
    "risk_reward_tradeoff": "riskeval.analysis.run_comparison",
    # risk over the completions of the qrels (unjudged documents)
    "risk_bounds": "riskeval.analysis.unjudged_risk",
    "topic_bounds": "riskeval.analysis.unjudged_risk",
    "label_changes": "riskeval.analysis.unjudged_risk",
    # long tables
    "long_risk_table": "riskeval.distributed.risk",
    "long_topic_risk": "riskeval.distributed.risk",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
