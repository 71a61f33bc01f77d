"""Inference for every risk measure: randomisation tests, bootstrap intervals, the randomised Tukey
HSD over many systems, max-T adjustment over systems and α, rank intervals, adjusted p-values and
the χ² test of a contingency table.

- :mod:`~riskeval.inference.permutation`: sign-flip randomisation test of URisk(α)
  (:func:`permutation_test`);
- :mod:`~riskeval.inference.maxt`: every system × α with Westfall–Young max-T p-values
  (:func:`risk_permutation_table`);
- :mod:`~riskeval.inference.bootstrap`: percentile and BCa intervals over topics for URisk, TRisk,
  ZRisk and GeoRisk, differences between systems, rank intervals;
- :mod:`~riskeval.inference.tukey`: randomised Tukey HSD (:func:`tukey_hsd`) and its kernel.

Every procedure takes ``rng`` (an int seed, None or a :class:`numpy.random.Generator`) and records
the seed it used; draws are made block by block or within the kernels, so working memory does not
grow with ``n_resamples`` (the bootstrap keeps its distribution: one value per resample and
reported number, and draws ``batch`` resamples at a time).

Names are imported on first use.
"""

from __future__ import annotations

from riskeval import _lazy

# public name -> module that defines it
_EXPORTS = {
    "bootstrap_ci": "riskeval.inference.bootstrap",
    "bootstrap_difference": "riskeval.inference.bootstrap",
    "rank_intervals": "riskeval.inference.bootstrap",
    "BootstrapDifferenceResult": "riskeval.inference.bootstrap",
    "permutation_test": "riskeval.inference.permutation",
    "PermutationResult": "riskeval.inference.permutation",
    "risk_permutation_table": "riskeval.inference.maxt",
    "tukey_hsd": "riskeval.inference.tukey",
    "TukeyHSDResult": "riskeval.inference.tukey",
    "adjust_pvalues": "riskeval.core.corrections",
    "chisq_test": "riskeval.analysis.chisq",
    "Comparison": "riskeval.inference.comparison",
    "ChiSquareResult": "riskeval.analysis.chisq",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
