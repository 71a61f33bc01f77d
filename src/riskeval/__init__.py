"""riskeval: risk-sensitive and robustness evaluation of search and ranking systems.

Score matrices are pandas DataFrames, systems (rows) × topics (columns).  The measures follow these
papers: URisk/TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014), unbiased baselines (Dinçer, Ounis &
Macdonald, ECIR 2014), ZRisk/GeoRisk (Dinçer, Macdonald & Ounis, SIGIR 2016), the bias–variance
decomposition (Zhang, Song, Wang & Hou, SIGIR 2013) and mean–variance evaluation over query
variations (Zuccon, Palotti & Hanbury, CIKM 2016).

Names are imported on first use, so ``import riskeval`` (and ``riskeval --help``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0.dev0"  # the one place of the version (pyproject.toml reads it)

# public name -> module that defines it
_EXPORTS = {
    # risk measures and settings
    "URisk": "riskeval.measures.declared",
    "TRisk": "riskeval.measures.declared",
    "TStarRisk": "riskeval.measures.declared",
    "ZRisk": "riskeval.measures.declared",
    "GeoRisk": "riskeval.measures.declared",
    "parse_risk": "riskeval.measures.declared",
    "RiskSettings": "riskeval.settings",
    # measures and analyses
    "BiasStudy": "riskeval.analysis.bias_study",
    "bias_study": "riskeval.analysis.bias_study",
    "bias_table": "riskeval.analysis.bias_tables",
    "bootstrap_ci": "riskeval.inference.bootstrap",
    "bootstrap_difference": "riskeval.inference.bootstrap",
    "rank_intervals": "riskeval.inference.bootstrap",
    "BootstrapDifferenceResult": "riskeval.inference.bootstrap",
    "permutation_test": "riskeval.inference.permutation",
    "PermutationResult": "riskeval.inference.permutation",
    "risk_permutation_table": "riskeval.inference.maxt",
    "tukey_hsd": "riskeval.inference.tukey",
    "TukeyHSDResult": "riskeval.inference.tukey",
    "risk_table": "riskeval.analysis.table",
    "long_risk_table": "riskeval.distributed.risk",
    "long_topic_risk": "riskeval.distributed.risk",
    "adjust_pvalues": "riskeval.core.corrections",
    "baseline": "riskeval.measures.baselines",
    "loo_baseline": "riskeval.measures.baselines",
    "baseline_runs": "riskeval.measures.baselines",
    "read_baseline_map": "riskeval.io.baseline_map",
    "baseline_correlation": "riskeval.analysis.baseline_correlation",
    "BaselineCorrelation": "riskeval.analysis.baseline_correlation",
    "baseline_rankings": "riskeval.analysis.baseline_rankings",
    "ranking_agreement": "riskeval.analysis.baseline_rankings",
    "compare_runs": "riskeval.analysis.run_comparison",
    "risk_reward_tradeoff": "riskeval.analysis.run_comparison",
    "pca_biplot": "riskeval.analysis.pca_biplot",
    "chisq_residuals": "riskeval.analysis.chisq_residuals",
    "chisq_test": "riskeval.analysis.chisq_residuals",
    "ChiSquareResult": "riskeval.analysis.chisq_residuals",
    "measure_rankings": "riskeval.analysis.measure_rankings",
    "error_decomposition": "riskeval.analysis.bias_variance_families",
    "bias_variance_families": "riskeval.analysis.bias_variance_families",
    "read_families": "riskeval.io.families",
    "read_variant_scores": "riskeval.io.uqv100",
    "load_query_variations": "riskeval.io.uqv100",
    "georisk": "riskeval.measures.chisq",
    "zrisk": "riskeval.measures.chisq",
    "risk_reward": "riskeval.measures.paired",
    "topic_risk": "riskeval.measures.paired",
    "riskiest_topics": "riskeval.analysis.topics",
    "trisk": "riskeval.measures.paired",
    "urisk": "riskeval.measures.paired",
    "RiskReward": "riskeval.measures.results",
    "TRiskResult": "riskeval.measures.results",
    # errors and warnings
    "InputFormatError": "riskeval.errors",
    "MissingDependencyError": "riskeval.errors",
    "MissingTopicsError": "riskeval.errors",
    "MissingTopicsWarning": "riskeval.errors",
    "RiskevalError": "riskeval.errors",
    "RiskevalWarning": "riskeval.errors",
    # inputs
    "apply_missing": "riskeval.model.matrix",
    "as_matrix": "riskeval.model.matrix",
    "from_ir_measures": "riskeval.io",
    "from_long": "riskeval.io",
    "from_wide": "riskeval.io",
    "read_scores": "riskeval.io",
    "read_trec_eval": "riskeval.io",
    "score_matrix": "riskeval.io",
    "score_matrices": "riskeval.io.matrices",
    "read_ir_measures": "riskeval.io.per_query",
    "read_trec_eval_measures": "riskeval.io.trec_eval",
    # run files
    "evaluate_runs": "riskeval.evaluation.api",
    "evaluate_runs_long": "riskeval.evaluation.api",
    "canonical_measure": "riskeval.io.measures",
    "risk_experiment": "riskeval.pyterrier",
    "example_scores": "riskeval.datasets",
    # report
    "report": "riskeval.reporting",
    "read_topic_texts": "riskeval.io.topic_texts",
    # tables for papers
    "to_latex": "riskeval.formatting",
    "to_markdown": "riskeval.formatting",
    # query variations: mean-variance evaluation, bias-variance decomposition
    "bias_variance": "riskeval.analysis.bias_variance",
    "gmap": "riskeval.analysis.bias_variance",
    "robustness_index": "riskeval.analysis.bias_variance",
    "mean_variance": "riskeval.analysis.variations",
    "mean_variance_sweep": "riskeval.analysis.variations",
    "rank_changes": "riskeval.analysis.variations",
    "swap_alpha": "riskeval.analysis.variations",
    "tau_ap": "riskeval.core.rank_correlation",
    "load_clef2015": "riskeval.io.clef2015",
    "read_clef2015_queries": "riskeval.io.clef2015",
    "read_mapping": "riskeval.io.variations",
    "read_variation_table": "riskeval.io.variations",
    "read_variations": "riskeval.io.variations",
    "variation_array": "riskeval.model.variations",
    "variations_from_runs": "riskeval.evaluation.api",
    "variations_from_scores": "riskeval.model.variations",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riskeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
