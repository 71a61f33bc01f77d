"""The options of the commands, declared once and composed in groups, one decorator per group.

- :func:`input_options`: where the scores come from (a score table, trec_eval/ir_measures ``-q``
  files, TREC runs with ``--qrels``, the shipped example); the command gets a
  :class:`ScoreSource`, ``source``.
- :func:`risk_options`: one option per field of :class:`riskeval.RiskSettings`, generated from the
  dataclass (the name, the type, the default and the help from its docstring); the command gets
  one settings object, ``settings``.  :func:`risk_option`: ``--risk``, with every measure of the
  registry (:data:`riskeval.measures.declared.RISK_MEASURES`) in its help.
- :func:`inference_options`: the test of the p-values, its resamples and its seed; the command
  gets a :class:`Resampling`, ``resampling``.
- :func:`cluster_options`: ``--scheduler`` and ``--workers``; the command runs with the Dask
  cluster's client, ``client``.
- :func:`output_options`: the table's ``--format``, ``-o``, ``--sort``, ``--top`` and, where a
  command has them, ``--columns`` and ``--systems``; the command gets an :class:`Output`, ``out``,
  that writes the table.

A new field of RiskSettings, or a new registered risk measure, reaches every command that takes the
group without editing the commands.  An option that several commands take outside these groups is
declared once in :data:`OPTIONS` and taken with :func:`option`.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Sequence
from dataclasses import MISSING, fields
from typing import IO, TYPE_CHECKING, Any, NamedTuple

import click

from riskeval.cli._input import (
    DECIMAL,
    DEFAULT_MEASURE,
    ResampleCount,
    RiskType,
    Scores,
    WholeNumber,
    load_scores,
    parse_alphas,
)
from riskeval.cli._output import emit, to_stream
from riskeval.errors import RiskevalError
from riskeval.io.table_export import OUTPUT_FORMATS, PEOPLE_FORMATS
from riskeval.options import (
    ALTERNATIVES,
    MISSING_POLICIES,
    RISK_TESTS,
    UNJUDGED_POLICIES,
    check_option,
    check_unjudged,
)
from riskeval.settings import RiskSettings, field_help

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.reporting.paper_tables import PaperTable


def group(options: Sequence[Callable], into: str, build: Callable[..., Any]) -> Callable:
    """A decorator adding ``options`` (click decorators) to a command, which gets
    ``build(**their values)`` as its keyword ``into`` instead of the values one by one."""

    def probe() -> None: ...

    for add in options:
        add(probe)
    names = [param.name for param in probe.__click_params__]  # type: ignore[attr-defined]

    def decorate(func: Callable) -> Callable:
        """Add the group's options to ``func`` (its parameters are in ``decorate.names``)."""

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            return func(*args, **{into: build(**values)}, **kwargs)

        return functools.reduce(lambda f, add: add(f), reversed(options), wrapper)

    decorate.names = names  # type: ignore[attr-defined]
    return decorate


class OptionChoice(click.Choice):
    """One of fixed values, refused as the library refuses a bad option value
    (:func:`riskeval.options.check_option`): one line naming the option, the command, the values
    and what was given, with a hint when only the case is wrong."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        name = param.opts[0] if param is not None and param.opts else "value"
        return check_option(value, [str(c) for c in self.choices], given_command(ctx), name)


class UnjudgedChoice(click.ParamType):
    """An ``--unjudged`` value, checked as the library checks its ``unjudged`` parameter
    (:func:`riskeval.options.check_unjudged`); ``extra``: values a command takes besides (``bounds``)."""

    name = "policy"

    def __init__(self, extra: tuple[str, ...] = ()):
        self.extra = extra

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in self.extra:
            return value
        name = param.opts[0] if param is not None and param.opts else "value"
        check_unjudged(value, given_command(ctx), name)
        return value

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join((*UNJUDGED_POLICIES, "relevant=G", *self.extra)) + "]"


#: The options that several commands take outside the groups, each declared once:
#: name -> (parameter declarations, keywords of ``click.option``).
OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "format": (
        ("--format", "fmt"),
        dict(
            type=click.Choice(OUTPUT_FORMATS),
            default="table",
            help="table: aligned text for people; latex: a booktabs table (significant values marked "
            "†, the best of each column bold, a caption); markdown: a pipe table; csv and json: every "
            "column at full precision for programs (csv: every cell verbatim; json: NaN and infinity "
            "as null); csv-spreadsheet: csv for a spreadsheet, text cells it would run as formulas "
            "get a leading '.",
        ),
    ),
    "seed": (
        ("--seed",),
        dict(type=WholeNumber(0), metavar="S", help="Seed of the resamples (recorded in the output)."),
    ),
    "progress": (
        ("--progress/--no-progress",),
        dict(default=None, help="{} [default: when stderr is a terminal]"),
    ),
    "output": (
        ("--output", "-o"),
        dict(
            type=click.Path(dir_okay=False),
            default="-",
            show_default=False,
            help="The file to write: a new path or a regular file, replaced atomically. [default: "
            "standard output]",
        ),
    ),
    "systems": (
        ("--systems",),
        dict(
            metavar="A,B,...",
            help="Show the rows of these systems only (comma list); MEAN/MEDIAN/MAX baselines, ZRisk, "
            "GeoRisk, ranks and corrections still use every system given.",
        ),
    ),
    "columns": (
        ("--columns",),
        dict(
            metavar="A,B,...|all",
            help="The columns shown, in that order (comma list), or all. [default: {}; csv, json: all]",
        ),
    ),
    "sort": (
        ("--sort",),
        dict(
            metavar="COLUMN[:asc|:desc]",
            help="Sort the rows by COLUMN (any column of the table, shown or not) within each measure "
            "and α: best first where the column has a better direction (a larger mean or URisk, "
            "fewer losses, a smaller rank), else ascending (names, p-values); :asc or :desc chooses.",
        ),
    ),
    "top": (
        ("--top",),
        dict(
            type=WholeNumber(1),
            metavar="N",
            help="Show the first N rows of each measure and α (after --sort), without a "
            "baseline's rows against itself.",
        ),
    ),
    "missing": (
        ("--missing",),
        dict(
            type=click.Choice(MISSING_POLICIES),
            help="Topics scored for some systems only (a table), or judged but absent from a run "
            "(--qrels): refuse, score them 0, or drop them. [default: raise for a table, zero for "
            "runs, as trec_eval -c]",
        ),
    ),
    "unjudged": (
        ("--unjudged",),
        dict(
            type=UnjudgedChoice(),
            default="nonrelevant",
            show_default=True,
            help="What a retrieved document that the qrels do not judge counts as: nonrelevant "
            "(trec_eval's default); condensed (removed from the run before scoring, as trec_eval "
            "-J); relevant=G (relevant at grade G; relevant alone: grade 1).",
        ),
    ),
    "name-from": (
        ("--name-from",),
        dict(
            type=click.Choice(("tag", "file")),
            default="tag",
            help="With --qrels: name systems by run tag or by file name; with trec_eval -q files: by "
            "runid line or by file name.",
        ),
    ),
    "target": (
        ("--target",),
        dict(default="perfect", help="perfect, best (per-topic best of the systems) or a system name."),
    ),
    "clef2015": (
        ("--clef2015", "clef_root"),
        dict(
            type=click.Path(exists=True, file_okay=False),
            help="Use the CLEF eHealth 2015 Task 2 folder, as published in the "
            "CLEFeHealth/CLEFeHealth2015Task2 repository on GitHub (queries/ and pertopic-evals/ inside).",
        ),
    ),
}


def option(name: str, *decls: str, **changes: Any) -> Callable:
    """The option ``name`` of :data:`OPTIONS` as a click decorator, with other parameter
    declarations (``decls``) or keywords (``changes``) where a command needs them; a ``help`` with
    ``{}`` is filled with ``changes["fill"]``."""
    default_decls, keywords = OPTIONS[name]
    keywords = {**keywords, **changes}
    if "fill" in keywords:
        keywords["help"] = keywords["help"].format(keywords.pop("fill"))
    return click.option(*(decls or default_decls), **keywords)


class ScoreSource(NamedTuple):
    """Where the scores of a command come from: the input group's values."""

    inputs: tuple[str, ...]
    example: bool
    qrels: str | None
    measure: tuple[str, ...]
    name_from: str
    missing: Any
    unjudged: str = "nonrelevant"

    def load(self, client: Any = None, *, bounds: bool = False, judged: bool = False) -> Scores:
        """The score matrices (:func:`riskeval.cli._input.load_scores`); ``bounds``: the command
        takes ``--unjudged bounds`` (then the scores are those with unjudged documents
        non-relevant, and :meth:`bounds` gives their bounds); ``judged``: runs evaluated against
        ``--qrels`` give their judged fractions too, from the same pass."""
        if self.unjudged != "nonrelevant" and self.qrels is None:
            raise click.UsageError("--unjudged goes with runs evaluated against --qrels.")
        if self.unjudged == "bounds" and not bounds:
            raise click.UsageError(
                f"{given_command()} does not take --unjudged bounds (riskeval risk, compare and report "
                "do); choose nonrelevant, condensed or relevant=G."
            )
        policy = "nonrelevant" if self.unjudged == "bounds" else self.unjudged
        return load_scores(*self[:-1], client, unjudged=policy, judged=judged)

    def bounds(self, measure: str) -> Any:
        """The per-topic score bounds of the runs for ``measure`` over the completions of the qrels
        (:func:`riskeval.evaluation.score_bounds.score_bounds`)."""
        import warnings

        from riskeval.errors import RiskevalWarning
        from riskeval.evaluation.score_bounds import score_bounds

        assert self.qrels is not None
        names = None if self.name_from == "tag" else "file"
        with warnings.catch_warnings():  # said once, when the scores were loaded
            warnings.simplefilter("ignore", RiskevalWarning)
            return score_bounds(
                self.qrels, list(self.inputs), measure, names=names, missing=self.missing or "zero"
            )

    @property
    def files(self) -> list[str]:
        """The files named on the command line (inputs and qrels): never written over."""
        return [*self.inputs, *([self.qrels] if self.qrels else [])]


def _formats_help() -> str:
    """The input formats the input group reads, for ``--help``: the registry's, in its order."""
    from riskeval.io.formats import format_help

    return (
        f"SCORES: per-topic scores in one of the formats {format_help()} (told by extension "
        "and content; a long table has columns system, topic, score and optionally "
        "measure, a wide one a row per system and a column per topic), or - for standard input; "
        "with --qrels, RUNS are TREC run files (plain or .gz), evaluated per topic first; "
        "--example: the shipped example."
    )


input_options = group(
    [
        click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True), metavar="[SCORES | RUNS...]"),
        click.option(
            "--example",
            is_flag=True,
            help=f"Use the shipped example: TREC DL 2019 passage, {DEFAULT_MEASURE}, 37 runs × 43 topics.",
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
        option("name-from"),
        option("missing"),
        option(
            "unjudged",
            type=UnjudgedChoice(("bounds",)),
            help="With --qrels, what a retrieved document that the qrels do not judge counts as: "
            "nonrelevant (trec_eval's default); condensed (removed from the run before scoring, as "
            "trec_eval -J); relevant=G (relevant at grade G; relevant alone: grade 1); bounds (risk, "
            "compare, report: URisk, TRisk and each topic's loss over every grading of those "
            "documents from 0 to the highest grade of the qrels).",
        ),
    ],
    "source",
    ScoreSource,
)


class ScoresCommand(click.Command):
    """A command of the input group: its help ends with the input formats (:func:`_formats_help`)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Inputs"):
            formatter.write_text(_formats_help())
        super().format_epilog(ctx, formatter)


def command(name: str | None = None) -> Callable:
    """``click.command`` for a command of the input group (:class:`ScoresCommand`)."""
    return click.command(name, cls=ScoresCommand)


#: How the command line spells the fields of RiskSettings that the general rule
#: (:func:`setting_option`) does not fit: changes of ``click.option``'s keywords.
FIELD_OPTIONS: dict[str, dict[str, Any]] = {
    "baseline": dict(
        decls=("--baseline", "-b"),
        default=None,
        metavar="NAME",
        help="A run name, or mean, median or max (per-topic aggregate of all systems). [default: with "
        "2 systems the first given, as pt.Experiment; with more, mean]",
    ),
    "alphas": dict(
        decls=("--alpha", "-a", "alphas"),
        multiple=True,
        default=(),
        metavar="A[,A...]",
        help="Risk aversion α ≥ 0; repeat the option or give a comma list.",
    ),
    "correction": dict(
        help="Multiple-testing correction of the p-values across systems (per α) or, with --topics, "
        "across topics."
    ),
}


def setting_option(name: str, settings: type = RiskSettings, **changes: Any) -> Callable:
    """The option of the field ``name`` of ``settings`` (a dataclass like RiskSettings):
    ``--field-name`` (or :data:`FIELD_OPTIONS`), a flag for a bool, a choice for a Literal (with
    ``none`` when it may be None), a decimal number for a float, a whole number for an int; its
    default the field's; its help the docstring's.  ``changes``: keywords of ``click.option``."""
    field = next(f for f in fields(settings) if f.name == name)
    hint = typing.get_type_hints(settings)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    literal = args[0] if len(args) == 1 and typing.get_origin(args[0]) is typing.Literal else hint
    default = None if field.default is MISSING else field.default
    keywords: dict[str, Any] = {"default": default, "help": field_help(settings).get(name, "")}
    if hint is bool:
        keywords["is_flag"] = True
    elif typing.get_origin(literal) is typing.Literal:
        optional = type(None) in typing.get_args(hint)
        keywords["type"] = click.Choice(("none",) * optional + typing.get_args(literal))
        keywords["default"] = "none" if default is None and optional else default
    elif hint in (float, int):
        keywords["type"] = DECIMAL if hint is float else WholeNumber()
    keywords = {**keywords, **FIELD_OPTIONS.get(name, {}), **changes}
    decls = keywords.pop("decls", ("--" + name.replace("_", "-"),))
    return click.option(*decls, **keywords)


def risk_options(*names: str, grid: Sequence[float] | None = None, **changes: dict[str, Any]) -> Callable:
    """The options of the RiskSettings fields ``names`` (default: every field), given to the
    command as one settings object, ``settings``.  ``grid``: the α of the command when ``--alpha``
    is not given (default: RiskSettings'); ``changes``: per field, keywords of ``click.option``
    (another default or help)."""
    chosen = names or tuple(f.name for f in fields(RiskSettings))
    alphas = tuple(RiskSettings.alphas if grid is None else grid)
    text = changes.get("alphas", {}).get("help", FIELD_OPTIONS["alphas"]["help"])
    changes["alphas"] = {**changes.get("alphas", {}), "help": f"{text} [default: {_g(alphas)}]"}

    def build(**values: Any) -> RiskSettings:
        from riskeval.settings import resolve_settings

        if "alphas" in values:
            values["alphas"] = tuple(parse_alphas(values["alphas"], alphas))
        return resolve_settings(None, given_command(), **values)

    return group([setting_option(n, **changes.get(n, {})) for n in chosen], "settings", build)


def _g(values: Sequence[float]) -> str:
    return ",".join(f"{v:g}" for v in values)


def given(name: str) -> Any:
    """The value of the option ``name`` as the command line gave it (``None`` when not given): a
    group turns the values into an object, where defaults have been filled in."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.params.get(name)


def risk_help() -> str:
    """The risk measures of the registry, for the help of ``--risk``: each with its parameters and
    the paper and equation that define it."""
    from riskeval.measures.declared import measure_table

    return "; ".join(f"{name}({params}): {citation}" for name, params, _, citation in measure_table())


class RiskMeasuresOption(click.Option):
    """``--risk``: its help ends with the measures registered when the help is shown
    (:func:`risk_help`), so that a measure declared with :func:`riskeval.register_risk` is listed."""

    @property
    def help(self) -> str:
        return f"{self._help} Repeat the option or give a comma list. The measures: {risk_help()}."

    @help.setter
    def help(self, text: str) -> None:
        self._help = text


def risk_option(*, help: str) -> Callable:
    """``--risk MEASURE`` (repeat, or a comma list): the command gets the measures as ``risks``, a
    list, or ``None`` when the option is not given."""

    def flatten(ctx: click.Context, param: click.Parameter, value: tuple[list[Any], ...]) -> list[Any] | None:
        return [measure for measures in value for measure in measures] or None

    return click.option(
        "--risk",
        "risks",
        cls=RiskMeasuresOption,
        type=RiskType(),
        multiple=True,
        callback=flatten,
        metavar="MEASURE",
        help=help,
    )


class Resampling(NamedTuple):
    """The test of a table's p-values (--test), its resamples and their seed, and the alternative
    hypothesis of Student's t test (--alternative; two-sided where a command has no such option)."""

    test: str
    n_resamples: int
    seed: int | None
    alternative: str = "two-sided"


def inference_options(*, alternative: bool = False, **helps: str) -> Callable:
    """``--test``, ``--n-resamples``, ``--seed`` (and ``--alternative``), given to the command as a
    :class:`Resampling`, ``resampling``; ``helps``: another help of an option, by its name."""
    options = [
        click.option(
            "--test",
            type=OptionChoice(RISK_TESTS),
            default="t",
            help=helps.get(
                "test",
                "p-values of URisk: Student's t (TRisk), the sign-flip randomisation test (adds the "
                "max-T p-value over all systems and α, pvalue_maxt) or the BCa bootstrap over topics.",
            ),
        ),
        click.option(
            "--n-resamples",
            type=ResampleCount(),
            default=10_000,
            metavar="N",
            help=helps.get("n_resamples", "Resamples of --test (at most 10,000,000)."),
        ),
        option("seed", **({"help": helps["seed"]} if "seed" in helps else {})),
    ]
    if alternative:
        options.append(
            click.option(
                "--alternative",
                type=click.Choice(ALTERNATIVES),
                default="two-sided",
                help="Alternative hypothesis of the TRisk p-values (--test t): less, the system loses "
                "to the baseline (URisk < 0); greater, it wins.",
            )
        )
    return group(options, "resampling", Resampling)


class Output(NamedTuple):
    """How a command writes its table: the output group's values."""

    fmt: str
    columns: str | None = None
    systems: str | None = None
    output: str = "-"
    sort: str | None = None
    top: int | None = None

    @property
    def human(self) -> bool:
        """Whether the format is for people (text, LaTeX, Markdown)."""
        return self.fmt in PEOPLE_FORMATS

    @property
    def view(self) -> dict[str, Any]:
        """The rows (``--systems``) and the readers (people or programs) of a table of
        :mod:`riskeval.reporting.paper_tables`, as its keywords ``systems`` and ``human``."""
        return {"systems": self.systems, "human": self.human}

    def select(self, table: pd.DataFrame, known: Any, column: str = "system") -> pd.DataFrame:
        """The rows of the ``--systems`` (every row without the option), names checked against
        ``known``."""
        from riskeval.analysis.by_measure import select_systems

        return select_systems(table, self.systems, known, "--systems", column)

    def show(self, result: PaperTable) -> None:
        """Write a table of :mod:`riskeval.reporting.paper_tables` with its caption (and without its
        baseline's rows against itself, for people)."""
        self.emit(result.table, caption=result.caption, baseline=result.baseline)

    def emit(self, frame: pd.DataFrame, inputs: Sequence[str] = (), **keywords: Any) -> None:
        """Write ``frame`` (:func:`riskeval.cli._output.emit`), its rows in the order of ``--sort``
        and cut by ``--top``, to ``-o`` (never one of ``inputs``) or standard output."""
        keywords = {"columns": self.columns, "sort": self.sort, "top": self.top, **keywords}
        self.write(lambda out: emit(frame, self.fmt, out=out, **keywords), inputs)

    def write(self, render: Callable[[IO], None], inputs: Sequence[str] = ()) -> None:
        """``render(stream)`` on standard output (:func:`riskeval.cli._output.to_stream`) or, with
        ``-o``, on the file, replaced atomically once written and never one of ``inputs``."""
        from riskeval.io.atomic import atomic_open, is_stdout

        if is_stdout(self.output):
            to_stream(render)
            return
        with atomic_open(self.output, "w", inputs=inputs) as out:
            render(out)


def output_options(*, columns: str | None = None, systems: bool = False) -> Callable:
    """``--format``, ``-o/--output``, ``--sort``, ``--top`` and, as asked, ``--columns``
    (``columns``: what the formats for people show by default) and ``--systems``, given to the
    command as an :class:`Output`, ``out``."""
    options = [option("format")]
    options += [option("columns", fill=columns)] if columns is not None else []
    options += [option("systems")] if systems else []
    options += [option("output"), option("sort"), option("top")]
    return group(options, "out", Output)


def given_command(ctx: click.Context | None = None) -> str:
    """The running command's words (``riskeval ltr train``), for messages."""
    ctx = ctx or click.get_current_context(silent=True)
    return ctx.command_path if ctx is not None else "riskeval"


#: ``--scheduler ADDRESS`` / ``--workers N``: :func:`riskeval.distributed.cluster` is open while the
#: command runs (the scheduler at ADDRESS, or N local worker processes, unless the runs to evaluate
#: are too few for them to pay: :func:`~riskeval.evaluation.executors.local_cluster_pays`); without
#: dask and distributed (``pip install "riskeval[dask]"``) either is a one-line error naming the extra.
_CLUSTER_OPTIONS = [
    click.option(
        "--scheduler",
        metavar="ADDRESS",
        help="Evaluate runs on the Dask cluster whose scheduler is at ADDRESS (e.g. "
        "tcp://10.0.0.5:8786); its workers must see the run files at the same paths. risk also "
        "computes the risk table of a long Parquet score table there. Needs "
        'pip install "riskeval[dask]".',
    ),
    click.option(
        "--workers",
        type=WholeNumber(1),
        metavar="N",
        help="Evaluate runs on a local Dask cluster of N worker processes (here, with a warning, where "
        "it would take longer); risk: also the risk table of a long Parquet score table. Needs "
        'pip install "riskeval[dask]".',
    ),
]


def cluster_options(func: Callable) -> Callable:
    """Add ``--scheduler`` and ``--workers`` to a command, which gets the open client as ``client``."""

    @functools.wraps(func)
    def wrapper(*args: Any, scheduler: str | None = None, workers: int | None = None, **kwargs: Any) -> Any:
        if scheduler is None and workers is None:
            return func(*args, client=None, **kwargs)
        if scheduler is not None and workers is not None:
            raise click.UsageError(
                "Use either --scheduler (an existing cluster) or --workers (a local one), not both."
            )
        from riskeval._optional import require
        from riskeval.distributed.client import address_problem, cluster
        from riskeval.evaluation.executors import local_cluster_pays

        problem = None if scheduler is None else address_problem(scheduler)
        if problem is not None:
            raise RiskevalError(f"The '--scheduler' option {problem}")
        if workers is not None and not local_cluster_pays(workers, kwargs.get("runs")):
            return func(*args, client=None, **kwargs)  # evaluate's runs, here: a warning says why
        require("distributed", f"riskeval {'--scheduler' if scheduler is not None else '--workers'}")
        with cluster(workers, scheduler=scheduler) as client:
            return func(*args, client=client, **kwargs)

    return functools.reduce(lambda f, option: option(f), reversed(_CLUSTER_OPTIONS), wrapper)
