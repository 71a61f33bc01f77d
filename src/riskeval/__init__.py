"""riskeval: risk-sensitive and robustness evaluation of search and ranking systems.

The public API is re-exported here and imported on first use, so that ``import riskeval`` (and the
``riskeval`` command's ``--help``) does not load numpy or pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # query variations: mean-variance evaluation, bias-variance decomposition
    "mean_variance": "riskeval.analysis.variations",
    "mean_variance_sweep": "riskeval.analysis.variations",
    "rank_changes": "riskeval.analysis.variations",
    "swap_alpha": "riskeval.analysis.variations",
    "bias_variance": "riskeval.analysis.bias_variance",
    "robustness_index": "riskeval.analysis.bias_variance",
    "gmap": "riskeval.analysis.bias_variance",
    "tau_ap": "riskeval.core.rank_correlation",
    "load_clef2015": "riskeval.io.clef2015",
    "read_clef2015_queries": "riskeval.io.clef2015",
    "read_mapping": "riskeval.io.variations",
    "read_variations": "riskeval.io.variations",
    "variations_from_scores": "riskeval.io.variations",
    "variation_array": "riskeval.io.variations",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'riskeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
