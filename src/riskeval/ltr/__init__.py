"""Risk-sensitive learning to rank: LambdaMART with U-CRO, T-SARO, T-FARO, T*-FARO and GeoRisk
objectives on LightGBM (SPEC §7).

LightGBM and numba are imported when a model is trained or scored, not when this package is.
"""

from riskeval.ltr.estimator import RiskLambdaMART
from riskeval.ltr.objectives import OBJECTIVES, RiskObjective
from riskeval.ltr.synthetic import RankingData, make_ranking
from riskeval.ltr.train import make_objective, train

__all__ = [
    "OBJECTIVES",
    "RankingData",
    "RiskLambdaMART",
    "RiskObjective",
    "make_objective",
    "make_ranking",
    "train",
]
