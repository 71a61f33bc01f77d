"""A griffe extension that reads riskeval's docstrings as the API reference should show them.

- Sphinx cross-reference roles (``:func:`riskeval.trisk```, ``:class:`~riskeval.errors.RiskevalError```)
  become inline code (``riskeval.trisk``, ``RiskevalError``): the reference renders docstrings as
  Markdown, which has no roles.
- A parameter or attribute described on its own line (``alpha : risk aversion α ≥ 0.``) has that
  text moved under it, as its description: in numpy style the text after `` : `` is the type, and
  riskeval writes a type there (``alpha : float``) or, for a short entry, the description.  Text
  is a description when it ends in punctuation, holds inline code, a colon or a semicolon, or
  fills the line (a type is a few words; a line of 80 characters or more was wrapped).

``mkdocs.yml`` names this file in the ``extensions`` of the Python handler.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: A Sphinx role around a dotted name; ``~`` keeps only its last part.
ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|exc|obj):`(~?)([^`]+)`")
#: The sections whose entries are ``name : type`` then an indented description.
NAMED_SECTIONS = {"parameters", "other parameters", "attributes"}
#: An entry of those sections: names (``a, b``, ``*args``), then the text after the colon.
ENTRY = re.compile(r"^(\*{0,2}\w+(?:, \*{0,2}\w+)*) : (.+)$")


def as_code(text: str) -> str:
    """``text`` with every Sphinx role written as Markdown inline code."""
    return ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", text)


#: A line this long is prose wrapped at the line length, not a type.
WRAPPED = 80


def is_description(line: str, text: str) -> bool:
    """Whether ``text``, after the colon of the entry ``line``, describes the entry rather than
    naming its type."""
    punctuated = text.rstrip()[-1] in ".,;:" or "; " in text or ": " in text
    return punctuated or "``" in text or len(line) >= WRAPPED


def entries_described(text: str) -> str:
    """``text`` with the descriptions written in the type slot of named entries moved under them,
    and the backticks of a type (``riskeval.RiskSettings``) dropped."""
    lines = text.split("\n")
    out: list[str] = []
    named = False
    for i, line in enumerate(lines):
        underlined = i + 1 < len(lines) and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]) is not None
        if underlined:
            named = line.strip().lower() in NAMED_SECTIONS
        entry = ENTRY.match(line) if named else None
        if entry is None:
            out.append(line)
        elif is_description(line, entry[2]):
            out += [entry[1], f"    {entry[2]}"]
        else:
            out.append(f"{entry[1]} : {entry[2].replace('`', '')}")
    return "\n".join(out)


class ReferenceDocstrings(griffe.Extension):
    """Rewrites each docstring as it is loaded, before it is parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = entries_described(as_code(obj.docstring.value))
