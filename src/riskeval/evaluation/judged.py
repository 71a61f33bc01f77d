"""How much of each run's ranking the qrels judge: ir_measures' ``Judged@k`` at a measure's depth.

``Judged@k`` (ir_measures' ``judged`` provider, adapted from OpenNIR) is the fraction of the top
``k`` documents of a run's ranking for a topic that appear in the qrels of that topic, at any grade
(a grade of 0 or below is judged too).  Its conventions, which riskeval keeps by computing it with
ir_measures itself:

- the ranking is by score, ties by document id in ascending order (ir_measures' order for this
  measure, not trec_eval's);
- a topic for which the run returns fewer than ``k`` documents is divided by the number returned
  (3 documents, 2 judged: 2/3, not 2/k);
- ``Judged`` without a cutoff is the fraction of every document the run returns for the topic;
- a topic judged in the qrels but absent from a run follows the evaluation's ``missing`` policy
  (``"zero"``: 0, nothing returned and nothing judged), as every measure does.

A loss against the baseline on a topic where the system's own ranking is judged at less than
:data:`riskeval.reporting.judged.JUDGED_THRESHOLD` of its depth may be a hole in the qrels rather
than a worse ranking: the report flags such topics.  ``riskeval evaluate -m Judged@10`` prints it
like any other measure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from riskeval.io.measure_depth import judged_measure

if TYPE_CHECKING:
    import pandas as pd


def judged_fractions(
    qrels: Any,
    runs: Any,
    measures: Any = ("nDCG@10",),
    *,
    names: Any = None,
    missing: str = "zero",
    client: Any = None,
) -> dict[str, pd.DataFrame]:
    """The judged fraction of every run and topic at the depth of each of ``measures``.

    Evaluates ``Judged@k`` (:func:`riskeval.io.measure_depth.judged_measure` of each measure) with
    :func:`riskeval.evaluate_runs_long`, whose parameters ``qrels``, ``runs``, ``names``,
    ``missing`` and ``client`` these are: the systems and topics are those of the scores of the same
    call.

    Returns
    -------
    dict
        Measure (as given) -> systems × topics matrix of judged fractions in [0, 1].
    """
    from riskeval.evaluation.api import evaluate_runs_long
    from riskeval.evaluation.score_inputs import split_measures

    depths = judged_depths(measures)
    long = evaluate_runs_long(
        qrels, runs, list(dict.fromkeys(depths.values())), names=names, missing=missing, client=client
    )
    by_depth = split_measures(long)
    return {m: by_depth[depth] for m, depth in depths.items()}


def judged_depths(measures: Any) -> dict[str, str]:
    """Each of ``measures`` (a name, or several) -> its ``Judged@k``
    (:func:`riskeval.io.measure_depth.judged_measure`): what :func:`judged_fractions` evaluates, and
    what ``riskeval report --qrels`` evaluates with the measures, in the same pass over each run."""
    wanted = [measures] if isinstance(measures, str) else list(measures)
    return {str(m): judged_measure(m) for m in wanted}
