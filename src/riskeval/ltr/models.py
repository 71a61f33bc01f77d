"""LightGBM model files: saved atomically, checked before LightGBM reads them.

LightGBM's text model format (``Booster.write_model``) is a header (``tree``, ``version=v4``, ...,
``tree_sizes=`` the byte length of every tree), a blank line, one ``Tree=i`` block per tree, the
line ``end of trees``, the feature importances, the training parameters between ``parameters:``
and ``end of parameters``, and (from the Python package) a ``pandas_categorical:`` line.
LightGBM's loader trusts ``tree_sizes``, the section markers and every count: a truncated or
damaged file can abort or crash the process rather than raise.  :func:`read_model` therefore
checks every line first (:func:`~riskeval.ltr.model_text.check_model_text`), so such a file is an
:class:`~riskeval.errors.InputFormatError` naming it and the line; :func:`write_model` writes
through a temporary file (flushed to disk, then renamed), so an interrupted save never leaves a
truncated model.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.ltr.model_text import check_model_text

if TYPE_CHECKING:
    import lightgbm


def write_model(booster: lightgbm.Booster, path: str | os.PathLike, *, inputs: tuple = ()) -> None:
    """Write ``booster`` to ``path`` in LightGBM's text format, atomically.

    The text is written to a temporary file in the same folder, flushed to disk (``fsync``) and
    renamed over ``path`` (:func:`riskeval.io.atomic.write_atomic`): a failure or an interrupted
    process leaves any previous model intact and no partial file.  ``path`` must be a new path or a
    regular file, and none of ``inputs``.  Raises :class:`~riskeval.errors.OutputError` naming the
    file otherwise.
    """
    from riskeval.io.atomic import write_atomic

    write_atomic(path, booster.model_to_string(), inputs=inputs)


def read_model(path: str | os.PathLike) -> lightgbm.Booster:
    """The LightGBM model saved in ``path``, after :func:`check_model_text` has accepted it.

    Raises :class:`~riskeval.errors.InputFormatError` naming the file (and the line) when it is not
    a complete LightGBM text model or LightGBM refuses it, :class:`~riskeval.errors.RiskevalError`
    when it cannot be read.
    """
    import lightgbm

    name = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise RiskevalError(f"{name}: cannot read the model file ({exc.strerror or exc}).") from None
    text = check_model_text(raw, name)
    try:
        return lightgbm.Booster(model_str=text)
    except (lightgbm.basic.LightGBMError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise InputFormatError([(name, f"not a LightGBM model file ({reason}).")]) from None


__all__ = ["check_model_text", "read_model", "write_model"]
