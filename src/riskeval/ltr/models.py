"""LightGBM model files: saved atomically, checked before LightGBM reads them.

LightGBM's text model format (``Booster.write_model``) is a header (``tree``, ``version=v4``, ...,
``tree_sizes=`` the byte length of every tree), a blank line, one ``Tree=i`` block per tree, the
line ``end of trees``, the feature importances, the training parameters between ``parameters:``
and ``end of parameters``, and (from the Python package) a ``pandas_categorical:`` line.
LightGBM's loader trusts ``tree_sizes`` and the section markers: a truncated or damaged file can
abort or crash the process rather than raise.  :func:`read_model` therefore checks the structure
first (:func:`check_model_text`), so such a file is a :class:`~riskeval.errors.RiskevalError`
naming it; :func:`write_model` writes through a temporary file (flushed to disk, then renamed), so
an interrupted save never leaves a truncated model.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import lightgbm

#: Header keys every LightGBM text model has.
HEADER_KEYS = ("version", "num_class", "num_tree_per_iteration", "max_feature_idx")


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

    Raises :class:`~riskeval.errors.RiskevalError` naming the file when it cannot be read, is not a
    complete LightGBM text model, or LightGBM refuses it.
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
    except lightgbm.basic.LightGBMError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise RiskevalError(f"{name}: not a LightGBM model file ({reason}).") from None


def check_model_text(raw: bytes, name: str = "the model") -> str:
    """The text of a LightGBM model file, checked to be complete; else a :class:`RiskevalError`.

    Checked: the file is not empty and is UTF-8; it starts with the line ``tree`` and its header
    has the keys of :data:`HEADER_KEYS`; the ``Tree=0``, ``Tree=1``, ... blocks start at the
    offsets given by ``tree_sizes`` and the line ``end of trees`` follows the last; the
    parameters follow and end with ``end of parameters``; after them, only the
    ``pandas_categorical:`` line, as valid JSON.
    """
    if not raw:
        raise _invalid(name, "the file is empty", cut=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(name, f"byte {exc.start} is not UTF-8 text", cut=False) from None
    header, blank, body = text.partition("\n\n")
    lines = header.split("\n")
    if lines[0].strip() != "tree":
        raise _invalid(name, "its first line is not 'tree'", cut=False)
    keys = dict(line.partition("=")[::2] for line in lines[1:])
    missing = [key for key in HEADER_KEYS if key not in keys]
    if missing or not blank:
        what = ", ".join(missing) if missing else "the blank line after it"
        raise _invalid(name, f"the header lacks {what}")
    trees_end = _check_trees(body, keys.get("tree_sizes"), name)
    rest = body[trees_end:]
    if "\nparameters:\n" not in rest:
        raise _invalid(name, "the file ends before its parameters")
    tail = rest.partition("\nend of parameters\n")
    if not tail[1]:
        raise _invalid(name, "the parameters have no 'end of parameters' line")
    _check_pandas_line(tail[2], name)
    return text


def _check_trees(body: str, sizes_text: str | None, name: str) -> int:
    """The offset in ``body`` just after ``end of trees``, the tree blocks checked against
    ``tree_sizes``."""
    offset = 0
    if sizes_text:
        try:
            sizes = [int(size) for size in sizes_text.split()]
        except ValueError:
            raise _invalid(name, f"tree_sizes={sizes_text[:40]!r} is not a list of byte counts") from None
        encoded = body.encode("utf-8")
        for i, size in enumerate(sizes):
            block = encoded[offset : offset + size]
            if size < 1 or len(block) < size or not block.startswith(f"Tree={i}\n".encode()):
                raise _invalid(name, f"tree {i} of {len(sizes)} is missing or cut short")
            offset += size
        offset = len(encoded[:offset].decode("utf-8", errors="replace"))
    marker = body.find("end of trees\n", offset)
    if marker < 0 or body[offset:marker].strip():
        raise _invalid(name, "there is no 'end of trees' line after the trees")
    return marker + len("end of trees\n")


def _check_pandas_line(tail: str, name: str) -> None:
    """What follows the parameters: nothing, or the Python package's ``pandas_categorical:`` JSON."""
    for line in tail.splitlines():
        if not line.strip():
            continue
        key, _, value = line.partition(":")
        try:
            if key != "pandas_categorical":
                raise ValueError(key)
            json.loads(value)
        except ValueError:
            raise _invalid(name, "the pandas_categorical line after the parameters is cut short") from None


def _invalid(name: str, reason: str, *, cut: bool = True) -> RiskevalError:
    """The error for a model file: not a model at all, or (``cut``) a model file cut short."""
    if not cut:
        return RiskevalError(f"{name}: not a LightGBM model file ({reason}).")
    return RiskevalError(
        f"{name}: not a complete LightGBM model file ({reason}); it may have been cut short while "
        "saved or copied. Save or copy the model again."
    )
