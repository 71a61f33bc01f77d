"""The fenced code blocks of the documentation pages (:func:`page_blocks`), and a page's Python block
run statement by statement, keeping the value of each expression statement, so that a test can
check what the page's comments say those values are (:func:`run_statements`)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def run_statements(code: str, filename: str, namespace: dict[str, Any]) -> list[Any]:
    """Execute ``code`` in ``namespace``; the values of its expression statements (None left
    out), in order."""
    values = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), filename, "eval"), namespace)
            if value is not None:  # calls made for their effect (savefig, matplotlib.use)
                values.append(value)
        else:
            exec(compile(ast.Module([node], []), filename, "exec"), namespace)
    return values


@dataclass(frozen=True)
class Block:
    """A fenced code block of a documentation page."""

    page: Path
    #: line number of the opening fence (1-based): the code starts on the next line
    line: int
    language: str
    code: str
    #: the text of an HTML comment on the line just above the fence (``not run: ...``, ``slow:
    #: ...``), else ""
    mark: str

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}"


FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^\n]*$")
MARK = re.compile(r"^<!--\s*(.*?)\s*-->$")


def page_blocks(page: Path) -> list[Block]:
    """Every fenced code block of ``page`` (a Markdown file), in page order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        indent, ticks, language = fence.groups()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(ticks):
            end += 1
        mark = MARK.match(lines[i - 1].strip()) if i else None
        code = "\n".join(line[len(indent) :] for line in lines[i + 1 : end]) + "\n"
        found.append(Block(page, i + 1, language, code, mark.group(1) if mark else ""))
        i = end + 1
    return found
