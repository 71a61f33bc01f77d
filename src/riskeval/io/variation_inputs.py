"""Query-variation data from the inputs a command line names (Zuccon, Palotti & Hanbury, CIKM
2016; Zhang, Song, Wang & Hou, SIGIR 2013): a tidy variation table, trec_eval or ir_measures
``-q`` files with a query → (topic, variant) mapping, or the CLEF eHealth 2015 Task 2 folder
(:mod:`riskeval.io.clef2015`), exactly one of them; the data of the report's variation sections;
and the α grid of a sweep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd

#: The most α values :func:`sweep_alphas` gives (the paper's grid -20:20:0.1 has 401).
MAX_SWEEP_POINTS = 100_001


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


def topic_weights(path: str | None) -> dict[str, float] | None:
    """The topic weights ``w_i`` of the mean-variance evaluation read from ``path``
    (:func:`riskeval.io.topic_weights.read_topic_weights`), or ``None`` (uniform) without one."""
    if path is None:
        return None
    from riskeval.io.topic_weights import read_topic_weights

    return read_topic_weights(path)


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


def report_variation_data(variations: str | None, bias_target: str | None) -> tuple[dict, list[str]]:
    """``data=`` of :func:`riskeval.report` for its query-variation sections (the variation table of
    the file ``variations``; the bias-variance target, a number or a label), and the files read."""
    from riskeval.io.variations import read_variation_table

    data: dict = {}
    if variations is not None:
        data["variations"] = read_variation_table(variations)
    if bias_target is not None:
        data["bias_variance"] = {"target": number_or_label(bias_target)}
    return data, [variations] if variations else []


def number_or_label(text: str) -> float | str:
    """A bias-variance target as given: a number (the target mean), else a label (perfect, best, a
    system name)."""
    try:
        return float(text)
    except ValueError:
        return text


def sweep_alphas(text: str) -> Any:
    """The α grid of ``START:STOP:STEP`` (finite decimal numbers, e.g. the paper's -20:20:0.1, Zuccon,
    Palotti & Hanbury, CIKM 2016, Figures 2–4), both ends included, at most
    :data:`MAX_SWEEP_POINTS` values."""
    import math

    import numpy as np

    from riskeval.io.numbers import parse_decimal

    parts = [parse_decimal(x.strip()) for x in text.split(":")]
    if len(parts) != 3 or any(p is None or not math.isfinite(p) for p in parts):
        raise RiskevalError(f"--sweep takes START:STOP:STEP (finite numbers), e.g. -20:20:0.1; got {text!r}.")
    start, stop, step = (float(p) for p in parts)  # type: ignore[arg-type]
    if step <= 0 or stop < start:
        raise RiskevalError(f"--sweep needs STEP > 0 and STOP >= START; got {text!r}.")
    count = (stop - start) / step
    if not count < MAX_SWEEP_POINTS:  # also catches an infinite count (a huge span, a tiny step)
        raise RiskevalError(
            f"--sweep {text} asks for about {count:.3g} values of α; at most {MAX_SWEEP_POINTS} are "
            "computed: use a larger STEP or a shorter range."
        )
    return np.linspace(start, stop, int(round(count)) + 1)
