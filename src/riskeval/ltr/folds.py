"""The folder layout of MSLR-Web10K/30K and similar sets: ``Fold1`` … ``FoldK``, each holding
``train.txt``, ``vali.txt`` and ``test.txt`` (SVMlight/LETOR files).

In MSLR's layout the queries are split into K subsets and the folds rotate over them: Fold1 tests
on S5, validates on S4 and trains on S1–S3; Fold2 tests on S1, validates on S5; and so on.  So
each query is in exactly one ``test.txt``, and ``FoldN/vali.txt`` is ``Fold(N−1)/test.txt``.
:func:`read_folds` reads the K test files once (each query once), checks that the other files are
that rotation (by size and content digest, without parsing them), and gives the per-query part
numbers that :class:`riskeval.ltr.Experiment` rotates in the same way: the fold that
tests on part i validates on part i − 1 and trains on the others.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from riskeval.errors import RiskevalError
from riskeval.io.letor import LetorData, read_letor

_FOLD = re.compile(r"Fold(\d+)\Z")


class Folds(NamedTuple):
    """The queries of a fold layout: ``data`` (every query once, the test files in fold order),
    ``part`` (per query, the index of the fold that tests it) and the fold folders' ``names``."""

    data: LetorData
    part: np.ndarray
    names: tuple[str, ...]


def _digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def fold_dirs(root: str | Path) -> list[Path]:
    """The ``FoldN`` folders of ``root``, by N, each with its three files; at least three."""
    root = Path(root)
    if not root.is_dir():
        raise RiskevalError(f"{root} is not a folder (expected Fold1, Fold2, ... inside it).")
    found = sorted(
        (int(m.group(1)), p) for p in root.iterdir() if p.is_dir() and (m := _FOLD.match(p.name)) is not None
    )
    if len(found) < 3:
        raise RiskevalError(f"{root} must hold at least three folders Fold1, Fold2, ...; found {len(found)}.")
    dirs = [p for _, p in found]
    missing = [
        str(p / f) for p in dirs for f in ("train.txt", "vali.txt", "test.txt") if not (p / f).is_file()
    ]
    if missing:
        raise RiskevalError(f"Missing fold file(s): {', '.join(missing[:5])}.")
    return dirs


def read_folds(root: str | Path, *, check: bool = True) -> Folds:
    """Read an MSLR-style fold layout (see the module docstring).

    With ``check`` (default), ``FoldN/vali.txt`` must have the content of ``Fold(N−1)/test.txt`` and
    ``FoldN/train.txt`` the size of the other test files together; a layout that is not this
    rotation is refused, as the experiment would not reproduce its folds.
    """
    dirs = fold_dirs(root)
    tests = [d / "test.txt" for d in dirs]
    if check:
        sizes = [t.stat().st_size for t in tests]
        digests = [_digest(t) for t in tests]
        total = sum(sizes)
        for n, d in enumerate(dirs):
            prev = (n - 1) % len(dirs)
            vali = d / "vali.txt"
            if vali.stat().st_size != sizes[prev] or _digest(vali) != digests[prev]:
                raise RiskevalError(
                    f"{vali} is not {tests[prev]}: the folds do not rotate as MSLR-Web10K's (FoldN "
                    "validates on the test part of the fold before it). Give the parts as files "
                    "instead (riskeval ltr experiment FILE... --folds-by-file)."
                )
            train = d / "train.txt"
            if train.stat().st_size != total - sizes[n] - sizes[prev]:
                raise RiskevalError(
                    f"{train} is not the other folds' test parts together (its size differs): the "
                    "folds do not rotate as MSLR-Web10K's."
                )
    parts = [read_letor(t) for t in tests]
    width = max(p.X.shape[1] for p in parts)
    X = sp.vstack([sp.csr_matrix(p.X, shape=(p.X.shape[0], width)) for p in parts], format="csr")
    data = LetorData(
        X,
        np.concatenate([p.y for p in parts]),
        np.concatenate([p.group for p in parts]),
        None if any(p.qid is None for p in parts) else np.concatenate([p.qid for p in parts]),
        str(Path(root)),
    )
    part = np.repeat(np.arange(len(parts)), [p.group.size for p in parts])
    return Folds(data, part, tuple(d.name for d in dirs))
