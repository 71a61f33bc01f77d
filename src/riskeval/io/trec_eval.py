"""trec_eval ``-q`` output: ``measure <whitespace> topic <whitespace> value`` lines.

With ``-q``, trec_eval prints every measure for every evaluated topic, then summary lines whose
topic is ``all`` (``runid``, ``num_q``, the means...).  A file may hold one such output or several
concatenated: an output ends with its ``all`` lines, and a per-topic line after them (or a second
``runid`` line) starts the next one.  Files go through :mod:`riskeval.io.decoding` (compression,
encoding, line breaks), as for every reader.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.decoding import lines, read_text
from riskeval.io.measures import check_measure, describe_available, resolve_measure
from riskeval.io.numbers import parse_decimal
from riskeval.io.problems import Problems
from riskeval.io.system_names import system_name_from_file
from riskeval.io.tables import assemble
from riskeval.model.matrix import apply_missing
from riskeval.options import MISSING_POLICIES, MissingPolicy, check_option

SUMMARY_TOPIC = "all"


@dataclass
class _Output:
    """One trec_eval output read from a file."""

    path: str
    line: int
    runid: str | None = None
    runid_line: int = 0
    summary: list[str] = field(default_factory=list)  # measures of the "all" lines
    # measure -> [(topic, value text, line)]
    per_topic: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)


def read_trec_eval(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    measure: Any,
    *,
    names: str | Sequence[str] | None = None,
    missing: MissingPolicy = "raise",
) -> pd.DataFrame:
    """Score matrix from trec_eval ``-q`` output files, one measure chosen.

    Parameters
    ----------
    paths : path or iterable of paths
        trec_eval ``-q`` output files.  Each holds one system's output or several concatenated.
    measure : str or ir_measures measure
        The measure to read, by its trec_eval name as printed in the files (``"ndcg_cut_10"``,
        ``"P_10"``, ``"map"``) or its ir_measures name (``"nDCG@10"``, ``"P@10"``, ``"AP"``).
    names : None, "file" or sequence of str
        How systems are named.  ``None`` (default): by each output's ``runid`` line; an output
        without one (e.g. ``trec_eval -m ndcg_cut``) takes its file's name if it is alone in its
        file.  ``"file"``: by file name, one output per file.  A file's name loses ``.gz`` and one
        extension such as ``.eval`` or ``.txt``, as a run file's does
        (:func:`riskeval.io.system_names.system_name_from_file`): ``p_bm25.eval`` names ``p_bm25``.
        A sequence:
        one name per output, in file order then order within each file.  Names must be unique:
        many runs share a ``runid`` (e.g. ``DirichletLM``), so duplicates are an error that asks
        for ``names="file"`` or explicit names.
    missing : {"raise", "zero", "drop"}
        Topics evaluated for some systems only (trec_eval ``-q`` omits topics without results):
        see :func:`riskeval.io.apply_missing`.

    Returns
    -------
    DataFrame
        Systems (in order of the outputs) × topics (in order of first appearance).

    Raises
    ------
    InputFormatError
        Every problem in every file at once: malformed lines (``file:line``), a measure absent
        from an output (listing the measures present), non-numeric or non-finite values,
        duplicate topics within an output, duplicate system names.
    """
    if measure is None:
        raise RiskevalError(
            "read_trec_eval needs measure=, e.g. 'ndcg_cut_10', 'P_10' or 'map' (trec_eval "
            "names) or 'nDCG@10' (ir_measures names)."
        )
    check_measure(measure)
    [matrix] = read_trec_eval_measures(paths, [measure], names=names, missing=missing).values()
    return matrix


def read_trec_eval_measures(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    measures: Sequence[Any] | None = None,
    *,
    names: str | Sequence[str] | None = None,
    missing: MissingPolicy = "raise",
) -> dict[str, pd.DataFrame]:
    """Score matrices of several measures from trec_eval ``-q`` output files, read once.

    Parameters
    ----------
    paths, names, missing
        As in :func:`read_trec_eval`.
    measures : sequence of str or ir_measures measures, optional
        The measures to read, in either spelling (see :func:`read_trec_eval`).  ``None``: every
        measure the outputs give per topic, in order of first appearance (trec_eval's counts
        ``num_ret``, ``num_rel``, ``num_rel_ret`` included).

    Returns
    -------
    dict
        Measure name (as requested, or as printed in the files) -> systems × topics matrix.

    Raises
    ------
    InputFormatError
        As :func:`read_trec_eval`, for every measure at once.
    """
    check_option(missing, MISSING_POLICIES, "read_trec_eval", "missing")
    for measure in measures or ():
        check_measure(measure)
    files = input_files(paths, "read_trec_eval")
    problems = Problems()
    outputs: list[_Output] = []
    for path in files:
        outputs += _parse_file(path, problems)
    system_names = _name_outputs(outputs, names, problems)
    if measures is None:
        wanted: list[Any] = list(dict.fromkeys(m for out in outputs for m in out.per_topic))
    else:
        wanted = list(measures)
    cells: dict[str, tuple[list[str], list[str], list[float]]] = {}
    for measure in wanted:
        if str(measure) in cells:
            continue
        systems, topics, values = cells.setdefault(str(measure), ([], [], []))
        lacking: dict[tuple[str, ...], list[_Output]] = {}  # measures available -> outputs
        for out, name in zip(outputs, system_names, strict=True):
            if not out.per_topic:
                continue
            chosen = resolve_measure(measure, list(out.per_topic))
            if chosen is None:
                lacking.setdefault(tuple(out.per_topic), []).append(out)
                continue
            for topic, value in _measure_values(out, chosen, problems):
                systems.append(name)
                topics.append(topic)
                values.append(value)
        problems.extend([_absent_measure(measure, list(a), outs) for a, outs in lacking.items()])
    problems.raise_any()
    source = str(files[0] if len(files) == 1 else f"trec_eval output ({len(files)} files)")
    return {
        measure: apply_missing(
            assemble(np.array(s, dtype=object), np.array(t, dtype=object), v), missing, source=source
        )
        for measure, (s, t, v) in cells.items()
    }


def input_files(paths: str | os.PathLike | Iterable[str | os.PathLike], caller: str) -> list[str]:
    """The paths given to a reader of per-query files: at least one, each once."""
    files = [str(paths)] if isinstance(paths, (str, os.PathLike)) else [str(p) for p in paths]
    if not files:
        raise RiskevalError(f"{caller} needs at least one file; got an empty list.")
    repeated = sorted({p for p in files if files.count(p) > 1})
    if repeated:
        raise RiskevalError(f"{caller} got the same file more than once: {repeated}.")
    return files


def _parse_file(path: str, problems: Problems) -> list[_Output]:
    """The outputs in one file; malformed lines are added to ``problems``."""
    outputs: list[_Output] = []
    current: _Output | None = None
    try:
        text = read_text(path)
    except InputFormatError as exc:
        problems.extend(exc.problems, exc.omitted)
        return outputs
    for number, line in enumerate(lines(text), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) > 3 and fields[0] == "runid":
            fields = [fields[0], fields[1], " ".join(fields[2:])]
        if len(fields) != 3:
            problems.append(
                (
                    f"{path}:{number}",
                    "expected 3 whitespace-separated fields (measure, topic, value) as "
                    f"printed by trec_eval -q; got {len(fields)}: {_clip(line.strip())!r}.",
                )
            )
            continue
        name, topic, value = fields
        summary = topic == SUMMARY_TOPIC
        if (
            current is None
            or (not summary and current.summary)
            or (summary and name == "runid" and current.runid is not None)
        ):
            current = _Output(path, number)
            outputs.append(current)
        if summary:
            current.summary.append(name)
            if name == "runid":
                current.runid, current.runid_line = value, number
        else:
            current.per_topic.setdefault(name, []).append((topic, value, number))
    if not outputs:
        problems.append((path, "is empty: expected trec_eval -q output."))
    for out in outputs:
        if not out.per_topic:
            problems.append(
                (
                    f"{path}:{out.line}",
                    "this output has summary ('all') lines only: run trec_eval with -q to get "
                    "per-topic values.",
                )
            )
    return outputs


def _absent_measure(measure: Any, available: list[str], outputs: list[_Output]) -> tuple[str, str]:
    """One problem for the outputs that lack the measure and have the same ``available`` ones."""
    in_summary = resolve_measure(measure, outputs[0].summary)
    detail = (
        f"appears only in the summary ('all') lines{_as(in_summary, measure)}, not per topic"
        if in_summary is not None
        else "is not there"
    )
    others = [f"{out.path}:{out.line}" for out in outputs[1:4]] + ["..."] * (len(outputs) > 4)
    where = f" (nor in {len(outputs) - 1} other output(s): {', '.join(others)})" if others else ""
    return (
        f"{outputs[0].path}:{outputs[0].line}",
        f"measure {str(measure)!r} {detail}{where}; the per-topic measures there are: "
        f"{describe_available(available)}.",
    )


def _as(name: str, measure: Any) -> str:
    return f" (as {name!r})" if name != str(measure) else ""


def _measure_values(out: _Output, chosen: str, problems: Problems) -> list[tuple[str, float]]:
    """(topic, value) of measure ``chosen`` in one output; problems go to ``problems``."""
    found: list[tuple[str, float]] = []
    first: dict[str, int] = {}
    for topic, text, number in out.per_topic[chosen]:
        if topic in first:
            problems.append(
                (
                    f"{out.path}:{number}",
                    f"topic {topic!r} of measure {chosen!r} appears again (first at line "
                    f"{first[topic]}). Concatenated outputs must each end with their 'all' "
                    "summary lines.",
                )
            )
            continue
        first[topic] = number
        value = parse_decimal(text)
        if value is None:
            problems.append(
                (f"{out.path}:{number}", f"value {_clip(text)!r} of measure {chosen!r} is not a number.")
            )
            continue
        if not np.isfinite(value):
            problems.append((f"{out.path}:{number}", f"value {text!r} of measure {chosen!r} is not finite."))
            continue
        found.append((topic, value))
    return found


def _name_outputs(outputs: list[_Output], names: Any, problems: Problems) -> list[str]:
    """One system name per output (see ``names`` in :func:`read_trec_eval`)."""
    per_file: dict[str, int] = {}
    for out in outputs:
        per_file[out.path] = per_file.get(out.path, 0) + 1
    if names is None:
        named = [_runid_name(out, per_file[out.path], problems) for out in outputs]
    elif isinstance(names, str) and names == "file":
        problems.extend(
            [
                (
                    path,
                    f"names='file' needs one output per file, but this file holds {count}: pass "
                    "names=None to use the runid lines, or names=[...] with one name per output.",
                )
                for path, count in per_file.items()
                if count > 1
            ]
        )
        named = [
            (system_name_from_file(out.path) if per_file[out.path] == 1 else "", out.path, "file name")
            for out in outputs
        ]
    elif isinstance(names, Sequence) and not isinstance(names, str):
        given = list(names)
        if len(given) != len(outputs):
            counts = ", ".join(f"{Path(p).name}: {n}" for p, n in per_file.items())
            raise RiskevalError(
                f"names= has {len(given)} name(s) but the files hold {len(outputs)} "
                f"trec_eval output(s) ({counts}): give one name per output."
            )
        bad = [n for n in given if not isinstance(n, str) or not n]
        if bad:
            raise RiskevalError(f"names= must hold non-empty strings; got {bad[:5]}.")
        named = [(n, f"{out.path}:{out.line}", "names=") for n, out in zip(given, outputs, strict=True)]
    else:
        raise RiskevalError(
            "The 'names' parameter must be None (runid lines), 'file' or a list of names, one per "
            f"output; got {names!r}."
        )
    _refuse_duplicate_names(named, problems)
    return [name for name, _, _ in named]


def _runid_name(out: _Output, in_file: int, problems: Problems) -> tuple[str, str, str]:
    if out.runid is not None:
        return out.runid, f"{out.path}:{out.runid_line}", "runid line"
    if in_file == 1:
        return system_name_from_file(out.path), out.path, "file name"
    problems.append(
        (
            f"{out.path}:{out.line}",
            f"this output has no runid line and shares its file with {in_file - 1} other(s): "
            "pass names=[...] with one name per output.",
        )
    )
    return "", "", ""


def _refuse_duplicate_names(named: list[tuple[str, str, str]], problems: Problems) -> None:
    where: dict[str, list[tuple[str, str]]] = {}
    for name, location, origin in named:
        if name:
            where.setdefault(name, []).append((location, origin))
    for name, places in where.items():
        if len(places) > 1:
            shown = ", ".join(f"{loc} ({origin})" for loc, origin in places[:5])
            more = f" and {len(places) - 5} more" if len(places) > 5 else ""
            problems.append(
                (
                    places[0][0],
                    f"system name {name!r} is given to {len(places)} outputs: {shown}{more}. "
                    "System names must be unique: pass names='file' to name each system by its "
                    "file, or names=[...] with one name per output.",
                )
            )


def _clip(text: str, width: int = 80) -> str:
    """``text``, shortened to ``width`` characters for a message."""
    return text if len(text) <= width else text[: width - 3] + "..."
