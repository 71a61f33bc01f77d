"""Names exported on first use.

A namespace maps each public name to the module that defines it and imports that module when the
name is first read (PEP 562's module ``__getattr__``), so importing the namespace imports nothing
else: ``import riskeval`` and ``riskeval --help`` stay fast.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any


def load(namespace: str, exports: Mapping[str, str], name: str, into: dict[str, Any]) -> Any:
    """The object ``name`` of ``namespace``, imported from its module in ``exports`` and kept in
    the namespace's globals ``into`` for the next read.

    Importing a submodule binds it in the namespace under its own name; where that name is also an
    export (``riskeval.bayes.fit``, the module, and ``fit``, the function), the binding is dropped
    so that the next read gives the export."""
    module = exports.get(name)
    if module is None:
        raise AttributeError(f"module {namespace!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    for shadowed in [key for key in exports if isinstance(into.get(key), ModuleType)]:
        del into[shadowed]
    into[name] = value
    return value


def names(exports: Mapping[str, str], into: dict[str, Any]) -> list[str]:
    """The namespace's names for ``dir()``: its globals and every export."""
    return sorted({*into, *exports})
