"""Risk-sensitive evaluation from the arguments PyTerrier users give ``pt.Experiment`` (Macdonald,
Tonellotto, MacAvaney & Ounis, CIKM 2021): the retrieval systems (transformers or result frames),
the topics, the qrels and the measures, with a baseline.

The systems are run on the topics by PyTerrier; their results are evaluated by riskeval
(:func:`riskeval.io.evaluate_runs_long`, so the values are those of the same results as run files) and
the risk measures computed by :func:`riskeval.risk_table` (URisk/TRisk: Dinçer, Macdonald & Ounis,
SIGIR 2014; ZRisk/GeoRisk: Dinçer, Macdonald & Ounis, SIGIR 2016).  python-terrier is the optional
extra ``pyterrier`` (``pip install "riskeval[pyterrier]"``); nothing here starts Java unless a
system does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from riskeval._optional import require
from riskeval.analysis.table import risk_table
from riskeval.errors import RiskevalError
from riskeval.evaluation.api import evaluate_runs_long
from riskeval.evaluation.inputs import qrels_input
from riskeval.io.inputs import score_matrix
from riskeval.io.irds import PREFIX, irds_topics
from riskeval.io.qrels import read_qrels


def risk_experiment(
    retr_systems: Any,
    topics: Any,
    qrels: Any,
    eval_metrics: Any,
    *,
    names: Sequence[str] | None = None,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0),
    missing: str = "zero",
    filter_by_topics: bool = True,
    se: str = "parametric",
    level: float = 0.05,
    correction: str | None = None,
    leave_one_out: bool = False,
) -> pd.DataFrame:
    """The risk table of PyTerrier systems, from the arguments of ``pt.Experiment``.

    Parameters
    ----------
    retr_systems : a list of PyTerrier transformers or results DataFrames (``qid, docno, score``),
        or a dict name -> transformer or results, as ``pt.Experiment`` takes them.
    topics : a DataFrame with ``qid`` and ``query`` (as ``dataset.get_topics()`` gives), a topics
        file (read by ``pt.io.read_topics``) or an ir_datasets id ``"irds:<id>"``.
    qrels : a DataFrame with ``qid, docno, label`` (as ``dataset.get_qrels()`` gives), a TREC qrels
        file, an ir_datasets id ``"irds:<id>"``, or any qrels :func:`riskeval.evaluate_runs` takes.
    eval_metrics : a list of measures: ir_measures objects (``nDCG@10`` from ``pyterrier.measures``)
        or names in ir_measures', trec_eval's or ranx's spelling (``"nDCG@10"``, ``"map"``,
        ``"ndcg@10"``).
    names : the systems' names; ``None``: as ``pt.Experiment``, ``str(transformer)`` (a results
        DataFrame is named ``"results <i>"``, its position from 0); the keys of a dict.
    baseline : the position of the baseline system in ``retr_systems`` (as ``pt.Experiment``'s
        ``baseline``), its name, or ``"mean"``, ``"median"``, ``"max"`` (the per-topic mean,
        median or maximum over the systems, Dinçer, Ounis & Macdonald, ECIR 2014).
    alphas, se, level, correction, leave_one_out : as for :func:`riskeval.risk_table`.
    missing : topics judged in the qrels (and among the topics) that a system retrieves nothing
        for: ``"zero"`` (score 0, as ``trec_eval -c``), ``"drop"`` or ``"raise"``, see
        :func:`riskeval.evaluate_runs`.
    filter_by_topics : keep only the judgments of the topics given, as ``pt.Experiment`` does by
        default.

    Returns
    -------
    DataFrame
        :func:`riskeval.risk_table`'s rows for each system and α; with several measures, a first
        column ``measure`` (ir_measures' spelling) and the rows of each measure in turn.
    """
    pt = require("pyterrier", "risk_experiment")
    systems, system_names = _systems(retr_systems, names)
    topics_frame = _topics(topics, pt)
    measures = [eval_metrics] if isinstance(eval_metrics, str) else list(eval_metrics)
    qrels_frame = _qrels(qrels, topics_frame, filter_by_topics)
    results = {
        name: system if isinstance(system, pd.DataFrame) else _transform(system, topics_frame, name)
        for name, system in zip(system_names, systems, strict=True)
    }
    long = evaluate_runs_long(qrels_frame, results, measures, missing=missing)
    chosen = _baseline(baseline, system_names)
    tables = []
    for measure in long["measure"].unique():
        M = score_matrix(long, measure=measure)
        table = risk_table(
            M, chosen, alphas, se=se, level=level, correction=correction, leave_one_out=leave_one_out
        )
        if len(measures) > 1:
            table.insert(0, "measure", measure)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def _systems(retr_systems: Any, names: Sequence[str] | None) -> tuple[list[Any], list[str]]:
    if isinstance(retr_systems, Mapping):
        if names is not None:
            raise RiskevalError("With retr_systems a dict, its keys are the names; leave names= out.")
        systems, chosen = list(retr_systems.values()), [str(k) for k in retr_systems]
    elif isinstance(retr_systems, (list, tuple)):
        systems = list(retr_systems)
        if names is None:
            chosen = [
                f"results {i}" if isinstance(s, pd.DataFrame) else str(s) for i, s in enumerate(systems)
            ]
        else:
            chosen = [str(n) for n in names]
            if len(chosen) != len(systems):
                raise RiskevalError(
                    f"names= gives {len(chosen)} name(s) for {len(systems)} system(s); give one per system."
                )
    else:
        raise RiskevalError(
            "retr_systems must be a list of PyTerrier transformers or results DataFrames, or a dict "
            f"name -> transformer or results; got {type(retr_systems).__name__}."
        )
    if len(systems) < 2:
        raise RiskevalError("risk_experiment needs at least two systems, one of them the baseline.")
    repeated = sorted({n for n in chosen if chosen.count(n) > 1})
    if repeated:
        raise RiskevalError(f"Several systems are named {repeated}; give distinct names with names=[...].")
    return systems, chosen


def _topics(topics: Any, pt: Any) -> pd.DataFrame:
    if isinstance(topics, str) and topics.startswith(PREFIX):
        return irds_topics(topics)
    if isinstance(topics, str):
        return pt.io.read_topics(topics)
    if not isinstance(topics, pd.DataFrame) or "qid" not in topics.columns:
        raise RiskevalError(
            "topics must be a DataFrame with columns qid and query (as PyTerrier's get_topics() "
            "gives), a topics file or an ir_datasets id 'irds:<id>'; got "
            + (
                f"columns {list(topics.columns)}."
                if isinstance(topics, pd.DataFrame)
                else f"{type(topics).__name__}."
            )
        )
    return topics.assign(qid=topics["qid"].astype(str))


def _qrels(qrels: Any, topics: pd.DataFrame, filter_by_topics: bool) -> pd.DataFrame:
    frame = qrels_input(qrels)
    if not isinstance(frame, pd.DataFrame):  # a path
        frame = read_qrels(frame)
    if not filter_by_topics:
        return frame
    kept = frame[frame["query_id"].isin(set(topics["qid"]))]
    if kept.empty:
        raise RiskevalError(
            "No topic of the topics is judged in the qrels (qids differ); check both, or set "
            "filter_by_topics=False."
        )
    return kept


def _transform(system: Any, topics: pd.DataFrame, name: str) -> pd.DataFrame:
    if not hasattr(system, "transform"):
        raise RiskevalError(
            f"System {name!r} is neither a PyTerrier transformer nor a results DataFrame; got "
            f"{type(system).__name__}."
        )
    return system.transform(topics)


def _baseline(baseline: Any, names: list[str]) -> Any:
    """PyTerrier's baseline (a position in retr_systems) as the system name; names and riskeval's
    aggregate baselines unchanged."""
    if isinstance(baseline, bool) or baseline is None:
        raise RiskevalError(
            "baseline must be the position of a system in retr_systems, a system name, or 'mean', "
            f"'median', 'max'; got {baseline!r}."
        )
    if isinstance(baseline, int):
        if not 0 <= baseline < len(names):
            raise RiskevalError(
                f"baseline={baseline} is not the position of a system: there are {len(names)} systems."
            )
        return names[baseline]
    return baseline
