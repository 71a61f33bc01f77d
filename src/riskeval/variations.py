"""Query variations: the mean–variance evaluation of Zuccon, Palotti & Hanbury (CIKM 2016), the
bias–variance decomposition of Zhang, Song, Wang & Hou (SIGIR 2013), and their readers.

- analyses: :func:`mean_variance`, :func:`mean_variance_sweep`, :func:`rank_changes`,
  :func:`swap_alpha`, :func:`tau_ap`; :func:`bias_variance`, :func:`gmap`,
  :func:`robustness_index`, :func:`error_decomposition`, :func:`bias_variance_families`;
- the tidy variation table (``system, topic, variant, score, query``): read from trec_eval output
  and a mapping (:func:`read_variations`, :func:`read_mapping`), from a table file
  (:func:`read_variation_table`), from CLEF eHealth 2015 (:func:`read_clef2015`,
  :func:`read_clef2015_queries`), from UQV100 and Robust04 per-variant score files
  (:func:`read_uqv100`, :func:`read_variant_scores`); built from a score matrix in memory
  (:func:`from_scores`) or by evaluating runs (:func:`evaluate_runs`); as an array
  (:func:`variation_array`); query families (:func:`read_families`).

Names are imported on first use.
"""

from __future__ import annotations

from riskeval import _lazy

# public name -> module that defines it
_EXPORTS = {
    # mean-variance evaluation
    "mean_variance": "riskeval.analysis.variations",
    "mean_variance_sweep": "riskeval.analysis.variations",
    "rank_changes": "riskeval.analysis.variations",
    "swap_alpha": "riskeval.analysis.variations",
    "tau_ap": "riskeval.core.rank_correlation",
    # bias-variance decomposition
    "bias_variance": "riskeval.analysis.bias_variance",
    "gmap": "riskeval.analysis.bias_variance",
    "robustness_index": "riskeval.analysis.bias_variance",
    "error_decomposition": "riskeval.analysis.bias_variance_families",
    "bias_variance_families": "riskeval.analysis.bias_variance_families",
    # the variation table: readers, builders, array
    "read_variations": "riskeval.io.variations",
    "read_mapping": "riskeval.io.variations",
    "read_variation_table": "riskeval.io.variations",
    "read_clef2015": "riskeval.io.clef2015",
    "read_clef2015_queries": "riskeval.io.clef2015",
    "read_uqv100": "riskeval.io.uqv100",
    "read_variant_scores": "riskeval.io.uqv100",
    "read_families": "riskeval.io.families",
    "from_scores": "riskeval.model.variations",
    "evaluate_runs": "riskeval.evaluation.variations",
    "variation_array": "riskeval.model.variations",
    "VariationArray": "riskeval.model.variations",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
