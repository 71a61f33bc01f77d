"""System names taken from file names: one rule for run files and for trec_eval/ir_measures ``-q``
output files, so that a run and its evaluation name the same system."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping

#: The extensions a file name loses to become a system name (after ``.gz``): those of TREC run
#: files (``.run``, ``.trec``, ``.res``, ``.txt``, ``.tsv``) and of trec_eval or ir_measures
#: per-query outputs (``.eval``, ``.dat``, ``.out``, ``.jsonl``, ``.json``).
FILE_EXTENSIONS = (".txt", ".run", ".trec", ".res", ".tsv", ".eval", ".dat", ".out", ".jsonl", ".json")


def system_name_from_file(path: str | os.PathLike[str]) -> str:
    """The system name of a file: its base name without ``.gz``, then without one extension of
    :data:`FILE_EXTENSIONS`.

    ``runs/bm25.run.gz`` -> ``bm25``; ``p_bm25.eval`` -> ``p_bm25``; ``bm25.rm3`` -> ``bm25.rm3``
    (an extension not in the list is part of the name).
    """
    name = os.path.basename(os.fspath(path)).removesuffix(".gz")
    for extension in FILE_EXTENSIONS:
        if name.endswith(extension) and len(name) > len(extension):
            return name[: -len(extension)]
    return name


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'a' or 'b'?"`` for the candidates close to ``name`` (difflib's ratio of at
    least 0.6), else ``""``: the end of a message about an unknown name."""
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""


def unlisted_systems(
    listed: Mapping[str, str], systems: Iterable[str], location: str, what: str
) -> list[tuple[str, str]]:
    """The problems of a file listing systems (``listed``: each system named in it → its
    ``file:line``) against the ``systems`` of the scores: one naming the systems it leaves out,
    then, when some are left out, one per listed name that is not a system, at its line, with the
    close names of those left out (a misspelt name is what usually leaves a system out).  Listed
    names that are not systems are otherwise ignored (a file may serve several score tables)."""
    systems = [str(s) for s in systems]
    absent = [s for s in systems if s not in listed]
    if not absent:
        return []
    shown = ", ".join(map(repr, absent[:10])) + (f" and {len(absent) - 10} more" if len(absent) > 10 else "")
    problems = [
        (location, f"gives no {what} for {len(absent)} system(s) of the scores: {shown}; add a line for each")
    ]
    known = set(systems)
    problems += [
        (where, f"system {name!r} is not in the scores{did_you_mean(name, absent)}")
        for name, where in listed.items()
        if name not in known
    ]
    return problems
