"""The API reference (``docs/api.md``, written by the mkdocs hook ``docs/_hooks/api.py`` when the
site is built) documents every exported name of every namespace, and only names that exist; the
table of risk measures in ``docs/risk.md`` is the registry's; the docstrings parse as numpy
docstrings without the warnings that fail the strict build."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import re
import sys
import types
from pathlib import Path

import pytest

from riskeval.measures.declared import RISK_MEASURES

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / "docs" / "_hooks"


def _load(name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"riskeval_docs_{name}", HOOKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


api = _load("api")
#: A block: ``::: riskeval.io.score_files.read_scores`` headed ``riskeval.io.read_scores``
BLOCK = re.compile(r"^::: ([\w.]+)\n    options:\n      heading: ([\w.]+)$", re.M)
#: A namespace's block: its docstring, under its name
SECTION = re.compile(r"^::: ([\w.]+)\n    options:\n      heading_level: 2\n      members: false$", re.M)
#: A name documented under another path: a heading and a link to that block
LINK = re.compile(r"^### `([\w.]+)`\n\nThe same object as \[`([\w.]+)`\]\[([\w.]+)\]\.$", re.M)


@pytest.fixture(scope="module")
def page() -> str:
    return api.api_page()


@pytest.fixture(scope="module")
def docstrings() -> types.ModuleType:
    """The griffe extension of the reference (griffe comes with the ``docs`` extra)."""
    pytest.importorskip("griffe")
    return _load("docstrings")


def _resolve(path: str) -> object:
    """The object at a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(path)


def _markdown_table(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(header)
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[start:end]


def test_risk_page_table_is_the_registry():
    rendered = api.risk_measure_table().splitlines()
    text = (ROOT / "docs" / "risk.md").read_text(encoding="utf-8")
    assert _markdown_table(text, rendered[0]) == rendered
    # one row per registered measure, in the registry's order
    assert [row.split("|")[1].strip(" `") for row in rendered[2:]] == list(RISK_MEASURES)


def test_reference_page_holds_the_risk_table(page):
    assert api.risk_measure_table() in page


def test_every_exported_name_has_a_block_or_a_link_to_one(page):
    documented = [public for _, public in BLOCK.findall(page)] + [
        public for public, _, _ in LINK.findall(page)
    ]
    assert len(documented) == len(set(documented))
    sections = []
    for namespace in api.NAMESPACES:
        names = api.exported(namespace)
        if names is None:
            continue
        sections.append(namespace)
        missing = sorted(f"{namespace}.{name}" for name in names if f"{namespace}.{name}" not in documented)
        assert not missing, f"exported but not on the API page: {missing}"
    assert SECTION.findall(page) == sections
    assert {"riskeval", "riskeval.io", "riskeval.ltr"} <= set(sections)
    # every ::: line is a namespace or an object block
    assert page.count("\n::: ") == len(sections) + len(BLOCK.findall(page))


def _exported(public: str) -> object:
    namespace, name = public.rsplit(".", 1)
    module = importlib.import_module(namespace)
    assert name in module.__all__, public
    return getattr(module, name)


def test_every_block_documents_the_exported_object(page):
    blocks = BLOCK.findall(page)
    assert len({target for target, _ in blocks}) == len(blocks)  # each object once
    for target, public in blocks:
        assert _resolve(target) is _exported(public), public


def test_a_name_exported_twice_links_to_the_block_of_its_own_namespace(page):
    blocks = dict(BLOCK.findall(page))
    links = LINK.findall(page)
    assert links  # the top level re-exports names of riskeval.io
    for public, primary, target in links:
        assert blocks[target] == primary
        assert _exported(public) is _exported(primary), public
    assert blocks["riskeval.io.score_files.read_scores"] == "riskeval.io.read_scores"
    assert api.primary_paths(
        [
            ("riskeval", "read_scores", "riskeval.io.x.read_scores"),
            ("riskeval.io", "read_scores", "riskeval.io.x.read_scores"),
        ]
    ) == {"riskeval.io.x.read_scores": "riskeval.io.read_scores"}
    assert api.primary_paths(
        [
            ("riskeval", "trisk", "riskeval.measures.x.trisk"),
            ("riskeval.inference", "trisk", "riskeval.measures.x.trisk"),
        ]
    ) == {"riskeval.measures.x.trisk": "riskeval.trisk"}


def test_blocks_point_where_the_object_is_defined():
    assert api.target("riskeval", "risk_table") == "riskeval.analysis.table.risk_table"
    assert api.target("riskeval.io", "read_scores") == "riskeval.io.score_files.read_scores"
    assert api.target("riskeval", "RiskSettings") == "riskeval.settings.RiskSettings"
    assert api.target("riskeval.measures", "declared") == "riskeval.measures.declared"  # a module
    # a constant of a lazy namespace: the module it is imported from
    module = types.ModuleType("riskeval_docs_lazy")
    module._EXPORTS = {"SE_METHODS": "riskeval.options"}  # type: ignore[attr-defined]
    module.SE_METHODS = importlib.import_module("riskeval.options").SE_METHODS  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        assert api.target(module.__name__, "SE_METHODS") == "riskeval.options.SE_METHODS"
    finally:
        del sys.modules[module.__name__]


def test_a_namespace_that_does_not_exist_is_left_out(monkeypatch):
    assert api.exported("riskeval.no_such_namespace") is None
    monkeypatch.setattr(api, "NAMESPACES", ("riskeval.io", "riskeval.no_such_namespace"))
    page = api.api_page()
    assert SECTION.findall(page) == ["riskeval.io"] and "no_such_namespace" not in page


def test_a_namespace_that_fails_to_import_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "riskeval_docs_broken.py").write_text("import riskeval_docs_absent\n__all__ = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="riskeval_docs_absent"):
        api.exported("riskeval_docs_broken")


def test_sphinx_roles_become_inline_code(docstrings):
    text = ":func:`riskeval.trisk` and :class:`~riskeval.errors.RiskevalError`, :mod:`riskeval.io`."
    assert docstrings.as_code(text) == "`riskeval.trisk` and `RiskevalError`, `riskeval.io`."


def test_a_description_in_the_type_slot_moves_under_its_entry(docstrings):
    text = """Summary.

Parameters
----------
X : systems × topics score matrix.
alpha : float
    Risk aversion.
se : ``"parametric"`` or ``"jackknife"``
settings : `riskeval.RiskSettings`
systems : names (a list or a comma list) of the systems whose rows to return, with more words
    that continue it.

Notes
-----
label : not an entry: Notes holds text.
"""
    assert (
        docstrings.entries_described(text)
        == """Summary.

Parameters
----------
X
    systems × topics score matrix.
alpha : float
    Risk aversion.
se
    ``"parametric"`` or ``"jackknife"``
settings : riskeval.RiskSettings
systems
    names (a list or a comma list) of the systems whose rows to return, with more words
    that continue it.

Notes
-----
label : not an entry: Notes holds text.
"""
    )


def test_docstrings_parse_without_warnings(page, docstrings, caplog):
    """What the strict build fails on (griffe's warnings: a parameter documented but not in the
    signature, an unparsable line), and paragraphs read as parameters or attributes."""
    import griffe

    loader = griffe.GriffeLoader(
        search_paths=[str(ROOT / "src")],
        docstring_parser=griffe.Parser.numpy,
        extensions=griffe.load_extensions(docstrings.ReferenceDocstrings),
    )
    package = loader.load("riskeval")
    identifier = re.compile(r"^\*{0,2}\w+(, \*{0,2}\w+)*$")
    misread = []
    with caplog.at_level(logging.WARNING, logger="griffe"):
        for target, _ in BLOCK.findall(page):
            obj = package[target.removeprefix("riskeval.")]
            documented = [obj, *(m for m in obj.members.values() if obj.is_class and not m.is_alias)]
            for item in documented:
                for section in item.docstring.parsed if item.docstring else []:
                    if section.kind.value in ("parameters", "attributes", "other parameters"):
                        misread += [
                            (item.path, p.name) for p in section.value if not identifier.match(p.name)
                        ]
    assert not misread, misread
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
