"""System names taken from file names: one rule for run files and for trec_eval/ir_measures ``-q``
output files, so that a run and its evaluation name the same system."""

from __future__ import annotations

import os

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
