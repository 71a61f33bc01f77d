"""Score matrices from the inputs a command line names: one score table, trec_eval or
ir_measures ``-q`` files (each file's format told by :mod:`riskeval.io.formats`), TREC runs with
their qrels (all measures in one pass over each run, :func:`riskeval.evaluation.evaluate_runs_long`),
or standard input (``-``), as ``riskeval evaluate --per-topic --format csv | riskeval risk -``
writes it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.options import MissingPolicy


class ScoreInputError(RiskevalError):
    """The inputs do not name one source of scores (a folder, runs without qrels, several score
    tables): a mistake in how the command line is used, shown as such."""


class ScoreInputs(NamedTuple):
    """The score matrices read, one per measure in the order given (measure name -> systems ×
    topics), a one-line description of their source, the files read, whether the first
    measure was named (by the input or the request), and the runs' judged fractions at the depth
    of each measure when asked for (measure name -> systems × topics matrix of ``Judged@k``, see
    :func:`riskeval.evaluation.judged.judged_fractions`)."""

    matrices: dict[str, pd.DataFrame]
    source: str
    files: list[str]
    named: bool = True
    judged: dict[str, pd.DataFrame] | None = None


def refuse_folders(inputs: tuple[str, ...] | list[str]) -> None:
    """A :class:`ScoreInputError` for the first folder among ``inputs``."""
    folders = [p for p in inputs if os.path.isdir(p)]
    if folders:
        raise ScoreInputError(
            f"{folders[0]} is a folder: give files. A folder of Parquet files is read as one long "
            "score table by riskeval risk on a Dask cluster (--scheduler or --workers)."
        )


def read_score_inputs(
    inputs: tuple[str, ...],
    qrels: str | None,
    measures: list[str],
    *,
    names: str | None,
    missing: MissingPolicy | None,
    client: Any = None,
    default_measure: str = "nDCG@10",
    unjudged: str = "nonrelevant",
    judged: bool = False,
) -> ScoreInputs:
    """The score matrices of ``inputs``: run files evaluated against ``qrels`` with ``measures``
    (``default_measure`` when empty; ``missing`` default ``"zero"``, as ``trec_eval -c``; on
    ``client``'s Dask cluster when given), ``("-",)`` for standard input, or per-query files
    (:func:`riskeval.io.matrices.score_matrices`; ``missing`` default ``"raise"``).  ``names``:
    ``None`` (run tags) or ``"file"``; ``unjudged``: the policy of the runs' unjudged documents
    (:func:`riskeval.evaluate_runs`); ``judged``: with ``qrels``, the runs' ``Judged@k`` at the
    depth of each measure too, evaluated in the same pass over each run
    (:func:`riskeval.evaluation.judged.judged_depths`)."""
    refuse_folders(inputs)
    if qrels is not None:
        if not inputs:
            raise ScoreInputError("--qrels needs at least one run file.")
        from riskeval.evaluation.api import evaluate_runs_long
        from riskeval.evaluation.judged import judged_depths

        measures = measures or [default_measure]
        depths = judged_depths(measures) if judged else {}
        long = evaluate_runs_long(
            qrels,
            list(inputs),
            list(dict.fromkeys([*measures, *depths.values()])),
            names=names,
            missing=missing or "zero",
            client=client,
            unjudged=unjudged,
        )
        matrices = split_measures(long)
        added = set(depths.values()) - set(measures)
        scores = {m: matrix for m, matrix in matrices.items() if m not in added}
        fractions = None
        if judged:  # by the measures' names in the scores (nDCG@10 for ndcg_cut_10)
            fractions = {name: matrices[depths[str(m)]] for name, m in zip(scores, measures, strict=True)}
        return ScoreInputs(
            scores,
            f"{len(inputs)} run(s) evaluated with {', '.join(measures)} against {qrels}",
            [qrels, *inputs],
            judged=fractions,
        )
    if inputs == ("-",):
        return _from_stdin(measures, names, missing)
    from riskeval.io.formats import PER_QUERY, UNNAMED, format_of
    from riskeval.io.matrices import score_matrices

    if not inputs or (len(inputs) > 1 and any(format_of(p).kind != PER_QUERY for p in inputs)):
        raise ScoreInputError(
            "Give one score table file, trec_eval or ir_measures -q files, run files with --qrels, "
            "or --example."
        )
    matrices = score_matrices(
        list(inputs) if len(inputs) > 1 else inputs[0],
        measures or None,
        missing=missing or "raise",
        names=names,
    )
    source = inputs[0] if len(inputs) == 1 else f"{len(inputs)} per-query files"
    named = bool(measures) or next(iter(matrices)) != UNNAMED
    return ScoreInputs(matrices, source, list(inputs), named)


#: How standard input is named in messages.
STDIN = "standard input"


def _from_stdin(measures: list[str], names: str | None, missing: MissingPolicy | None) -> ScoreInputs:
    """The scores of ``-``: a score table or trec_eval/ir_measures ``-q`` output read from standard
    input; its format is told by its content (:func:`riskeval.io.formats.format_of`).

    Standard input is copied to a temporary file one MiB at a time, its bytes counted against the
    input size limit (:func:`riskeval.io.decoding.input_limit`) as they arrive: more is refused
    without being held in memory.  Problems name ``standard input``, not the temporary file."""
    import sys
    import tempfile

    from riskeval.io.decoding import input_limit, too_large

    limit = input_limit()
    with tempfile.TemporaryDirectory(prefix="riskeval-stdin-") as folder:
        path = os.path.join(folder, "stdin")
        with open(path, "wb") as file:
            copied = 0
            while chunk := sys.stdin.buffer.read(2**20):
                copied += len(chunk)
                if copied > limit:
                    raise too_large(STDIN, limit, None)
                file.write(chunk)
        try:
            scores = read_score_inputs((path,), None, measures, names=names, missing=missing)
        except RiskevalError as exc:
            raise _renamed(exc, path) from None
    return scores._replace(source=STDIN, files=["-"])


def _renamed(exc: RiskevalError, path: str) -> RiskevalError:
    """``exc`` with the temporary file ``path`` named ``standard input``."""
    from riskeval.errors import InputFormatError

    if isinstance(exc, InputFormatError):
        problems = [(where.replace(path, STDIN), what.replace(path, STDIN)) for where, what in exc.problems]
        return InputFormatError(problems, omitted=exc.omitted)
    return type(exc)(str(exc).replace(path, STDIN))


def split_measures(long: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Systems × topics matrices, per measure, of :func:`riskeval.evaluation.evaluate_runs_long`'s
    table (its order of systems and topics kept)."""
    out = {}
    for name, part in long.groupby("measure", sort=False):
        systems, topics = part["system"].unique(), part["topic"].unique()
        matrix = part.pivot(index="system", columns="topic", values="score")
        out[str(name)] = matrix.reindex(index=systems, columns=topics).rename_axis(
            index="system", columns="topic"
        )
    return out


def mean_scores(long: pd.DataFrame, *, wide: bool = False) -> pd.DataFrame:
    """Each system's mean of each measure over the topics of
    :func:`riskeval.evaluation.evaluate_runs_long`'s table (``trec_eval``'s ``all`` lines,
    ``ir_measures``' aggregate): long (system, measure, score) or ``wide``, one row per system and
    one column per measure, in the order of the runs and measures given."""
    means = long.groupby(["system", "measure"], sort=False)["score"].mean().reset_index()
    if not wide:
        return means
    table = means.pivot(index="system", columns="measure", values="score")
    table = table.reindex(index=means["system"].unique(), columns=means["measure"].unique())
    return table.rename_axis(columns=None).reset_index()
