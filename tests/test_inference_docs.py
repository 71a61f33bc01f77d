"""The tables of docs/inference.md name existing functions (its examples run in test_docs_snippets.py)."""

from __future__ import annotations

import re
from pathlib import Path

import riskeval as rk

PAGE = Path(__file__).resolve().parents[1] / "docs" / "inference.md"


def test_functions_named_in_the_page_exist():
    names = set(re.findall(r"`rk\.([a-z_]+)\(", PAGE.read_text(encoding="utf-8")))
    assert {"permutation_test", "risk_permutation_table", "bootstrap_ci", "tukey_hsd"} <= names
    assert all(hasattr(rk, n) for n in names)
