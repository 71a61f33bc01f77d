"""riskeval: risk-sensitive and robustness evaluation of search and ranking systems.

Score matrices are pandas DataFrames, systems (rows) × topics (columns).  The measures follow the
papers listed in SPEC.md: URisk/TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014), unbiased baselines
(ECIR 2014), ZRisk/GeoRisk (SIGIR 2016).
"""

from riskeval.analysis.bias_study import BiasStudy, bias_study
from riskeval.analysis.bootstrap import bootstrap_ci
from riskeval.analysis.table import risk_table
from riskeval.core.corrections import adjust_pvalues
from riskeval.datasets import example_scores
from riskeval.errors import (
    InputFormatError,
    MissingTopicsError,
    MissingTopicsWarning,
    RiskevalError,
    RiskevalWarning,
)
from riskeval.evaluation import evaluate_runs, evaluate_runs_long
from riskeval.io import (
    apply_missing,
    as_matrix,
    from_ir_measures,
    from_long,
    from_wide,
    read_scores,
    read_trec_eval,
    score_matrix,
)
from riskeval.measures.baselines import baseline
from riskeval.measures.chisq import georisk, zrisk
from riskeval.measures.paired import risk_reward, topic_risk, trisk, urisk
from riskeval.measures.results import RiskReward, TRiskResult

__version__ = "0.1.0"

__all__ = [
    "BiasStudy",
    "InputFormatError",
    "MissingTopicsError",
    "RiskReward",
    "RiskevalError",
    "RiskevalWarning",
    "TRiskResult",
    "adjust_pvalues",
    "baseline",
    "bias_study",
    "bootstrap_ci",
    "evaluate_runs",
    "evaluate_runs_long",
    "example_scores",
    "georisk",
    "risk_reward",
    "risk_table",
    "topic_risk",
    "trisk",
    "urisk",
    "zrisk",
    # inputs
    "MissingTopicsWarning",
    "apply_missing",
    "as_matrix",
    "from_ir_measures",
    "from_long",
    "from_wide",
    "read_scores",
    "read_trec_eval",
    "score_matrix",
]
