"""Per-query output files of the evaluation tools, several measures at once: trec_eval ``-q``
(``measure topic value``) and ir_measures ``-q`` (``query_id measure value`` as tab-separated text,
or JSON lines with ``--output_format jsonl``), told apart by their content
(:mod:`riskeval.io.formats`).

``ir_measures -q`` prints one line per (query, measure) and then, unless ``-n`` is given, summary
lines whose query is ``all``; they are skipped here, as trec_eval's ``all`` lines are by
:mod:`riskeval.io.trec_eval`.  Files go through :mod:`riskeval.io.decoding` like every input.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.decoding import lines, read_text
from riskeval.io.formats import PER_QUERY, Format, Request, format_of, format_of_files
from riskeval.io.measures import check_measure
from riskeval.io.numbers import parse_decimal
from riskeval.io.problems import Problems
from riskeval.io.system_names import system_name_from_file
from riskeval.io.tables import MEASURE_COLUMN, long_to_matrix
from riskeval.io.trec_eval import SUMMARY_TOPIC, input_files
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

_JSON_FIELDS = ("query_id", "measure", "value")


def per_query_format(path: str | os.PathLike) -> str:
    """``"trec_eval"`` or ``"ir_measures"``: which tool's ``-q`` output ``path`` holds, by its
    extension and content (:func:`riskeval.io.formats.format_of`).

    Raises
    ------
    InputFormatError
        The file is neither (naming the file and its first line, or the format it is in).
    """
    return _per_query(path, format_of(path, caller="per_query_format")).name


def read_per_query(
    paths: Sequence[str | os.PathLike],
    measures: Sequence[Any] | None = None,
    *,
    names: str | Sequence[str] | None = None,
    missing: MissingPolicy = "raise",
) -> dict[str, pd.DataFrame]:
    """Score matrices from trec_eval or ir_measures ``-q`` output files, all of one tool (found by
    :func:`per_query_format`): :func:`riskeval.io.trec_eval.read_trec_eval_measures` or
    :func:`read_ir_measures`."""
    fmt = _per_query(paths[0], format_of_files(paths, None, "read_per_query"))
    request = Request(None if measures is None else list(measures), names=names, missing=missing)
    return fmt.read([os.fspath(p) for p in paths], request)


def _per_query(path: str | os.PathLike, fmt: Format) -> Format:
    if fmt.kind != PER_QUERY:
        raise InputFormatError([(os.fspath(path), f"is {fmt.description}, not per-query output.")])
    return fmt


def read_ir_measures(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    measures: Sequence[Any] | None = None,
    *,
    names: str | Sequence[str] | None = None,
    missing: MissingPolicy = "raise",
) -> dict[str, pd.DataFrame]:
    """Score matrices from ``ir_measures qrels run MEASURES -q`` output files, one system per file.

    Parameters
    ----------
    paths : path or iterable of paths
        Files of ``query_id<TAB>measure<TAB>value`` lines (``--output_format tsv``, the default) or
        JSON objects with ``query_id``, ``measure`` and ``value`` (``--output_format jsonl``);
        summary lines (query ``all``) are skipped.
    measures : sequence of measure names, optional
        The measures to read, in ir_measures', trec_eval's or ranx's spelling
        (:func:`riskeval.io.measures.canonical_measure`).  ``None``: every measure in the files, in
        order of first appearance.
    names : None, "file" or sequence of str
        System names: ``None`` or ``"file"`` name each system by its file name without ``.gz``
        and one extension such as ``.eval`` or ``.tsv``, as run files are named
        (:func:`riskeval.io.system_names.system_name_from_file`; the output does not name its
        run); a sequence gives one name per file.
    missing : {"raise", "zero", "drop"}
        Queries evaluated for some systems only: see :func:`riskeval.io.apply_missing`.

    Returns
    -------
    dict
        Measure name (as requested, or as printed in the files) -> systems × topics matrix.

    Raises
    ------
    InputFormatError
        Malformed lines, values that are not finite numbers, a query measured twice for a system,
        an absent measure (listing those present), each as ``file:line``.
    """
    check_option(missing, MISSING_POLICIES, "read_ir_measures", "missing")
    for measure in measures or ():
        check_measure(measure)
    files = input_files(paths, "read_ir_measures")
    systems = _file_names(files, names)
    rows: list[tuple[str, str, str, float]] = []
    where: list[str] = []
    problems = Problems()
    for path, system in zip(files, systems, strict=True):
        before = len(rows)
        for number, line in enumerate(lines(read_text(path)), 1):
            record = _record(line, f"{path}:{number}", problems)
            if record is not None and record[0] != SUMMARY_TOPIC:
                rows.append((system, *record))
                where.append(f"{path}:{number}")
        if len(rows) == before and not problems:
            problems.append((path, "holds no per-query line: run ir_measures with -q."))
    problems.raise_any()
    frame = pd.DataFrame(rows, columns=["system", "topic", MEASURE_COLUMN, "score"])
    wanted = list(measures) if measures is not None else list(dict.fromkeys(frame[MEASURE_COLUMN]))
    source = files[0] if len(files) == 1 else f"ir_measures output ({len(files)} files)"
    return {
        str(measure): long_to_matrix(
            frame,
            system="system",
            topic="topic",
            score="score",
            measure=measure,
            missing=missing,
            locate=where.__getitem__,
            source=source,
        )
        for measure in wanted
    }


def _record(line: str, location: str, problems: Problems) -> tuple[str, str, float] | None:
    """``(query_id, measure, value)`` of one line (``None`` for a blank or malformed one)."""
    fields = _fields(line, location, problems)
    if fields is None:
        return None
    value = parse_decimal(fields[2])
    if value is None:
        problems.append((location, f"value {fields[2][:40]!r} of measure {fields[1]!r} is not a number."))
        return None
    return fields[0], fields[1], value


def _fields(line: str, location: str, problems: Problems) -> tuple[str, str, str] | None:
    text = line.strip()
    if not text:
        return None
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError as exc:
            problems.append((location, f"is not a JSON object: {exc}."))
            return None
        if not isinstance(obj, dict) or not all(k in obj for k in _JSON_FIELDS):
            summary = isinstance(obj, dict) and "query_id" not in obj and {"measure", "value"} <= set(obj)
            problems.append(
                (location, f"expected a JSON object with {', '.join(_JSON_FIELDS)}{_summary(summary)}.")
            )
            return None
        value = obj["value"]
        return str(obj["query_id"]), str(obj["measure"]), value if isinstance(value, str) else repr(value)
    fields = text.split("\t") if "\t" in text else text.split()
    if len(fields) != 3:
        problems.append(
            (
                location,
                "expected 3 tab-separated fields (query_id, measure, value) as printed by "
                f"ir_measures -q; got {len(fields)}: {text[:80]!r}{_summary(len(fields) == 2)}.",
            )
        )
        return None
    return fields[0].strip(), fields[1].strip(), fields[2].strip()


def _summary(summary: bool) -> str:
    """The hint for a summary line (``measure value``), which ir_measures prints without ``-q``."""
    return (
        "; this is a summary line (measure, value): run ir_measures with -q for per-query values"
        if summary
        else ""
    )


def _file_names(files: list[str], names: Any) -> list[str]:
    if names is None or (isinstance(names, str) and names == "file"):
        chosen = [system_name_from_file(f) for f in files]
    elif isinstance(names, Sequence) and not isinstance(names, str):
        chosen = list(names)
        if len(chosen) != len(files) or not all(isinstance(n, str) and n for n in chosen):
            raise RiskevalError(f"names= needs one non-empty name per file ({len(files)}); got {chosen!r}.")
    else:
        raise RiskevalError(f"The 'names' parameter must be None, 'file' or a list of names; got {names!r}.")
    repeated = sorted({n for n in chosen if chosen.count(n) > 1})
    if repeated:
        raise RiskevalError(f"System names must be unique; {repeated} name several files: pass names=[...].")
    return chosen
