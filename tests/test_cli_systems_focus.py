"""``--systems`` on baseline-correlation and bias-variance: the rows shown change, the numbers of
the rows shown do not (the correlations and the 'best' target still use every system)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from cli_runner import run_cli


def csv_of(argv: str, capsys: pytest.CaptureFixture) -> pd.DataFrame:
    code, out, err = run_cli(argv.split(), capsys)
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


@pytest.mark.parametrize(
    "command",
    [
        "baseline-correlation --example --baseline bm25base_p --format csv",
        "bias-variance --example --target best --format csv",
    ],
)
def test_systems_selects_rows_and_keeps_their_values(command, capsys):
    every = csv_of(command, capsys)
    some = csv_of(command + " --systems p_bert,bm25base_p", capsys)
    assert set(some["system"]) <= {"p_bert", "bm25base_p"} and "p_bert" in set(some["system"])
    want = every[every["system"].isin(some["system"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(some.reset_index(drop=True), want)


def test_an_unknown_system_is_a_one_line_error(capsys):
    code, _, err = run_cli("bias-variance --example --systems p_bertt".split(), capsys)
    assert code == 2 and "p_bert" in err and "Traceback" not in err
