"""``riskeval bayes``: one champion against challengers with the Bayesian model of Benham,
Carterette, Culpepper & Moffat (SIGIR 2020), thin over :func:`riskeval.bayes.champion_challengers`.

The scores are read as ``riskeval risk`` reads them; the table is
:attr:`riskeval.bayes.ChampionComparison.table` in every ``--format``; a sampling check the
posterior fails (R-hat, effective sample size, divergences) is a warning line on stderr.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from riskeval.cli import _options as opts
from riskeval.cli._input import DECIMAL, DecimalRange, WholeNumber
from riskeval.cli._output import echo_warning

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.bayes import ChampionComparison
    from riskeval.settings import RiskSettings

#: The columns the formats for people show by default (``--columns all``: every one).
SHOWN = ("system", "alpha", "effect_mean", "effect_low", "effect_high", "diff_mean", "diff_low",
         "diff_high", "p_better")  # fmt: skip
#: The help of --model.
MODEL_HELP = """gainloss: each system's gains and losses against the champion, exact draws; paired: a
Gaussian model of the per-topic differences from the champion, shared topic effect, NUTS; crossed:
the paper's score ~ (1 | topic) + (1 | system), which ignores the pairing."""


class Sampler(NamedTuple):
    """``--champion``, ``--challengers``, ``--model`` and the sampler's settings (:data:`sampler_options`)."""

    champion: str | None
    challengers: str | None
    chains: int
    draws: int
    warmup: int
    model: str


#: ``--champion``, ``--challengers`` and the sampler's settings, shared with ``riskeval report
#: --bayes``; the command gets them as a :class:`Sampler`, ``sampler``.
sampler_options = opts.group(
    [
        click.option(
            "--champion", metavar="NAME", help="The system in production, which the challengers must beat."
        ),
        click.option(
            "--challengers",
            metavar="A,B,...",
            help="The systems that could replace the champion (comma list). [default: every other "
            "system; all of them inform the model either way]",
        ),
        click.option("--chains", type=WholeNumber(1), default=4, help="Markov chains."),
        click.option("--draws", type=WholeNumber(10), default=4_000, help="Draws kept per chain."),
        click.option(
            "--warmup",
            type=WholeNumber(10),
            default=1_000,
            help="Warm-up iterations per chain (step size and mass matrix adaptation).",
        ),
        click.option(
            "--model",
            type=click.Choice(["gainloss", "paired", "crossed"]),
            default="gainloss",
            help=MODEL_HELP,
        ),
    ],
    "sampler",
    Sampler,
)
#: A probability strictly between 0 and 1.
PROBABILITY = DecimalRange(0, 1, min_open=True, max_open=True)


@opts.command()
@opts.input_options
@sampler_options
@opts.risk_options(
    "alphas",
    grid=(0.0,),
    alphas=dict(
        help="Risk weights α ≥ 0: each loss against the champion counts (1 + α) times; one fit per α. "
        "Repeat the option or give a comma list."
    ),
)
@click.option(
    "--level",
    type=PROBABILITY,
    default=0.95,
    help="Level of the equal-tailed credible intervals.",
)
@click.option(
    "--margin",
    type=DECIMAL,
    default=0.0,
    help="The smallest difference that matters: p_better_margin is the probability of beating the "
    "champion by more.",
)
@click.option(
    "--target-accept",
    type=PROBABILITY,
    default=0.9,
    help="Target acceptance of the sampler's step size; raise it (0.99) after divergent transitions.",
)
@opts.option("seed", help="Seed of the sampler (recorded in the output); the same seed gives the same draws.")
@opts.option("progress", fill="A progress bar on stderr counting the sampler's iterations.")
@opts.output_options(columns=f"table, latex, markdown: {', '.join(SHOWN)}, and p_better_margin with --margin")
def bayes(
    source: opts.ScoreSource,
    sampler: Sampler,
    settings: RiskSettings,
    level: float,
    margin: float,
    target_accept: float,
    seed: int | None,
    progress: bool | None,
    out: opts.Output,
) -> None:
    """Which challengers beat the champion, and with what probability, at each risk weight α.

    Fits the gains-and-losses model of each system's per-topic differences from the champion (or
    the paired model, --model paired, or Benham, Carterette, Culpepper & Moffat's crossed model,
    SIGIR 2020: --model crossed) to every system of SCORES, once per α, each loss against the
    champion weighted by (1 + α).  The table gives each system's effect with its credible
    interval, each challenger's difference from the champion and p_better, the posterior
    probability that it is above 0.  --model paired needs the bayes extra; the default draws
    chains × draws independent exact draws.

    \b
    Examples:
      riskeval bayes scores.csv --champion bm25 --alpha 0,1,5
      riskeval bayes scores.csv --champion bm25 --challengers bert,splade --seed 1 --format csv
      riskeval bayes --qrels qrels.txt -m AP --champion bm25 bm25.run bert.run other.run
    """
    from riskeval.io.atomic import check_target, is_stdout, refuse_inputs
    from riskeval.reporting.champion_tables import champion_caption, probabilities_as_text

    require_extra(sampler.model)  # a missing extra before the scores are read
    if not is_stdout(out.output):
        check_target(out.output)
        refuse_inputs(out.output, source.files)
    scores = source.load()
    matrix = scores.one()
    show = sys.stderr.isatty() if progress is None else progress
    comparison, problems = compare(
        matrix,
        sampler,
        alphas=list(settings.alphas),
        level=level,
        margin=margin,
        target_accept=target_accept,
        seed=seed,
        progress=show,
        command="riskeval bayes",
    )
    table = comparison.table.assign(seed=comparison.seed)
    if out.human:
        table = probabilities_as_text(table)
        if out.columns is None:
            out = out._replace(columns=",".join([*SHOWN, *(["p_better_margin"] if margin else [])]))
    about = scores.about() + (f", {scores.measure}" if scores.measure else "")
    caption = champion_caption(comparison, about, sampler, problems)
    out.emit(table, inputs=scores.files, caption=caption)


def require_extra(model: str) -> None:
    """Stop with the one-line missing-extra error when ``model`` needs the ``bayes`` extra: the
    paired model samples with NumPyro on JAX (ArviZ for its checks); the gains-and-losses model
    and the crossed model's exact sampler need numpy only."""
    from riskeval._optional import require
    from riskeval.bayes.model import FEATURE

    if model == "paired":
        for module in ("numpyro", "jax", "arviz"):
            require(module, FEATURE)


def compare(
    matrix: pd.DataFrame, sampler: Sampler, *, seed: int | None, command: str, **options: Any
) -> tuple[ChampionComparison, list[str]]:
    """:func:`riskeval.bayes.champion_challengers` of the ``sampler`` options (names checked by
    :func:`riskeval.reporting.champion_tables.check_names`) and the sampling checks its fits fail,
    each a warning line on stderr that names its α (instead of the library's one warning for all)."""
    import warnings

    from riskeval.bayes import BayesDiagnosticWarning, champion_challengers
    from riskeval.reporting.champion_tables import check_names, listing

    champion, systems = sampler.champion, [str(s) for s in matrix.index]
    if champion is None:
        raise click.UsageError(f"{command} needs --champion NAME, one of the systems: {listing(systems)}.")
    named = check_names(systems, champion, sampler.challengers, command)
    chain = {k: v for k, v in sampler._asdict().items() if k not in ("champion", "challengers")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BayesDiagnosticWarning)
        comparison = champion_challengers(matrix, champion, named, rng=seed, **chain, **options)
    problems = comparison.problems()
    for problem in problems:
        echo_warning(f"the posterior fails a sampling check of Benham et al. (SIGIR 2020) at {problem}")
    return comparison, problems
