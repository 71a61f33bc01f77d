"""riskeval.core._numba: a kernel is a placeholder until its first call, then numba's own object in
its module, with the kernels and prange its code names; the compile notice is written once."""

from __future__ import annotations

import io
import sys
import types

import numpy as np
import pytest

from riskeval.core import _numba


@pytest.fixture
def probe(monkeypatch):
    """A module of riskeval's with two kernels, one calling the other in a prange loop, and a ufunc."""
    module = types.ModuleType("riskeval._probe")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    source = '''
def double(x):
    """Twice x."""
    return 2.0 * x


def total(v):
    s = 0.0
    for i in prange(v.size):
        s += double(v[i])
    return s


def half(x):
    return 0.5 * x
'''
    exec(compile(source, "<probe>", "exec"), module.__dict__)
    module.prange = _numba.prange
    plain = {name: module.__dict__[name] for name in ("double", "total", "half")}
    module.double = _numba.njit(plain["double"])
    module.total = _numba.njit(cache=False)(plain["total"])
    module.half = _numba.vectorize(["float64(float64)"])(plain["half"])
    return module, plain


def test_a_kernel_is_a_placeholder_until_its_first_call(probe):
    module, plain = probe
    double, total = module.double, module.total
    assert (double.__name__, double.__qualname__, double.__module__) == (
        "double",
        "double",
        "riskeval._probe",
    )
    assert double.__doc__ == "Twice x." and double.__wrapped__ is plain["double"]
    assert double.py_func is plain["double"] and double.targetoptions == {}
    assert module.total.targetoptions == {"cache": False}
    assert repr(double) == "<riskeval kernel riskeval._probe.double (not loaded yet)>"
    assert module.prange is range  # in Python; numba's prange once a kernel of the module is loaded
    with pytest.raises(AttributeError):
        double.__no_such__  # noqa: B018 - dunder lookups do not load the kernel
    assert repr(double) == "<riskeval kernel riskeval._probe.double (not loaded yet)>"

    assert module.total(np.arange(4.0)) == 12.0
    # total's first call loaded it and the kernel it names, and put them and numba's prange in place
    assert module.total is total.load() and not isinstance(module.total, _numba._Deferred)
    assert not isinstance(module.double, _numba._Deferred)
    assert module.prange is _numba._load_numba().prange
    assert repr(double) == "<riskeval kernel riskeval._probe.double (loaded)>"
    assert double(1.5) == 3.0 and double.load() is module.double

    np.testing.assert_array_equal(module.half(np.array([1.0, 3.0])), [0.5, 1.5])
    assert not isinstance(module.half, _numba._Deferred)


def test_a_placeholder_no_longer_in_its_module_is_left_alone(probe):
    module, _ = probe
    double = module.double
    module.double = "replaced"
    assert double(2.0) == 4.0
    assert module.double == "replaced"


def test_the_compile_notice_is_written_once_per_part_and_only_for_riskeval(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(_numba, "quiet", False)
    monkeypatch.setattr(_numba, "announced", set())
    other = types.SimpleNamespace(py_func=types.SimpleNamespace(__module__="numpy.linalg"))
    _numba._notice(other)
    assert err.getvalue() == ""
    for module in (
        "riskeval.core.paired",
        "riskeval.core.chisq",
        "riskeval.evaluation.kernels",
        "riskeval.io.qrels",
    ):
        _numba._notice(types.SimpleNamespace(py_func=types.SimpleNamespace(__module__=module)))
    assert err.getvalue() == (
        "riskeval: compiling the risk measures' kernels, once: about 5 s; later runs load them from "
        "the cache.\n"
        "riskeval: compiling the evaluation kernels, once: about 10 s; later runs load them from the "
        "cache.\n"
    )
    monkeypatch.setattr(_numba, "quiet", True)
    monkeypatch.setattr(_numba, "announced", set())
    _numba._notice(types.SimpleNamespace(py_func=types.SimpleNamespace(__module__="riskeval.ltr.kernels")))
    assert err.getvalue().count("\n") == 2  # quiet: nothing more
