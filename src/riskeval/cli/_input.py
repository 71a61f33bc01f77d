"""Options shared by the subcommands that analyse a score table: where the scores come from
(a file or the shipped example) and the risk settings (baseline, α list, level, correction)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_ALPHAS = (0.0, 1.0, 5.0, 10.0)
CORRECTIONS = ("none", "holm", "bh", "bonferroni")


def scores_options(func: Callable) -> Callable:
    """``SCORES`` (a per-topic score table file), ``--example`` and ``--missing``."""
    options = [
        click.argument("scores", required=False, type=click.Path(dir_okay=False)),
        click.option("--example", is_flag=True,
                     help="Use the shipped example: TREC DL 2019 passage, nDCG@10, 37 runs × 43 topics."),
        click.option("--missing", type=click.Choice(("raise", "zero", "drop")), default="raise",
                     show_default=True,
                     help="Topics scored for some systems only: refuse, score them 0, or drop them."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), func)


def risk_options(func: Callable) -> Callable:
    """Baseline, α list, level, correction, standard error, leave-one-out."""
    options = [
        click.option("--baseline", "-b", default="mean", show_default=True,
                     help="A system name, or mean, median or max (per-topic aggregate of all systems)."),
        alpha_option(multiple=True, help="Risk aversion α ≥ 0; repeat the option or give a comma "
                                         "list. [default: 0,1,5,10]"),
        click.option("--level", type=float, default=0.05, show_default=True,
                     help="Two-sided significance level."),
        click.option("--correction", type=click.Choice(CORRECTIONS), default="none",
                     show_default=True,
                     help="Multiple-testing correction of the p-values across systems (per α) "
                          "or, with --topics, across topics."),
        click.option("--se", type=click.Choice(("parametric", "jackknife")), default="parametric",
                     show_default=True, help="Standard error of URisk (equal for a mean)."),
        click.option("--leave-one-out", is_flag=True,
                     help="Aggregate baselines exclude the evaluated system."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), func)


def alpha_option(*, multiple: bool, help: str, default: Any = None) -> Callable:
    return click.option("--alpha", "-a", "alphas", multiple=multiple, default=default, help=help,
                        metavar="A[,A...]" if multiple else "A")


def parse_alphas(values: tuple[str, ...]) -> list[float]:
    """``("0,1", "5")`` -> ``[0.0, 1.0, 5.0]``; nothing given -> the default grid."""
    if not values:
        return list(DEFAULT_ALPHAS)
    out = []
    for value in values:
        for part in str(value).split(","):
            try:
                out.append(float(part))
            except ValueError:
                raise click.BadParameter(f"{part.strip()!r} is not a number.",
                                         param_hint="'--alpha'") from None
    return out


def correction_arg(correction: str) -> str | None:
    return None if correction == "none" else correction


def load_scores(scores: str | None, example: bool, missing: str) -> tuple[pd.DataFrame, str]:
    """The score matrix and a description of where it came from."""
    if example == (scores is not None):
        raise click.UsageError("Give either a score table file (SCORES) or --example.")
    if example:
        from riskeval.datasets import EXAMPLE_SCORES, example_scores

        return example_scores(), f"shipped example {EXAMPLE_SCORES}"
    return _read_table(scores, missing), scores


def _read_table(path: str, missing: str) -> pd.DataFrame:
    """A long (system, topic, score) or wide (first column: system) CSV/TSV/Parquet score table."""
    import warnings

    import numpy as np
    import pandas as pd

    from riskeval.errors import InputFormatError, MissingTopicsError, RiskevalWarning

    if path.endswith((".parquet", ".pq")):
        frame = pd.read_parquet(path).reset_index(drop=True).astype(str)
        where = [f"{path}: row {i + 1}" for i in range(len(frame))]
    else:
        sep = "\t" if path.endswith((".tsv", ".tab")) else ","
        try:
            frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise InputFormatError([(path, f"not a {'TSV' if sep != ',' else 'CSV'} table: {exc}")]) from None
        where = [f"{path}:{i + 2}" for i in range(len(frame))]
    if {"system", "topic", "score"} <= set(frame.columns):
        long = frame[["system", "topic", "score"]]
    else:
        long = frame.melt(id_vars=frame.columns[0], var_name="topic", value_name="score")
        long = long.rename(columns={frame.columns[0]: "system"})
        where = where * (frame.shape[1] - 1)
    values = pd.to_numeric(long["score"], errors="coerce").to_numpy(dtype=np.float64)
    problems = [(where[i], f"field 'score' must be a finite number; got {long['score'].iloc[i]!r}")
                for i in np.flatnonzero(~np.isfinite(values))]
    dup = long.duplicated(["system", "topic"]).to_numpy()
    problems += [(where[i], f"duplicate (system, topic) pair {tuple(long.iloc[i, :2])}")
                 for i in np.flatnonzero(dup)]
    if problems:
        raise InputFormatError(problems)
    matrix = (long.assign(score=values).pivot(index="system", columns="topic", values="score")
              .rename_axis(index="system", columns="topic"))
    holes = int(matrix.isna().to_numpy().sum())
    if holes and missing == "raise":
        raise MissingTopicsError(f"{path}: {holes} (system, topic) cell(s) have no score; choose "
                                 "--missing zero or --missing drop.")
    if holes:
        warnings.warn(f"{path}: {holes} missing (system, topic) cell(s) handled by "
                      f"--missing {missing}.", RiskevalWarning, stacklevel=2)
        matrix = matrix.fillna(0.0) if missing == "zero" else matrix.dropna(axis=1)
    return matrix
