"""riskeval: risk-sensitive and robustness evaluation of search and ranking systems.

Score matrices are pandas DataFrames, systems (rows) × topics (columns).  The measures follow these
papers: URisk/TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014), unbiased baselines (Dinçer, Ounis &
Macdonald, ECIR 2014), ZRisk/GeoRisk (Dinçer, Macdonald & Ounis, SIGIR 2016), the bias–variance
decomposition (Zhang, Song, Wang & Hou, SIGIR 2013) and mean–variance evaluation over query
variations (Zuccon, Palotti & Hanbury, CIKM 2016).

The top level holds what an evaluation starts with: the risk measures, the settings, the score
matrix, the risk table and the tests most used.  The rest is in namespaces:

- :mod:`riskeval.io`: readers of files (``read_*``) and of objects in memory (``from_*``);
- :mod:`riskeval.inference`: randomisation tests, bootstrap intervals, p-value adjustment;
- :mod:`riskeval.variations`: query variations (mean–variance, bias–variance) and their readers;
- :mod:`riskeval.analysis`: baselines, the baseline-bias study, run comparisons, long tables;
- :mod:`riskeval.ltr`: risk-sensitive learning to rank;
- :mod:`riskeval.bayes`: Bayesian risk inference over many systems (the ``bayes`` extra);
- :mod:`riskeval.errors`: every error and warning riskeval raises.

Names are imported on first use, so ``import riskeval`` (and ``riskeval --help``) stays fast.
"""

from __future__ import annotations

from riskeval import _lazy

__version__ = "1.5.0"  # the one place of the version (pyproject.toml reads it)

#: the namespaces, modules of their own
_NAMESPACES = ("analysis", "bayes", "errors", "inference", "io", "ltr", "variations")

# public name -> module that defines it
_EXPORTS = {
    # risk measures and settings
    "URisk": "riskeval.measures.declared",
    "TRisk": "riskeval.measures.declared",
    "TStarRisk": "riskeval.measures.declared",
    "ZRisk": "riskeval.measures.declared",
    "GeoRisk": "riskeval.measures.declared",
    "parse_risk": "riskeval.measures.declared",
    "RiskMeasure": "riskeval.measures.declared",
    "register_risk": "riskeval.measures.declared",
    "RiskSettings": "riskeval.settings",
    # the measures as functions, and tables of them
    "urisk": "riskeval.measures.paired",
    "trisk": "riskeval.measures.paired",
    "zrisk": "riskeval.measures.chisq",
    "georisk": "riskeval.measures.chisq",
    "risk_table": "riskeval.analysis.table",
    "topic_risk": "riskeval.measures.paired",
    "riskiest_topics": "riskeval.analysis.topics",
    "compare_runs": "riskeval.analysis.run_comparison",
    "compare": "riskeval.inference.comparison",
    "bias_study": "riskeval.analysis.baseline_bias",
    # inputs
    "score_matrix": "riskeval.io.inputs",
    "evaluate_runs": "riskeval.evaluation.api",
    "example_scores": "riskeval.datasets",
    # tests and intervals
    "bootstrap_ci": "riskeval.inference.bootstrap",
    "permutation_test": "riskeval.inference.permutation",
    "risk_permutation_table": "riskeval.inference.maxt",
    "tukey_hsd": "riskeval.inference.tukey",
    # report and tables for papers
    "report": "riskeval.reporting",
    "to_latex": "riskeval.formatting",
    "to_markdown": "riskeval.formatting",
    # errors
    "RiskevalError": "riskeval.errors",
}

#: names that moved in 1.1, still read here with a DeprecationWarning until 2.0: name -> namespace
_MOVED = {"RiskevalWarning": "riskeval.errors"}

__all__ = sorted([*_EXPORTS, *_NAMESPACES])

__getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS, submodules=_NAMESPACES, moved=_MOVED)
