"""What the commands read: the score matrices of the input group (a score table, trec_eval or
ir_measures ``-q`` files, TREC runs with their qrels, or the shipped example), and the types of the
option values (whole and decimal numbers, α lists, risk measures), each refused in one line naming
the option."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from riskeval.options import MAX_RESAMPLES, RESAMPLES_REASON, MissingPolicy

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.settings import RiskSettings

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


class ResampleCount(WholeNumber):
    """``--n-resamples N``: the number of resamples of a test or interval, a whole number from 1 (or
    ``minimum``) to :data:`riskeval.options.MAX_RESAMPLES`, refused beyond it with the reason and
    what to choose instead, before any input is read."""

    def __init__(self, minimum: int = 1) -> None:
        super().__init__(minimum, MAX_RESAMPLES)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        import re

        from riskeval.errors import RiskevalError

        try:
            return super().convert(value, param, ctx)
        except RiskevalError as exc:
            text = str(value).strip()
            if re.fullmatch(r"\+?[0-9]+", text) and int(text) > MAX_RESAMPLES:
                raise RiskevalError(f"{exc} {RESAMPLES_REASON}") from None
            raise


class Scores(NamedTuple):
    """The score matrices and what they came from: a one-line description, the input files, the
    measures, and the runs' judged fractions where asked for
    (:attr:`riskeval.evaluation.score_inputs.ScoreInputs.judged`).

    ``matrices`` maps each measure's name to its systems × topics matrix, in the order given (one
    entry for one measure); ``matrix`` and ``measure`` are the first, for commands that take one.
    """

    matrix: pd.DataFrame
    source: str
    files: list[str]
    measure: str | None
    matrices: dict[str, pd.DataFrame]
    judged: dict[str, pd.DataFrame] | None = None

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

    def about(self, rows: str = "systems") -> str:
        """``37 systems × 43 topics from <source>``: the first line of a caption."""
        r, c = self.matrix.shape
        return f"{r} {rows} × {c} topics from {self.source}"


class RiskType(click.ParamType):
    """Risk measures by their text (:func:`riskeval.parse_risk`): ``URisk``, ``URisk@5``,
    ``TRisk(alpha=5, se='jackknife')``, several in a comma list (commas inside parentheses belong to
    the measure).  A bad value is a one-paragraph :class:`~riskeval.errors.RiskevalError` naming the
    option and the measures there are (exit status 2)."""

    name = "risk"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[Any]:
        from riskeval.errors import RiskevalError
        from riskeval.measures.declared import parse_risk, split_top_level

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
    naming the choice (none for ``--example``, whose captions name it).  ``--baseline-map``
    replaces the baseline, so it is left as it is."""
    from riskeval.reporting.risk_tables import check_baseline_name

    ctx = click.get_current_context(silent=True)
    params = ctx.params if ctx is not None else {}
    if params.get("baseline_map") is not None:
        return settings
    systems = [str(s) for s in scores.matrix.index]
    given = params.get("baseline")
    if given is None:
        if len(systems) == 2:
            return settings.replace(baseline=systems[0])
        if params.get("example"):  # the example's tables and report name the MEAN baseline
            return settings
        click.echo(
            f"riskeval: warning: no -b/--baseline given: {len(systems)} systems are compared with "
            "their per-topic mean (MEAN); name a baseline run with -b NAME, or give -b mean to keep "
            "this choice without this warning.",
            err=True,
        )
        return settings
    check_baseline_name(given, systems)
    return settings


def parse_alphas(values: tuple[str, ...], default: Sequence[float]) -> list[float]:
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


def load_scores(
    inputs: tuple[str, ...],
    example: bool,
    qrels: str | None,
    measure: str | tuple[str, ...] | None,
    name_from: str,
    missing: MissingPolicy | None,
    client: Any = None,
    *,
    unjudged: str = "nonrelevant",
    judged: bool = False,
) -> Scores:
    """The score matrices of the input group: the shipped example, or
    :func:`riskeval.evaluation.score_inputs.read_score_inputs` of a table, trec_eval/ir_measures
    ``-q`` files (:func:`~riskeval.io.formats.format_help` lists the formats) or runs with
    ``qrels``; inputs that name no one source of scores are a usage error."""
    from riskeval.evaluation.score_inputs import ScoreInputError, read_score_inputs, refuse_folders

    measures = [measure] if isinstance(measure, str) else list(measure or ())
    try:
        refuse_folders(inputs)
        if example:
            if inputs or qrels:
                raise ScoreInputError("--example takes no score table, runs or --qrels.")
            if measures and measures != [DEFAULT_MEASURE]:
                raise ScoreInputError(f"--example holds {DEFAULT_MEASURE} only.")
            from riskeval.datasets import EXAMPLE_SCORES, example_scores

            return _scores(
                {DEFAULT_MEASURE: example_scores()},
                f"shipped example {EXAMPLE_SCORES}",
                [f"{EXAMPLE_SCORES} (shipped with riskeval)"],
            )
        names = None if name_from == "tag" else "file"
        read = read_score_inputs(
            inputs,
            qrels,
            measures,
            names=names,
            missing=missing,
            client=client,
            default_measure=DEFAULT_MEASURE,
            unjudged=unjudged,
            judged=judged,
        )
    except ScoreInputError as exc:
        raise click.UsageError(str(exc)) from None
    return _scores(*read)


def _scores(
    matrices: dict[str, pd.DataFrame],
    source: str,
    files: list[str],
    named: bool = True,
    judged: dict[str, pd.DataFrame] | None = None,
) -> Scores:
    first = next(iter(matrices))
    return Scores(matrices[first], source, files, first if named else None, matrices, judged)
