"""A missing optional extra is one clear line naming the extra to install (exit status 2 on the
command line), and the measures never import the optional libraries."""

from __future__ import annotations

import subprocess
import sys

import pytest

import riskeval as rk
from riskeval.cli.main import main


@pytest.fixture
def without_report_extra(monkeypatch):
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.figure", "jinja2", "markupsafe"):
        monkeypatch.setitem(sys.modules, name, None)  # import of a None entry fails


def test_report_command_names_the_extra(without_report_extra, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["report", "--example", "-o", str(tmp_path / "r.html")])  # as the README
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert 'pip install "riskeval[report]"' in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "r.html").exists()


def test_report_function_raises_the_error_family(without_report_extra):
    with pytest.raises(rk.errors.MissingDependencyError, match=r"riskeval\[report\]"):
        rk.report(rk.example_scores())


def test_plots_name_the_extra(without_report_extra):
    from riskeval.plots.risk import plot_trisk

    with pytest.raises(rk.RiskevalError, match=r"'report' extra \(matplotlib, jinja2\)"):
        plot_trisk(rk.example_scores().iloc[:3])


def test_measures_import_no_optional_library():
    code = (
        "import sys, riskeval as rk\n"
        "rk.urisk([0.1, 0.2, 0.3], [0.2, 0.1, 0.4]); rk.risk_table(rk.example_scores())\n"
        "print(sorted({'ir_measures', 'matplotlib', 'lightgbm', 'jinja2'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
