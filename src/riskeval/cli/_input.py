"""Options shared by the subcommands that analyse scores: where the scores come from (a score table,
TREC runs with their qrels, or the shipped example) and the risk settings (baseline, α list, level,
correction)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from riskeval import options
from riskeval.options import MISSING_POLICIES, MissingPolicy

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_ALPHAS = (0.0, 1.0, 5.0, 10.0)
CORRECTIONS = ("none", *options.CORRECTIONS)
#: The measure of the shipped example, and the one evaluated from runs when --measure is not given.
DEFAULT_MEASURE = "nDCG@10"


class Scores(NamedTuple):
    """The score matrix and what it came from: a one-line description, the input files, the measure."""

    matrix: pd.DataFrame
    source: str
    files: list[str]
    measure: str | None


def _stack(options: list[Callable]) -> Callable:
    return lambda func: functools.reduce(lambda f, option: option(f), reversed(options), func)


scores_options = _stack(
    [
        click.argument("inputs", nargs=-1, type=click.Path(dir_okay=False), metavar="[SCORES | RUNS...]"),
        click.option(
            "--example",
            is_flag=True,
            help="Use the shipped example: TREC DL 2019 passage, nDCG@10, 37 runs × 43 topics.",
        ),
        click.option(
            "--qrels",
            type=click.Path(dir_okay=False),
            help="Evaluate the inputs as TREC run files (plain or .gz) against these qrels.",
        ),
        click.option(
            "--measure",
            "-m",
            default=None,
            help="With --qrels: the measure to evaluate, named as in ir_measures [default: "
            "nDCG@10]. With a table that has a 'measure' column: which one to read. "
            "Otherwise: the measure's name, for the record.",
        ),
        click.option(
            "--name-from",
            type=click.Choice(("tag", "file")),
            default="tag",
            show_default=True,
            help="With --qrels: name systems by run tag or by file name.",
        ),
        click.option(
            "--missing",
            type=click.Choice(MISSING_POLICIES),
            default=None,
            help="Topics scored for some systems only (a table), or judged but absent from a "
            "run (--qrels): refuse, score them 0, or drop them. [default: raise for a "
            "table, zero for runs, as trec_eval -c]",
        ),
    ]
)


def risk_options(func: Callable) -> Callable:
    """Baseline, α list, level, correction, standard error, leave-one-out."""
    return _stack(
        [
            click.option(
                "--baseline",
                "-b",
                default="mean",
                show_default=True,
                help="A system name, or mean, median or max (per-topic aggregate of all systems).",
            ),
            alpha_option(
                multiple=True,
                help="Risk aversion α ≥ 0; repeat the option or give a comma list. [default: 0,1,5,10]",
            ),
            click.option(
                "--level", type=DECIMAL, default=0.05, show_default=True, help="Two-sided significance level."
            ),
            click.option(
                "--correction",
                type=click.Choice(CORRECTIONS),
                default="none",
                show_default=True,
                help="Multiple-testing correction of the p-values across systems (per α) "
                "or, with --topics, across topics.",
            ),
            click.option(
                "--se",
                type=click.Choice(options.SE_METHODS),
                default="parametric",
                show_default=True,
                help="Standard error of URisk (equal for a mean).",
            ),
            click.option(
                "--leave-one-out", is_flag=True, help="Aggregate baselines exclude the evaluated system."
            ),
        ]
    )(func)


def alpha_option(*, multiple: bool, help: str, default: Any = None) -> Callable:
    return click.option(
        "--alpha",
        "-a",
        "alphas",
        multiple=multiple,
        default=default,
        help=help,
        metavar="A[,A...]" if multiple else "A",
    )


def parse_alphas(values: tuple[str, ...]) -> list[float]:
    """``("0,1", "5")`` -> ``[0.0, 1.0, 5.0]``; nothing given -> the default grid."""
    if not values:
        return list(DEFAULT_ALPHAS)
    from riskeval.io.numbers import parse_decimal  # on use: --help stays fast

    out: list[float] = []
    for value in values:
        for part in str(value).split(","):
            number = parse_decimal(part.strip())
            if number is None:
                raise click.BadParameter(f"{part.strip()!r} is not a decimal number.", param_hint="'--alpha'")
            out.append(number)
    return out


class DecimalType(click.ParamType):
    """A number in decimal notation (``0.05``, ``-1``, ``1e-3``; not ``1_0`` or non-ASCII digits),
    as the readers take numbers from files (:func:`riskeval.io.numbers.parse_decimal`)."""

    name = "number"

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        if isinstance(value, float):
            return value
        from riskeval.io.numbers import parse_decimal  # on use: --help stays fast

        parsed = parse_decimal(str(value).strip())
        if parsed is None:
            self.fail(f"{value!r} is not a decimal number.", param, ctx)
        return parsed


DECIMAL = DecimalType()


def correction_arg(correction: str) -> str | None:
    return None if correction == "none" else correction


def load_scores(
    inputs: tuple[str, ...],
    example: bool,
    qrels: str | None,
    measure: str | None,
    name_from: str,
    missing: MissingPolicy | None,
) -> Scores:
    """The score matrix from a table, from runs (``qrels``) or from the shipped example."""
    if example:
        if inputs or qrels:
            raise click.UsageError("--example takes no score table, runs or --qrels.")
        from riskeval.datasets import EXAMPLE_SCORES, example_scores

        return Scores(
            example_scores(),
            f"shipped example {EXAMPLE_SCORES}",
            [f"{EXAMPLE_SCORES} (shipped with riskeval)"],
            DEFAULT_MEASURE,
        )
    if qrels is not None:
        if not inputs:
            raise click.UsageError("--qrels needs at least one run file.")
        from riskeval.cli._cluster import active_client
        from riskeval.effectiveness import evaluate_runs

        measure = measure or DEFAULT_MEASURE
        matrix = evaluate_runs(
            qrels,
            list(inputs),
            measure,
            names=None if name_from == "tag" else "file",
            missing=missing or "zero",
            client=active_client(),
        )
        return Scores(
            matrix,
            f"{len(inputs)} run(s) evaluated with {measure} against {qrels}",
            [qrels, *inputs],
            measure,
        )
    if len(inputs) != 1:
        raise click.UsageError("Give one score table file, run files with --qrels, or --example.")
    from riskeval.io import score_matrix

    [path] = inputs
    selects = measure is not None and "measure" in _columns(path)
    matrix = score_matrix(path, measure=measure if selects else None, missing=missing or "raise")
    return Scores(matrix, path, [path], measure)


def _columns(path: str) -> list[str]:
    """The header of a score table, to know whether --measure selects rows or only names them."""
    from riskeval.io.score_files import table_columns

    return table_columns(path)  # read as the reader reads it: a broken file is an error naming it
