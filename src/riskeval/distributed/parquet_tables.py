"""The risk table of a long Parquet score table computed on a Dask cluster, one measure after the
other (:func:`riskeval.distributed.risk.long_risk_table`): what ``riskeval risk --scheduler`` and
``--workers`` print."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.measures.declared import RiskMeasure
    from riskeval.settings import RiskSettings


def cluster_risk_table(
    inputs: Sequence[str],
    measures: Sequence[str],
    settings: RiskSettings,
    risks: list[RiskMeasure] | None,
    alternative: str,
) -> pd.DataFrame:
    """:func:`riskeval.analysis.long_risk_table` of one long Parquet score table (a file, a folder of
    Parquet files or a glob) on the active Dask cluster, of the ``risks`` with the ``alternative``
    of the p-values; with several ``measures``, one after the other, stacked with
    a ``measure`` column first.  Other inputs are an error saying what to give instead."""
    import os

    import pandas as pd

    from riskeval.distributed.risk import long_risk_table
    from riskeval.io.measures import canonical_measure

    path = inputs[0] if len(inputs) == 1 else None
    if path is None or not (os.path.isdir(path) or path.endswith((".parquet", ".pq")) or "*" in path):
        raise RiskevalError(
            "With --scheduler/--workers, risk reads one long score table (columns system, topic, "
            "[measure,] score) on the cluster: a Parquet file (.parquet, .pq), a folder of Parquet "
            f"files or a glob of them; got {', '.join(inputs) or 'no input'}. Write the table as Parquet, "
            "or leave out the cluster options to read it in memory."
        )
    names: list[str | None] = [canonical_measure(m) for m in measures] or [None]
    tables = []
    for name in names:
        table = long_risk_table(path, measure=name, risk=risks, settings=settings, alternative=alternative)
        if name is not None and len(names) > 1:
            table.insert(0, "measure", name)
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
