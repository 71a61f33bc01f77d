"""The bias–variance table of a score matrix as the command line prints it: the decomposition
of each system's per-topic scores (Zhang, Song, Wang & Hou, SIGIR 2013, eq. 1–9) beside GMAP and,
against a reference system, the robustness index and <Init."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def bias_variance_table(
    matrix: pd.DataFrame,
    target: Any = "perfect",
    *,
    form: str = "ap",
    best_of: list[str] | None = None,
    reference: str | None = None,
) -> pd.DataFrame:
    """:func:`riskeval.analysis.bias_variance.bias_variance` of every system of ``matrix`` against
    ``target`` (``form``, ``best_of`` as there) with its ``gmap``; with ``reference``, the
    ``robustness_index`` and ``below_init`` of each system against it
    (:func:`riskeval.analysis.bias_variance.robustness_index`).  One row per system."""
    from riskeval.analysis.bias_variance import bias_variance, gmap, robustness_index

    result = bias_variance(matrix, target, form=form, best_of=best_of)
    table = result.to_frame().assign(gmap=gmap(matrix).to_numpy())
    if reference is None:
        return table
    robust = robustness_index(matrix, reference).to_frame()
    return table.join(robust[["robustness_index", "below_init"]])
