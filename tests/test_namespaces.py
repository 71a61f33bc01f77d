"""The public surface: at most 37 names at the top level, the rest in namespaces whose every name
resolves, a fast ``import riskeval``, and a migration table in the CHANGELOG that takes every
top-level name of 0.x to where it is now."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import riskeval

ROOT = Path(__file__).resolve().parents[1]

NAMESPACES = ["io", "inference", "variations", "ltr", "analysis", "bayes", "errors"]

TOP_LEVEL = [
    *["URisk", "TRisk", "TStarRisk", "ZRisk", "GeoRisk", "parse_risk", "RiskSettings"],
    *["RiskMeasure", "register_risk"],  # one's own risk measure
    *["urisk", "trisk", "zrisk", "georisk", "risk_table", "topic_risk", "riskiest_topics"],
    *["score_matrix", "evaluate_runs", "example_scores"],
    *["bootstrap_ci", "permutation_test", "risk_permutation_table", "tukey_hsd"],
    *["report", "to_latex", "to_markdown", "compare", "compare_runs", "bias_study"],
    *["RiskevalError"],
    *NAMESPACES,
]

#: the 87 top-level names of riskeval 0.x
OLD_TOP_LEVEL = [
    *["BaselineCorrelation", "BiasStudy", "BootstrapDifferenceResult", "ChiSquareResult"],
    *["InputFormatError", "MissingDependencyError", "MissingTopicsError", "MissingTopicsWarning"],
    *["PermutationResult", "RiskReward", "RiskevalError", "RiskevalWarning", "TRiskResult"],
    *["TukeyHSDResult", "adjust_pvalues", "apply_missing", "as_matrix", "baseline"],
    *["baseline_correlation", "baseline_rankings", "baseline_runs", "bias_study", "bias_table"],
    *["bias_variance", "bias_variance_families", "bootstrap_ci", "bootstrap_difference"],
    *["canonical_measure", "chisq_residuals", "chisq_test", "compare_runs", "error_decomposition"],
    *["evaluate_runs", "evaluate_runs_long", "example_scores", "from_ir_measures", "from_long"],
    *["from_wide", "georisk", "gmap", "load_clef2015", "load_query_variations", "long_risk_table"],
    *["long_topic_risk", "loo_baseline", "mean_variance", "mean_variance_sweep"],
    *["measure_rankings", "pca_biplot", "permutation_test", "rank_changes", "rank_intervals"],
    *["ranking_agreement", "read_baseline_map", "read_clef2015_queries", "read_families"],
    *["read_ir_measures", "read_mapping", "read_scores", "read_topic_texts", "read_trec_eval"],
    *["read_trec_eval_measures", "read_variant_scores", "read_variation_table", "read_variations"],
    *["report", "risk_experiment", "risk_permutation_table", "risk_reward", "risk_reward_tradeoff"],
    *["risk_table", "riskiest_topics", "robustness_index", "score_matrices", "score_matrix"],
    *["swap_alpha", "tau_ap", "to_latex", "to_markdown", "topic_risk", "trisk", "tukey_hsd"],
    *["urisk", "variation_array", "variations_from_runs", "variations_from_scores", "zrisk"],
]


def test_the_top_level_has_at_most_37_names_and_exactly_these():
    assert len(OLD_TOP_LEVEL) == len(set(OLD_TOP_LEVEL)) == 87
    assert len(riskeval.__all__) <= 37
    assert sorted(riskeval.__all__) == sorted(TOP_LEVEL)
    assert set(riskeval.__all__) <= set(dir(riskeval))


def test_the_version_is_the_latest_changelog_entry():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(r"^## \[([^\]]+)\]", changelog, re.M).group(1) == riskeval.__version__


def test_the_namespaces_are_modules_of_their_own():
    for name in NAMESPACES:
        assert getattr(riskeval, name) is importlib.import_module(f"riskeval.{name}")


@pytest.mark.parametrize("namespace", ["riskeval", *(f"riskeval.{n}" for n in NAMESPACES)])
def test_every_name_of_every_namespace_resolves(namespace):
    module = importlib.import_module(namespace)
    assert module.__all__ == sorted(module.__all__) and len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None and name in dir(module)
        if isinstance(value, (type, types.FunctionType)):  # named as it is defined
            assert value.__name__ == name, (namespace, name, value.__name__)
    with pytest.raises(AttributeError, match=f"module '{namespace}' has no attribute 'read_nothing'"):
        module.read_nothing  # noqa: B018


def test_a_name_is_imported_once_and_kept_in_its_namespace(monkeypatch):
    inference = importlib.import_module("riskeval.inference")
    monkeypatch.delitem(vars(inference), "tukey_hsd", raising=False)
    value = inference.tukey_hsd
    assert vars(inference)["tukey_hsd"] is value  # the next read finds it without __getattr__
    assert "tukey_hsd" in dir(inference) and "io" in dir(riskeval) and "RiskevalWarning" not in dir(riskeval)


@pytest.mark.parametrize("namespace", ["io", "inference", "analysis", "ltr", "bayes"])
def test_no_name_of_a_namespace_is_also_one_of_its_modules(namespace):
    """``import riskeval.analysis.x`` sets the package's attribute ``x`` to the module: a function
    ``x`` of the namespace would then be hidden by it."""
    package = importlib.import_module(f"riskeval.{namespace}")
    modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert not modules & set(package.__all__)
    for module in sorted(modules - {"__main__"}):
        importlib.import_module(f"riskeval.{namespace}.{module}")
    for name in package.__all__:
        assert not isinstance(getattr(package, name), type(package)), name


def test_readers_follow_one_verb_pattern():
    """Readers of files are read_*, of objects in memory from_*; no load_* or *_from_*."""
    public = [n for ns in ("io", "variations") for n in importlib.import_module(f"riskeval.{ns}").__all__]
    assert not [n for n in public if n.startswith("load_") or re.match(r"\w+_from_", n)]
    assert not [n for n in riskeval.__all__ if n.startswith(("read_", "from_", "load_"))]


def _imported(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_import_riskeval_and_its_namespaces_import_no_library():
    code = "import riskeval, riskeval.io, riskeval.inference, riskeval.analysis, riskeval.variations"
    modules = _imported(code + ", riskeval.errors, riskeval.ltr, riskeval.bayes")
    assert not {"numpy", "pandas", "scipy"} & modules
    assert {m for m in modules if m.startswith("riskeval.")} == {
        *(f"riskeval.{n}" for n in NAMESPACES),
        "riskeval._lazy",
    }


def test_urisk_imports_no_heavy_module():
    modules = _imported("import riskeval\nriskeval.urisk([0.1, 0.2, 0.3], [0.2, 0.1, 0.4])")
    assert not {"ir_measures", "matplotlib", "lightgbm", "pyterrier", "dask"} & modules


def migration_table(heading: str) -> list[list[str]]:
    """The rows of the table under ``heading`` in the CHANGELOG's 1.0.0 section, cells without
    their backquotes."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    section = text.split("## [1.0.0]", 1)[1].split("\n## ", 1)[0]
    block = section.split(heading, 1)[1].split("\n\n", 1)[1]
    rows = []
    for line in block.split("\n"):
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("`") for cell in line.strip("|").split("|")])
    assert rows[1][0].startswith("---"), "a Markdown table with a header row"
    return rows


def _resolve(path: str):
    assert path.startswith("rk."), path
    value = riskeval
    for part in path.removeprefix("rk.").split("."):
        value = getattr(value, part)
    return value


def test_the_migration_table_takes_every_old_name_to_one_that_resolves():
    rows = migration_table("#### Names moved or renamed")
    assert rows[0] == ["0.x", "1.0"]
    table = dict(rows[2:])
    assert all(old.startswith("rk.") for old in table)
    moved = {old.removeprefix("rk."): new for old, new in table.items()}
    assert set(moved) <= set(OLD_TOP_LEVEL)
    for name in OLD_TOP_LEVEL:
        if name in moved:
            assert name not in riskeval.__all__, f"{name} moved but is still at the top level"
            with pytest.raises(AttributeError):
                getattr(riskeval, name)
            assert callable(_resolve(moved[name])), moved[name]
        elif name in riskeval._MOVED:  # moved after 1.0: still read, with a DeprecationWarning
            assert name not in riskeval.__all__
            with pytest.warns(DeprecationWarning, match=f"riskeval.{name} is now riskeval.errors.{name}"):
                assert getattr(riskeval, name) is getattr(riskeval.errors, name)
        else:
            assert name in riskeval.__all__, f"{name} is neither at the top level nor in the table"


def test_the_parameters_table_has_its_header():
    rows = migration_table("#### Parameters renamed")
    assert rows[0] == ["Function", "0.x", "1.0"]
    for function, _, _ in rows[2:]:
        assert callable(_resolve(function)), function
