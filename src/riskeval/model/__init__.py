"""The data model every layer shares.

- :mod:`riskeval.model.matrix`: the score matrix (systems × topics), its validation and the
  missing-topic policy;
- :mod:`riskeval.model.variations`: per-query scores over query variations and the
  ``systems × topics × variants`` array.

It imports nothing of riskeval but :mod:`riskeval.errors` and :mod:`riskeval.options`.
"""
