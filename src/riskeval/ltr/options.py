"""The options of risk-sensitive LambdaMART, declared once, and their check.

The functions (:func:`riskeval.ltr.train`, :class:`riskeval.ltr.RiskLambdaMART`,
:class:`riskeval.ltr.Experiment`), the objective and the command line take their
choices from here; a bad value raises :class:`~riskeval.errors.RiskevalError` through
:func:`riskeval.options.check_option` (case-sensitive, scikit-learn's message).  This module imports
nothing heavy, so ``riskeval ltr --help`` stays fast.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from riskeval.measures.declared import GeoRisk
from riskeval.options import check_option

#: The objectives: LightGBM's LambdaMART and its risk-sensitive variants (see
#: :mod:`riskeval.ltr.objectives`, whose ``OBJECTIVES`` declares them); GeoRisk's is named by the
#: registry of risk measures, which imports nothing heavy.
OBJECTIVE_NAMES: tuple[str, ...] = ("lambdarank", "ucro", "tsaro", "tfaro", "tstar_faro", GeoRisk.column)

#: T-SARO/T-FARO/T*-FARO: when ``s_x``, the standard deviation of the risk-reward scores in
#: ``TR_q = x_q / s_x``, is estimated: during the first tree and kept (the paper), or at every tree.
SxUpdate = Literal["first_tree", "every_tree"]
SX_UPDATES: tuple[str, ...] = get_args(SxUpdate)

#: GeoRisk: every other query's z moved to first order, or the paper's shortcut.
GeoRiskUpdate = Literal["first_order", "shortcut"]
GEORISK_UPDATES: tuple[str, ...] = get_args(GeoRiskUpdate)

#: The papers' equations, or the formulas of the authors' Jforests implementation that ran the
#: papers' experiments (see :mod:`riskeval.ltr.objectives`).
Variant = Literal["paper", "jforests"]
VARIANTS: tuple[str, ...] = get_args(Variant)

#: Learned baselines of :class:`riskeval.ltr.Experiment`.
Learner = Literal["lambdamart", "gbrt", "xendcg", "linear"]
LEARNERS: tuple[str, ...] = get_args(Learner)


def check_ltr_options(
    func: str,
    *,
    objective: Any = None,
    sx_update: Any = "first_tree",
    georisk_update: Any = "first_order",
    variant: Any = "paper",
) -> tuple[str, str, str, str]:
    """``(objective, sx_update, georisk_update, variant)`` checked; ``objective=None`` skips it."""
    if objective is not None:
        objective = check_option(objective, OBJECTIVE_NAMES, func, "objective")
    return (
        objective,
        check_option(sx_update, SX_UPDATES, func, "sx_update"),
        check_option(georisk_update, GEORISK_UPDATES, func, "georisk_update"),
        check_option(variant, VARIANTS, func, "variant"),
    )
