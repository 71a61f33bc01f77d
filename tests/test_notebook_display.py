"""Result objects in a notebook: each one's ``repr`` is one short line and its ``_repr_html_`` a
compact block (its size and settings, at most a screen of rows) that nbconvert renders, with the
names a user chose (runs, topics) escaped.  The progress bars never ask for ipywidgets."""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval import _display
from riskeval.datasets import example_scores

nbformat = pytest.importorskip("nbformat")
nbconvert = pytest.importorskip("nbconvert")

#: A run name that would run a script or break the page were it not escaped.
HOSTILE = "<script>alert('x')</script>&run"
#: One screen: rows of all tables together, and bytes of the HTML.
MAX_ROWS = 2 * _display.MAX_ROWS + 4
MAX_HTML = 12_000
#: The longest repr (one line; the bootstrap's 20 fields are the most).
MAX_REPR = 450


def _scores(systems: int = 8) -> pd.DataFrame:
    X = example_scores().iloc[:systems].copy()
    X.index = [HOSTILE, *X.index[1:]]
    return X


def _light_results() -> dict[str, object]:
    X = _scores()
    big = example_scores()
    a, b = X.index[0], X.index[1]
    return {
        "bias_study": rk.bias_study(big),
        "bias_study (hostile)": rk.bias_study(X),
        "compare": rk.compare(X, b),
        "compare (37 systems)": rk.compare(big, "bm25base_p"),
        "tukey_hsd": rk.inference.tukey_hsd(X, n_resamples=200, rng=1),
        "permutation_test": rk.inference.permutation_test(X.loc[a], X.loc[b], rng=1),
        "bootstrap_difference": rk.inference.bootstrap_difference(
            X, a, b, baseline=b, n_resamples=200, rng=1
        ),
        "trisk": rk.trisk(X.loc[a], X.loc[b]),
    }


def _heavy_results() -> dict[str, object]:
    """The Bayes fit and champion comparison (with the bayes extra) and an LTR experiment (with
    the ltr extra), each where its extra is installed."""
    out: dict[str, object] = {}
    X = _scores(6)
    try:
        from riskeval.bayes import champion_challengers, fit
    except ImportError:
        pass
    else:
        small = {"chains": 2, "draws": 100, "warmup": 100}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # too few draws for the sampling checks, on purpose
            out["bayes fit"] = fit(X, rng=1, check=False, **small)
            out["champion_challengers"] = champion_challengers(X, X.index[1], alphas=[0, 5], rng=1, **small)
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        pass
    else:
        from riskeval.ltr import Experiment, make_ranking

        features, y, group, _ = make_ranking(30, 10, 4, rng=0)
        params = {"num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1}
        experiment = Experiment(
            objectives=["lambdarank", "ucro"],
            baseline_feature=0,
            alphas=[1.0],
            folds=3,
            params=params,
            rounds=3,
            n_resamples=0,
            rng=1,
        )
        out["ltr experiment"] = experiment.run(features, y, group)
    return out


@pytest.fixture(scope="module")
def results() -> dict[str, object]:
    return _light_results()


def _rendered(obj: object) -> str:
    """The output cell of ``obj`` as nbconvert writes it into an HTML page."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "python3"}  # IPython not needed
    cell = nbformat.v4.new_code_cell("result")
    cell.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            data={"text/html": obj._repr_html_(), "text/plain": repr(obj)},
            execution_count=1,
        )
    ]
    nb.cells.append(cell)
    body, _ = nbconvert.HTMLExporter(template_name="basic").from_notebook_node(nb)
    return body


def _check(name: str, obj: object) -> None:
    text = repr(obj)
    assert "\n" not in text and len(text) <= MAX_REPR, (name, text)
    page = obj._repr_html_()
    assert len(page) <= MAX_HTML, (name, len(page))
    rows = page.count("<tr>")
    assert 2 <= rows <= MAX_ROWS, (name, rows)
    body = _rendered(obj)
    assert "riskeval-result" in body, name
    assert "<script>alert" not in body and "<script>alert" not in page, name


def test_every_result_renders_in_nbconvert_within_a_screen(results):
    for key, obj in results.items():
        _check(key, obj)


def test_bias_study_shows_its_summary_not_its_matrices(results):
    study = results["bias_study"]
    page = study._repr_html_()
    # the 16 KB of matrices of the dataclass repr are gone: one table of 12 rows of 37 systems
    assert "25 more rows" in page and "37 systems × 43 topics" in page
    assert "Friedman" in repr(study) and "urisk" not in repr(study)
    summary = study.summary()
    assert summary["mean rank"].is_monotonic_increasing
    assert (summary["best rank"] <= summary["mean rank"]).all()
    assert (summary["mean rank"] <= summary["worst rank"]).all()
    # URisk against the per-topic mean is the mean difference from it at α = 1 with losses doubled
    d = example_scores() - example_scores().mean()
    expected = (d.clip(lower=0) + 2 * d.clip(upper=0)).mean(axis=1)
    np.testing.assert_allclose(summary["URisk vs MEAN"], expected.loc[summary.index], rtol=1e-12)


def test_hostile_names_are_escaped(results):
    for key in ("bias_study (hostile)", "compare", "tukey_hsd"):
        page = results[key]._repr_html_()
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;run" in page, key


def test_compare_shows_the_paper_table_and_tukey_its_letters(results):
    page = results["compare (37 systems)"]._repr_html_()
    assert "paired t test" in page and "URisk@5" in page and "25 more rows" in page
    assert "better than" in page
    tukey = results["tukey_hsd"]
    assert re.search(r"8 systems, 28 pairs, \d+ significant at level 0.05", repr(tukey))
    assert tukey.letters["letters"].iloc[0] in tukey._repr_html_()


def test_test_results_show_their_fields_rounded(results):
    page = results["permutation_test"]._repr_html_()
    assert "<th>pvalue</th>" in page and "<th>seed</th><td>1</td>" in page
    assert "bootstrap_distribution" not in results["bootstrap_difference"]._repr_html_()


@pytest.mark.slow
def test_bayes_and_ltr_results_render_in_nbconvert():
    heavy = _heavy_results()
    if not heavy:
        pytest.skip("neither the bayes nor the ltr extra is installed")
    for key, obj in heavy.items():
        _check(key, obj)
    if "champion_challengers" in heavy:
        page = heavy["champion_challengers"]._repr_html_()
        assert "&lt;script&gt;" in page and "p_better" in page


def test_number_formats_what_a_cell_shows():
    assert [_display.number(v) for v in (None, float("nan"), 3, np.int64(4), 0.123456, True, "a")] == [
        "–",
        "–",
        "3",
        "4",
        "0.1235",
        "True",
        "a",
    ]


def test_progress_bars_need_no_ipywidgets(monkeypatch):
    """Without ipywidgets, tqdm.auto warns "IProgress not found" in a notebook: the text bar then."""
    import io

    from tqdm import std

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails as when it is absent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = _display.progress_bar(total=2, file=io.StringIO())
    assert type(bar) is std.tqdm
    bar.close()


def test_no_module_picks_a_notebook_bar_itself():
    from pathlib import Path

    package = Path(rk.__file__).parent
    found = [
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if p.name != "_display.py" and re.search(r"tqdm\.(auto|notebook|autonotebook)", p.read_text("utf-8"))
    ]
    assert found == []
