"""The Python examples of docs/ltr.md run as written (the quick-start example among them)."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "ltr.md"


@pytest.mark.slow  # trains three models end to end
def test_python_examples_of_the_ltr_page_run(letor_dir):
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 3
    assert (
        'booster = train(params, X, y, group, objective="ucro", alpha=0.0, baseline=0)   '
        "# baseline: feature index" in blocks[0]
    )
    # the page reads LightGBM's examples/lambdarank folder
    namespace: dict = {}
    for code in blocks:
        exec(compile(code.replace("examples/lambdarank", str(letor_dir)), str(DOC), "exec"), namespace)
    assert namespace["booster"].current_iteration() == 20
