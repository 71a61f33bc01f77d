"""Names exported on first use.

A namespace maps each public name to the module that defines it and imports that module when the
name is first read (PEP 562's module ``__getattr__``), so importing the namespace imports nothing
else: ``import riskeval`` and ``riskeval --help`` stay fast.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def load(namespace: str, exports: Mapping[str, str], name: str, into: dict[str, Any]) -> Any:
    """The object ``name`` of ``namespace``, imported from its module in ``exports`` and kept in
    the namespace's globals ``into`` for the next read."""
    module = exports.get(name)
    if module is None:
        raise AttributeError(f"module {namespace!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    into[name] = value
    return value


def names(exports: Mapping[str, str], into: dict[str, Any]) -> list[str]:
    """The namespace's names for ``dir()``: its globals and every export."""
    return sorted({*into, *exports})
