"""The command line run inside the test process, as the ``riskeval`` entry point runs it."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from riskeval.cli.main import main


def run_cli(args: Iterable[object], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    """``riskeval ARGS`` (each argument as text): its exit status (as Python gives it for
    ``SystemExit``: an integer as is, ``None`` 0, anything else 1), stdout and stderr."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    out, err = capsys.readouterr()
    return code, out, err
