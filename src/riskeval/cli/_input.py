"""Options shared by the subcommands that analyse scores: where the scores come from (a score table,
TREC runs with their qrels, or the shipped example) and the risk settings (baseline, α list, level,
correction)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import click

from riskeval import options
from riskeval.options import MISSING_POLICIES, MissingPolicy

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.settings import RiskSettings

DEFAULT_ALPHAS = (0.0, 1.0, 5.0, 10.0)
CORRECTIONS = ("none", *options.CORRECTIONS)
#: The measure of the shipped example, and the one evaluated from runs when --measure is not given.
DEFAULT_MEASURE = "nDCG@10"


class WholeNumber(click.ParamType):
    """An integer option of ASCII digits (optional sign) at least ``minimum``: not Python's
    ``int()`` syntax, which also reads ``1_0`` as 10 and other scripts' digits.  A bad value is a
    one-line :class:`~riskeval.errors.RiskevalError` naming the option (exit status 2)."""

    name = "integer"

    def __init__(self, minimum: int | None = None, maximum: int | None = None):
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        import re

        from riskeval.errors import RiskevalError

        text = str(value).strip()
        number = int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
        low, high = self.minimum, self.maximum
        if number is None or (low is not None and number < low) or (high is not None and number > high):
            name = param.opts[0] if param is not None and param.opts else "value"
            bounds = " and ".join(
                f"{op} {bound}" for op, bound in ((">=", low), ("<=", high)) if bound is not None
            )
            raise RiskevalError(
                f"The '{name}' option must be an integer{' ' + bounds if bounds else ''}. Got {value!r}."
            )
        return number


class Scores(NamedTuple):
    """The score matrices and what they came from: a one-line description, the input files, the
    measures.

    ``matrices`` maps each measure's name to its systems × topics matrix, in the order given (one
    entry for one measure); ``matrix`` and ``measure`` are the first, for commands that take one.
    """

    matrix: pd.DataFrame
    source: str
    files: list[str]
    measure: str | None
    matrices: dict[str, pd.DataFrame]

    def one(self) -> pd.DataFrame:
        """The matrix of the one measure the running command takes; several are a usage error."""
        if len(self.matrices) > 1:
            ctx = click.get_current_context(silent=True)
            command = ctx.command_path if ctx is not None else "This command"
            raise click.UsageError(
                f"{command} takes one measure; the input gives {len(self.matrices)}: "
                f"{', '.join(self.matrices)}. Choose one with --measure."
            )
        return self.matrix


def _stack(options: list[Callable]) -> Callable:
    return lambda func: functools.reduce(lambda f, option: option(f), reversed(options), func)


scores_options = _stack(
    [
        click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True), metavar="[SCORES | RUNS...]"),
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
            "measure",
            multiple=True,
            help="Repeat for several measures. With --qrels: the measures to evaluate, in one pass "
            "over each run, named as in ir_measures or trec_eval [default: nDCG@10]. With a table "
            "that has a 'measure' column, or trec_eval/ir_measures -q files: which to read "
            "[default: every one]. Otherwise: the measure's name, for the record.",
        ),
        click.option(
            "--name-from",
            type=click.Choice(("tag", "file")),
            default="tag",
            show_default=True,
            help="With --qrels: name systems by run tag or by file name; with trec_eval -q files: "
            "by runid line or by file name.",
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
    """``--baseline``, ``--alpha``, ``--level``, ``--correction``, ``--se`` and ``--leave-one-out``,
    given to the command as one :class:`riskeval.RiskSettings`, ``settings``."""

    @functools.wraps(func)
    def wrapper(
        *args: Any,
        baseline: str,
        alphas: tuple[str, ...],
        level: float,
        correction: str,
        se: str,
        leave_one_out: bool,
        **kwargs: Any,
    ) -> Any:
        from riskeval.settings import resolve_settings

        ctx = click.get_current_context(silent=True)
        settings = resolve_settings(
            None,
            ctx.command_path if ctx is not None else "riskeval",
            baseline=baseline,
            alphas=tuple(parse_alphas(alphas)),
            level=level,
            correction=correction,
            se=se,
            leave_one_out=leave_one_out,
        )
        return func(*args, settings=settings, **kwargs)

    return _stack(
        [
            click.option(
                "--baseline",
                "-b",
                default=None,
                metavar="NAME",
                help="A run name, or mean, median or max (per-topic aggregate of all systems). "
                "[default: with 2 systems the first given, as pt.Experiment; with more, mean]",
            ),
            alpha_option(
                help="Risk aversion α ≥ 0; repeat the option or give a comma list. [default: 0,1,5,10]",
            ),
            click.option(
                "--level",
                type=DECIMAL,
                default=0.05,
                show_default=True,
                help="Significance level of the tests.",
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
    )(wrapper)


class RiskType(click.ParamType):
    """Risk measures by their text (:func:`riskeval.parse_risk`): ``URisk``, ``URisk@5``,
    ``TRisk(alpha=5, se='jackknife')``, several in a comma list (commas inside parentheses belong to
    the measure).  A bad value is a one-paragraph :class:`~riskeval.errors.RiskevalError` naming the
    option and the measures there are (exit status 2)."""

    name = "risk"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[Any]:
        from riskeval.errors import RiskevalError
        from riskeval.measures.declared import parse_risk

        if isinstance(value, list):
            return value
        name = param.opts[0] if param is not None and param.opts else "--risk"
        try:
            return [parse_risk(part) for part in split_top_level(str(value))]
        except RiskevalError as exc:
            raise RiskevalError(f"The '{name}' option: {exc}") from None


def cli_baseline(settings: RiskSettings, scores: Scores) -> RiskSettings:
    """``settings`` with the baseline of the command line: ``-b/--baseline`` checked against the
    systems of ``scores`` (an unknown name is an error in the option's words, with close matches);
    without ``-b``, the first system given when there are exactly two (as ``pt.Experiment`` takes
    its first system as the baseline), else the per-topic MEAN with a one-line warning on stderr
    naming the choice.  ``--baseline-map`` replaces the baseline, so it is left as it is."""
    import difflib

    from riskeval.errors import RiskevalError

    ctx = click.get_current_context(silent=True)
    params = ctx.params if ctx is not None else {}
    if params.get("baseline_map") is not None:
        return settings
    systems = [str(s) for s in scores.matrix.index]
    given = params.get("baseline")
    if given is None:
        if len(systems) == 2:
            return settings.replace(baseline=systems[0])
        click.echo(
            f"riskeval: warning: no -b/--baseline given: {len(systems)} systems are compared with "
            "their per-topic mean (MEAN); name a baseline run with -b NAME, or give -b mean to keep "
            "this choice without this warning.",
            err=True,
        )
        return settings
    if given in options.AGGREGATES or given in systems:
        return settings
    close = [given.lower()] if given.lower() in options.AGGREGATES else []  # aggregates are lower case
    close += difflib.get_close_matches(given, [*systems, *options.AGGREGATES], n=3 - len(close), cutoff=0.6)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    shown = ", ".join(systems[:10]) + (f" and {len(systems) - 10} more" if len(systems) > 10 else "")
    raise RiskevalError(
        f"The '-b/--baseline' option must be a run name, mean, median or max; {given!r} is none of "
        f"them.{hint} The runs are: {shown}."
    )


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses: ``"URisk@5, TRisk(alpha=1, se='jackknife')"``
    -> ``["URisk@5", "TRisk(alpha=1, se='jackknife')"]``."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def risk_help() -> str:
    """The risk measures of the registry, for the help of ``--risk``: each with its parameters and
    the paper and equation that define it."""
    from riskeval.measures.declared import measure_table

    return "; ".join(f"{name}({params}): {citation}" for name, params, _, citation in measure_table())


def risk_option(*, help: str) -> Callable:
    """``--risk MEASURE`` (repeat, or a comma list): the command gets the measures as ``risks``, a
    list, or ``None`` when the option is not given."""

    def flatten(ctx: click.Context, param: click.Parameter, value: tuple[list[Any], ...]) -> list[Any] | None:
        return [measure for measures in value for measure in measures] or None

    return click.option(
        "--risk",
        "risks",
        type=RiskType(),
        multiple=True,
        callback=flatten,
        metavar="MEASURE",
        help=f"{help} Repeat the option or give a comma list. The measures: {risk_help()}.",
    )


systems_option = click.option(
    "--systems",
    metavar="A,B,...",
    default=None,
    help="Show the rows of these systems only (comma list); MEAN/MEDIAN/MAX baselines, ZRisk, "
    "GeoRisk, ranks and corrections still use every system given.",
)


def alpha_option(*, help: str) -> Callable:
    """``--alpha``/``-a``: a list of α in every command, repeated or comma-separated."""
    return click.option("--alpha", "-a", "alphas", multiple=True, help=help, metavar="A[,A...]")


def parse_alphas(values: tuple[str, ...], default: Sequence[float] = DEFAULT_ALPHAS) -> list[float]:
    """``("0,1", "5")`` -> ``[0.0, 1.0, 5.0]``; nothing given -> ``default`` (the command's grid)."""
    if not values:
        return list(default)
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


class DecimalRange(DecimalType):
    """A decimal number (:class:`DecimalType`) within bounds, as ``click.FloatRange`` checks them
    (which would take Python's ``1_0``)."""

    def __init__(
        self,
        min: float | None = None,
        max: float | None = None,
        *,
        min_open: bool = False,
        max_open: bool = False,
    ):
        self.min, self.max, self.min_open, self.max_open = min, max, min_open, max_open
        low = "" if min is None else f"{min:g} {'<' if min_open else '≤'} "
        high = "" if max is None else f" {'<' if max_open else '≤'} {max:g}"
        self.name = f"{low}x{high}"

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        number = super().convert(value, param, ctx)
        low_ok = self.min is None or (number > self.min if self.min_open else number >= self.min)
        high_ok = self.max is None or (number < self.max if self.max_open else number <= self.max)
        if not (low_ok and high_ok):
            self.fail(f"{value!r} is not in the range {self.name}.", param, ctx)
        return number


def correction_arg(correction: str) -> str | None:
    return None if correction == "none" else correction


def load_scores(
    inputs: tuple[str, ...],
    example: bool,
    qrels: str | None,
    measure: str | tuple[str, ...] | None,
    name_from: str,
    missing: MissingPolicy | None,
    client: Any = None,
) -> Scores:
    """The score matrices from a table, from trec_eval/ir_measures ``-q`` files (each file's format
    told by :mod:`riskeval.io.formats`, :func:`~riskeval.io.formats.format_help` lists them), from
    runs (``qrels``, all measures in one pass over each run, on ``client``'s Dask cluster when
    given) or from the shipped example."""
    measures = [measure] if isinstance(measure, str) else list(measure or ())
    folders = [p for p in inputs if os.path.isdir(p)]
    if folders:
        raise click.UsageError(
            f"{folders[0]} is a folder: give files. A folder of Parquet files is read as one long "
            "score table by riskeval risk on a Dask cluster (--scheduler or --workers)."
        )
    if example:
        if inputs or qrels:
            raise click.UsageError("--example takes no score table, runs or --qrels.")
        if measures and measures != [DEFAULT_MEASURE]:
            raise click.UsageError(f"--example holds {DEFAULT_MEASURE} only.")
        from riskeval.datasets import EXAMPLE_SCORES, example_scores

        return _scores(
            {DEFAULT_MEASURE: example_scores()},
            f"shipped example {EXAMPLE_SCORES}",
            [f"{EXAMPLE_SCORES} (shipped with riskeval)"],
        )
    if qrels is not None:
        if not inputs:
            raise click.UsageError("--qrels needs at least one run file.")
        from riskeval.evaluation.api import evaluate_runs_long

        measures = measures or [DEFAULT_MEASURE]
        long = evaluate_runs_long(
            qrels,
            list(inputs),
            measures,
            names=None if name_from == "tag" else "file",
            missing=missing or "zero",
            client=client,
        )
        shown = ", ".join(measures)
        return _scores(
            _split_measures(long),
            f"{len(inputs)} run(s) evaluated with {shown} against {qrels}",
            [qrels, *inputs],
        )
    if inputs == ("-",):
        return _from_stdin(measures, name_from, missing)
    from riskeval.io.formats import PER_QUERY, UNNAMED, format_of
    from riskeval.io.matrices import score_matrices

    if not inputs or (len(inputs) > 1 and any(format_of(p).kind != PER_QUERY for p in inputs)):
        raise click.UsageError(
            "Give one score table file, trec_eval or ir_measures -q files, run files with --qrels, "
            "or --example."
        )

    matrices = score_matrices(
        list(inputs) if len(inputs) > 1 else inputs[0],
        measures or None,
        missing=missing or "raise",
        names=None if name_from == "tag" else "file",
    )
    source = inputs[0] if len(inputs) == 1 else f"{len(inputs)} per-query files"
    named = bool(measures) or next(iter(matrices)) != UNNAMED
    return _scores(matrices, source, list(inputs), named=named)


def _from_stdin(measures: list[str], name_from: str, missing: MissingPolicy | None) -> Scores:
    """The scores of ``-``: a score table or trec_eval/ir_measures ``-q`` output read from standard
    input, as ``riskeval evaluate --per-topic --format csv | riskeval risk -`` writes it; its format
    is told by its content (:func:`riskeval.io.formats.format_of`)."""
    import sys
    import tempfile

    data = sys.stdin.buffer.read()
    with tempfile.TemporaryDirectory(prefix="riskeval-stdin-") as folder:
        path = os.path.join(folder, "stdin")
        with open(path, "wb") as file:
            file.write(data)
        scores = load_scores((path,), False, None, tuple(measures), name_from, missing)
    return scores._replace(source="standard input", files=["-"])


def per_measure(scores: Scores, compute: Callable[[pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:
    """``compute`` of the one matrix; with several measures, of each, stacked with a ``measure``
    column first (:func:`riskeval.analysis.by_measure.for_each_measure`)."""
    from riskeval.analysis.by_measure import for_each_measure

    if len(scores.matrices) == 1:
        return compute(scores.matrix)
    return cast("pd.DataFrame", for_each_measure(scores.matrices, compute))


def _scores(matrices: dict[str, pd.DataFrame], source: str, files: list[str], named: bool = True) -> Scores:
    first = next(iter(matrices))
    return Scores(matrices[first], source, files, first if named else None, matrices)


def _split_measures(long: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Systems × topics matrices, per measure, of :func:`riskeval.io.evaluate_runs_long`'s table (its
    order of systems and topics kept)."""
    out = {}
    for name, part in long.groupby("measure", sort=False):
        systems, topics = part["system"].unique(), part["topic"].unique()
        matrix = part.pivot(index="system", columns="topic", values="score")
        out[str(name)] = matrix.reindex(index=systems, columns=topics).rename_axis(
            index="system", columns="topic"
        )
    return out
