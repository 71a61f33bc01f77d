"""Query-variation data from the inputs a command line names (Zuccon, Palotti & Hanbury, CIKM
2016; Zhang, Song, Wang & Hou, SIGIR 2013): a tidy variation table, trec_eval or ir_measures
``-q`` files with a query → (topic, variant) mapping, or the CLEF eHealth 2015 Task 2 folder
(:mod:`riskeval.io.clef2015`), exactly one of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd


def read_variations(
    inputs: tuple[str, ...], mapping: str | None, measure: str, clef_root: str | None
) -> pd.DataFrame:
    """The tidy variation table (system, topic, variant, score) of exactly one kind of input: the
    CLEF 2015 folder ``clef_root`` (``measure`` of its evaluations), per-query files of the systems
    with the ``mapping`` file (:func:`riskeval.io.variations.read_mapping`), or one table
    (:func:`riskeval.io.variations.read_variation_table`)."""
    from riskeval.io.clef2015 import read_clef2015
    from riskeval.io.variations import read_mapping, read_variation_table

    if clef_root is not None:
        if inputs or mapping:
            raise RiskevalError("Give either --clef2015 or input files, not both.")
        return read_clef2015(clef_root, measure=measure)
    if mapping is not None:
        if not inputs:
            raise RiskevalError(
                "--mapping needs the trec_eval or ir_measures -q files of the systems as arguments."
            )
        from riskeval.io.per_query import read_per_query
        from riskeval.model.variations import from_scores

        [matrix] = read_per_query(list(inputs), [measure]).values()  # trec_eval or ir_measures output
        return from_scores(matrix, read_mapping(mapping))
    if len(inputs) != 1:
        raise RiskevalError(
            "Give one table (CSV/TSV/Parquet with columns system, topic, variant, score), "
            "trec_eval -q files with --mapping, or --clef2015 DIR."
        )
    return read_variation_table(inputs[0])


def clef2015_matrix(root: str, measure: str, variant: str | None) -> pd.DataFrame:
    """Systems × queries scores of CLEF eHealth 2015 Task 2 (every evaluated query, incomplete
    needs kept), or, for one ``variant`` (pivot, most, least), systems × needs."""
    from riskeval.io.clef2015 import read_clef2015

    tidy = read_clef2015(root, measure=measure, incomplete="keep")
    if variant is None:
        return tidy.pivot(index="system", columns="query", values="score")
    tidy = tidy[tidy["variant"] == variant]
    if tidy.empty:
        raise RiskevalError(f"No CLEF 2015 query has variant {variant!r} (pivot, most, least).")
    return tidy.pivot(index="system", columns="topic", values="score")
