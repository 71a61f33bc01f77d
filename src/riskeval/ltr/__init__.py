"""Risk-sensitive learning to rank: LambdaMART with U-CRO, T-SARO, T-FARO, T*-FARO and GeoRisk
objectives on LightGBM (Dinçer, Macdonald & Ounis, SIGIR 2014, §6, and SIGIR 2016, §6).

Names are imported on first use; LightGBM and numba when a model is trained or scored, so
``import riskeval.ltr`` (and ``riskeval ltr --help``) stays fast.
"""

from __future__ import annotations

from riskeval import _lazy

_EXPORTS = {
    "Experiment": "riskeval.ltr.experiment",
    "ExperimentResult": "riskeval.ltr.experiment",
    "OBJECTIVES": "riskeval.ltr.objectives",
    "RankingData": "riskeval.ltr.synthetic",
    "RiskLambdaMART": "riskeval.ltr.estimator",
    "RiskObjective": "riskeval.ltr.objectives",
    "check_lightgbm_params": "riskeval.ltr.lightgbm_params",
    "make_objective": "riskeval.ltr.training",
    "make_ranking": "riskeval.ltr.synthetic",
    "read_letor_files": "riskeval.ltr.workflow",
    "read_model": "riskeval.ltr.models",
    "train": "riskeval.ltr.training",
    "write_model": "riskeval.ltr.models",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
