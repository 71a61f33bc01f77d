"""The README tells the truth: its set-up is the two commands, the second is what .ci/run runs, and
its Python example gives the values of the papers' formulas, computed here with numpy and scipy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from doc_blocks import run_statements
from scipy import stats
from shared_data import shared_data

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_install_for_users_comes_first():
    install, example = blocks("sh")[:2]
    # riskeval is not on the package index yet: the install that works today comes first, from a
    # checkout, with the report; the package index's command is said for once it is published
    assert install.strip() == 'pip install ".[report]"'
    assert 'pip install "riskeval[report]"' in README.split("## From a checkout")[0]
    assert [line.split("#")[0].strip() for line in example.strip().splitlines()] == [
        "riskeval risk --example",
        "riskeval report --example -o riskeval-report.html",
    ]


def test_the_light_test_route_installs_no_heavy_extra():
    """``pip install -e ".[test]"``: the test tools and the report, not JAX, LightGBM, PyTerrier or
    Dask; .ci/run still installs every extra and requires them."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    test = " ".join(extras["test"])
    assert "riskeval[report]" in test
    for heavy in ("jax", "numpyro", "lightgbm", "python-terrier", "dask", "riskeval[all", "riskeval[bayes"):
        assert heavy not in test, heavy
    assert 'pip install -e ".[test]"' in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[dev]"' in ci and "RISKEVAL_REQUIRE_EXTRAS=1" in ci
    assert "riskeval[all,test,docs]" in " ".join(extras["dev"])


def test_the_uqv100_example_runs_on_the_uqv100_files():
    """The namespace table's query-variation example, as written, on the published UQV100
    per-variant nDCG@10 files."""
    import riskeval as rk

    (example,) = re.findall(
        r"`(rk\.variations\.mean_variance\(rk\.variations\.read_uqv100\(paths\)[^`]*)`", README
    )
    folder = shared_data("query-variations", "uqv100-cs-qpp")
    paths = sorted(str(p) for p in folder.glob("selected_runs__*.ndcg@10"))
    table = eval(example, {"rk": rk, "paths": paths})
    assert len(paths) == 4 and set(table.index.get_level_values(0)) == {
        "PL2-DFR-SD",
        "ltr-lgbm",
        "ltr-xgboost",
        "neur-doc-300",
    }
    assert np.isfinite(table[["mean", "variance", "value"]].to_numpy()).all()


def test_setup_is_two_commands_and_ci_runs_the_second():
    setup = blocks("sh")[2].strip().splitlines()
    assert setup == [
        'pip install -e ".[dev]" && riskeval report --example -o riskeval-report.html',
        "python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-2:] == ["python -m pytest", "python -m pytest -m slow"]


def readme_results() -> tuple[dict, list]:
    """The README's first Python block run: its namespace, and the value of each expression
    statement (the Bayesian one, which needs the bayes extra, runs in test_bayes_docs)."""
    code = blocks("python")[0]
    namespace: dict = {}
    return namespace, run_statements(code, "README.md", namespace)


def test_python_example_gives_the_papers_values():
    ns, (u, z, g, b, table) = readme_results()
    X, r = ns["X"], ns["r"]
    V = X.to_numpy()
    # URisk (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 4): δ = s2 − s1, losses weighted by 1 + α
    d = V[1] - V[0]
    x = np.where(d < 0, 2 * d, d)
    assert isinstance(u, float) and u == pytest.approx(x.mean()) == pytest.approx(-0.11)
    # TRisk with the jackknife SE (ibid., eq. 21): t on n − 1 degrees of freedom
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert (r.urisk, r.se, r.df) == (pytest.approx(x.mean()), pytest.approx(se), x.size - 1)
    assert r.statistic == pytest.approx(x.mean() / se)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(x.mean() / se), x.size - 1))
    # ZRisk and GeoRisk at α = 5 (Dinçer, Macdonald & Ounis, SIGIR 2016, eqs. 6-7)
    expected = V.sum(axis=1, keepdims=True) * V.sum(axis=0) / V.sum()
    zij = (V - expected) / np.sqrt(expected)
    zr = np.where(zij < 0, 6 * zij, zij).sum(axis=1)
    np.testing.assert_allclose(z.to_numpy(), zr)
    np.testing.assert_allclose(g.to_numpy(), np.sqrt(V.mean(axis=1) * stats.norm.cdf(zr / V.shape[1])))
    assert list(z.index) == list(g.index) == ["s1", "s2"]
    # the MEAN baseline, and the risk table's URisk against it at each α
    np.testing.assert_allclose(b.to_numpy(), V.mean(axis=0))
    assert list(b.index) == list("abcde")
    assert sorted(set(table["alpha"])) == [0, 1, 5, 10] and set(table["system"]) == {"s1", "s2"}
    for _, row in table.iterrows():
        dd = X.loc[row["system"]].to_numpy() - V.mean(axis=0)
        assert row["urisk"] == pytest.approx(np.where(dd < 0, (1 + row["alpha"]) * dd, dd).mean())


def test_linked_docs_exist():
    for link in re.findall(r"\]\((docs/[^)]+)\)", README):
        assert (ROOT / link).exists(), link
