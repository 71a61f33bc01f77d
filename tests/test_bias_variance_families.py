"""Eq. 8 beside eq. 9 and model families from a parameter sweep (Zhang, Song, Wang & Hou, SIGIR 2013,
§2.3, §3, Figures 1–2): golden values from Tables 1–2, the identity with hypothesis, the display,
the families file and the command."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import riskeval as rk
from riskeval.cli.main import main

matplotlib.use("Agg")

# Table 1 of the paper: AP of models A, B, C and the target T on two queries
TABLE1 = pd.DataFrame(
    [[0.3, 0.1], [0.6, 0.08], [0.65, 0.03], [0.7, 0.2]], index=list("ABCT"), columns=["q1", "q2"]
)


def sweep() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A synthetic sweep shaped like the paper's §3: original, RM, combined (λ), removing DN (r_n), target."""
    rng = np.random.default_rng(0)
    orig = rng.beta(2, 5, 40)
    rm = np.clip(orig + rng.normal(0.06, 0.12, 40), 0, 1)
    target = np.clip(np.maximum(orig, rm) + 0.1, 0, 1)
    rows = {"original": orig, "RM": rm, "target": target}
    fam = [("original", "original", ""), ("RM", "RM", ""), ("target", "target", "")]
    for lam in (0.9, 0.1, 0.5):  # out of order on purpose
        rows[f"RM3-{lam}"] = lam * orig + (1 - lam) * rm
        fam.append((f"RM3-{lam}", "combined", lam))
    return pd.DataFrame(rows).T, pd.DataFrame(fam, columns=["system", "family", "parameter"])


def test_eq8_terms_golden_table1_and_2():
    d = rk.variations.error_decomposition(TABLE1, target="T").set_index("system")
    # E(AP − AP_T)² is Table 2's Bias² + Var(Δ): 0.0850, 0.0122, 0.0157, 0
    np.testing.assert_allclose(d["error_to_target"], [0.0850, 0.0122, 0.0157, 0.0], atol=5e-5)
    # E(AP_T − 1)² = (0.3² + 0.8²)/2; A's cross term 2·mean((AP − AP_T)(AP_T − 1)) = 0.2
    assert d["target_error"].iloc[0] == pytest.approx(0.365)
    assert d.loc["A", "cross_term"] == pytest.approx(0.2)
    # eq. 9 gives the same total, and Var(AP) is Table 1's (0.01, 0.0676, 0.0961, 0.0625)
    np.testing.assert_allclose(d["total"], d["one_minus_map2"] + d["variance"], atol=1e-15)
    np.testing.assert_allclose(d["variance"], [0.01, 0.0676, 0.0961, 0.0625], atol=1e-12)
    np.testing.assert_allclose(d["total"], rk.variations.bias_variance(TABLE1).error_to_perfect)
    with pytest.raises(rk.RiskevalError, match="per-topic target"):
        rk.variations.error_decomposition(TABLE1, target=0.5)


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 9)), elements=st.floats(0, 1, width=32))
)
def test_eq8_equals_eq9(values):
    d = rk.variations.error_decomposition(pd.DataFrame(values), target="best")
    np.testing.assert_allclose(d["total"], d["one_minus_map2"] + d["variance"], atol=1e-12)
    np.testing.assert_allclose(d["total"], ((values - 1) ** 2).mean(axis=1), atol=1e-12)


def test_families_table():
    X, F = sweep()
    t = rk.variations.bias_variance_families(X, F, target="target")
    assert list(t["family"]) == ["original", "RM", "target", "combined", "combined", "combined"]
    assert list(t["parameter"].iloc[3:]) == [0.1, 0.5, 0.9]  # sorted within the family
    ref = rk.variations.bias_variance(X, "target").to_frame()
    np.testing.assert_allclose(t.set_index("system").loc[ref.index, "total"], ref["total"])
    assert t.loc[t["system"] == "target", "bias2"].item() == 0
    with pytest.raises(rk.RiskevalError, match="no family"):
        rk.variations.bias_variance_families(X, F.iloc[:-1])
    with pytest.raises(rk.RiskevalError, match="columns"):
        rk.variations.bias_variance_families(X, F.drop(columns="family"))
    with pytest.raises(rk.RiskevalError, match="more than once"):
        rk.variations.bias_variance_families(X, pd.concat([F, F.iloc[:1]]))


def test_display():
    from riskeval.plots.paper import BiasVarianceFamiliesDisplay, plot_bias_variance_families

    X, F = sweep()
    d = plot_bias_variance_families(X, F, "target", kind="total")
    line = d.lines_["combined"]
    t = d.table[d.table["family"] == "combined"]
    np.testing.assert_allclose(line.get_xdata(), t["bias2"])  # joined in parameter order
    np.testing.assert_allclose(line.get_ydata(), t["total"])
    assert [lab.get_text() for lab in d.labels_] == ["0.1", "0.9"] and len(d.lines_) == 4
    with pytest.raises(rk.RiskevalError, match="'kind'"):
        BiasVarianceFamiliesDisplay(d.table, "bias")
    matplotlib.pyplot.close("all")


def test_families_file_and_command(tmp_path, capsys):
    X, F = sweep()
    scores = tmp_path / "ap.csv"
    X.rename_axis(index="system").to_csv(scores)
    path = tmp_path / "families.tsv"
    path.write_text(
        "system\tfamily\tparameter\n" + "".join(f"{s}\t{f}\t{p}\n" for s, f, p in F.itertuples(index=False))
    )
    got = rk.variations.read_families(path)
    assert list(got["system"]) == list(F["system"]) and got["parameter"].isna().sum() == 3
    main(
        [
            "bias-variance-families",
            str(scores),
            "--families",
            str(path),
            "--target",
            "target",
            "--format",
            "csv",
        ]
    )
    out = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(out["total"], rk.variations.bias_variance_families(X, F, "target")["total"])
    main(["bias-variance-families", str(scores), "--families", str(path), "--decomposition"])
    assert "eq. 8 and eq. 9" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("system,family,parameter\na,b,x\n")
    with pytest.raises(rk.errors.InputFormatError, match=":2: the parameter 'x'"):
        rk.variations.read_families(bad)
    bad.write_text("system,kind\na,b\n")
    with pytest.raises(SystemExit) as exc:
        main(["bias-variance-families", str(scores), "--families", str(bad)])
    assert exc.value.code == 2 and "missing ['family']" in capsys.readouterr().err
