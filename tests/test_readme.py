"""The README tells the truth: its set-up is the two commands, the second is what .ci/run runs, and
its Python examples (the measures' first examples, verbatim) run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_setup_is_two_commands_and_ci_runs_the_second():
    setup = blocks("sh")[0].strip().splitlines()
    assert setup == [
        'pip install -e ".[dev]" && riskeval report --example -o riskeval-report.html',
        "python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-2:] == ["python -m pytest", "python -m pytest -m slow"]


def test_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for code in blocks("python"):
        exec(compile(code, "README.md", "exec"), {})


def test_issue_2_acceptance_examples_are_verbatim():
    assert (
        """rk.risk_table(X, baseline="mean", alphas=[0, 1, 5, 10])              # tidy pd.DataFrame"""
        in README
    )
    assert """r = rk.trisk(X.loc["s2"], X.loc["s1"], alpha=1.0, se="jackknife")   # r.statistic""" in README


def test_linked_docs_exist():
    for link in re.findall(r"\]\((docs/[^)]+)\)", README):
        assert (ROOT / link).exists(), link
