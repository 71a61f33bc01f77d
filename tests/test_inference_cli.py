"""``riskeval risk --test permutation|bootstrap`` and ``--tukey``: the output parses back to the
library's numbers with the recorded seed; bad values exit 2 with one line."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as run

import riskeval as rk
from riskeval.datasets import example_scores

BASE = ["risk", "--example", "--baseline", "bm25base_p", "--alpha", "0,5"]


def test_permutation_p_values_are_the_library_s(capsys):
    code, out, err = run(
        [*BASE, "--test", "permutation", "--n-resamples", "400", "--seed", "3", "--format", "csv"], capsys
    )
    assert code == 0, err
    t = pd.read_csv(io.StringIO(out))
    ref = rk.risk_permutation_table(example_scores(), "bm25base_p", [0, 5], n_resamples=400, rng=3)
    np.testing.assert_array_equal(t["pvalue"], ref["pvalue"])
    np.testing.assert_array_equal(t["pvalue_maxt"], ref["pvalue_maxt"])
    # the baseline against itself: every sign vector gives 0, p = 1 in the CLI as in the library
    own = t["system"] == "bm25base_p"
    assert (t.loc[own, ["pvalue", "pvalue_maxt"]] == 1).all().all()
    assert (ref.loc[own.to_numpy(), ["pvalue", "pvalue_maxt"]] == 1).all().all()
    assert (t["test"] == "permutation").all() and (t["seed"] == 3).all() and (t["n_resamples"] == 400).all()
    assert (t["significant"] == (t["pvalue"] < 0.05)).all()


def test_permutation_with_correction_leaves_the_baseline_out_of_the_family(capsys):
    code, out, err = run(
        [*BASE, "--test", "permutation", "--n-resamples", "400", "--seed", "3", "--correction", "holm"]
        + ["--format", "csv"],
        capsys,
    )
    assert code == 0, err
    t = pd.read_csv(io.StringIO(out))
    own = (t["system"] == "bm25base_p").to_numpy()
    assert (t.loc[own, "pvalue_adj"] == 1).all()
    for a in (0, 5):
        rows = (t["alpha"] == a).to_numpy() & ~own
        np.testing.assert_allclose(
            t.loc[rows, "pvalue_adj"], rk.inference.adjust_pvalues(t.loc[rows, "pvalue"].to_numpy(), "holm")
        )


def test_bootstrap_with_correction(capsys):
    code, out, err = run(
        [
            *BASE,
            "--test",
            "bootstrap",
            "--n-resamples",
            "300",
            "--seed",
            "4",
            "--correction",
            "holm",
            "--format",
            "csv",
        ],
        capsys,
    )
    assert code == 0, err
    t = pd.read_csv(io.StringIO(out))
    ref = rk.bootstrap_ci(
        example_scores(),
        "bm25base_p",
        [0, 5],
        risk="urisk",
        method="bca",
        n_resamples=300,
        confidence_level=0.95,
        rng=4,
    )
    keep = (t["system"] != "bm25base_p").to_numpy()
    np.testing.assert_allclose(t["low"], ref["low"])
    np.testing.assert_allclose(t.loc[keep, "pvalue"], ref.loc[keep, "pvalue"])
    for a in (0, 5):
        rows = (t["alpha"] == a).to_numpy()
        np.testing.assert_allclose(
            t.loc[rows, "pvalue_adj"],
            rk.inference.adjust_pvalues(t.loc[rows, "pvalue"].to_numpy(), "holm"),
            equal_nan=True,
        )
    assert (t["significant"] == (t["pvalue_adj"].fillna(1) < 0.05)).all()


def test_human_table_names_the_test(capsys):
    code, out, err = run([*BASE, "--test", "permutation", "--n-resamples", "200", "--seed", "1"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("p-values: sign-flip randomisation test") and "seed 1" in lines[1]
    assert "pvalue_maxt" in lines[2].split()


def test_tukey(capsys):
    code, out, err = run([*BASE, "--tukey", "--n-resamples", "200", "--seed", "5", "--format", "csv"], capsys)
    assert code == 0, err
    t = pd.read_csv(io.StringIO(out))
    assert len(t) == 2 * 37 * 36 // 2 and set(t["alpha"]) == {0.0, 5.0}
    ref = rk.tukey_hsd(example_scores(), baseline="bm25base_p", alpha=5.0, n_resamples=200, rng=5).table
    np.testing.assert_allclose(t.loc[t["alpha"] == 5, "pvalue_hsd"], ref["pvalue_hsd"])
    code, out, err = run([*BASE, "--tukey", "--n-resamples", "200", "--seed", "5"], capsys)
    assert code == 0, err
    assert out.startswith("Randomised Tukey HSD") and out.splitlines()[1].split()[-2:] == ["letters", "seed"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--test", "Permutation"], "'--test' parameter of riskeval risk must be one of"),
        (["--test", "permutation", "--n-resamples", "0"], "'--n-resamples' option must be an integer >= 1"),
        (
            ["--tukey", "--n-resamples", "many"],
            "'--n-resamples' option must be an integer >= 1 and <= 10000000. Got 'many'.",
        ),
        (["--test", "bootstrap", "--seed", "-1"], "'--seed' option must be an integer >= 0"),
    ],
)
def test_bad_values_exit_2_with_one_line(args, message, capsys):
    code, out, err = run(["risk", "--example", *args], capsys)
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and message in err
