"""Every integer option of every command takes ASCII digits only: ``1_0`` (Python's ``int`` reads 10)
and other scripts' digits are refused with one line naming the option, exit status 2."""

from __future__ import annotations

import click
import pytest
from cli_runner import run_cli

from riskeval.cli._input import WholeNumber
from riskeval.cli.main import cli


def _integer_options():
    found = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])
            return
        for param in command.params:
            assert not isinstance(param.type, click.types.IntParamType), (path, param.opts)  # int(): 1_0
            if isinstance(param.type, WholeNumber) and isinstance(param, click.Option):
                found.append((path, param.opts[0]))

    walk(cli, [])
    return found


OPTIONS = _integer_options()


def test_the_integer_options_are_found():
    names = {(" ".join(path), option) for path, option in OPTIONS}
    assert {
        ("evaluate", "--jobs"),
        ("risk", "--seed"),
        ("risk", "--workers"),
        ("report", "--n-resamples"),
    } <= names


@pytest.mark.parametrize("value", ["1_0", "١", "0x1", "1.0"])
@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[" ".join(p) + " " + o for p, o in OPTIONS])
def test_refused_with_one_line(capsys, path, option, value):
    code, _, err = run_cli([*path, option, value], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and f"'{option}' option must be an integer" in err and repr(value) in err, err


def test_accepts_digits_with_a_sign_and_checks_the_bounds():
    assert WholeNumber(0).convert(" +7 ", None, None) == 7
    assert WholeNumber().convert("-3", None, None) == -3
    with pytest.raises(Exception, match=r"integer >= 1 and <= 3\. Got '4'"):
        WholeNumber(1, 3).convert("4", None, None)
