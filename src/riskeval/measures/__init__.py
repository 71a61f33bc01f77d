"""Validated public measures over labelled scores: the layer between the numeric kernels
(:mod:`riskeval.core`) and the analyses (:mod:`riskeval.analysis`)."""
