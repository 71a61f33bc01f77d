"""The examples of docs/variations.md run as written, and the outputs shown are the outputs made.

Python blocks run in page order in one namespace: ``>>>`` blocks as doctests (their printed output
is compared, whitespace normalised), other blocks as code.  A block preceded by ``<!-- not run: ...
-->`` is skipped (examples that use a ``df`` built later; the 110-system
report).  The page's ``clef-ehealth-2015-task2`` folder is linked to the campaign data of the test
environment (``shared_data``)."""

from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

import matplotlib
import pytest
from shared_data import shared_data

matplotlib.use("Agg")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "variations.md"

pytestmark = pytest.mark.slow


def blocks() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    found = re.findall(r"(<!-- not run[^>]*-->\n)?```python\n(.*?)```", text, flags=re.S)
    return [code for skip, code in found if not skip]


def test_snapshot_examples_print_the_outputs_shown(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    clef = shared_data("clef-ehealth-2015-task2")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clef-ehealth-2015-task2").symlink_to(clef)  # the page runs beside the CLEF folder
    namespace: dict = {}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the CLEF loader's warnings are described on the page
        for i, code in enumerate(blocks()):
            if ">>>" in code:
                test = parser.get_doctest(code, namespace, f"block {i}", str(PAGE), 0)
                runner.run(test, clear_globs=False)
                namespace.update(test.globs)  # a DocTest works on a copy of its globals
            else:
                exec(compile(code, f"{PAGE.name} block {i}", "exec"), namespace)
    plt.close("all")
    assert runner.failures == 0 and runner.tries > 20
    assert (tmp_path / "tau.png").exists()
