"""``riskeval bayes``: the scores read as ``riskeval risk`` reads them, the options passed to
:func:`riskeval.bayes.champion_challengers`, the table in every format, the sampling checks as
warnings, and one-line errors for unknown systems and a missing extra.

The fast tests replace the sampler by a comparison built from the arguments it gets; the slow ones
fit the model: a small table in the process, and the TREC 2004 Robust table of Benham et al. (SIGIR
2020) through a subprocess."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import processes
import pytest

import riskeval.bayes
from riskeval.bayes.champion import COLUMNS, ChampionComparison
from tests.cli_runner import run_cli
from tests.shared_data import needs_extra, shared_data

SYSTEMS = ["champ", "a", "b", "c", "d", "e"]


@pytest.fixture
def scores(tmp_path) -> Path:
    """6 systems × 8 topics, long, with system effects −0.1 … 0.15 around the champion's 0."""
    rng = np.random.default_rng(1)
    effects = np.array([0.0, -0.1, 0.02, 0.1, 0.15, -0.05])
    values = np.clip(0.4 + effects[:, None] + rng.normal(0, 0.15, 8) + rng.normal(0, 0.05, (6, 8)), 0, 1)
    rows = [(s, f"t{j}", values[i, j]) for i, s in enumerate(SYSTEMS) for j in range(8)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["system", "topic", "score"]).to_csv(path, index=False)
    return path


class _Fit:
    def __init__(self, problems: list[str]):
        self._problems = problems

    def problems(self) -> list[str]:
        return self._problems


@pytest.fixture
def sampler(monkeypatch):
    """champion_challengers replaced by a comparison of the systems and α it is given (effect of the
    i-th system i/100 − α/1000, p_better 0.25 + i/10), recording its arguments; ``problems``: what
    the fit at α = 1 fails."""
    needs_extra("bayes")  # the command checks its extra before it samples
    calls: list[dict] = []
    state = {"problems": []}

    def fake(scores, champion, challengers=None, **options):
        calls.append({"scores": scores, "champion": champion, "challengers": challengers, **options})
        names = [s for s in scores.index if s != champion] if challengers is None else list(challengers)
        rows = []
        for a in options["alphas"]:
            for i, name in enumerate([champion, *names]):
                m = i / 100 - a / 1000
                row = {"system": name, "alpha": a, "model": options["model"], "role": "challenger" if i else "champion",
                       "effect_mean": m, "effect_median": m, "effect_low": m - 0.05, "effect_high": m + 0.05}  # fmt: skip
                diff = (i / 100, i / 100 - 0.02, i / 100 + 0.02, 0.25 + i / 10, 0.0) if i else (np.nan,) * 5
                rows.append(row | dict(zip(COLUMNS[8:], diff, strict=True)))
        fits = {a: _Fit(state["problems"] if a == 1 else []) for a in options["alphas"]}
        seed = 123 if options["rng"] is None else options["rng"]  # the library draws one for None
        return ChampionComparison(
            pd.DataFrame(rows)[list(COLUMNS)],
            fits,
            champion,
            tuple(names),
            options["level"],
            options["margin"],
            seed,
            options["model"],
        )

    monkeypatch.setattr(riskeval.bayes, "champion_challengers", fake)
    return calls, state


def test_csv_has_the_table_and_the_options_reach_the_sampler(scores, sampler, capsys):
    calls, _ = sampler
    args = ["bayes", scores, "--champion", "champ", "--challengers", "c,a", "--alpha", "0,1", "--level",
            "0.9", "--margin", "0.01", "--chains", "3", "--draws", "250", "--warmup", "120",
            "--target-accept", "0.95", "--seed", "7", "--no-progress", "--model", "crossed", "--format", "csv"]  # fmt: skip
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == [*COLUMNS, "seed"]
    assert list(table["system"]) == ["champ", "c", "a"] * 2
    assert list(table["alpha"]) == [0, 0, 0, 1, 1, 1]
    assert (table["seed"] == 7).all()
    assert np.isnan(table.loc[0, "p_better"]) and table.loc[1, "p_better"] == pytest.approx(0.35)
    (call,) = calls
    assert call["champion"] == "champ" and call["challengers"] == ["c", "a"]
    assert list(call["scores"].index) == SYSTEMS and call["scores"].shape == (6, 8)
    expected = {"alphas": [0.0, 1.0], "level": 0.9, "margin": 0.01, "chains": 3, "draws": 250,
                "warmup": 120, "target_accept": 0.95, "rng": 7, "progress": False, "model": "crossed"}  # fmt: skip
    assert {k: call[k] for k in expected} == expected
    assert err == ""


def test_defaults_every_challenger_at_alpha_0_with_a_recorded_seed(scores, sampler, capsys):
    calls, _ = sampler
    code, out, err = run_cli(["bayes", scores, "--champion", "champ", "--format", "json"], capsys)
    assert code == 0, err
    records = json.loads(out)
    assert [r["system"] for r in records] == SYSTEMS and {r["alpha"] for r in records} == {0.0}
    assert records[0]["p_better"] is None  # the champion's NaN
    (call,) = calls
    assert call["challengers"] is None and call["alphas"] == [0.0]
    assert (call["chains"], call["draws"], call["warmup"], call["level"]) == (4, 4000, 1000, 0.95)
    assert call["model"] == "gainloss" and {r["model"] for r in records} == {"gainloss"}
    assert call["rng"] is None and records[0]["seed"] == 123  # the seed the comparison records


def test_text_table_for_people(scores, sampler, capsys):
    code, out, err = run_cli(
        ["bayes", scores, "--champion", "champ", "--alpha", "0,1", "--seed", "3"], capsys
    )
    assert code == 0, err
    lines = out.splitlines()
    assert "6 systems × 8 topics" in lines[0] and "champion champ" in lines[0] and "seed 3" in lines[0]
    assert lines[1].startswith("sampling checks passed at every α")
    header = lines[2].split()
    assert header == ["system", "alpha", "effect_mean", "effect_low", "effect_high", "diff_mean",
                      "diff_low", "diff_high", "p_better"]  # fmt: skip
    row_c = next(line.split() for line in lines[3:] if line.split()[0] == "c")
    assert row_c[-1] == "0.550"  # a share of draws with three decimals, not a p-value
    assert len(lines[3].split()) == 5  # the champion: no difference, no probability


def test_margin_adds_its_column_for_people(scores, sampler, capsys):
    code, out, _ = run_cli(
        ["bayes", scores, "--champion", "champ", "--margin", "0.02", "--seed", "1"], capsys
    )
    assert code == 0
    assert out.splitlines()[2].split()[-1] == "p_better_margin"
    assert "p_better_margin: above it by more than 0.02" in out


@pytest.mark.parametrize("fmt", ["latex", "markdown", "csv-spreadsheet"])
def test_other_formats(scores, sampler, capsys, fmt):
    code, out, _ = run_cli(["bayes", scores, "--champion", "champ", "--seed", "1", "--format", fmt], capsys)
    assert code == 0
    assert (
        "effect_mean" in out.replace("\\_", "_") and "0.550" in out
        if fmt != "csv-spreadsheet"
        else "p_better" in out
    )


def test_output_file_written_atomically(scores, sampler, capsys, tmp_path):
    target = tmp_path / "out.csv"
    code, out, err = run_cli(["bayes", scores, "--champion", "champ", "--seed", "2", "--format", "csv",
                              "-o", target], capsys)  # fmt: skip
    assert code == 0 and out == "", err
    assert list(pd.read_csv(target)["system"]) == SYSTEMS
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    code, _, err = run_cli(["bayes", scores, "--champion", "champ", "-o", scores], capsys)
    assert code == 2 and "refusing to write the output over an input file" in err


def test_scores_from_standard_input(scores, sampler, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(scores.read_bytes())))
    code, out, err = run_cli(["bayes", "-", "--champion", "champ", "--seed", "1", "--format", "csv"], capsys)
    assert code == 0, err
    assert list(pd.read_csv(io.StringIO(out))["system"]) == SYSTEMS


def test_failed_sampling_check_is_a_warning_line(scores, sampler, capsys):
    _, state = sampler
    state["problems"] = ["R-hat is 1.050 (≥ 1.01) for 2 parameter(s), e.g. a, b: the chains disagree"]
    code, out, err = run_cli(
        ["bayes", scores, "--champion", "champ", "--alpha", "0,1", "--seed", "1"], capsys
    )
    assert code == 0
    assert err.splitlines() == [
        "riskeval: warning: the posterior fails a sampling check of Benham et al. (SIGIR 2020) at α = 1: "
        "R-hat is 1.050 (≥ 1.01) for 2 parameter(s), e.g. a, b: the chains disagree"
    ]
    assert "sampling checks FAILED at α = 1" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--champion", "Champ"], "The '--champion' option of riskeval bayes names 'Champ', not a system of the scores. Did you mean 'champ'?"),
        (["--champion", "champ", "--challengers", "a,zz"], "The '--challengers' option of riskeval bayes names 'zz'"),
        (["--champion", "champ", "--challengers", "a,champ"], "holds the champion 'champ'"),
        (["--champion", "champ", "--challengers", ","], "names no system"),
        ([], "riskeval bayes needs --champion NAME, one of the systems: champ, a, b, c, d, e."),
        (["--champion", "champ", "--alpha", "-1"], "must be a finite number >= 0"),
        (["--champion", "champ", "--level", "1"], "is not in the range 0 < x < 1"),
        (["--champion", "champ", "--draws", "5"], "The '--draws' option must be an integer >= 10"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_2(scores, sampler, capsys, extra, message):
    calls, _ = sampler
    if "--alpha" in extra:  # the library checks α: let the real one refuse it before any fit
        riskeval.bayes.__dict__.pop("champion_challengers")
    code, out, err = run_cli(["bayes", scores, *extra], capsys)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 or "Usage" in err
    if "names '" in message:
        assert "The systems are: champ, a, b, c, d, e." in err
    assert not calls


def test_missing_bayes_extra_is_one_line(scores, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpyro", None)
    code, out, err = run_cli(["bayes", scores, "--champion", "champ", "--model", "paired"], capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "riskeval: error: Bayesian risk inference needs riskeval's 'bayes' extra (numpyro, jax, arviz), "
        'which is not installed: pip install "riskeval[bayes]"'
    ]


def test_the_default_model_needs_no_extra(scores, capsys, monkeypatch):
    """The gains-and-losses model is numpy only: the command answers without NumPyro, JAX or ArviZ."""
    for module in ("numpyro", "jax", "arviz"):
        monkeypatch.setitem(sys.modules, module, None)
    code, out, err = run_cli(
        ["bayes", scores, "--champion", "champ", "--seed", "1", "--format", "csv"], capsys
    )
    assert code == 0 and err == "", err
    table = pd.read_csv(io.StringIO(out))
    assert list(table["system"]) == SYSTEMS and set(table["model"]) == {"gainloss"}


def test_several_measures_are_refused(tmp_path, sampler, capsys):
    frame = pd.DataFrame({"system": ["x", "y"] * 4, "topic": ["1", "1", "2", "2"] * 2,
                          "measure": ["AP"] * 4 + ["P@10"] * 4, "score": np.linspace(0, 1, 8)})  # fmt: skip
    path = tmp_path / "two.csv"
    frame.to_csv(path, index=False)
    code, _, err = run_cli(["bayes", path, "--champion", "x"], capsys)
    assert code == 2 and "takes one measure" in err and "--measure" in err


@pytest.mark.slow
def test_small_fit_matches_the_library(scores, capsys):
    """The command line gives the table of champion_challengers with the same seed and settings."""
    settings = {"alphas": [0.0, 2.0], "chains": 2, "draws": 300, "warmup": 300}
    code, out, err = run_cli(["bayes", scores, "--champion", "champ", "--challengers", "c,a", "--alpha", "0,2",
                              "--chains", 2, "--draws", 300, "--warmup", 300, "--seed", 11,
                              "--format", "csv"], capsys)  # fmt: skip
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    matrix = riskeval.score_matrix(scores)  # as the command reads it, memory layout included
    assert list(matrix.index) == SYSTEMS
    with pytest.warns(riskeval.bayes.BayesDiagnosticWarning):  # 600 draws are too few for the checks
        expected = riskeval.bayes.champion_challengers(matrix, "champ", ["c", "a"], rng=11, **settings)
    pd.testing.assert_frame_equal(table.drop(columns="seed"), expected.table, check_dtype=False)
    assert "riskeval: warning: the posterior fails a sampling check" in err
    # the simulated effects: c (+0.1) beats the champion, a (−0.1) does not
    at0 = table[table["alpha"] == 0].set_index("system")
    assert at0.loc["c", "p_better"] > 0.95 and at0.loc["a", "p_better"] < 0.05


@pytest.mark.slow
def test_robust04_champion_and_challengers():
    """Benham et al. (SIGIR 2020) on TREC 2004 Robust with their crossed model: their own test
    expects Chal. 4's 2.5% bound above the champion's 97.5% bound at α = 0, so it beats the
    champion with probability near 1."""
    path = shared_data("benham2020-bayesian-risk", "rb04_data.csv")
    result = processes.run(
        [sys.executable, "-m", "riskeval", "bayes", str(path), "--champion", "Champion", "--challengers",
         "Chal. 1,Chal. 2,Chal. 3,Chal. 4", "--alpha", "0", "--seed", "2020", "--model", "crossed",
         "--format", "csv"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout))
    assert {"system", "alpha", "effect_mean", "effect_low", "effect_high", "p_better"} <= set(table.columns)
    assert list(table["system"]) == ["Champion", "Chal. 1", "Chal. 2", "Chal. 3", "Chal. 4"]
    rows = table.set_index("system")
    assert rows.loc["Chal. 4", "p_better"] > 0.99
    assert rows.loc["Chal. 4", "effect_low"] > rows.loc["Champion", "effect_high"]


def test_ctrl_c_during_a_fit_exits_130_and_writes_nothing(scores, monkeypatch, capsys, tmp_path):
    """KeyboardInterrupt from the sampler (Ctrl-C): status 128 + SIGINT, as a shell reports it, no
    table, and the output file not created; ``riskeval bayes`` in a subprocess is interrupted in
    tests/test_bayes_paired.py (slow)."""

    def interrupted(*args, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr(riskeval.bayes, "champion_challengers", interrupted)
    out = tmp_path / "table.csv"
    code, stdout, err = run_cli(["bayes", scores, "--champion", "champ", "-o", out], capsys)
    assert code == 130 and stdout == "" and not out.exists()
    assert err.strip().endswith("Aborted.")
