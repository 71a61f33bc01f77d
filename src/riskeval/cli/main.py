"""Entry point of the ``riskeval`` command.

Subcommands live in their own modules and are imported only when invoked, so ``riskeval --help``
stays instant (no numpy/pandas/matplotlib import).  Every :class:`~riskeval.errors.RiskevalError`
(and every unreadable file) becomes a one-paragraph message on stderr and exit status 2, never a
traceback; control characters from input files in messages are shown escaped
(:func:`riskeval.io.terminal.escape_controls`).
"""

from __future__ import annotations

import importlib
import sys
import warnings

import click

# name -> (module in riskeval.cli, one-line help); the function is the name with _ for -.  Help is
# repeated here so that listing the commands does not import them.
COMMANDS: dict[str, tuple[str, str]] = {
    "risk": ("risk", "Risk table of systems against a baseline."),
    "bias-study": ("risk", "Each system as the baseline: the bias study."),
    "evaluate": ("evaluate", "Mean or per-topic scores of TREC runs."),
    "bayes": ("bayes", "Champion against challengers: Bayesian risk inference (SIGIR 2020)."),
    "report": ("report", "Self-contained HTML risk report (tables and plots)."),
    "qrels-agreement": ("qrels_agreement", "Risk and rankings of runs under several qrels."),
    "mean-variance": ("variations", "Mean-variance over query variations."),
    "bias-variance": ("variations", "Bias-variance decomposition of scores."),
    "ltr": ("ltr", "Risk-sensitive LambdaMART: train, evaluate, experiment."),
    "baseline-correlation": ("paper", "Correlation with the baseline beside URisk (ECIR 2014)."),
    "baseline-rankings": ("paper", "Risk rankings against MEAN, MEDIAN, MAX side by side (ECIR 2014)."),
    "compare": ("paper", "The table of a paper: means with significance letters, risk columns."),
    "compare-runs": ("paper", "Two runs topic by topic, each the other's baseline."),
    "risk-reward": ("paper", "Mean score beside FRisk, with the Pareto front."),
    "pca-topics": ("paper", "Topics loading on PC2; baselines projected (ECIR 2014)."),
    "chisq": ("paper", "Residuals z_ij behind ZRisk; chi-square test (SIGIR 2016)."),
    "bias-variance-families": ("paper", "Bias-variance of model families; eq. 8 terms (SIGIR 2013)."),
    "risk-ranks": ("paper", "Every risk measure with its rank per α (SIGIR 2016)."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(f"riskeval.cli.{COMMANDS[cmd_name][0]}")
        return getattr(module, cmd_name.replace("-", "_"))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "show_default": True})
@click.version_option(package_name="riskeval")
def cli() -> None:
    """Risk-sensitive evaluation of search and ranking systems."""


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user errors exit with status 2 and a message, without a traceback."""
    from riskeval.cli._output import finish_stdout
    from riskeval.errors import RiskevalError
    from riskeval.io.interrupt import interrupted, interruptible
    from riskeval.io.terminal import escape_controls

    whole_process = argv is None  # the process is the command: Ctrl-C and SIGTERM end it at once
    try:
        with warnings.catch_warnings(), interruptible(whole_process=whole_process):
            warnings.showwarning = _show_warning
            # numpy's RuntimeWarnings (NaN it computes on purpose) are not messages for the user:
            # riskeval's own caveats are RiskevalWarning and MissingTopicsWarning.
            warnings.simplefilter("ignore", RuntimeWarning)
            cli.main(args=argv, prog_name="riskeval", standalone_mode=False)
            finish_stdout()
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:  # click's Abort, from Ctrl-C in a command
        if not isinstance(exc, click.exceptions.Abort) or isinstance(exc.__context__, KeyboardInterrupt):
            interrupted(whole_process=whole_process)  # exit status 130
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.message = escape_controls(exc.message, keep_lines=True)  # type: ignore[misc]  # file names
        exc.show()
        sys.exit(2)
    except RiskevalError as exc:
        click.echo(f"riskeval: error: {escape_controls(str(exc), keep_lines=True)}", err=True)
        sys.exit(2)
    except ModuleNotFoundError as exc:
        from riskeval._optional import EXTRAS, missing_dependency

        if (exc.name or "").split(".")[0] not in EXTRAS:
            raise
        command = " ".join(["riskeval", *(argv if argv is not None else sys.argv[1:])[:1]])
        click.echo(f"riskeval: error: {missing_dependency(exc.name or '', command)}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:
        name = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        text = f"cannot open{name}: {exc.strerror or exc}"
        click.echo(f"riskeval: error: {escape_controls(text, keep_lines=True)}", err=True)
        sys.exit(2)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (e.g. missing topics scored 0) as one line on stderr, without source locations."""
    from riskeval.cli._output import echo_warning

    echo_warning(message)


if __name__ == "__main__":  # pragma: no cover
    main()
