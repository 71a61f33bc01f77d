"""The API reference page (``api.md``), written when the site is built.

riskeval's namespaces export their names lazily (a module-level ``__getattr__``), which a static
reader of the source cannot follow.  This hook imports each namespace, and for every name of its
``__all__`` writes a mkdocstrings block for the object where it is defined
(``::: riskeval.io.score_files.read_scores``), headed by the public path
(``riskeval.io.read_scores``).  The page also holds the table of risk measures, from their
registry.

``mkdocs.yml`` names this file under ``hooks``; ``api_page()`` is the whole page, without mkdocs.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

#: The namespaces of the reference, in the order of the page.  One that does not exist (yet) is
#: left out.
NAMESPACES = (
    "riskeval",
    "riskeval.io",
    "riskeval.inference",
    "riskeval.variations",
    "riskeval.analysis",
    "riskeval.ltr",
    "riskeval.bayes",
    "riskeval.errors",
)


def risk_measure_table() -> str:
    """The Markdown table of the registered risk measures: name, parameters, column of
    ``risk_table`` and the paper and equation that define it."""
    from riskeval.measures.declared import measure_table

    lines = [
        "| risk measure | parameters | column of `risk_table` | paper, equation |",
        "|---|---|---|---|",
    ]
    for name, params, column, citation in measure_table():
        lines.append(f"| `{name}` | `{params}` | `{column}` | {citation} |")
    return "\n".join(lines) + "\n"


def exported(namespace: str) -> list[str] | None:
    """The names of ``namespace.__all__``, or ``None`` when there is no such module or it
    declares no ``__all__``."""
    try:
        module = importlib.import_module(namespace)
    except ModuleNotFoundError as error:
        if error.name == namespace:
            return None
        raise
    names = getattr(module, "__all__", None)
    return None if names is None else list(names)


def target(namespace: str, name: str) -> str:
    """The dotted path mkdocstrings reads ``namespace.name`` from: a module's name; where a class
    or function is defined; for any other object (a constant) the module a lazy namespace imports
    it from (its ``_EXPORTS`` map), else the namespace itself."""
    module = importlib.import_module(namespace)
    obj: Any = getattr(module, name)
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or inspect.isroutine(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    source = getattr(module, "_EXPORTS", {}).get(name, namespace)
    return f"{source}.{name}"


def primary_paths(entries: list[tuple[str, str, str]]) -> dict[str, str]:
    """For each target of ``entries`` (namespace, name, target), the public path documented in
    full: the one in the namespace that holds the object's module (``riskeval.io`` for
    ``riskeval.io.score_files.read_scores``), else the first on the page."""
    primary: dict[str, tuple[int, str]] = {}
    for namespace, name, where in entries:
        depth = namespace.count(".") + 1 if where.startswith(namespace + ".") else 0
        if where not in primary or depth > primary[where][0]:
            primary[where] = (depth, f"{namespace}.{name}")
    return {where: public for where, (_, public) in primary.items()}


def entry(public: str, where: str, primary: str) -> list[str]:
    """The block of ``public`` (the object at ``where``), or a link to ``primary``, its block."""
    if public != primary:
        return [f"### `{public}`", "", f"The same object as [`{primary}`][{where}].", ""]
    return [f"::: {where}", "    options:", f"      heading: {public}", f"      toc_label: {public}", ""]


def api_page() -> str:
    """The Markdown of the API reference page: the table of risk measures, then per namespace its
    docstring and a block for each name, headed by the name's public path.  An object exported by
    several namespaces is documented once and linked from the others."""
    lines = [
        "# API reference",
        "",
        "Every public name of riskeval, by namespace, from the docstrings of the package. Each",
        "heading is the path to import; the text below it is the object's own documentation.",
        "",
        "## Risk measures",
        "",
        "The risk measures declared by `riskeval` (`risk=` parameters take the object or its text,",
        'e.g. `rk.URisk(alpha=5)`, `"URisk@5"` or `"TRisk(alpha=5, se=\'jackknife\')"`):',
        "",
        risk_measure_table(),
    ]
    sections = [(ns, names) for ns in NAMESPACES if (names := exported(ns))]
    entries = [(ns, name, target(ns, name)) for ns, names in sections for name in names]
    primary = primary_paths(entries)
    for namespace, _ in sections:
        lines += [f"::: {namespace}", "    options:", "      heading_level: 2", "      members: false", ""]
        for ns, name, where in entries:
            if ns == namespace:
                lines += entry(f"{ns}.{name}", where, primary[where])
    return "\n".join(lines)


def on_files(files: Any, config: Any) -> Any:
    """mkdocs hook: add the generated ``api.md`` to the site's files."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "api.md", content=api_page()))
    return files
