"""The examples of docs/inputs.md run as written, and print what the page says they print."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

from shared_data import shared_data

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "inputs.md"


def test_inputs_page_examples_run(tmp_path, monkeypatch):
    clef = shared_data("clef-ehealth-2015-task2")
    runnable = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)
    assert len(runnable) >= 8
    # run from a folder that holds the CLEF eHealth 2015 Task 2 data, as the page says
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "clef-ehealth-2015-task2").symlink_to(clef)
    monkeypatch.chdir(repo)
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in runnable:
            exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102
    printed = out.getvalue()
    # the comments of the page show the output
    for expected in [
        "(2, 66)",
        "0.1\n",
        "['CUNI_EN_Run.1.dat.ndcg', 'CUNI_EN_Run.10.dat.ndcg']",
        "system name 'DirichletLM' is given to 2 outputs",
        "the table: 1 of 6 (system, topic) cell(s) are missing",
        "0.0 ['301', '303']",
        "bad.csv:4: duplicate (system, topic) ('bm25', '301'): first at bad.csv:2.",
        "['0', '1']",
        "bm25    0.5  0.2500\ndph     0.1  0.0625",
        "dph     0.63093  1.0",
        "['P@10', 'map'] (2, 66)",
        "\n27\n",
        "[0.25, 0.3333]",
        "nDCG@10 -0.7262\n     AP -0.9167",
        "csv (.csv), tsv (.tsv, .tab), parquet (.parquet, .pq), trec_eval (.eval), ir_measures (.jsonl);",
        "tsv ir_measures\n",
        "True\n",
    ]:
        assert expected in printed
