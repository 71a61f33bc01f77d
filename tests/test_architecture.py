"""The layers import one way: I/O → data model → core maths → measures → analyses → presentation
and command line.  Every import in the package, at module level or inside a function, is checked
against the layers a module may use.  The public namespaces (``riskeval``, ``riskeval.io``,
``riskeval.inference``, ``riskeval.analysis``, ``riskeval.variations``) import nothing at all: they
name, for each public name, the module that defines it, imported on first use."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "riskeval"

#: what every module may import: the error family, the options and the settings of a risk
#: evaluation, optional imports, names exported on first use, the notebook display of results, the
#: version and numba's shared configuration
BASE = {"errors", "options", "settings", "_optional", "_lazy", "_display", "__version__", "core._numba"}
#: layer -> the layers (besides itself and BASE) it may import
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "options": set(),
    "settings": set(),
    "_optional": set(),
    "_display": set(),
    "_lazy": set(),
    "variations": set(),  # a namespace: names exported on first use, nothing imported
    "model": set(),
    "core": set(),
    "core._numba": set(),
    "io": {"model"},
    "evaluation": {"io", "model"},
    "pyterrier": {"evaluation", "analysis", "measures", "io", "model", "core"},
    "datasets": {"model"},
    "measures": {"core", "model"},
    "analysis": {"measures", "core", "model"},
    # inference renders its comparison of systems through the tables for papers (formatting)
    "inference": {"analysis", "measures", "core", "model", "formatting"},
    "ltr": {"io", "model", "core", "measures", "inference"},
    "bayes": {"io", "model", "core", "measures", "inference"},
    "distributed": {"io", "model", "core", "measures", "analysis"},
    # presentation writes its files through io
    "plots": {"analysis", "measures", "core", "model", "io"},
    # reporting writes the captions of its tables for people with the rules of formatting
    "reporting": {"plots", "analysis", "inference", "bayes", "measures", "core", "model", "io", "formatting"},
    # tables for people and papers (text, LaTeX, Markdown): pandas, and the risk measures declared
    # (their headers, decimals, direction and significance marks)
    "formatting": {"measures"},
    "cli": {
        "__init__",
        "formatting",
        "reporting",
        "plots",
        "analysis",
        "inference",
        "ltr",
        "bayes",
        "measures",
        "core",
        "model",
        "io",
        "evaluation",
        "datasets",
        "distributed",
    },
}


def _layer(module: str) -> str:
    if module == "riskeval.core._numba":
        return "core._numba"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    module = "riskeval." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("riskeval")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against the module's package
                base = module.split(".")[: -node.level]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "riskeval":
                found += [(node.lineno, f"riskeval.{a.name}") for a in node.names]
            elif target.startswith("riskeval."):
                found.append((node.lineno, target))
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__main__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path):
    own = _layer("riskeval." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
    if own == "__init__":
        return  # the package root exports names lazily from every layer
    allowed = ALLOWED[own] | BASE | {own}
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line} imports {target}"
        for line, target in _imports(path)
        if _layer(target) not in allowed
    ]
    assert not wrong, "\n".join(wrong)


def test_every_layer_is_declared():
    layers = {_layer("riskeval." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts)) for p in MODULES}
    assert layers - {"__init__"} <= set(ALLOWED), layers - set(ALLOWED)


#: the namespace modules, which export names on first use and import nothing but riskeval._lazy
NAMESPACES = [
    "__init__.py",
    "io/__init__.py",
    "inference/__init__.py",
    "analysis/__init__.py",
    "variations.py",
]


@pytest.mark.parametrize("name", NAMESPACES)
def test_namespaces_import_nothing(name):
    imported = {target for _, target in _imports(PACKAGE / name)}
    assert imported <= {"riskeval._lazy"}, imported
