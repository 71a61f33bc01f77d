"""Inference for every risk measure: randomisation tests, bootstrap intervals, the randomised Tukey
HSD over many systems, max-T adjustment over systems and α, and rank intervals.

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
"""
