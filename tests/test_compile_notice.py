"""The compile notice in a fresh process where numba compiles (its cache in an empty folder): the
first compilation of a riskeval kernel writes the notice of its part once (two modules of one part:
one notice, another part: its own); loading numba and compiling a kernel of another package write
nothing."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import processes

import riskeval
from riskeval.core import _numba

PROBE = """
import sys, types
from riskeval.core import _numba


def module(name):
    m = types.ModuleType(name)
    sys.modules[name] = m
    exec("def one(x):\\n    return x + 1\\n\\n\\ndef two(x):\\n    return one(x) + 1\\n", m.__dict__)
    m.one, m.two = _numba.njit(m.one), _numba.njit(m.two)
    return m


_numba._load_numba()
sys.stderr.write("numba loaded; ")
print(
    module("elsewhere.probe").two(1),
    module("riskeval.evaluation.probe_a").two(1),
    module("riskeval.evaluation.probe_b").two(1),
    module("riskeval.core.probe_c").two(1),
)
"""


def test_the_first_compilation_of_a_riskeval_kernel_writes_the_notice_once(tmp_path, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(_numba, "quiet", False)
    monkeypatch.setattr(_numba, "announced", set())
    _numba._load_numba()
    assert err.getvalue() == ""  # loading numba compiles nothing
    env = {name: value for name, value in os.environ.items() if name != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = str(Path(riskeval.__file__).parents[1])
    run = processes.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert run.stdout == "3 3 3 3\n"
    evaluation = _numba.compile_notice("riskeval.evaluation.probe_a")
    assert run.stderr == "numba loaded; " + evaluation + _numba.compile_notice("riskeval.core.probe_c")
    assert "evaluation kernels" in evaluation
