"""docs/bayes.md says what riskeval computes: the worked example's tables are what
tools/bayes_docs.py fits on the three collections of Benham, Carterette, Culpepper & Moffat (SIGIR
2020), its examples run, and riskeval.bayes is in the API reference and the site's navigation."""

from __future__ import annotations

import importlib.util
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from doc_blocks import run_statements
from shared_data import shared_data

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "bayes.md").read_text(encoding="utf-8")
NUMBER = re.compile(r"[+-]?\d+\.\d+")


def _load(path: Path, name: str) -> types.ModuleType:
    if str(path.parent) not in sys.path:  # the tool imports its neighbours, as when run as a script
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_section(heading: str) -> str:
    """The text under ``### heading`` up to the next heading."""
    text = PAGE.split(f"\n### {heading}\n", 1)[1]
    return re.split(r"\n#{2,3} ", text, maxsplit=1)[0]


def page_rows(section: str, first_cell: str) -> dict[str, list[float]]:
    """The numbers of each row of the Markdown table whose header starts with ``first_cell``, by
    the row's first cell (a "—" cell gives no number)."""
    table = section.split(f"| {first_cell} |", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, list[float]] = {}
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = [float(x) for c in cells[1:] for x in NUMBER.findall(c)]
    return rows


def test_the_page_is_in_the_site_and_bayes_in_the_api_reference():
    assert "bayes.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    api = _load(ROOT / "docs" / "_hooks" / "api.py", "riskeval_docs_api_bayes")
    assert "riskeval.bayes" in api.NAMESPACES
    page = api.api_page()
    assert "::: riskeval.bayes\n" in page
    for name in ("champion_challengers", "fit", "Priors", "BayesFit", "risk_adjusted"):
        assert f"heading: riskeval.bayes.{name}\n" in page


def test_the_risk_adjustment_on_the_page_is_the_one_computed():
    """The page's formula, y' = b + δ for a gain and b + (1 + α)·δ for a loss against the champion
    (URisk's per-topic transform, Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1), on a hand-made
    matrix."""
    import pandas as pd

    from riskeval.bayes import risk_adjusted

    assert "y'_ij = b_j + (1 + α) · (x_ij − b_j)   otherwise" in PAGE
    X = pd.DataFrame([[0.2, 0.5], [0.4, 0.1], [0.2, 0.9]], index=["champ", "a", "b"], columns=["t1", "t2"])
    expected = [[0.2, 0.5], [0.4, 0.5 - 3 * 0.4], [0.2, 0.9]]
    np.testing.assert_allclose(risk_adjusted(X, "champ", 2.0).to_numpy(), expected)


#: How far a recomputed number may be from the page's.  The page rounds to 3 decimals (±0.0005);
#: the rest is Monte Carlo error, should the sampler's arithmetic change (another parameterisation
#: of the same posterior, another CPU): with bulk and tail ESS above 10,000 and posterior SDs of
#: the effects about 0.02 AP, a mean moves by about 0.02/√10,000 = 0.0002 and a 2.5% quantile by
#: about 3× that, so 0.003 is five standard errors or more; a probability p moves by
#: √(p(1−p)/10,000) ≤ 0.005, so 0.02 is four or more.  A change of data, seed, priors or model
#: moves them further.
EFFECT_TOLERANCE = 0.003
P_TOLERANCE = 0.02


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["rb04", "trec17", "trec18"])
def test_the_worked_example_is_what_the_script_computes_at_alpha_0(stem):
    """The α = 0 fit of tools/bayes_docs.py (its seed, its settings; the α = 0 fit's seed is the
    same whether or not other α are fitted) gives the page's effects, intervals, differences and
    probabilities, and the page's verdict on the authors' check."""
    path = shared_data("benham2020-bayesian-risk", f"{stem}_data.csv")
    tool = _load(ROOT / "tools" / "bayes_docs.py", "riskeval_tools_bayes_docs")
    name = tool.COLLECTIONS[stem]
    comparison = tool.compare(path, alphas=(0.0,))
    assert not comparison.problems()
    section = page_section(name)
    shown = page_rows(section, "system")
    effects = tool.effects_table(comparison)
    assert list(shown) == list(effects.index) == [tool.CHAMPION, *tool.CHALLENGERS]
    for system, row in effects.iterrows():
        numbers = shown[system]
        computed = [row.effect_mean, row.effect_low, row.effect_high, row.width]
        if system != tool.CHAMPION:
            computed += [row.diff_mean, row.diff_low, row.diff_high]
            assert numbers[-1] == pytest.approx(row.p_better, abs=P_TOLERANCE), system
            numbers = numbers[:-1]
        np.testing.assert_allclose(numbers, computed, atol=EFFECT_TOLERANCE, err_msg=system)
    over_alpha = page_rows(section, "challenger")
    for system in tool.CHALLENGERS:
        assert over_alpha[system][0] == pytest.approx(effects.loc[system, "p_better"], abs=P_TOLERANCE)
    holds = "holds" if tool.authors_check(comparison) else "fails"
    assert f"Chal. 4's check {holds}" in section


def page_examples() -> list[str]:
    """The page's Python blocks, but those marked ``<!-- not run: ... -->`` (the reader's files)."""
    found = re.findall(r"(<!-- not run[^>]*-->\n)?```python\n(.*?)```", PAGE, flags=re.S)
    return [code for skip, code in found if not skip]


@pytest.mark.slow
def test_the_quick_start_and_the_readme_example_run_and_say_what_they_compute():
    import pandas as pd

    import riskeval as rk

    table, p_better, problems = run_statements(page_examples()[0], "bayes.md", {})
    challengers = ["bm25base_rm3_p", "ms_duet_passage", "p_bert"]
    assert list(p_better.index) == challengers and list(p_better.columns) == [0.0, 5.0]
    assert set(table["system"]) == {"bm25base_p", *challengers}
    assert all(text.startswith(("α = 0: ", "α = 5: ")) for text in problems)
    # p_bert's nDCG@10 is above bm25base_p's on 36 of the 43 topics (0.74 against 0.51 on average)
    assert p_better.loc["p_bert", 0.0] > 0.99
    # weighting losses lowers the probability of beating the champion (up to Monte Carlo error)
    assert (p_better[5.0] <= p_better[0.0] + P_TOLERANCE).all()

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "bayes" in b]
    (shown,) = run_statements(code, "README.md", {"rk": rk})
    assert isinstance(shown, pd.DataFrame) and list(shown.index) == ["p_bert", "ms_duet_passage"]


@pytest.mark.slow
def test_the_priors_and_academic_examples_run_after_the_quick_start():
    import riskeval as rk
    from riskeval.bayes import champion_challengers  # noqa: F401  (as the quick start did)

    X = rk.example_scores()
    namespace: dict = {"rk": rk, "X": X}
    _, priors, against = page_examples()
    effects, topics, components, compared, idata = run_statements(priors, "bayes.md", namespace)
    assert list(effects.index) == list(X.index) and list(topics.index) == list(X.columns)
    assert list(components.index) == ["system", "topic", "residual"]
    assert compared.loc["p_bert", "p_better"] >= compared.loc["p_bert", "p_better_margin"]
    assert set(idata.posterior.data_vars) >= {"b_system", "b_topic", "sigma"}
    rows, p_all = run_statements(against, "bayes.md", namespace)
    assert list(rows.index) == ["bm25base_p", "ms_duet_passage", "ICT-BERT2"]
    assert 0 <= p_all <= rows["p_better_margin"].min()
