"""riskeval: risk-sensitive and robustness evaluation of search and ranking systems.

The public API is re-exported here and imported on first use, so that ``import riskeval`` (and the
``riskeval`` command's ``--help``) does not load numpy or pandas.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("riskeval")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # inputs and errors
    "score_matrix": "riskeval.io",
    "from_long": "riskeval.io",
    "from_wide": "riskeval.io",
    "read_scores": "riskeval.io",
    "read_trec_eval": "riskeval.io",
    "from_ir_measures": "riskeval.io",
    "apply_missing": "riskeval.io",
    "as_matrix": "riskeval.io",
    "RiskevalError": "riskeval.errors",
    "InputFormatError": "riskeval.errors",
    "MissingTopicsError": "riskeval.errors",
    "MissingTopicsWarning": "riskeval.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'riskeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
