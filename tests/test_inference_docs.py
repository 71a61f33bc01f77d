"""The Python examples of docs/inference.md run as written, and its tables name existing functions."""

from __future__ import annotations

import re
from pathlib import Path

import riskeval as rk

PAGE = Path(__file__).resolve().parents[1] / "docs" / "inference.md"


def test_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    assert blocks
    for code in blocks:
        namespace: dict[str, object] = {}
        exec(compile(code, str(PAGE), "exec"), namespace)
    assert namespace["res"].seed == 1 and 0 < namespace["p"] <= 1


def test_functions_named_in_the_page_exist():
    names = set(re.findall(r"`rk\.([a-z_]+)\(", PAGE.read_text(encoding="utf-8")))
    assert {"permutation_test", "risk_permutation_table", "bootstrap_ci", "tukey_hsd"} <= names
    assert all(hasattr(rk, n) for n in names)
