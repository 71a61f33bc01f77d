"""Optional dependencies, imported on first use with a message that names the extra to install.

``pip install riskeval`` gives the measures, the readers and the command line's tables; plots and
the HTML report need the ``report`` extra, Parquet files the ``parquet`` extra, risk-sensitive
LambdaMART the ``ltr`` extra and Bayesian risk inference the ``bayes`` extra
(``pip install "riskeval[all]"`` installs every one).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from riskeval.errors import MissingDependencyError

#: top-level module -> the extra of riskeval that installs it
EXTRAS = {
    "matplotlib": "report",
    "jinja2": "report",
    "markupsafe": "report",
    "pyarrow": "parquet",
    "lightgbm": "ltr",
    "dask": "dask",
    "distributed": "dask",
    "ir_datasets": "irds",
    "pyterrier": "pyterrier",
    "numpyro": "bayes",
    "jax": "bayes",
    "arviz": "bayes",
}


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` (e.g. ``"matplotlib.pyplot"``) for ``feature`` or raise
    :class:`~riskeval.errors.MissingDependencyError` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise missing_dependency(exc.name or module, feature) from None


def missing_dependency(module: str, feature: str) -> MissingDependencyError:
    """The error for a missing optional ``module`` needed by ``feature``."""
    top = module.split(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return MissingDependencyError(f"{feature} needs {top}, which is not installed: pip install {top}")
    parts = ", ".join(m for m, e in EXTRAS.items() if e == extra and m != "markupsafe")
    return MissingDependencyError(
        f"{feature} needs riskeval's '{extra}' extra ({parts}), which is not installed: "
        f'pip install "riskeval[{extra}]"'
    )
