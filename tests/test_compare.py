"""``rk.compare``: the mean of each IR measure with the systems it is significantly better than
(superscripts), checked against scipy's paired t test and statsmodels' corrections computed pair by
pair, against a brute-force randomisation test, and beside the risk columns of ``risk_table``;
LaTeX and Markdown that run names cannot break."""

from __future__ import annotations

import itertools
import string

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import riskeval as rk


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    """Six systems on 30 topics, spread so that some pairs differ and some do not."""
    rng = np.random.default_rng(28)
    topic = rng.uniform(0.2, 0.8, 30)
    shift = np.array([0.0, 0.02, 0.06, 0.1, -0.05, 0.07])
    values = np.clip(topic + shift[:, None] + rng.normal(0, 0.08, (6, 30)), 0, 1)
    return pd.DataFrame(values, index=[f"run_{k}" for k in range(6)], columns=[f"q{j}" for j in range(30)])


def _expected_better(X: pd.DataFrame, correction: str | None, level: float = 0.05) -> dict[str, set[str]]:
    """For each system, the systems it beats: scipy.stats.ttest_rel on every pair, the p-values of
    the pairs adjusted by statsmodels."""
    names = list(X.index)
    pairs = list(itertools.combinations(names, 2))
    p = np.array([stats.ttest_rel(X.loc[a], X.loc[b]).pvalue for a, b in pairs])
    if correction is not None:
        method = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}[correction]
        p = multipletests(p, method=method)[1]
    out: dict[str, set[str]] = {n: set() for n in names}
    for (a, b), q in zip(pairs, p, strict=True):
        if q < level:
            winner, loser = (a, b) if X.loc[a].mean() > X.loc[b].mean() else (b, a)
            out[winner].add(loser)
    return out


@pytest.mark.parametrize("correction", [None, "holm", "bh", "bonferroni"])
def test_superscripts_are_the_paired_t_test_decisions(X, correction):
    c = rk.compare(X, "run_0", correction=correction)
    expected = _expected_better(X, correction)
    letters = dict(zip(X.index, string.ascii_lowercase, strict=False))
    assert c.labels.to_dict() == letters
    better = c.better_than()["mean"]
    for system in X.index:
        want = "".join(sorted(letters[o] for o in expected[system]))
        assert better[system] == want, (system, correction)
    assert any(better) and not all(better)  # the fixture has decisions both ways
    # the pairs' p-values themselves
    pairs = c.pairs.set_index(["system", "other"])
    for a, b in itertools.combinations(X.index, 2):
        p = stats.ttest_rel(X.loc[a], X.loc[b]).pvalue
        assert pairs.loc[(a, b), "pvalue"] == pytest.approx(p, rel=1e-10)
        assert pairs.loc[(b, a), "pvalue"] == pytest.approx(p, rel=1e-10)


def test_a_correction_makes_fewer_systems_better(X):
    plain = rk.compare(X, "run_0").pairs["better"].sum()
    holm = rk.compare(X, "run_0", correction="holm").pairs["better"].sum()
    assert holm < plain


def test_the_level_decides(X):
    loose = rk.compare(X, level=0.2).pairs["better"].sum()
    strict = rk.compare(X, level=0.001).pairs["better"].sum()
    assert loose > strict


def test_the_randomisation_test_is_exact_on_few_topics():
    """With 8 topics the 2^8 sign vectors are enumerated: the p-value of each pair is the share of
    sign vectors whose mean difference is at least as far from 0 as the observed one."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(0, 1, (4, 8)) + np.array([[0.0], [0.3], [0.6], [0.1]]), index=list("ABCD"))
    c = rk.compare(X, "A", test="permutation", rng=1, n_resamples=10_000)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=8)))
    pairs = c.pairs.set_index(["system", "other"])
    for a, b in itertools.combinations(X.index, 2):
        d = (X.loc[a] - X.loc[b]).to_numpy()
        observed = abs(d.mean())
        p = np.mean(np.abs((signs * d).mean(axis=1)) >= observed - 1e-12)
        assert pairs.loc[(a, b), "pvalue"] == pytest.approx(p)
    assert c.seed == 1 and "seed 1" in c.caption()


def test_the_bootstrap_pairs_are_those_of_bootstrap_ci(X):
    c = rk.compare(X, "run_0", test="bootstrap", rng=7, n_resamples=999, risk="URisk@5")
    pairs = c.pairs.set_index(["system", "other"])
    boot = rk.bootstrap_ci(
        X, baseline="run_3", alphas=[0], risk="URisk", method="bca", n_resamples=999, rng=7
    )
    for system in ["run_0", "run_1", "run_2"]:
        p = boot.set_index("system").loc[system, "pvalue"]
        assert pairs.loc[(system, "run_3"), "pvalue"] == pytest.approx(p)
    assert c.risk["test"].eq("bootstrap").all() and {"low", "high"} <= set(c.risk.columns)


def test_risk_columns_are_those_of_risk_table(X):
    c = rk.compare(X, "run_0", alphas=[1, 5], correction="holm")
    frame = c.to_frame()
    table = rk.risk_table(X, "run_0", alphas=[1, 5], correction="holm").set_index(["system", "alpha"])
    for alpha in (1, 5):
        np.testing.assert_allclose(frame[f"URisk@{alpha}"], table.xs(float(alpha), level="alpha")["urisk"])
        np.testing.assert_allclose(frame[f"TRisk@{alpha}"], table.xs(float(alpha), level="alpha")["trisk"])
    np.testing.assert_allclose(frame["mean"], X.mean(axis=1))
    assert list(frame.columns) == [
        *["label", "mean", "mean better than", "URisk@1", "URisk@5", "TRisk@1", "TRisk@5"]
    ]
    # † on the URisk cells where risk_table's (holm-adjusted) TRisk test rejects
    latex = c.to_latex()
    assert table.xs(5.0, level="alpha")["significant"].nunique() == 2  # marks both ways
    for system, row in table.xs(5.0, level="alpha").iterrows():
        line = next(
            x
            for x in latex.splitlines()
            if x.startswith(f"{string.ascii_lowercase[X.index.get_loc(system)]} &")
        )
        cells = line.split(" & ")
        assert ("\\textsuperscript{\\dag{}}" in cells[4]) == bool(row["significant"]), system


def test_risk_measures_chosen(X):
    c = rk.compare(X, "run_0", risk=["URisk@5", "GeoRisk@5"])
    frame = c.to_frame()
    assert [col for col in frame.columns if "@" in col] == ["URisk@5", "GeoRisk@5"]
    table = rk.risk_table(X, "run_0", alphas=[5])
    np.testing.assert_allclose(frame["GeoRisk@5"], table["georisk"])


def test_several_measures_from_a_mapping_and_a_long_table(X):
    both = {"nDCG@10": X, "P@10": X**2}
    c = rk.compare(both, "run_0", risk="URisk@5")
    frame = c.to_frame()
    assert list(frame.columns) == [
        *["label", "nDCG@10", "nDCG@10 better than", "nDCG@10 URisk@5"],
        *["P@10", "P@10 better than", "P@10 URisk@5"],
    ]
    np.testing.assert_allclose(frame["P@10"], (X**2).mean(axis=1))
    long = pd.concat(
        [M.stack().rename("score").reset_index().assign(measure=name) for name, M in both.items()]
    ).rename(columns={"level_0": "system", "level_1": "topic"})
    from_long = rk.compare(long, "run_0", risk="URisk@5", measures=["P@10"]).to_frame()
    np.testing.assert_allclose(from_long["P@10"], frame["P@10"])
    assert from_long["P@10 better than"].equals(frame["P@10 better than"])
    assert "nDCG@10" not in from_long.columns


def test_latex_and_markdown_escape_run_names(X):
    names = ["bm25_base", "a&b", "100%", "x_y&z", "run#5", "ok"]
    Y = X.set_axis(names)
    c = rk.compare(Y, "bm25_base", risk="URisk@5")
    latex = c.to_latex(label="tab:runs")
    for raw, escaped in [
        ("bm25_base", r"bm25\_base"),
        ("a&b", r"a\&b"),
        ("100%", r"100\%"),
        ("run#5", r"run\#5"),
    ]:
        assert escaped in latex and f" {raw} " not in latex
    assert r"x\_y\&z" in latex and "\\label{tab:runs}" in latex and "\\toprule" in latex
    body = [line for line in latex.splitlines() if line.endswith("\\\\")]
    assert all(line.count("&") - line.count(r"\&") == 3 for line in body)  # 4 cells a row
    markdown = c.to_markdown()
    assert r"bm25\_base" in markdown and r"x\_y&z" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len({line.count(" | ") for line in rows}) == 1
    assert "<sup>" in markdown and "\\textsuperscript{" in latex


def test_columns_of_the_paper_table(X):
    c = rk.compare(X, "run_0", alphas=[5])
    latex = c.to_latex(columns=["system", "mean"])
    header = next(line for line in latex.splitlines() if line.startswith("system"))
    assert header == "system & mean \\\\"
    with pytest.raises(rk.RiskevalError, match=r"'columns' parameter of to_latex names 'nope'.*URisk@5"):
        c.to_latex(columns="system,nope")


def test_more_than_26_systems_are_numbered():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        rng.uniform(0, 1, (30, 20)) + np.linspace(0, 1, 30)[:, None], index=[f"s{k}" for k in range(30)]
    )
    c = rk.compare(X, "s0", risk="URisk@5")
    assert list(c.labels) == [str(k) for k in range(1, 31)]
    assert c.better_than().loc["s29", "mean"].startswith("1,2,")


def test_bad_arguments_name_the_parameter(X):
    with pytest.raises(rk.RiskevalError, match="'test' parameter of compare must be one of"):
        rk.compare(X, test="wilcoxon")
    with pytest.raises(
        rk.RiskevalError, match="'measures' parameter of compare names 'MAP'; the measures are"
    ):
        rk.compare({"nDCG@10": X}, measures="MAP")
    with pytest.raises(rk.RiskevalError, match="one score matrix: give one name"):
        rk.compare(X, measures=["a", "b"])
    with pytest.raises(rk.RiskevalError, match="same systems"):
        rk.compare({"a": X, "b": X.iloc[::-1]})


def test_repr_is_short_and_str_is_the_table(X):
    c = rk.compare(X, "run_0", alphas=[5])
    assert repr(c).startswith("<Comparison of 6 systems on mean") and "\n" not in repr(c)
    assert "run_3" in str(c) and "superscripts" in str(c)
