"""riskeval: risk-sensitive and robustness evaluation of search and ranking systems.

Score matrices are pandas DataFrames, systems (rows) × topics (columns).  The measures follow the
papers listed in SPEC.md: URisk/TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014), unbiased baselines
(ECIR 2014), ZRisk/GeoRisk (SIGIR 2016).
"""

from riskeval.analysis.bias_study import BiasStudy, bias_study
from riskeval.analysis.bootstrap import bootstrap_ci
from riskeval.analysis.table import risk_table
from riskeval.core.corrections import adjust_pvalues
from riskeval.errors import InputFormatError, MissingTopicsError, RiskevalError, RiskevalWarning
from riskeval.measures.baselines import baseline
from riskeval.measures.chisq import georisk, zrisk
from riskeval.measures.paired import risk_reward, topic_risk, trisk, urisk
from riskeval.measures.results import RiskReward, TRiskResult

# isort: split
# query variations: mean-variance evaluation, bias-variance decomposition
from riskeval.analysis.bias_variance import bias_variance, gmap, robustness_index
from riskeval.analysis.variations import mean_variance, mean_variance_sweep, rank_changes, swap_alpha
from riskeval.core.rank_correlation import tau_ap
from riskeval.io.clef2015 import load_clef2015, read_clef2015_queries
from riskeval.io.variations import read_mapping, read_variations, variation_array, variations_from_scores

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
    "georisk",
    "risk_reward",
    "risk_table",
    "topic_risk",
    "trisk",
    "urisk",
    "zrisk",
    # query variations
    "bias_variance",
    "gmap",
    "load_clef2015",
    "mean_variance",
    "mean_variance_sweep",
    "rank_changes",
    "read_clef2015_queries",
    "read_mapping",
    "read_variations",
    "robustness_index",
    "swap_alpha",
    "tau_ap",
    "variation_array",
    "variations_from_scores",
]
