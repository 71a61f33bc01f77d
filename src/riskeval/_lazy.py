"""Names exported on first use.

A namespace maps each public name to the module that defines it and imports that module when the
name is first read (PEP 562's module ``__getattr__``), so importing the namespace imports nothing
else: ``import riskeval`` and ``riskeval --help`` stay fast.  A namespace's ``__init__`` holds its
map and one line::

    __getattr__, __dir__ = _lazy.namespace(__name__, _EXPORTS)
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any


def namespace(
    name: str,
    exports: Mapping[str, str],
    *,
    submodules: Collection[str] = (),
    moved: Mapping[str, str] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of the namespace ``name``.

    ``exports`` maps a public name to the module that defines it; the object is kept in the
    namespace once read.  ``submodules`` are names of the namespace's own modules
    (``name.submodule``).  ``moved`` maps a name that left the namespace to the module that now
    defines it: it is still read from there, with a :class:`DeprecationWarning`, until riskeval
    2.0.
    """
    into = sys.modules[name].__dict__
    moved = moved or {}

    def __getattr__(attr: str) -> Any:
        if attr in submodules:
            return importlib.import_module(f"{name}.{attr}")
        if attr in moved:
            warnings.warn(
                f"{name}.{attr} is now {moved[attr]}.{attr}; the old name goes in riskeval 2.0.",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(importlib.import_module(moved[attr]), attr)
        module = exports.get(attr)
        if module is None:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        value = into[attr] = getattr(importlib.import_module(module), attr)
        return value

    def __dir__() -> list[str]:
        return sorted({*into, *exports, *submodules})

    return __getattr__, __dir__
