"""The formats of score files: one ordered registry, :data:`FORMATS`, that
:func:`riskeval.score_matrix`, :func:`riskeval.io.score_matrices` and the command line all consult.

Each :class:`Format` says which file extensions it claims, how to recognise its content (``sniff``)
and how to read its files (``read``).  A file's format is, in this order:

1. the one named (``format="tsv"``);
2. the one whose extensions hold the file's (after ``.gz``, ``.bz2`` or ``.xz``), if its sniffer
   recognises the content, or if no other format's does;
3. the first format in registry order whose sniffer recognises the content.

So ``scores.csv`` is a CSV table, ``bm25.eval`` trec_eval output, and ``ir_measures ... -q >
bm25.tsv`` ir_measures output (its lines are not a table's header), whatever the extension says;
a file no format claims is refused, naming every format.  Adding a format is one
:func:`register_format` call; no two formats may share a name or an extension.

Readers are imported when a file of theirs is read (pyarrow only for Parquet files).
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.decoding import COMPRESSION, lines, read_head, read_text, to_utf8, transcoded

if TYPE_CHECKING:
    import pandas as pd

    from riskeval.options import MissingPolicy

Kind = Literal["table", "per-query"]
#: A score table: one file, long or wide, whose columns ``system=``, ``topic=``, ``score=`` name.
TABLE: Kind = "table"
#: Per-query output of an evaluation tool: one system per output, several files read together.
PER_QUERY: Kind = "per-query"
#: The key of the one matrix of an input that names no measure (a wide table).
UNNAMED = "score"
#: The column names of a long table unless told otherwise.
DEFAULT_COLUMNS: Mapping[str, Hashable] = {"system": "system", "topic": "topic", "score": "score"}


@dataclass(frozen=True)
class Request:
    """What to read from score files.

    ``measures``: the measures wanted, in order (``None``: every measure the files hold).  ``one``:
    the caller takes one matrix (:func:`riskeval.score_matrix`): with ``measures`` ``None`` the
    files must hold one measure, and each reader says so in its own words.  ``names``: system names
    of per-query outputs (see :func:`riskeval.io.read_trec_eval`).  ``missing``: the missing-topic
    policy.  ``columns``: the system, topic and score columns of a long table.
    """

    measures: list[Any] | None = None
    one: bool = False
    names: str | Sequence[str] | None = None
    missing: MissingPolicy = "raise"
    columns: Mapping[str, Hashable] = field(default_factory=lambda: dict(DEFAULT_COLUMNS))


class Head:
    """What the sniffers see of a file: its first bytes as stored (:attr:`raw`) and its first line
    of text that is not blank (:attr:`line`, ``None`` when the file is empty or is not text)."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self.raw, self._content, self._whole = read_head(self.path)

    @functools.cached_property
    def _first(self) -> tuple[int, str] | InputFormatError | None:
        """``(line number, line)`` of the first non-blank line, ``None`` for an empty file, or the
        error that says why the file is not text."""
        data = self._content
        try:
            if self._whole:
                return _first_line(to_utf8(data, self.path).decode("utf-8"))
            end = -1 if transcoded(data) else data.rfind(b"\n")  # whole lines: no character cut
            found = _first_line(to_utf8(data[:end], self.path).decode("utf-8")) if end > 0 else None
            # else a start of blank lines, a line of a megabyte or UTF-16/32 text: all of it
            return found if found is not None else _first_line(read_text(self.path))
        except InputFormatError as exc:
            return exc

    @property
    def line(self) -> str | None:
        first = self._first
        return first[1] if isinstance(first, tuple) else None

    @property
    def line_number(self) -> int:
        first = self._first
        return first[0] if isinstance(first, tuple) else 0

    @property
    def error(self) -> InputFormatError | None:
        """Why the file is not text (not UTF-8 or UTF-16/32, a NUL byte...), or ``None``."""
        first = self._first
        return first if isinstance(first, InputFormatError) else None


def _first_line(text: str) -> tuple[int, str] | None:
    for number, line in enumerate(lines(text), 1):
        if line.strip():
            return number, line
    return None


Reader = Callable[[list[str], Request], "dict[str, pd.DataFrame]"]


@dataclass(frozen=True)
class Format:
    """One input format of score files.

    Attributes
    ----------
    name
        How ``format=`` names it.
    extensions
        The file extensions it claims, lower case with their dot (``(".csv",)``); a compression
        extension after them (``.csv.gz``) does not count.  No two formats share one.
    sniff
        Whether a file's :class:`Head` is of this format.  It must recognise this format's files
        only: no two sniffers claim the same file (but for content that is truly ambiguous, a
        header holding commas and tabs, where the extension, else the registry order, decides).
    read
        ``read(paths, request) -> {measure: matrix}``: the score matrices of the files (several
        only for per-query formats), in the terms of :class:`Request`.
    kind
        :data:`TABLE` (one file; ``system=``, ``topic=``, ``score=`` apply) or :data:`PER_QUERY`
        (one system per output, several files at once; ``names=`` applies).
    description
        What its files hold, for help and refusals.
    """

    name: str
    extensions: tuple[str, ...]
    sniff: Callable[[Head], bool]
    read: Reader
    kind: Kind
    description: str

    def claims_extension(self, path: str | os.PathLike) -> bool:
        return extension_of(path) in self.extensions

    def summary(self) -> str:
        """``name (extensions)``: one line of help."""
        return f"{self.name} ({', '.join(self.extensions) or 'by content'})"


def extension_of(path: str | os.PathLike) -> str:
    """The extension that tells a file's format: the last one, after dropping ``.gz``, ``.bz2`` or
    ``.xz`` (``scores.csv.gz`` -> ``.csv``); ``""`` for none."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSION:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


# ---------------------------------------------------------------------------------------------
# sniffers


def _is_measure(name: str) -> bool:
    from riskeval.io.measures import canonical_measure

    try:
        canonical_measure(name)
    except RiskevalError:
        return False
    return True


def per_query_tool(line: str) -> str | None:
    """``"trec_eval"`` or ``"ir_measures"`` when ``line`` is a line of that tool's output, else
    ``None``: a JSON object naming a query, measure or value (ir_measures ``-o jsonl``); a summary
    line (topic ``all`` second for trec_eval, first for ir_measures); three fields whose first
    (trec_eval, ``measure topic value``) or second (ir_measures, ``query_id measure value``)
    field, and only that one, is a measure name; or ir_measures' ``measure value`` line without
    ``-q``."""
    from riskeval.io.numbers import parse_decimal

    text = line.strip()
    if text.startswith("{"):
        try:
            record = json.loads(text)
        except ValueError:
            return "ir_measures"  # its reader says what is wrong with the line
        named = isinstance(record, dict) and bool({"query_id", "measure", "value"} & set(record))
        return "ir_measures" if named else None
    fields = text.split()
    if len(fields) >= 3 and fields[1] == "all":
        return "trec_eval"
    if len(fields) == 3 and fields[0] == "all":
        return "ir_measures"
    if len(fields) == 3:
        measure_first, measure_second = _is_measure(fields[0]), _is_measure(fields[1])
        if measure_first != measure_second:
            return "trec_eval" if measure_first else "ir_measures"
    if len(fields) == 2 and parse_decimal(fields[1]) is not None and _is_measure(fields[0]):
        return "ir_measures"
    return None


def _header(delimiter: str) -> Callable[[Head], bool]:
    """A delimited table's sniffer: a first line holding the delimiter that is neither a JSON
    value nor an evaluation tool's output line."""

    def sniff(head: Head) -> bool:
        line = head.line
        if line is None or delimiter not in line or line.lstrip().startswith(("{", "[")):
            return False
        return per_query_tool(line) is None

    return sniff


def _tool(name: str) -> Callable[[Head], bool]:
    def sniff(head: Head) -> bool:
        line = head.line
        return line is not None and per_query_tool(line) == name

    return sniff


def _parquet(head: Head) -> bool:
    return head.raw[:4] == b"PAR1"  # the magic number that starts (and ends) every Parquet file


# ---------------------------------------------------------------------------------------------
# readers, imported on use


def _read_table(format: str, paths: list[str], request: Request) -> dict[str, pd.DataFrame]:
    from riskeval.io.score_files import read_table

    [path] = paths
    return read_table(path, format, request)


def _read_trec_eval(paths: list[str], request: Request) -> dict[str, pd.DataFrame]:
    from riskeval.io.trec_eval import read_trec_eval, read_trec_eval_measures

    if request.one:
        [measure] = request.measures or [None]
        matrix = read_trec_eval(paths, measure, names=request.names, missing=request.missing)
        return {str(measure): matrix}
    return read_trec_eval_measures(paths, request.measures, names=request.names, missing=request.missing)


def _read_ir_measures(paths: list[str], request: Request) -> dict[str, pd.DataFrame]:
    from riskeval.io.per_query import read_ir_measures

    matrices = read_ir_measures(paths, request.measures, names=request.names, missing=request.missing)
    if request.one and len(matrices) > 1:
        from riskeval.io.measures import describe_available

        raise RiskevalError(
            f"{paths[0] if len(paths) == 1 else f'{len(paths)} ir_measures outputs'}: there are "
            f"{len(matrices)} measures: {describe_available(list(matrices))}; choose one with measure=."
        )
    return matrices


#: The formats, in the order their sniffers are tried.
FORMATS: list[Format] = [
    Format(
        "csv",
        (".csv",),
        _header(","),
        functools.partial(_read_table, "csv"),
        TABLE,
        "a score table, comma-separated, with a header line (long: system, topic, score; or wide)",
    ),
    Format(
        "tsv",
        (".tsv", ".tab"),
        _header("\t"),
        functools.partial(_read_table, "tsv"),
        TABLE,
        "a score table, tab-separated, with a header line (long or wide)",
    ),
    Format(
        "parquet",
        (".parquet", ".pq"),
        _parquet,
        functools.partial(_read_table, "parquet"),
        TABLE,
        "a score table in Parquet (long or wide)",
    ),
    Format(
        "trec_eval",
        (".eval",),
        _tool("trec_eval"),
        _read_trec_eval,
        PER_QUERY,
        "trec_eval -q output ('measure topic value' lines)",
    ),
    Format(
        "ir_measures",
        (".jsonl",),
        _tool("ir_measures"),
        _read_ir_measures,
        PER_QUERY,
        "ir_measures -q output ('query_id measure value' lines, or JSON lines with -o jsonl)",
    ),
]


def register_format(new: Format) -> Format:
    """Add ``new`` to :data:`FORMATS` (after the others: its sniffer is tried last).

    Raises
    ------
    RiskevalError
        A format of that name exists, or an extension is another format's, or not ``.lower``.
    """
    if any(f.name == new.name for f in FORMATS):
        raise RiskevalError(f"A format named {new.name!r} is already registered.")
    for extension in new.extensions:
        if not extension.startswith(".") or extension != extension.lower():
            raise RiskevalError(
                f"Format {new.name!r}: extensions are lower case with their dot ('.csv'); got {extension!r}."
            )
        owner = next((f.name for f in FORMATS if extension in f.extensions), None)
        if owner is not None:
            raise RiskevalError(
                f"Format {new.name!r}: the extension {extension!r} is claimed by format {owner!r}; "
                "a file's extension must name one format."
            )
    FORMATS.append(new)
    return new


def format_names() -> list[str]:
    """The names of the formats, in registry order (the values ``format=`` takes)."""
    return [f.name for f in FORMATS]


def format_help() -> str:
    """The formats in one line for help texts: ``csv (.csv), tsv (.tsv, .tab), ...``."""
    return ", ".join(f.summary() for f in FORMATS) + "; compressed files (.gz, .bz2, .xz) too"


def named_format(name: str, caller: str) -> Format:
    """The format called ``name`` (a :class:`RiskevalError` listing them for an unknown one)."""
    from riskeval.options import check_option

    check_option(name, format_names(), caller, "format")
    return next(f for f in FORMATS if f.name == name)


def format_of(path: str | os.PathLike, format: str | None = None, caller: str = "score_matrix") -> Format:
    """The format of the file ``path``: ``format`` if given, else by extension and content (the
    rule in this module's docstring).

    Raises
    ------
    InputFormatError
        No format claims the file (naming its first line, or why it is not text).
    RiskevalError
        ``format`` is unknown; or the file can be told by neither its extension nor its content
        (a pipe, whose content cannot be read twice; a file that cannot be opened).
    """
    if format is not None:
        return named_format(format, caller)
    by_extension = next((f for f in FORMATS if f.claims_extension(path)), None)
    location = os.fspath(path)
    try:
        head = None if stat.S_ISFIFO(os.stat(location).st_mode) else Head(location)
    except OSError as exc:
        if by_extension is not None:
            return by_extension  # its reader says what is wrong
        reason = exc.strerror or exc
        raise RiskevalError(f"{_unknown_extension(path)}; and it cannot be read: {reason}.") from exc
    if head is None:
        if by_extension is not None:
            return by_extension
        raise RiskevalError(
            f"{_unknown_extension(path)}; and it is a pipe, whose content can be read once only, "
            "not once to tell its format and again to read it: save it to a file, or name its "
            "format with format=."
        )
    if by_extension is not None and by_extension.sniff(head):
        return by_extension
    sniffed = next((f for f in FORMATS if f is not by_extension and f.sniff(head)), None)
    if sniffed is not None:
        return sniffed
    if by_extension is not None:
        return by_extension  # its reader says, line by line, what is wrong
    if head.error is not None:
        raise head.error
    where = f"{location}:{head.line_number}" if head.line is not None else location
    seen = f"its first line is {head.line[:80]!r}" if head.line is not None else "it is empty"
    raise InputFormatError(
        [
            (
                where,
                f"is not a score table or per-query output of a format riskeval reads ({seen}). The "
                f"formats: {_described()}.",
            )
        ]
    )


def format_of_files(paths: Sequence[str | os.PathLike], format: str | None, caller: str) -> Format:
    """The one format of ``paths``: several files must be per-query outputs of one tool."""
    formats = [format_of(p, format, caller) for p in paths]
    if len(formats) > 1:
        tables = [(p, f) for p, f in zip(paths, formats, strict=True) if f.kind != PER_QUERY]
        if tables:
            per_query = " or ".join(f.description for f in FORMATS if f.kind == PER_QUERY)
            path, fmt = tables[0]
            raise RiskevalError(
                f"A list of files is read as {per_query}, one system per output; read score tables "
                f"one at a time ({caller}(path)) and combine them; got {os.fspath(path)} ({fmt.name})."
            )
        if len({f.name for f in formats}) > 1:
            shown = ", ".join(f"{os.fspath(p)} ({f.name})" for p, f in zip(paths, formats, strict=True))
            raise RiskevalError(f"Give per-query files of one tool at a time; got {shown}.")
    return formats[0]


def read_files(
    paths: Sequence[str | os.PathLike], format: str | None, request: Request, caller: str
) -> dict[str, pd.DataFrame]:
    """The score matrices of ``paths`` read in their format (:func:`format_of_files`), once the
    options of ``request`` that do not apply to it are refused."""
    fmt = format_of_files(paths, format, caller)
    if fmt.kind == TABLE and request.names is not None:
        raise RiskevalError(
            f"The 'names' parameter of {caller} does not apply to a score table file; got {request.names!r}."
        )
    if fmt.kind != TABLE:
        refuse_columns(request.columns, f"{fmt.name} output")
    return fmt.read([os.fspath(p) for p in paths], request)


def unnamed_key(wanted: Sequence[Any] | None, source: str | None = None) -> str:
    """The key of the one matrix of a table without a ``measure`` column: the one measure
    requested, else :data:`UNNAMED`; several requested are an error (an :class:`InputFormatError`
    naming the file ``source`` of the table, when it is read from one)."""
    if wanted is not None and len(wanted) > 1:
        message = (
            f"{len(wanted)} measures were asked for ({', '.join(map(str, wanted))}) but the table has no "
            "'measure' column: it holds one measure."
        )
        if source is not None:
            raise InputFormatError([(source, f"{message} Ask for one measure, or add a 'measure' column.")])
        raise RiskevalError(f"score_matrices: {message}")
    return UNNAMED if wanted is None else str(wanted[0])


def refuse_columns(columns: Mapping[str, Hashable], what: str) -> None:
    """Column names other than the defaults apply to tables only: an error for ``what``."""
    changed = {k: v for k, v in columns.items() if v != DEFAULT_COLUMNS[k]}
    if changed:
        raise RiskevalError(
            f"Column names ({', '.join(f'{k}={v!r}' for k, v in changed.items())}) apply to "
            f"tables only, not to {what}."
        )


def _unknown_extension(path: str | os.PathLike) -> str:
    known = ", ".join(e for f in FORMATS for e in f.extensions)
    return (
        f"{os.fspath(path)}: unknown score file extension {extension_of(path) or '(none)'!r}; known "
        f"extensions: {known}"
    )


def _described() -> str:
    return "; ".join(f"{f.summary()}: {f.description}" for f in FORMATS)
