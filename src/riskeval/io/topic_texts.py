"""Topic texts (topic id → query text) from the files TREC campaigns ship, for display only.

Three layouts, told apart by content:

- **Lines** ``id<TAB>text`` (TREC DL ``topics.dl20-passage.txt``, MS MARCO ``queries.*.tsv``) or
  ``id:text`` (TREC Web track ``queries.151-200.txt``).
- **TREC SGML**: ``<top>`` blocks with ``<num> Number: 301`` and ``<title> text`` (Robust, ad hoc
  tracks); the title runs to the next tag.
- **XML**: ``<topic number="151">`` elements holding ``<query>`` (TREC Web track
  ``full-topics.xml``) or ``<title>``; entities such as ``&amp;`` are decoded.

Every file is read through :mod:`riskeval.io.decoding`; problems name ``file:line``.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from pathlib import Path

from riskeval.errors import InputFormatError
from riskeval.io import decoding
from riskeval.io.decoding import read_text
from riskeval.io.problems import Problems

_TOP = re.compile(r"<top>", re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*([^<\s]+)", re.I)
_TITLE = re.compile(r"<title>\s*(?:Topic:)?\s*([^<]*)", re.I)
_TOPIC = re.compile(r"<topic\b([^<>]*)>", re.I)
_NUMBER = re.compile(r"""\bnumber\s*=\s*["']([^"']+)["']""", re.I)
_QUERY = re.compile(r"<(query|title)>", re.I)
_CLOSE = {name: re.compile(f"</{name}>", re.I) for name in ("top", "topic", "query", "title")}


def read_topic_texts(path: str | os.PathLike) -> dict[str, str]:
    """Topic id → text of a topics file (see the module for the layouts), in file order.

    Raises :class:`~riskeval.errors.InputFormatError` listing every ``file:line`` with a line or
    block without an id or a text, or a topic given twice, and for a file with no topic at all.
    """
    path = Path(path)
    text = read_text(path)
    if _complete(text, _TOPIC, "topic"):
        fields = ('a number="..." attribute', "a <query> or <title>")
    elif _complete(text, _TOP, "top"):
        fields = ("<num>", "<title>")
    else:
        fields = ("'topic<TAB>text' (or 'topic:text')", "a text after the id")
    out: dict[str, str] = {}
    problems = Problems()
    for at, raw_id, raw_text in _entries(text):
        where = f"{path}:{at}"
        qid = "" if raw_id is None else html.unescape(raw_id).strip()
        query = "" if raw_text is None else " ".join(html.unescape(raw_text).split())
        if not qid:
            problems.add(where, f"expected {fields[0]}: no topic id")
        elif not query:
            problems.add(where, f"topic {qid} has no text (expected {fields[1]})")
        elif qid in out:
            problems.add(where, f"topic {qid} is given twice")
        else:
            out[qid] = query
    problems.raise_any()
    if not out:
        raise InputFormatError(
            [(str(path), "no topic found (expected 'topic<TAB>text' lines, <top> or <topic>)")]
        )
    return out


def _entries(text: str) -> Iterator[tuple[int, str | None, str | None]]:
    """``(line, topic id, text)`` of each topic of the file, one at a time, in time linear in the
    file's length: every tag is found by one forward scan.  A ``<topic>`` or ``<top>`` left open
    at the end of the file is an entry without id or text."""
    if _complete(text, _TOPIC, "topic"):
        lines = _Lines(text)
        for start, head, body in _blocks(text, _TOPIC, "topic"):
            num = _NUMBER.search(head)
            yield lines.at(start), num and num.group(1), body and _first_element(body)
    elif _complete(text, _TOP, "top"):
        lines = _Lines(text)
        for start, _, body in _blocks(text, _TOP, "top"):
            num, title = _NUM.search(body or ""), _TITLE.search(body or "")
            yield lines.at(start), num and num.group(1), title and title.group(1)
    else:
        for number, line in enumerate(decoding.lines(text), 1):
            if line.strip():
                sep = "\t" if "\t" in line else ":"
                head, found, tail = line.partition(sep)
                yield number, head if found else None, tail if found else None


def _complete(text: str, opening: re.Pattern[str], name: str) -> bool:
    """Whether ``text`` holds an ``opening`` tag with a closing ``</name>`` tag after it."""
    first = opening.search(text)
    return first is not None and _CLOSE[name].search(text, first.end()) is not None


def _blocks(text: str, opening: re.Pattern[str], name: str) -> Iterator[tuple[int, str, str | None]]:
    """``(offset, opening tag's attributes, body)`` of each ``opening ... </name>`` block, the
    body running to the first closing tag (as a non-greedy pattern would, without rescanning the
    rest of the file from every unclosed tag); a last tag left open has the body ``None``."""
    position = 0
    for tag in opening.finditer(text):
        if tag.start() < position:
            continue  # inside the previous block
        end = _CLOSE[name].search(text, tag.end())
        head = tag.group(1) if opening.groups else ""
        if end is None:
            yield tag.start(), head, None
            return
        yield tag.start(), head, text[tag.end() : end.start()]
        position = end.end()


def _first_element(body: str) -> str | None:
    """The text of the first ``<query>...</query>`` or ``<title>...</title>`` of ``body``."""
    unclosed: set[str] = set()
    for tag in _QUERY.finditer(body):
        name = tag.group(1).lower()
        if name in unclosed:
            continue
        end = _CLOSE[name].search(body, tag.end())
        if end is not None:
            return body[tag.end() : end.start()]
        unclosed.add(name)  # no later tag of this name is closed either
    return None


class _Lines:
    """Line numbers of increasing offsets in a text, counted once."""

    def __init__(self, text: str):
        self.text, self.offset, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line
