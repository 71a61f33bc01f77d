"""The command line's options are declared once, in groups: every command that takes a group has
all of its options, alike; the risk settings' options are generated from the fields of
RiskSettings; the help of every ``--risk`` lists the measures registered when it is shown."""

from __future__ import annotations

import dataclasses
from typing import Literal

import click
import pytest
from cli_runner import run_cli
from click.testing import CliRunner

from riskeval import RiskSettings
from riskeval.cli import _options
from riskeval.cli.main import cli
from riskeval.measures.declared import RISK_MEASURES, URisk
from riskeval.settings import field_help


def _commands() -> dict[str, click.Command]:
    found = {}

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])
        else:
            found[" ".join(path)] = command

    walk(cli, [])
    return found


COMMANDS = _commands()


def _params(command: click.Command) -> dict[str, click.Parameter]:
    return {p.name: p for p in command.params if p.name is not None}


def _shape(param: click.Parameter) -> tuple:
    """What a command line sees of an option: its names, type, default, count."""
    choices = tuple(getattr(param.type, "choices", ()))
    return (tuple(param.opts), type(param.type).__name__, choices, repr(param.default), param.multiple)


GROUPS = {
    "input": (_options.input_options, "example"),
    "inference": (_options.inference_options(), "n_resamples"),
    "settings": (_options.risk_options(), "se"),
}


@pytest.mark.parametrize("group", GROUPS)
def test_every_command_of_a_group_has_all_its_options_alike(group):
    """A group is taken whole: an option added to it reaches every command that takes it."""
    decorator, mark = GROUPS[group]
    users = {name: _params(c) for name, c in COMMANDS.items() if mark in _params(c)}
    assert len(users) >= 2, users.keys()
    for name in decorator.names:
        shapes = {command: _shape(params[name]) for command, params in users.items()}
        assert len(set(shapes.values())) == 1, (name, shapes)


def test_the_groups_reach_the_commands_that_analyse_scores():
    users = {name for name, c in COMMANDS.items() if "example" in _params(c)}
    assert {"risk", "report", "bayes", "chisq", "risk-ranks", "compare-runs", "bias-study"} <= users
    full = {name for name, c in COMMANDS.items() if set(_options.risk_options().names) <= set(_params(c))}
    assert full == {"risk", "report"}
    assert {name for name, c in COMMANDS.items() if "n_resamples" in _params(c)} == {
        "risk",
        "report",
        "compare-runs",
        "compare",
    }
    assert all("fmt" in _params(c) for name, c in COMMANDS.items() if name != "report")


@pytest.mark.parametrize("command", ["risk", "report"])
def test_every_field_of_risk_settings_is_an_option_with_its_default(command):
    params = _params(COMMANDS[command])
    for field in dataclasses.fields(RiskSettings):
        assert field.name in params, field.name
    assert params["level"].default == RiskSettings.level
    assert params["se"].default == RiskSettings.se and params["se"].type.choices == (
        "parametric",
        "jackknife",
    )
    assert params["correction"].default == "none"  # RiskSettings' None
    assert params["leave_one_out"].is_flag and params["leave_one_out"].default is False


def test_a_new_field_becomes_an_option_by_the_general_rule():
    """What a field added to RiskSettings gets without any change of the command line: its name,
    its type, its default and the help of the docstring."""

    @dataclasses.dataclass(frozen=True)
    class Settings:
        """Settings.

        Attributes
        ----------
        trim : float, default 0.1
            Share of the topics trimmed at each end (``0`` for none).
        robust : bool, default False
            Use the :class:`riskeval.TRisk` median.
        method : {"a", "b"} or None, default None
            The method.
        """

        trim: float = 0.1
        robust: bool = False
        method: Literal["a", "b"] | None = None

    @click.command()
    @_options.setting_option("trim", Settings)
    @_options.setting_option("robust", Settings)
    @_options.setting_option("method", Settings)
    def probe(**values):
        click.echo(repr(sorted(values.items())))

    params = _params(probe)
    assert params["trim"].opts == ["--trim"] and params["trim"].default == 0.1
    assert params["trim"].help == "Share of the topics trimmed at each end (0 for none)."
    assert params["robust"].is_flag and params["robust"].help == "Use the riskeval.TRisk median."
    assert params["method"].type.choices == ("none", "a", "b") and params["method"].default == "none"
    out = CliRunner().invoke(probe, ["--trim", "0.2", "--robust", "--method", "b"]).output
    assert out.strip() == "[('method', 'b'), ('robust', True), ('trim', 0.2)]"


def test_risk_settings_help_comes_from_its_docstring():
    helps = field_help()
    assert set(helps) == {f.name for f in dataclasses.fields(RiskSettings)}
    assert _params(COMMANDS["risk"])["se"].help == helps["se"]
    assert "``" not in helps["se"] and "Dinçer, Macdonald & Ounis, SIGIR 2014" in helps["se"]


def _risk_commands() -> list[str]:
    return [
        name
        for name, c in COMMANDS.items()
        if isinstance(_params(c).get("risks"), _options.RiskMeasuresOption)
    ]


def test_every_command_with_risk_lists_every_registered_measure(capsys, monkeypatch):
    """A measure registered after the commands were built is in their help."""

    @dataclasses.dataclass(frozen=True)
    class Shifted(URisk):
        """URisk of scores shifted by a constant (a test measure)."""

        name = "ShiftedRisk"
        column = "shifted"
        citation = "a test measure, eq. 0"
        columns = ("shifted",)

    monkeypatch.setitem(RISK_MEASURES, "ShiftedRisk", Shifted)
    assert _risk_commands() == ["compare", "report", "risk"]
    for command in _risk_commands():
        code, out, _ = run_cli([command, "--help"], capsys)
        text = " ".join(out.split())
        assert code == 0
        for name, cls in RISK_MEASURES.items():
            assert f"{name}(" in text and " ".join(cls.citation.split()) in text, (command, name)


def test_help_of_scores_commands_names_the_input_formats(capsys):
    code, out, _ = run_cli(["chisq", "--help"], capsys)
    assert code == 0 and "Inputs:" in out
    assert " ".join(_options._formats_help().split()) in " ".join(out.split())


def test_help_lists_every_registered_input_format(capsys):
    from riskeval.io.formats import FORMATS

    code, out, _ = run_cli(["risk", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0
    for fmt in FORMATS:
        assert f"{fmt.name} ({', '.join(fmt.extensions)})" in text, fmt.name


def test_a_bad_choice_of_a_group_is_one_line_with_exit_2(capsys):
    code, out, err = run_cli(["compare-runs", "--example", "--runs", "a,b", "--test", "T"], capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert "'--test' parameter of riskeval compare-runs must be one of" in err and "use 't'" in err
