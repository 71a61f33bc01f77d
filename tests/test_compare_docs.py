"""The "Tables for papers" section of docs/risk.md: its Python blocks run as written and give the
LaTeX and Markdown the page shows."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "risk.md"


def test_tables_for_papers_print_what_the_page_shows():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Tables for papers") : text.index("## Your own risk measure")]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    shown = dict(re.findall(r"`(\w+)` is:\n\n```\w+\n(.*?)```", section, flags=re.S))
    assert len(code) == 2 and set(shown) == {"latex", "markdown"}
    namespace: dict = {}
    for block in code:
        exec(compile(block, str(PAGE), "exec"), namespace)
    for name, output in shown.items():
        assert namespace[name] == output, name
